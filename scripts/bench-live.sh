#!/usr/bin/env bash
# Live recording memory (DESIGN §7: a live recording stays within 64 MiB whatever the body
# sizes), measured on the whole process: `oasis-replay record proxy` runs under /usr/bin/time
# in front of a plain HTTP server (python3 -m http.server) while curl pushes BENCH_GIB GiB
# through it: a 1 GiB text file (longer than the recording limit: recorded truncated), 64 MiB
# random files (recorded whole, in base64) and 64 MiB request bodies (recorded whole). Then
# SIGINT, and the recorder seals into a fresh store.
#
# Printed: the peak RSS while the bodies stream through (VmHWM of the recorder before the
# stop), the peak anonymous memory over the whole run (RssAnon sampled every 20 ms, sealing
# included), and /usr/bin/time's maximum resident set size of the whole process, which also
# counts the pages of the store's memory-mapped files written while sealing (page cache).
#
# Environment: BENCH_DIR (scratch directory, default .bench), BENCH_PROFILE (the SI profile
# directory, default ../shared/oasis-spec/profiles/software-infrastructure).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${BENCH_DIR:-.bench}/live
profile=${BENCH_PROFILE:-../shared/oasis-spec/profiles/software-infrastructure}
for tool in python3 curl /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-live: $tool is required" >&2; exit 2; }
done
[ -d "$profile" ] || { echo "bench-live: no profile at $profile (set BENCH_PROFILE)" >&2; exit 2; }
mkdir -p "$dir/www"
go build -o "$dir/oasis-replay" ./cmd/oasis-replay
go build -o "$dir/storebench" ./tools/storebench
[ -f "$dir/www/log.jsonl" ] || "$dir/storebench" gen -size 1073741824 -seed 1 -o "$dir/www/log.jsonl"
[ -f "$dir/www/random.bin" ] || head -c 67108864 /dev/urandom >"$dir/www/random.bin"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
up=$(free_port) prov=$(free_port) agent=$(free_port)
python3 -m http.server "$up" --bind 127.0.0.1 --directory "$dir/www" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
rm -rf "$dir/store"
/usr/bin/time -f "%e %M" -o "$dir/time" "$dir/oasis-replay" --store "$dir/store" record proxy --profile "$profile" \
	--provider "http://127.0.0.1:$up" --agent "http://127.0.0.1:$up" \
	--listen-provider "127.0.0.1:$prov" --listen-agent "127.0.0.1:$agent" --idle 1h >"$dir/out" 2>"$dir/err" &
timer=$!
until curl -s -o /dev/null "http://127.0.0.1:$up/" && pid=$(pgrep -P "$timer" oasis-replay) && curl -s -o /dev/null "http://127.0.0.1:$prov/"; do
	sleep 0.2
done

status_kib() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$pid/status" 2>/dev/null || true; }
: >"$dir/anon"
( while kill -0 "$pid" 2>/dev/null; do status_kib RssAnon >>"$dir/anon"; sleep 0.02; done ) &
sampler=$!

pushed=0
curl -sf -o /dev/null "http://127.0.0.1:$prov/log.jsonl" && pushed=$((pushed + 1024))
for _ in 1 2 3 4 5 6 7 8; do
	curl -sf -o /dev/null "http://127.0.0.1:$prov/random.bin" && pushed=$((pushed + 64))
	curl -s -o /dev/null -H 'Content-Type: application/octet-stream' --data-binary "@$dir/www/random.bin" "http://127.0.0.1:$prov/v1/inject-state" || true
	pushed=$((pushed + 64))
done
recording=$(status_kib VmHWM)
kill -INT "$pid"
wait "$timer"
wait "$sampler" || true
read -r wall maxrss <"$dir/time"
anon=$(sort -n "$dir/anon" | tail -1)
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }
echo "pushed through record proxy:        $pushed MiB"
echo "peak RSS while recording (VmHWM):   $(mib "$recording") (target <= 64 MiB: $(awk -v k="$recording" 'BEGIN { print (k <= 64 * 1024) ? "ok" : "MISSED" }'))"
echo "peak anonymous memory (RssAnon):    $(mib "$anon") (target <= 64 MiB: $(awk -v k="$anon" 'BEGIN { print (k <= 64 * 1024) ? "ok" : "MISSED" }'))"
echo "max RSS of the process (time -v):   $(mib "$maxrss")  (includes the store's mapped files)"
echo "wall time, recording and sealing:   ${wall} s"
echo "bundle: $(head -1 "$dir/out")"
grep -E '^sealed' "$dir/err" || true
