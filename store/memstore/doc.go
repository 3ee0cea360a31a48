// Package memstore is an in-memory store.Store: the second implementation of the store
// interface beside the Badger store (store/badgerstore), sharing nothing with it but the
// contract, which both prove by passing the one suite, store/storetest.
//
// It keeps every blob and object whole in a map, verified against its digest on every read,
// checks objects as every store does (known kind and schema version, valid under its schema,
// exactly canonical JSON), and keeps refs in a map. Nothing is compressed, chunked or
// durable: Sync does nothing, Close drops everything. Large blobs are kept in one piece, which
// the suite allows (its chunk tests are skipped).
//
// It is what tests use when they need a store but not the Badger store's files, compression or
// crash safety (store/archive's tests wrap it to log or falsify calls), and what a program may
// use for a store that lives as long as one process.
package memstore
