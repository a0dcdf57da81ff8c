# bandwidth-20m: the write bandwidth estimate (seed patch 09, upstream as
# wb->write_bandwidth) converges to the disk's QEMU throttle within +-10%
# in 10 s of writing.
#
# The estimate is traced (writeback:bdi_dirty_ratelimit) only while
# balance_dirty_pages() throttles the writer, so the dirty limits are small
# (16 MiB background, 64 MiB hard) and the writer outruns the disk from the
# first seconds.  One TCG vCPU dirties ~25-33 MB/s on a quiet host and
# 13-15 MB/s on a loaded one (measured), too close to this disk's 20 to be
# sure of throttling, so two writers, one per node and vCPU, share the disk.
# Whether they outran it is still the host's doing, so the estimate's claims
# are judged only when the run shows they reached the throttle (`when
# trace.balance_dirty_pages.calls > 20`, the old was_throttled check) for at
# least the claim's 10 s of estimates (trace.bandwidth.device_span_s), and
# are unmeasurable otherwise; the claim against the throttle itself also
# needs the device to have written within 5% of it.
CLAIM="the estimated write bandwidth converges within 10% of what the disk writes (its throttle) in 10 s"
TOPOLOGIES="2node-sym"
DISK_WRITE_BPS=20M
SYSCTL="vm.dirty_background_bytes=16777216 vm.dirty_bytes=67108864"
TIMEOUT=360

workload() {
	start dirtier0 "$BIN/dirtier" --node 0 --file "$TEST_DIR/f0" --size 400M --bs 1M --report "$(report dirtier0)"
	start dirtier1 "$BIN/dirtier" --node 1 --file "$TEST_DIR/f1" --size 400M --bs 1M --report "$(report dirtier1)"
	finish dirtier0
	finish dirtier1
	return 0
}

# The writers' data reached the disk: writeback is traced whatever the host's
# speed (and a run without a trace fails here, not silently in the `when`s).
#CHECK# writeback_traced   trace.counts.writeback_written > 0
# Throttled, the precondition of every estimate claim: balance_dirty_pages()
# ran above the freerun line.  Its pauses can all be "negative" (the writers'
# own think time covers them), so the calls are counted, not the pauses.
# QEMU never writes faster than its throttle, so the estimate must not
# exceed it by more than the claim's 10%, and neither may the device's own
# measured rate (both relative to the throttle the run had: metrics.disk),
# judged when that rate was measured (as in bandwidth-200m: throttled
# writers do not guarantee 1 s of estimates).
#CHECK# estimate_near_disk_high disk.estimate_to_throttle <= 1.1 when trace.balance_dirty_pages.calls > 20 when trace.bandwidth.device_span_s >= 10
#CHECK# disk_throttle_holds     disk.device_to_throttle <= 1.1 when trace.balance_dirty_pages.calls > 20 when trace.bandwidth.device_span_s >= 1
# The lower side is judged against what the device really wrote while the
# estimates were made (nr_written over that span), not the nominal throttle:
# a CPU-starved QEMU writes less than its throttle and the estimator rightly
# follows.  Measured on this lab's 2-core host, in MiB/s: device 19.0-20.2
# quiet, 18.4-19.7 with one host core busy, 16.9-20.1 with both; a CI run
# failed the old check against 20 MiB/s with an estimate of 17.0 (85%).
# Estimate over device was 0.98-1.07 in 11 of those 12 runs.  The 12th (both
# cores busy) froze the guest for 6 s near the end: the estimate fell to 20%
# of the throttle and had regained only 68% of the device's rate when the
# writers finished 6 s later, inside the claim's 10 s.  A host that starved
# fails here, and the trace shows the gap.
#CHECK# estimate_near_device_low  trace.bandwidth.estimate_to_device >= 0.9 when trace.balance_dirty_pages.calls > 20 when trace.bandwidth.device_span_s >= 10
# The upper side against the device only where the device reached 95% of
# its throttle: below that the host starved QEMU during the span and the
# smoothed estimate lags the slowdown (full matrix 2026-12-06, two guests on
# two cores: device 0.92 of the throttle, estimate 1.114 of the device and
# 1.03 of the throttle).  estimate_near_disk_high judges the upper side
# against the throttle on every host.
#CHECK# estimate_near_device_high trace.bandwidth.estimate_to_device <= 1.1 when trace.balance_dirty_pages.calls > 20 when trace.bandwidth.device_span_s >= 10 when disk.device_to_throttle >= 0.95
# Against the throttle itself, the claim's "its throttle": judged when the
# device wrote within 5% of it.  This replaces disk_near_throttle (device >=
# 75% of the throttle), a check of the host's load, not of the kernel.
#CHECK# estimate_near_disk_low    disk.estimate_to_throttle >= 0.9 when trace.balance_dirty_pages.calls > 20 when trace.bandwidth.device_span_s >= 10 when disk.device_to_throttle >= 0.95
# 6.1's estimator starts at INIT_BW (100 MiB/s) and blends each 200 ms
# sample over a 1024-jiffy period (4.1 s at HZ=250): from 100 to within 10%
# of 20 MiB/s takes ln(80/2) * 4.1 s = 15 s, and avg_write_bw lags behind.
#CHECK# estimate_converges trace.bandwidth.converge_time_s <= 10 when trace.balance_dirty_pages.calls > 20 when trace.bandwidth.device_span_s >= 10 xfail 6.1 starts the estimate at 100 MiB/s and blends over 4.1 s: ~15 s to reach 10% of 20 MiB/s (measured 18.9 s and 22.7 s)
