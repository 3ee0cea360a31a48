package main

import "testing"

func TestClosest(t *testing.T) {
	commands := []string{"demo", "record", "replay", "audit", "receipt", "bundle", "store", "kensa", "eval", "serve"}
	tests := []struct{ typed, want string }{
		{"bundel", "bundle"},   // a swap of neighbours is one edit
		{"reciept", "receipt"}, //
		{"replya", "replay"},   //
		{"kensaa", "kensa"},    // one extra letter
		{"serv", "serve"},      // a prefix
		{"stroe", "store"},     //
		{"xyzzy", ""},          // nothing close: no suggestion rather than a wild one
		{"e", ""},              // one letter is no prefix worth suggesting from
		{"", ""},               //
	}
	for _, tt := range tests {
		if got := closest(tt.typed, commands); got != tt.want {
			t.Errorf("closest(%q) = %q, want %q", tt.typed, got, tt.want)
		}
	}
}
