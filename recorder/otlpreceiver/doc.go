// Package otlpreceiver is an OTLP/HTTP trace receiver for the duration of a recording: it
// listens on the loopback interface, accepts POST /v1/traces in the protobuf and JSON
// encodings, spools every body to a directory in arrival order, and answers with an empty
// export response. It decodes nothing: the bodies are evidence, read later by formats/otlp.
//
// # Content encodings
//
// Many exporters compress their bodies with gzip by default (OTLP/HTTP, "Content-Encoding:
// gzip"). A gzip body is decompressed as it arrives and the decompressed message is what is
// spooled: the compression is the transport's, like chunking, and the span source kept is the
// OTLP message itself. Decompression stops where the run's budget of span bytes ends (a body
// that would decompress to more is refused with 413, so a small zip bomb cannot fill the disk
// or the memory); any other encoding than gzip or identity is refused with 415, naming the
// encodings accepted.
//
// # Limits of a run
//
// Memory spent decoding spans grows with what they hold, so every span source of a run is
// counted against the run's Budget before anything decodes it: MaxRunBytes of span bytes
// (decompressed), MaxRunSpans spans and MaxRunValues values (spans, events, links, attributes
// and their values), values nested at most MaxNesting deep. A body is spooled to disk as it
// arrives (never held in memory), then read once more and counted without being decoded
// (countProtobuf walks the protobuf wire format through the messages that hold others,
// countJSON reads JSON as tokens). A body that passes a limit is refused with 413 naming it,
// and every later one too; the recorder then records the run as an error run naming the limit.
// A malformed body is counted up to its fault and kept: decoding it reports why, and cannot
// allocate more than was counted.
//
// # Free space
//
// Every spooled byte is admitted by a freespace.Guard: a body that would leave less than
// freespace.Margin free is refused with 507 and reported by Close, and the run fails.
package otlpreceiver
