#!/usr/bin/env bash
# Sharding benchmark (issue 20, deliverable 6): kensa replay of BENCH_SHARD_RUNS (default
# 40,000) Kensa runs by one process, against the same work split between two processes with
# --shard 0/2 and --shard 1/2 started together, every side a whole process. Goal of the issue:
# the two shards' wall time (until both have finished) ≤ 0.6× the one process's.
#
# Data (deterministic, under BENCH_DIR, default .bench): tools/kensabench writes a project of
# BENCH_SHARD_RUNS similar runs (the five scenarios of recorder/kensa/testdata/twoways), and
# kensa import seals them. Every side replays with --no-store, so that the processes only read
# the store (read-only opens go together) and each side does the same work each time.
#
# Two settings, since one process already evaluates runs on every core it is given:
#   - "one core per process": each process is held to one CPU with taskset and GOMAXPROCS=1,
#     as each pod of an Indexed Job gets its own cores (resources.requests.cpu: 1): the one
#     process on CPU 0, the shards on CPUs 0 and 1;
#   - "shared cores": no constraint, the processes share the machine's cores.
# Each side is run BENCH_RUNS times (median) in turn; the shards' output, merged by bundle, is
# checked byte for byte against the one process's first. Environment: BENCH_DIR,
# BENCH_SHARD_RUNS, BENCH_RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_RUNS:=3}"
. scripts/benchlib.sh

command -v taskset >/dev/null || { echo "bench: taskset is required (util-linux)" >&2; exit 2; }
[ "$(nproc)" -ge 2 ] || { echo "bench: two CPUs are required" >&2; exit 2; }
dir=${BENCH_DIR:-.bench}/shard
runs=${BENCH_SHARD_RUNS:-40000}
rm -rf "$dir"
mkdir -p "$dir/bin"
dir=$(cd "$dir" && pwd)
bin=$dir/bin

echo "building $bin"
CGO_ENABLED=0 go build -o "$bin/oasis-replay" ./cmd/oasis-replay
go build -o "$bin/kensabench" ./tools/kensabench
echo "writing $runs Kensa runs and importing them into $dir/store"
"$bin/kensabench" -scenarios recorder/kensa/testdata/twoways/.kensa/scenarios -runs "$runs" -o "$dir/project"
"$bin/oasis-replay" --store "$dir/store" kensa import "$dir/project" >/dev/null 2>"$dir/import.log"

or="$bin/oasis-replay --store $dir/store kensa replay --no-store"
# The output of the one process and of the two shards merged (each shard's lines are in digest
# order, and digests are the partition key, so a sort of both is the merge).
$or >"$dir/whole.txt"
$or --shard 0/2 >"$dir/shard0.txt" & $or --shard 1/2 >"$dir/shard1.txt"; wait
sort "$dir/shard0.txt" "$dir/shard1.txt" >"$dir/merged.txt"
if cmp -s <(sort "$dir/whole.txt") "$dir/merged.txt" && [ "$(wc -l <"$dir/whole.txt")" -eq "$runs" ]; then
	same="identical ($runs lines)"
else
	same="DIFFERENT"
fi

echo
echo "kensa replay --no-store of $runs runs; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "one core per process (taskset, GOMAXPROCS=1):"
pair "2 processes, --shard 0/2 on CPU 0, 1/2 on CPU 1" \
	"GOMAXPROCS=1 taskset -c 0 $or --shard 0/2 >/dev/null & GOMAXPROCS=1 taskset -c 1 $or --shard 1/2 >/dev/null; wait" \
	"1 process on CPU 0" "GOMAXPROCS=1 taskset -c 0 $or >/dev/null"
pinned=$ratio_wall
echo "shared cores:"
pair "2 processes, --shard 0/2 and 1/2" "$or --shard 0/2 >/dev/null & $or --shard 1/2 >/dev/null; wait" \
	"1 process" "$or >/dev/null"
shared=$ratio_wall

echo
echo "two shards vs one process, one core each: $pinned× the wall time: $(verdict "$pinned <= 0.6") (goal ≤ 0.6×)"
echo "two shards vs one process, sharing $(nproc) cores: $shared× the wall time"
echo "shards' output merged vs the one process's: $same"
