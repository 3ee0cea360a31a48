// Package httpexchange is the recorded form of one HTTP exchange of a live OASIS run, the blob of
// media type store.MediaTypeHTTPExchange that `record proxy` writes for every call between a
// runner, its environment provider and its agent adapter. The recorder writes it (package
// recorder, streaming its bodies); Read is its one reader, used by every package that reads
// exchanges back (the replay provider of `serve provider`).
//
// # Format
//
// One canonical JSON object (store.Marshal's bytes):
//
//	{"side": "provider"|"agent",
//	 "request":  {"method", "target" (path and query), "headers": [[name, value], …], "body"?|"body_base64"?, "truncated"?},
//	 "response": {"status", "headers", "body"?|"body_base64"?, "truncated"?},   absent when the call failed
//	 "error"?: what failed ("connection refused", "timeout", …)}
//
// target is the request target as the runner sent it to the recorder (origin form: path and
// query, never the upstream's URL). Headers are sorted by canonical name, values in the order
// received. A body is kept as text when it is valid UTF-8, in base64 (standard, padded)
// otherwise; an empty body is left out. truncated means the body was longer than the
// recording limit and only its beginning is kept. Left out, because they describe the
// transport rather than the evidence and would make two recordings of the same run differ:
// the Host, Date and hop-by-hop headers (Connection, Keep-Alive, Proxy-Connection, TE,
// Trailer, Transfer-Encoding, Upgrade). Credentials in headers (Authorization, cookies, any
// header naming a token, key, secret or password) are replaced by redaction markers, and any
// value the recording redacted is a marker wherever it appears, bodies included. No clock
// reading is recorded.
//
// An exchange whose error is set failed: no answer came (error alone), or the answer was cut
// (error beside a response, which holds what arrived).
//
// # Reading
//
// Read checks the shape strictly (unknown members, wrong types, a side other than the two, a
// method or target missing, a target that is not origin form, a status outside 100–999, a
// body given both ways, invalid base64): every problem is an ErrMalformed error naming the
// exchange and the field. Limits bound what one exchange may hold (Limits).
package httpexchange
