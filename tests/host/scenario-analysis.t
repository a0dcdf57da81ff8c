#!/bin/bash
# Host tests of the analysis that scenarios do inside the guest, on
# synthetic input with planted defects: each metric a check reads must be
# able to show the failure it is there for.
#   trickle: BATCH_AWK (node 0's reclaim batches and fast-downs from an
#            ftrace instance's text)
#   vmstat-cpuset: COMPARE_AWK (thresholds per reader and round)
. "$(dirname "$0")/../lib.sh"
scratch

# A scenario's top level as the guest sources it: check lines commented out
# (their < and > would be redirections).
scenario_vars() { sed 's/^[[:space:]]*check /#&/' "workloads/scenarios/$1.sh" >"$tmp/$1.sh"; }
# metric NAME from "name value" lines in FILE
m() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# --- trickle ---------------------------------------------------------------
scenario_vars trickle
BATCH_AWK=$(. "$tmp/trickle.sh"; printf '%s' "$BATCH_AWK")
ev() {	# ev COMM-PID PRIO SCANNED DIRTY WRITEBACK [NID]
	printf '   %s  [000] .....  1.0: mm_vmscan_lru_shrink_inactive: nid=%s nr_scanned=%s nr_reclaimed=%s nr_dirty=%s nr_writeback=%s nr_congested=0 nr_immediate=0 nr_activate_anon=0 nr_activate_file=%s nr_ref_keep=0 nr_unmap_fail=0 priority=%s flags=RECLAIM_WB_FILE|RECLAIM_WB_ASYNC\n' \
		"$1" "${6:-0}" "$3" "$(($3 - $4))" "$4" "$5" "$4" "$2"
}
fd() {	# fd COMM-PID PRIO NEW
	printf '   %s  [000] d..1.  1.0: dirty_pressure: nid=0 old=1024 new=%s priority=%s reason=fast_down\n' "$1" "$3" "$2"
}
{
	echo '# tracer: nop'
	ev kswapd0-38 12 32 0 0		# clean
	ev kswapd0-38 7 32 4 0		# minor: one 4-page write in 32
	fd kswapd0-38 7 16
	ev kswapd0-38 7 15 8 0		# significant partial batch (a quarter of a full one): its fast-down
	ev kswapd0-38 6 32 8 8		# significant by nr_dirty, all under writeback
	ev dd-1234 12 32 8 0		# direct reclaim, significant at priority 12
	ev kswapd0-38 7 16 4 0		# minor: a quarter of a partial batch, not of a full one (the batch rule's first form)
	ev kswapd1-39 7 32 32 0 1	# node 1: not counted (the instance filters nid 0 too)
} >"$tmp/good.trace"
awk "$BATCH_AWK" "$tmp/good.trace" >"$tmp/good.m" 2>"$tmp/good.err"
got=$(for k in node0_batches node0_kswapd_scanned node0_kswapd_reclaimed node0_direct_scanned node0_dirty_met \
	node0_batches_dirty node0_batches_dirty_minor node0_batches_dirty_significant node0_batches_dirty_significant_partial \
	node0_batches_dirty_nowb_significant_below_prio12 node0_batches_dirty_significant_min_priority node0_fast_downs \
	node0_fast_downs_significant_batch node0_fast_downs_minor_batch node0_fast_downs_no_batch node0_dirty_share; do
	printf '%s=%s ' "$k" "$(m "$k" "$tmp/good.m")"; done)
want='node0_batches=6 node0_kswapd_scanned=127 node0_kswapd_reclaimed=103 node0_direct_scanned=32 node0_dirty_met=32 node0_batches_dirty=5 node0_batches_dirty_minor=2 node0_batches_dirty_significant=3 node0_batches_dirty_significant_partial=1 node0_batches_dirty_nowb_significant_below_prio12=1 node0_batches_dirty_significant_min_priority=6 node0_fast_downs=1 node0_fast_downs_significant_batch=1 node0_fast_downs_minor_batch=0 node0_fast_downs_no_batch=0 node0_dirty_share=0.201258 '
[ "$got" = "$want" ] && pass trickle_batches || bad trickle_batches "got '$got'"
# kswapd0's scanned pages by priority: 32 at 12, 63 at 7, 32 at 6 -> half reached at 7
[ "$(m node0_kswapd_priority_p50 "$tmp/good.m")" = 7 ] && pass trickle_priority_p50 \
	|| bad trickle_priority_p50 "got '$(m node0_kswapd_priority_p50 "$tmp/good.m")'"
