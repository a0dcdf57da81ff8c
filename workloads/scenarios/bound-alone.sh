# bound-alone: issue 13's core case, the 2010 series' own.  Nothing else
# runs: one buffered sequential writer bound to the small node 0 (its CPUs
# and its memory, as numactl --membind=0 --cpunodebind=0: dirtier --node 0
# pins with numa_run_on_node() and sets MPOL_BIND) writes more than twice
# node 0's memory.  Its page cache can only live on node 0, so node 0's
# reclaim meets its dirty pages while the global limits, in terms of all
# memory, may never throttle it.
#
# What reclaim did with those pages is the result, per mode: reclaim's
# writepage calls (vmstat nr_vmscan_write, global and per node), the folios
# that really went to the disk from reclaim (trace: write bios kswapd
# submitted, reclaim.kswapd_write), immediate reclaim, the scans, node 0's
# Dirty/Writeback peaks and the writer's rate.  Whether a mode cuts pageout
# is a comparison of runs: `make bench SCENARIOS=bound-alone` (medians per
# mode), not a check of one run.
CLAIM="a writer bound to a small node, alone, writing twice its memory: what reclaim writes, per mode (compared in make bench)"
TOPOLOGIES="2node-asym 2node-asym-xfs"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
# The bios' comm names the submitter: kswapd's are reclaim's own writeback.
EVENTS="block:block_bio_queue"
# A slow real device's queue, not virtio's 256 requests held by QEMU's
# throttle (README, "What the test disk models").
DISK_QUEUE="32x512K"
# The disk must be clearly slower than the writer can dirty, on any host,
# or whether node 0's reclaim meets dirty pages is decided run by run.  At
# the topology's 30 MiB/s, under TCG (writer 14-43 MiB/s), 13 of 42 runs of
# mode off and the stock kernel on 6.1 (2026-12-06) made at most one
# writepage call from reclaim: 10 of the 16 whose writer ran below 36
# MiB/s, 3 of the 26 above.  At 20 MiB/s, 3 runs of 3 made 425k-1.06M, the
# writer at 9.7-25 MiB/s beside a kernel build.
DISK_WRITE_BPS=20M
TIMEOUT=900
# kswapd's scans overran trace-cmd's 4 MiB per CPU in modes global and node
# (38,702 events lost in one run, so the trace's pageout fell short of
# vmstat's); 16 MiB lost none.  The ring buffer of node 0's CPU takes its
# 16 MiB from node 0 (3% of it), in every mode alike.
TRACE_BUFFER_KB=16384

workload() {
	n0_kb=$(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo)
	# at least 1200 MiB (issue 13's run), and 2.4 times node 0 on a bigger one
	size_mb=$(( n0_kb * 12 / 5 / 1024 ))
	[ "$size_mb" -lt 1200 ] && size_mb=1200
	d0=$(awk '$1 == "nr_dirtied" { print $2 }' /sys/devices/system/node/node0/vmstat)
	dall=$(awk '$1 == "nr_dirtied" { print $2 }' /proc/vmstat)
	meminfo_sample_start 0.5
	sample_start 1
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/big" --size "${size_mb}M" --bs 1M \
		--report "$(report dirtier)"
	finish dirtier
	rc=$?
	meminfo_sample_stop
	r=$(report dirtier)
	metric node0_memtotal_kb "$n0_kb"
	metric written_over_node0_memtotal "$(jq ".bytes_written / ($n0_kb * 1024) * 1000 | round / 1000" "$r")"
	metric writer_MiBps "$(jq '.bw_bytes_per_s / 1048576 * 100 | round / 100' "$r")"
	# the file's resident page cache at the end, by node (the dirtier asks
	# move_pages() for each cached page): a strict bind leaves none elsewhere
	metric pagecache_node0_pages "$(jq '.pagecache_pages_node[0] // 0' "$r")"
	metric pagecache_off_node0_pages "$(jq '[.pagecache_pages_node[1:][]] | add // 0' "$r")"
	# every page dirtied during the run (ext4's metadata too): node 0's share
	d0=$(( $(awk '$1 == "nr_dirtied" { print $2 }' /sys/devices/system/node/node0/vmstat) - d0 ))
	dall=$(( $(awk '$1 == "nr_dirtied" { print $2 }' /proc/vmstat) - dall ))
	[ "$dall" -gt 0 ] && metric node0_dirtied_share "$(echo "scale=4; $d0 / $dall" | bc)"
	return $rc
}

