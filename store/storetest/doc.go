// Package storetest is the conformance suite every implementation of store.Store runs, so
// that the embedded Badger store, an in-memory store and any future backend behave the same.
//
// An implementation's test calls
//
//	storetest.Run(t, func(t *testing.T) store.Store { return openEmptyStore(t) })
//
// and the suite runs one subtest per behaviour of the store.Store contract: putting and reading
// blobs of every size (including content large enough to be chunked), deduplication (of
// identical content, and of the chunks a grown blob shares with its prefix), Stat,
// structured objects and the checks PutObject makes, Walk order, refs and their naming rules,
// Delete, concurrent writers, cancelled contexts, failing readers, the consistency check, and a
// closed store. Implementations that can damage their own stored bytes pass WithCorrupter, and
// the suite then checks that every read path detects the damage and names the digest.
//
// The suite is meant to be fast: it uses blobs of LargeSize bytes (1 MiB by default) to
// exercise chunking, so implementations should open stores with small chunks (a few KiB).
package storetest
