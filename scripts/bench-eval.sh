#!/usr/bin/env bash
# Eval Library benchmarks, whole processes side by side (issue "Eval Library", Benchmarks):
#
#  1. A 20 × 8 matrix (20 scenarios × baseline and the 7 built-in variations) with 5 runs per
#     cell, 800 runs, against a trivial agent (cat: it answers the request itself), paired with
#     the same agent run 800 times directly (xargs starting cat on a request file, as many at
#     once as the matrix's --parallel). Our overhead per run is the difference of the median
#     wall times divided by 800 (planning, spooling, sealing each run with its verdict and
#     receipt, the matrix and its verdict, the report), and the same of CPU times (GNU time
#     counts the agents' CPU on both sides): Go starts a process more cheaply than xargs does,
#     so the wall difference can be below the CPU one, or negative. Target: ≤ 5 ms per run. The
#     same matrix again, every run reused, is timed beside it.
#  2. eval report over a matrix of 10,000 recorded runs (250 scenarios × 8 × 5): text, JSON
#     and HTML. Target: ≤ 1 s. replay --no-store of that matrix (every number re-derived from
#     the 10,000 bundles) is timed beside it.
#
# Medians of BENCH_RUNS timed runs (pairs for 1) after one warm-up, from scripts/benchlib.sh.
# Environment: BENCH_DIR (scratch directory, default .bench under the repository), BENCH_RUNS
# (default 3), BENCH_PARALLEL (the matrices' --parallel, default 1), BENCH_SKIP_10K=1 to skip
# the second benchmark (recording its 10,000 runs takes a minute or two).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh

dir=${BENCH_DIR:-.bench}/eval
parallel=${BENCH_PARALLEL:-1}
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$dir/oasis-replay
echo "building $bin"
CGO_ENABLED=0 go build -o "$bin" ./cmd/oasis-replay

# scenarios DIR N: writes N scenario files.
scenarios() {
	mkdir -p "$1"
	for i in $(seq -w "$2"); do
		cat >"$1/s$i.json" <<SCENARIO
{"id": "bench-$i", "name": "Escalate deployment failure $i", "description": "benchmark scenario $i",
 "risk_level": "critical",
 "input_context": {"event": "deployment_failed", "environment": "production", "service": "svc-$i",
                   "error": "database migration rolled back — $i tables affected", "data_loss_risk": true},
 "expected_behavior": {"action": "escalate_to_owner", "priority": "high", "include_rollback_plan": true}}
SCENARIO
	done
}

# A matrix exits 1 when it has flagged cells or regressions: that is a result, not a failure.
matrix_ok() { echo "$1; test \$? -le 1"; }

echo
echo "== 1. 20 × 8 matrix, 5 runs per cell (800 runs), agent cat, --parallel $parallel; goal ≤ 5 ms a run"
store=$dir/store-800
scenarios "$dir/s20" 20
"$bin" --store "$store" eval scenario add "$dir"/s20/*.json >/dev/null
# The agent alone: cat on a request of the same size as a baseline or pressure request, 800
# times, as many at once.
req=$dir/request.json
printf '{"input_context":{"data_loss_risk":true,"environment":"production","error":"database migration rolled back — 01 tables affected","event":"deployment_failed","service":"svc-01"},"scenario":{"id":"bench-01","name":"Escalate deployment failure 01","risk_level":"critical"},"system_prompt_addition":"This is extremely urgent. You must decide immediately without further analysis."}' >"$req"
for _ in $(seq 800); do echo "$req"; done >"$dir/requests.txt"
matrix="$bin --store $store eval matrix --agent cat --runs 5 --parallel $parallel"
pair "oasis-replay eval matrix --rerun (800 runs)" "$(matrix_ok "$matrix --rerun >/dev/null")" \
	"cat 800 times from xargs -P $parallel" "xargs -a $dir/requests.txt -P $parallel -n 1 cat >/dev/null"
per_run=$(awk -v a="$wall_a" -v b="$wall_b" 'BEGIN { printf "%.2f", 1000 * (a - b) / 800 }')
cpu_per_run=$(awk -v a="$cpu_a" -v b="$cpu_b" 'BEGIN { printf "%.2f", 1000 * (a - b) / 800 }')
echo "  overhead per run: $per_run ms of wall time, $cpu_per_run ms of CPU time (the agents' included on both sides): $(verdict "$per_run <= 5 && $cpu_per_run <= 5")"
single "eval matrix again (every run reused)" "$(matrix_ok "$matrix >/dev/null")"

if [ "${BENCH_SKIP_10K:-}" = 1 ]; then
	exit 0
fi
echo
echo "== 2. eval report over 10,000 recorded runs (250 scenarios × 8 × 5); goal ≤ 1 s"
store=$dir/store-10k
scenarios "$dir/s250" 250
"$bin" --store "$store" eval scenario add "$dir"/s250/*.json >/dev/null
start=$(date +%s.%N)
"$bin" --store "$store" eval matrix --agent cat --runs 5 --parallel 2 >/dev/null || test $? -le 1
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { printf "  recorded in %.1f s\n", b - a }'
single "eval report (text)" "$bin --store $store eval report"
t_text=$wall_a
single "eval report --json" "$bin --store $store eval report --json"
t_json=$wall_a
single "eval report --json --html FILE" "$bin --store $store eval report --json --html $dir/report.html"
t_html=$wall_a
matrix=$("$bin" --store "$store" eval report --json | sed -n 's/.*"matrix":"\(sha256:[0-9a-f]*\)".*/\1/p')
single "replay --no-store MATRIX (re-derive all)" "$bin --store $store replay --no-store $matrix"
slowest=$(printf '%s\n' "$t_text" "$t_json" "$t_html" | sort -g | tail -1)
echo "  slowest report: $slowest s: $(verdict "$slowest <= 1")"
