# pause-mixed: seed patch 07's rsync experiment.  Three dirtiers at 1 MiB/s,
# 4 MiB/s and full speed on a 30 MiB/s disk: the light ones keep their rate
# (not throttled), the heavy one is throttled.
CLAIM="light dirtiers keep their rate beside a heavy one; only the heavy one is throttled"
TOPOLOGIES="2node-sym"
TIMEOUT=240

workload() {
	start heavy "$BIN/dirtier" --file "$TEST_DIR/heavy" --size 1G --bs 64K --report "$(report heavy)"
	sleep 2
	start light1 "$BIN/dirtier" --file "$TEST_DIR/l1" --size 20M --rate 1M --bs 16K --report "$(report light1)"
	start light4 "$BIN/dirtier" --file "$TEST_DIR/l4" --size 80M --rate 4M --bs 16K --report "$(report light4)"
	finish light1; finish light4; finish heavy
	for w in light1 light4; do
		metric ${w}_rate_ratio "$(jq '.bw_bytes_per_s / .rate_bytes_per_s' "$(report $w)")"
	done
	return 0
}

check workload_exit       workload.exit == 0
check kernel_clean        console.problems == 0
check light1_keeps_rate   guest.light1_rate_ratio >= 0.95
check light4_keeps_rate   guest.light4_rate_ratio >= 0.95
check heavy_is_throttled  workloads.heavy.writes_ge_10ms > 0
