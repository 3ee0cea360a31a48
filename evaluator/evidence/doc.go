// Package evidence names the exact evidence that decided an assertion: which observation, which
// audit entry, which snapshot field, which output channel and offset. Every verdict cites its
// evidence this way, so an auditor can go from a verdict straight to the bytes behind it.
//
// A Citation is plain data: no pointers into parsed structures, so it can be encoded canonically
// into a verdict and compared byte for byte.
package evidence
