# floor: the scaled limits keep a floor of one second of the machine's
# writeout, the same for every caller (issue 14 item 4).  With the pressure
# held at 0 the global freerun ceiling is min(stock ceiling, floor), so every
# writeback:global_dirty_state event then shows the floor itself: from the
# writer's balance_dirty_pages(), from the flusher's background check and
# from /proc/vmstat readers alike.
#
# Before v2's patch 8 the floor was the caller's wb
# (wb->avg_write_bandwidth): a caller without a wb (/proc/vmstat's
# thresholds, writeback_set_ratelimit()) got a floor of one page, and a new
# cgroup wb brought its 100 MB/s starting estimate whatever its device did.
# The check below reads the ceiling in seconds of the writeout the trace
# measured (nr_written) over the second half of the run, over every caller's
# events.
CLAIM="with the pressure held at 0, every caller's global freerun ceiling is about one second of the machine's writeout (0.5..2 s), whoever computes it"
TOPOLOGIES="2node-sym"
MODES="global"
# 20 MiB/s: writers outrun it under TCG, so the ceiling is what throttles
DISK_WRITE_BPS=20M
# a slow device's queue: with virtio's 256 requests held by QEMU's throttle
# (README, "What the test disk models") 200 MB sat in writeback and
# completed in bursts of tens of thousands of pages per 200 ms
DISK_QUEUE="32x512K"
SYSCTL="vm.dirty_ratio=20 vm.dirty_background_ratio=10"
TIMEOUT=300

workload() {
	# the slowest recovery (1 step/s), and rewritten to 0 every second
	dp dirty_pressure_recovery 1
	dp dirty_pressure 0
	( while :; do dp dirty_pressure 0; sleep 1; done ) &
	holder=$!
	# a reader of /proc/vmstat's thresholds: a caller without a wb
	( while :; do cat /proc/vmstat >/dev/null; sleep 0.5; done ) &
	reader=$!
	start dirtier "$BIN/dirtier" --file "$TEST_DIR/f" --size 640M --bs 1M --report "$(report dirtier)"
	finish dirtier
	rc=$?
	kill "$holder" "$reader"
	wait "$holder" "$reader" 2>/dev/null
	metric pressure_after "$(dp dirty_pressure)"
	return $rc
}

#CHECK# pressure_held          guest.pressure_after <= 4
#CHECK# was_throttled          trace.throttle.calls > 100
#CHECK# floor_traced           trace.floor.late_events >= 20
# The floor is 1 s of writeout; the rate it is estimated from trails the
# device by a few 200 ms samples, and the trace's own rate is measured over
# half the run: 0.5..2 s leaves room for both, and a floor of one page
# (3e-4 s at 20 MiB/s) or a wb's 100 MB/s start (5 s) is far outside.
#CHECK# floor_at_least_half_s  trace.floor.freerun_seconds_min >= 0.5
#CHECK# floor_at_most_2s       trace.floor.freerun_seconds_max <= 2
