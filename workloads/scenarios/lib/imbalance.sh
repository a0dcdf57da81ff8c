# The imbalance workload, shared by imbalance.sh and its baselines
# (imbalance-default-ratios.sh, imbalance-bg-bytes.sh: the same workload
# under the tuning a user can choose without the series), with the checks
# they share (the host reads them for each scenario that sources this file).
#
# SLOW_MOTION=N (run.py --slow-motion, for debug kernels): the disk is N
# times slower, so the hog squeezes node 0 N times longer and the dirtier
# starts after the hog's N-times-slower ramp.
workload() {
	slow=${SLOW_MOTION:-1}
	imbalance_tuning || return 1
	sample_start 1
	start hog "$BIN/hog" --node 0 --size 380M --ramp 2 --duration $((60 * slow)) --report "$(report hog)" --report-every 1
	sleep $((4 * slow))
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/big" --size 1G --bs 1M --report "$(report dirtier)"
	finish dirtier
	stop hog
	metric dirty_pressure_node "$(dp dirty_pressure_node)"
	metric dirty_pressure_min_sampled "$(awk 'NR > 1 && ($2 < m || m == "") { m = $2 } END { print m + 0 }' "$OUT/pressure.tsv")"
	return 0
}

# what the scenario tunes beyond its SYSCTL= (a baseline sets more)
command -v imbalance_tuning >/dev/null || imbalance_tuning() { :; }

#CHECK# dirtier_complete     guest.exit_dirtier == 0
# The series must not lower a node whose reclaim met nothing of the writer's.
#CHECK# no_other_node_lowered trace.pressure.node1.fast_down == 0 if kernel=patched
#CHECK# pressure_event_traced trace.meta.has_dirty_pressure_event == 1 if kernel=patched
