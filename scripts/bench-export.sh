#!/usr/bin/env bash
# Export benchmark, every side a whole process (DESIGN §5, §7):
#   export  `oasis-replay bundle export` of the bundle bench-evaluate.sh records (a generated
#           1 GiB audit log and its evidence) into one archive (tar, zstd), against
#           `tar cf - LOG | zstd` of the same log; targets ≤ 1.1× its time and ≤ 1.1× its size.
# Medians of BENCH_RUNS pairs (default 3). Environment: BENCH_DIR, BENCH_SIZE, BENCH_RUNS,
# BENCH_PROFILE.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh
dir=${BENCH_DIR:-.bench}
store="$dir/evalstore"
[ -d "$store" ] || BENCH_RUNS=1 ./scripts/bench-evaluate.sh >/dev/null # records the bundle
log=$(auditlog "$dir" "${BENCH_SIZE:-1073741824}")
build "$dir"
echo "export of a bundle holding $(stat -c %s "$log") bytes of audit log"
pair "bundle export" "$dir/oasis-replay --store $store bundle export -o $dir/export.bundle bench" \
	"tar | zstd" "tar cf - -C $(dirname "$log") $(basename "$log") | zstd -q >$dir/export.tar.zst"
echo "  export / tar | zstd: $(awk -v r="$ratio_wall" 'BEGIN { printf "%.2fx", r }') (target <= 1.1: $(verdict "$ratio_wall <= 1.1")); peak $((rss_a_kib / 1024)) MiB"
archive=$(stat -c %s "$dir/export.bundle") tarzst=$(stat -c %s "$dir/export.tar.zst")
echo "  archive $archive bytes, tar | zstd $tarzst bytes: $(awk -v a="$archive" -v t="$tarzst" 'BEGIN { printf "%.2fx", a / t }') (target <= 1.1: $(verdict "$archive / $tarzst <= 1.1"))"
