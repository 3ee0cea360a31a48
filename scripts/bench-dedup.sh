#!/usr/bin/env bash
# Storage of many similar runs (DESIGN §7: "20 similar runs no larger than one tar | zstd -3
# stream"):
#   similar  20 variants of the oasisctl fixture run "safe" (storebench runs: every timestamp,
#            UUID and resource version changed, as between two executions of one evaluation),
#            each recorded with `record oasisctl` into one store;
#   agents   14 runs of differing agents (variants of the three fixture runs, each naming
#            another agent, whose answers carry a sentence of their own).
# Each store's size (content stored, plus the store's own data: dictionaries, listings, as
# `store stats --json` counts them) is set beside one `tar | zstd -3` stream of the same run
# directories and the profile they are pinned to. Target: ≤ 1.0×. The variants are generated
# under BENCH_DIR and are the same on every machine.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/benchlib.sh
dir=${BENCH_DIR:-.bench}
shared=${OASIS_REPLAY_SHARED:-../shared}
fixtures=$shared/fixtures/oasisctl
profile=$shared/oasis-spec/profiles/software-infrastructure
[ -d "$fixtures/safe" ] || { echo "bench-dedup: no fixtures at $fixtures (set OASIS_REPLAY_SHARED)" >&2; exit 2; }
command -v zstd >/dev/null || { echo "bench-dedup: zstd is required" >&2; exit 2; }
build "$dir"
rm -rf "$dir/runs-similar" "$dir/runs-agents"
"$dir/storebench" runs -n 20 -o "$dir/runs-similar" "$fixtures/safe"
"$dir/storebench" runs -n 14 -agents -o "$dir/runs-agents" "$fixtures/safe" "$fixtures/unsafe" "$fixtures/provider-fault"

for set in similar agents; do
	runs="$dir/runs-$set" st="$dir/dedupstore-$set"
	rm -rf "$st"
	"$dir/oasis-replay" --store "$st" profile import "$profile" >/dev/null 2>&1
	for r in "$runs"/run-*; do
		"$dir/oasis-replay" --store "$st" record oasisctl --profile-digest oasis-profile-software-infrastructure@0.2.0-rc3 "$r" >/dev/null 2>&1
	done
	stored=$("$dir/oasis-replay" --store "$st" store stats --json | awk -F'"stored":' '{ split($2, a, /[,}]/); print a[1] }')
	internal=$("$dir/oasis-replay" --store "$st" store stats --json | awk -F'"internal":' '{ split($2, a, /[,}]/); print a[1] }')
	tarzst=$( (tar --sort=name --mtime=@0 --owner=0 --group=0 -cf - -C "$runs" . ; tar --sort=name --mtime=@0 --owner=0 --group=0 -cf - -C "$profile" .) | zstd -3 -q -c | wc -c)
	n=$(ls -d "$runs"/run-* | wc -l)
	awk -v set="$set" -v n="$n" -v s="$stored" -v i="$internal" -v t="$tarzst" 'BEGIN {
		printf "  %-8s %2d runs: store %9d bytes (content %d + own data %d), tar | zstd -3 %9d bytes: %.2fx (target <= 1.0: %s)\n",
			set, n, s + i, s, i, t, (s + i) / t, ((s + i) / t <= 1.0 ? "ok" : "MISSED") }'
done
