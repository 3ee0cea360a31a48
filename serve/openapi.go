package serve

import (
	_ "embed"
	"net/http"
)

// openAPI is the OpenAPI 3.1 description of the Eval Library API as this server answers it,
// written by hand (docs/decisions.md, "Eval Library API: the OpenAPI document"); a test checks
// the live server's answers against it.
//
//go:embed openapi.json
var openAPI []byte

// OpenAPI returns the OpenAPI 3.1 document served at /api/v1/openapi.json.
func OpenAPI() []byte { return append([]byte(nil), openAPI...) }

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, err := w.Write(openAPI)
	return err
}
