package evallib

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	evalfmt "github.com/oasis-replay/oasis-replay/formats/evallib"
	"github.com/oasis-replay/oasis-replay/internal/errclass"
	"github.com/oasis-replay/oasis-replay/store"
)

// Errors of the package.
var (
	// ErrUnknownScenario: no scenario with that id is in the store.
	ErrUnknownScenario = errclass.New(errclass.NotFound, "evallib: unknown scenario")
	// ErrIncomplete: a matrix cannot be sealed because some of its runs were not recorded (the
	// matrix was interrupted); running it again records them.
	ErrIncomplete = errclass.New(errclass.Environment, "evallib: matrix incomplete")
	// ErrNoMatrix: the store holds no matrix yet.
	ErrNoMatrix = errclass.New(errclass.NotFound, "evallib: no matrix")
	// ErrReview: a review-queue change that is not allowed (a state out of turn, no author).
	ErrReview = errclass.New(errclass.Input, "evallib: review")
	// ErrUnknownReview: no review item with that id is in the store.
	ErrUnknownReview = errclass.New(errclass.NotFound, "evallib: unknown review item")
)

// Reader is what the library reads a store through.
type Reader interface {
	GetRef(ctx context.Context, name string) (store.Digest, error)
	ListRefs(ctx context.Context, prefix string) ([]store.Ref, error)
	GetObject(ctx context.Context, d store.Digest) ([]byte, error)
	OpenBlob(ctx context.Context, d store.Digest) (io.ReadCloser, int64, error)
}

// Added is the outcome of adding a scenario.
type Added struct {
	ID      string
	Version int
	Object  store.Digest
	// Created is false when the content equals the latest version's: nothing was written.
	Created bool
}

// AddScenario stores s as the next version of its id (the first when the id is new), with the
// document it was read from kept byte-exact as its source. Adding the content of the latest
// version again writes nothing.
func AddScenario(ctx context.Context, st store.Store, s *evalfmt.Scenario, sourceName string, source []byte) (Added, error) {
	latest, latestDigest, err := latestVersion(ctx, st, s.ID)
	if err != nil && !errors.Is(err, ErrUnknownScenario) {
		return Added{}, err
	}
	if latest != nil && latest.Content.Digest == s.Digest() {
		return Added{ID: s.ID, Version: latest.Version, Object: latestDigest}, nil
	}
	content, _, err := st.PutBlob(ctx, bytes.NewReader(s.Canonical))
	if err != nil {
		return Added{}, fmt.Errorf("evallib: store scenario %s: %w", s.ID, err)
	}
	v := &store.EvalScenario{ID: s.ID, Version: 1, Name: s.Name, RiskLevel: s.RiskLevel,
		Content: store.Descriptor{MediaType: store.MediaTypeEvalScenarioContent, Digest: content, Size: int64(len(s.Canonical))}}
	if source != nil {
		d, n, err := st.PutBlob(ctx, bytes.NewReader(source))
		if err != nil {
			return Added{}, fmt.Errorf("evallib: store scenario %s: %w", s.ID, err)
		}
		v.Source = &store.SourceFile{Path: sourceName, Blob: store.Descriptor{MediaType: store.MediaTypeOctetStream, Digest: d, Size: n}}
	}
	if latest != nil {
		v.Version = latest.Version + 1
		v.Previous = &store.Descriptor{MediaType: store.MediaTypeEvalScenario, Digest: latestDigest}
	}
	desc, err := store.Put(ctx, st, v)
	if err != nil {
		return Added{}, fmt.Errorf("evallib: store scenario %s: %w", s.ID, err)
	}
	if err := st.Sync(ctx); err != nil {
		return Added{}, err
	}
	if err := st.SetRef(ctx, store.EvalScenarioRefName(s.ID), desc.Digest); err != nil {
		return Added{}, fmt.Errorf("evallib: scenario ref %s: %w", s.ID, err)
	}
	return Added{ID: s.ID, Version: v.Version, Object: desc.Digest, Created: true}, nil
}

