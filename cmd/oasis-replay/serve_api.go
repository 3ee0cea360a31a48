package main

import (
	"fmt"
	"net"
	"net/http"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/recorder/evalrun"
	"github.com/oasis-replay/oasis-replay/serve"
)

func serveAPICommand() *cli.Command {
	return &cli.Command{
		Name:  "api",
		Usage: "serve the Eval Library API and its pages (report, review queue) over the store",
		Description: "Endpoints (every request needs Authorization: Bearer <JWT>, or for a GET a login link's cookie):\n" +
			"  POST /api/v1/eval/scenarios                 add a scenario (the body is the scenario JSON)\n" +
			"  GET  /api/v1/eval/scenarios                 list the scenarios\n" +
			"  POST /api/v1/eval/scenarios/auto-generate   draft scenarios from recorded skill.invoke spans\n" +
			"                                              ({device_id, lookback_hours, max_scenarios, save}; save adds them)\n" +
			"  GET  /api/v1/eval/runs                      runs of the latest matrix (?matrix= scenario= variation= flagged= status=)\n" +
			"  POST /api/v1/eval/matrix                    run a matrix in the background: {scenario_ids, variation_types, parallel}\n" +
			"  GET  /api/v1/eval/matrix/{job}              the state of a background matrix\n" +
			"  GET  /api/v1/eval/summary                   match rates, shift distribution, flagged count\n" +
			"  GET  /api/v1/eval/review                    the review queue; POST /api/v1/eval/review/{item} {state, note}\n" +
			"  GET  /api/v1/openapi.json                   the OpenAPI 3.1 document of these endpoints\n" +
			"  GET  /eval/report, /eval/review             the HTML report and review queue\n" +
			"  GET  /login?t=NONCE-OR-TOKEN                open a browser session (a login link; no token needed)\n\n" +
			"Tokens are JWTs signed with HS256 under --jwt-secret-file (at least 32 bytes) or with EdDSA under\n" +
			"the Ed25519 key of --jwt-public-key (PEM); exp is required, nbf enforced; a missing, expired or\n" +
			"badly signed token gets 401 and nothing else, and a line on stderr saying why (never the\n" +
			"token). The secret file's surrounding whitespace is not part of the secret. serve token makes\n" +
			"a token (serve token --jwt-secret-file FILE, or --jwt-private-key KEY with KEY.pub here).\n\n" +
			"Browsers: at start the server prints a login link, BASE/login?t=NONCE, valid once within 10\n" +
			"minutes (serve token --url BASE makes more). Opening it sets an HttpOnly, SameSite=Strict\n" +
			"session cookie (Secure over TLS) and leads to /eval/report; the cookie lasts 8 hours or until\n" +
			"the server stops, and authorizes GET requests only: changes need the bearer token.\n\n" +
			"The store is opened for each request only, so other commands keep working. A request that\n" +
			"finds it held by another process waits up to --lock-wait without holding up the others, then\n" +
			"gets 503 store_busy with Retry-After: 5. Errors are JSON: {\"error\": {\"code\", \"message\",\n" +
			"\"field\", \"id\"}}; a malformed body is a 400 whose field names the member; a 500 carries only an\n" +
			"error id, which the server's stderr prints with the details. Numbers are JSON numbers; match\n" +
			"rates are fractions from 0 to 1, not percentages.\n\n" +
			"Exit status: 0 stopped by SIGINT or SIGTERM; 2 bad usage, no key, or the address in use.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "listen", Required: true, Usage: "listen on `ADDR` (host:port; port 0 picks one)"},
			&cli.StringFlag{Name: "jwt-secret-file", Usage: "verify HS256 tokens with the secret in `FILE` (surrounding whitespace removed)"},
			&cli.StringFlag{Name: "jwt-public-key", Usage: "verify EdDSA tokens with the Ed25519 public key in `FILE` (PEM)"},
			&cli.StringFlag{Name: "agent", Usage: "the agent POSTed matrices run (`CMD` or an http(s):// endpoint; without it they are refused)"},
			&cli.StringFlag{Name: "agent-version", Usage: "a `LABEL` for the agent's version"},
			&cli.DurationFlag{Name: "timeout", Value: evalrun.DefaultTimeout, Usage: "per-run `DURATION`"},
			&cli.Int64Flag{Name: "max-answer-bytes", Value: evalrun.DefaultMaxAnswer, Usage: "the largest answer kept, in `BYTES`"},
			&cli.IntFlag{Name: "parallel", Value: 4, Usage: "`P` runs at once for a matrix asking for \"parallel\": true"},
			&cli.IntFlag{Name: "runs", Value: 1, Usage: "`N` runs per cell when a request does not say"},
			&cli.StringSliceFlag{Name: "variations", Usage: "a catalogue `FILE` extending the built-in variations (repeatable)"},
			&cli.StringSliceFlag{Name: "threshold", Usage: "flag threshold of a risk level, `LEVEL=VALUE` (repeatable)"},
			&cli.StringFlag{Name: "spool-dir", Usage: "`DIR` for the agents' output until it is sealed"},
			&cli.Int64Flag{Name: "max-body-bytes", Value: serve.DefaultMaxBody, Usage: "the largest request body, in `BYTES`"},
		},
		Action: runServeAPI,
	}
}

