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
# The two sizes are timed in pairs, the larger then the smaller, BENCH_RUNS times after one
# warm-up of each (scripts/benchlib.sh `pair`), and the ratio is the median of the per-pair
# ratios: on a machine shared with other work, a ratio of two medians taken minutes apart says
# more about the load than about the import. CPU time (user + system) is reported beside wall
# time: the load distorts it less.
#
# Environment: BENCH_DIR, BENCH_RUNS (pairs, default 5), BENCH_IMPORT_SIZES (the two sizes,
# default "10000 40000"), BENCH_IMPORT_BIG (the manifest imported once at the end, default
# 100000; 0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=5}"
. scripts/benchlib.sh

dir=${BENCH_DIR:-.bench}/kensa-import
read -r small large <<<"${BENCH_IMPORT_SIZES:-10000 40000}"
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

import() { # N: the command importing the project of N runs into a fresh store
	echo "rm -rf '$dir/store$1' && '$bin/oasis-replay' --store '$dir/store$1' kensa import '$(project "$1")' >/dev/null"
}

project "$small" >/dev/null
project "$large" >/dev/null
echo "kensa import, a fresh store each time ($BENCH_RUNS pairs, $large runs then $small runs, after one warm-up of each)"
pair "kensa import of $large runs" "$(import "$large")" "kensa import of $small runs" "$(import "$small")"
rm -rf "$dir/store$small" "$dir/store$large"
awk -v n="$large" -v f="$small" -v w="$ratio_wall" -v c="$ratio_cpu" \
	'BEGIN { printf "  %d runs / %d runs: wall %.2f×, cpu %.2f× (median of the pairs\x27 ratios, for %.1f× the runs; goal ≤ 4.5× for 4×)\n", n, f, w, c, n / f }'
echo "  linear import (wall): $(verdict "$ratio_wall <= 4.5 * ($large / $small) / 4")"
echo "  linear import (cpu):  $(verdict "$ratio_cpu <= 4.5 * ($large / $small) / 4")"
echo "  peak RSS at most 256 MiB: $(verdict "$max_rss_kib <= 256 * 1024") (highest of every run: $(awk -v r="$max_rss_kib" 'BEGIN { printf "%.1f", r / 1024 }') MiB)"

if [ "$big" -gt 0 ]; then
	project "$big" >/dev/null
	BENCH_RUNS=1 single "kensa import of a manifest of $big runs" "$(import "$big")"
	rm -rf "$dir/store$big"
	echo "  peak RSS at most 256 MiB: $(verdict "$rss_a_kib <= 256 * 1024")"
fi
