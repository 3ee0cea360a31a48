// Package shard partitions work among processes by a stable key: shard I of N holds the items
// whose key falls in it, whatever the machine, the order of the items or the other shards, so
// that N processes (a Kubernetes Indexed Job, a CI matrix) together do each item exactly once
// and the union of their results is the unsharded result.
//
// A key's shard is its first 8 bytes read as a big-endian integer, modulo N. Keys are digests
// (a bundle's), whose bytes are uniform; a key that is not a digest is hashed first (Of).
package shard
