// Package sharedtest locates the project's shared test data (the OASIS spec checkout, the
// third-party corpus and the oasisctl fixtures), which lives in a directory named "shared" beside
// the repository, or wherever OASIS_REPLAY_SHARED points. Tests read it in place and skip, with a
// message saying where they looked, when it is absent. The shipped binary never uses it.
package sharedtest
