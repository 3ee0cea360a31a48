// Package decimal is the fixed-point number of oasis-replay: every weight, multiplier, tolerance
// and score is a Decimal, never a float, so that arithmetic and its text form are identical on
// every machine (floats differ across architectures through fused multiply-add, and their text
// forms differ across encoders).
//
// A Decimal holds a value scaled by 10^6 in an int64: six decimal places, exact for every
// weight and multiplier the OASIS profiles write (0.35, 1.5, 0.25, …). Multiplication and
// division round half away from zero to six places, the same way everywhere.
package decimal
