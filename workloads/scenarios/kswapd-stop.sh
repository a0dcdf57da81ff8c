# kswapd-stop: a node whose last memory goes offline loses its kswapd
# (offline_pages() -> kswapd_stop() once the node has no present pages
# left), so nothing would ever let its dirty pressure recover: the series
# resets it to 1024 there.  Squeeze node 1 of 2node-hotplug (hog + dirtier
# bound to it, as imbalance does for node 0), stop them, and while node 1's
# pressure is still low offline its memory blocks: all but one first (node 1
# keeps memory and kswapd1: no reset may happen), then the last (kswapd1
# stops: exactly one reset event for nid 1, from the low value, and the
# effective pressure is 1024 again, not stuck at node 1's old value).
# Finally online the blocks again: kswapd1 comes back.  Markers and the
# dirty_pressure events of the offline phase go to an ftrace instance of
# their own, so their order is read in the guest; the run's trace.dat has
# the markers too (ftrace print events).
CLAIM="offlining a pressured node's last memory block stops its kswapd and resets its pressure to 1024 (one reset event); the effective pressure does not stay low"
TOPOLOGIES="2node-hotplug"
# Not mode node: there (series v2) the node domain throttles the bound
# dirtier against its node, reclaim no longer meets its dirty pages and the
# mechanism this scenario checks is not exercised (bound-alone measured
# 0 writepage calls in mode node); that claim is bound-alone's.
MODES="off global"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
# Node 1's DIMM in ZONE_MOVABLE, the only zone whose every page can move.
CMDLINE="memhp_default_state=online_movable"
TIMEOUT=480

MEMDIR=/sys/devices/system/memory
KS=/sys/kernel/tracing/instances/dplab-kswapd-stop

