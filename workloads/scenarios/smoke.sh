# smoke: the pipeline itself.  Boot, check the topology, write 256 MiB with dd
# and sync; the trace must show the writeback it caused.
CLAIM="the lab boots the topology, runs a workload, traces it and collects it"
TOPOLOGIES="uma 2node-sym 2node-asym 4node-ring 2node-memless 3node-tiered 8node-tiny 2node-xfs"
TIMEOUT=120

workload() {
	dd if=/dev/zero of="$TEST_DIR/smoke" bs=1M count=256 status=none && sync
}

check workload_exit        workload.exit == 0
check topology_matches     topology.mismatches == 0
check kernel_clean         console.problems == 0
check wrote_256mib         vmstat_delta.nr_written >= 65536
check writeback_traced     trace.counts.writeback_written > 0
