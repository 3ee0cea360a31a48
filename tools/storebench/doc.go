// Command storebench measures the embedded store for scripts/bench-store.sh: it generates a
// Kubernetes audit log, ingests a file into a fresh store, and verifies a store, printing one
// "key=value" line per figure so the script can set them beside zstd and sha256sum. Peak memory
// is the process's VmHWM, so each phase runs in its own process.
//
// Usage:
//
//	storebench gen    -size BYTES [-seed N] -o FILE
//	storebench ingest -store DIR [-chunk-size BYTES] [-value-threshold BYTES] [-workers N] [-cpuprofile FILE] FILE
//	storebench verify -store DIR [-cpuprofile FILE]
//
// Output lines are "<phase>_<figure>=<value>": bytes, seconds and mbps (10^6 bytes per second,
// as zstd and dd print it), and vmhwm_kib, rssanon_kib and rssfile_kib from
// /proc/self/status. Peak memory counts the pages of Badger's memory-mapped files that the
// process touched, as well as its heap.
package main
