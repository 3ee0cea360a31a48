package recorder

import (
	"errors"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/oasis-replay/oasis-replay/formats/httpexchange"
)

// exchangeDoc is the recorded form of one HTTP exchange (store.MediaTypeHTTPExchange), written
// as canonical JSON. The format is defined, and read, by package formats/httpexchange (see its
// doc.go); the recorder writes it (exchangeReader streams the bodies in).
type exchangeDoc = httpexchange.Exchange

type exchangeMessage = httpexchange.Message

// unrecordedHeaders are left out of recorded exchanges.
var unrecordedHeaders = []string{"Date", "Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// hopHeaders are not forwarded (RFC 9110 §7.6.1).
var hopHeaders = httpexchange.HopHeaders

// credentialHeader reports whether a header carries a credential worth redacting wherever it
// appears: Authorization, or a header naming a token, secret, password or API key.
func credentialHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "authorization" || n == "proxy-authorization" {
		return true
	}
	for _, word := range []string{"token", "secret", "password", "api-key", "apikey"} {
		if strings.Contains(n, word) {
			return true
		}
	}
	return false
}

// sensitiveHeader reports whether a header's value is masked in recorded exchanges: the
// credential headers, cookies, and any header naming auth.
func sensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	return credentialHeader(name) || n == "cookie" || n == "set-cookie" || strings.Contains(n, "auth")
}

// recordHeaders renders headers for the record: sorted, without unrecorded ones, credentials
// replaced by marker, every value through hide.
func recordHeaders(h http.Header, marker func(string) string, hide func(string) string) [][2]string {
	names := make([]string, 0, len(h))
	for name := range h {
		if !slices.Contains(unrecordedHeaders, http.CanonicalHeaderKey(name)) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out := [][2]string{}
	for _, name := range names {
		for _, v := range h[name] {
			if sensitiveHeader(name) {
				v = marker(v)
			}
			out = append(out, [2]string{name, hide(v)})
		}
	}
	return out
}

// headerCredentials returns the credentials of a request's credential headers: each value,
// the token after its scheme ("Bearer abc" → "abc"), and the password of a Basic value (its
// user id is an identifier, and is not learned on its own).
func headerCredentials(h http.Header) []string {
	var out []string
	for name, values := range h {
		if !credentialHeader(name) {
			continue
		}
		for _, v := range values {
			out = append(out, v)
			if _, token, ok := strings.Cut(v, " "); ok {
				out = append(out, strings.TrimSpace(token))
			}
			if pass, ok := basicPassword(v); ok {
				out = append(out, pass)
			}
		}
	}
	slices.Sort(out)
	return out
}

// upstreamError names a failed call without details that change from run to run (addresses,
// ports), so that the same failure always records the same bytes.
func upstreamError(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "connection reset"
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "host not found"
	}
	return "upstream unreachable"
}
