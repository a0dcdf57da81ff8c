#!/bin/sh
# compare.sh OUT_DIR RUN_DIR...: mode-against-mode (or kernel-against-kernel) pictures for
# runs of one scenario, e.g. results/2node-asym-fastdown-{off,global,node}-patched.
# Each RUN_DIR needs tsv/ and the analyser's metrics (trace-metrics.json, metrics.json or
# result.json).  Writes OUT_DIR/compare-pressure.png (each node's pressure, one line per
# run), OUT_DIR/compare-metrics.png (key metrics side by side) and OUT_DIR/compare.html.
# A run is labelled by its directory name.
set -u
prog=compare.sh
case ${1:-} in
-h|--help) sed -n '2,8s/^# //p' "$0"; exit 0 ;;
esac
[ $# -ge 3 ] || { echo "$prog: need OUT_DIR and at least two RUN_DIRs (see --help)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "$prog: gnuplot not installed" >&2; exit 2; }
command -v jq >/dev/null || { echo "$prog: jq not installed" >&2; exit 2; }
out=$1; shift
mkdir -p "$out" || exit 2

# the analyser's metrics object of a run, wherever the launcher left it
metrics_of() {
	for f in "$1/trace-metrics.json" "$1/metrics.json"; do
		[ -s "$f" ] && { jq -c '.metrics' "$f" 2>/dev/null && return; }
	done
	[ -s "$1/result.json" ] && jq -c '.metrics.trace // empty' "$1/result.json" 2>/dev/null
}

# metrics table: one row per run, fixed columns (missing -> NaN, which gnuplot skips)
cols="label pressure_min_node0 time_below_512_s_node0 fast_down_node0 pause_p90_ms max_held_ms file_pageout direct_reclaim_s"
printf '%s\n' "$cols" | tr ' ' '\t' >"$out/compare-metrics.tsv"
for run in "$@"; do
	[ -d "$run" ] || { echo "$prog: $run: no such run directory" >&2; exit 2; }
	m=$(metrics_of "$run")
	[ -n "$m" ] || { echo "$prog: $run: no analyser metrics (run dpanalyze first)" >&2; exit 2; }
	printf '%s\n' "$m" | jq -r --arg l "$(basename "$run")" '[$l,
		.pressure.node0.min, .pressure.node0.time_below_512_s, .pressure.node0.fast_down,
		.balance_dirty_pages.pause_p90_ms, .balance_dirty_pages.max_held_ms,
		.reclaim.file_pageout, .reclaim.direct_reclaim_total_s]
		| map(if . == null then "NaN" else tostring end) | join("\t")' >>"$out/compare-metrics.tsv"
done

common='set terminal pngcairo size 1280,720 noenhanced font "DejaVu Sans,11"
set datafile separator "\t"
set grid'

# a node's pressure as "time value" rows from 0 (the first event's old) to the run's end
steps() {	# TSV DURATION OUT
	awk -F'\t' -v OFS='\t' -v dur="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
			print "time_s", "pressure"; next }
		NR == 2 { print 0, $c["old"] } { print $c["time_s"], $c["new"]; last = $c["new"] }
		END { if (NR > 1 && dur != "") print dur, last }' "$1" >"$3"
}
dur_of() { metrics_of "$1" | jq -r '.duration_s // empty'; }
maxdur=0
for run in "$@"; do
	d=$(dur_of "$run")
	maxdur=$(awk -v a="$maxdur" -v b="${d:-0}" 'BEGIN { print (b > a ? b : a) }')
done

# ---- pressure per node, one line per run ----
nodes=$(for run in "$@"; do ls "$run"/tsv/dirty_pressure.node*.tsv 2>/dev/null; done |
	sed 's/.*\.node\([0-9]*\)\.tsv/\1/' | sort -un)
