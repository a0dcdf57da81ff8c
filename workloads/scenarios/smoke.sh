# smoke: the pipeline itself.  Boot, check the topology, write 256 MiB with dd
# and sync; the trace must show the writeback it caused.
CLAIM="the lab boots the topology, runs a workload, traces it and collects it"
TOPOLOGIES="uma 2node-sym 2node-asym 4node-ring 2node-memless 3node-tiered 8node-tiny 2node-xfs"
TIMEOUT=120

workload() {
	dd if=/dev/zero of="$TEST_DIR/smoke" bs=1M count=256 status=none && sync
}

#CHECK# topology_matches     topology.mismatches == 0
#CHECK# wrote_256mib         vmstat_delta.nr_written >= 65536
#CHECK# writeback_traced     trace.counts.writeback_written > 0
