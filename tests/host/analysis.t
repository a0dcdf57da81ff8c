#!/bin/bash
# Host checks of analysis/: dpanalyze against synthetic traces with known truth
# (analysis/mktrace.py), against real guest traces in tests/fixtures/analysis/*.trace,
# --extra-metrics, bad input, and a fuzz run under ASan+UBSan.  No kernel needed.
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
fix=$top/tests/fixtures
t=$(mktemp -d "${TMPDIR:-/tmp}/analysis.t.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
failed=0
FUZZ_N=${FUZZ_N:-1000}

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failed=1; }
check() { if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }
jv() { jq -r "$1" "$2" 2>/dev/null; }

# ---- build: quiet, incremental ----
out=$(make -s -C "$top/analysis" all san 2>&1); rc=$?
if [ $rc -ne 0 ] || [ ! -x "$bin/dpanalyze" ] || [ ! -x "$bin/dpanalyze-san" ]; then
	fail build "make -C analysis exit $rc: $(printf '%s' "$out" | head -3)"
	exit 1
fi
[ -z "$out" ]; check build-quiet $? "make -s printed: $(printf '%s' "$out" | head -2)"
# make -q: exit 0 only if nothing is out of date (its "Nothing to be done"
# message is silenced when the suite runs under make -s)
if MAKEFLAGS= make -q -C "$top/analysis" all >/dev/null 2>&1; then
	pass build-incremental
else
	fail build-incremental "a second make would rebuild: $(MAKEFLAGS= make -n -C "$top/analysis" all 2>&1 | grep -v '^make' | head -2)"
fi

# ---- --help ----
out=$("$bin/dpanalyze" --help 2>"$t/err"); rc=$?
[ $rc -eq 0 ] && [ "${out#Usage: dpanalyze }" != "$out" ] && [ ! -s "$t/err" ]
check help $? "exit $rc, stdout '$(printf '%s' "$out" | head -1)'"

# ---- synthetic traces with ground truth ----
python3 "$top/analysis/mktrace.py" "$t/syn.dat" --truth "$t/truth.json" &&
python3 "$top/analysis/mktrace.py" "$t/stock.dat" --stock --seconds 5 &&
python3 "$top/analysis/mktrace.py" "$t/v2.dat" --v2 --block --truth "$t/v2truth.json" &&
python3 "$top/analysis/mktrace.py" "$t/sched.dat" --sched --truth "$t/schedtruth.json" || {
	fail mktrace "analysis/mktrace.py failed"; exit 1; }

# counts: dpanalyze vs trace-cmd report on the same file (synthetic and every real fixture)
counts_agree() {	# NAME FILE
	local name=$1 f=$2 o=$t/c.$1
	if ! "$bin/dpanalyze" "$f" --out "$o" --no-tsv 2>"$t/err"; then
		fail "$name" "dpanalyze exit $?: $(head -1 "$t/err")"; return; fi
	trace-cmd report "$f" 2>/dev/null |
		sed -n 's/^.*\[[0-9]*\] *[0-9]*\.[0-9]*: *\([A-Za-z0-9_]*\):.*$/\1/p' | sort | uniq -c |
		awk '{print $2, $1}' >"$t/want.$name"
	jq -r '.metrics.counts | to_entries[] | "\(.key) \(.value)"' "$o/metrics.json" |
		sort >"$t/got.$name"
	if [ ! -s "$t/want.$name" ]; then fail "$name" "trace-cmd report printed no events"
	elif cmp -s "$t/want.$name" "$t/got.$name"; then
		pass "$name"
	else fail "$name" "differs: $(diff "$t/want.$name" "$t/got.$name" | grep '^[<>]' | head -3 | tr '\n' ' ')"
	fi
}
counts_agree counts-vs-report-synthetic "$t/syn.dat"
counts_agree counts-vs-report-stock "$t/stock.dat"
nreal=0
for f in "$fix"/analysis/real-*.trace; do
	[ -e "$f" ] || continue
	nreal=$((nreal + 1))
	counts_agree "counts-vs-report-$(basename "$f" .trace)" "$f"
done
[ $nreal -gt 0 ]; check real-fixture-present $? "no real guest trace in tests/fixtures/analysis/real-*.trace"

# The real fastdown fixture (series kernel, 2node-asym, mode global; 21.3..21.6 s of the run,
# cut with trace-cmd split): three fast_downs on node 0 at priorities 4, 3, 2 (new 2, 1, 0),
# each applied inside its batch, so the preceding scan's priority differs for two of them.
rf=$fix/analysis/real-2node-asym-fastdown-global.trace
"$bin/dpanalyze" "$rf" --out "$t/rf" --no-tsv 2>"$t/err"; rc=$?
got=$(jv '.metrics.pressure.node0 | "\(.fast_down) \(.fast_down_formula_ok) \(.fast_down_priority_matched) \(.fast_down_no_scan) \(.fast_down_preceding_priority_unmatched) \(.min)"' "$t/rf/metrics.json")
[ $rc -eq 0 ] && [ "$got" = "3 3 3 0 2 0" ]
check real-fastdown-batch-matching $? "exit $rc, got '$got', want '3 3 3 0 2 0'"
# node 1 is named by no event in that window: --nodes 2 still reports it, as never lowered
"$bin/dpanalyze" "$rf" --out "$t/rf2" --no-tsv --nodes 2 2>"$t/err"; rc=$?
got=$(jv '.metrics.pressure.node1 | "\(.min) \(.assumed_unchanged)"' "$t/rf2/metrics.json")
old=$(jv '.metrics.pressure.node1' "$t/rf/metrics.json")
[ $rc -eq 0 ] && [ "$got" = "1024 true" ] && [ "$old" = null ]
check nodes-option $? "exit $rc, node1 '$got' (without --nodes: '$old')"

