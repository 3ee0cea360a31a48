package profiledir

import (
	"context"
	"fmt"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
	"github.com/oasis-replay/oasis-replay/profiles"
)

// Load loads, validates and pins the profile in dir.
func Load(dir string, opts profiles.LoadOptions) (*profiles.Profile, error) {
	root, err := open(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return profiles.Load(root.FS(), opts)
}

// Import validates the profile in dir and stores it (see profiles.Import).
func Import(ctx context.Context, s profiles.Importer, dir string, opts profiles.ImportOptions) (*profiles.Profile, error) {
	root, err := open(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return profiles.Import(ctx, s, root.FS(), opts)
}

func open(dir string) (*inputfile.Root, error) {
	root, err := inputfile.OpenRoot(context.Background(), dir)
	if err != nil {
		return nil, fmt.Errorf("profiles: open profile directory: %w", err)
	}
	return root, nil
}
