// Package jsondiff is the production structural diff of two JSON documents: the verdict a
// replay expected and the one it got. It answers "where do these documents first differ, and
// how?" with a short, deterministic list that can be printed, golden-tested and compared as
// text. go-cmp stays in tests: its report text is randomised on purpose and it may panic.
//
// # Model
//
// Both documents are decoded with json.Decoder.UseNumber into a tree of values (no Go map is
// iterated anywhere, so no map order can leak out). The trees are walked together:
//
//   - objects are compared member by member, over the union of their keys in byte order; a
//     member present on one side only is a difference whose other side is "(absent)";
//   - arrays are compared index by index (no alignment: a verdict's arrays have a fixed
//     order, so an insertion is reported as every later index differing, which is the
//     truth about the bytes); extra elements are "(absent)" on the shorter side;
//   - numbers are equal when their decimal values are equal ("1", "1.0" and "10e-1" are one
//     value); strings, booleans and null compare exactly;
//   - values of different JSON types differ at that node, which is not walked further.
//
// A Difference names the node by its JSON Pointer (RFC 6901: "/scenarios/12/status", "~0"
// for "~" and "~1" for "/" inside keys, "" for the whole document) and gives both sides as
// canonical JSON: object members sorted by key in byte order, no insignificant whitespace,
// strings with only '"', '\\' and control characters escaped, numbers as written in the
// document. A rendered value longer than MaxValueBytes is cut on a UTF-8 boundary and ends
// with "…" (it is then no longer valid JSON: it is for reading).
//
// # Order and bounds
//
// Differences are sorted by path, comparing the pointers segment by segment: object keys in
// byte order, array indices as numbers (so /a/2 comes before /a/10). Because the walk visits
// nodes in exactly that order, the walk stops at the limit (MaxDifferences for Diff) and
// returns the first differences in order together with ErrTruncated, which says so.
//
// Hostile input cannot make it panic or recurse without bound: nesting deeper than MaxDepth,
// duplicate object keys and anything that is not exactly one JSON value are ErrSyntax,
// naming the document and the path or offset.
package jsondiff