// latestVersion returns the latest version object of scenario id and its digest.
func latestVersion(ctx context.Context, r Reader, id string) (*store.EvalScenario, store.Digest, error) {
	if err := store.ValidEvalID(id); err != nil {
		return nil, store.Digest{}, fmt.Errorf("%w: %v", ErrUnknownScenario, err)
	}
	d, err := r.GetRef(ctx, store.EvalScenarioRefName(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, store.Digest{}, fmt.Errorf("%w %q", ErrUnknownScenario, id)
	}
	if err != nil {
		return nil, store.Digest{}, err
	}
	v, err := loadVersion(ctx, r, d)
	return v, d, err
}

func loadVersion(ctx context.Context, r Reader, d store.Digest) (*store.EvalScenario, error) {
	b, err := r.GetObject(ctx, d)
	if err != nil {
		return nil, fmt.Errorf("scenario version %s: %w", d.Short(), err)
	}
	var v store.EvalScenario
	if err := store.Decode(b, &v); err != nil {
		return nil, fmt.Errorf("scenario version %s: %w", d.Short(), err)
	}
	return &v, nil
}

// ScenarioVersion is one stored version of a scenario with its content.
type ScenarioVersion struct {
	Object   store.Digest
	Version  *store.EvalScenario
	Scenario *evalfmt.Scenario
}

// ScenarioHistory returns every version of scenario id, latest first.
func ScenarioHistory(ctx context.Context, r Reader, id string) ([]ScenarioVersion, error) {
	v, d, err := latestVersion(ctx, r, id)
	if err != nil {
		return nil, err
	}
	var out []ScenarioVersion
	for {
		out = append(out, ScenarioVersion{Object: d, Version: v})
		if v.Previous == nil {
			break
		}
		d = v.Previous.Digest
		if v, err = loadVersion(ctx, r, d); err != nil {
			return nil, err
		}
	}
	s, err := loadContent(ctx, r, out[0].Version)
	if err != nil {
		return nil, err
	}
	out[0].Scenario = s
	return out, nil
}

// LoadScenario returns the latest version of scenario id, parsed.
func LoadScenario(ctx context.Context, r Reader, id string) (*ScenarioVersion, error) {
	v, d, err := latestVersion(ctx, r, id)
	if err != nil {
		return nil, err
	}
	s, err := loadContent(ctx, r, v)
	if err != nil {
		return nil, err
	}
	return &ScenarioVersion{Object: d, Version: v, Scenario: s}, nil
}

// LoadScenarioVersion returns version n of scenario id, parsed.
func LoadScenarioVersion(ctx context.Context, r Reader, id string, n int) (*ScenarioVersion, error) {
	history, err := ScenarioHistory(ctx, r, id)
	if err != nil {
		return nil, err
	}
	for _, h := range history {
		if h.Version.Version == n {
			if h.Scenario == nil {
				if h.Scenario, err = loadContent(ctx, r, h.Version); err != nil {
					return nil, err
				}
			}
			return &h, nil
		}
	}
	return nil, fmt.Errorf("%w: scenario %s has no version %d (latest is %d)", ErrUnknownScenario, id, n, history[0].Version.Version)
}

func loadContent(ctx context.Context, r Reader, v *store.EvalScenario) (*evalfmt.Scenario, error) {
	b, err := readBlob(ctx, r, v.Content)
	if err != nil {
		return nil, fmt.Errorf("scenario %s version %d: %w", v.ID, v.Version, err)
	}
	return evalfmt.LoadCanonical(v.ID+".json", b)
}

func readBlob(ctx context.Context, r Reader, d store.Descriptor) ([]byte, error) {
	rc, size, err := r.OpenBlob(ctx, d.Digest)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if size != d.Size {
		return nil, fmt.Errorf("%w: blob %s has %d bytes, %d expected", store.ErrCorrupt, d.Digest.Short(), size, d.Size)
	}
	b := make([]byte, size)
	_, err = io.ReadFull(rc, b)
	return b, err
}

// ListScenarios returns the latest version of every scenario, by id.
func ListScenarios(ctx context.Context, r Reader) ([]*store.EvalScenario, error) {
	refs, err := r.ListRefs(ctx, store.RefEvalScenarioPrefix)
	if err != nil {
		return nil, err
	}
	out := make([]*store.EvalScenario, 0, len(refs))
	for _, ref := range refs {
		v, err := loadVersion(ctx, r, ref.Digest)
		if err != nil {
			return nil, err
		}
		if id := strings.TrimPrefix(ref.Name, store.RefEvalScenarioPrefix); v.ID != id {
			return nil, fmt.Errorf("%w: ref %s points at scenario %s", store.ErrCorrupt, ref.Name, v.ID)
		}
		out = append(out, v)
	}
	return out, nil
}
