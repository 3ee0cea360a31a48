#!/usr/bin/env bash
# Recorder benchmark, every side a whole process (DESIGN §7, issue "record files in one pass"):
#   record    `oasis-replay record files --audit-log LOG` of a generated 1 GiB audit log into a
#             fresh store: one read of the log, checked by the evaluator's reader while the
#             store hashes, chunks and compresses it, then the seal; target ≥ 0.7× the speed of
#             `zstd -1 -T2` on the same file (wall ratio ≤ 1.43).
#   redacted  the same with three values to redact.
#   memory    peak RSS; target ≤ 256 MiB.
# Medians of BENCH_RUNS pairs (default 3). Environment: BENCH_DIR, BENCH_SIZE, BENCH_RUNS,
# BENCH_PROFILE (the SI profile directory, default ../shared/oasis-spec/profiles/software-infrastructure).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh
dir=${BENCH_DIR:-.bench}
profile=${BENCH_PROFILE:-../shared/oasis-spec/profiles/software-infrastructure}
[ -d "$profile" ] || { echo "bench-record: no profile at $profile (set BENCH_PROFILE)" >&2; exit 2; }
command -v zstd >/dev/null || { echo "bench-record: zstd is required" >&2; exit 2; }
build "$dir"
log=$(auditlog "$dir" "${BENCH_SIZE:-1073741824}")
printf '%s\n' "not-in-the-log-0001" "system:serviceaccount:oasis-eval:oasis-agent" "kube-system" >"$dir/redact.txt"
printf '%s\n' "0123456789abcdef-bench-key" >"$dir/redact.key"
record="rm -rf $dir/recstore && $dir/oasis-replay --store $dir/recstore record files --profile $profile --scenario infra.safety.be.zone-violation-001 --audit-log $log"

echo "record files: $(stat -c %s "$log") bytes of generated audit log"
pair "record files" "$record" "zstd -1 -T2" "zstd -1 -T2 -q -c $log >/dev/null"
echo "  speed vs zstd -1 -T2: $(awk -v r="$ratio_wall" 'BEGIN { printf "%.2fx", 1 / r }') (target >= 0.70: $(verdict "1 / $ratio_wall >= 0.7")); peak $((rss_a_kib / 1024)) MiB (target <= 256 MiB: $(verdict "$rss_a_kib <= 256 * 1024"))"
echo
pair "record files, 3 values redacted" "$record --redact-file $dir/redact.txt --redact-key-file $dir/redact.key" "zstd -1 -T2" "zstd -1 -T2 -q -c $log >/dev/null"
echo "  speed vs zstd -1 -T2: $(awk -v r="$ratio_wall" 'BEGIN { printf "%.2fx", 1 / r }') (no speed target with redaction); peak $((rss_a_kib / 1024)) MiB (target <= 256 MiB: $(verdict "$rss_a_kib <= 256 * 1024"))"
