#!/usr/bin/env bash
# Redaction benchmark, side by side as whole processes on the same generated 1 GiB Kubernetes
# audit log (the one bench-record.sh uses), with three values to redact, two of which occur
# hundreds of thousands of times:
#   redact   tools/redactbench: the log streamed through redact.Redactor.Reader, every
#            encoding of every value looked for (plain, form, hex, base64 at the three
#            alignments in both alphabets, through JSON and percent escapes), into nothing.
#   grep     `grep -F -c -f VALUES LOG`: the same values as plain fixed strings only, the
#            yardstick of a multi-string search over the same bytes.
# benchlib.sh runs them in turn, whole processes, and prints medians and the A/B ratio.
#
# Environment: BENCH_DIR (default .bench), BENCH_SIZE (bytes, default 1 GiB), BENCH_RUNS
# (default 5, read by benchlib.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}
size=${BENCH_SIZE:-1073741824}
. scripts/benchlib.sh
for tool in grep; do
	command -v "$tool" >/dev/null || { echo "bench-redact: $tool is required" >&2; exit 2; }
done
mkdir -p "$dir"
go build -o "$dir/storebench" ./tools/storebench
go build -o "$dir/redactbench" ./tools/redactbench
log="$dir/audit-$size.jsonl"
if [ ! -f "$log" ]; then
	echo "generating $log ($size bytes)..."
	"$dir/storebench" gen -size "$size" -seed 1 -o "$log"
fi
printf '%s\n' "not-in-the-log-0001" "system:serviceaccount:oasis-eval:oasis-agent" "kube-system" >"$dir/redact.txt"
printf '%s\n' "0123456789abcdef-bench-key" >"$dir/redact.key"
cat "$log" >/dev/null # warm the page cache

echo "A: redactbench (every encoding); B: grep -F -c (plain only); $(stat -c %s "$log") bytes"
pair "redactbench (every encoding)" "$dir/redactbench -values $dir/redact.txt -key $dir/redact.key $log" \
	"grep -F -c (plain only)" "grep -F -c -f $dir/redact.txt $log"
echo "  redaction / grep -F: $(awk -v r="$ratio_wall" 'BEGIN { printf "%.2fx", r }') (no target: DESIGN §7 sets no speed budget for redaction)"