node_memtotal_kb() { sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' "/sys/devices/system/node/node$1/meminfo"; }
kswapd_threads() { pgrep -x "kswapd$1" | wc -l; }
node_blocks() { for b in /sys/devices/system/node/node"$1"/memory[0-9]*; do [ -e "$b" ] && echo "${b##*/}"; done; }
mark() {
	echo "dplab: $1" >"$KS/trace_marker"
	echo "dplab: $1" >/sys/kernel/tracing/trace_marker 2>/dev/null
	echo "$(uptime_s) $1" >>"$OUT/kswapd-stop.log"
}

# set_state BLOCK offline|online_movable: retried, as isolation can meet a
# page that is pinned for a moment; returns non-zero if the state never came.
set_state() {
	_want=$2
	[ "$_want" = online_movable ] && _want=online
	for _try in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(cat "$MEMDIR/$1/state")" = "$_want" ] && return 0
		echo "$2" >"$MEMDIR/$1/state" 2>>"$OUT/kswapd-stop.log" && return 0
		sleep 1
	done
	[ "$(cat "$MEMDIR/$1/state")" = "$_want" ]
}

# resets_after MARKER: reset events of nid 1 in the instance after MARKER
# (and before the next marker); with old, the old value of the first one.
resets_after() {
	awk -v m="dplab: $1" -v want="${2:-count}" '
		index($0, "tracing_mark_write: dplab: ") { on = index($0, "tracing_mark_write: " m) > 0; next }
		on && /dirty_pressure: nid=1 / && / reason=reset/ {
			n++
			if (old == "") { match($0, /old=[0-9]+/); old = substr($0, RSTART + 4, RLENGTH - 4) }
		}
		END { if (want == "old") print old; else print n + 0 }' "$OUT/kswapd-stop.trace"
}

workload() {
	blocks=$(node_blocks 1)
	nblocks=$(echo "$blocks" | grep -c memory)
	notmov=0
	for b in $blocks; do
		[ "$(cat "$MEMDIR/$b/valid_zones")" = Movable ] || notmov=$((notmov + 1))
	done
	metric node1_blocks "$nblocks"
	metric node1_blocks_not_movable "$notmov"
	metric kswapd1_at_start "$(kswapd_threads 1)"

	mkdir -p "$KS"
	echo 1 >"$KS/events/writeback/dirty_pressure/enable"
	sample_start 1
	# SLOW_MOTION=N (debug kernels): squeeze N times longer, as imbalance does
	start hog "$BIN/hog" --node 1 --size 380M --ramp 2 --duration $((60 * ${SLOW_MOTION:-1})) \
		--report "$(report hog)" --report-every 1
	sleep $((4 * ${SLOW_MOTION:-1}))
	start dirtier "$BIN/dirtier" --node 1 --file "$TEST_DIR/big" --size 1G --bs 1M --report "$(report dirtier)"
	finish dirtier
	stop hog
	# Clean page cache migrates without waiting for writeback.
	sync
	metric dirty_pressure_node "$(dp dirty_pressure_node)"
	metric node1_pressure_before_offline "$(node_pressure 1)"
	metric pressure_before_offline "$(dp dirty_pressure)"

	last=$(echo "$blocks" | tail -1)
	mark offline-partial
	failed=0
	for b in $blocks; do
		[ "$b" = "$last" ] && continue
		set_state "$b" offline || failed=$((failed + 1))
	done
	metric offline_failed_partial "$failed"
	metric node1_pressure_after_partial "$(node_pressure 1)"
	metric kswapd1_after_partial "$(kswapd_threads 1)"

	mark offline-last
	t0=$(uptime_s)
	failed=0
	set_state "$last" offline || failed=1
	metric offline_failed "$failed"
	metric offline_all_s "$(echo "$(uptime_s) - $t0" | bc)"
	metric node1_memtotal_kb_after_offline "$(node_memtotal_kb 1)"
	metric kswapd1_after_offline "$(kswapd_threads 1)"
	# Give anything that would lower it again (or leave it low) time to show.
	sleep 5
	# series v2 tracks and lists memory nodes only: a memoryless node 1 is
	# no longer in dirty_pressure_nodes (v1 listed it, at 1024)
	metric node1_listed_after_offline "$(awk '$1 == 1' "$DP/dirty_pressure_nodes" | wc -l)"
	metric pressure_after_offline "$(dp dirty_pressure)"
	metric dirty_pressure_node_after_offline "$(dp dirty_pressure_node)"

	mark online-again
	failed=0
	for b in $blocks; do set_state "$b" online_movable || failed=$((failed + 1)); done
	metric online_failed "$failed"
	metric kswapd1_after_online "$(kswapd_threads 1)"
	metric node1_pressure_after_online "$(node_pressure 1)"
	sample_stop

	echo 0 >"$KS/events/writeback/dirty_pressure/enable"
	cat "$KS/trace" >"$OUT/kswapd-stop.trace"
	rmdir "$KS"
	metric resets_node1_before_offline "$(awk '/tracing_mark_write: dplab: / { exit } /dirty_pressure: nid=1 / && / reason=reset/ { n++ } END { print n + 0 }' "$OUT/kswapd-stop.trace")"
	metric resets_node1_after_partial "$(resets_after offline-partial)"
	metric resets_node1_after_offline "$(resets_after offline-last)"
	metric reset_old_node1 "$(resets_after offline-last old)"
	metric resets_node1_after_online "$(resets_after online-again)"
	return 0
}

#CHECK# dirtier_complete            guest.exit_dirtier == 0
#CHECK# node1_in_blocks             guest.node1_blocks >= 2
#CHECK# node1_all_movable           guest.node1_blocks_not_movable == 0
#CHECK# kswapd1_at_start            guest.kswapd1_at_start == 1
#CHECK# fast_down_on_node1          trace.pressure.node1.fast_down > 0
#CHECK# node0_not_lowered           trace.pressure.node0.fast_down == 0
#CHECK# lowered_by_node1            guest.dirty_pressure_node == 1
#CHECK# low_before_offline          guest.node1_pressure_before_offline < 1024
#CHECK# partial_offline_done        guest.offline_failed_partial == 0
#CHECK# kswapd1_alive_after_partial guest.kswapd1_after_partial == 1
#CHECK# still_low_after_partial     guest.node1_pressure_after_partial < 1024
#CHECK# no_reset_before_offline     guest.resets_node1_before_offline == 0
#CHECK# no_reset_while_memory_left  guest.resets_node1_after_partial == 0
#CHECK# last_block_offline          guest.offline_failed == 0
#CHECK# node1_memoryless            guest.node1_memtotal_kb_after_offline == 0
#CHECK# kswapd1_stopped             guest.kswapd1_after_offline == 0
#CHECK# one_reset_after_offline     guest.resets_node1_after_offline == 1
#CHECK# reset_from_low_value        guest.reset_old_node1 < 1024
#CHECK# node1_no_longer_tracked     guest.node1_listed_after_offline == 0
#CHECK# effective_back_to_1024      guest.pressure_after_offline == 1024
#CHECK# lowering_node_forgotten     guest.dirty_pressure_node_after_offline == -1
#CHECK# reset_traced_once           trace.pressure.node1.reset == 1
#CHECK# online_again                guest.online_failed == 0
#CHECK# kswapd1_back_after_online   guest.kswapd1_after_online == 1
#CHECK# no_reset_after_online       guest.resets_node1_after_online == 0