# The real bound-alone fixture (series kernel, 2node-asym, mode off, DISK_QUEUE 32x512K; 1 s of
# the run, cut with trace-cmd split): kswapd0 called ext4's writepage 11,629 times and sent no
# bio (every folio was delalloc, redirtied), while the flusher and jbd2 wrote.  The reclaim
# writeback count must be 0 here and the writepage count that of trace-cmd's own text.
ba=$fix/analysis/real-2node-asym-bound-alone-off.trace
"$bin/dpanalyze" "$ba" --out "$t/ba" --no-tsv 2>"$t/err"; rc=$?
# (trace-cmd 3.1.6 cannot parse this event's flags and prints reclaim_flags=N: bit 2 is FILE)
want=$(trace-cmd report "$ba" 2>/dev/null | awk '/ mm_vmscan_write_folio: / && (/RECLAIM_WB_FILE/ ||
		(match($0, /reclaim_flags=[0-9]+/) && int(substr($0, RSTART + 14, RLENGTH - 14) / 2) % 2)) { f++ }
	/ block_bio_queue: / { for (i = 1; i <= NF; i++) if ($i == "+") n = $(i + 1); if ($0 ~ / F?W[FASM]* /) p += n / 8 }
	END { printf "%d 0 %d %d", f, p, -f }')
got=$(jv '.metrics | "\(.reclaim.file_pageout) \(.reclaim.kswapd_write.pages) \(.block.write_pages) \(.reclaim.kswapd_write_excess_pages)"' "$t/ba/metrics.json")
[ $rc -eq 0 ] && [ "$got" = "$want" ] && [ "${want%% *}" -gt 0 ]
check real-bound-alone-writepage-without-io $? "exit $rc, got '$got', trace-cmd report gives '$want'"

# mktrace.py must lay events out as the series' kernel does: every field line of every event
# it writes equals the one in a real guest trace header (trace-cmd 3.1.6, v7, zstd)
real_hdr=$fix/analysis/no-events-v7.trace
fields() {	# TRACE: "event: field line" for each field, sorted
	trace-cmd dump --events "$1" 2>/dev/null | awk '/^name:/ { n = $2 } /field:/ { print n ": " $0 }' |
		tr -s ' \t' ' ' | sort
}
fields "$real_hdr" >"$t/f.real"
fields "$t/syn.dat" >"$t/f.syn"
extra=$(comm -13 "$t/f.real" "$t/f.syn" | head -2 | tr '\n' ' ')
[ -s "$t/f.real" ] && [ -s "$t/f.syn" ] && [ -z "$extra" ]
check mktrace-layout-matches-kernel $? "differs from the guest kernel: ${extra:-no formats read}"
# --block's block_bio_queue: field for field as the guest kernel's (the bound-alone fixture)
fields "$ba" | grep '^block_bio_queue: ' >"$t/f.realb"
fields "$t/v2.dat" | grep '^block_bio_queue: ' >"$t/f.synb"
[ -s "$t/f.realb" ] && cmp -s "$t/f.realb" "$t/f.synb"
check mktrace-block-layout-matches-kernel $? "$(diff "$t/f.realb" "$t/f.synb" | grep '^[<>]' | head -2 | tr '\n' ' ')"
# --v2's appended fields: field for field as the series v2 kernel's (a bound-alone run in mode
# node on 2node-asym-xfs, 0.6 s of it), and dpanalyze reads them from the real trace
v2r=$fix/analysis/real-2node-asym-xfs-bound-alone-node-v2.trace
fields "$v2r" | grep -E '^(balance_dirty_pages|global_dirty_state): ' >"$t/f.realv2"
fields "$t/v2.dat" | grep -E '^(balance_dirty_pages|global_dirty_state): ' >"$t/f.synv2"
[ -s "$t/f.realv2" ] && cmp -s "$t/f.realv2" "$t/f.synv2"
check mktrace-v2-layout-matches-kernel $? "$(diff "$t/f.realv2" "$t/f.synv2" | grep '^[<>]' | head -2 | tr '\n' ' ')"
"$bin/dpanalyze" "$v2r" --out "$t/v2r" --no-tsv 2>"$t/err"; rc=$?
want=$(trace-cmd report "$v2r" 2>/dev/null | awk '/ balance_dirty_pages: / { n++; if ($0 !~ / node_limit=0/) k++ } END { printf "%d %d", n, k }')
got=$(jv '.metrics.throttle | "\(.calls) \(.node_domain_calls)"' "$t/v2r/metrics.json")
[ $rc -eq 0 ] && [ "$got" = "$want" ] && [ "${want%% *}" -gt 0 ] &&
	[ "$(jv '.trace | "\(.has_throttle_fields) \(.has_node_domain_fields) \(.has_global_freerun_field)"' "$t/v2r/metrics.json")" = "true true true" ]
check real-v2-throttle-fields $? "exit $rc, got '$got', trace-cmd report gives '$want'"

"$bin/dpanalyze" "$t/syn.dat" --out "$t/o" 2>"$t/err"; rc=$?
m=$t/o/metrics.json
[ $rc -eq 0 ] && jq -e . "$m" >/dev/null 2>&1
check synthetic-runs $? "exit $rc: $(head -1 "$t/err")"
truth() {	# NAME METRIC-JQ TRUTH-JQ
	local got want
	got=$(jv "$2" "$m"); want=$(jv "$3" "$t/truth.json")
	[ -n "$want" ] && [ "$got" = "$want" ]; check "$1" $? "got '$got', truth '$want'"
}
truth truth-fast-down .metrics.pressure.node0.fast_down .fast_down
truth truth-slow-up .metrics.pressure.node0.slow_up .slow_up
truth truth-fast-down-formula .metrics.pressure.node0.fast_down_formula_ok .fast_down_formula_ok
truth truth-fast-down-priority-match .metrics.pressure.node0.fast_down_priority_matched \
	.fast_down_priority_matched
truth truth-fast-down-preceding-match .metrics.pressure.node0.fast_down_preceding_priority_matched \
	.fast_down_preceding_priority_matched
truth truth-file-pageout .metrics.reclaim.file_pageout .file_pageout
truth truth-kswapd-wake-node0 .metrics.kswapd.node0.wake '.kswapd_wake."0"'
truth truth-slow-up-while-awake .metrics.pressure.node0.slow_up_while_kswapd_awake .slow_up_while_kswapd_awake
got=$(jv .metrics.pressure.node0.recovery_slope_per_s "$m")
[ "$got" = 64 ]; check truth-recovery-slope $? "got '$got' steps/s, generator recovers at 64"
got=$(jv .metrics.pressure.node0.min "$m")
[ "$got" = 32 ]; check pressure-min $? "got '$got', want 32 (priority 8)"
got=$(jv .metrics.pressure.node1.min "$m")
[ "$got" = 1024 ]; check pressure-min-untouched-node $? "got '$got', want 1024"

