#!/usr/bin/env bash
# Remotes benchmark (issue 20, deliverable 6): bundles pushed to and pulled from a real OCI
# registry (BENCH_REMOTE=registry, the default) or S3 gateway (BENCH_REMOTE=s3) on this
# machine, every side a whole process.
#
# Data (deterministic, under BENCH_DIR, default .bench): tools/kensabench writes a project of
# BENCH_REMOTE_RUNS (default 1,000) similar Kensa runs (the five scenarios of
# recorder/kensa/testdata/twoways, one scripted agent), kensa import seals them, and kensa replay
# stores a verdict and a receipt for each, so that each bundle carries one receipt referrer.
# The registry is Debian's docker-registry (distribution 2.8) on 127.0.0.1, storage in
# BENCH_DIR, started and stopped by this script; it has no referrers API, so receipts take the
# tag-schema fallback. The S3 gateway is versitygw with its posix backend (go install
# github.com/versity/versitygw/cmd/versitygw@v1.8.0), storage in BENCH_DIR; its requests are
# not counted (it keeps no access log).
#
#  1. bundle push --all into the empty registry: time, and the bytes uploaded (blobs and
#     manifests, as the push reports them) beside the store's sizes (store stats: unique is
#     the content once, uncompressed; stored is what the store occupies, compressed). Goal of
#     the issue: uploaded ≤ 1.1× stored.
#  2. bundle push --all again: goal no blob uploaded, ≤ 2 s.
#  3. bundle pull --all into an empty store, then kensa replay there: time, and the
#     replay's verdict lines compared with the source store's (they must be byte-identical).
#
# Pushes and pulls are timed once each (a second push is not the first one again); replays
# with BENCH_RUNS runs (median). Environment: BENCH_DIR, BENCH_REMOTE, BENCH_REMOTE_RUNS,
# BENCH_RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh

kind=${BENCH_REMOTE:-registry}
case $kind in
registry) command -v docker-registry >/dev/null || { echo "bench: docker-registry is required (apt-get install docker-registry)" >&2; exit 2; } ;;
s3)
	versitygw=$(command -v versitygw || echo "$(go env GOPATH)/bin/versitygw")
	[ -x "$versitygw" ] || { echo "bench: versitygw is required (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0)" >&2; exit 2; }
	;;
*) echo "bench: BENCH_REMOTE is registry or s3, not $kind" >&2; exit 2 ;;
esac
dir=${BENCH_DIR:-.bench}/remote-$kind
runs=${BENCH_REMOTE_RUNS:-1000}
rm -rf "$dir"
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
bin=$dir/bin
export XDG_CONFIG_HOME=$dir/config

echo "building $bin"
CGO_ENABLED=0 go build -o "$bin/oasis-replay" ./cmd/oasis-replay
go build -o "$bin/kensabench" ./tools/kensabench
echo "writing $runs Kensa runs, importing and replaying them into $dir/store"
"$bin/kensabench" -scenarios recorder/kensa/testdata/twoways/.kensa/scenarios -runs "$runs" -o "$dir/project"
"$bin/oasis-replay" --store "$dir/store" kensa import "$dir/project" >/dev/null 2>"$dir/import.log"
"$bin/oasis-replay" --store "$dir/store" kensa replay >"$dir/replay-source.txt"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
if [ "$kind" = registry ]; then
	cat >"$dir/registry.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $dir/registry
http:
  addr: 127.0.0.1:$port
EOF
	docker-registry serve "$dir/registry.yml" >"$dir/registry.log" 2>&1 &
	server_pid=$!
	ready=http://127.0.0.1:$port/v2/
	url=oci://127.0.0.1:$port/bench/kensa
	server="docker-registry $(docker-registry --version | awk '{print $3}')"
	data=$dir/registry
else
	mkdir -p "$dir/s3/bench"
	export AWS_ACCESS_KEY_ID=benchaccess AWS_SECRET_ACCESS_KEY=benchsecretkey AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:$port
	"$versitygw" --access "$AWS_ACCESS_KEY_ID" --secret "$AWS_SECRET_ACCESS_KEY" --port 127.0.0.1:$port posix "$dir/s3" >"$dir/registry.log" 2>&1 &
	server_pid=$!
	ready=http://127.0.0.1:$port/
	url=s3://bench/kensa
	server="versitygw (posix backend)"
	data=$dir/s3
