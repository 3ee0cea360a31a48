# oasis-replay — build, test, demo, benchmarks.
GO      ?= go
BIN     := bin/oasis-replay
FUZZTIME ?= 30s

.PHONY: all build install test test-long difftest difftest-kensa difftest-regex demo bench fuzz lint clean

all: build

# No cgo: a static binary also starts about 10 ms faster than one the dynamic loader links.
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/oasis-replay

install:
	CGO_ENABLED=0 $(GO) install ./cmd/oasis-replay

## test: the whole test suite (unit, store suite, crash safety, golden corpus, CLI scripts), and
## test/remote, a module of its own (its in-process registry stays out of the main module;
## -mod=mod lets it follow the main module's requirements as they change).
test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	cd test/remote && $(GO) vet -mod=mod ./... && $(GO) test -mod=mod -count=1 ./...

## test-long: longer variants (100 crash iterations, bigger property runs).
test-long:
	OASIS_REPLAY_LONG=1 $(GO) test -count=1 -timeout 60m ./...

## difftest: DIFFTEST_WORLDS seeded SI worlds captured live and imported (go test runs 200);
## prints the worlds run, the shapes covered and every failing seed.
DIFFTEST_WORLDS ?= 5000
difftest: difftest-kensa difftest-regex
	cd difftest && DIFFTEST_WORLDS=$(DIFFTEST_WORLDS) $(GO) test -count=1 -timeout 60m -run 'TestWorlds$$'

## difftest-kensa: KENSA_DIFFTEST_RUNS runs of seeded Kensa projects, through real Kensa v0.7.0
## (../shared/tools/real-kensa) and through oasis-replay (kensa run; kensa import and replay), go
## test runs 300; prints "N/M runs agree" and the failing seeds by cause. KENSA_DIFFTEST_ALL=1 also
## generates the features the default budget leaves out (internal/kensadiff, notYet).
KENSA_DIFFTEST_RUNS ?= 5000
difftest-kensa:
	cd internal/kensadiff && $(GO) test -count=1 -timeout 60m -run 'TestAgainstKensa$$' -args \
		-kensadiff.runs=$(KENSA_DIFFTEST_RUNS) $(if $(KENSA_DIFFTEST_ALL),-kensadiff.all)

## difftest-regex: PYRE_DIFF_COMPARISONS generated Python regular expressions × subjects, matched by
## evaluator/kensa/pyre and by python3's re (go test compares 6,000); prints "N/M comparisons agree"
## and every differing case with its seed.
PYRE_DIFF_COMPARISONS ?= 200000
difftest-regex:
	cd evaluator/kensa/pyre && PYRE_DIFF_COMPARISONS=$(PYRE_DIFF_COMPARISONS) $(GO) test -count=1 -timeout 60m -v -run 'TestAgainstPython$$'

## demo: record, replay and audit built-in examples of OASIS, Kensa and the Eval Library on the default store.
demo: build
	./$(BIN) demo

## bench: Go benchmarks plus side-by-side runs against sha256sum, zstd and jq.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	./scripts/bench.sh

## fuzz: run every fuzz target for FUZZTIME each.
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)

## lint: vet, formatting, and a go.mod that go mod tidy would leave as it is.
lint:
	$(GO) vet ./...
	$(GO) mod tidy -diff
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

clean:
	rm -rf bin .bench
