#!/usr/bin/env bash
# Listing a store of 1,000 bundles, as a whole process (issue target: ≤ 50 ms):
#   `oasis-replay bundle ls` over a store where `storebench bundles` sealed 1,000 small bundles,
#   opening and closing the store for each as 1,000 record commands would; set beside
#   `oasis-replay --version`, the cost of starting the program at all.
# Medians of BENCH_RUNS pairs (default 20). Environment: BENCH_DIR, BENCH_RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=20}"
. scripts/benchlib.sh
dir=${BENCH_DIR:-.bench}
build "$dir"
st="$dir/ls1000"
# A store written by a build of an earlier store format (before 4) is written again.
[ -f "$st.v4" ] || rm -rf "$st"
if [ "$("$dir/oasis-replay" --store "$st" bundle ls 2>/dev/null | wc -l)" != 1000 ]; then
	rm -rf "$st"
	echo "sealing 1000 bundles into $st..." >&2
	"$dir/storebench" bundles -store "$st" -n 1000
	touch "$st.v4"
fi
pair "bundle ls (1000 bundles)" "$dir/oasis-replay --store $st bundle ls >/dev/null" "oasis-replay --version" "$dir/oasis-replay --version >/dev/null"
echo "  bundle ls: $(awk -v w="$wall_a" 'BEGIN { printf "%.0f ms", 1000 * w }') median (target <= 50 ms: $(verdict "$wall_a <= 0.05")); the program starts in $(awk -v w="$wall_b" 'BEGIN { printf "%.0f ms", 1000 * w }')"