# series v2's throttle fields and 6.1's block_bio_queue (mktrace --v2 --block): reclaim's own
# writeback by kswapd's comm and node, metadata apart, against the generator's truth
"$bin/dpanalyze" "$t/v2.dat" --out "$t/v2" --nodes 2 2>"$t/err"; rc=$?
m2=$t/v2/metrics.json
got=$(jv '.metrics | [.reclaim.kswapd_write.pages, .reclaim.kswapd_write.node0.pages, .reclaim.kswapd_write.node1.pages, .reclaim.kswapd_write.meta_pages, .block.write_pages, .reclaim.kswapd_write_excess_pages] | map(tostring) | join(" ")' "$m2")
want=$(jv '[.kswapd_write_pages, .kswapd_write_node0_pages, .kswapd_write_node1_pages, .kswapd_meta_pages, .block_write_pages, (.kswapd_write_pages - .file_pageout)] | map(tostring) | join(" ")' "$t/v2truth.json")
[ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ]
check truth-kswapd-write $? "exit $rc, got '$got', truth '$want'"
# the same pages as trace-cmd's own text: write bios whose comm is kswapd*, no M flag
want=$(trace-cmd report "$t/v2.dat" 2>/dev/null |
	awk '/ block_bio_queue: / && /\[kswapd[0-9]+\]$/ { for (i = 1; i <= NF; i++) if ($i == "+") n = $(i + 1)
		if ($0 ~ / F?W[FAS]*M? / && $0 !~ / F?W[FAS]*M /) p += n / 8 } END { print p + 0 }')
got=$(jv .metrics.reclaim.kswapd_write.pages "$m2")
[ "$got" = "$want" ]; check kswapd-write-vs-report $? "got '$got', trace-cmd report gives '$want'"
got=$(jv '.metrics.throttle | [.pos_ratio_min, .pos_ratio_p50, .pos_ratio_max, .node_domain_calls, .freerun_min_pages, .node_dirty_at_limit_calls, .node_throttled_calls, .node_position_p50, .node_dirty_at_limit_late_calls, .node_position_late_p50] | map(tostring) | join(" ")' "$m2")
want=$(jv '[.pos_ratio_min, .pos_ratio_p50, .pos_ratio_max, .node_domain_calls, .freerun_min, .node_dirty_at_limit_calls, .node_throttled_calls, .node_position_p50, .node_dirty_at_limit_late_calls, .node_position_late_p50] | map(tostring) | join(" ")' "$t/v2truth.json")
# dpanalyze prints 6 significant digits: compare at that precision
got=$(echo "$got" | awk '{ printf "%.4f %.4f %.4f %d %d %d %d %.4f %s %.4f", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }')
want=$(echo "$want" | awk '{ printf "%.4f %.4f %.4f %d %d %d %d %.4f %s %.4f", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 }')
[ "$got" = "$want" ]; check truth-throttle-v2-fields $? "got '$got', truth '$want'"
got=$(jv '.trace | "\(.has_throttle_fields) \(.has_global_freerun_field) \(.has_node_domain_fields)"' "$m2")
old=$(jv '.trace | "\(.has_throttle_fields) \(.has_global_freerun_field) \(.has_node_domain_fields)"' "$m")
why=$(jv '.metrics.unmeasurable."throttle.pos_ratio_p50"' "$m")
[ "$got" = "true true true" ] && [ "$old" = "false false false" ] && case $why in *"before series v2"*) true ;; *) false ;; esac
check v2-fields-detected $? "v2 '$got', 6.1 layout '$old', reason '$why'"
why=$(jv '.metrics.unmeasurable."reclaim.kswapd_write"' "$m")
case $why in *block_bio_queue*) pass kswapd-write-unmeasurable-without-block ;;
	*) fail kswapd-write-unmeasurable-without-block "reason '$why'" ;; esac

