# pause: one dirtier at full speed on the throttled disk.  IO-less
# balance_dirty_pages (seed patches 02/03) pauses the task in 10..200 ms
# steps: >= 90% of its pauses in that band, and none over MAX_PAUSE.
CLAIM=">= 90% of throttle pauses within 10..200 ms for a full-speed dirtier"
TOPOLOGIES="2node-sym"
TIMEOUT=240

workload() {
	start dirtier "$BIN/dirtier" --node 0 --policy preferred --file "$TEST_DIR/f" --size 1G --bs 64K --report "$(report dirtier)"
	finish dirtier
	return 0
}

check workload_exit      workload.exit == 0
check kernel_clean       console.problems == 0
check was_throttled      trace.balance_dirty_pages.pauses > 20
check pauses_in_band     trace.balance_dirty_pages.pause_share_10_200ms >= 0.9
check no_pause_over_max  trace.balance_dirty_pages.pause_max_ms <= 200