#CHECK# dirtier_complete       guest.exit_dirtier == 0
#CHECK# disk_queue_applied     guest.disk_queue_applied == 1
# the case's premises: bound CPU and memory, more than twice the node written
#CHECK# writer_cpu_bound       workloads.dirtier.cpu_bound == 1
#CHECK# wrote_2x_node0         guest.written_over_node0_memtotal >= 2
#CHECK# cache_on_node0         guest.pagecache_node0_pages > 0
#CHECK# no_cache_off_node0     guest.pagecache_off_node0_pages == 0
# The series' claim for this case (v2, node domain): in mode node reclaim
# neither calls writepage on, nor rotates, the bound writer's pages; at most
# 1% of the 1200 MiB written (3,072 pages).  make bench, 5 runs each
# (2026-12-05): 0 (0..0) both, against mode off's 452,893 and 1,398,067.
#CHECK# node_mode_no_writepage nodes.0.vmstat_delta.nr_vmscan_write <= 3072 if mode=node
#CHECK# node_mode_no_immediate nodes.0.vmstat_delta.nr_vmscan_immediate_reclaim <= 3072 if mode=node
# Series patch 9: the node domain throttles the writer at its node's
# writeout rate, not at dirty_ratelimit (which stays at its 100 MiB/s start
# while node 0 is written at ~20 MiB/s), so the writer is kept off the node
# limit, where the node domain's pos_ratio is 0 and it waits max_pause.
# Where the node domain held it: the median call above the node freerun
# ceiling, as a fraction of the way from that ceiling (0) to the node limit
# (1; the setpoint is 0.5).  Throttled at dirty_ratelimit, 5 of 5 runs of
# 2026-12-07 had 0.94-0.95 and 4-7 calls at or over the limit.  (A first
# form of this check asked for at most 0.75, "about the setpoint"; the
# writer settles at about 0.8: see patch 9's changelog.)
#CHECK# node_mode_off_limit     trace.throttle.node_position_p50 <= 0.9 if mode=node
#CHECK# node_mode_never_at_limit trace.throttle.node_dirty_at_limit_calls == 0 if mode=node
# Series patch 9's balanced rate per dirtier: the writer dirties faster
# than its task_ratelimit (periods truncated to whole jiffies), which the
# writeout rate fed forward did not absorb: the series before it settled
# at 0.77 (second half of the node domain's calls, one run; 0.80-0.81 over
# whole runs in the 2026-12-07 bench).  Settled near the setpoint is
# within KUnit node_rate_settles's band, 30% of the setpoint..limit span
# (0.65).
#CHECK# node_mode_near_setpoint trace.throttle.node_position_late_p50 <= 0.65 if mode=node when trace.meta.missed_events == 0
# The trace-derived counts are whole only when no event was lost: kswapd's
# scans overran even the 16 MiB buffer in 1 of 15 runs (and 1 of the XFS
# bench's), a property of the host's speed against the guest's, not of the
# kernel.  So a lost event makes the trace-derived checks unmeasurable (SKIP),
# not the run a failure; the vmstat counts the bench compares are unaffected.
# the reclaim-writeback count measured something: the flushers' bios are there
#CHECK# bios_traced            trace.counts.block_bio_queue > 0
# a page kswapd sent to the disk came from one of reclaim's writepage calls
# (6.1: only kswapd writes file folios from reclaim; on ext4 a call may write
# nothing, on XFS there is no ->writepage at all)
#CHECK# reclaim_wb_le_writepage trace.reclaim.kswapd_write_excess_pages <= 0 when trace.meta.missed_events == 0
