#!/bin/bash
# Host tests of collect.py's fault handling, from the recorded smoke run
# (no boot): an OOM report's stack dump is expected, anything else inside it
# is not; a crash the scenario requested is its own check and not a kernel
# problem, an unrequested one is; every dirtier file's verification is
# summed into metrics.data and checked by data_intact.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
py=/usr/bin/python3
bin=$top/build/bin
tmp=$(mktemp -d "${TMPDIR:-/tmp}/faults.t.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1: $2"; fail=1; }
# fresh NAME: a copy of the fixture run in $tmp/NAME
fresh() { rm -rf "$tmp/$1"; cp -r tests/fixtures/run-smoke "$tmp/$1"; r=$tmp/$1; }
collect() { $py launch/collect.py "$1" >"$tmp/collect.out" 2>&1; }
# status NAME: the status of check NAME in $r/result.json ("none" if absent)
status() { jq -r --arg n "$1" '[.checks[] | select(.name == $n) | .status][0] // "none"' "$r/result.json"; }
make -s -C workloads >/dev/null 2>&1 || { bad build "make -C workloads failed"; exit 1; }

oom_block() {	# an OOM report as 6.1 prints it, $1 inserted after its stack
	cat <<EOF
[   20.100000] hog invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0
[   20.100100] CPU: 0 PID: 212 Comm: hog Not tainted 6.1.192+ #1
[   20.100200] Call Trace:
[   20.100300]  <TASK>
[   20.100400]  dump_stack_lvl+0x45/0x5e
[   20.100500]  dump_header+0x4a/0x1f4
[   20.100600]  oom_kill_process.cold+0xb/0x10
[   20.100700]  </TASK>
$1
[   20.100800] Mem-Info:
[   20.100900] oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=0,cpuset=/,mems_allowed=0-1,task=hog,pid=212,uid=0
[   20.101000] Out of memory: Killed process 212 (hog) total-vm:1310720kB, anon-rss:1000000kB, file-rss:0kB
EOF
}

# ---- OOM reports ----
fresh oom
oom_block "" >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = pass ] && jq -e '.metrics.console.oom_reports == 1 and .metrics.console.problems == 0
	and .metrics.console.expected_lines == 1' "$r/result.json" >/dev/null
check_rc=$?; [ $check_rc -eq 0 ] && pass oom_stack_expected || bad oom_stack_expected "$(jq -c .metrics.console "$r/result.json")"
fresh oomwarn
oom_block "[   20.100750] WARNING: CPU: 0 PID: 212 at mm/page_alloc.c:5000 __alloc_pages+0x1/0x2" >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = fail ] && jq -e '.metrics.console.problems == 1' "$r/result.json" >/dev/null &&
	pass warning_inside_oom_report_counts || bad warning_inside_oom_report_counts "$(jq -c .metrics.console "$r/result.json")"
# A debug kernel's OOM stack has lockdep frames; they are not lockdep reports
fresh oomlockdep
oom_block "[   20.100750]  ? lockdep_hardirqs_on_prepare+0x286/0x3f0" >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = pass ] && pass lockdep_frame_in_oom_report_is_no_problem ||
	bad lockdep_frame_in_oom_report_is_no_problem "$(jq -c .metrics.console "$r/result.json")"
fresh lockdep
printf '[   21.000000] ============================================\n[   21.000001] WARNING: possible recursive locking detected\n[   21.000002] 6.1.192+ #1 Not tainted\n' >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = fail ] && pass lockdep_report_counts || bad lockdep_report_counts "$(jq -c .metrics.console "$r/result.json")"
fresh trace
echo "[   21.000000] Call Trace:" >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = fail ] && pass stack_outside_oom_counts || bad stack_outside_oom_counts "$(jq -c .metrics.console "$r/result.json")"

# ---- KCSAN: only reports on the pressure state fail the run ----
kcsan_block() {	# a KCSAN report as 6.1 prints it, racing $1 against $2
	cat <<EOF
[   35.512000] ==================================================================
[   35.512856] BUG: KCSAN: data-race in $1 / $2
[   35.512857]
[   35.512858] read to 0xffff88807de1deac of 4 bytes by interrupt on cpu 1:
[   35.512859]  $1+0x39/0x130
[   35.512860]  irq_enter_rcu+0x4d/0x60
[   35.512861]
[   35.512862] write to 0xffff88807de1deac of 4 bytes by task 88 on cpu 0:
[   35.512863]  $2+0x2a/0x80
[   35.512864]  shrink_inactive_list+0x1b4/0x610
[   35.512865]
[   35.512866] Reported by Kernel Concurrency Sanitizer on:
[   35.512867] CPU: 1 PID: 0 Comm: swapper/1 Not tainted 6.1.192+ #1
[   35.512868] ==================================================================
EOF
}
fresh kcsan-tick
kcsan_block tick_irq_enter tick_nohz_idle_got_tick >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = pass ] && jq -e '.metrics.console.problems == 0 and .metrics.console.kcsan_elsewhere == 1
	and (.metrics.console.kcsan_elsewhere_first[0] | test("tick_irq_enter"))' "$r/result.json" >/dev/null &&
	pass kcsan_elsewhere_counted_not_failed || bad kcsan_elsewhere_counted_not_failed "$(jq -c .metrics.console "$r/result.json")"
