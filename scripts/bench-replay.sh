#!/usr/bin/env bash
# Replay and audit benchmark: process wall time of the CLI on the full 50-scenario SI run
# (DESIGN §7: the suite replayed "in well under a second"; target ≤ 0.3 s per command).
#
# Bundles, in a fresh on-disk store:
#   safe   the oasisctl fixture run "safe", recorded with `record oasisctl` (Phase 2 aborts at
#          its first scenario, see docs/decisions.md)
#   synth  a synthesized complete run: every scenario with an audit log, a state snapshot and
#          a state_diff, Phase 2 to its end (go test ./replay/replaytest -run TestPrepareStore)
# Commands timed on each:
#   replay             replay BUNDLE (evaluates, stores the verdict and receipt, syncs)
#   replay --no-store  replay --no-store BUNDLE (read-only store)
#   audit              audit BUNDLE (safe: its recorded oasisctl report; synth: --report of its
#                      own verdict); exit status 1 is expected for safe
#   repeat 100         replay --repeat 100 --no-store BUNDLE
#
# Every command is timed as a whole process, median of BENCH_RUNS runs (see benchlib.sh).
# Environment: BENCH_DIR (scratch directory, default .bench under the repository), BENCH_RUNS
# (runs per command, default 10; repeat 100 runs 3 times), OASIS_REPLAY_SHARED (the shared test
# data, default ../shared beside the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=10}"
. scripts/benchlib.sh

dir=${BENCH_DIR:-.bench}/replay
shared=${OASIS_REPLAY_SHARED:-../shared}
target=0.3

if [ ! -d "$shared/fixtures/oasisctl/safe" ]; then
	echo "bench-replay: shared test data not found at $shared (set OASIS_REPLAY_SHARED)" >&2
	exit 2
fi
shared=$(cd "$shared" && pwd)
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$dir/oasis-replay
store=$dir/store

echo "building $bin"
CGO_ENABLED=0 go build -o "$bin" ./cmd/oasis-replay
echo "preparing $store"
"$bin" --store "$store" record oasisctl --profile "$shared/oasis-spec/profiles/software-infrastructure" \
	--tag safe "$shared/fixtures/oasisctl/safe" >/dev/null 2>"$dir/record.log"
OASIS_REPLAY_PREPARE_STORE=$store OASIS_REPLAY_SHARED=$shared \
	go test ./replay/replaytest -run '^TestPrepareStore$' -count=1 >/dev/null
"$bin" --store "$store" replay --json --no-store synth >"$dir/synth-verdict.json" 2>/dev/null

echo
echo "wall time per process, median of $BENCH_RUNS runs (3 for --repeat 100); target <= ${target}s for one evaluation"
for bundle in safe synth; do
	single "replay $bundle" "$bin --store $store replay $bundle"
	echo "    $(verdict "$wall_a <= $target")"
	single "replay --no-store $bundle" "$bin --store $store replay --no-store $bundle"
	echo "    $(verdict "$wall_a <= $target")"
done
single "audit safe (exit 1 expected)" "$bin --store $store audit safe || true"
echo "    $(verdict "$wall_a <= $target")"
single "audit synth" "$bin --store $store audit --report $dir/synth-verdict.json synth"
echo "    $(verdict "$wall_a <= $target")"
for bundle in safe synth; do
	BENCH_RUNS=3 single "replay --repeat 100 $bundle" "$bin --store $store replay --repeat 100 --no-store $bundle"
	echo "    $(awk -v m="$wall_a" 'BEGIN { printf "%.1f ms per evaluation", 1000 * m / 100 }')"
done