# pauses: nearest-rank percentiles of pause > 0, recomputed from trace-cmd's text
want=$(trace-cmd report "$t/syn.dat" 2>/dev/null |
	sed -n 's/.*balance_dirty_pages:.* paused=\([0-9]*\) pause=\(-\{0,1\}[0-9]*\) .*/\2 \1/p' |
	awk '$1 > 0' | sort -n |
	awk '{ p[n++] = $1; h = $1 + $2; if (h > hm) hm = h; if ($1 >= 8 && $1 <= 200) b++ }
	END { k50 = int(n * 0.5 + 0.9999); k90 = int(n * 0.9 + 0.9999)
	      printf "%d %d %d %d %.4f", p[k50 - 1], p[k90 - 1], p[n - 1], hm, b / n }')
got=$(jv '.metrics.balance_dirty_pages | "\(.pause_p50_ms) \(.pause_p90_ms) \(.pause_max_ms) \(.max_held_ms) \(.pause_share_in_band * 10000 | round / 10000)"' "$m")
got=$(echo "$got" | awk '{ printf "%d %d %d %d %.4f", $1, $2, $3, $4, $5 }')
[ -n "$want" ] && [ "$got" = "$want" ]; check pauses-vs-report $? "got '$got', report gives '$want'"
# The generator's pauses are multiples of 4 ms (HZ=250): band 8..200 ms
got=$(jv '.metrics.balance_dirty_pages | "\(.jiffy_ms) \(.pause_band_low_ms) \(.pause_band_high_ms)"' "$m")
[ "$got" = "4 8 200" ]; check pause-band-from-jiffy $? "got '$got', want '4 8 200'"
got=$(jv '.metrics.bandwidth | "\(.bdi) \(.avg_write_bw_final_kBps > 27648 and .avg_write_bw_final_kBps < 33792) \(.converge_time_s > 0 and .converge_time_s < 20)"' "$m")
[ "$got" = "254:0 true true" ]; check bandwidth-estimate $? "got '$got' (generator converges to 30720 kB/s)"
# the device's write rate over the estimated span: nr_written of the latest global_dirty_state
# before the first and the last estimate, recomputed from trace-cmd's text (4 KiB pages)
want=$(trace-cmd report "$t/syn.dat" 2>/dev/null | awk '
	/ global_dirty_state: / { for (i = 1; i <= NF; i++) { if ($i ~ /^written=/) { w = substr($i, 9) }
				  if ($i ~ /^[0-9.]+:$/) { wt = substr($i, 1, length($i) - 1) } } have = 1 }
	/ bdi_dirty_ratelimit: +bdi 254:0:/ && have { if (!n++) { fw = w; ft = wt } lw = w; lt = wt
				  for (i = 1; i <= NF; i++) if ($i ~ /^awrite_bw=/) avg = substr($i, 11) }
	END { if (n && lt > ft) printf "%.0f %.3f", (lw - fw) * 4 / (lt - ft), avg / ((lw - fw) * 4 / (lt - ft)) }')
got=$(jv '.metrics.bandwidth | "\(.device_write_kBps | round) \(.estimate_to_device * 1000 | round / 1000)"' "$m")
got=$(echo "$got" | awk '{ printf "%.0f %.3f", $1, $2 }')
[ -n "$want" ] && [ "$got" = "$want" ]; check bandwidth-device-rate $? "got '$got', trace-cmd report gives '$want'"
# where the estimate settled: every estimate from 10 s after the first on, their nearest-rank
# median over what the device wrote from the first of them to the last, from trace-cmd's text
want=$(trace-cmd report "$t/syn.dat" 2>/dev/null | awk '
	/ global_dirty_state: / { for (i = 1; i <= NF; i++) { if ($i ~ /^written=/) { w = substr($i, 9) }
				  if ($i ~ /^[0-9.]+:$/) { wt = substr($i, 1, length($i) - 1) } } have = 1 }
	/ bdi_dirty_ratelimit: +bdi 254:0:/ && have {
		for (i = 1; i <= NF; i++) { if ($i ~ /^[0-9.]+:$/) t = substr($i, 1, length($i) - 1) + 0
					    if ($i ~ /^awrite_bw=/) a = substr($i, 11) + 0 }
		if (!n++) t0 = t
		if (t >= t0 + 10) { if (!k) { fw = w; ft = wt } e[k++] = a; lw = w; lt = wt } }
	END { if (k < 2 || lt <= ft) exit
	      for (i = 0; i < k; i++) for (j = i + 1; j < k; j++) if (e[j] < e[i]) { x = e[i]; e[i] = e[j]; e[j] = x }
	      dev = (lw - fw) * 4 / (lt - ft); m = int(k * 0.5 + 0.9999)
	      printf "%d %.0f %.3f", k, dev, e[m - 1] / dev }')
got=$(jv '.metrics.bandwidth | "\(.settled_samples) \(.settled_device_write_kBps) \(.settled_estimate_to_device)"' "$m")
got=$(echo "$got" | awk '{ printf "%d %.0f %.3f", $1, $2, $3 }')
[ -n "$want" ] && [ "$got" = "$want" ]; check bandwidth-settled $? "got '$got', trace-cmd report gives '$want'"
# --task: one task's own balance_dirty_pages() entries, pauses and longest pause, from
# trace-cmd's text by comm; a name that never entered is reported with zeros, not left out
"$bin/dpanalyze" "$t/syn.dat" --out "$t/tk" --no-tsv --task dd --task nobody 2>"$t/err"; rc=$?
want=$(trace-cmd report "$t/syn.dat" 2>/dev/null | awk '$1 ~ /^dd-[0-9]+$/ && / balance_dirty_pages: / {
	n++; for (i = 1; i <= NF; i++) if ($i ~ /^pause=/) { p = substr($i, 7) + 0; if (p > 0) { k++; if (p > mx) mx = p } } }
	END { printf "%d %d %d 0 0 0", n, k, mx }')
got=$(jv '.metrics.balance_dirty_pages.task | "\(.dd.calls) \(.dd.pauses) \(.dd.pause_max_ms) \(.nobody.calls) \(.nobody.pauses) \(.nobody.pause_max_ms)"' "$t/tk/metrics.json")
[ $rc -eq 0 ] && [ "${want%% *}" -gt 0 ] && [ "$got" = "$want" ]; check task-counts $? "exit $rc, got '$got', trace-cmd report gives '$want'"
# --task on a v2 trace: of its pauses, those taken while its node domain was under its
# freerun ceiling (node_limit > 0, node_dirty <= node_freerun: the global domain's), from
# trace-cmd's text; the synthetic trace has some
"$bin/dpanalyze" "$t/v2.dat" --out "$t/tk2" --no-tsv --task dd 2>"$t/err"; rc=$?
want=$(trace-cmd report "$t/v2.dat" 2>/dev/null | awk '$1 ~ /^dd-[0-9]+$/ && / balance_dirty_pages: / {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 }
	if (v["pause"] > 0) { k++; if (v["node_limit"] > 0 && v["node_dirty"] <= v["node_freerun"]) u++ } }
	END { printf "%d %d", k, u }')
got=$(jv '.metrics.balance_dirty_pages.task.dd | "\(.pauses) \(.pauses_under_node_ceiling)"' "$t/tk2/metrics.json")
[ $rc -eq 0 ] && [ "${want#* }" -gt 0 ] && [ "$got" = "$want" ]
check task-pauses-under-node-ceiling $? "exit $rc, got '$got', trace-cmd report gives '$want'"

# TSV: header names the columns; node0 rows are exactly node0's events
hdr=$(head -1 "$t/o/tsv/dirty_pressure.node0.tsv" 2>/dev/null)
[ "$hdr" = "$(printf 'time_s\tcpu\tpid\tnid\told\tnew\tpriority\treason')" ]
check tsv-header $? "got '$hdr'"
want=$(trace-cmd report "$t/syn.dat" 2>/dev/null | grep -c 'dirty_pressure: *nid=0 ')
got=$(($(wc -l <"$t/o/tsv/dirty_pressure.node0.tsv") - 1))
[ "$got" = "$want" ]; check tsv-node-split $? "node0 rows $got, report has $want"
got=$(awk -F'\t' 'NR > 2 && ($1 + 0 < 0 || $1 + 0 < prev + 0) { bad = 1 } { prev = $1 } END { print bad + 0 }' \
	"$t/o/tsv/global_dirty_state.tsv")
[ "$got" = 0 ]; check tsv-time-monotonic $? "time_s goes backwards or negative"

# ---- stock kernel: pressure unmeasurable, not a crash ----
"$bin/dpanalyze" "$t/stock.dat" --out "$t/s" 2>"$t/err"; rc=$?
why=$(jv '.metrics.unmeasurable.pressure' "$t/s/metrics.json")
got=$(jv '.metrics.balance_dirty_pages.pause_max_ms <= 200' "$t/s/metrics.json")
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && [ "$got" = true ]
check stock-unmeasurable $? "exit $rc, pause_max_ms <= 200: '$got'"
case $why in *dirty_pressure*) pass stock-reason ;; *) fail stock-reason "reason '$why'" ;; esac

# ---- --extra-metrics: merged at the top of metrics, numbers written as the trace's ----
cat >"$t/extra.json" <<'EOF'
{"vmstat": {"nr_vmscan_write": 0, "pgscan_direct": 12, "ratio": 0.123456789},
 "workload": {"ok": true, "name": "a/b \"q\"", "none": null, "list": [1, 2.5]}}
EOF
printf '{"wall_s": 61.25}\n' >"$t/extra2.json"
"$bin/dpanalyze" "$t/syn.dat" --out "$t/k" --no-tsv --extra-metrics "$t/extra.json" \
	--extra-metrics "$t/extra2.json" 2>"$t/err"; rc=$?
got=$(jv '.metrics | [.vmstat.nr_vmscan_write, .vmstat.pgscan_direct, .vmstat.ratio, .workload.ok,
	.workload.name, .workload.none, .workload.list, .wall_s, (.pressure.node0 | has("min"))] | tojson' "$t/k/metrics.json")
want='[0,12,0.123457,true,"a/b \"q\"",null,[1,2.5],61.25,true]'
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && [ "$got" = "$want" ]
check extra-metrics-merged $? "exit $rc, got '$got'"
# checks are launch/collect.py's (a scenario's check lines): the document has none
got=$(jv 'keys | join(",")' "$t/k/metrics.json")
[ "$got" = "metrics,trace" ]; check document-keys $? "got '$got'"

# ---- bad input: one line on stderr naming what is wrong, exit 2 ----
bad() {	# NAME EXPECTED-SUBSTRING ARGS...
	local name=$1 want=$2 rc lines; shift 2
	"$bin/dpanalyze" "$@" >"$t/out" 2>"$t/err"; rc=$?
	lines=$(wc -l <"$t/err")
	if [ $rc -ne 2 ]; then fail "$name" "exit $rc, want 2"
	elif [ "$lines" -ne 1 ]; then fail "$name" "$lines lines on stderr, want 1"
	elif ! grep -qF -- "$want" "$t/err"; then fail "$name" "got '$(cat "$t/err")', want '$want'"
	else pass "$name"; fi
}
printf 'not a trace\n' >"$t/text.dat"
: >"$t/empty.dat"
head -c 3000 "$t/syn.dat" >"$t/trunc-head.dat"
head -c 20000 "$t/syn.dat" >"$t/trunc-data.dat"
printf '{"pressure": 1}\n' >"$t/clash.json"
printf '{"a": [1, 2\n' >"$t/broken.json"
printf '[1, 2]\n' >"$t/array.json"
printf '{"a": 1} {"b": 2}\n' >"$t/trailing.json"
bad bad-no-args "missing TRACE.dat"
bad bad-no-out "--out DIR is required" "$t/syn.dat"
bad bad-option "unknown option '--bogus'" --bogus
bad bad-nodes "--nodes: want a node count 1..64, not 'two'" "$t/syn.dat" --out "$t/b" --nodes two
bad bad-task-name "--task: want a task name of 1..15 characters" "$t/syn.dat" --out "$t/b" --task 'a b'
bad bad-task-long "--task: want a task name of 1..15 characters" "$t/syn.dat" --out "$t/b" --task abcdefghijklmnop
bad bad-task-twice "--task dd given twice" "$t/syn.dat" --out "$t/b" --task dd --task dd
bad bad-missing-file "no-such.dat: cannot read" "$t/no-such.dat" --out "$t/b"
bad bad-not-a-trace "text.dat: not a readable trace.dat" "$t/text.dat" --out "$t/b"
bad bad-empty-file "empty.dat: not a readable trace.dat" "$t/empty.dat" --out "$t/b"
bad bad-real-no-events "no-events-v7.trace: the trace holds no events" "$real_hdr" --out "$t/b"
bad bad-truncated-header "trunc-head.dat: not a readable" "$t/trunc-head.dat" --out "$t/b"
bad bad-truncated-data "trunc-data.dat: trace data truncated or corrupt" "$t/trunc-data.dat" --out "$t/b"
bad bad-checks-gone "unknown option '--checks'" "$t/syn.dat" --out "$t/b" --checks "$t/x.checks"
bad bad-extra-clash "key 'pressure' clashes" "$t/syn.dat" --out "$t/b" --extra-metrics "$t/clash.json"
bad bad-extra-json "broken.json: not valid JSON" "$t/syn.dat" --out "$t/b" --extra-metrics "$t/broken.json"
bad bad-extra-array "array.json: extra metrics must be a JSON object" "$t/syn.dat" --out "$t/b" --extra-metrics "$t/array.json"
bad bad-extra-trailing "trailing.json: not valid JSON: at byte 9" "$t/syn.dat" --out "$t/b" --extra-metrics "$t/trailing.json"
bad bad-extra-missing "nope.json: cannot open" "$t/syn.dat" --out "$t/b" --extra-metrics "$t/nope.json"

# ---- JSON escaping: a path with quotes, backslash and a tab survives a round trip ----
odd=$t/'we"ird\	name.dat'
cp "$t/syn.dat" "$odd"
"$bin/dpanalyze" "$odd" --out "$t/w" --no-tsv 2>"$t/err"; rc=$?
got=$(jq -r .trace.file "$t/w/metrics.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "$got" = "$odd" ]; check json-escaping $? "exit $rc, file '$got'"

# ---- sched.c: where each --task's time went, from sched_switch ----
# against the generator's scheduler (mktrace --sched): every time and every preempter of both
# dirtier processes and the hog, at dpanalyze's 6 significant digits
"$bin/dpanalyze" "$t/sched.dat" --out "$t/sc" --no-tsv --task dirtier --task hog 2>"$t/err"; rc=$?
out=$(python3 - "$t/sc/metrics.json" "$t/schedtruth.json" <<'EOF'
import json, sys
got = json.load(open(sys.argv[1]))["metrics"]["sched"]["task"]
want = json.load(open(sys.argv[2]))["sched"]
bad, n = [], 0
def cmp(path, g, w):
    global n
    if isinstance(w, dict):
        extra = {k for k in (g or {}) if k not in w and k != "exited" and not k.endswith("_share")}
        if extra:
            bad.append("%s: unexpected %s" % (path, sorted(extra)))
        for k, v in w.items():
            cmp(path + "." + k, (g or {}).get(k), v)
        return
    n += 1
    if g is None or abs(g - w) > 1e-5 * max(1.0, abs(w)):
        bad.append("%s: got %s, truth %s" % (path, g, w))
cmp("sched.task", got, want)
# the shares of a task's span add up to 1
for name, o in got.items():
    for one in [o] + list(o.get("by_start", {}).values()):
        tot = sum(v for k, v in one.items() if k.endswith("_share"))
        n += 1
        if abs(tot - 1) > 1e-4:
            bad.append("%s: shares add up to %s" % (name, tot))
print("%d values, %d differ: %s" % (n, len(bad), "; ".join(bad[:3])))
EOF
)
[ $rc -eq 0 ] && [ "${out#* values, 0 differ}" != "$out" ] && [ "${out%% *}" -ge 40 ]
check sched-truth $? "exit $rc: $out"
# the third dirtier reuses the first one's pid after it exited: a process of its own
got=$(jv '.metrics.sched.task.dirtier | [.instances, .by_start["1"].exited, .by_start["2"].exited, .by_start["3"].pid == .by_start["1"].pid] | map(tostring) | join(" ")' "$t/sc/metrics.json")
[ "$got" = "3 1 1 true" ]; check sched-instances-in-start-order $? "got '$got', want 3 processes, the first two exited, the third with the first one's pid"
# 6.1's sched_switch, field for field as the guest kernel lays it out
schedfix=$fix/analysis/real-8node-tiny-node-isolation-off-sched.trace
fields "$schedfix" | grep '^sched_switch: ' >"$t/f.reals"
fields "$t/sched.dat" | grep '^sched_switch: ' >"$t/f.syns"
[ -s "$t/f.reals" ] && cmp -s "$t/f.reals" "$t/f.syns"
check mktrace-sched-layout-matches-kernel $? "$(diff "$t/f.reals" "$t/f.syns" | grep '^[<>]' | head -2 | tr '\n' ' ')"
# a real trace (8node-tiny node-isolation in mode off: the last second of the unbound
# dirtier beside the hog on node 0's CPU): dpanalyze against trace-cmd report's own text
"$bin/dpanalyze" "$schedfix" --out "$t/scr" --no-tsv --task dirtier 2>"$t/err"; rc=$?
want=$(trace-cmd report "$schedfix" 2>/dev/null | python3 -c '
import re, sys
ev = re.compile(r"\s([\d.]+): sched_switch:\s+(.+?):(\d+) \[\d+\] (\S+) ==> (.+?):(\d+) \[")
tot, state, since = {}, None, None
for line in sys.stdin:
    m = ev.search(line)
    if not m:
        continue
    t = float(m[1])
    if m[2] == "dirtier":
        if since is not None:
            tot["on_cpu"] = tot.get("on_cpu", 0) + t - since
        st = m[4].rstrip("+")
        state = {"R": "runnable", "D": "blocked", "S": "sleeping"}.get(st, "exited" if st in "XZ" else "stopped")
        since = t
    if m[5] == "dirtier":
        if since is not None:
            tot[state] = tot.get(state, 0) + t - since
        since = t
print(" ".join("%.4f" % tot.get(k, 0) for k in ("on_cpu", "runnable", "blocked")))')
got=$(jv '.metrics.sched.task.dirtier | [.on_cpu_s, .runnable_s, .blocked_s] | map(tostring) | join(" ")' "$t/scr/metrics.json" |
	awk '{ printf "%.4f %.4f %.4f", $1, $2, $3 }')
[ $rc -eq 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && [ "${want%% *}" != 0.0000 ]
check sched-real-vs-report $? "exit $rc, got '$got', trace-cmd report gives '$want'"
got=$(jv '.metrics.sched.task.dirtier.preempted_by.hog / .metrics.sched.task.dirtier.runnable_s | . * 100 | floor' "$t/scr/metrics.json")
[ "${got:-0}" -ge 90 ]; check sched-real-hog-preempts $? "the hog ran ${got:-?}% of the dirtier's waits, want >= 90 (it shares node 0's CPU)"
# no sched_switch in the trace: said, not zeros; no --task: no sched object at all
"$bin/dpanalyze" "$t/syn.dat" --out "$t/scn" --no-tsv --task dd 2>"$t/err"
got=$(jv '[(.metrics.sched == null), (.metrics.unmeasurable.sched | test("sched_switch"))] | map(tostring) | join(" ")' "$t/scn/metrics.json")
[ "$got" = "true true" ]; check sched-unmeasurable-without-event $? "got '$got'"
"$bin/dpanalyze" "$t/sched.dat" --out "$t/scq" --no-tsv 2>"$t/err"
got=$(jv '.metrics.sched == null' "$t/scq/metrics.json")
[ "$got" = true ]; check sched-only-with-task $? "got '$got'"

# ---- valgrind on one clean run (the sanitizer build covers the fuzz) ----
if command -v valgrind >/dev/null; then
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$bin/dpanalyze" "$t/syn.dat" --out "$t/v" --task dd \
		--extra-metrics "$t/extra.json" >/dev/null 2>"$t/vg"; rc=$?
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$bin/dpanalyze" "$t/sched.dat" --out "$t/v" --task dirtier --task hog \
		>/dev/null 2>>"$t/vg"; rc=$((rc + $?))
	[ $rc -eq 0 ]; check valgrind-clean $? "exit $rc: $(head -2 "$t/vg")"
else
	fail valgrind-clean "valgrind not installed"
fi

# ---- plots.sh: five 1280x720 PNGs, throttle.png (a panel of 240 px per series) and an
# index; missing events listed, not faked ----
out=$("$top/analysis/plots.sh" "$t/o" 2>&1); rc=$?
n=0
for p in dirty:720 pressure:720 pause:720 bandwidth:720 reclaim:720 throttle:540; do
	f=$t/o/plots/${p%:*}.png
	[ "$(file -b "$f" 2>/dev/null | cut -d, -f1-2)" = "PNG image data, 1280 x ${p#*:}" ] &&
		grep -q "src=\"${p%:*}.png\"" "$t/o/plots/index.html" && n=$((n + 1))
done
[ $rc -eq 0 ] && [ $n -eq 6 ]; check plots-drawn $? "exit $rc, $n of 6 PNGs in the index: $out"
# without the sampler, a trace with node domain calls (node_limit > 0) still gets the third
# panel: the bound task's dirty pages against its node limit and freerun, from the trace alone
# (a bench run has no sampler; before, its node domain was not drawn at all)
PLOTS_KEEP_GP=1 "$top/analysis/plots.sh" "$t/v2" >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(file -b "$t/v2/plots/throttle.png" | cut -d, -f1-2)" = "PNG image data, 1280 x 780" ] &&
	grep -q "against their node domain" "$t/v2/plots/throttle.png.gp" &&
	grep -q "node limit" "$t/v2/plots/throttle.png.gp" && grep -q "node dirty+writeback" "$t/v2/plots/throttle.png.gp"
check plots-node-domain-from-trace $? "exit $rc: $(file -b "$t/v2/plots/throttle.png" | cut -d, -f1-2), no node domain panel without the sampler"
# with the guest's node sampler (placed by trace.first_ts_s) throttle.png gets a third panel;
# the labels say whether the freerun line is what the throttle used (v2 fields) or not, and
# (series patch 9) that a node-throttled call's dirty_ratelimit is the node domain's rate
awk -v f="$(jv .trace.first_ts_s "$m2")" 'BEGIN { print "t_s\tdirty_kb\twriteback_kb\tnode0_dirty_kb\tnode0_writeback_kb"
	for (t = 0; t < 20; t += 0.5) printf "%.2f\t%d\t%d\t%d\t%d\n", f + t, 9000, 3000, 8000, 2500 }' >"$t/v2/nodemem.tsv"
PLOTS_KEEP_GP=1 "$top/analysis/plots.sh" "$t/v2" >/dev/null 2>&1; rc=$?
PLOTS_KEEP_GP=1 "$top/analysis/plots.sh" "$t/o" >/dev/null 2>&1
[ $rc -eq 0 ] && [ "$(file -b "$t/v2/plots/throttle.png" | cut -d, -f1-2)" = "PNG image data, 1280 x 780" ] &&
	grep -q "pos_ratio (traced)" "$t/v2/plots/throttle.png.gp" && grep -q "node limit" "$t/v2/plots/throttle.png.gp" &&
	grep -q "freerun the throttle compared against" "$t/v2/plots/dirty.png.gp" &&
	! grep -q "not what the throttle used" "$t/v2/plots/dirty.png.gp" &&
	grep -q "(bg+thresh)/2 stock, not what the throttle used" "$t/o/plots/dirty.png.gp" &&
	! grep -q "pos_ratio" "$t/o/plots/throttle.png.gp" &&
	grep -q "the rate it was throttled at" "$t/v2/plots/throttle.png.gp" &&
	grep -q "task_ratelimit against dirty_ratelimit" "$t/o/plots/throttle.png.gp"
check plots-throttle-fields $? "exit $rc: throttle.png or the labels do not follow the trace's fields"
# bound-writers: four writers in one node domain are one series named by their pids, on a
# linear axis (a log axis and a legend entry per pid hid the domain: 2026-12-07); two domains
# of different sizes keep the log axis, a series each
python3 "$top/analysis/mktrace.py" "$t/w4.dat" --v2 --node-writers 4 >/dev/null 2>&1 &&
	"$bin/dpanalyze" "$t/w4.dat" --out "$t/w4" --nodes 2 >/dev/null 2>&1 &&
	PLOTS_KEEP_GP=1 "$top/analysis/plots.sh" "$t/w4" >/dev/null 2>&1; rc=$?
python3 "$top/analysis/mktrace.py" "$t/w2d.dat" --v2 --node-writers 4:2 >/dev/null 2>&1 &&
	"$bin/dpanalyze" "$t/w2d.dat" --out "$t/w2d" --nodes 2 >/dev/null 2>&1 &&
	PLOTS_KEEP_GP=1 "$top/analysis/plots.sh" "$t/w2d" >/dev/null 2>&1; rc2=$?
g=$t/w4/plots/throttle.png.gp g2=$t/w2d/plots/throttle.png.gp
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] &&
	[ "$(file -b "$t/w4/plots/throttle.png" | cut -d, -f1-2)" = "PNG image data, 1280 x 780" ] &&
	[ "$(file -b "$t/w2d/plots/throttle.png" | cut -d, -f1-2)" = "PNG image data, 1280 x 780" ] &&
	[ "$(grep -o 'title "node limit[^"]*"' "$g" | sort -u)" = 'title "node limit, pids 100,101,102,103"' ] &&
	! grep -q "set logscale y" "$g" &&
	[ "$(grep -o 'title "node limit[^"]*"' "$g2" | sort -u | wc -l)" -eq 2 ] &&
	grep -q 'title "node limit, pids 100,102"' "$g2" && grep -q 'title "node limit, pids 101,103"' "$g2" &&
	grep -q "set logscale y" "$g2"
check plots-node-domains-grouped $? "exit $rc/$rc2: $(grep -ho 'title "node limit[^"]*"' "$g" "$g2" 2>/dev/null | tr '\n' ' ')"
"$bin/dpanalyze" "$t/stock.dat" --out "$t/sp" >/dev/null 2>&1
"$top/analysis/plots.sh" "$t/sp" >/dev/null 2>&1; rc=$?
[ $rc -eq 0 ] && [ ! -e "$t/sp/plots/pressure.png" ] && grep -q "<li>pressure.png: no dirty" "$t/sp/plots/index.html"
check plots-stock-says-not-drawn $? "exit $rc or pressure.png drawn without dirty_pressure events"
"$top/analysis/plots.sh" "$t/nowhere" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ]; check plots-bad-dir $? "exit $rc: $(cat "$t/err")"

# ---- compare.sh: run against run ----
"$top/analysis/compare.sh" "$t/cmp" "$t/o" "$t/sp" >/dev/null 2>"$t/err"; rc=$?
got=$(awk -F'\t' 'NR > 1 { printf "%s:%s ", $1, $4 }' "$t/cmp/compare-metrics.tsv" 2>/dev/null)
want="o:$(jv .fast_down "$t/truth.json") sp:NaN "
[ $rc -eq 0 ] && [ "$got" = "$want" ] &&
	[ "$(file -b "$t/cmp/compare-metrics.png" | cut -d, -f1-2)" = "PNG image data, 1280 x 720" ] &&
	[ "$(file -b "$t/cmp/compare-pressure.png" | cut -d, -f1-2)" = "PNG image data, 1280 x 720" ]
check compare-runs $? "exit $rc, fast_down column '$got', want '$want': $(head -1 "$t/err")"
"$top/analysis/compare.sh" "$t/cmp" "$t/o" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ]; check compare-needs-two-runs $? "exit $rc"

# ---- KernelShark: session writer, plugin, and a screenshot under Xvfb ----
plugin=$top/build/lib/plugin-dirty_pressure.so
"$bin/dpsession" --help >"$t/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "^Usage: dpsession " "$t/out"; check dpsession-help $? "exit $rc"
"$bin/dpsession" "$t/no.dat" --out "$t/x.json" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ]; check dpsession-bad-input $? "exit $rc: $(head -2 "$t/err")"
"$bin/dpsession" "$t/syn.dat" --out "$t/session.json" --plugin "$plugin" >/dev/null 2>"$t/err"; rc=$?
got=$(jq -r '[.type, (."data streams"[0].CPUPlots | length),
	(."data streams"[0].filters."show event filter" | index("writeback/dirty_pressure") != null),
	."User Plugins"."obj. files"[0].file] | join(" ")' "$t/session.json" 2>/dev/null)
[ $rc -eq 0 ] && [ "$got" = "kshark.config.session 2 true $plugin" ]
check dpsession-writes-session $? "exit $rc, got '$got'"
"$bin/dpsession" "$t/syn.dat" --out "$t/bare.json" >/dev/null 2>&1
# the plugin's colours: fast_down red, slow_up green (analysis/kshark-plugin/DirtyPressure.cpp)
colours() {	# PNG: "red green" pixel counts in the graph area
	convert-im6.q16 "$1" -crop 1260x260+10+100 -format %c histogram:info:- 2>/dev/null |
		awk '/#D62728/ { r = $1 } /#2CA02C/ { g = $1 } END { printf "%d %d", r, g }' | tr -d :
}
art=$top/build/test-artifacts
mkdir -p "$art"
if "$top/analysis/kshark-plugin/screenshot.sh" "$t/session.json" "$art/kernelshark-dirty_pressure.png" 2>"$t/err"; then
	set -- $(colours "$art/kernelshark-dirty_pressure.png")
	[ "${1:-0}" -gt 0 ] && [ "${2:-0}" -gt 0 ]
	check kernelshark-plugin-draws $? "red $1 / green $2 pixels: no fast_down/slow_up marks"
else
	fail kernelshark-plugin-draws "$(cat "$t/err")"
fi
# the same trace without the plugin has none of those marks: the check above can fail
if "$top/analysis/kshark-plugin/screenshot.sh" "$t/bare.json" "$t/bare.png" 2>"$t/err"; then
	set -- $(colours "$t/bare.png")
	[ "${1:-0}" -eq 0 ] && [ "${2:-0}" -eq 0 ]
	check kernelshark-without-plugin-no-marks $? "red $1 / green $2 pixels without the plugin"
else
	fail kernelshark-without-plugin-no-marks "$(cat "$t/err")"
fi

# ---- fuzz: truncated and bit-flipped copies under ASan+UBSan: exit 0 or 2, no report ----
seeds=("$t/syn.dat" "$t/stock.dat" "$t/sched.dat" "$real_hdr")
for f in "$fix"/analysis/real-*.trace; do [ -e "$f" ] && seeds+=("$f"); done
mkdir -p "$t/fz"
python3 - "$FUZZ_N" "$t/fz" "${seeds[@]}" <<'EOF'
import random, sys
n, out, seeds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
r = random.Random(20260)
data = [open(s, "rb").read() for s in seeds]
for i in range(n):
    b = bytearray(data[i % len(data)])
    if i % 2 == 0:
        b = b[:r.randrange(len(b))]
    else:
        for _ in range(r.randint(1, 16)):
            k = r.randrange(len(b))
            b[k] ^= 1 << r.randrange(8)
    open("%s/%05d.dat" % (out, i), "wb").write(b)
EOF
# allocator_may_return_null: a wild length from a damaged header makes libtracecmd ask
# for petabytes; like glibc, return NULL (which it handles) instead of aborting.
# Leak checking costs ~0.2 s a run, so every 25th copy gets it (fast_unwind_on_malloc=0:
# the libraries have no frame pointers, and full stacks let the suppressions match).
export ASAN_BASE=abort_on_error=0:exitcode=99:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:exitcode=99:print_stacktrace=1
export LSAN_OPTIONS=suppressions=$fix/analysis-lsan.supp:exitcode=99
ls "$t/fz"/*.dat | xargs -P 2 -n 1 sh -c '
	case $1 in
	*[05]0.dat|*[27]5.dat) a=$ASAN_BASE:detect_leaks=1:fast_unwind_on_malloc=0 ;;
	*) a=$ASAN_BASE:detect_leaks=0 ;;
	esac
	ASAN_OPTIONS=$a timeout 20 "$0" "$1" --out "$1.o" --no-tsv --task dirtier --task hog \
		>/dev/null 2>"$1.err"; rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ] || grep -q "ERROR: [A-Za-z]*Sanitizer\|runtime error" "$1.err"; then
		echo "$(basename "$1") exit $rc: $(grep -m1 "ERROR\|runtime error\|dpanalyze" "$1.err")"
	fi
	rm -rf "$1.o"' "$bin/dpanalyze-san" >"$t/fuzz.bad"
nf=$(ls "$t/fz"/*.dat | wc -l)
nbad=$(wc -l <"$t/fuzz.bad")
n2=$(grep -l . "$t/fz"/*.err 2>/dev/null | wc -l)
[ "$nf" -ge "$FUZZ_N" ] && [ "$nbad" -eq 0 ]
check "fuzz-$nf-copies" $? "$nbad bad: $(head -2 "$t/fuzz.bad" | tr '\n' ' ')"
# the fuzz must have exercised the error path, or it tested nothing
[ "$n2" -gt 0 ]; check fuzz-hits-error-path $? "no copy was rejected"
echo "# fuzz: $nf copies, $n2 rejected with exit 2" >&2

exit $failed
