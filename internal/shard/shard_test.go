package shard

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  error
	}{
		{"0/1", Shard{0, 1}, nil},
		{"2/7", Shard{2, 7}, nil},
		{"7/7", Shard{}, ErrShard},
		{"-1/3", Shard{}, ErrShard},
		{"1/0", Shard{}, ErrShard},
		{"1", Shard{}, ErrShard},
		{"a/b", Shard{}, ErrShard},
	} {
		got, err := Parse(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestFromEnv(t *testing.T) {
	t.Setenv(IndexEnv, "3")
	if s, err := FromEnv(5); err != nil || s != (Shard{3, 5}) {
		t.Errorf("FromEnv(5) = %v, %v", s, err)
	}
	if _, err := FromEnv(3); !errors.Is(err, ErrShard) {
		t.Errorf("index 3 of 3: %v", err)
	}
}

// TestPartition: for several N, every key is in exactly one shard, and shards are about even.
func TestPartition(t *testing.T) {
	const keys = 10000
	for _, n := range []int{1, 2, 3, 7} {
		counts := make([]int, n)
		for k := range keys {
			d := sha256.Sum256(fmt.Appendf(nil, "item %d", k))
			in := 0
			for i := range n {
				if (Shard{i, n}).Has(d[:]) {
					in++
					counts[i]++
				}
			}
			if in != 1 {
				t.Fatalf("N=%d: key %d in %d shards", n, k, in)
			}
		}
		for i, c := range counts {
			if c < keys/n*9/10 || c > keys/n*11/10 {
				t.Errorf("N=%d: shard %d holds %d of %d keys", n, i, c, keys)
			}
		}
	}
}
