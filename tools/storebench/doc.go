// Command storebench makes the inputs of the scripts/bench-*.sh and measures the embedded
// store: it generates a Kubernetes audit log, ingests a file into a fresh store, verifies a
// store, seals many small bundles as many short commands would (bench-ls.sh), and writes
// variants of oasisctl run directories (bench-dedup.sh). The scripts time each of its runs as
// a whole process; the figures it prints itself are for reading alongside.
//
// Usage:
//
//	storebench gen     -size BYTES [-seed N] -o FILE
//	storebench ingest  -store DIR [-chunk-size BYTES] [-value-threshold BYTES] [-workers N] [-cpuprofile FILE] FILE
//	storebench verify  -store DIR [-cpuprofile FILE]
//	storebench bundles -store DIR [-n N]
//	storebench runs    [-n N] [-seed S] [-agents] -o DIR BASE...
//
// Output lines are "<phase>_<figure>=<value>": bytes, seconds and mbps (10^6 bytes per second,
// as zstd and dd print it), and vmhwm_kib, rssanon_kib and rssfile_kib from
// /proc/self/status. Peak memory counts the pages of Badger's memory-mapped files that the
// process touched, as well as its heap.
package main
