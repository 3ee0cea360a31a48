package main

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/oasis-replay/oasis-replay/serve"
)

// printLoginLink prints the one-time link that opens the pages in a browser: a nonce the
// server accepts once, within serve.DefaultLoginTTL (docs/decisions.md, "Opening the pages in
// a browser"). It goes to stderr, the server's log, as the address does.
func printLoginLink(c *cli.Context, sessions *serve.Sessions, addr net.Addr) {
	nonce, _ := sessions.NewLoginNonce(serve.DefaultLoginTTL)
	fmt.Fprintf(c.App.ErrWriter, "open the pages in a browser with this link (once, within %s): %s%s?t=%s\n",
		serve.DefaultLoginTTL, browserBase(addr), serve.LoginPath, nonce)
}

// browserBase is the server's base URL for a browser on this machine: a server listening on
// every address (0.0.0.0, ::) is reached as localhost.
func browserBase(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// printLoginURL prints serve token --url's login link: BASE/login?t=TOKEN, a login token
// valid for --ttl (serve.DefaultLoginTTL unless given, at most serve.MaxLoginTTL).
func printLoginURL(c *cli.Context, signer *serve.TokenSigner) error {
	u, err := url.Parse(c.String("url"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return argsError(c, "--url %q: want the server's base URL, http(s)://host:port", c.String("url"))
	}
	ttl := serve.DefaultLoginTTL
	if c.IsSet("ttl") {
		ttl = c.Duration("ttl")
	}
	if ttl > serve.MaxLoginTTL {
		return argsError(c, "--ttl %s: a login link is valid for at most %s", ttl, serve.MaxLoginTTL)
	}
	// The wall clock sets the token's iat and exp, as the server's clock judges them.
	token, err := signer.SignLogin(c.String("sub"), time.Now(), ttl)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "%s%s?t=%s\n", strings.TrimSuffix(u.String(), "/"), serve.LoginPath, url.QueryEscape(token))
	return nil
}
