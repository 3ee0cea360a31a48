#!/usr/bin/env bash
# Kensa benchmarks, whole processes side by side (DESIGN §7: re-checking 10,000 Kensa runs ≥ 20×
# faster than Kensa itself; kensa run's overhead per run ≤ 10 ms over running the agent).
#
# Data (deterministic, under BENCH_DIR, default .bench): tools/kensabench writes a project whose
# .kensa holds BENCH_KENSA_RUNS (default 10,000) runs of the scripted agent in Kensa v0.7.0's
# own files — the five scenarios of recorder/kensa/testdata/twoways, one run manifest, a trace
# in Kensa's span model per run — and kensa import seals them into a fresh store.
#
# 1. Re-checking every run, median of BENCH_RUNS (default 3) timed runs after one warm-up:
#      kensa replay --no-store   every run's checks re-derived once (the batch form of replay)
#      kensa stats --json        every run replayed twice, and the statistics
#      real Kensa judge          `kensa judge --run-id ID --format json` over the same manifest:
#                                Kensa re-evaluating every run's checks, with no judge (no
#                                scenario has criteria), run by ../shared/tools/real-kensa
#    and the ratio of Kensa's time to each. Real Kensa needs python3 with pydantic 2, click and
#    PyYAML, and checkouts of Kensa (KENSA_SRC) and opentelemetry-python (OTEL_SRC); without
#    them it is skipped, saying why.
# 2. kensa run's overhead: `kensa run --runs BENCH_OVERHEAD_RUNS` (default 100) of one scenario
#    running the scripted agent, against a shell loop running the same agent as many times with
#    the same argument and a KENSA_TRACE_DIR; the difference per run.
#
# Environment: BENCH_DIR, BENCH_RUNS, BENCH_KENSA_RUNS, BENCH_OVERHEAD_RUNS, OASIS_REPLAY_SHARED
# (the shared test data, default ../shared), KENSA_SRC, OTEL_SRC.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}/kensa
runs=${BENCH_RUNS:-3}
kensa_runs=${BENCH_KENSA_RUNS:-10000}
overhead_runs=${BENCH_OVERHEAD_RUNS:-100}
shared=${OASIS_REPLAY_SHARED:-../shared}
rm -rf "$dir"
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
bin=$dir/bin
export PATH=$bin:$PATH

echo "building $bin"
go build -o "$bin/oasis-replay" ./cmd/oasis-replay
go build -o "$bin/kensa-agent" ./tools/kensa-agent
go build -o "$bin/kensabench" ./tools/kensabench
echo "writing $kensa_runs recorded runs to $dir/project and importing them into $dir/store"
kensabench -scenarios recorder/kensa/testdata/twoways/.kensa/scenarios -runs "$kensa_runs" -o "$dir/project"
oasis-replay --store "$dir/store" kensa import "$dir/project" >/dev/null 2>"$dir/import.log"
run_id=$(basename "$dir"/project/.kensa/runs/*.json .json)

# median_seconds N COMMAND...: runs COMMAND once to warm up, then N times, and prints the median
# wall time in seconds.
median_seconds() {
	local n=$1
	shift
	"$@" >/dev/null 2>&1 || true
	local times=()
	for _ in $(seq "$n"); do
		local start end
		start=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		end=$(date +%s%N)
		times+=("$(((end - start) / 1000))")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { m = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2; printf "%.3f\n", m / 1e6 }'
}

replay_s=$(median_seconds "$runs" oasis-replay --store "$dir/store" kensa replay --no-store)
stats_s=$(median_seconds "$runs" oasis-replay --store "$dir/store" kensa stats --json)

kensa_s=
why_not=
real_kensa=$(cd "$shared" 2>/dev/null && pwd)/tools/real-kensa
if [ ! -x "$real_kensa" ]; then
	why_not="$real_kensa not found (set OASIS_REPLAY_SHARED)"
elif [ -z "${KENSA_SRC:-}" ] || [ -z "${OTEL_SRC:-}" ]; then
	why_not="KENSA_SRC and OTEL_SRC must name checkouts of satyaborg/kensa (v0.7.0) and open-telemetry/opentelemetry-python"
elif ! (cd "$dir/project" && "$real_kensa" --version >/dev/null 2>"$dir/kensa-version.log"); then
	why_not="real Kensa does not start: $(tail -1 "$dir/kensa-version.log")"
else
	kensa_s=$(cd "$dir/project" && median_seconds "$runs" "$real_kensa" judge --run-id "$run_id" --format json)
fi

echo
echo "re-checking $kensa_runs recorded Kensa runs: wall seconds per process, median of $runs (goal: Kensa ≥ 20× slower)"
printf '%-34s %10s %10s\n' command "median (s)" "Kensa ÷"
row() {
	local ratio=-
	[ -n "$kensa_s" ] && ratio=$(awk -v k="$kensa_s" -v t="$2" 'BEGIN { printf "%.1f×", k / t }')
	printf '%-34s %10.3f %10s\n' "$1" "$2" "$ratio"
}
row "oasis-replay kensa replay" "$replay_s"
row "oasis-replay kensa stats --json" "$stats_s"
if [ -n "$kensa_s" ]; then
	printf '%-34s %10.3f %10s\n' "kensa judge (real Kensa v0.7.0)" "$kensa_s" "1.0×"
else
	echo "real Kensa not run: $why_not"
fi

# kensa run's overhead per run over running the agent directly.
project=$dir/overhead
mkdir -p "$project/.kensa/scenarios" "$project/trace"
cat >"$project/.kensa/scenarios/where.yaml" <<'EOF'
id: where
name: Order status question
input: where A-100
run_command: [kensa-agent]
checks:
  - type: output_contains
    params: {value: shipped}
EOF
direct() {
	for _ in $(seq "$overhead_runs"); do
		rm -f "$project/trace/spans.jsonl"
		KENSA_TRACE_DIR=$project/trace kensa-agent "where A-100" >/dev/null
	done
}
export -f direct
export project overhead_runs
direct_s=$(median_seconds "$runs" bash -c direct)
kensa_run_s=$(cd "$project" && median_seconds "$runs" oasis-replay --store "$dir/run-store" kensa run --runs "$overhead_runs")
echo
echo "kensa run overhead ($overhead_runs runs of one scenario, median of $runs; goal ≤ 10 ms a run)"
printf '%-34s %10.3f s\n' "the agent run directly, in a loop" "$direct_s"
printf '%-34s %10.3f s\n' "oasis-replay kensa run --runs $overhead_runs" "$kensa_run_s"
awk -v a="$kensa_run_s" -v b="$direct_s" -v n="$overhead_runs" 'BEGIN { printf "overhead per run: %.2f ms\n", 1000 * (a - b) / n }'
