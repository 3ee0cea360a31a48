package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/profiles"
	"github.com/oasis-replay/oasis-replay/recorder"
	"github.com/oasis-replay/oasis-replay/replay"
	"github.com/oasis-replay/oasis-replay/store"
)

func conformanceCommand() *cli.Command {
	return &cli.Command{
		Name:        "conformance",
		Usage:       "the provider conformance preflight of OASIS (Provider Conformance §3.8)",
		Description: groupExitStatus,
		Subcommands: []*cli.Command{conformanceCheckCommand()},
	}
}

func conformanceCheckCommand() *cli.Command {
	return &cli.Command{
		Name:  "check",
		Usage: "ask a live provider for its conformance answer and check it against a profile's requirements",
		Description: "Does what a runner does before any scenario (Provider Conformance §3.8.3): GET\n" +
			"URL/v1/conformance?profile=<profile id>, then checks the answer against the profile's\n" +
			"provider-conformance-requirements.yaml: core versions against the profile's core dependency,\n" +
			"profile and profile_version, every requirement key with its type and expected value (a\n" +
			"comparison with \"requested\" uses --tier), keys the contract does not declare, and the\n" +
			"supported flag and unmet_requirements. Each unmet requirement is printed with what is\n" +
			"expected, what the provider answered and why.\n\n" +
			"--profile is a profile of the store (a tree digest, a unique prefix of one, or id@version);\n" +
			"without it, the store's only profile. --json prints canonical JSON: provider, request,\n" +
			"profile, tier, status (conformant, not-conformant or error), http_status, answer (the\n" +
			"answer's digest), error, preflight (the result, as a verdict's metadata.environment.preflight).\n\n" +
			"Exit status: 0 the provider is conformant; 1 it is not (an unmet requirement); 2 the check\n" +
			"could not be made: the provider is unreachable, answers another status than 200, or answers\n" +
			"something that is not a conformance answer (Provider Conformance §3.8.4 keeps these apart\n" +
			"from a runtime PROVIDER_FAILURE), bad usage, or an unknown profile.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "provider", Usage: "base `URL` of the environment provider (required)"},
			&cli.StringFlag{Name: "profile", Usage: "the `PROFILE` to check against (default: the store's only profile)"},
			&cli.IntFlag{Name: "tier", Value: 1, Usage: "the complexity `TIER` requested for the run"},
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "how long to wait for the answer"},
			&cli.BoolFlag{Name: "json", Usage: "print canonical JSON"},
		},
		Action: runConformanceCheck,
	}
}

// conformanceReport is the --json output of conformance check.
type conformanceReport struct {
	Provider   string                    `json:"provider"`
	Request    string                    `json:"request"`
	Profile    profileJSON               `json:"profile"`
	Tier       int                       `json:"tier"`
	Status     string                    `json:"status"`
	HTTPStatus int                       `json:"http_status,omitempty"`
	Answer     *store.Digest             `json:"answer,omitempty"`
	Error      string                    `json:"error,omitempty"`
	Preflight  *profiles.PreflightResult `json:"preflight,omitempty"`
}

func runConformanceCheck(c *cli.Context) error {
	base, err := url.Parse(c.String("provider"))
	switch {
	case c.String("provider") == "":
		return usageErrorf(c, "--provider is required")
	case err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "":
		return usageErrorf(c, "--provider %q is not an http(s) URL", c.String("provider"))
	case c.Int("tier") < 1:
		return usageErrorf(c, "--tier %d: complexity tiers start at 1", c.Int("tier"))
	}
	p, err := conformanceProfile(c)
	if err != nil {
		return err
	}
	target := *base
	target.Path = strings.TrimSuffix(base.Path, "/") + "/v1/conformance"
	target.RawQuery = url.Values{"profile": {p.Pin.ID}}.Encode()
	out := conformanceReport{Provider: base.String(), Request: target.String(), Tier: c.Int("tier"),
		Profile: profileJSON{Tree: p.Pin.Tree, ID: p.Pin.ID, Version: p.Pin.Version, SourceCommit: p.Pin.SourceCommit}}
	status, body, err := getConformance(c.Context, &target, c.Duration("timeout"))
	out.HTTPStatus = status
	if err == nil {
		digest := store.Sum(body)
		out.Answer = &digest
		req := profiles.PreflightRequest{Tier: out.Tier}
		var result profiles.PreflightResult
		if result, err = p.Conformance.Check("answer", body, req); err != nil {
			result = p.Conformance.Malformed(err, req)
		}
		out.Preflight = &result
	}
	if err != nil {
		err = fmt.Errorf("provider %s: GET %s: %w", out.Provider, target.RequestURI(), err)
		out.Status, out.Error = "error", err.Error()
	} else if out.Status = "conformant"; !out.Preflight.Met {
		out.Status = "not-conformant"
	}
	if werr := writeConformanceReport(c, &out, err); werr != nil {
		return werr
	}
	switch {
	case err != nil:
		return err
	case !out.Preflight.Met:
		return reported{status: exitMismatch}
	}
	return nil
}

