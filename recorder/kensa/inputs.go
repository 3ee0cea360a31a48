package kensa

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// MaxInputFile bounds each file kensa import and kensa run read whole (a scenario, a judge
// spec, a dataset, a trace, a price table) and each run of a run manifest and each result of a
// results file, which are read one at a time: the document model's own limit
// (doc.DefaultLimits.MaxBytes), checked before anything is read, so that a larger file costs
// nothing to refuse.
const MaxInputFile = maxFile

// fileLimit is MaxInputFile as the input policy names it in errors.
var fileLimit = inputfile.Limit{Name: "kensa.MaxInputFile", Bytes: MaxInputFile}

// openRoot opens the .kensa directory root as the input directory of an import or a run:
// every file is read through it, so that a file whose symbolic links (or recorded path) lead
// out of it is refused, never read (inputfile.ErrOutside); named pipes and devices are refused
// without blocking, and reads stop with ctx (SIGINT, SIGTERM).
func openRoot(ctx context.Context, root string) (*inputfile.Root, error) {
	in, err := inputfile.OpenRoot(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrImport, err)
	}
	return in, nil
}

// read reads the file rel (slash-separated, relative to the .kensa directory) whole.
func (l *loader) read(rel string) ([]byte, error) {
	return l.in.ReadFile(rel, fileLimit)
}

// readDataset reads a scenario's dataset as Kensa's load_dataset finds it: the path the
// scenario names, relative to the scenarios directory, its links resolved, and refused unless
// it is inside that directory ("Dataset path escapes scenario directory", runner.py). Kensa
// never ran such a scenario, so a manifest naming one is not Kensa's.
func (l *loader) readDataset(dataset string) ([]byte, error) {
	scen, err := l.in.Sub("scenarios")
	if err != nil {
		return nil, err
	}
	defer scen.Close()
	if !filepath.IsLocal(filepath.FromSlash(dataset)) {
		return nil, fmt.Errorf("%w: dataset %q escapes the scenarios directory %s, which Kensa refuses", inputfile.ErrOutside, dataset, scen.Dir())
	}
	return scen.ReadFile(path.Clean(dataset), fileLimit)
}

// readTrace reads a trace only when it is inside the directory imported once symbolic links
// are resolved: a trace_path or a link under traces/ that leads elsewhere (another project,
// /etc/passwd) would seal a file the importer never meant to publish as evidence. p is the
// trace's path as recorded, made absolute or relative to the working directory.
func (l *loader) readTrace(p string) ([]byte, error) {
	rel, err := l.in.Local(p)
	if err != nil {
		if errors.Is(err, inputfile.ErrOutside) {
			err = fmt.Errorf("%w: %w", ErrOutside, err)
		}
		return nil, err
	}
	return l.read(rel)
}

// openStream opens the file rel for a reader that takes it one run (or result) at a time: at
// most MaxInputFile between two calls of the window's reset.
func (l *loader) openStream(rel string) (*window, io.Closer, error) {
	f, err := l.in.Open(rel)
	if err != nil {
		return nil, nil, err
	}
	return &window{r: f, file: l.in.Path(rel)}, f, nil
}

// window is a reader of a file read one run at a time, which fails once it has yielded more
// than MaxInputFile since it was last reset: a JSON decoder holds the whole value it decodes,
// and one run of 100 MB would be held whole otherwise.
type window struct {
	r    io.Reader
	file string
	n    int64
}

func (w *window) Read(p []byte) (int, error) {
	if w.n > fileLimit.Bytes {
		return 0, fmt.Errorf("%w: %s: more than %s in one run", inputfile.ErrTooLarge, w.file, fileLimit)
	}
	n, err := w.r.Read(p)
	w.n += int64(n)
	return n, err
}

// reset starts a new run.
func (w *window) reset() {
	if w != nil {
		w.n = 0
	}
}

// manifestNames lists the run manifests, runs/*.json, sorted (fs.Glob sorts).
func (l *loader) manifestNames() ([]string, error) {
	names, err := fs.Glob(l.in.FS(), "runs/*.json")
	if err != nil {
		return nil, err
	}
	return names, nil
}

// readScenario reads a scenario file kensa run plans, from inside its directory (where its
// dataset and judge are looked for): a scenario whose links lead out of it is refused, as a
// file an import reads.
func readScenario(file string) ([]byte, error) {
	in, err := inputfile.OpenRoot(context.Background(), filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return in.ReadFile(filepath.Base(file), fileLimit)
}

// planLoader is the loader of kensa run's plan for the .kensa directory root: judge specs and
// datasets are read under the same policy as an import's. kensa run reads small files before
// any agent starts, and its context is not needed to end them: they are regular files, within
// MaxInputFile.
func planLoader(root string) (*loader, error) {
	in, err := openRoot(context.Background(), root)
	if err != nil {
		return nil, err
	}
	return &loader{root: root, in: in}, nil
}

// ReadInput reads a file kensa run is given (a price table) under the input policy: a regular
// file within MaxInputFile, reads ending with ctx.
func ReadInput(ctx context.Context, path string) ([]byte, error) {
	return inputfile.ReadFile(ctx, path, fileLimit)
}

// readDotenv reads the .env kensa run passes its agents, under the input policy: Kensa opens it
// as it is (a named pipe there would hang the run); here anything but a regular file within
// MaxInputFile is no .env, as a file Kensa cannot read is.
func readDotenv(path string) ([]byte, error) {
	return inputfile.ReadFile(context.Background(), path, fileLimit)
}
