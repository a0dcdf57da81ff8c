# cost: what the series costs on the write() path when nothing throttles
# (issue 14 item 6, "free when off, O(1) when on").  One task bound to node
# 0 (its CPU and its memory, as numactl --membind=0 --cpunodebind=0, so the
# node domain of mode node is in effect) writes 8 MiB into a file with
# 64 KiB write()s, ftruncate()s it to 0 and repeats for LOOP_S seconds
# (truncloop).  Truncation drops the dirty pages without IO, so every page
# is newly allocated (__GFP_WRITE: node_dirty_ok()) and newly dirtied
# (nr_dirtied: balance_dirty_pages_ratelimited() on every page,
# balance_dirty_pages() every few hundred), while the dirty pages never
# exceed one round: far below every limit, so balance_dirty_pages() always
# leaves at the freerun test and nothing sleeps.  What a page costs is then
# the write path itself, the series' hooks included.
#
# The limits: dirty_ratio 60, background 30, and no expiry (the kupdate
# flusher writes nothing of a loop younger than an hour).  On 64node node 0
# holds ~1.2% of the dirtyable memory, so mode node's node domain gives it
# a limit of ~48 MiB, a background share of ~24 MiB (the node-mode flusher
# writes above it) and a freerun ceiling of ~36 MiB: three times a round.
# On 2node-sym every limit is far above it.
#
# The result is the rate, per kernel and mode, compared in make bench
# SCENARIOS=cost (the bench runs it on both topologies: BENCH_TOPOLOGIES):
# guest.pages_per_s and guest.ns_per_page (writes and truncation, per page),
# guest.write_ns_per_page (the write()s only), guest.round_ns_per_page_mean90
# (the fastest 90% of rounds: without the rounds a flusher or a timer landed
# in).  No check here judges a speed: this is TCG on a shared host.  Under
# ACCEL=icount (launch/accel.py), on the 1-vCPU copies 2node-1cpu and
# 64node-1cpu, a guest ns is an eighth of an instruction and the repeats
# agree to about 0.01-0.3%: make bench SCENARIOS=cost
# TOPOS=2node-1cpu,64node-1cpu ACCEL=icount.  The checks judge that the run
# measured what it claims to: every page written was newly dirtied, on node
# 0, none was written back, reclaim never ran, balance_dirty_pages() was
# entered and never throttled.  trace.counts.global_dirty_state counts its
# entries (every entry computes the global limits and traces them, in the
# stock kernel too; a few come from the flusher and /proc/vmstat readers).
# The tracing stays on (the lab always records): in this loop it records
# one event per balance_dirty_pages() entry, as in every kernel and mode.
CLAIM="the write() path below every dirty limit (writes of 8 MiB rounds, each truncated away, bound to node 0): pages dirtied per second and ns per page, per kernel and mode, compared in make bench; the loop was never throttled, nothing was written back or reclaimed"
TOPOLOGIES="2node-sym 64node"
BENCH_TOPOLOGIES="2node-sym 64node"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=30 vm.dirty_expire_centisecs=360000"
TIMEOUT=300
ROUND=8M
LOOP_S=20
WARMUP=2

workload() {
	vm() { awk -v k="$1" '$1 == k { print $2 }' "${2:-/proc/vmstat}"; }
	n0=/sys/devices/system/node/node0/vmstat
	# A disk with no writeback completed yet has a per-wb background
	# threshold of 0 (wb_calc_thresh(): its share of the domain's recent
	# writeout is 0), so the first periodic flusher pass finds the wb "over
	# the background threshold" and writes whatever the loop holds dirty
	# (1,925 pages in a first run, and the truncation then waited on them).
	# A few MiB written and synced first give the test disk's wb its share.
	dd if=/dev/zero of="$TEST_DIR/prime" bs=1M count=4 conv=fsync status=none && rm -f "$TEST_DIR/prime"
	metric dirty_threshold_pages "$(vm nr_dirty_threshold)"
	metric dirty_background_threshold_pages "$(vm nr_dirty_background_threshold)"
	d0=$(vm nr_dirtied); n0d0=$(vm nr_dirtied $n0); w0=$(vm nr_written)
	start truncloop "$BIN/truncloop" --node 0 --file "$TEST_DIR/loop" --size "$ROUND" --bs 64K \
		--duration "$LOOP_S" --warmup "$WARMUP" --report "$(report truncloop)"
	finish truncloop
	rc=$?
	d1=$(vm nr_dirtied); n0d1=$(vm nr_dirtied $n0); w1=$(vm nr_written)
	r=$(report truncloop)
	[ -s "$r" ] || { echo "cost: no truncloop report"; return 1; }
	for k in pages_per_s ns_per_page write_ns_per_page truncate_ns_per_page \
		 round_ns_per_page_min round_ns_per_page_p50 round_ns_per_page_median \
		 round_ns_per_page_mean90 round_ns_per_page_max rounds; do
		metric "$k" "$(jq ".$k" "$r")"
	done
	# every page of every round, the warm-up's too: what nr_dirtied counts
	total=$(jq '(.rounds + .warmup_rounds) * .size_bytes / .page_bytes' "$r")
	metric loop_pages_total "$total"
	metric dirtied_pages "$((d1 - d0))"
	metric written_back_pages "$((w1 - w0))"
	if [ "$total" -gt 0 ] && [ "$((d1 - d0))" -gt 0 ]; then
		metric dirtied_per_page_written "$(echo "scale=4; ($d1 - $d0) / $total" | bc)"
		metric written_back_per_page_written "$(echo "scale=6; ($w1 - $w0) / $total" | bc)"
		metric node0_dirtied_share "$(echo "scale=4; ($n0d1 - $n0d0) / ($d1 - $d0)" | bc)"
	fi
	# the series' effective pressure: 1024 unless reclaim met dirty pages
	[ -r "$DP/dirty_pressure" ] && metric dirty_pressure_end "$(dp dirty_pressure)"
	return $rc
}

#CHECK# loop_complete           guest.exit_truncloop == 0
# the premises: bound to node 0, each page written newly dirtied there
#CHECK# writer_cpu_bound        workloads.truncloop.cpu_bound == 1
# nr_dirtied against the pages written: at least all of them (truncation
# really dropped every round: a page re-dirtied in the cache would not
# count), and little else (ext4's own metadata).  The 1% below 1 is the
# per-CPU vmstat deltas /proc/vmstat does not fold in (up to 125 pages per
# CPU and node), not pages allowed to go missing.
#CHECK# dirtied_every_page      guest.dirtied_per_page_written >= 0.99
#CHECK# dirtied_nothing_else    guest.dirtied_per_page_written <= 1.05
#CHECK# dirtied_on_node0        guest.node0_dirtied_share >= 0.99
# below every limit: balance_dirty_pages() entered, never past the freerun
# ceiling (only such a call traces balance_dirty_pages), nothing written
# back (a flusher pass over the loop's file writes up to a round, 2,048
# pages; ext4's journal and metadata are a few pages per 5 s), no reclaim,
# the pressure untouched
#CHECK# bdp_entered             trace.counts.global_dirty_state > 0
#CHECK# never_throttled         trace.throttle.calls == 0 when trace.meta.missed_events == 0
#CHECK# nothing_written_back    guest.written_back_pages <= 512
#CHECK# no_kswapd_scan          vmstat_delta.pgscan_kswapd == 0
#CHECK# no_direct_scan          vmstat_delta.pgscan_direct == 0
#CHECK# pressure_untouched      guest.dirty_pressure_end == 1024 if kernel=patched