fresh kcsan-ours
kcsan_block dirty_pressure_limits dp_lower >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = fail ] && jq -e '.metrics.console.problems >= 1 and .metrics.console.kcsan_elsewhere == 0
	and (.metrics.console.first[0] | test("KCSAN: data-race in dirty_pressure_limits"))' "$r/result.json" >/dev/null &&
	pass kcsan_on_pressure_state_fails || bad kcsan_on_pressure_state_fails "$(jq -c .metrics.console "$r/result.json")"
fresh kcsan-both
{ kcsan_block tick_irq_enter tick_sched_do_timer; kcsan_block balance_dirty_pages dp_raise; } >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = fail ] && jq -e '.metrics.console.kcsan_elsewhere == 1' "$r/result.json" >/dev/null &&
	pass kcsan_scoped_per_report || bad kcsan_scoped_per_report "$(jq -c .metrics.console "$r/result.json")"
# The 6.1 timekeeping race KCSAN_STRICT reports from dp_now(): the access is
# ktime_get_mono_fast_ns() on tk_fast_mono, ours only deeper in the stack.
kcsan_latch() {
	cat <<'EOF'
[   57.549168] BUG: KCSAN: data-race in ktime_get_mono_fast_ns+0x84/0x110
[   57.549546]
[   57.549691] race at unknown origin, with read to 0xffffffff822ae198 of 8 bytes by task 8 on cpu 0:
[   57.550081]  ktime_get_mono_fast_ns+0x84/0x110
[   57.550327]  dirty_pressure_node+0x9c/0x2f0
[   57.550557]  dirty_pressure_global+0x56/0xb0
[   57.550777]  domain_dirty_limits+0x1ff/0x310
[   57.552522]
[   57.552625] value changed: 0x000000231a124070 -> 0x000000231ab0b501
[   57.552866]
[   57.552962] Reported by Kernel Concurrency Sanitizer on:
[   57.553291] CPU: 0 PID: 8 Comm: kworker/u5:0 Not tainted 6.1.192+ #1
[   57.554331] ==================================================================
EOF
}
system_map() {
	printf '%s\n' 'ffffffff81000000 T _text' 'ffffffff822ae100 d tk_fast_raw' 'ffffffff822ae180 d tk_fast_mono' \
		'ffffffff822ae200 d tk_core' 'ffffffff83a10000 b dp_state' 'ffffffff83a10400 b dp_last_node' >"$r/System.map"
}
fresh kcsan-latch
kcsan_latch >>"$r/console.log"; system_map
collect "$r"
[ "$(status kernel_clean)" = pass ] && jq -e '.metrics.console.kcsan_elsewhere == 1
	and (.metrics.console.kcsan_elsewhere_first[0] | test("ktime_get_mono_fast_ns on tk_fast_mono\\+0x18"))' "$r/result.json" >/dev/null &&
	pass kcsan_our_frame_deeper_is_not_ours || bad kcsan_our_frame_deeper_is_not_ours "$(jq -c .metrics.console "$r/result.json")"
# Neither function is the series', the data is: dp_state[3].
fresh kcsan-data
kcsan_block shrink_folio_list balance_dirty_pages | sed 's/0xffff88807de1deac/0xffffffff83a10018/' >>"$r/console.log"; system_map
collect "$r"
[ "$(status kernel_clean)" = fail ] && jq -e '.metrics.console.kcsan_elsewhere == 0 and .metrics.console.problems >= 1' "$r/result.json" >/dev/null &&
	pass kcsan_on_series_variable_fails || bad kcsan_on_series_variable_fails "$(jq -c .metrics.console "$r/result.json")"
fresh kcsan-unparsed
kcsan_block tick_irq_enter tick_nohz_idle_got_tick | grep -v ' bytes by ' >>"$r/console.log"
collect "$r"
[ "$(status kernel_clean)" = fail ] && pass kcsan_unreadable_report_fails ||
	bad kcsan_unreadable_report_fails "$(jq -c .metrics.console "$r/result.json")"