drew_p=0
if [ -n "$nodes" ]; then
	cnt=$(echo "$nodes" | wc -w)
	{
		echo "$common"
		echo "set datafile columnheaders"
		echo "set output \"$out/compare-pressure.png\""
		echo "set multiplot layout $cnt,1 title \"Dirty pressure per node, run against run\""
		echo "set yrange [0:1100]; set ytics 256"
		echo "set ylabel \"pressure (0..1024)\"; set xlabel \"time since trace start (s)\""
		echo "set key outside right top"
		echo "set xrange [0:$maxdur]"
		k=0
		for n in $nodes; do
			echo "set title \"node $n\""
			plot="plot"
			sep=" "
			for run in "$@"; do
				f=$run/tsv/dirty_pressure.node$n.tsv
				[ -s "$f" ] || continue
				k=$((k + 1))
				steps "$f" "$(dur_of "$run")" "$out/.steps.$k"
				plot="$plot$sep\"$out/.steps.$k\" using 1:2 with steps lw 2 title \"$(basename "$run")\""
				sep=", "
			done
			[ "$plot" = plot ] && plot="plot 1/0 notitle"
			echo "$plot"
		done
		echo "unset multiplot"
	} >"$out/compare-pressure.gp"
	gnuplot "$out/compare-pressure.gp" 2>"$out/compare-pressure.log" && drew_p=1 &&
		rm -f "$out/compare-pressure.gp" "$out/compare-pressure.log"
	rm -f "$out"/.steps.*
fi

# ---- key metrics, one small bar chart each ----
{
	echo "$common"
	echo "set datafile columnheaders"
	echo "set output \"$out/compare-metrics.png\""
	echo "set multiplot layout 2,4 title \"Key metrics, run against run\""
	echo "set style data histograms; set style fill solid 0.7 border -1; set boxwidth 0.8"
	echo "set xtics rotate by -30 font \",8\"; set key off; set yrange [0:*]"
	i=2
	for c in pressure_min_node0 time_below_512_s_node0 fast_down_node0 pause_p90_ms max_held_ms file_pageout direct_reclaim_s; do
		case $c in
		pressure_min_node0) u="pressure (0..1024)" ;; time_below_512_s_node0) u="s" ;;
		fast_down_node0) u="events" ;; pause_p90_ms|max_held_ms) u="ms" ;;
		file_pageout) u="pages" ;; direct_reclaim_s) u="s" ;;
		esac
		echo "set title \"$c\"; set ylabel \"$u\""
		echo "plot \"$out/compare-metrics.tsv\" using $i:xtic(1) lc rgb \"#1f77b4\""
		i=$((i + 1))
	done
	echo "unset multiplot"
} >"$out/compare-metrics.gp"
gnuplot "$out/compare-metrics.gp" 2>"$out/compare-metrics.log" || {
	echo "$prog: gnuplot failed: $(head -1 "$out/compare-metrics.log")" >&2; exit 2; }
rm -f "$out/compare-metrics.gp" "$out/compare-metrics.log"

{
	echo "<!doctype html><html><head><meta charset=\"utf-8\"><title>dplab comparison</title>"
	echo "<style>body{font-family:sans-serif;max-width:1300px}img{width:100%;border:1px solid #ccc}</style></head><body>"
	echo "<h1>Run against run</h1><p>$(for r in "$@"; do printf '%s ' "$(basename "$r")"; done)</p>"
	[ $drew_p -eq 1 ] && echo "<h2>Dirty pressure per node</h2><img src=\"compare-pressure.png\">" ||
		echo "<p>No run has dirty_pressure events: no pressure comparison.</p>"
	echo "<h2>Key metrics</h2><p>A missing bar is a metric the run could not measure (NaN in the table).</p><img src=\"compare-metrics.png\">"
	echo "<p>Numbers: <a href=\"compare-metrics.tsv\">compare-metrics.tsv</a></p></body></html>"
} >"$out/compare.html"
echo "$prog: $out/compare.html ($# runs)"
