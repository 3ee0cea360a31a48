package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/attest"
	"github.com/oasis-replay/oasis-replay/golden"
	"github.com/oasis-replay/oasis-replay/store"
)

// signFlags are replay's flags that sign the receipt.
func signFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "sign", Usage: "sign the receipt with the private key `KEY` (see receipt keygen); needs --receipt"},
		&cli.StringFlag{Name: "receipt", Usage: "write the signed receipt (a DSSE envelope) to `FILE`; needs --sign"},
	}
}

// loadSigner reads --sign's key, before any work is done; nil without --sign.
func loadSigner(c *cli.Context) (*attest.Signer, error) {
	if given, err := together(c, "sign", "receipt", "--sign KEY and --receipt FILE"); !given {
		return nil, err
	}
	return attest.LoadSigner(c.String("sign"))
}

// together reports whether flags a and b were both given; one without the other is bad
// usage, which says "<both> go together".
func together(c *cli.Context, a, b, both string) (bool, error) {
	switch {
	case c.String(a) == "" && c.String(b) == "":
		return false, nil
	case c.String(a) == "" || c.String(b) == "":
		return false, argsError(c, "%s go together", both)
	}
	return true, nil
}

// writeSignedReceipt signs a receipt (replay.Result.Predicate for an OASIS run; another kind
// of bundle fills its own) and writes it to --receipt.
func writeSignedReceipt(c *cli.Context, w io.Writer, k *attest.Signer, p attest.Predicate) error {
	if k == nil {
		return nil
	}
	b, err := k.Sign(attest.NewStatement(p))
	if err != nil {
		return err
	}
	file := c.String("receipt")
	if err := attest.WriteReceipt(file, b); err != nil {
		return err
	}
	fmt.Fprintf(w, "signed receipt %s (key %s)\n", file, k.KeyID())
	return nil
}

// requireSignatureFlags are the flags with which a command requires a trusted signature.
func requireSignatureFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "require-signature", Usage: "require the signed receipt `FILE` (replay --sign) to vouch for the verdict derived; needs --key"},
		&cli.StringFlag{Name: "key", Usage: "the trusted public key `KEY.pub` that must have signed"},
	}
}

// loadTrusted reads --key for --require-signature, before any work is done; nil without
// --require-signature.
func loadTrusted(c *cli.Context) (*attest.Verifier, error) {
	if given, err := together(c, "require-signature", "key", "--require-signature FILE and --key KEY.pub"); !given {
		return nil, err
	}
	return attest.LoadVerifier(c.String("key"))
}

// requireSignature checks that --require-signature is signed by the trusted key and names
// exactly what want names (replay.Result.Expect for an OASIS run); it says so on w.
func requireSignature(c *cli.Context, w io.Writer, v *attest.Verifier, want attest.Expect) error {
	if v == nil {
		return nil
	}
	file := c.String("require-signature")
	st, err := verifyReceiptFile(v, file)
	if err != nil {
		return err
	}
	if err := st.Check(want); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Fprintf(w, "signature  %s: valid, key %s, vouches for verdict %s\n", file, v.KeyID(), st.Predicate.Verdict.Short())
	return nil
}

// goldenKeys loads golden check's --key (signatures required) or golden update's --sign
// (signatures written) into opts.
func goldenKeys(c *cli.Context, opts *golden.Options) error {
	var err error
	if key := c.String("key"); key != "" {
		opts.Trusted, err = attest.LoadVerifier(key)
	}
	if key := c.String("sign"); key != "" && err == nil {
		opts.Signer, err = attest.LoadSigner(key)
	}
	return err
}

// signingUnsupported refuses --sign and --require-signature for kinds of bundle whose
// commands do not make receipts yet. A kind plugs in by filling an attest.Predicate (its
// manifest kind, its evaluation definition, evaluator, verdict and receipt digests), calling
// writeSignedReceipt and requireSignature from its handlers, and registering expect (see
// replay_kensa.go).
func signingUnsupported(c *cli.Context, d store.Digest, m store.Manifest) error {
	return argsError(c, "bundle %s is a %s bundle: this build makes no signed receipts for it", d.Short(), m.ObjectKind())
}
