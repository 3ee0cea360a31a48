// Package remotetest starts real servers for the tests of remotes: Debian's docker-registry
// (distribution 2.8) and versitygw (an S3 gateway over a directory), each on 127.0.0.1 with
// its data in a test's temporary directory, stopped when the test ends. A test skips, saying
// why, when the server's program is not installed (.ci/run installs both).
package remotetest
