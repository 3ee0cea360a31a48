#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each (default 30s): ./scripts/fuzz.sh [DURATION]
# Targets are discovered from the sources, so a new Fuzz function is picked up without edits here.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-30s}
status=0
while IFS=: read -r file _ line; do
  name=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
  pkg="./$(dirname "$file")"
  echo "== $pkg $name ($duration)"
  if ! go test "$pkg" -run '^$' -fuzz "^${name}\$" -fuzztime "$duration" -fuzzminimizetime 5s; then
    status=1
  fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . | sort)
exit $status
