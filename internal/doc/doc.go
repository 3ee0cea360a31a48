// Package doc is the decoded JSON/YAML document of oasis-replay: the one tree every reader of an
// outside document uses (OASIS profiles and reports, Kubernetes objects, Kensa scenarios, OTLP
// JSON, Eval Library scenarios, transcripts, audit logs), with the one canonical encoder and the
// one structural diff. It depends on the standard library, yaml.v3 and internal/errclass only,
// so that any package, store included, can use it.
//
// # Model
//
// A document is a tree of *Node. A node is null, a boolean, a number, a string, an array or an
// object (Kind). Objects keep their members in document order as a slice of Member; there is no
// Go map to iterate anywhere, so nothing read from a tree can depend on map order. Large
// objects carry an index, so Get is constant-time however wide they are. A tree is immutable
// and safe for concurrent reads.
//
//	n, err := doc.ParseJSON("report.json", data, doc.Limits{})   // exactly one JSON value
//	n, err := doc.ParseYAML("scenario.yaml", data, doc.Limits{}) // exactly one YAML document
//	docs, err := doc.ParseYAMLStream(name, data, doc.Limits{})   // every document of a stream
//	lines := doc.NewLines("audit.log", r, doc.Limits{})          // JSON Lines, one line at a time
//
// Readers then navigate (Get, Index, Items, Members, Lookup with a JSON Pointer), read scalars
// with typed accessors (Str, Bool, Int64, Uint64, Decimal, Float64, Text), and report problems
// at a node with n.Errorf or n.TypeError, or Decode a tree into Go structs strictly.
//
// # Positions
//
// Every node knows its file, line and column (Pos), and for JSON its byte offset; every member
// knows where its name is written (Member.KeyPos); every node knows its path from the root
// (Path, rendered as a JSON Pointer by Path.Pointer or as a field path, "checks[2].params.tools",
// by Path.String). Lines and columns are 1-based; columns count characters (Unicode code points),
// as yaml.v3 does. A JSON node stores only its offset: lines and columns are computed when asked,
// from an index built on the first request, so parsing pays nothing for them. yaml.v3 gives no
// offsets: a YAML position has Offset -1. A JSON document may start with a UTF-8 byte order
// mark, which is skipped and not counted in columns.
//
// # Numbers
//
// A number keeps its literal as written (Text), in JSON grammar, of any size: nothing is
// converted to float64 on the way, and no comparison uses floats. Numbers compare by exact
// decimal value: "1", "1.0" and "10e-1" are Equal; so are "0" and "-0". Decimal gives the exact
// value in plain notation ("15e-1" is "1.5"), Int64 and Uint64 accept any literal of an integer
// value within range ("1.2e1" is 12), and Decode feeds a number's plain decimal to an
// encoding.TextUnmarshaler, so internal/decimal.Decimal fields read 0.35 and "0.35" alike.
//
// # JSON
//
// ParseJSON reads exactly one value (RFC 8259); trailing data is an error. It is stricter than
// encoding/json where the RFC leaves room, so that a tree always re-encodes to the same text:
// invalid UTF-8 and unpaired UTF-16 surrogate escapes are syntax errors (RFC 8259 §8.2; RFC 7493
// §2.1), and so is a member name given twice. The tree refers to the input: Compact copies a
// value's text as written (escapes and number spellings untouched, whitespace between tokens
// removed, exactly encoding/json.Compact), so the caller must not modify the input afterwards.
//
// # YAML
//
// yaml.v3 parses; this package maps its nodes onto the model as follows (the decisions are in
// docs/decisions.md, "Document model"):
//
//   - Scalars are typed by the tag yaml.v3 resolves (YAML 1.2 core schema): !!null is null
//     (~, null, Null, NULL, nothing); !!bool is true/false in three spellings each (yes, no,
//     on, off are strings, as in YAML 1.2); quoted scalars are strings.
//   - !!int and !!float are numbers with the value yaml.v3 gives them, written in JSON
//     grammar: a literal already in that grammar is kept as written; "+1" is 1, "0x1F" 31,
//     "0o17" and "017" 15 (yaml.v3 keeps YAML 1.1 octal), "0b101" 5, "1_000" 1000, ".5" 0.5,
//     "1." 1. .inf and .nan have no exact decimal value: they stay strings as written (a reader
//     wanting a number gets "want a number, got a string").
//   - !!timestamp (2024-01-31) and !!binary stay strings as written; so does a plain "<<" that
//     is not a key.
//   - Explicit core tags are honoured (!!str 12 is a string, !!int "12" a number) and checked
//     (!!int 1.5 is an error). Any other tag (!Ref, !!set, !!omap) is an ErrType error naming
//     it: the model cannot keep it, and dropping it would change the meaning silently.
//   - Keys: a scalar key is its text as written, whatever its tag (1, true and ~ are the names
//     "1", "true" and "~"); a key that is a mapping or a sequence is an ErrType error. So
//     1: a and "1": b in one mapping are a duplicate key.
//   - Anchors and aliases are expanded: each alias is a copy of the anchored value, positioned at
//     the alias while what is inside keeps the positions where it is written. Expansion counts
//     against MaxAliasNodes (and MaxNodes), so an alias bomb fails within kilobytes.
//   - Merge keys (<<: *base, <<: [*a, *b], YAML 1.1 merge) insert the merged mappings' members
//     where the << is written, except names the mapping writes itself (which win wherever they
//     are) and names an earlier merged mapping gave, as yaml.v3 does when decoding into Go values.
//   - ParseYAML wants exactly one document (an empty input is an error); ParseYAMLStream returns
//     every document, an explicitly empty one ("---" alone) as null.
//   - yaml.v3 reports syntax errors with a line (not always: none on the first line) and no
//     column; its parser's lines, 0-based in v3.0.1, are corrected.
//   - Readers that must resolve scalars by other rules (PyYAML's YAML 1.1, which Kensa uses: a
//     plain yes is a boolean, 1:30 is 90, 1e3 a string) get how each scalar is written from
//     YAMLScalar: its text as written, whether it is plain, its explicit tag.
//
// # Limits
//
// Every parser takes Limits, whose zero fields take the defaults of DefaultLimits. Each
// violation is an *Error wrapping ErrLimit whose message names the limit and its value, with the
// file, position and path where it was exceeded (and whose Limit field names it, for a reader
// that reports a limit of its own). The defaults keep what reading a document costs to about
// 100 MiB whatever the input (TestHostileInputMemory measures it in a child process), so that a
// program reading one stays within 256 MiB.
//
//	Limits field    default    what it bounds                          error says
//	MaxBytes        32 MiB     a document; one JSON Lines line         the document has N bytes
//	MaxDepth        512        nesting of arrays and objects           nest deeper than the limit
//	MaxKeyBytes     64 KiB     a member name, unescaped                a member name is longer than the limit
//	MaxStringBytes  16 MiB     a string value, unescaped               a string is longer than the limit
//	MaxNumberBytes  256        a number literal as written             a number literal is longer than the limit
//	MaxNodes        524,288    values of a document (aliases expanded) the document has more values than the limit
//	MaxAliasNodes   10,000     values made by YAML alias expansion     expanding YAML aliases makes more values than the limit
//
// A value costs about 56 bytes as a node (a scalar) to 100 (an object of one member); a string's
// bytes are held by the input and once more by the tree. yaml.v3 refuses nesting deeper than
// 10,000 itself; that error is a MaxDepth error too.
//
// Reading is linear in the input: strings are measured before they are allocated (a 100 MB name
// costs a scan, not 100 MB), duplicate names are found with a hash index once an object has
// more than 16 members, and nothing is searched linearly per member. A duplicate name is always
// an ErrDuplicateKey error naming both positions. YAML has one more check: yaml.v3 builds a tree
// of its own of about 250 bytes a value before this package sees it, so MaxNodes is first
// compared with an upper bound of the values the text can hold, counted in one pass without
// parsing (it over-counts prose, never under-counts).
//
// # Errors
//
// Errors are *Error values: File, Line, Column, Offset, Path (JSON Pointer by Path.Pointer), Msg
// and the class they wrap: ErrSyntax, ErrLimit, ErrDuplicateKey, ErrType, ErrUnknownField (or
// the caller's own, through n.Errorf's %w). Error() prints
//
//	file:line:column: path: message
//	scenarios/x.yaml:12:5: checks[2].params.tools: want an array of strings, got a string
//
// leaving out what is unknown or empty; the format is stable.
//
// # Decoding into Go values
//
// Decode fills a Go value strictly (see Decode): json tag names, an unknown member is an error
// at its position unless the struct has an Extra field, `doc:"required"` fields, no silent
// conversions between kinds. *Node fields keep a sub-tree for shapes a struct cannot say ("a
// string or an object"); Raw fields keep its compact JSON; Unmarshaler types read their node
// themselves.
//
// # Canonical form
//
// Canonical (and AppendCanonical) write RFC 8785 (JCS): no whitespace, members sorted by the
// UTF-16 code units of their names (§3.2.3, CompareKeys), strings with minimal escaping
// (§3.2.2.2, AppendString: '"', '\\' and control characters only, \u00xx in lowercase), and
// numbers as ECMAScript writes the nearest IEEE double (§3.2.2.3). The project's own objects
// hold only integers (store refuses floats); outside documents hold any number, and a number
// the double does not hold exactly in decimal (12345678901234567891, 3.14159265358979323846,
// 1e400) is refused with ErrType rather than rounded: the canonical form never changes a value,
// so ParseJSON(Canonical(x)) is Equal to x, and Canonical is idempotent. Tests and fuzzing check
// the output is a fixed point of github.com/gowebpki/jcs. AppendString and CompareKeys are the
// escaper and the sorter store's encoder calls, so the project has one of each.
//
// # Diff, Equal and Leaves
//
// Equal compares two trees by value (member order and number spelling aside). Diff walks two
// trees together and lists where they differ, each Difference with its JSON Pointer, its kind
// (Changed, OnlyA, OnlyB, TypeChanged) and both sides rendered as compact JSON with members
// sorted by name in byte order and numbers as written, cut at MaxValueBytes with "…". Objects
// are compared over the union of their names, arrays index by index without alignment.
// Differences come in path order, segment by segment, names in byte order and indices as
// numbers (/a/2 before /a/10); that is the order of the walk, so stopping at MaxDifferences
// keeps the first ones, and says so. This is exactly the order and rendering of the verdict
// diff that golden and replay --repeat print, so their outputs stay byte-identical.
//
// Leaves flattens a tree into (JSON Pointer, leaf) pairs in the same order: scalars, and empty
// arrays and objects. With LeafOptions.ScalarArrays an array of scalars is one leaf, for
// distances that compare such arrays as sets (the Eval Library's Jaccard distance).
package doc
