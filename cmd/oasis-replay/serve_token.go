package main

import (
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/serve"
)

// defaultTokenTTL is how long a token from serve token is valid unless --ttl says otherwise.
const defaultTokenTTL = time.Hour

func serveTokenCommand() *cli.Command {
	return &cli.Command{
		Name:  "token",
		Usage: "print a bearer token (JWT) that serve api accepts, signed with its secret file or Ed25519 key",
		Description: "Signs a JWT with sub (--sub), iat, nbf and exp (now + --ttl): HS256 under the secret in\n" +
			"--jwt-secret-file, or EdDSA under the Ed25519 private key in --jwt-private-key (PKCS #8 PEM, as\n" +
			"receipt keygen writes it; serve api then takes the public key KEY.pub as --jwt-public-key).\n" +
			"The secret file's surrounding whitespace (a final newline) is not part of the secret: serve api\n" +
			"verifies with the trimmed bytes, and this command signs with exactly those; a token made\n" +
			"elsewhere must be signed with the trimmed bytes too. Use it as\n" +
			"  curl -H \"Authorization: Bearer $(oasis-replay serve token --jwt-secret-file F)\" URL\n\n" +
			"With --url BASE it prints a login link instead, BASE/login?t=TOKEN, which opens the pages\n" +
			"(/eval/report, /eval/review) in a browser: the server sets a session cookie and leads to the\n" +
			"report. The link's token has aud oasis-replay-login and a random jti; it is valid for --ttl\n" +
			"(10m by default here, at most 1h), the server takes it once, and it is no bearer token.\n\n" +
			"Exit status: 0 printed; 2 bad usage, or an unreadable or unusable key.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "jwt-secret-file", Usage: "sign with HS256 under the secret in `FILE` (as serve api --jwt-secret-file)"},
			&cli.StringFlag{Name: "jwt-private-key", Usage: "sign with EdDSA under the Ed25519 private key in `FILE` (PEM)"},
			&cli.DurationFlag{Name: "ttl", Value: defaultTokenTTL, Usage: "the token is valid for `DURATION` from now"},
			&cli.StringFlag{Name: "sub", Value: os.Getenv("USER"), Usage: "the token's subject, who the requests come from (`NAME`; default $USER)"},
			&cli.StringFlag{Name: "url", Usage: "print a one-time login link to the server at `BASE` (http(s)://host:port) for a browser"},
		},
		Action: runServeToken,
	}
}

func runServeToken(c *cli.Context) error {
	secret, private := c.String("jwt-secret-file"), c.String("jwt-private-key")
	switch {
	case secret == "" && private == "":
		return argsError(c, "give --jwt-secret-file or --jwt-private-key")
	case secret != "" && private != "":
		return argsError(c, "give --jwt-secret-file or --jwt-private-key, not both")
	case c.Duration("ttl") <= 0:
		return argsError(c, "--ttl must be positive, got %s", c.Duration("ttl"))
	}
	b, err := readSecretFile(c, secret+private) // the input policy (inputs.go)
	if err != nil {
		return err
	}
	newSigner := serve.NewHS256Signer
	if private != "" {
		newSigner = serve.NewEd25519Signer
	}
	signer, err := newSigner(b)
	if err != nil {
		return err
	}
	if c.String("url") != "" {
		return printLoginURL(c, signer)
	}
	// The wall clock sets the token's iat and exp, as the server's clock judges them; it reaches
	// no verdict or digest.
	token, err := signer.Sign(c.String("sub"), time.Now(), c.Duration("ttl"))
	if err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer, token)
	return nil
}
