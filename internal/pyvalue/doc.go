// Package pyvalue gives JSON values the semantics Python gives them, for re-deriving results that
// a Python program (Kensa) computed: an integer and a float are different values that compare
// equal (1 == 1.0 == True), object members keep their order, and the text forms are exactly
// Python's — json.dumps (with and without sort_keys), repr of strings, lists and dicts, str of
// numbers, f"{x:.Nf}" and round(x, n) of IEEE-754 binary64 floats.
//
// # Why floats
//
// Kensa keeps costs, limits and scores as binary64 floats and compares and formats them as such
// (0.1 + 0.2 > 0.3 in Kensa). To re-derive its verdicts exactly, the evaluator does the same
// arithmetic in the same order on the same binary64 values. Go's float64 operations are IEEE-754
// basic operations, correctly rounded and identical on every platform, provided no
// multiply-add is fused: every product in this package and its callers is wrapped in an explicit
// float64 conversion, which the Go specification says rounds. Floats never reach a stored
// object: verdicts carry their Python text form (Repr), a string.
//
// # Reading documents
//
// The package parses nothing itself: documents are read by internal/doc, the project's one
// JSON/YAML reader, and FromNode builds values from its trees as Python's json module (and
// pydantic) would: numbers with a fraction or an exponent are floats, others integers (at most
// 64 bits here; larger ones are an error, where Python would keep them). A reader with other
// rules for scalars (formats/kensa resolves YAML scalars as PyYAML does) passes a ScalarFunc.
// Loads is json.loads: doc.ParseJSON then FromNode. Being doc's, it is stricter than Python
// where RFC 8259 leaves room: a name given twice, NaN and Infinity, and unpaired surrogate
// escapes are errors (docs/decisions.md, "Kensa files through the document model").
package pyvalue
