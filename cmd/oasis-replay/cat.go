package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/store"
)

func catCommand() *cli.Command {
	return &cli.Command{
		Name:      "cat",
		Usage:     "print a stored blob or object by its digest: the evidence a verdict cites",
		ArgsUsage: "DIGEST",
		Description: "DIGEST is a digest as replay, audit and bundle show print it: sha256:<64 hex>, or a shorter\n" +
			"prefix (sha256:<12 hex>, at least 6 hex digits) that names one stored blob or object.\n" +
			"A blob (an observation's payload, a source file, a transcript) is written as the exact bytes\n" +
			"stored, redaction markers as the recorder wrote them, and nothing else, so that\n" +
			"`cat DIGEST | sha256sum` gives DIGEST again. An object (a manifest, a scenario's evidence, a\n" +
			"verdict, a receipt) is written as its canonical JSON and a newline, or indented with --json.\n" +
			"`bundle show --evidence SCENARIO BUNDLE` lists the digests of a scenario's evidence.\n\n" +
			readExitStatus,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "indent an object's JSON (a blob is always written as stored)"}},
		Action: func(c *cli.Context) error {
			return withStore(c, readOnly, func(s store.Store) error {
				e, err := findContent(c, s, c.Args().First())
				if err != nil {
					return err
				}
				return writeContent(c, s, e)
			})
		},
	}
}

// minDigestPrefix is the shortest hex prefix cat looks up: shorter ones name too much to be
// meant.
const minDigestPrefix = 6

// findContent finds the stored blob or object arg names: a full digest, or a unique prefix of
// one (with or without sha256:). Chunks of large blobs are not addressable on their own.
func findContent(c *cli.Context, s store.Store, arg string) (store.Entry, error) {
	if d, err := store.ParseDigest(arg); err == nil {
		return s.Stat(c.Context, d)
	}
	prefix := strings.TrimPrefix(arg, store.DigestPrefix)
	if _, err := hex.DecodeString(prefix + strings.Repeat("0", len(prefix)%2)); err != nil || len(prefix) < minDigestPrefix ||
		len(prefix) > 64 || strings.ToLower(prefix) != prefix {
		return store.Entry{}, argsError(c, "%q is not a digest: want sha256:<hex>, at least %d lowercase hex digits", arg, minDigestPrefix)
	}
	var found []store.Entry
	err := s.Walk(c.Context, func(e store.Entry) error {
		if !e.Chunk && strings.HasPrefix(e.Digest.Hex(), prefix) {
			found = append(found, e)
		}
		return nil
	})
	switch {
	case err != nil:
		return store.Entry{}, err
	case len(found) == 0:
		return store.Entry{}, fmt.Errorf("%w: no blob or object %s in the store", store.ErrNotFound, arg)
	case len(found) > 1:
		names := make([]string, len(found))
		for i, e := range found {
			names[i] = e.Digest.String()
		}
		return store.Entry{}, argsError(c, "%s names %d blobs and objects: %s", arg, len(found), strings.Join(names, ", "))
	}
	return found[0], nil
}

// writeContent writes a blob as it is stored, an object as its canonical JSON (indented with
// --json) and a newline.
func writeContent(c *cli.Context, s store.Store, e store.Entry) error {
	if e.Kind == "" {
		r, _, err := s.OpenBlob(c.Context, e.Digest)
		if err != nil {
			return err
		}
		_, err = io.Copy(c.App.Writer, r)
		if closeErr := r.Close(); err == nil {
			err = closeErr
		}
		return err
	}
	b, err := s.GetObject(c.Context, e.Digest)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		var out bytes.Buffer
		if err := json.Indent(&out, b, "", "  "); err != nil {
			return errors.Join(fmt.Errorf("object %s: %w", e.Digest, store.ErrCorrupt), err)
		}
		b = out.Bytes()
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s\n", b)
	return err
}
