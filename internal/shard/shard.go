package shard

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/internal/errclass"
)

// ErrShard: a shard that is not I/N with 0 ≤ I < N, or --shards without JOB_COMPLETION_INDEX.
var ErrShard = errclass.New(errclass.Input, "shard: bad shard")

// IndexEnv is the variable a Kubernetes Indexed Job sets to the index of each pod's completion.
const IndexEnv = "JOB_COMPLETION_INDEX"

// Shard is shard Index of Count. The zero value (and any Count ≤ 1) is the whole.
type Shard struct {
	Index, Count int
}

// maxCount bounds N: more shards than this is a mistake, not a plan.
const maxCount = 1 << 20

// Parse reads "I/N".
func Parse(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("%w: %q: want I/N (shard I of N, 0 ≤ I < N)", ErrShard, s)
	}
	return newShard(i, n)
}

func newShard(i, n string) (Shard, error) {
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || count < 1 || count > maxCount || index < 0 || index >= count {
		return Shard{}, fmt.Errorf("%w: %s/%s: want I/N with 0 ≤ I < N ≤ %d", ErrShard, i, n, maxCount)
	}
	return Shard{Index: index, Count: count}, nil
}

// FromEnv is shard $JOB_COMPLETION_INDEX of count, as each pod of a Kubernetes Indexed Job of
// count completions runs it.
func FromEnv(count int) (Shard, error) {
	i, ok := os.LookupEnv(IndexEnv)
	if !ok {
		return Shard{}, fmt.Errorf("%w: --shards %d needs %s (set by a Kubernetes Indexed Job); elsewhere give --shard I/N", ErrShard, count, IndexEnv)
	}
	return newShard(i, strconv.Itoa(count))
}

// Whole reports whether s is all the items.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Has reports whether the item of the given digest (at least 8 bytes) is in s.
func (s Shard) Has(digest []byte) bool {
	if s.Whole() {
		return true
	}
	return binary.BigEndian.Uint64(digest[:8])%uint64(s.Count) == uint64(s.Index)
}

// HasKey reports whether the item of a key that is not a digest (a run or cell id) is in s.
func (s Shard) HasKey(key string) bool {
	h := sha256.Sum256([]byte(key))
	return s.Has(h[:])
}

// String is "I/N".
func (s Shard) String() string {
	if s.Whole() {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}
