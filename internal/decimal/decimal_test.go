package decimal

import (
	"errors"
	"testing"
)

func TestParseAndString(t *testing.T) {
	cases := []struct {
		in   string
		want Decimal
		text string
	}{
		{"0", 0, "0.0"},
		{"1", One, "1.0"},
		{"0.35", 350_000, "0.35"},
		{"-2.5", -2_500_000, "-2.5"},
		{"+1.500000", 1_500_000, "1.5"},
		{".25", 250_000, "0.25"},
		{"100", 100_000_000, "100.0"},
		{"0.000001", 1, "0.000001"},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
		if got.String() != c.text {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got.String(), c.text)
		}
		back, err := Parse(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q: %d, %v", c.in, back, err)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, in := range []string{"", ".", "-", "1e3", "0.0000001", "1.2.3", "abc", "1,5", "--1", "99999999999999999999"} {
		if _, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", in, err)
		}
	}
}

func TestArithmetic(t *testing.T) {
	d := MustParse
	cases := []struct {
		name string
		got  Decimal
		want Decimal
	}{
		{"mul", d("0.35").Mul(d("0.8")), d("0.28")},
		{"mul rounds half away", d("0.000001").Mul(d("0.5")), d("0.000001")},
		{"mul negative rounds half away", d("-0.000001").Mul(d("0.5")), d("-0.000001")},
		{"div", must(d("1").Div(d("3"))), d("0.333333")},
		{"div two thirds", must(d("2").Div(d("3"))), d("0.666667")},
		{"clamp", d("1.2").Clamp(Zero, One), One},
		{"min", d("0.4").Min(d("0.3")), d("0.3")},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s = %s, want %s", c.name, c.got, c.want)
		}
	}
	if _, ok := One.Div(Zero); ok {
		t.Error("division by zero reported ok")
	}
}

func TestFixed(t *testing.T) {
	cases := map[string]struct {
		d    Decimal
		n    int
		want string
	}{
		"four places":   {MustParse("0.875"), 4, "0.8750"},
		"round up":      {MustParse("0.66666"), 2, "0.67"},
		"round half":    {MustParse("0.125"), 2, "0.13"},
		"negative half": {MustParse("-0.125"), 2, "-0.13"},
		"zero places":   {MustParse("2.5"), 0, "3"},
	}
	for name, c := range cases {
		if got := c.d.Fixed(c.n); got != c.want {
			t.Errorf("%s: Fixed(%d) of %s = %q, want %q", name, c.n, c.d, got, c.want)
		}
	}
}

func must(d Decimal, ok bool) Decimal {
	if !ok {
		panic("division failed")
	}
	return d
}
