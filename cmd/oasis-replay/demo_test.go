package main

import "testing"

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"oasis-replay", "oasis-replay"},
		{"./bin/oasis-replay", "./bin/oasis-replay"},
		{"/home/a_b/x-1.2/store", "/home/a_b/x-1.2/store"},
		{"/tmp/my store", "'/tmp/my store'"},
		{"/tmp/it's", `'/tmp/it'\''s'`},
		{"$HOME/s", "'$HOME/s'"},
		{"", "''"},
	}
	for _, tt := range tests {
		if got := shellQuote(tt.in); got != tt.want {
			t.Errorf("shellQuote(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