# planted: a fast-down whose batch was minor (the gate failed), and one whose
# batch never came
{
	ev kswapd0-38 9 32 0 0
	fd kswapd0-38 8 32
	ev kswapd0-38 8 32 4 0
	fd kswapd0-38 8 32
} >"$tmp/bad.trace"
awk "$BATCH_AWK" "$tmp/bad.trace" >"$tmp/bad.m" 2>/dev/null
[ "$(m node0_fast_downs_minor_batch "$tmp/bad.m")" = 1 ] && [ "$(m node0_fast_downs_no_batch "$tmp/bad.m")" = 1 ] \
	&& [ "$(m node0_fast_downs "$tmp/bad.m")" = 2 ] && pass trickle_gate_violation_seen \
	|| bad trickle_gate_violation_seen "$(tr '\n' ' ' <"$tmp/bad.m")"
# an empty instance: counts are 0, no share or priority is made up
: >"$tmp/empty.trace"
awk "$BATCH_AWK" "$tmp/empty.trace" >"$tmp/empty.m" 2>/dev/null
[ "$(m node0_batches "$tmp/empty.m")" = 0 ] && [ -z "$(m node0_dirty_share "$tmp/empty.m")" ] \
	&& [ -z "$(m node0_kswapd_priority_p50 "$tmp/empty.m")" ] && pass trickle_empty_trace \
	|| bad trickle_empty_trace "$(tr '\n' ' ' <"$tmp/empty.m")"

# --- vmstat-cpuset ---------------------------------------------------------
scenario_vars vmstat-cpuset
COMPARE_AWK=$(. "$tmp/vmstat-cpuset.sh"; printf '%s' "$COMPARE_AWK")
cmp_run() {	# cmp_run MODE FILE -> metrics (3 readers, 200 MiB / 100 MiB)
	awk -v pre= -v mode="$1" -v db=209715200 -v bgb=104857600 -v nreaders=3 "$COMPARE_AWK" "$2"
}
hdr='round reader thresh bg p_before p_after'
# at p 512 the document's background threshold is 25600 * 512 / 1024 = 12800;
# readers are compared where they saw the same pressure (round 1's all with
# round 0's readers at 512, round 1's bind0 and cpuset0 at 513)
printf '%s\n' "$hdr" \
	'0 all 51200 12800 512 512' '0 bind0 51200 12800 512 512' '0 cpuset0 51200 12800 512 512' \
	'1 all 51200 12800 512 512' '1 bind0 51200 12825 513 513' '1 cpuset0 51200 12825 513 513' \
	'2 all 51200 12825 512 513' >"$tmp/ok.tsv"
cmp_run global "$tmp/ok.tsv" >"$tmp/ok.m"
got=$(for k in rounds rounds_incomplete reads reads_pinned pressure_groups readers_uncompared max_diff_thresh \
	max_diff_bg doc_thresh_mismatch doc_bg_mismatch; do printf '%s=%s ' "$k" "$(m "$k" "$tmp/ok.m")"; done)
[ "$got" = 'rounds=3 rounds_incomplete=1 reads=7 reads_pinned=6 pressure_groups=2 readers_uncompared=0 max_diff_thresh=0 max_diff_bg=0 doc_thresh_mismatch=0 doc_bg_mismatch=0 ' ] \
	&& pass vmstat_cpuset_compare || bad vmstat_cpuset_compare "got '$got'"
# planted: a reader whose background threshold is its own node's pressure
# (v1), another whose hard limit was scaled; a round with a missing reader
printf '%s\n' "$hdr" \
	'0 all 51200 12800 512 512' '0 bind0 51200 250 512 512' '0 cpuset0 51200 12800 512 512' \
	'1 all 51200 12800 512 512' '1 bind0 51200 12800 512 512' '1 cpuset0 25600 12800 512 512' \
	'2 all 51200 12800 512 512' '2 bind0' >"$tmp/bad.tsv"
