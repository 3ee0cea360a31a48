#!/usr/bin/env bash
# Replay-as-provider benchmark: the whole re-run of the SI suite by the reference runner,
# oasisctl, timed as whole processes:
#   (a) recorded  oasisctl against the scripted SI world (tools/si-world replaying the oasisctl
#                 fixture run "safe") through `record proxy`, which seals the bundle: the
#                 recorded original
#   (b) replayed  oasisctl against `serve provider` of that bundle, with the same flags
#   (c) replay    `oasis-replay replay BUNDLE`: the verdict re-derived from the same bundle
# Each side starts its servers, waits until they listen, runs oasisctl and stops them
# (SIGINT: the proxy seals, the replay server exits 0). Printed: medians of BENCH_RUNS pairs
# and the ratios a/b and b/c (target b/c >= 10), after a check that the replayed run
# reproduces the recorded report (all but its date) and evidence artifacts byte for byte.
#
# Environment: OASISCTL (the oasisctl binary; without it the benchmark is skipped), BENCH_DIR
# (scratch directory, default .bench), BENCH_RUNS (pairs, default 5), OASIS_REPLAY_SHARED (the
# shared test data, default ../shared beside the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${OASISCTL:-}" ]; then
	echo "bench-serve-provider: skipped: set OASISCTL to an oasisctl binary"
	exit 0
fi
. scripts/benchlib.sh

shared=${OASIS_REPLAY_SHARED:-../shared}
profile=$shared/oasis-spec/profiles/software-infrastructure
run=$shared/fixtures/oasisctl/safe
[ -d "$run" ] || { echo "bench-serve-provider: shared test data not found at $shared (set OASIS_REPLAY_SHARED)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench-serve-provider: python3 is required" >&2; exit 2; }
dir=${BENCH_DIR:-.bench}/serve-provider
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
profile=$(cd "$profile" && pwd)
run=$(cd "$run" && pwd)
oasisctl=$(command -v "$OASISCTL")

echo "building $dir/oasis-replay and $dir/si-world"
CGO_ENABLED=0 go build -o "$dir/oasis-replay" ./cmd/oasis-replay
go build -o "$dir/si-world" ./tools/si-world

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
world_provider=$(free_port) world_agent=$(free_port) provider=$(free_port) agent=$(free_port)

# The two sides, as scripts: OUT is oasisctl's output directory.
cat >"$dir/common.sh" <<EOS
set -eu
wait_port() { # at most 30 s
	for _ in \$(seq 6000); do (exec 3<>"/dev/tcp/127.0.0.1/\$1") 2>/dev/null && return; sleep 0.005; done
	echo "nothing listens on 127.0.0.1:\$1" >&2; exit 1
}
runner() {
	"$oasisctl" run --profile "$profile" --provider-url "http://127.0.0.1:$provider" --agent-adapter http \\
		--agent-url "http://127.0.0.1:$agent" --tier 1 --format json --output "\$1/verdict.json" \\
		--agent-principal system:serviceaccount:oasis-agents:scripted-agent >"\$1.log" 2>&1
}
EOS
cat >"$dir/recorded.sh" <<EOS
. "$dir/common.sh"
OUT=\$1 STORE=\$2
rm -rf "\$OUT"; mkdir -p "\$OUT"
"$dir/si-world" --run "$run" --provider "127.0.0.1:$world_provider" --agent "127.0.0.1:$world_agent" 2>/dev/null &
world=\$!
"$dir/oasis-replay" --store "\$STORE" record proxy --profile "$profile" --tag live \\
	--provider "http://127.0.0.1:$world_provider" --agent "http://127.0.0.1:$world_agent" \\
	--listen-provider "127.0.0.1:$provider" --listen-agent "127.0.0.1:$agent" --idle 1h >"\$OUT.digest" 2>"\$OUT.proxy.log" &
proxy=\$!
wait_port $world_agent; wait_port $agent
runner "\$OUT"
kill -INT \$proxy; wait \$proxy
kill \$world; wait \$world || true
EOS
cat >"$dir/replayed.sh" <<EOS
. "$dir/common.sh"
OUT=\$1 STORE=\$2
rm -rf "\$OUT"; mkdir -p "\$OUT"
"$dir/oasis-replay" --store "\$STORE" serve provider live \\
	--listen-provider "127.0.0.1:$provider" --listen-agent "127.0.0.1:$agent" 2>"\$OUT.serve.log" &
server=\$!
wait_port $agent
runner "\$OUT"
kill -INT \$server; wait \$server
EOS

echo "recording the safe run live ($dir/store)"
bash "$dir/recorded.sh" "$dir/recorded" "$dir/store"
bash "$dir/replayed.sh" "$dir/replayed" "$dir/store"
same=yes
for f in "$dir/recorded"/evidence-*.json; do
	cmp -s "$f" "$dir/replayed/${f##*/}" || { same=no; echo "  differs: ${f##*/}"; }
done
strip_date() { grep -v '"date":' "$1"; }
if ! diff <(strip_date "$dir/recorded/verdict.json") <(strip_date "$dir/replayed/verdict.json") >/dev/null; then
	same=no
	echo "  differs: verdict.json beyond its date"
fi
echo "reproduced: $same ($(ls "$dir/recorded" | grep -c '^evidence-') evidence artifacts, verdict.json all but its date)"
tail -1 "$dir/replayed.serve.log"

echo
echo "whole processes, median of $BENCH_RUNS pairs"
pair "(a) recorded: through record proxy" "bash $dir/recorded.sh $dir/a $dir/store-a" \
	"(b) replayed: against serve provider" "bash $dir/replayed.sh $dir/b $dir/store"
pair "(b) replayed: against serve provider" "bash $dir/replayed.sh $dir/b $dir/store" \
	"(c) replay BUNDLE" "$dir/oasis-replay --store $dir/store replay live"
echo "    b/c $(verdict "$ratio_wall >= 10") (target >= 10)"
