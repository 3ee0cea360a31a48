// Package difftest holds the differential tests of live and imported recordings over worlds
// the project did not write (internal/siworldgen): for every seeded world, the run a runner
// makes against it is captured twice — live through record proxy, and imported from the
// runner's own output as record oasisctl imports it — and
//
//	(a) the two captures give the same verdict, scenario by scenario (Projection);
//	(b) serve provider, replaying the live recording, answers every call of the run with the
//	    bytes first answered, credentials replaced by redaction markers and nothing else;
//	(c) the verdict is the world's ground truth (siworldgen.Truth).
//
// The same property holds for Kubernetes audit streams: events a webhook receives (record
// webhook) and the same events in a file (record files --audit-log) give one verdict.
//
// `go test ./difftest` runs the regression seeds of testdata/regressions.txt and 200 worlds;
// `make difftest` runs thousands (-worlds, or DIFFTEST_WORLDS) and prints the count, the
// shapes covered and every failing seed. The package has no code of its own outside its tests.
package difftest