cmp_run node "$tmp/bad.tsv" >"$tmp/bad.m"
got=$(for k in rounds_incomplete max_diff_thresh max_diff_bg doc_thresh_mismatch doc_bg_mismatch; do
	printf '%s=%s ' "$k" "$(m "$k" "$tmp/bad.m")"; done)
[ "$got" = 'rounds_incomplete=1 max_diff_thresh=25600 max_diff_bg=12550 doc_thresh_mismatch=1 doc_bg_mismatch=1 ' ] \
	&& pass vmstat_cpuset_reader_dependence_seen || bad vmstat_cpuset_reader_dependence_seen "got '$got'"
# a reader that never shares a pressure with another is counted, not compared
printf '%s\n' "$hdr" '0 all 51200 12800 512 512' '0 bind0 51200 12800 512 512' '0 cpuset0 51200 12825 513 513' >"$tmp/alone.tsv"
cmp_run global "$tmp/alone.tsv" >"$tmp/alone.m"
[ "$(m readers_uncompared "$tmp/alone.m")" = 1 ] && [ "$(m max_diff_bg "$tmp/alone.m")" = 0 ] \
	&& pass vmstat_cpuset_uncompared_reader || bad vmstat_cpuset_uncompared_reader "$(tr '\n' ' ' <"$tmp/alone.m")"
# mode off: the document's background threshold is the unscaled one
printf '%s\n' "$hdr" '0 all 51200 25600 512 512' '0 bind0 51200 25600 512 512' '0 cpuset0 51200 12800 512 512' >"$tmp/off.tsv"
cmp_run off "$tmp/off.tsv" >"$tmp/off.m"
[ "$(m doc_bg_mismatch "$tmp/off.m")" = 1 ] && [ "$(m max_diff_bg "$tmp/off.m")" = 12800 ] \
	&& pass vmstat_cpuset_off_unscaled || bad vmstat_cpuset_off_unscaled "$(tr '\n' ' ' <"$tmp/off.m")"


# --- bandwidth-20m ---------------------------------------------------------
# The estimate against the device's measured rate, on a starved host: the
# full matrix of 2026-12-06 (two guests on two cores) had the device at 0.92
# of its throttle and the smoothed estimate 1.114 of the device (1.03 of the
# throttle): the estimator lagging a host-made slowdown, not overshooting
# the device.  That is unmeasurable there; on a host that lets the device
# reach its throttle the same ratio still fails.
bw20() {	# bw20 DEVICE_TO_THROTTLE ESTIMATE_TO_DEVICE: "name=status ..."
	$py - "$1" "$2" <<'PY'
import sys; sys.path.insert(0, "launch")
import collect, scenario
sc = scenario.load("workloads/scenarios/bandwidth-20m.sh")
dev, est = float(sys.argv[1]), float(sys.argv[2])
m = {"disk": {"estimate_to_throttle": 1.0287, "device_to_throttle": dev},
     "trace": {"balance_dirty_pages": {"calls": 1659}, "counts": {"writeback_written": 65},
               "bandwidth": {"device_span_s": 39.4, "estimate_to_device": est, "converge_time_s": 8.0}}}
r = collect.evaluate([c for c in sc.checks if c.name.startswith("estimate_near_device")], m,
                     {"mode": "off", "kernel": "patched"})
print(" ".join(f"{c['name']}={c['status']}" for c in r))
PY
}
got=$(bw20 0.9235 1.11397)
[ "$got" = 'estimate_near_device_low=pass estimate_near_device_high=unmeasurable' ] \
	&& pass bandwidth_20m_starved_host_unmeasured || bad bandwidth_20m_starved_host_unmeasured "$got"
got=$(bw20 0.99 1.15)
[ "$got" = 'estimate_near_device_low=pass estimate_near_device_high=fail' ] \
	&& pass bandwidth_20m_overshoot_fails || bad bandwidth_20m_overshoot_fails "$got"
exit $fail
