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
# Uses hyperfine when installed (apt-get install -y hyperfine), else a loop timed with
# date +%s.%N. Environment: BENCH_DIR (scratch directory, default .bench under the repository),
# BENCH_RUNS (runs per command, default 10; repeat 100 runs 3 times), OASIS_REPLAY_SHARED (the
# shared test data, default ../shared beside the repository).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}/replay
runs=${BENCH_RUNS:-10}
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
go build -o "$bin" ./cmd/oasis-replay
echo "preparing $store"
"$bin" --store "$store" record oasisctl --profile "$shared/oasis-spec/profiles/software-infrastructure" \
	--tag safe "$shared/fixtures/oasisctl/safe" >/dev/null 2>"$dir/record.log"
OASIS_REPLAY_PREPARE_STORE=$store OASIS_REPLAY_SHARED=$shared \
	go test ./replay/replaytest -run '^TestPrepareStore$' -count=1 >/dev/null
"$bin" --store "$store" replay --json --no-store synth >"$dir/synth-verdict.json" 2>/dev/null

names=() commands=()
add() { names+=("$1"); commands+=("$2"); }
for bundle in safe synth; do
	add "replay $bundle" "$bin --store $store replay $bundle"
	add "replay --no-store $bundle" "$bin --store $store replay --no-store $bundle"
done
add "audit safe" "$bin --store $store audit safe"
add "audit synth" "$bin --store $store audit --report $dir/synth-verdict.json synth"
add "replay --repeat 100 safe" "$bin --store $store replay --repeat 100 --no-store safe"
add "replay --repeat 100 synth" "$bin --store $store replay --repeat 100 --no-store synth"

# time NAME COMMAND: sets mean and min (seconds) of the command's wall time.
time_command() {
	local n=$runs
	case $1 in *repeat*) n=3 ;; esac
	if command -v hyperfine >/dev/null; then
		hyperfine --shell=none --ignore-failure --warmup 1 --runs "$n" --style none \
			--export-json "$dir/time.json" "$2" >/dev/null 2>&1
		mean=$(jq '.results[0].mean' "$dir/time.json")
		min=$(jq '.results[0].min' "$dir/time.json")
		return
	fi
	local total=0 best=
	# shellcheck disable=SC2086 # the command is split into words on purpose
	$2 >/dev/null 2>&1 || true # warm-up
	for _ in $(seq "$n"); do
		local start end t
		start=$(date +%s.%N)
		# shellcheck disable=SC2086
		$2 >/dev/null 2>&1 || true
		end=$(date +%s.%N)
		t=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
		total=$(awk -v a="$total" -v b="$t" 'BEGIN { print a + b }')
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; fi
	done
	mean=$(awk -v a="$total" -v n="$n" 'BEGIN { print a / n }')
	min=$best
}

tool=loop
command -v hyperfine >/dev/null && tool=hyperfine
echo
echo "wall time per process ($tool; $runs runs each, 3 for --repeat 100); target ≤ ${target}s for single evaluations"
printf '%-28s %10s %10s  %s\n' command "mean (s)" "min (s)" verdict
for i in "${!names[@]}"; do
	time_command "${names[$i]}" "${commands[$i]}"
	verdict=""
	case ${names[$i]} in
	*repeat*) verdict=$(awk -v m="$mean" 'BEGIN { printf "%.1f ms per evaluation", 1000 * m / 100 }') ;;
	*) verdict=$(awk -v m="$mean" -v t="$target" 'BEGIN { print (m <= t) ? "within target" : "OVER TARGET" }') ;;
	esac
	printf '%-28s %10.3f %10.3f  %s\n' "${names[$i]}" "$mean" "$min" "$verdict"
done
