# fastdown: every fast-down value is 1024 >> (DEF_PRIORITY + 1 - priority)
# of the shrink batch that caused it, matched against the nearest preceding
# vmscan:mm_vmscan_lru_shrink_inactive on the same node.
CLAIM="each fast-down value equals 1024 >> (13 - priority) of the shrink batch that caused it"
TOPOLOGIES="2node-asym 8node-tiny"
# Not mode node: there (series v2) the node domain throttles the bound
# dirtier against its node, reclaim no longer meets its dirty pages and the
# mechanism this scenario checks is not exercised (bound-alone measured
# 0 writepage calls in mode node); that claim is bound-alone's.
MODES="off global"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=360

workload() {
	start hog "$BIN/hog" --node 0 --size "${HOG_SIZE:-$(( $(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo) * 3 / 4 / 1024 ))M}" \
		--ramp 2 --duration 40 --report "$(report hog)"
	sleep 4
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/f" --size 640M --bs 1M --report "$(report dirtier)"
	finish dirtier
	stop hog
	return 0
}

#CHECK# fast_down_seen        trace.pressure.node0.fast_down > 0
#CHECK# formula_never_wrong   trace.pressure.node0.fast_down_formula_bad == 0
#CHECK# priority_matches_scan trace.pressure.node0.fast_down_priority_unmatched == 0
#CHECK# every_fast_down_has_a_scan trace.pressure.node0.fast_down_no_scan == 0
