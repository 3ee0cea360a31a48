// Package remote holds the fast tests of package remote against an in-process registry
// (go-containerregistry's pkg/registry, with the referrers API), in a module of its own so
// that go-containerregistry, a test-only dependency, stays out of the main module. make test
// runs them.
package remote
