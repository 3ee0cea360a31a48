package store

import (
	"context"
	"errors"
	"fmt"
)

// Reachable returns the closure of references from roots: every root and every blob and object
// they reach, each once. The order is deterministic and dependency-first: an entry comes after
// every entry it references, and otherwise entries come in the order a depth-first walk meets
// them, taking roots in the given order and each object's references in the order its
// References method lists them. Large blobs carry their chunk list in Entry.Chunks; chunks are
// not listed on their own.
//
// A reference to content that is not in the store is an error wrapping ErrMissingReference that
// names the referrer and the missing digest; a descriptor whose size or kind disagrees with the
// stored content is an error wrapping ErrInvalidObject. Objects are read (and so verified);
// blobs are only looked up.
func Reachable(ctx context.Context, s Store, roots ...Digest) ([]Entry, error) {
	w := newGraphWalk(s, false)
	for _, r := range roots {
		if err := w.walk(ctx, edge{referrer: "root", desc: Descriptor{Digest: r}, root: true}); err != nil {
			return nil, err
		}
	}
	return w.order, nil
}

// edge is a reference about to be followed.
type edge struct {
	referrer string     // who refers, for messages: "root", "ref <name>" or "sha256:… (kind)"
	from     Digest     // the referring object, or zero for a root
	fromRef  string     // the referring ref, for roots taken from refs
	desc     Descriptor // what it says about the target
	root     bool       // a root carries no size or media type to check
}

// graphReader is what the walk reads: entries, and the references of objects.
type graphReader interface {
	Stat(ctx context.Context, d Digest) (Entry, error)
	GetObject(ctx context.Context, d Digest) ([]byte, error)
}

// graphWalk is the depth-first walk behind Reachable, Seal and garbage collection.
type graphWalk struct {
	s graphReader
	// lenient records missing references in missing instead of failing, and ignores
	// descriptor mismatches: garbage collection marks what exists, check judges consistency.
	lenient bool
	missing []Problem
	state   map[Digest]walkState
	entries map[Digest]Entry
	order   []Entry
}

// walkState is where the walk stands with a digest; the zero value is "not met yet".
type walkState uint8

const (
	visiting walkState = iota + 1 // on the stack: its references are being followed
	visited                       // done: it and its closure are in order
)

func newGraphWalk(s graphReader, lenient bool) *graphWalk {
	return &graphWalk{s: s, lenient: lenient, state: map[Digest]walkState{}, entries: map[Digest]Entry{}}
}

// frame is an object whose references are being followed.
type frame struct {
	entry Entry
	refs  []Descriptor
	next  int
}

// walk visits the target of e and everything it reaches, appending to order in post-order.
// It is iterative so hostile nesting cannot exhaust the stack.
func (w *graphWalk) walk(ctx context.Context, e edge) error {
	start, err := w.enter(ctx, e)
	if start == nil || err != nil {
		return err
	}
	stack := []*frame{start}
	for len(stack) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		top := stack[len(stack)-1]
		if top.next == len(top.refs) {
			stack = stack[:len(stack)-1]
			w.state[top.entry.Digest] = visited
			w.order = append(w.order, top.entry)
			continue
		}
		ref := top.refs[top.next]
		top.next++
		child, err := w.enter(ctx, edge{referrer: describe(top.entry), from: top.entry.Digest, desc: ref})
		if err != nil {
			return err
		}
		if child != nil {
			stack = append(stack, child)
		}
	}
	return nil
}

// enter checks an edge and returns a frame for its target if the target is new.
func (w *graphWalk) enter(ctx context.Context, e edge) (*frame, error) {
	d := e.desc.Digest
	switch w.state[d] {
	case visiting:
		return nil, fmt.Errorf("%w: %s: reference cycle through %s", ErrCorrupt, e.referrer, d)
	case visited:
		return nil, w.checkDescriptor(e, w.entries[d])
	}
	entry, err := w.s.Stat(ctx, d)
	if errors.Is(err, ErrNotFound) {
		p := Problem{Digest: e.from, Ref: e.fromRef, Kind: ProblemMissingReference,
			Message: fmt.Sprintf("%s refers to %s, which is not in the store", e.referrer, d)}
		if w.lenient {
			w.missing = append(w.missing, p)
			return nil, nil
		}
		return nil, fmt.Errorf("%w: %s", ErrMissingReference, p.Message)
	}
	if err != nil {
		return nil, err
	}
	if err := w.checkDescriptor(e, entry); err != nil {
		return nil, err
	}
	w.entries[d] = entry
	w.state[d] = visiting
	f := &frame{entry: entry}
	if entry.Kind != "" {
		b, err := w.s.GetObject(ctx, d)
		if err != nil {
			return nil, err
		}
		if _, f.refs, err = ReferencesOf(b); err != nil {
			return nil, fmt.Errorf("%s: %w", describe(entry), err)
		}
	}
	return f, nil
}

// checkDescriptor compares what a referrer says about its target with the stored entry.
func (w *graphWalk) checkDescriptor(e edge, target Entry) error {
	if e.root || w.lenient {
		return nil
	}
	if msg := descriptorMismatch(e.desc, target); msg != "" {
		return fmt.Errorf("%w: %s refers to %s %s", ErrInvalidObject, e.referrer, e.desc.Digest, msg)
	}
	return nil
}

// descriptorMismatch explains how a descriptor disagrees with the stored entry, or returns "".
// A descriptor with a blob media type may point at bytes that are also stored as an object;
// one with an object media type must point at an object of that kind.
func descriptorMismatch(desc Descriptor, target Entry) string {
	if !sizeUnknown(desc) && desc.Size != target.Size {
		return fmt.Sprintf("with size %d, but the stored content has %d bytes", desc.Size, target.Size)
	}
	if k, ok := KindOfMediaType(desc.MediaType); ok && k != target.Kind {
		stored := string(target.Kind)
		if stored == "" {
			stored = "a raw blob"
		}
		return fmt.Sprintf("as a %s, but the stored content is %s", k, stored)
	}
	return ""
}

// sizeUnknown reports whether a descriptor leaves the size out. References lists object
// digests without sizes where the model only carries a digest (a run manifest's profile tree,
// a receipt's bundle, profile and verdict). Objects are never empty, so size 0 with an object
// media type means "not stated", while a blob descriptor of size 0 means an empty blob.
func sizeUnknown(d Descriptor) bool {
	_, isObject := KindOfMediaType(d.MediaType)
	return isObject && d.Size == 0
}

// describe names an entry for messages: its digest and, for objects, its kind.
func describe(e Entry) string {
	if e.Kind == "" {
		return e.Digest.String()
	}
	return fmt.Sprintf("%s (%s)", e.Digest, e.Kind)
}
