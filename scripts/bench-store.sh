#!/usr/bin/env bash
# Store benchmark, side by side with reference tools, every side a whole process (DESIGN §7):
#   ingest  storebench ingest: PutBlob+Sync of a generated 1 GiB Kubernetes audit log into a
#           fresh on-disk store, against `zstd -1 -T2` compressing the same file; target ≥ 0.7×
#           its speed (wall ratio ≤ 1.43).
#   verify  `oasis-replay store fsck` of that store (every byte re-hashed), against `sha256sum`
#           of the same file; target at least its speed (wall ratio ≤ 1).
#   memory  peak RSS of ingest and fsck; target ≤ 256 MiB each.
# Medians of BENCH_RUNS pairs (default 3), see benchlib.sh. Environment: BENCH_DIR (default
# .bench; the generated log is kept there), BENCH_SIZE (default 1 GiB), BENCH_RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh
dir=${BENCH_DIR:-.bench}
build "$dir"
log=$(auditlog "$dir" "${BENCH_SIZE:-1073741824}")
bytes=$(stat -c %s "$log")

echo "ingest: $bytes bytes of generated audit log"
pair "ingest (storebench ingest, fresh store)" "rm -rf $dir/ingest && $dir/storebench ingest -store $dir/ingest $log" \
	"zstd -1 -T2" "zstd -1 -T2 -q -c $log >/dev/null"
ingest_ratio=$ratio_wall ingest_rss=$rss_a_kib
echo "  speed vs zstd -1 -T2: $(awk -v r="$ingest_ratio" 'BEGIN { printf "%.2fx", 1 / r }') (target >= 0.70: $(verdict "1 / $ingest_ratio >= 0.7")); peak $((ingest_rss / 1024)) MiB (target <= 256 MiB: $(verdict "$ingest_rss <= 256 * 1024"))"
echo
echo "verify: store fsck of that store"
pair "store fsck" "$dir/oasis-replay --store $dir/ingest store fsck" "sha256sum" "sha256sum $log >/dev/null"
echo "  speed vs sha256sum: $(awk -v r="$ratio_wall" 'BEGIN { printf "%.2fx", 1 / r }') (target >= 1: $(verdict "$ratio_wall <= 1")); peak $((rss_a_kib / 1024)) MiB (target <= 256 MiB: $(verdict "$rss_a_kib <= 256 * 1024"))"
echo "  store on disk: $(du -sb "$dir/ingest" | cut -f1) bytes for $bytes"
