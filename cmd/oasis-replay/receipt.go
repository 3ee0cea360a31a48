package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/attest"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

// maxReceiptFile bounds a signed receipt file read by the CLI.
const maxReceiptFile = 1 << 20

func receiptCommand() *cli.Command {
	return &cli.Command{
		Name:  "receipt",
		Usage: "make signing keys and verify signed receipts (DSSE envelopes around in-toto statements)",
		Description: "A signed receipt (replay --sign KEY --receipt FILE) is a DSSE envelope around an in-toto\n" +
			"Statement v1 whose subject is the bundle and whose predicate names the profile, the evaluator,\n" +
			"and the digests of the verdict and of the receipt object; see the documentation of package\n" +
			"attest for the exact format.\n\n" + groupExitStatus,
		Subcommands: []*cli.Command{receiptKeygenCommand(), receiptVerifyCommand()},
	}
}

func receiptKeygenCommand() *cli.Command {
	return &cli.Command{
		Name:  "keygen",
		Usage: "write a new Ed25519 signing key (KEY, mode 0600) and its public key (KEY.pub)",
		Description: "KEY is the private key, PKCS#8 PEM, readable by its owner only; KEY.pub the public key, PKIX\n" +
			"PEM, to give to whoever verifies. Existing files are not replaced unless --force is given.\n" +
			"Commands that sign refuse a private key file that group or others can read.\n\n" +
			"Exit status: 0 the keys were written; 2 bad usage, a file exists (without --force), or a\n" +
			"file cannot be written.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "o", Aliases: []string{"output"}, Required: true, Usage: "write the private key to `KEY` and the public key to KEY.pub"},
			&cli.BoolFlag{Name: "force", Usage: "replace existing key files"},
		},
		Action: func(c *cli.Context) error {
			path := c.String("o")
			k, err := attest.GenerateKey(path, c.Bool("force"), rand.Reader)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s (private, mode 0600) and %s%s (public)\nkey id %s\n", path, path, attest.PublicKeySuffix, k.KeyID())
			return nil
		},
	}
}

func receiptVerifyCommand() *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "verify a signed receipt against a public key, and optionally against a bundle in the store",
		ArgsUsage: "FILE",
		Description: "Checks that FILE is a DSSE envelope of payload type application/vnd.in-toto+json with a\n" +
			"signature by the key that verifies, over an in-toto statement of this project's receipt\n" +
			"predicate, and prints what it states. With --bundle, the store is opened read-only, the\n" +
			"statement's subject must be that bundle, and the verdict is re-derived from the bundle's\n" +
			"evidence: the statement must name the same verdict digest and profile tree (and, when this\n" +
			"build's evaluator is the one named, the same receipt digest).\n\n" +
			"Exit status: 0 valid (and, with --bundle, reproduced); 1 invalid or tampered: no signature by\n" +
			"the key verifies, the payload type or statement is wrong, or it names another bundle,\n" +
			"verdict or profile than --bundle gives; 2 bad usage, an unreadable FILE or key, a FILE\n" +
			"that is not JSON, or (--bundle) an unknown bundle.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Required: true, Usage: "the signer's public key `KEY.pub` (PKIX PEM)"},
			&cli.StringFlag{Name: "bundle", Usage: "require the receipt to be about `BUNDLE` and re-derive its verdict"},
		},
		Action: runReceiptVerify,
	}
}

func runReceiptVerify(c *cli.Context) error {
	v, err := attest.LoadVerifier(c.String("key"))
	if err != nil {
		return err
	}
	file := c.Args().First()
	st, err := verifyReceiptFile(v, file)
	if err != nil {
		return err
	}
	if b := c.String("bundle"); b != "" {
		if b, err = pullReference(c, b); err != nil {
			return err
		}
		if err := checkAgainstBundle(c, st, file, b); err != nil {
			return err
		}
	}
	p := st.Predicate
	w := c.App.Writer
	fmt.Fprintf(w, "valid: %s is signed by key %s\n", file, v.KeyID())
	fmt.Fprintf(w, "bundle     %s (%s)\n", p.Bundle.Digest, p.Bundle.Kind)
	fmt.Fprintf(w, "definition %s %s %s (%s)\n", p.Definition.ID, p.Definition.Version, p.Definition.Digest, p.Definition.Kind)
	fmt.Fprintf(w, "evaluator  %s %s rules %s\n", p.Evaluator.Name, p.Evaluator.Version, p.Evaluator.RulesDigest)
	fmt.Fprintf(w, "verdict    %s\n", p.Verdict)
	fmt.Fprintf(w, "receipt    %s\n", p.Receipt)
	return nil
}

// verifyReceiptFile reads a signed receipt file and verifies it with v; the error names the
// file.
func verifyReceiptFile(v *attest.Verifier, file string) (*attest.Statement, error) {
	data, err := readReceiptFile(file)
	if err != nil {
		return nil, err
	}
	st, err := v.Verify(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return st, nil
}

func readReceiptFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", attest.ErrEnvelope, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", attest.ErrEnvelope, file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReceiptFile+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", attest.ErrEnvelope, file, err)
	}
	if len(data) > maxReceiptFile {
		return nil, fmt.Errorf("%w: %s: larger than %d bytes", attest.ErrEnvelope, file, maxReceiptFile)
	}
	return data, nil
}

// expectOf re-derives the receipt of bundle d, of any kind that makes receipts, and returns
// what a signed receipt must name to vouch for it and the evaluator that derived it.
func expectOf(c *cli.Context, s store.Store, d store.Digest) (attest.Expect, store.EvaluatorInfo, error) {
	other, m, err := otherEvaluation(c, s, d)
	switch {
	case err != nil:
		return attest.Expect{}, store.EvaluatorInfo{}, err
	case other != nil && other.expect == nil:
		return attest.Expect{}, store.EvaluatorInfo{}, signingUnsupported(c, d, m)
	case other != nil:
		return other.expect(c, s, d)
	}
	result, err := replay.Replay(c.Context, s, d, replay.Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		return attest.Expect{}, store.EvaluatorInfo{}, err
	}
	return result.Expect(), result.Receipt.Evaluator, nil
}

// checkAgainstBundle requires the statement to be about --bundle and to name the verdict the
// bundle's evidence gives now.
func checkAgainstBundle(c *cli.Context, st *attest.Statement, file, bundle string) error {
	return withStore(c, readOnly, func(s store.Store) error {
		d, err := store.Resolve(c.Context, s, bundle)
		if err != nil {
			return err
		}
		if err := st.Check(attest.Expect{Bundle: d}); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		want, evaluatorInfo, err := expectOf(c, s, d)
		if err != nil {
			return err
		}
		if st.Predicate.Evaluator != evaluatorInfo {
			// Another evaluator build: its receipt object differs by construction; the
			// verdict must still be the same.
			want.Receipt = store.Digest{}
			fmt.Fprintf(c.App.ErrWriter, "note: %s names evaluator %s %s, this is %s %s: the receipt digest is not compared\n",
				file, st.Predicate.Evaluator.Name, st.Predicate.Evaluator.Version, evaluatorInfo.Name, evaluatorInfo.Version)
		}
		if err := st.Check(want); err != nil {
			return fmt.Errorf("%s: re-derived from bundle %s: %w", file, d, err)
		}
		return nil
	})
}
