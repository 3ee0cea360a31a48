package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/remote"
	"github.com/oasis-replay/oasis-replay/remote/bucket"
	"github.com/oasis-replay/oasis-replay/remote/registry"
)

func remoteCommand() *cli.Command {
	return &cli.Command{
		Name:  "remote",
		Usage: "name the OCI registries and S3 buckets bundles are pushed to and pulled from",
		Description: "A remote is oci://HOST[:PORT]/REPOSITORY (an OCI registry; credentials from the Docker\n" +
			"credentials file, $DOCKER_CONFIG/config.json or ~/.docker/config.json) or s3://BUCKET[/PREFIX]\n" +
			"(credentials, region and endpoint from the AWS variables and files: AWS_ACCESS_KEY_ID,\n" +
			"AWS_SECRET_ACCESS_KEY, AWS_PROFILE, AWS_REGION, AWS_ENDPOINT_URL). Remotes are kept in\n" +
			"$XDG_CONFIG_HOME/oasis-replay/remotes.json (~/.config/oasis-replay/remotes.json), for every\n" +
			"store. Wherever a command takes a REMOTE, a URL does too.\n\n" +
			groupExitStatus,
		Subcommands: []*cli.Command{remoteAddCommand(), remoteLsCommand(), remoteRmCommand()},
	}
}

func remoteAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "add a remote",
		ArgsUsage: "NAME URL",
		Description: "Exit status: 0 added; 2 bad usage, a malformed URL, a name already taken, or a remotes\n" +
			"file that cannot be written.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "plain-http", Usage: "talk HTTP, not HTTPS, to the registry or endpoint (local servers only)"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := loadRemotes()
			if err != nil {
				return err
			}
			e := remote.Entry{Name: c.Args().Get(0), URL: c.Args().Get(1), PlainHTTP: c.Bool("plain-http")}
			if err := cfg.Add(e); err != nil {
				return err
			}
			return saveRemotes(cfg)
		},
	}
}

func remoteLsCommand() *cli.Command {
	return &cli.Command{
		Name:        "ls",
		Usage:       "list the remotes: name, URL, and plain-http when set",
		Description: "Exit status: 0 listed; 2 a remotes file that cannot be read.",
		Action: func(c *cli.Context) error {
			cfg, err := loadRemotes()
			if err != nil {
				return err
			}
			for _, e := range cfg.Remotes {
				line := e.Name + "\t" + e.URL
				if e.PlainHTTP {
					line += "\tplain-http"
				}
				fmt.Fprintln(c.App.Writer, line)
			}
			return nil
		},
	}
}

func remoteRmCommand() *cli.Command {
	return &cli.Command{
		Name:        "rm",
		Usage:       "remove a remote (nothing on the remote is touched)",
		ArgsUsage:   "NAME",
		Description: "Exit status: 0 removed; 2 an unknown remote, or a remotes file that cannot be written.",
		Action: func(c *cli.Context) error {
			cfg, err := loadRemotes()
			if err != nil {
				return err
			}
			if err := cfg.Remove(c.Args().First()); err != nil {
				return err
			}
			return saveRemotes(cfg)
		},
	}
}

// loadRemotes reads the user's remotes file.
func loadRemotes() (*remote.Config, error) {
	path, err := remote.DefaultConfigPath()
	if err != nil {
		return nil, err
	}
	return remote.LoadConfig(path)
}

func saveRemotes(cfg *remote.Config) error {
	path, err := remote.DefaultConfigPath()
	if err != nil {
		return err
	}
	return cfg.Save(path)
}

// openRemote opens the remote a REMOTE argument names: a remote added with remote add, or a
// URL. It talks plain HTTP when the flag says so, or the remotes file does for that remote or
// for a remote of the same URL.
func openRemote(c *cli.Context, name string, plainHTTP bool) (remote.Backend, error) {
	cfg, err := loadRemotes()
	if err != nil {
		return nil, err
	}
	e := remote.Entry{Name: name, URL: name}
	if !remote.IsURL(name) {
		if e, err = cfg.Find(name); err != nil {
			return nil, err
		}
	}
	u, err := remote.ParseURL(e.URL)
	if err != nil {
		return nil, err
	}
	// A URL given directly talks plain HTTP when a remote added with that URL does.
	for _, known := range cfg.Remotes {
		e.PlainHTTP = e.PlainHTTP || known.URL == u.String() && known.PlainHTTP
	}
	e.PlainHTTP = e.PlainHTTP || plainHTTP
	if u.Scheme == remote.SchemeOCI {
		return registry.Open(u, registry.Options{PlainHTTP: e.PlainHTTP})
	}
	return bucket.Open(u, bucket.Options{PlainHTTP: e.PlainHTTP})
}
