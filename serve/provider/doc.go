// Package provider replays a live recording as the runner's counterparts: an HTTP server that
// answers an OASIS runner's provider calls (conformance, provision, inject-state,
// state-snapshot, observe, teardown) and its agent calls (identity and configuration, tasks)
// from the exchanges `record proxy` recorded in a bundle, never reaching anything live
// (go-vcr's replay mode). Re-running the runner against it reproduces the recorded run.
//
// # Loading
//
// Load reads every exchange of the bundle (the manifest sources of media type
// store.MediaTypeHTTPExchange, read by package formats/httpexchange) into memory, in the
// order they were recorded, and the store is no longer needed: the caller closes it, so a server that
// runs for hours holds no lock on the store. Memory is bounded by Options.MaxMemory
// (DefaultMaxMemory): a bundle whose exchanges, as stored, exceed it is refused before
// anything is read. Request bodies are not kept: only a digest of each (the match key, below)
// and its beginning, for error messages.
//
// # Matching
//
// A call matches the recorded exchanges of the same side (the listener it came to), the same
// method and the same target (path and query, byte for byte, as the recorder wrote
// req.URL.RequestURI()) whose request body is equal: byte-equal, or equal as JSON (RFC 8785
// canonical forms equal: member order, whitespace and number spelling aside). Headers are not
// compared (a runner's own headers, its credentials included, differ from run to run and are
// recorded redacted). Several equal recorded requests are answered in the order they were
// recorded (the order of arrival the bundle's wire log keeps, store.WireLog; the manifest's
// order for a bundle without one), one per call, and the last is then repeated (see
// docs/decisions.md, "Replaying a recording as a provider").
//
// A request no exchange matches is answered 404 with a JSON error (the provider guide's
// {"status": "error", "error": …} shape, plus side, method, target, reason and up to three
// closest recorded requests of that side), and the server keeps serving.
//
// # Answers
//
// An answer is the recorded response: the status exactly, the recorded headers (less
// hop-by-hop ones; a Content-Length, when the answer had one, of the replayed body's length,
// since the recorded one may count a credential the recording replaced by a shorter or longer
// marker; chunked when it had none; no Date header added), and the body byte for byte,
// redaction markers included. A runner recorded through record proxy while it runs against
// the server sees the headers, status and bodies of the original recording. An exchange that
// failed upstream (an error recorded, with or without part of an answer) is answered 502 with
// a JSON error naming the failure; one whose answer was truncated at the recording limit
// cannot be replayed byte for byte and is answered 502 with a JSON error saying so.
//
// The server opens no outbound connection: it has no HTTP client.
package provider
