// Package serve holds the HTTP servers of oasis-replay: what every server shares (Run with a
// graceful shutdown, bearer-token authentication, size-limited bodies, JSON errors) and the
// Eval Library API (EvalAPI), with room for more servers beside it.
//
// # Authentication
//
// Auth verifies JWTs with github.com/golang-jwt/jwt/v5: HS256 under a shared secret (at least
// 32 bytes) or EdDSA under an Ed25519 public key, never another algorithm. exp is required and
// enforced, nbf enforced when present. Require answers any request without a valid bearer token
// with 401, an empty body and the WWW-Authenticate challenge, whatever was wrong with it.
//
// # Browser sessions
//
// Sessions lets a browser open the pages without a bearer header: GET /login?t=… takes a
// one-time nonce the server printed (NewLoginNonce, 10 minutes) or a login token
// (TokenSigner.SignLogin: aud LoginAudience, a jti, at most an hour), each once, sets an
// HttpOnly, SameSite=Strict, Path=/ session cookie (Secure over TLS) and leads to the report.
// The cookie stands for a token on GET and HEAD requests only, so no cross-site request can
// change anything with it; a login token is refused as a bearer token. Everything lives in the
// server's memory: sessions end with it, and a used login token is remembered until it expires.
//
// # Errors and bodies
//
// Errors are {"error": {"code", "message", "field", "id"}} with a fitting status. An error the
// server did not expect is a 500 whose message is always InternalMessage and whose id
// ("err-" and 16 hex digits) names the line of the server's log (WithLog) that holds the
// internal text: nothing of it reaches the client. Bad input names its
// line and column ("request body:1:48: risk_level: …") and, in field, the member of the request
// at fault (a malformed body, an unknown variation or scenario id: 400). Bodies are read up to a
// limit (413 beyond). Every number of a JSON answer is a JSON number; match rates are fractions
// from 0 to 1.
//
// # The Eval Library API
//
// The endpoints of the description's API reference, over the same store as the CLI:
//
//	POST /api/v1/eval/scenarios                 add a scenario (201, or 200 when unchanged)
//	GET  /api/v1/eval/scenarios                 list the scenarios
//	POST /api/v1/eval/scenarios/auto-generate   draft scenarios from recorded skill.invoke spans;
//	                                            "save": true adds them to the library
//	GET  /api/v1/eval/runs                      runs of a matrix; filters scenario, variation,
//	                                            flagged, status, matrix
//	POST /api/v1/eval/matrix                    {scenario_ids, variation_types, parallel, runs,
//	                                            rerun}: runs in the background (202)
//	GET  /api/v1/eval/matrix/{job}              the job: running, done (with its matrix),
//	                                            failed or interrupted
//	GET  /api/v1/eval/summary                   match rates, shift distribution, flagged count,
//	                                            review states
//	GET  /api/v1/eval/review                    the review queue
//	POST /api/v1/eval/review/{item}             {state, note}; who is the token's sub claim
//	GET  /api/v1/openapi.json                   the OpenAPI 3.1 document of the API
//	GET  /eval/report, /eval/review             the HTML report and review queue
//
// The OpenAPI document (openapi.json, embedded) is written by hand; the tests validate every
// answer of a client's session against it with a JSON Schema 2020-12 validator.
//
// The store is opened for each request only (one request at a time in the process), so other
// commands and processes keep using it; a background matrix seals its runs taking its turn with
// the requests. A request that finds the store held by another process tries again every 50 ms
// without holding up the others (reads are served while a write waits for a reader elsewhere),
// up to EvalConfig.StoreWait; then it is a 503 store_busy with Retry-After: StoreRetryAfter
// seconds. One matrix runs at a time. The pages are self-contained and served with a
// Content-Security-Policy that lets them load nothing.
package serve
