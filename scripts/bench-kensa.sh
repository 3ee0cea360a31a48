#!/usr/bin/env bash
# Kensa benchmarks, whole processes side by side (DESIGN §7: re-checking 10,000 Kensa runs ≥ 20×
# faster than Kensa itself; kensa run's overhead per run ≤ 10 ms over running the agent).
#
# Data (deterministic, under BENCH_DIR, default .bench): tools/kensabench writes a project whose
# .kensa holds BENCH_KENSA_RUNS (default 10,000) runs of the scripted agent in Kensa v0.7.0's
# own files — the five scenarios of recorder/kensa/testdata/twoways, one run manifest, a trace
# in Kensa's span model per run — and kensa import seals them into a fresh store.
#
# 1. Re-checking every run, paired with real Kensa re-judging the same runs:
#      real Kensa                `kensa judge --run-id ID --format json` over the same manifest,
#                                run by ../shared/tools/real-kensa: Kensa's command that
#                                re-evaluates recorded runs (`kensa eval` runs the agents again,
#                                `kensa report` only reads results). It reads the run manifest
#                                and every trace file, runs every check (no judge: no scenario
#                                has criteria), writes .kensa/results/ID.json and prints the
#                                results as JSON; nothing is hashed or verified.
#      kensa replay --no-store   every run read from the store (every blob and object verified
#                                against its digest), its checks re-derived, its canonical
#                                verdict and digest made, one line a run; nothing written
#      kensa replay              the same, and every verdict and receipt stored (one sync): the
#                                like of Kensa writing its results file
#      kensa stats --json        every run replayed twice (the evaluator's variance), and the
#                                statistics
#    Real Kensa needs python3 with pydantic 2, click and PyYAML, and checkouts of Kensa
#    (KENSA_SRC) and opentelemetry-python (OTEL_SRC); without them only our times are printed,
#    with the reason.
# 2. kensa run's overhead: `kensa run --runs BENCH_OVERHEAD_RUNS` (default 100) of one scenario
#    running the scripted agent, paired with a shell loop running the same agent as many times
#    with the same argument and a KENSA_TRACE_DIR; the difference per run.
#
# Environment: BENCH_DIR, BENCH_RUNS (pairs timed, default 3), BENCH_KENSA_RUNS,
# BENCH_OVERHEAD_RUNS, OASIS_REPLAY_SHARED (the shared test data, default ../shared), KENSA_SRC,
# OTEL_SRC.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh

dir=${BENCH_DIR:-.bench}/kensa
kensa_runs=${BENCH_KENSA_RUNS:-10000}
overhead_runs=${BENCH_OVERHEAD_RUNS:-100}
shared=${OASIS_REPLAY_SHARED:-../shared}
rm -rf "$dir"
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
bin=$dir/bin

echo "building $bin"
build "$bin"
go build -o "$bin/kensa-agent" ./tools/kensa-agent
go build -o "$bin/kensabench" ./tools/kensabench
echo "writing $kensa_runs recorded runs to $dir/project and importing them into $dir/store"
"$bin/kensabench" -scenarios recorder/kensa/testdata/twoways/.kensa/scenarios -runs "$kensa_runs" -o "$dir/project"
"$bin/oasis-replay" --store "$dir/store" kensa import "$dir/project" >/dev/null 2>"$dir/import.log"
run_id=$(basename "$dir"/project/.kensa/runs/*.json .json)

real_kensa=$(cd "$shared" 2>/dev/null && pwd)/tools/real-kensa
why_not=
if [ ! -x "$real_kensa" ]; then
	why_not="$real_kensa not found (set OASIS_REPLAY_SHARED)"
elif [ -z "${KENSA_SRC:-}" ] || [ -z "${OTEL_SRC:-}" ]; then
	why_not="KENSA_SRC and OTEL_SRC must name checkouts of satyaborg/kensa (v0.7.0) and open-telemetry/opentelemetry-python"
elif ! (cd "$dir/project" && "$real_kensa" --version >/dev/null 2>"$dir/kensa-version.log"); then
	why_not="real Kensa does not start: $(tail -1 "$dir/kensa-version.log")"
fi

replay="$bin/oasis-replay --store $dir/store kensa replay --no-store"
replay_store="$bin/oasis-replay --store $dir/store kensa replay"
stats="$bin/oasis-replay --store $dir/store kensa stats --json"
kensa="cd $dir/project && $real_kensa judge --run-id $run_id --format json"
echo
echo "re-checking $kensa_runs recorded Kensa runs (goal: Kensa ≥ 20× the wall time of ours)"
if [ -z "$why_not" ]; then
	pair "kensa judge (real Kensa v0.7.0)" "$kensa" "oasis-replay kensa replay --no-store" "$replay"
	echo "  Kensa ÷ kensa replay --no-store: ${ratio_wall}× wall, ${ratio_cpu}× CPU: $(verdict "$ratio_wall >= 20")"
	pair "kensa judge (real Kensa v0.7.0)" "$kensa" "oasis-replay kensa replay" "$replay_store"
	echo "  Kensa ÷ kensa replay: ${ratio_wall}× wall, ${ratio_cpu}× CPU: $(verdict "$ratio_wall >= 20")"
	pair "kensa judge (real Kensa v0.7.0)" "$kensa" "oasis-replay kensa stats --json" "$stats"
	echo "  Kensa ÷ kensa stats: ${ratio_wall}× wall, ${ratio_cpu}× CPU: $(verdict "$ratio_wall >= 20")"
else
	single "oasis-replay kensa replay --no-store" "$replay"
	single "oasis-replay kensa replay" "$replay_store"
	single "oasis-replay kensa stats --json" "$stats"
	echo "  real Kensa not run: $why_not"
fi

# kensa run's overhead per run over running the agent directly.
project=$dir/overhead
mkdir -p "$project/.kensa/scenarios" "$project/trace"
cat >"$project/.kensa/scenarios/where.yaml" <<'EOF2'
id: where
name: Order status question
input: where A-100
run_command: [kensa-agent]
checks:
  - type: output_contains
    params: {value: shipped}
EOF2
direct="for i in \$(seq $overhead_runs); do rm -f $project/trace/spans.jsonl; KENSA_TRACE_DIR=$project/trace $bin/kensa-agent 'where A-100' >/dev/null; done"
run="cd $project && PATH=$bin:\$PATH $bin/oasis-replay --store $dir/run-store kensa run --runs $overhead_runs"
echo
echo "kensa run overhead ($overhead_runs runs of one scenario; goal ≤ 10 ms a run)"
pair "oasis-replay kensa run --runs $overhead_runs" "$run" "the agent $overhead_runs times from a shell loop" "$direct"
per_run=$(awk -v a="$wall_a" -v b="$wall_b" -v n="$overhead_runs" 'BEGIN { printf "%.2f", 1000 * (a - b) / n }')
echo "  overhead per run: $per_run ms: $(verdict "$per_run <= 10")"
