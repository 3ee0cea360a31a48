# Shared by the scripts/bench-*.sh: time commands as whole processes, side by side, and print
# medians and ratios. Source it; it needs bash, awk and GNU time (/usr/bin/time).
#
#   pair NAME_A 'COMMAND A' NAME_B 'COMMAND B'
#       runs A and B in turn (A B A B …), BENCH_RUNS times each after one warm-up run of each,
#       every run a whole process (`sh -c`, so a command may hold a pipe or a redirection), and
#       prints for each the median wall seconds, CPU seconds (user + system), cores used
#       (CPU / wall) and peak RSS, then the median of the per-pair ratios A/B of wall and CPU
#       time. Pairing keeps a ratio meaningful when the machine's speed drifts. Sets
#       wall_a, cpu_a, rss_a_kib, wall_b, cpu_b, rss_b_kib, ratio_wall, ratio_cpu, and
#       max_rss_kib (the highest peak RSS of every timed run of A and B).
#   single NAME 'COMMAND'
#       the same for one command alone; sets wall_a, cpu_a, rss_a_kib.
#   verdict OK: "ok" or "MISSED".
#
# Medians, never best runs: one lucky or unlucky run must not decide a figure. Wall time is
# read with date +%s.%N around the run, CPU and peak RSS from GNU time.

: "${BENCH_RUNS:=5}"
bench_tmp=$(mktemp -d)
trap 'rm -rf "$bench_tmp"' EXIT

for tool in awk /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is required" >&2; exit 2; }
done

# run1 COMMAND: one timed run; appends "wall cpu rss_kib" to $bench_tmp/$2.
run1() {
	local start end
	start=$(date +%s.%N)
	/usr/bin/time -f "%U %S %M" -o "$bench_tmp/time" sh -c "$1" >"$bench_tmp/out" 2>"$bench_tmp/err" || {
		echo "bench: command failed: $1" >&2
		cat "$bench_tmp/err" >&2
		exit 1
	}
	end=$(date +%s.%N)
	read -r user sys rss <"$bench_tmp/time"
	awk -v s="$start" -v e="$end" -v u="$user" -v y="$sys" -v r="$rss" 'BEGIN { printf "%.4f %.3f %d\n", e - s, u + y, r }' >>"$bench_tmp/$2"
}

# median FILE COLUMN
median() {
	awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# stats FILE: sets m_wall m_cpu m_rss (medians).
stats() {
	m_wall=$(median "$1" 1)
	m_cpu=$(median "$1" 2)
	m_rss=$(median "$1" 3)
}

row() { # NAME
	awk -v n="$1" -v w="$m_wall" -v c="$m_cpu" -v r="$m_rss" \
		'BEGIN { printf "  %-46s wall %8.3f s  cpu %8.3f s  cores %4.2f  peak %6.1f MiB\n", n, w, c, (w > 0 ? c / w : 0), r / 1024 }'
}

pair() {
	local name_a=$1 cmd_a=$2 name_b=$3 cmd_b=$4
	rm -f "$bench_tmp/a" "$bench_tmp/b" "$bench_tmp/ratios"
	run1 "$cmd_a" warm
	run1 "$cmd_b" warm
	for _ in $(seq "$BENCH_RUNS"); do
		run1 "$cmd_a" a
		run1 "$cmd_b" b
	done
	paste "$bench_tmp/a" "$bench_tmp/b" | awk '{ printf "%.4f %.4f\n", $1 / $4, ($5 > 0 ? $2 / $5 : 0) }' >"$bench_tmp/ratios"
	stats "$bench_tmp/a"
	wall_a=$m_wall cpu_a=$m_cpu rss_a_kib=$m_rss
	row "$name_a"
	stats "$bench_tmp/b"
	wall_b=$m_wall cpu_b=$m_cpu rss_b_kib=$m_rss
	row "$name_b"
	max_rss_kib=$(cat "$bench_tmp/a" "$bench_tmp/b" | awk '$3 > m { m = $3 } END { print m + 0 }')
	ratio_wall=$(median "$bench_tmp/ratios" 1)
	ratio_cpu=$(median "$bench_tmp/ratios" 2)
	printf '  %-46s wall %8.3f    cpu %8.3f   (median of %d pairs)\n' "$name_a / $name_b" "$ratio_wall" "$ratio_cpu" "$BENCH_RUNS"
}

single() {
	rm -f "$bench_tmp/a"
	run1 "$2" warm
	for _ in $(seq "$BENCH_RUNS"); do
		run1 "$2" a
	done
	stats "$bench_tmp/a"
	wall_a=$m_wall cpu_a=$m_cpu rss_a_kib=$m_rss
	row "$1"
}

# verdict CONDITION (an awk expression)
verdict() { awk "BEGIN { exit !($1) }" && echo ok || echo MISSED; }

# build DIR: builds the program and storebench into DIR.
build() {
	mkdir -p "$1"
	CGO_ENABLED=0 go build -o "$1/oasis-replay" ./cmd/oasis-replay
	go build -o "$1/storebench" ./tools/storebench
}

# auditlog DIR SIZE: the generated audit log of SIZE bytes (seed 1), made once; prints its path.
auditlog() {
	local log="$1/audit-$2.jsonl"
	if [ ! -f "$log" ]; then
		echo "generating $log ($2 bytes)..." >&2
		"$1/storebench" gen -size "$2" -seed 1 -o "$log"
	fi
	cat "$log" >/dev/null # in the page cache: every tool reads it from memory
	echo "$log"
}