fi
trap 'kill $server_pid 2>/dev/null; rm -rf "$bench_tmp"' EXIT
for _ in $(seq 100); do
	curl -s "$ready" >/dev/null 2>&1 && break
	sleep 0.1
done
"$bin/oasis-replay" --store "$dir/store" remote add bench "$url" --plain-http

# requests: how many HTTP requests the registry has answered (its access log; 0 for S3).
requests() { grep -c 'response completed' "$dir/registry.log" || true; }
# registry_cpu: the server's CPU seconds so far.
registry_cpu() { ps -o times= -p "$server_pid" | tr -d ' '; }

# timed NAME COMMAND: runs COMMAND once as a whole process; prints its wall and CPU time, the
# registry's CPU time and requests answered meanwhile, and the command's last line.
timed() {
	local start end r0 c0
	r0=$(requests)
	c0=$(registry_cpu)
	start=$(date +%s.%N)
	/usr/bin/time -f "%U %S" -o "$dir/time" sh -c "$2" >"$dir/out" 2>"$dir/err" || { echo "bench: $1 failed" >&2; cat "$dir/err" >&2; exit 1; }
	end=$(date +%s.%N)
	wall=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
	cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$dir/time")
	printf '  %-28s wall %8.3f s  cpu %6.2f s  server cpu %4d s  %6d requests  %s\n' "$1" "$wall" "$cpu" \
		"$(($(registry_cpu) - c0))" "$(($(requests) - r0))" "$(tail -1 "$dir/out")"
}

echo
"$bin/oasis-replay" --store "$dir/store" store stats --json >"$dir/stats.json"
unique=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["unique"])' "$dir/stats.json")
stored=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stored"])' "$dir/stats.json")
echo "store: $runs bundles, unique content $unique B, stored $stored B (store stats --json)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "pushing to $url ($server)"
timed "push (empty remote)" "$bin/oasis-replay --store $dir/store bundle push bench --all --json >$dir/push1.json; echo pushed"
push1_wall=$wall
read -r up_blobs blobs up_bytes receipts < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["blobs_uploaded"], r["blobs"], r["uploaded_bytes"], r["receipts"])' "$dir/push1.json")
echo "    $up_blobs of $blobs blobs uploaded, $up_bytes B in all, $receipts receipt referrers"
timed "push again" "$bin/oasis-replay --store $dir/store bundle push bench --all"
push2_wall=$wall
push2=$(tail -1 "$dir/out")
registry_bytes=$(du -sb "$data" | awk '{print $1}')

timed "pull into an empty store" "$bin/oasis-replay --store $dir/pulled bundle pull bench --all | tail -1"
timed "kensa replay (pulled store)" "$bin/oasis-replay --store $dir/pulled kensa replay >$dir/replay-pulled.txt; echo replayed"
if cmp -s "$dir/replay-source.txt" "$dir/replay-pulled.txt"; then
	same="identical"
else
	same="DIFFERENT"
fi

echo
echo "first push: $push1_wall s; uploaded $up_bytes B = $(awk -v u="$up_bytes" -v s="$unique" 'BEGIN { printf "%.3f", u / s }')× the unique content, $(awk -v u="$up_bytes" -v s="$stored" 'BEGIN { printf "%.2f", u / s }')× the stored size: $(verdict "$up_bytes <= 1.1 * $stored") (goal ≤ 1.1× stored)"
echo "server disk after both pushes: $registry_bytes B (blobs, manifests, tags, upload bookkeeping)"
echo "second push: $push2 in $push2_wall s: $(verdict "$push2_wall <= 2") (goal ≤ 2 s), no blob uploaded: $(case "$push2" in *": 0 of "*) echo ok ;; *) echo MISSED ;; esac)"
echo "kensa replay output of the pulled store vs the source store: $same"
