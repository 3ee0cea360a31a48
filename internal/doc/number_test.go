package doc

import (
	"math"
	"testing"
)

func TestNumbersEqual(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		equal bool
	}{
		{"1", "1.0", true}, {"1", "10e-1", true}, {"1", "0.1e1", true}, {"100", "1e2", true}, {"100", "1E+2", true},
		{"0", "-0", true}, {"0", "0.000e10", true}, {"-0.0", "0e-5", true}, {"1.50", "15e-1", true},
		{"123456789012345678901234567890", "1.2345678901234567890123456789e29", true},
		{"1e999999999999999999999", "10e999999999999999999998", true},
		{"1e999999999999999999999", "1e999999999999999999998", false},
		{"1e999999999999999999999", "1e5", false},
		{"1", "2", false}, {"1", "-1", false}, {"0.1", "0.10000000000000001", false}, {"10", "1", false},
		{"12", "21", false}, {"1e2", "1e-2", false},
	} {
		if got := numbersEqual(tc.a, tc.b); got != tc.equal {
			t.Errorf("numbersEqual(%s, %s) = %v", tc.a, tc.b, got)
		}
		if got := numbersEqual(tc.b, tc.a); got != tc.equal {
			t.Errorf("numbersEqual(%s, %s) = %v", tc.b, tc.a, got)
		}
	}
}

func TestNumberPlainAndIntegers(t *testing.T) {
	for _, tc := range []struct{ lit, plain string }{
		{"0", "0"}, {"-0", "0"}, {"1.50", "1.5"}, {"15e-1", "1.5"}, {"1e3", "1000"}, {"-0.00120", "-0.0012"},
		{"123.456e1", "1234.56"}, {"5e-3", "0.005"}, {"0.5e1", "5"},
	} {
		got, ok := parseNumber(tc.lit).plain(maxPlainDigits)
		if !ok || got != tc.plain {
			t.Errorf("plain(%s) = %q %v, want %q", tc.lit, got, ok, tc.plain)
		}
	}
	for _, tc := range []struct {
		lit string
		v   int64
		ok  bool
	}{
		{"0", 0, true}, {"12", 12, true}, {"1.2e1", 12, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775807", math.MaxInt64, true}, {"9223372036854775808", 0, false}, {"1.5", 0, false},
		{"1e19", 0, false}, {"1e-1", 0, false}, {"1e99999999999999999999", 0, false},
	} {
		v, ok := parseNumber(tc.lit).int64()
		if v != tc.v || ok != tc.ok {
			t.Errorf("int64(%s) = %d %v, want %d %v", tc.lit, v, ok, tc.v, tc.ok)
		}
	}
}

// TestES6 is the table of RFC 8785 Appendix B: IEEE doubles and their ECMAScript form.
func TestES6(t *testing.T) {
	for _, tc := range []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"}, {0x8000000000000000, "0"}, {0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"}, {0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"}, {0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"}, {0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"}, {0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"}, {0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"}, {0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"}, {0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"}, {0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"}, {0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"}, {0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	} {
		if got := string(appendES6(nil, math.Float64frombits(tc.bits))); got != tc.want {
			t.Errorf("%016x: %s, want %s", tc.bits, got, tc.want)
		}
	}
}

func TestCanonicalNumber(t *testing.T) {
	for _, tc := range []struct{ lit, want string }{
		{"0", "0"}, {"-0", "0"}, {"1.0", "1"}, {"10e-1", "1"}, {"1.5e2", "150"}, {"123e-2", "1.23"}, {"0.1", "0.1"},
		{"1e21", "1e+21"}, {"1e23", "1e+23"}, {"0.000001", "0.000001"}, {"1e-7", "1e-7"}, {"-12", "-12"},
		{"9007199254740992", "9007199254740992"}, {"123456789012345", "123456789012345"},
		{"12345678901234567891", ""}, {"9007199254740993", ""}, {"1e400", ""}, {"-1e400", ""}, {"1e-400", ""},
		{"0.1000000000000000000001", ""}, {"3.14159265358979323846", ""},
	} {
		got, ok := appendCanonicalNumber(nil, tc.lit)
		if tc.want == "" {
			if ok {
				t.Errorf("%s: canonical %s, want a refusal", tc.lit, got)
			}
			continue
		}
		if !ok || string(got) != tc.want {
			t.Errorf("%s: %s %v, want %s", tc.lit, got, ok, tc.want)
		}
	}
}
