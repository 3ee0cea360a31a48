package golden

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/oasis-replay/oasis-replay/internal/example"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/profiles/profiledir"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/store"
	"github.com/oasis-replay/oasis-replay/store/archive"
)

// RecorderVersion is the recorder version written in the manifests of recipe cases. It is a
// constant rather than the program's version so that releasing a new version does not change
// every bundle of the corpus: only a change in what is recorded does.
const RecorderVersion = "golden"

// skipped is why a case cannot be built here: an input under $SHARED that is not available.
// It is not an error: the shared test data is optional.
type skipped struct{ reason string }

func (s *skipped) Error() string { return s.reason }

// builder obtains one case's bundle in one store.
type builder struct {
	s      store.Store
	dir    string // the corpus directory
	shared string // what $SHARED stands for; "" when absent
	// pin is the profile the recipe pins, once imported.
	pin     store.ProfileRef
	profile *recorder.Profile
	// from caches the oasisctl runs recorded for synthetic scenarios' evidence, by location.
	from map[string]*store.RunManifest
}

// build puts the bundle of case c into s and returns its digest. A case that needs
// unavailable shared data returns a *skipped error.
func build(ctx context.Context, s store.Store, dir, shared string, c *Case) (store.Digest, error) {
	if c.Recipe == nil {
		return importArchive(ctx, s, filepath.Join(dir, c.Input))
	}
	b := &builder{s: s, dir: dir, shared: shared, from: map[string]*store.RunManifest{}}
	r := c.Recipe
	if err := b.importProfile(ctx, r); err != nil {
		return store.Digest{}, err
	}
	switch {
	case r.Oasisctl != "":
		l, err := parseLocation(r.Oasisctl)
		if err != nil {
			return store.Digest{}, err
		}
		res, err := b.recordOasisctl(ctx, l)
		if err != nil {
			return store.Digest{}, err
		}
		return res.Bundle, nil
	case r.Files != nil:
		return b.recordFiles(ctx, r.Files)
	default:
		m, err := b.synthesize(ctx, r.Synthetic)
		if err != nil {
			return store.Digest{}, err
		}
		return store.Seal(ctx, s, m)
	}
}

// importArchive imports an exported bundle, verifying every digest and size on the way.
func importArchive(ctx context.Context, s store.Store, file string) (store.Digest, error) {
	f, err := inputfile.Open(ctx, file)
	if err != nil {
		return store.Digest{}, err
	}
	defer f.Close()
	sum, err := archive.Import(ctx, s, f, archive.DefaultLimits(), archive.ImportOptions{})
	if err != nil {
		return store.Digest{}, fmt.Errorf("%s: %w", file, err)
	}
	return sum.Bundle, nil
}

// importProfile imports the recipe's profile into the store; every source pins it from there.
func (b *builder) importProfile(ctx context.Context, r *Recipe) error {
	l, err := parseLocation(r.Profile)
	if err != nil {
		return err
	}
	dir, fsys, err := b.resolve(l)
	if err != nil {
		return err
	}
	opts := profiles.ImportOptions{SourceCommit: r.ProfileCommit}
	var p *profiles.Profile
	if fsys != nil {
		p, err = profiles.Import(ctx, b.s, fsys, opts)
	} else {
		p, err = profiledir.Import(ctx, b.s, dir, opts)
	}
	if err != nil {
		return fmt.Errorf("profile %s: %w", l, err)
	}
	b.pin = p.Pin.Ref()
	b.profile, err = recorder.ProfileFromStore(ctx, b.s, p.Pin.Tree)
	return err
}

// recordOptions are the recorder options of every recording of a case: the recipe's
// profile, the fixed recorder version, no tags (tags are refs, not part of a bundle).
func (b *builder) recordOptions() recorder.Options {
	return recorder.Options{Profile: b.profile, Version: RecorderVersion}
}

func (b *builder) recordOasisctl(ctx context.Context, l location) (*recorder.Result, error) {
	dir, fsys, err := b.resolve(l)
	if err != nil {
		return nil, err
	}
	opts := recorder.OasisctlOptions{Options: b.recordOptions()}
	if fsys != nil {
		return recorder.RecordOasisctlFS(ctx, b.s, fsys, opts)
	}
	return recorder.RecordOasisctl(ctx, b.s, dir, opts)
}

func (b *builder) recordFiles(ctx context.Context, f *FilesSpec) (store.Digest, error) {
	in := recorder.FilesInput{Scenario: f.Scenario, AgentPrincipal: f.AgentPrincipal,
		Agent: store.AgentIdentity{Name: f.Agent.Name, Version: f.Agent.Version}, Configuration: f.Configuration,
		Tier: f.Tier, Timestamp: f.Timestamp}
	for _, p := range []struct {
		value string
		dst   *string
	}{{f.AuditLog, &in.AuditLog}, {f.Before, &in.Before}, {f.After, &in.After}, {f.Transcript, &in.Transcript}} {
		if p.value == "" {
			continue
		}
		path, err := b.diskPath(p.value)
		if err != nil {
			return store.Digest{}, err
		}
		*p.dst = path
	}
	res, err := recorder.RecordFiles(ctx, b.s, in, b.recordOptions())
	if err != nil {
		return store.Digest{}, err
	}
	return res.Bundle, nil
}

// diskPath resolves a location that must be a file or directory on disk.
func (b *builder) diskPath(s string) (string, error) {
	l, err := parseLocation(s)
	if err != nil {
		return "", err
	}
	dir, fsys, err := b.resolve(l)
	if err != nil {
		return "", err
	}
	if fsys != nil {
		return "", fmt.Errorf("%w: %s: files inputs must be on disk, not under %s", ErrRecipe, l, VarExample)
	}
	return dir, nil
}

// resolve finds a location: a path on disk, or a file system for $EXAMPLE. An input under
// $SHARED that is not available is a *skipped error.
func (b *builder) resolve(l location) (string, fs.FS, error) {
	switch l.root {
	case VarExample:
		fsys, err := fs.Sub(example.FS(), l.rel)
		if err == nil {
			_, err = fs.Stat(fsys, ".")
		}
		if err != nil {
			return "", nil, fmt.Errorf("%w: %s: not part of the embedded example: %w", ErrRecipe, l, err)
		}
		return "", fsys, nil
	case VarShared:
		if b.shared == "" {
			return "", nil, &skipped{reason: fmt.Sprintf("needs %s, and the shared test data is not available", l)}
		}
		p := filepath.Join(b.shared, filepath.FromSlash(l.rel))
		if _, err := os.Stat(p); err != nil {
			return "", nil, &skipped{reason: fmt.Sprintf("needs %s, which the shared test data lacks (%v)", l, errors.Unwrap(err))}
		}
		return p, nil, nil
	}
	p := l.rel
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.dir, filepath.FromSlash(p))
	}
	if _, err := os.Stat(p); err != nil {
		return "", nil, fmt.Errorf("%w: %s: %w", ErrRecipe, l, err)
	}
	return p, nil, nil
}
