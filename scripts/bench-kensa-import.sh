#!/usr/bin/env bash
# kensa import at scale, whole processes: the time of importing 40,000 recorded Kensa runs
# against 10,000 (goal: at most 4.5×, an import that stays linear), the peak RSS of each
# (goal: at most 256 MiB at any size, the README's budget), and a run manifest of 100,000 runs
# (past the document model's limits as one document: it is read a run at a time).
#
# Data (deterministic, under BENCH_DIR, default .bench): tools/kensabench writes a project per
# size whose .kensa holds that many runs of the scripted agent in Kensa v0.7.0's own files (the
# five scenarios of recorder/kensa/testdata/twoways, one run manifest, a trace per run). Each
# timed run imports into a fresh store (`rm -rf` of the last one is part of the command, and
# costs nothing next to the import).
#
# Environment: BENCH_DIR, BENCH_RUNS (timed runs per size, default 1: an import of 40,000 runs
# takes minutes), BENCH_IMPORT_SIZES (default "10000 40000"), BENCH_IMPORT_BIG (the manifest
# imported once at the end, default 100000; 0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=1}"
. scripts/benchlib.sh

dir=${BENCH_DIR:-.bench}/kensa-import
sizes=${BENCH_IMPORT_SIZES:-10000 40000}
big=${BENCH_IMPORT_BIG:-100000}
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
bin=$dir/bin
echo "building $bin"
build "$bin"
go build -o "$bin/kensabench" ./tools/kensabench

project() { # N: the project of N runs, written once
	if [ ! -d "$dir/p$1/.kensa/runs" ]; then
		echo "writing $1 recorded runs to $dir/p$1" >&2
		"$bin/kensabench" -scenarios recorder/kensa/testdata/twoways/.kensa/scenarios -runs "$1" -o "$dir/p$1"
	fi
	echo "$dir/p$1"
}

echo "kensa import, a fresh store each time (median of $BENCH_RUNS; one warm-up run first)"
first_cpu= first_wall= first_n= max_rss=0
for n in $sizes; do
	p=$(project "$n")
	single "kensa import of $n runs" "rm -rf '$dir/store' && '$bin/oasis-replay' --store '$dir/store' kensa import '$p' >/dev/null"
	max_rss=$(awk -v a="$max_rss" -v b="$rss_a_kib" 'BEGIN { print (b > a ? b : a) }')
	if [ -z "$first_n" ]; then
		first_n=$n first_cpu=$cpu_a first_wall=$wall_a
	else
		awk -v n="$n" -v f="$first_n" -v w="$wall_a" -v fw="$first_wall" -v c="$cpu_a" -v fc="$first_cpu" \
			'BEGIN { printf "  %d runs / %d runs: wall %.2f×, cpu %.2f× (for %.1f× the runs; goal ≤ 4.5× for 4×)\n", n, f, w / fw, c / fc, n / f }'
		echo "  linear import: $(verdict "$wall_a / $first_wall <= 4.5 * ($n / $first_n) / 4")"
	fi
done
echo "  peak RSS at most 256 MiB: $(verdict "$max_rss <= 256 * 1024")"

if [ "$big" -gt 0 ]; then
	p=$(project "$big")
	BENCH_RUNS=1 single "kensa import of a manifest of $big runs" "rm -rf '$dir/store' && '$bin/oasis-replay' --store '$dir/store' kensa import '$p' >/dev/null"
	echo "  peak RSS at most 256 MiB: $(verdict "$rss_a_kib <= 256 * 1024")"
fi
