package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ConfigFile is the remotes file in the user's configuration directory (os.UserConfigDir:
// $XDG_CONFIG_HOME, else ~/.config, on Linux): DefaultConfigPath. A remote names a server and
// its credentials are the user's (the Docker and AWS files), so remotes are the user's too,
// shared by every store, as docker's registries and the AWS profiles are (docs/decisions.md,
// "Remotes: where they are configured").
const ConfigFile = "remotes.json"

// DefaultConfigPath is <user config dir>/oasis-replay/remotes.json.
func DefaultConfigPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return filepath.Join(dir, "oasis-replay", ConfigFile), nil
}

// Entry is one configured remote.
type Entry struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// PlainHTTP talks HTTP, not HTTPS, to the registry or S3 endpoint: for local servers, and
	// only when asked (remote add --plain-http).
	PlainHTTP bool `json:"plain_http,omitempty"`
}

// Config is the content of the remotes file: the remotes sorted by name.
type Config struct {
	Remotes []Entry `json:"remotes"`
}

var remoteName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// LoadConfig reads the remotes file at path; a missing file is an empty Config.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	var c Config
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	for _, e := range c.Remotes {
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
		}
	}
	return &c, nil
}

func (e Entry) validate() error {
	if !remoteName.MatchString(e.Name) {
		return fmt.Errorf("%w: %q: a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", ErrName, e.Name)
	}
	_, err := ParseURL(e.URL)
	return err
}

// Find returns the remote named name.
func (c *Config) Find(name string) (Entry, error) {
	for _, e := range c.Remotes {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("%w: %q (remote ls lists them; remote add NAME URL adds one)", ErrUnknown, name)
}

// Add adds a remote; its URL is kept in canonical form. A name already taken is an error.
func (c *Config) Add(e Entry) error {
	if err := e.validate(); err != nil {
		return err
	}
	u, _ := ParseURL(e.URL)
	e.URL = u.String()
	if _, err := c.Find(e.Name); err == nil {
		return fmt.Errorf("%w: a remote named %q exists (remote rm it first)", ErrName, e.Name)
	}
	c.Remotes = append(c.Remotes, e)
	slices.SortFunc(c.Remotes, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return nil
}

// Remove removes the remote named name.
func (c *Config) Remove(name string) error {
	if _, err := c.Find(name); err != nil {
		return err
	}
	c.Remotes = slices.DeleteFunc(c.Remotes, func(e Entry) bool { return e.Name == name })
	return nil
}

// Save writes the remotes file at path atomically (a temporary file renamed).
func (c *Config) Save(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if c.Remotes == nil {
		c.Remotes = []Entry{}
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	tmp, err := os.CreateTemp(dir, "."+ConfigFile+".tmp-*")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return nil
}
