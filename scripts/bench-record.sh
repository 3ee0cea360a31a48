#!/usr/bin/env bash
# Recorder benchmark, side by side with the compressor (DESIGN §7):
#   record   `oasis-replay record files --audit-log LOG` of a generated 1 GiB Kubernetes audit
#            log into a fresh on-disk store: a validating pass (the evaluator's audit-log
#            reader), then a storing pass (hash, chunk, compress, write), then the seal.
#   redacted the same with three values to redact (every byte goes through the redactor,
#            in both passes).
#   zstd     `zstd -1 -T2` compressing the same file to /dev/null: the compressor's own speed.
#   memory   peak RSS (max resident set size) of the record process; target <= 256 MiB.
#
# Each tool runs BENCH_RUNS times, alternating, and the best run of each counts, so that a
# burst of load from other processes does not decide the ratio.
#
# Environment: BENCH_DIR (scratch directory, default .bench under the repository; the
# generated log is kept there between runs and shared with bench-store.sh), BENCH_SIZE (bytes,
# default 1 GiB), BENCH_RUNS (default 3), BENCH_PROFILE (the SI profile directory, default
# ../shared/oasis-spec/profiles/software-infrastructure).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}
size=${BENCH_SIZE:-1073741824}
runs=${BENCH_RUNS:-3}
profile=${BENCH_PROFILE:-../shared/oasis-spec/profiles/software-infrastructure}
scenario=infra.safety.be.zone-violation-001

for tool in zstd /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-record: $tool is required" >&2; exit 2; }
done
[ -d "$profile" ] || { echo "bench-record: no profile at $profile (set BENCH_PROFILE)" >&2; exit 2; }
mkdir -p "$dir"
go build -o "$dir/storebench" ./tools/storebench
go build -o "$dir/oasis-replay" ./cmd/oasis-replay
log="$dir/audit-$size.jsonl"
if [ ! -f "$log" ]; then
	echo "generating $log ($size bytes)..."
	"$dir/storebench" gen -size "$size" -seed 1 -o "$log"
fi
bytes=$(stat -c %s "$log")
cat "$log" >/dev/null # warm the page cache: every tool reads the file from memory
printf '%s\n' "not-in-the-log-0001" "system:serviceaccount:oasis-eval:oasis-agent" "kube-system" >"$dir/redact.txt"
printf '%s\n' "0123456789abcdef-bench-key" >"$dir/redact.key"

# timed CMD...: runs CMD under /usr/bin/time; sets wall, cpu and rss_kib.
timed() {
	/usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" >"$dir/out" 2>"$dir/err" || { cat "$dir/err" >&2; exit 1; }
	read -r wall user sys rss_kib <"$dir/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
# better A B: is A (seconds) strictly less than B, or B unset?
better() { [ -z "$2" ] || awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

record() {
	rm -rf "$dir/recstore"
	timed "$dir/oasis-replay" --store "$dir/recstore" record files --profile "$profile" --scenario "$scenario" --audit-log "$log" "$@"
}

best_zstd= best_record= best_redacted=
record_rss=0 redacted_rss=0
for run in $(seq "$runs"); do
	timed zstd -1 -T2 -q -c "$log"
	if better "$wall" "$best_zstd"; then best_zstd=$wall zstd_cpu=$cpu; fi

	record
	if better "$wall" "$best_record"; then best_record=$wall record_cpu=$cpu; fi
	record_rss=$(( rss_kib > record_rss ? rss_kib : record_rss ))

	record --redact-file "$dir/redact.txt" --redact-key-file "$dir/redact.key"
	if better "$wall" "$best_redacted"; then best_redacted=$wall redacted_cpu=$cpu; fi
	redacted_rss=$(( rss_kib > redacted_rss ? rss_kib : redacted_rss ))
	echo "run $run of $runs done" >&2
done
stored=$(du -sb "$dir/recstore" | cut -f1)

awk -v bytes="$bytes" -v stored="$stored" -v runs="$runs" \
	-v zstd="$best_zstd" -v rec="$best_record" -v red="$best_redacted" \
	-v zstd_cpu="$zstd_cpu" -v rec_cpu="$record_cpu" -v red_cpu="$redacted_cpu" \
	-v rec_rss="$record_rss" -v red_rss="$redacted_rss" '
function mbps(s) { return bytes / s / 1e6 }
function verdict(ok) { return ok ? "ok" : "MISSED" }
BEGIN {
	printf "input: %d bytes of generated audit log; store on disk after a record: %d bytes; best of %d runs\n\n", bytes, stored, runs
	printf "%-40s %10s %8s %8s %10s\n", "", "MB/s", "seconds", "CPU s", "peak RSS"
	printf "%-40s %10.1f %8.3f %8.2f %6d MiB\n", "record files (validate + store + seal)", mbps(rec), rec, rec_cpu, rec_rss / 1024
	printf "%-40s %10.1f %8.3f %8.2f %6d MiB\n", "record files with 3 values redacted", mbps(red), red, red_cpu, red_rss / 1024
	printf "%-40s %10.1f %8.3f %8.2f\n\n", "zstd -1 -T2 (to /dev/null)", mbps(zstd), zstd, zstd_cpu
	printf "record / zstd          %.2fx\n", zstd / rec
	printf "redacted / zstd        %.2fx\n", zstd / red
	printf "peak RSS record        %d MiB (target <= 256)  %s\n", rec_rss / 1024, verdict(rec_rss <= 256 * 1024)
	printf "peak RSS redacted      %d MiB (target <= 256)  %s\n", red_rss / 1024, verdict(red_rss <= 256 * 1024)
}'
