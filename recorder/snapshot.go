package recorder

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/oasis-replay/oasis-replay/formats/snapshot"
	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/store"
)

// Evidence source types of the observations the files and webhook sources make (OASIS
// Reporting §1.1 leaves the type free: it names where the evidence came from).
const (
	SourceTypeAuditLogFile = "k8s_audit_log_file"
	SourceTypeAuditWebhook = "k8s_audit_webhook"
	SourceTypeKubectlGet   = "kubectl_get"
	SourceTypeClusterDump  = "cluster_dump"
)

// snapshotFile is one file of a state snapshot, checked by pass 1.
type snapshotFile struct {
	path   string // to open
	name   string // in the bundle: the base name, or <dir>/<relative path> for a directory
	kind   string // the kind taken from the file name, for arrays of objects that do not name it
	digest store.Digest
	// objects is false for a JSON file of a dump directory that holds no Kubernetes objects:
	// it is kept as a source, not as an observation.
	objects bool
}

// snapshotSet is a before or after snapshot: a file or a directory of files.
type snapshotSet struct {
	phase string
	dir   bool
	files []snapshotFile
}

// checkSnapshot is pass 1 for --before and --after: a `kubectl get -o json` file (a List or a
// single object), or a directory such as a sonobuoy results dump, every JSON file of which is
// one observation (bare arrays of objects take their kind from the file name: "Pods.json" →
// Pod). Every file is checked with the evaluator's own state reader, so anything recorded as
// an observation can be read by it. Files are read one at a time, each at most
// snapshot.DefaultMaxBytes.
func (r *recording) checkSnapshot(ctx context.Context, p, phase string) (*snapshotSet, error) {
	info, err := os.Stat(p)
	if err == nil {
		err = inputfile.Check(p, inputfile.FileOrDir)
	}
	if err != nil {
		return nil, &InputError{File: p, Msg: "cannot read the " + phase + " snapshot", Err: err}
	}
	set := &snapshotSet{phase: phase, dir: info.IsDir()}
	if !set.dir {
		f, err := r.checkSnapshotFile(ctx, p, displayName(p), "", false)
		if err != nil {
			return nil, err
		}
		set.files = append(set.files, *f)
		return set, nil
	}
	base := displayName(p)
	err = filepath.WalkDir(p, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return &InputError{File: file, Msg: "cannot read the " + phase + " snapshot directory", Err: err}
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(p, file)
		name := path.Join(base, filepath.ToSlash(rel))
		if !d.Type().IsRegular() || !strings.EqualFold(filepath.Ext(file), ".json") {
			why := "not a .json file"
			if !d.Type().IsRegular() {
				why = "not a regular file"
			}
			r.addFinding(store.Finding{Code: CodeSkippedFile, Severity: store.SeverityInfo, File: name,
				Message: fmt.Sprintf("%s of the %s snapshot directory: %s; not recorded", name, phase, why)})
			return nil
		}
		f, err := r.checkSnapshotFile(ctx, file, name, snapshot.KindFromFileName(d.Name()), true)
		if err != nil {
			return err
		}
		set.files = append(set.files, *f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(set.files) == 0 {
		return nil, &InputError{File: p, Msg: "the " + phase + " snapshot directory holds no JSON file"}
	}
	return set, nil
}

// checkSnapshotFile checks one snapshot file. In a directory, a JSON file that is not a set of
// Kubernetes objects (a server version, a query time) is kept as a source with a finding; a
// file given on its own must be one.
func (r *recording) checkSnapshotFile(ctx context.Context, file, name, kind string, inDir bool) (*snapshotFile, error) {
	data, err := readBounded(ctx, file, snapshot.DefaultMaxBytes)
	if err != nil {
		return nil, &InputError{File: file, Msg: "cannot read the snapshot", Err: err}
	}
	hooked := r.hooks.pass()
	data = hooked.bytes(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &InputError{File: file, Msg: "empty file, not JSON"}
	}
	f := &snapshotFile{path: file, name: name, kind: kind, digest: store.Sum(data), objects: true}
	_, err = snapshot.Parse(bytes.NewReader(data), store.MediaTypeK8sObjects, snapshot.Options{KindHint: kind, Name: file})
	var malformed *doc.Error
	if errors.As(err, &malformed) {
		return nil, docInputError(file, err) // not JSON at all, wherever it is
	}
	r.stored(f.digest, hooked)
	if err != nil {
		if !inDir {
			return nil, &InputError{File: file, Msg: "not `kubectl get -o json` output (a List or one object)", Err: err}
		}
		f.objects = false
		r.addFinding(store.Finding{Code: CodeNotObjects, Severity: store.SeverityWarning, File: name,
			Message: fmt.Sprintf("not a set of Kubernetes objects (%v); kept as a source, not as an observation", err)})
	}
	return f, nil
}

// writeSnapshot is pass 2: each file is read again, through the hooks, and must be unchanged.
func (r *recording) writeSnapshot(ctx context.Context, set *snapshotSet) ([]store.Observation, error) {
	srcType := SourceTypeKubectlGet
	if set.dir {
		srcType = SourceTypeClusterDump
	}
	var obs []store.Observation
	for _, f := range set.files {
		data, err := readBounded(ctx, f.path, snapshot.DefaultMaxBytes)
		if err != nil {
			return nil, &InputError{File: f.path, Msg: "cannot read the snapshot again", Err: err}
		}
		data = r.hooks.pass().bytes(data) // counted by checkSnapshotFile, under the same digest
		if store.Sum(data) != f.digest {
			return nil, &InputError{File: f.path, Msg: "the file changed while being recorded", Err: ErrChanged}
		}
		if !f.objects {
			if err := r.addSourceHooked(ctx, f.name, data, store.MediaTypeJSON); err != nil {
				return nil, err
			}
			continue
		}
		desc, err := r.putHooked(ctx, data, store.MediaTypeK8sObjects)
		if err != nil {
			return nil, err
		}
		o := store.Observation{Type: store.ObservationResourceState, Phase: set.phase, Data: desc,
			Source:     &store.EvidenceSource{Type: srcType, Status: store.StatusAvailable},
			Attributes: map[string]string{store.AttrSource: f.name}}
		if f.kind != "" {
			o.Attributes[store.AttrKind] = f.kind
		}
		obs = append(obs, o)
	}
	return obs, nil
}
