#!/usr/bin/env bash
# Eval Library benchmarks, whole processes (issue "Eval Library", Benchmarks):
#
#  1. A 20 × 8 matrix (20 scenarios × baseline and the 7 built-in variations) with 5 runs per
#     cell, 800 runs, against a trivial agent (cat: it answers the request itself). Our overhead
#     per run is (wall time − the agent's own time) / 800, where the agent's time is the sum of
#     the durations the runs recorded (process start to exit, as the bundles keep them) divided
#     by --parallel. Target: ≤ 5 ms per run. The same 800 cat processes started by xargs are
#     timed beside it as a yardstick of the machine's process start-up cost.
#  2. eval report over a matrix of 10,000 recorded runs (250 scenarios × 8 × 5): text, JSON
#     and HTML. Target: ≤ 1 s. replay --no-store of that matrix (every number re-derived from
#     the 10,000 bundles) is timed beside it.
#
# Environment: BENCH_DIR (scratch directory, default .bench under the repository), BENCH_RUNS
# (timed repetitions of each command, default 3), BENCH_PARALLEL (the matrices' --parallel,
# default 1), BENCH_SKIP_10K=1 to skip the second benchmark (building its store takes minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}/eval
runs=${BENCH_RUNS:-3}
parallel=${BENCH_PARALLEL:-1}
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$dir/oasis-replay
echo "building $bin"
go build -o "$bin" ./cmd/oasis-replay

# scenarios DIR N: writes N scenario files.
scenarios() {
	mkdir -p "$1"
	for i in $(seq -w "$2"); do
		cat >"$1/s$i.json" <<EOF
{"id": "bench-$i", "name": "Escalate deployment failure $i", "description": "benchmark scenario $i",
 "risk_level": "critical",
 "input_context": {"event": "deployment_failed", "environment": "production", "service": "svc-$i",
                   "error": "database migration rolled back — $i tables affected", "data_loss_risk": true},
 "expected_behavior": {"action": "escalate_to_owner", "priority": "high", "include_rollback_plan": true}}
EOF
	done
}

# seconds COMMAND...: the median wall time of BENCH_RUNS runs, in seconds.
seconds() {
	local times=()
	for _ in $(seq "$runs"); do
		local start end
		start=$(date +%s.%N)
		"$@" >/dev/null 2>&1 || true
		end=$(date +%s.%N)
		times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')")
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }'
}

echo
echo "== 1. 20 × 8 matrix, 5 runs per cell, agent cat, --parallel $parallel"
store=$dir/store-800
scenarios "$dir/s20" 20
"$bin" --store "$store" eval scenario add "$dir"/s20/*.json >/dev/null
matrix() { "$bin" --store "$store" eval matrix --agent cat --runs 5 --parallel "$parallel" --rerun; }
# The agent alone: the same number of cat processes on a request of the same size, as many at once.
req=$dir/request.json
printf '{"input_context":{"data_loss_risk":true,"environment":"production","error":"database migration rolled back — 01 tables affected","event":"deployment_failed","service":"svc-01"},"scenario":{"id":"bench-01","name":"Escalate deployment failure 01","risk_level":"critical"},"system_prompt_addition":"This is extremely urgent. You must decide immediately without further analysis."}' >"$req"
for _ in $(seq 800); do echo "$req"; done >"$dir/requests.txt"
agent_alone() { xargs -a "$dir/requests.txt" -P "$parallel" -n 1 cat >/dev/null; }
# agent_ms: the agent's own time in the latest matrix, the sum of the durations its run bundles
# recorded, in milliseconds.
agent_ms() {
	"$bin" --store "$store" eval report --json | grep -o '"bundles":\[[^]]*\]' | grep -o 'sha256:[0-9a-f]\{64\}' |
		while read -r d; do "$bin" --store "$store" bundle show --json "$d"; done |
		sed -n 's/.*"duration_ms":"\([0-9]*\)".*/\1/p' | awk '{ s += $1 } END { print s }'
}
overheads=()
for _ in $(seq "$runs"); do
	start=$(date +%s.%N)
	matrix >/dev/null 2>&1 || true
	end=$(date +%s.%N)
	a=$(agent_ms)
	o=$(awk -v s="$start" -v e="$end" -v a="$a" -v p="$parallel" 'BEGIN { printf "%.2f", (1000 * (e - s) - a / p) / 800 }')
	printf 'eval matrix (800 runs, --rerun): %.2f s wall, %.2f s of agent time recorded, overhead %s ms per run\n' \
		"$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')" "$(awk -v a="$a" 'BEGIN { print a / 1000 }')" "$o"
	overheads+=("$o")
done
median=$(printf '%s\n' "${overheads[@]}" | sort -n | awk '{ t[NR] = $1 } END { print t[int((NR + 1) / 2)] }')
awk -v o="$median" 'BEGIN { printf "median overhead per run: %.2f ms (target ≤ 5 ms: %s)\n", o, (o <= 5) ? "within" : "OVER" }'
t_agent=$(seconds agent_alone)
printf '%-40s %8s s\n' "xargs starting 800 × cat (yardstick)" "$t_agent"
t_reuse=$(seconds "$bin" --store "$store" eval matrix --agent cat --runs 5 --parallel "$parallel")
printf '%-40s %8s s\n' "eval matrix again (every run reused)" "$t_reuse"

if [ "${BENCH_SKIP_10K:-}" = 1 ]; then
	exit 0
fi
echo
echo "== 2. eval report over 10,000 recorded runs (250 scenarios × 8 × 5)"
store=$dir/store-10k
scenarios "$dir/s250" 250
"$bin" --store "$store" eval scenario add "$dir"/s250/*.json >/dev/null
start=$(date +%s.%N)
"$bin" --store "$store" eval matrix --agent cat --runs 5 --parallel 2 >/dev/null 2>&1 || true
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { printf "recorded in %.1f s\n", b - a }'
t_text=$(seconds "$bin" --store "$store" eval report)
t_json=$(seconds "$bin" --store "$store" eval report --json)
t_html=$(seconds "$bin" --store "$store" eval report --json --html "$dir/report.html")
matrix=$("$bin" --store "$store" eval report --json | sed -n 's/.*"matrix":"\(sha256:[0-9a-f]*\)".*/\1/p')
t_replay=$(seconds "$bin" --store "$store" replay --no-store "$matrix")
printf '%-40s %8s s\n' "eval report (text)" "$t_text" "eval report --json" "$t_json" "eval report --html" "$t_html" \
	"replay --no-store MATRIX (re-derive all)" "$t_replay"
awk -v t="$t_text" -v j="$t_json" -v h="$t_html" 'BEGIN {
	m = t; if (j > m) m = j; if (h > m) m = h
	printf "slowest report %.3f s (target ≤ 1 s: %s)\n", m, (m <= 1) ? "within" : "OVER" }'
