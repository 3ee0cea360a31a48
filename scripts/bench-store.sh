#!/usr/bin/env bash
# Store benchmark, side by side with reference tools (DESIGN §7):
#   ingest  PutBlob+Sync of a generated 1 GiB Kubernetes audit log into a fresh on-disk store,
#           against `zstd -1 -T2` compressing the same file to /dev/null (the compressor's own
#           speed); target ≥ 0.7×.
#   verify  store.Check (fsck) of that store, against `sha256sum` of the same file;
#           target ≥ 0.5×.
#   memory  peak RSS (VmHWM) of the ingest and verify processes; target ≤ 256 MiB each.
#
# Each tool runs BENCH_RUNS times, alternating, and the best run of each counts, so that a
# burst of load from other processes does not decide the ratio. CPU seconds (user+sys) of the
# best runs are printed too: they do not depend on load.
#
# Environment: BENCH_DIR (scratch directory, default .bench under the repository; the
# generated log is kept there between runs), BENCH_SIZE (bytes, default 1 GiB), BENCH_RUNS
# (default 3), BENCH_CPUPROFILE=1 (write ingest.prof and verify.prof into BENCH_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}
size=${BENCH_SIZE:-1073741824}
runs=${BENCH_RUNS:-3}

for tool in zstd sha256sum /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-store: $tool is required" >&2; exit 2; }
done
mkdir -p "$dir"
go build -o "$dir/storebench" ./tools/storebench
log="$dir/audit-$size.jsonl"
if [ ! -f "$log" ]; then
	echo "generating $log ($size bytes)..."
	"$dir/storebench" gen -size "$size" -seed 1 -o "$log"
fi
bytes=$(stat -c %s "$log")
cat "$log" >/dev/null # warm the page cache: every tool reads the file from memory

# timed CMD...: runs CMD under /usr/bin/time, keeping its stdout in $dir/out; sets
# wall, cpu and rss_kib.
timed() {
	/usr/bin/time -f "%e %U %S %M" -o "$dir/time" "$@" >"$dir/out"
	read -r wall user sys rss_kib <"$dir/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
}
field() { sed -n "s/^$1=//p" "$dir/out"; }
# better A B: is A (seconds) strictly less than B, or B unset?
better() { [ -z "$2" ] || awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

best_zstd= best_ingest= best_sha= best_verify=
ingest_rss=0 verify_rss=0
for run in $(seq "$runs"); do
	timed zstd -1 -T2 -q -c "$log"
	if better "$wall" "$best_zstd"; then best_zstd=$wall zstd_cpu=$cpu; fi

	rm -rf "$dir/store"
	profile=()
	[ "${BENCH_CPUPROFILE:-}" = 1 ] && [ "$run" = 1 ] && profile=(-cpuprofile "$dir/ingest.prof")
	timed "$dir/storebench" ingest -store "$dir/store" "${profile[@]}" "$log"
	s=$(field ingest_seconds)
	if better "$s" "$best_ingest"; then best_ingest=$s ingest_cpu=$cpu; fi
	ingest_rss=$(( $(field ingest_vmhwm_kib) > ingest_rss ? $(field ingest_vmhwm_kib) : ingest_rss ))

	timed sha256sum "$log"
	if better "$wall" "$best_sha"; then best_sha=$wall sha_cpu=$cpu; fi

	profile=()
	[ "${BENCH_CPUPROFILE:-}" = 1 ] && [ "$run" = 1 ] && profile=(-cpuprofile "$dir/verify.prof")
	timed "$dir/storebench" verify -store "$dir/store" "${profile[@]}"
	s=$(field verify_seconds)
	if better "$s" "$best_verify"; then best_verify=$s verify_cpu=$cpu; fi
	verify_rss=$(( $(field verify_vmhwm_kib) > verify_rss ? $(field verify_vmhwm_kib) : verify_rss ))
	echo "run $run of $runs done" >&2
done
stored=$(du -sb "$dir/store" | cut -f1)

awk -v bytes="$bytes" -v stored="$stored" -v runs="$runs" \
	-v zstd="$best_zstd" -v ingest="$best_ingest" -v sha="$best_sha" -v verify="$best_verify" \
	-v zstd_cpu="$zstd_cpu" -v ingest_cpu="$ingest_cpu" -v sha_cpu="$sha_cpu" -v verify_cpu="$verify_cpu" \
	-v ingest_rss="$ingest_rss" -v verify_rss="$verify_rss" '
function mbps(s) { return bytes / s / 1e6 }
function verdict(ok) { return ok ? "ok" : "MISSED" }
BEGIN {
	printf "input: %d bytes of generated audit log; store on disk: %d bytes (%.1fx); best of %d runs\n\n", bytes, stored, bytes / stored, runs
	printf "%-34s %10s %8s %8s\n", "", "MB/s", "seconds", "CPU s"
	printf "%-34s %10.1f %8.3f %8.2f\n", "ingest (PutBlob+Sync)", mbps(ingest), ingest, ingest_cpu
	printf "%-34s %10.1f %8.3f %8.2f\n", "zstd -1 -T2 (to /dev/null)", mbps(zstd), zstd, zstd_cpu
	printf "%-34s %10.1f %8.3f %8.2f\n", "verify (store.Check)", mbps(verify), verify, verify_cpu
	printf "%-34s %10.1f %8.3f %8.2f\n\n", "sha256sum", mbps(sha), sha, sha_cpu
	ri = zstd / ingest; rv = sha / verify
	printf "ingest / zstd      %.2fx  (target >= 0.70)  %s\n", ri, verdict(ri >= 0.7)
	printf "verify / sha256sum %.2fx  (target >= 0.50)  %s\n", rv, verdict(rv >= 0.5)
	printf "peak RSS ingest    %d MiB (target <= 256)  %s\n", ingest_rss / 1024, verdict(ingest_rss <= 256 * 1024)
	printf "peak RSS verify    %d MiB (target <= 256)  %s\n", verify_rss / 1024, verdict(verify_rss <= 256 * 1024)
}'
