package doc

import (
	"fmt"
	"io"
)

// Limits bound what reading one untrusted document may cost. A zero field takes its default
// (DefaultLimits), so a reader names only the limits it changes:
//
//	doc.ParseJSON(name, data, doc.Limits{MaxBytes: 1 << 30, MaxNodes: 50_000_000})
//
// A negative field is a programming error (it panics). There is no "unlimited": a reader that
// trusts its input sets a large value. Every violation is an *Error wrapping
// ErrLimit whose message names the limit (its field name) and its value, with the file, the
// position and the path where it was exceeded.
type Limits struct {
	// MaxBytes bounds the input: a whole JSON document, a whole YAML stream, or one line of a
	// JSON Lines file.
	MaxBytes int64
	// MaxDepth bounds how deeply arrays and objects nest: [] and {"a": 1} nest 1 deep,
	// [[]] and {"a": {}} 2 deep.
	MaxDepth int
	// MaxKeyBytes bounds an object member name, in bytes after unescaping.
	MaxKeyBytes int
	// MaxStringBytes bounds a string value, in bytes after unescaping.
	MaxStringBytes int
	// MaxNumberBytes bounds the literal of a number, as written.
	MaxNumberBytes int
	// MaxNodes bounds the values of a document (of a YAML stream, all its documents), every
	// scalar, array and object counted once, YAML aliases counted as the values they expand
	// to. For YAML it is also checked before parsing, against an upper bound of the values the
	// text can hold: yaml.v3 builds its own tree first, at about 250 bytes a value.
	MaxNodes int
	// MaxAliasNodes bounds the values YAML alias expansion may create in a document: the
	// defence against alias bombs ("billion laughs").
	MaxAliasNodes int
}

// DefaultLimits are the limits of a zero Limits. They admit every document the project reads
// in normal use (reports, scenarios, profiles, Kubernetes objects, transcripts, one line of
// spans) many times over, and keep what one document costs to about 100 MiB whatever its shape
// (TestHostileInputMemory measures it), so that a program that reads one, keeps its input and
// builds values of its own from the tree stays within 256 MiB (DESIGN §7). A value costs about
// 56 bytes as a node (a scalar) to 100 (an object of one member, with its member and name), and
// a string's bytes are held by the input and once more by the tree.
var DefaultLimits = Limits{
	MaxBytes:       32 << 20,
	MaxDepth:       512,
	MaxKeyBytes:    64 << 10,
	MaxStringBytes: 16 << 20,
	MaxNumberBytes: 256,
	MaxNodes:       1 << 19,
	MaxAliasNodes:  10_000,
}

// resolve fills the zero fields with their defaults. A negative field panics: it can only be a
// programming error, never input.
func (l Limits) resolve() Limits {
	d := DefaultLimits
	pick64 := func(v, def int64, name string) int64 {
		if v < 0 {
			panic(fmt.Sprintf("doc: negative Limits.%s", name))
		}
		if v == 0 {
			return def
		}
		return v
	}
	pick := func(v, def int, name string) int { return int(pick64(int64(v), int64(def), name)) }
	return Limits{
		MaxBytes:       pick64(l.MaxBytes, d.MaxBytes, "MaxBytes"),
		MaxDepth:       pick(l.MaxDepth, d.MaxDepth, "MaxDepth"),
		MaxKeyBytes:    pick(l.MaxKeyBytes, d.MaxKeyBytes, "MaxKeyBytes"),
		MaxStringBytes: pick(l.MaxStringBytes, d.MaxStringBytes, "MaxStringBytes"),
		MaxNumberBytes: pick(l.MaxNumberBytes, d.MaxNumberBytes, "MaxNumberBytes"),
		MaxNodes:       pick(l.MaxNodes, d.MaxNodes, "MaxNodes"),
		MaxAliasNodes:  pick(l.MaxAliasNodes, d.MaxAliasNodes, "MaxAliasNodes"),
	}
}

// ReadAll reads r to its end, refusing more than lim.MaxBytes bytes: the way to read an
// untrusted document before parsing it, without letting its size decide how much memory is
// taken.
func ReadAll(name string, r io.Reader, lim Limits) ([]byte, error) {
	max := lim.resolve().MaxBytes
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, &Error{File: name, Offset: -1, Msg: "read: " + err.Error(), Err: err}
	}
	if int64(len(data)) > max {
		return nil, limitError(Pos{File: name, Offset: -1}, nil, "MaxBytes", max, "the document has more than %d bytes", max)
	}
	return data, nil
}
