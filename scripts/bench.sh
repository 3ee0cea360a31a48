#!/usr/bin/env bash
# Every side-by-side benchmark of DESIGN §7, one after the other, sharing one generated 1 GiB
# audit log (BENCH_DIR, default .bench). Each script times every side as a whole process and
# prints medians and ratios (scripts/benchlib.sh).
set -euo pipefail
cd "$(dirname "$0")"
for bench in bench-store.sh bench-record.sh bench-redact.sh bench-evaluate.sh bench-export.sh bench-replay.sh bench-live.sh bench-eval.sh bench-kensa.sh bench-dedup.sh bench-ls.sh bench-serve-provider.sh; do
	echo "== $bench"
	"./$bench"
	echo
done
