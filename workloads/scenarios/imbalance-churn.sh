# imbalance-churn: imbalance with the hog's allocation latency taken while
# the writer runs.  imbalance's hog allocates in its first 2-3 s and the
# dirtier starts at 4 s, so its alloc_lat_* never meet the writer's page
# cache.  Here the hog holds its 380 MiB on node 0 as soon as it has them
# and, for as long as the dirtier writes, gives back 16 MiB every 100 ms and
# allocates them again half a period later (hog --churn): the writer's page
# cache can take the freed pages in between, so workloads.hog.churn_lat_*
# are allocations on node 0 that meet what the writer left there (reclaim
# of its page cache, dirty pages included); the churn starts with the hold,
# about 2 s before the writer, so some 5% of them come before it.  The hog
# sleeps between periods instead of re-touching all its memory as
# imbalance's does (no swap in the lab: re-touching held anonymous memory
# changes no reclaim, only the CPU the hog takes from the writer on node
# 0's one CPU).
# The off/global/node comparison of that latency is the bench's (report
# row "hog churn re-allocation p99", `make bench SCENARIOS=imbalance-churn`),
# never a check; the checks say the mechanism is seen, as in imbalance, and
# that the churn covered the write.
CLAIM="with the hog re-allocating on the small node through the write, reclaim meeting dirty pages there lowers the pressure, recorded against that node"
TOPOLOGIES="2node-asym"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=420

# SLOW_MOTION=N (run.py --slow-motion): as in imbalance.
workload() {
	slow=${SLOW_MOTION:-1}
	sample_start 1
	# --passes 0: held, and churning, as soon as allocated; the hold
	# outlasts any write (stock took up to 61 s in imbalance), the hog is
	# stopped when the writer is done
	start hog "$BIN/hog" --node 0 --size 380M --ramp 2 --passes 0 --hold $((300 * slow)) \
		--churn 16M --churn-every 100 --report "$(report hog)" --report-every 1
	sleep $((4 * slow))
	# from an interim report at most 1 s old: churn it counts began before
	# the writer did
	metric hog_churn_chunks_before_writer "$(jq '.churn_chunks // 0' "$(report hog)" 2>/dev/null || echo 0)"
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/big" --size 1G --bs 1M --report "$(report dirtier)"
	finish dirtier
	# still holding, so still churning, when the write ended
	if kill -0 "$(cat "$PIDDIR/hog")" 2>/dev/null; then metric hog_held_past_writer 1; else metric hog_held_past_writer 0; fi
	stop hog
	metric dirty_pressure_node "$(dp dirty_pressure_node)"
	metric dirty_pressure_min_sampled "$(awk 'NR > 1 && ($2 < m || m == "") { m = $2 } END { print m + 0 }' "$OUT/pressure.tsv")"
	return 0
}

#CHECK# dirtier_complete     guest.exit_dirtier == 0
# The churn overlapped the whole write: begun before the writer, the hog
# still holding after it (an OOM kill of the hog is the bench's to count,
# in oom_kill, not a failure of the lab here), and chunks re-allocated.
#CHECK# churn_before_writer  guest.hog_churn_chunks_before_writer > 0
#CHECK# hog_held_past_writer guest.hog_held_past_writer == 1 when vmstat_delta.oom_kill == 0
#CHECK# hog_churned          workloads.hog.churn_chunks > 0
# The series must not lower a node whose reclaim met nothing of the writer's.
#CHECK# no_other_node_lowered trace.pressure.node1.fast_down == 0 if kernel=patched
#CHECK# pressure_event_traced trace.meta.has_dirty_pressure_event == 1 if kernel=patched
# As in imbalance: in mode node the node domain throttles the bound dirtier
# against node 0 and reclaim there meets none of its dirty pages, so the
# mechanism is judged in off and global; on the stock kernel there is no
# pressure to see (SKIP).
#CHECK# fast_down_seen       trace.pressure.node0.fast_down > 0 if mode=off,global when trace.meta.has_dirty_pressure_event == 1
#CHECK# lowered_by_node0     guest.dirty_pressure_node == 0 if mode=off,global when trace.meta.has_dirty_pressure_event == 1