// conformanceProfile loads the profile --profile names, or the store's only profile.
func conformanceProfile(c *cli.Context) (*profiles.Profile, error) {
	var p *profiles.Profile
	err := withStore(c, readOnly, func(s store.Store) error {
		tree, err := defaultProfile(c, s)
		if err != nil {
			return err
		}
		p, err = profiles.LoadTree(c.Context, s, tree)
		return err
	})
	return p, err
}

// defaultProfile resolves --profile, or picks the store's only profile.
func defaultProfile(c *cli.Context, s store.Store) (store.Digest, error) {
	if ref := c.String("profile"); ref != "" {
		return recorder.ResolveProfile(c.Context, s, ref)
	}
	list, err := recorder.ListProfiles(c.Context, s)
	if err != nil {
		return store.Digest{}, err
	}
	if len(list) == 1 {
		return list[0].Tree, nil
	}
	names := make([]string, len(list))
	for i, p := range list {
		names[i] = p.ID + "@" + p.Version + " (" + p.Tree.Short() + ")"
	}
	if len(names) == 0 {
		return store.Digest{}, usageErrorf(c, "the store holds no profile: import one with profile import DIR")
	}
	return store.Digest{}, usageErrorf(c, "the store holds %d profiles, name one with --profile: %s", len(names), strings.Join(names, ", "))
}

// getConformance issues the runner's GET (Provider Conformance §3.8.1) and returns the status
// and the body of a 200 answer. An unreachable provider, another status and an answer beyond
// profiles.MaxConformanceAnswer are errors saying which (§3.8.3: each is a preflight failure).
func getConformance(ctx context.Context, target *url.URL, timeout time.Duration) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target.String(), nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, unreachable(err, timeout)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, profiles.MaxConformanceAnswer+1))
	switch {
	case err != nil:
		return resp.StatusCode, nil, fmt.Errorf("reading the answer: %w", unreachable(err, timeout))
	case resp.StatusCode != http.StatusOK:
		return resp.StatusCode, nil, fmt.Errorf("answered %s, not 200 OK: %s", resp.Status, excerpt(body))
	case len(body) > profiles.MaxConformanceAnswer:
		return resp.StatusCode, nil, fmt.Errorf("%w: the answer is larger than %d bytes", profiles.ErrMalformedAnswer, profiles.MaxConformanceAnswer)
	}
	return resp.StatusCode, body, nil
}

// unreachable is a network failure without the request url.Error repeats ("dial tcp
// 127.0.0.1:9: connect: connection refused"), a timeout named as one.
func unreachable(err error, timeout time.Duration) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no answer within %s (--timeout): %w", timeout, err)
	}
	return err
}

// excerpt is the start of a body for an error message: one line, what is not printable
// replaced by "?".
func excerpt(body []byte) string {
	const n = 200
	s := strings.Join(strings.Fields(string(body[:min(len(body), n)])), " ")
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s)
	if s == "" {
		return "(empty body)"
	}
	if len(body) > n {
		s += "…"
	}
	return s
}

// writeConformanceReport prints the outcome: canonical JSON with --json, else the result for
// people (an error is printed on stderr by the caller).
func writeConformanceReport(c *cli.Context, out *conformanceReport, err error) error {
	if c.Bool("json") {
		return writeCanonical(c.App.Writer, out)
	}
	if err != nil {
		return nil
	}
	w := c.App.Writer
	fmt.Fprintf(w, "provider    %s\n", out.Request)
	fmt.Fprintf(w, "profile     %s %s (tree %s), tier %d\n", out.Profile.ID, out.Profile.Version, out.Profile.Tree.Short(), out.Tier)
	return replay.WritePreflight(w, out.Preflight)
}
