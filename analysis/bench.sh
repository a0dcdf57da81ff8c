#!/bin/sh
# bench.sh [TRACE.dat]: dpanalyze against `trace-cmd report | awk` on the same trace, as a
# ratio measured in one run (these machines are shared, so absolute times mean little).
# Without an argument it writes a ~100 MB synthetic trace with mktrace.py under build/.
# Not a test: it prints the ratio; the goal in issue 5 is >= 10x.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
case ${1:-} in -h|--help) sed -n '2,5s/^# //p' "$0"; exit 0 ;; esac
bin=$top/build/bin/dpanalyze
make -s -C "$here" all
work=$top/build/analysis/bench
mkdir -p "$work"
trace=${1:-$work/big.dat}
if [ $# -eq 0 ] && [ ! -s "$trace" ]; then
	echo "bench: writing a synthetic trace (mktrace.py --scale 250 --seconds 60) ..."
	python3 "$here/mktrace.py" "$trace" --scale 250 --seconds 60
fi
[ -r "$trace" ] || { echo "bench: $trace: cannot read" >&2; exit 2; }
now() { date +%s.%N; }
# warm the page cache so both sides read from memory
cat "$trace" >/dev/null
t0=$(now)
"$bin" "$trace" --out "$work/out" --no-tsv
t1=$(now)
"$bin" "$trace" --out "$work/out"
t2=$(now)
# the text route: the same per-event counts, and a pause percentile, from trace-cmd's text
trace-cmd report "$trace" 2>/dev/null | awk '
	{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ev = $(i + 1); break }
	  n[ev]++
	  if (ev == "balance_dirty_pages:") for (i = 1; i <= NF; i++) if ($i ~ /^pause=/) { split($i, a, "="); p[np++] = a[2] } }
	END { for (e in n) c++; print c " event types, " np " pauses" }' >"$work/awk.out"
t3=$(now)
size=$(du -m "$trace" | cut -f1)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v s="$size" 'BEGIN {
	m = b - a; tsv = c - b; txt = d - c
	printf "trace: %d MiB\n", s
	printf "dpanalyze (metrics only)   %7.2f s\n", m
	printf "dpanalyze (metrics + TSV)  %7.2f s\n", tsv
	printf "trace-cmd report | awk     %7.2f s\n", txt
	printf "ratio text/dpanalyze: %.1fx (metrics only), %.1fx (with TSV)\n", txt / m, txt / tsv }'
