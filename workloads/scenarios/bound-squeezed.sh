# bound-squeezed: the node domain's limit under a squeeze (series v2, patch
# "a node domain's limit falls slowly").  A writer bound to the small node 0
# runs until node 0 holds a third of its memory in dirty and writeback
# pages, near its node domain's setpoint; then an anonymous hog bound to
# node 0 takes half of the node in two seconds.  Node 0's dirtyable memory,
# and with it its share of the hard dirty limit, falls to about half at
# once, below the dirty pages already there.  A node limit taken from the
# current share sets the writer's pos_ratio to 0 (max_pause after
# max_pause until writeback drains half the node); a limit that follows the
# share down as the global one follows dirty_ratio stays above the node's
# dirty pages.  The trace says which: balance_dirty_pages calls with
# node_dirty >= node_limit (throttle.node_dirty_at_limit_calls).
CLAIM="a writer bound to a node that a hog squeezes is slowed, not stopped: its node limit never falls below the node's dirty pages (mode node)"
TOPOLOGIES="2node-asym"
MODES="node"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
# a slow device's queue, as bound-alone (README, "What the test disk models")
DISK_QUEUE="32x512K"
TIMEOUT=600
TRACE_BUFFER_KB=16384

workload() {
	n0_kb=$(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo)
	sample_start 1
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/big" --size "$(( n0_kb * 2 / 1024 ))M" \
		--bs 1M --report "$(report dirtier)"
	# Squeeze once node 0 is a third dirty or under writeback: on any host's
	# speed, the writer is then being throttled by its node domain.
	waited=0 reached=0
	while [ $waited -lt 1200 ] && kill -0 "$(cat "$PIDDIR/dirtier")" 2>/dev/null; do
		at=$(( $(node_dirty_kb 0) + $(node_writeback_kb 0) ))
		[ "$at" -ge $(( n0_kb / 3 )) ] && { reached=1; break; }
		sleep 0.1
		waited=$(( waited + 1 ))
	done
	metric node0_dirty_at_squeeze_kb "$at"
	metric squeezed_at_a_third "$reached"
	metric squeeze_waited_s "$(echo "scale=1; $waited / 10" | bc)"
	start hog "$BIN/hog" --node 0 --size "$(( n0_kb / 2 / 1024 ))M" --ramp 2 --duration 600 \
		--report "$(report hog)"
	finish dirtier
	rc=$?
	stop hog
	metric writer_MiBps "$(jq '.bw_bytes_per_s / 1048576 * 100 | round / 100' "$(report dirtier)")"
	return $rc
}

#CHECK# dirtier_complete        guest.exit_dirtier == 0
#CHECK# squeezed_while_writing  guest.squeezed_at_a_third == 1
#CHECK# node_domain_throttled   trace.throttle.node_domain_calls > 100
# With the node limit taken from the current share (v2 before patch 7 took its law),
# node_dirty reached 1.45 and 1.62 of node_limit and 17 and 19 calls found the
# writer at or over it (two runs, TCG, 2026-12-06); with the law at most 0.998
# and 0 calls (three runs).  A call may still find the node a little over its
# limit when dirty pages grew between two 200 ms updates: hence 3 and 1.05.
#CHECK# node_limit_above_dirty  trace.throttle.node_dirty_over_limit_max < 1.05
#CHECK# writer_not_held_at_zero trace.throttle.node_dirty_at_limit_calls <= 3
