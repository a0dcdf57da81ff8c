#!/bin/sh
# plots.sh OUT_DIR: draw OUT/tsv/*.tsv (written by dpanalyze) into OUT/plots/*.png and an
# OUT/plots/index.html showing them together.  gnuplot (pngcairo, 1280x720), the tool the
# original series was argued with.  A picture whose events are not in the trace is left out
# and the index says why.
set -u
prog=plots.sh
case ${1:-} in
-h|--help)
	echo "Usage: $prog OUT_DIR"
	echo "Reads OUT_DIR/tsv/*.tsv (from dpanalyze --out OUT_DIR), writes OUT_DIR/plots/*.png"
	echo "and OUT_DIR/plots/index.html."
	exit 0 ;;
"") echo "$prog: missing OUT_DIR (see --help)" >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { echo "$prog: exactly one OUT_DIR expected (see --help)" >&2; exit 2; }
out=$1
tsv=$out/tsv
[ -d "$tsv" ] || { echo "$prog: $tsv: no such directory (run dpanalyze --out $out first)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "$prog: gnuplot not installed (apt-get install gnuplot-nox)" >&2; exit 2; }
plots=$out/plots
mkdir -p "$plots" || exit 2
missing=
drawn=

has() { [ -s "$tsv/$1.tsv" ] && [ "$(wc -l <"$tsv/$1.tsv")" -gt 1 ]; }
steps() {	# NODE: pressure of that node as "time value" rows from 0 to the end of the run
	awk -F'\t' -v OFS='\t' -v dur="$dur" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i
			print "time_s", "pressure"; next }
		NR == 2 { print 0, $c["old"] } { print $c["time_s"], $c["new"]; last = $c["new"] }
		END { if (NR > 1) print dur, last }' "$tsv/dirty_pressure.node$1.tsv" >"$plots/.steps.node$1"
}
nodes() {	# NAME: node numbers having a TSV for that event
	for f in "$tsv/$1".node*.tsv; do
		[ -e "$f" ] || continue
		f=${f##*.node}; echo "${f%.tsv}"
	done | sort -n
}
col() {	# FILE NAME: true when the header has that column
	head -1 "$1" | tr '\t' '\n' | grep -qx "$2"
}

dur=$(for f in "$tsv"/*.tsv; do tail -1 "$f" | cut -f1; done | sort -g | tail -1)
dur=${dur:-1}
common='set terminal pngcairo size 1280,720 noenhanced font "DejaVu Sans,11"
set datafile separator "\t"
set datafile columnheaders
set key below horizontal box height 1 spacing 1.1
set xlabel offset 0,0.4
set grid
set bmargin 9
set xlabel "time since trace start (s)"
set style data lines
MiB(p) = p * 4096.0 / 1048576
set xrange [0:'"$dur"']'

run_gp() {	# PNG TITLE: gnuplot script on stdin (kept as PNG.gp with PLOTS_KEEP_GP=1: the tests read its labels)
	png=$1
	if if [ -n "${PLOTS_KEEP_GP:-}" ]; then tee "$plots/$png.gp"; else cat; fi | gnuplot >"$plots/$png.log" 2>&1; then
		rm -f "$plots/$png.log"
		drawn="$drawn $png"
	else
		echo "$prog: gnuplot failed for $png: $(head -1 "$plots/$png.log")" >&2
		missing="$missing $png:gnuplot_failed"
	fi
}

# ---- dirty pages against the thresholds, pressure on y2 ----
if has global_dirty_state; then
	gds=$tsv/global_dirty_state.tsv
	extra=
	# The run's mode (OUT/job.env): in mode off the series tracks the pressure but does not
	# apply it, so the thresholds are already unscaled and x1024/pressure would invent one.
	mode=$(sed -n 's/^MODE=//p' "$out/job.env" 2>/dev/null)
	if col "$gds" pressure && [ "$mode" = off ]; then
		extra=", \"$gds\" using (column(\"time_s\")):(column(\"pressure\")) axes x1y2 lw 2 lc rgb \"black\" title \"pressure (global_dirty_state; mode off: tracked, not applied)\""
	elif col "$gds" pressure; then
		extra=", \"$gds\" using (column(\"time_s\")):(column(\"pressure\")) axes x1y2 lw 2 lc rgb \"black\" title \"pressure (global_dirty_state)\", \"$gds\" using (column(\"time_s\")):(column(\"pressure\") > 0 ? MiB(column(\"background_thresh\")) * 1024.0 / column(\"pressure\") : 1/0) dt 2 lc rgb \"#1f77b4\" title \"bg_thresh unscaled (x1024/pressure)\""
	fi
	# The y range ends a tenth above the highest limit or dirty+writeback: the unscaled
	# bg_thresh of a pressure near 0 (x1024/5) would squash everything else to the axis.
	ymax=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ v = $c["dirty_limit"]; w = $c["nr_dirty"] + $c["nr_writeback"]; if (w > v) v = w; if (v > m) m = v }
		END { printf "%.0f", m * 4096 / 1048576 * 1.1 + 1 }' "$gds")
	for n in $(nodes dirty_pressure); do
		steps "$n"
		# fixed colours per node: gnuplot's automatic ones made node 0 as black as the
		# global pressure when fewer series were drawn
		lcn=$(echo "#9400d3 #1f77b4 #ff7f0e #8c564b #e377c2 #17becf #bcbd22 #7f7f7f" | cut -d' ' -f$((n % 8 + 1)))
		extra="$extra, \"$plots/.steps.node$n\" using 1:2 with steps axes x1y2 lw 2 dt 2 lc rgb \"$lcn\" title \"pressure node $n\""
	done
	# The freerun ceiling: the one balance_dirty_pages() compared against when the
	# kernel traces it (series v2: global_dirty_state.freerun, balance_dirty_pages.freerun).
	# Without those fields only 6.1's stock formula can be drawn, and the label says so:
	# the series scales the ceiling at the check, so the line is not what the throttle used.
	if col "$gds" freerun; then
		free="\"$gds\" using (column(\"time_s\")):(MiB(column(\"freerun\"))) lw 2 lc rgb \"#2ca02c\" title \"freerun ceiling, scaled (global_dirty_state.freerun)\""
	else
		free="\"$gds\" using (column(\"time_s\")):(MiB((column(\"background_thresh\") + column(\"dirty_thresh\")) / 2)) dt 4 lc rgb \"#2ca02c\" title \"(bg+thresh)/2 stock, not what the throttle used\""
	fi
	# The setpoints the position control used (series v2 traces them as used; 6.1's event
	# computes its own (limit + (bg+thresh)/2) / 2 from the unscaled thresholds).  Points:
	# balance_dirty_pages fires only for a task past the freerun ceiling.
	bdpl=
	if has balance_dirty_pages; then
		b=$tsv/balance_dirty_pages.tsv
		if col "$b" freerun; then
			how="as used"
			bdpl=", \"$b\" using (column(\"time_s\")):(MiB(column(\"freerun\"))) with points pt 7 ps 0.5 lc rgb \"#006400\" title \"freerun the throttle compared against (balance_dirty_pages)\""
		else
			how="as 6.1 traces it: from the unscaled thresholds"
		fi
		bdpl="$bdpl, \"$b\" using (column(\"time_s\")):(MiB(column(\"setpoint\"))) with points pt 5 ps 0.5 lc rgb \"#e377c2\" title \"global setpoint ($how)\", \"$b\" using (column(\"time_s\")):(MiB(column(\"bdi_setpoint\"))) with points pt 4 ps 0.5 lc rgb \"#17becf\" title \"wb setpoint ($how)\", \"$b\" using (column(\"time_s\")):(MiB(column(\"bdi_dirty\"))) with points pt 1 ps 0.4 lc rgb \"#7f7f7f\" title \"wb dirty+writeback (balance_dirty_pages)\""
		dtitle="Dirty pages against the thresholds, the freerun ceiling and the setpoints (global domain)"
	else
		dtitle="Dirty pages against the thresholds (no balance_dirty_pages call: no task left the freerun region)"
	fi
	run_gp dirty.png "Dirty pages, thresholds and pressure" <<EOF
$common
set output "$plots/dirty.png"
set title "$dtitle"
# up to 13 lines in the key below: three columns and room for them
set key below horizontal maxcols 3 font ",10"
set bmargin 11
set ylabel "pages (MiB)"
set y2label "dirty pressure (0..1024)"
set yrange [0:$ymax]
set y2range [0:1100]
set y2tics 128
set ytics nomirror
plot "$gds" using (column("time_s")):(MiB(column("nr_dirty"))) lw 2 lc rgb "#d62728" title "dirty", \
     "$gds" using (column("time_s")):(MiB(column("nr_writeback"))) lc rgb "#ff9896" title "writeback", \
     "$gds" using (column("time_s")):(MiB(column("background_thresh"))) lw 2 lc rgb "#1f77b4" title "bg_thresh", \
     $free, \
     "$gds" using (column("time_s")):(MiB(column("dirty_thresh"))) lw 2 lc rgb "#9467bd" title "thresh", \
     "$gds" using (column("time_s")):(MiB(column("dirty_limit"))) dt 3 lc rgb "#8c564b" title "limit"$bdpl$extra
EOF
else
	missing="$missing dirty.png:no_global_dirty_state_events"
fi

# ---- pressure per node, with fast_down / slow_up marked ----
pn=$(nodes dirty_pressure)
if [ -n "$pn" ]; then
	cnt=$(echo "$pn" | wc -w)
	{
		echo "$common"
		echo "set output \"$plots/pressure.png\""
		echo "set multiplot layout $cnt,1 title \"Dirty pressure per node (fast_down red, slow_up green)\""
		echo "set yrange [0:1100]"
		echo "set ytics 256"
		echo "set ylabel \"pressure (0..1024)\""
		for n in $pn; do
			f=$tsv/dirty_pressure.node$n.tsv
			echo "set title \"node $n\""
			steps "$n"
			echo "plot \"$plots/.steps.node$n\" using 1:2 with steps lw 2 lc rgb \"black\" title \"pressure\", \\"
			echo "     \"$f\" using (column(\"time_s\")):(column(\"reason\") == 0 ? column(\"new\") : 1/0) with points pt 11 ps 1.5 lc rgb \"#d62728\" title \"fast_down\", \\"
			echo "     \"$f\" using (column(\"time_s\")):(column(\"reason\") == 1 ? column(\"new\") : 1/0) with points pt 7 ps 0.5 lc rgb \"#2ca02c\" title \"slow_up\""
		done
		echo "unset multiplot"
	} >"$plots/pressure.gp"
	# not a pipe: run_gp must run in this shell to record what it drew
	run_gp pressure.png "Dirty pressure per node" <"$plots/pressure.gp"
	rm -f "$plots/pressure.gp"
else
	missing="$missing pressure.png:no_dirty_pressure_events(kernel_without_the_series?)"
fi

# ---- pause and paused per balance_dirty_pages call ----
if has balance_dirty_pages; then
	b=$tsv/balance_dirty_pages.tsv
	run_gp pause.png "balance_dirty_pages pause and paused" <<EOF
$common
set output "$plots/pause.png"
set title "balance_dirty_pages: per call (10..200 ms is the target band)"
set ylabel "ms"
set style data points
set object 1 rect from graph 0, first 10 to graph 1, first 200 fc rgb "#e8f4e8" fs solid 0.5 behind
plot "$b" using (column("time_s")):(column("pause")) pt 7 ps 0.6 lc rgb "#1f77b4" title "pause", \
     "$b" using (column("time_s")):(column("paused")) pt 6 ps 0.6 lc rgb "#d62728" title "paused (already in this call)", \
     "$b" using (column("time_s")):(column("think")) pt 1 ps 0.4 lc rgb "#7f7f7f" title "think"
EOF
else
	missing="$missing pause.png:no_balance_dirty_pages_events"
fi

# ---- what the throttle did: pos_ratio, task_ratelimit against dirty_ratelimit, and the
# bound node's own dirty pages against its domain (series v2 fields when present) ----
# The guest's sampler (guest-lib meminfo_sample_start: OUT/nodemem.tsv) reads
# /proc/uptime; the trace's first event time (analyser metrics, trace.first_ts_s) puts
# its samples on the trace's axis.
first=
for j in "$out/trace-metrics.json" "$out/metrics.json"; do
	[ -s "$j" ] && first=$(jq -r '.trace.first_ts_s // empty' "$j" 2>/dev/null) && [ -n "$first" ] && break
done
nm=$out/nodemem.tsv
[ -s "$nm" ] && [ "$(wc -l <"$nm")" -gt 1 ] && [ -n "$first" ] || nm=
# A node domain (dirty_pressure=node, a task bound to some nodes) is in the
# trace's node_* fields of balance_dirty_pages; its panel needs no sampler.
# The tasks that had one (pids, up to 4): tasks bound to different nodes
# have different domains, drawn one set each.
# The bound tasks, grouped by node domain: one line per domain, its pids
# joined by commas.  The trace names no node, so tasks whose mean node limit
# is within 2% are taken to share one (four writers bound to one node have
# the same limit at every call); at most four domains are drawn.
node_pids=
if has balance_dirty_pages && col "$tsv/balance_dirty_pages.tsv" node_limit; then
	node_pids=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["node_limit"] > 0 { n[$c["pid"]]++; s[$c["pid"]] += $c["node_limit"] }
		END { for (p in n) printf "%s %.0f\n", p, s[p] / n[p] }' "$tsv/balance_dirty_pages.tsv" |
		sort -k2,2n | awk 'NR == 1 || $2 > first * 1.02 { if (NR > 1) print grp; grp = $1; first = $2; next }
			{ grp = grp " " $1 } END { if (NR) print grp }' |
		while read -r g; do echo "$g" | tr ' ' '\n' | sort -n | paste -sd, -; done | sort -t, -k1,1n | head -4)
fi
if has balance_dirty_pages || [ -n "$nm" ]; then
	panels=0
	has balance_dirty_pages && panels=2
	[ -n "$nm$node_pids" ] && panels=$((panels + 1))
	{
		echo "$common"
		echo "set output \"$plots/throttle.png\""
		# taller than the others, one time axis for every panel: fixed side margins
		echo "set terminal pngcairo size 1280,$((240 * panels + 60)) noenhanced font \"DejaVu Sans,11\""
		if has balance_dirty_pages; then
			echo "set multiplot layout $panels,1 title \"What the throttle did\""
		else
			echo "set multiplot layout $panels,1 title \"What the throttle did: nothing, no balance_dirty_pages call (no task left the freerun region)\""
		fi
		echo "set bmargin 4"
		echo "set lmargin at screen 0.07"
		echo "set rmargin at screen 0.66"
		echo "set key outside right top vertical box maxcols 1 font \",9\" spacing 1"
		if has balance_dirty_pages; then
			b=$tsv/balance_dirty_pages.tsv
			echo "set title \"position ratio per balance_dirty_pages call (1.0 = at the setpoint)\""
			echo "set ylabel \"ratio\""
			echo "set yrange [0:*]"
			echo "set style data points"
			p="plot \"$b\" using (column(\"time_s\")):(column(\"dirty_ratelimit\") > 0 ? column(\"task_ratelimit\") / column(\"dirty_ratelimit\") : 1/0) pt 7 ps 0.5 lc rgb \"#1f77b4\" title \"task_ratelimit / dirty_ratelimit\""
			if col "$b" pos_ratio; then
				p="$p, \"$b\" using (column(\"time_s\")):(column(\"pos_ratio\") / 1024.0) pt 6 ps 0.6 lc rgb \"#d62728\" title \"pos_ratio (traced)\""
			fi
			echo "$p"
			# series v2 (patch 9): a call its node domain throttled traces the
			# node domain's rate as dirty_ratelimit, not the device's estimate
			if col "$b" node_limit; then
				echo "set title \"task_ratelimit against the rate it was throttled at (traced dirty_ratelimit: the node domain's rate where it was the stricter)\""
				rl="dirty_ratelimit (traced)"
			else
				echo "set title \"task_ratelimit against dirty_ratelimit\""
				rl="dirty_ratelimit"
			fi
			echo "set ylabel \"MB/s (1 MB = 1024 kB)\""
			echo "plot \"$b\" using (column(\"time_s\")):(column(\"task_ratelimit\") / 1024.0) pt 7 ps 0.5 lc rgb \"#1f77b4\" title \"task_ratelimit\", \\"
			echo "     \"$b\" using (column(\"time_s\")):(column(\"dirty_ratelimit\") / 1024.0) pt 5 ps 0.5 lc rgb \"#2ca02c\" title \"$rl\""
		fi
		if [ -n "$nm$node_pids" ]; then
			if [ -z "$nm" ]; then
				echo "set title \"Bound tasks' nodes: dirty+writeback against their node domain (balance_dirty_pages, by pid)\""
			elif has balance_dirty_pages && col "$b" node_limit; then
				echo "set title \"Dirty+Writeback per node (guest sampler) against the node domain (series v2)\""
			else
				echo "set title \"Dirty+Writeback per node (guest sampler; the kernel traces no node domain)\""
			fi
			echo "set ylabel \"MiB\""
			echo "set style data lines"
			echo "set yrange [0:*]"
			p="plot"
			for c in $([ -n "$nm" ] && head -1 "$nm" | tr '\t' '\n' | sed -n 's/^\(node[0-9]*\)_dirty_kb$/\1/p'); do
				p="$p \"$nm\" using (column(\"t_s\") - $first):((column(\"${c}_dirty_kb\") + column(\"${c}_writeback_kb\")) / 1024.0) lw 2 title \"$c Dirty+Writeback\","
				p="$p \"$nm\" using (column(\"t_s\") - $first):(column(\"${c}_writeback_kb\") / 1024.0) dt 2 title \"$c Writeback\","
			done
			if has balance_dirty_pages && col "$b" node_limit; then
				ndoms=$(echo "$node_pids" | grep -c .)
				shape=0
				# domains of different sizes (a small node and a large one)
				# on one axis: a log scale keeps each readable
				[ "$ndoms" -gt 1 ] && echo "set logscale y" && echo "set yrange [*:*]"
				for pids in $node_pids; do
					sel=$(echo "$pids" | sed 's/\([0-9][0-9]*\)/column("pid") == \1/g; s/,/ || /g')
					sel="($sel) && column(\"node_limit\") > 0"
					who=
					case $pids in
					*,*) who=", pids $pids" ;;
					*) [ "$ndoms" -gt 1 ] && who=", pid $pids" ;;
					esac
					shape=$((shape + 1))
					# pid by pid: freerun, limit, dirty colours
					case $shape in
					1) cf='#2ca02c' cl='#8c564b' cd='#000000' ;;
					2) cf='#98df8a' cl='#ff7f0e' cd='#1f77b4' ;;
					3) cf='#bcbd22' cl='#d62728' cd='#9467bd' ;;
					*) cf='#17becf' cl='#e377c2' cd='#7f7f7f' ;;
					esac
					p="$p \"$b\" using (column(\"time_s\")):($sel ? MiB(column(\"node_freerun\")) : 1/0) with points pt 7 ps 0.5 lc rgb \"$cf\" title \"node freerun$who\","
					p="$p \"$b\" using (column(\"time_s\")):($sel ? MiB(column(\"node_limit\")) : 1/0) with points pt 5 ps 0.5 lc rgb \"$cl\" title \"node limit$who\","
					p="$p \"$b\" using (column(\"time_s\")):($sel ? MiB(column(\"node_dirty\")) : 1/0) with points pt $shape ps 0.5 lc rgb \"$cd\" title \"node dirty+writeback$who\","
				done
			fi
			echo "${p%,}"
		fi
		echo "unset multiplot"
	} >"$plots/throttle.gp"
	run_gp throttle.png "What the throttle did" <"$plots/throttle.gp"
	rm -f "$plots/throttle.gp"
else
	missing="$missing throttle.png:no_balance_dirty_pages_events_and_no_node_sampler"
fi

# ---- write bandwidth against its estimate, and the ratelimits ----
if has bdi_dirty_ratelimit; then
	w=$tsv/bdi_dirty_ratelimit.tsv
	run_gp bandwidth.png "Write bandwidth and ratelimits" <<EOF
$common
set output "$plots/bandwidth.png"
set title "Write bandwidth against its estimate, and the dirty ratelimits"
set ylabel "MB/s (1 MB = 1024 kB)"
plot "$w" using (column("time_s")):(column("write_bw") / 1024.0) lw 2 lc rgb "#1f77b4" title "write_bw", \
     "$w" using (column("time_s")):(column("avg_write_bw") / 1024.0) lw 2 lc rgb "#ff7f0e" title "avg_write_bw (estimate)", \
     "$w" using (column("time_s")):(column("dirty_rate") / 1024.0) lc rgb "#d62728" title "dirty_rate", \
     "$w" using (column("time_s")):(column("dirty_ratelimit") / 1024.0) dt 2 lc rgb "#2ca02c" title "dirty_ratelimit", \
     "$w" using (column("time_s")):(column("balanced_dirty_ratelimit") / 1024.0) dt 3 lc rgb "#9467bd" title "balanced_dirty_ratelimit"
EOF
else
	missing="$missing bandwidth.png:no_bdi_dirty_ratelimit_events"
fi

# ---- pageout and reclaim rates, in bins of about 1/100 of the run ----
binw=$(awk -v d="$dur" 'BEGIN { b = d / 100; if (b < 0.01) b = 0.01; printf "%.3f", b }')
series=
if has mm_vmscan_write_folio; then
	f=$tsv/mm_vmscan_write_folio.tsv
	series="$series \"$f\" using (bin(column(\"time_s\"))):((int(column(\"reclaim_flags\")) & 2) ? 1.0/bw : 0) smooth frequency with boxes fs transparent solid 0.5 lc rgb \"#d62728\" title \"file pageout: writepage calls, not all IO (pages/s)\","
	series="$series \"$f\" using (bin(column(\"time_s\"))):((int(column(\"reclaim_flags\")) & 1) ? 1.0/bw : 0) smooth frequency with boxes fs transparent solid 0.5 lc rgb \"#ff9896\" title \"anon pageout (pages/s)\","
fi
for n in $(nodes mm_vmscan_lru_shrink_inactive); do
	f=$tsv/mm_vmscan_lru_shrink_inactive.node$n.tsv
	series="$series \"$f\" using (bin(column(\"time_s\"))):(column(\"nr_reclaimed\")/bw) smooth frequency with boxes fs transparent solid 0.3 title \"node $n reclaimed (pages/s)\","
	series="$series \"$f\" using (bin(column(\"time_s\"))):(column(\"nr_dirty\")/bw) smooth frequency with boxes fs empty border title \"node $n dirty met by reclaim (pages/s)\","
done
if [ -n "$series" ]; then
	run_gp reclaim.png "Pageout and reclaim rates" <<EOF
$common
set output "$plots/reclaim.png"
set title "Pageout by reclaim and reclaim rates (bins of $binw s)"
set ylabel "pages/s"
bw = $binw
bin(t) = bw * floor(t / bw) + bw / 2
set boxwidth bw
plot ${series%,}
EOF
else
	missing="$missing reclaim.png:no_vmscan_events"
fi

# ---- index ----
{
	echo "<!doctype html><html><head><meta charset=\"utf-8\"><title>dplab plots</title>"
	echo "<style>body{font-family:sans-serif;max-width:1300px}img{width:100%;border:1px solid #ccc}</style></head><body>"
	echo "<h1>Run plots</h1>"
	for d in $drawn; do
		case $d in
		dirty.png) ti="Dirty pages, thresholds and pressure" ;;
		pressure.png) ti="Dirty pressure per node" ;;
		pause.png) ti="balance_dirty_pages pause and paused per call" ;;
		bandwidth.png) ti="Write bandwidth against its estimate" ;;
		throttle.png) ti="What the throttle did: pos_ratio, ratelimits, the node's own dirty pages" ;;
		*) ti="Pageout and reclaim rates" ;;
		esac
		echo "<h2>$ti</h2><img src=\"$d\" alt=\"$ti\">"
	done
	if [ -n "$missing" ]; then
		echo "<h2>Not drawn</h2><ul>"
		for m in $missing; do echo "<li>${m%%:*}: $(echo "${m#*:}" | tr _ ' ')</li>"; done
		echo "</ul>"
	fi
	echo "</body></html>"
} >"$plots/index.html"
rm -f "$plots"/.steps.node*
echo "$prog: $(echo $drawn | wc -w) plots in $plots${missing:+ (not drawn:$missing)}"
