# bandwidth-200m: the write bandwidth estimate (seed patch 09, upstream as
# wb->write_bandwidth) converges to the disk's QEMU throttle within +-10%
# in 10 s of writing, on a disk ten times faster than bandwidth-20m's.
#
# The estimate is traced (writeback:bdi_dirty_ratelimit) only while
# balance_dirty_pages() throttles the writers, and it can only converge to the
# throttle when the writers outrun the disk.  Whether two writers outrun a
# 200 MiB/s disk is the host's doing, not the kernel's: a TCG vCPU dirtied
# 13-33 MB/s on this lab's hosts, 106 MB/s on a faster one, far more under
# KVM, and a host disk may not take 200 MiB/s with cache=none.  So the
# estimate's claims are judged only when the run shows the writers outran
# the disk, the device writing at >= 90% of its throttle while the estimates
# were made (disk.device_to_throttle, from the trace's nr_written and the
# throttle in qemu.cmd), for at least the claim's 10 s
# (trace.bandwidth.device_span_s); otherwise they are unmeasurable, with the
# measured value in the reason (on this lab's TCG host: the device wrote 0.30
# of its throttle, all the writers dirtied).  Every check is relative to the
# throttle the run really had, so run.py --disk-write-bps judges them on any
# host (tests/lab/35-preconditions.t: 20M judged, 200M unmeasurable).
#
# The writers write what the disk takes in ~45 s plus the 64 MiB dirty limit,
# at most 1.25 GiB each: 12 s of a 200 MiB/s disk for writers that outrun it
# (~40 s for TCG's, which do not).
CLAIM="the estimated write bandwidth converges to the disk throttle within 10% in 10 s"
TOPOLOGIES="2node-sym"
DISK_WRITE_BPS=200M
SYSCTL="vm.dirty_background_bytes=16777216 vm.dirty_bytes=67108864"
TIMEOUT=360

workload() {
	bps=${DISK_THROTTLE_BPS:-}
	size=$((1280 << 20))
	if [ "${bps:-0}" -gt 0 ] && [ $(((bps * 45 + (64 << 20)) / 2)) -lt $size ]; then
		size=$(((bps * 45 + (64 << 20)) / 2 >> 20 << 20))
	fi
	metric writer_size_bytes "$size"
	start dirtier0 "$BIN/dirtier" --node 0 --file "$TEST_DIR/f0" --size "$size" --bs 1M --report "$(report dirtier0)"
	start dirtier1 "$BIN/dirtier" --node 1 --file "$TEST_DIR/f1" --size "$size" --bs 1M --report "$(report dirtier1)"
	finish dirtier0
	finish dirtier1
	return 0
}

# The writers' data reached the disk: writeback is traced whatever the host's
# speed (and a run without a trace fails here, not silently in the `when`s).
#CHECK# writeback_traced   trace.counts.writeback_written > 0
# QEMU never writes faster than its throttle: judged whenever the device's
# rate was measured, i.e. over at least 1 s of estimates.  Being throttled is
# not enough: CI's TCG writers were throttled 40 times (2026-12-05) yet gave
# under 1 s of estimates at 200 MiB/s, and the rate was unmeasurable.
#CHECK# disk_throttle_holds       disk.device_to_throttle <= 1.1 when trace.bandwidth.device_span_s >= 1
# The estimate: never above the throttle by more than the claim's 10%, and
# within 10% of what the device wrote (bandwidth-20m says why the device).
#CHECK# estimate_near_disk_high   disk.estimate_to_throttle <= 1.1 when disk.device_to_throttle >= 0.9 when trace.bandwidth.device_span_s >= 10
#CHECK# estimate_near_device_low  trace.bandwidth.estimate_to_device >= 0.9 when disk.device_to_throttle >= 0.9 when trace.bandwidth.device_span_s >= 10
#CHECK# estimate_near_device_high trace.bandwidth.estimate_to_device <= 1.1 when disk.device_to_throttle >= 0.9 when trace.bandwidth.device_span_s >= 10
# The claim's own words, "the disk throttle": judged when the device wrote
# within 5% of it (else the host's disk or CPU set the rate).  No
# convergence time: 6.1's estimate starts at 100 MiB/s and converges upwards
# to 200 MiB/s in ~7 s, downwards to 20 MiB/s in ~15 s (bandwidth-20m's
# xfail): which one a run sees is the throttle it was given.
#CHECK# estimate_near_disk_low    disk.estimate_to_throttle >= 0.9 when disk.device_to_throttle >= 0.95 when trace.bandwidth.device_span_s >= 10
