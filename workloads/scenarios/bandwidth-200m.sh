# bandwidth-200m: the write bandwidth estimate (seed patch 09, upstream as
# wb->write_bandwidth) converges to the disk's QEMU throttle within +-10%
# in 10 s of writing.
CLAIM="the estimated write bandwidth converges to the disk throttle within 10% in 10 s"
TOPOLOGIES="2node-sym"
DISK_WRITE_BPS=200M
TIMEOUT=240

workload() {
	start dirtier "$BIN/dirtier" --file "$TEST_DIR/f" --size 3G --bs 1M --report "$(report dirtier)"
	finish dirtier
	return 0
}

check workload_exit      workload.exit == 0
check kernel_clean       console.problems == 0
check estimate_converges trace.bandwidth.bdi.converge_time_s <= 10