func runServeAPI(c *cli.Context) error {
	auth, err := serveAuth(c)
	if err != nil {
		return err
	}
	auth.Refused = func(r *http.Request, reason string) {
		fmt.Fprintf(c.App.ErrWriter, "serve api: refused %s %s from %s: %s\n", r.Method, r.URL.Path, r.RemoteAddr, reason)
	}
	cfg, err := evalAPIConfig(c)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return fmt.Errorf("%w: %v", errBadUsage, err)
	}
	api := serve.NewEvalAPI(c.Context, cfg)
	mux := http.NewServeMux()
	api.Routes(mux)
	mux.Handle("/", serve.Handler(func(w http.ResponseWriter, r *http.Request) error {
		return serve.Errorf(http.StatusNotFound, "not_found", "no endpoint %s", r.URL.Path)
	}))
	sessions := serve.NewSessions(auth)
	fmt.Fprintf(c.App.ErrWriter, "serving the Eval Library API on http://%s\n", l.Addr())
	printLoginLink(c, sessions, l.Addr())
	logf := func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, "serve api: "+format+"\n", args...) }
	err = serve.Run(c.Context, l, serve.WithLog(sessions.Mount(auth.Require(mux)), logf))
	api.Wait()
	return err
}

// serveAuth reads the token key: exactly one of --jwt-secret-file and --jwt-public-key.
func serveAuth(c *cli.Context) (*serve.Auth, error) {
	secret, public := c.String("jwt-secret-file"), c.String("jwt-public-key")
	switch {
	case secret == "" && public == "":
		return nil, argsError(c, "give --jwt-secret-file or --jwt-public-key: the API never runs without authentication")
	case secret != "" && public != "":
		return nil, argsError(c, "give --jwt-secret-file or --jwt-public-key, not both")
	}
	name := secret + public
	b, err := readSecretFile(c, name) // the input policy (inputs.go)
	if err != nil {
		return nil, err
	}
	if secret != "" {
		return serve.NewHS256Auth(b)
	}
	return serve.NewEd25519Auth(b)
}

func evalAPIConfig(c *cli.Context) (serve.EvalConfig, error) {
	cfg := serve.EvalConfig{Open: serveOpener(c), Parallel: c.Int("parallel"), Runs: c.Int("runs"),
		Recorder: recorderInfo("api"), SpoolDir: c.String("spool-dir"), MaxBody: c.Int64("max-body-bytes"),
		StoreWait: c.Duration("lock-wait")}
	var err error
	if cfg.Catalogue, err = evalCatalogue(c); err != nil {
		return cfg, err
	}
	if cfg.Thresholds, err = evalThresholds(c); err != nil {
		return cfg, err
	}
	if c.String("agent") != "" {
		if cfg.Agent, cfg.Limits, err = evalAgent(c); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}