# ---- crashes ----
panic() {
	cat <<'EOF'
[   30.000000] sysrq: Trigger a crash
[   30.000100] Kernel panic - not syncing: sysrq triggered crash
[   30.000200] CPU: 1 PID: 300 Comm: sh Not tainted 6.1.192+ #1
[   30.000300] Call Trace:
[   30.000400]  <TASK>
[   30.000500]  panic+0xfe/0x269
[   30.000600]  sysrq_handle_crash+0x11/0x20
[   30.000700]  </TASK>
[   30.000800] Kernel Offset: disabled
EOF
}
crashed_run() {	# crashed_run NAME REQUESTED(0|1) [EXTRA LINE]
	fresh "$1"
	sed -i '/workload end/,$d' "$r/console.log"
	rm -f "$r/guest-status" "$r/workload-exit" "$r/vmstat.after"
	[ "$2" = 1 ] && { echo "dplab: crash requested" >>"$r/console.log"; echo x >"$r/crash-requested";
			  echo "crash requested" >"$r/guest-status"; }
	[ -n "$3" ] && echo "$3" >>"$r/console.log"
	panic >>"$r/console.log"
	"$bin/dirtier" --file "$tmp/d" --size 1M --no-drop-caches --report "$r/report-d.json" 2>/dev/null
	collect "$r"
}
crashed_run unrequested 0
[ "$(status kernel_clean)" = fail ] && [ "$(status guest_finished)" = fail ] &&
	[ "$(status crashed_as_requested)" = none ] && jq -e '.pass == false' "$r/result.json" >/dev/null &&
	pass unrequested_crash_fails || bad unrequested_crash_fails "$(jq -c '[.checks[] | {name,status}]' "$r/result.json")"
crashed_run requested 1
[ "$(status kernel_clean)" = pass ] && [ "$(status crashed_as_requested)" = pass ] &&
	[ "$(status guest_finished)" = none ] && [ "$(status data_intact)" = none ] &&
	jq -e '.metrics.console.requested_crash == 1 and (.metrics.data.excluded | test("requested crash"))' \
		"$r/result.json" >/dev/null &&
	pass requested_crash_is_no_problem || bad requested_crash_is_no_problem "$(jq -c '[.checks[] | {name,status}], .metrics.console' "$r/result.json")"
crashed_run requestedbug 1 "[   29.900000] BUG: unable to handle page fault for address: 0000000000000008"
[ "$(status kernel_clean)" = fail ] && jq -e '.metrics.console.problems == 1' "$r/result.json" >/dev/null &&
	pass bug_before_requested_crash_counts || bad bug_before_requested_crash_counts "$(jq -c .metrics.console "$r/result.json")"
fresh nocrash
echo x >"$r/crash-requested"; echo "dplab: crash requested" >>"$r/console.log"
collect "$r"
[ "$(status crashed_as_requested)" = fail ] && jq -e '.pass == false' "$r/result.json" >/dev/null &&
	pass requested_crash_that_did_not_happen_fails || bad requested_crash_that_did_not_happen_fails "$(status crashed_as_requested)"

# ---- data: verify-NAME.json summed, data_intact ----
fresh data
"$bin/dirtier" --file "$tmp/a" --size 2M --bs 64K --no-drop-caches --report "$r/report-a.json" 2>/dev/null
"$bin/dirtier" --file "$tmp/b" --size 1M --bs 64K --fsync end --no-drop-caches --report "$r/report-b.json" 2>/dev/null
"$bin/hog" --size 1M --report "$r/report-h.json" 2>/dev/null
for n in a b; do "$bin/dirtier" --from-report "$r/report-$n.json" --no-drop-caches --report "$r/verify-$n.json" 2>/dev/null; done
collect "$r"
[ "$(status data_intact)" = pass ] && jq -e '.metrics.data | .files_verified == 2 and .bytes_verified == 3145728
	and .blocks_verified == 48 and .bad_blocks == 0 and .files_unverified == 0 and .scope == "written"
	and .files.a.bytes == 2097152' "$r/result.json" >/dev/null &&
	pass data_summed || bad data_summed "$(jq -c '.metrics.data | del(.files)' "$r/result.json")"
printf '\377' | dd of="$tmp/a" bs=1 seek=$((5 * 65536 + 99)) conv=notrunc status=none
"$bin/dirtier" --from-report "$r/report-a.json" --no-drop-caches --report "$r/verify-a.json" 2>/dev/null
collect "$r"
[ "$(status data_intact)" = fail ] && jq -e '.pass == false and .metrics.data.bad_blocks == 1
	and .metrics.data.files.a.first_bad_offset_bytes == 327680' "$r/result.json" >/dev/null &&
	pass data_intact_fails_on_a_bad_block || bad data_intact_fails_on_a_bad_block "$(jq -c '[.checks[] | select(.name == "data_intact")]' "$r/result.json")"
rm "$r/verify-b.json"
collect "$r"
[ "$(status data_intact)" = unmeasurable ] && jq -e '.metrics.data.unverified == ["b"]' "$r/result.json" >/dev/null &&
	pass data_unverified_writer_fails || bad data_unverified_writer_fails "$(status data_intact)"
fresh nodata
collect "$r"
[ "$(status data_intact)" = none ] && jq -e '.metrics.data == null' "$r/result.json" >/dev/null &&
	pass no_dirtier_no_data_check || bad no_dirtier_no_data_check "$(status data_intact)"
exit $fail
