# trickle: the proportional trigger (issue 14, item 5).  Series v2 lowers a
# node's pressure only when a reclaim batch was significantly dirty (patch
# 10: nr_dirty * 4 >= max(batch, 32), a quarter of the batch and of a full
# one), not on the first dirty folio reclaim meets.  So reclaim that runs
# through mostly clean page cache with a few dirty folios mixed in must not
# collapse the limits.
#
# The situation, all on node 0: a streaming reader keeps filling node 0's
# page cache with clean pages (a sparse file: no disk reads, the pages are
# zero-filled and clean), an anonymous hog bound to node 0 leaves that cache
# 128 MiB, so kswapd0 reclaims clean cache continuously, and a trickle
# writer bound to node 0 dirties 4 pages (one 16 KiB write, no fsync) a few
# times a second.  Its pages reach the LRU tail well before the flushers'
# 30 s expiry, so reclaim meets them, a few per batch at most: between two
# writes the reader adds ~20 MB of clean cache, so two writes never share a
# batch.
#
# Per-batch numbers of node 0's reclaim come from an ftrace instance of our
# own (mm_vmscan_lru_shrink_inactive, nid 0): pages kswapd0 scanned and
# reclaimed, dirty folios met (the event's nr_dirty: dirty or under
# writeback), batches that met any and batches significant by the gate's
# rule (what could lower the pressure).  The pressure is sampled from
# debugfs every second (effective and per node) and traced.
#
# Claim (issue 14): the lowest effective pressure and node 0's stay >= 512
# in modes global and node; mode off tracks the pressure all the same (it
# only leaves the limits unscaled), so there it must stay 1024.
#
# History: with the batch rule's first form (a quarter of the batch, whatever its
# size) the claim was false (2026-12-05, 2node-asym one run per mode,
# 3node-tiered modes global and node): reclaim met the trickle's dirty
# folios in 0.10-0.22% of the folios it scanned, yet in 4 of the 5 runs
# 1-4 batches were a quarter dirty, and each such run lowered node 0: to
# 512 once (the batch ran at priority 12), else to 8..64.  All 9 such
# batches were partial (the remainder of a scan target, 2 to 16 folios with
# 2 to 4 dirty): one 16 KiB write is 4 adjacent folios, a quarter of a
# batch of 16.  And kswapd reclaims nodes of this size at priority 5-9
# (median 5-6): balance_pgdat() lowers the priority until one pass scans
# the high watermarks' worth, so a quarter batch lowered to
# 1024 >> (13 - priority).  Patch 2 now holds a partial batch to a
# quarter of a full one (8 dirty folios).
CLAIM="a trickle of dirty pages in mostly clean page cache under steady kswapd reclaim does not collapse the limits: pressure >= 512 (1024 in mode off)"
TOPOLOGIES="2node-asym 3node-tiered"
SYSCTL="vm.dirty_ratio=20 vm.dirty_background_ratio=10"
TIMEOUT=300

INST=/sys/kernel/tracing/instances/dplab-trickle
TRICKLE_S=${TRICKLE_S:-40}
ROOM_MB=128

# A fast_down is applied inside shrink_inactive_list(), before that
# batch's mm_vmscan_lru_shrink_inactive fires: its batch is the same
# task's next event on node 0.  "significant", the gate's rule:
# nr_dirty * 4 >= max(nr_scanned, 32) (the event's nr_dirty counts dirty or
# writeback folios, a little more than the gate's dirty file folios;
# nr_scanned is the batch taken).
# Input: the instance's trace text; output: "metric value" lines.
BATCH_AWK='function pid(c) { sub(/.*-/, "", c); return c }
	/ dirty_pressure: nid=0 .*reason=fast_down/ { pend[pid($1)] = 1; fd++; next }
	/ mm_vmscan_lru_shrink_inactive: nid=0 / {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
		k = ($1 ~ /^kswapd/)
		full = f["nr_scanned"] > 32 ? f["nr_scanned"] : 32
		q = (f["nr_dirty"] > 0 && f["nr_dirty"] * 4 >= full)
		batches++; scanned[k] += f["nr_scanned"]; reclaimed[k] += f["nr_reclaimed"]
		if (k) byprio[f["priority"] + 0] += f["nr_scanned"]
		dirty += f["nr_dirty"]
		if (f["nr_dirty"] > 0) dbatches++
		if (q) {
			sig++
			if (f["nr_scanned"] < 32) sigpart++
			# without the folios under writeback, which never reach the
			# dirty count of the gate: such a batch must lower (below 512
			# at priority < 12)
			d = f["nr_dirty"] - f["nr_writeback"]
			if (d > 0 && d * 4 >= full && f["priority"] < 12) siglow++
			if (sigprio == "" || f["priority"] + 0 < sigprio) sigprio = f["priority"] + 0
		} else if (f["nr_dirty"] > 0) minor++
		p = pid($1)
		if (p in pend) {
			delete pend[p]
			if (q) fdq++; else fdminor++
			print "fast_down batch: " $0 >"/dev/stderr"
		}
	}
	END {
		print "node0_batches", batches + 0
		print "node0_kswapd_scanned", scanned[1] + 0
		print "node0_kswapd_reclaimed", reclaimed[1] + 0
		print "node0_direct_scanned", scanned[0] + 0
		print "node0_direct_reclaimed", reclaimed[0] + 0
		print "node0_dirty_met", dirty + 0
		if (scanned[0] + scanned[1]) printf "node0_dirty_share %.6f\n", dirty / (scanned[0] + scanned[1])
		print "node0_batches_dirty", dbatches + 0
		print "node0_batches_dirty_minor", minor + 0
		print "node0_batches_dirty_significant", sig + 0
		print "node0_batches_dirty_significant_partial", sigpart + 0
		print "node0_batches_dirty_nowb_significant_below_prio12", siglow + 0
		if (sig) print "node0_batches_dirty_significant_min_priority", sigprio
		# the priority above which half of the scanned pages of kswapd0 were taken
		for (p = 12; p >= 0 && scanned[1]; p--) { acc += byprio[p]; if (acc * 2 >= scanned[1]) { print "node0_kswapd_priority_p50", p; break } }
		print "node0_fast_downs", fd + 0
		print "node0_fast_downs_significant_batch", fdq + 0
		print "node0_fast_downs_minor_batch", fdminor + 0
		n = 0; for (p in pend) n++
		print "node0_fast_downs_no_batch", n
	}'

workload() {
	slow=${SLOW_MOTION:-1}
	n0_kb=$(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo)
	n0_mb=$((n0_kb / 1024))
	# a sparse file twice node 0: reading it allocates clean page cache
	truncate -s "$((n0_mb * 2))M" "$TEST_DIR/clean"
	: >"$TEST_DIR/trickle"

	mkdir -p "$INST"
	echo 4096 >"$INST/buffer_size_kb"
	echo 'nid == 0' >"$INST/events/vmscan/mm_vmscan_lru_shrink_inactive/filter"
	echo 1 >"$INST/events/vmscan/mm_vmscan_lru_shrink_inactive/enable"
	echo 'nid == 0 && reason == 0' >"$INST/events/writeback/dirty_pressure/filter"
	echo 1 >"$INST/events/writeback/dirty_pressure/enable"

	p0=$(dp dirty_pressure)
	sample_start 1
	d0=$(awk '$1 == "nr_dirtied" { print $2 }' /sys/devices/system/node/node0/vmstat)
	# The hog leaves ROOM_MB of node 0 to the page cache, on any topology: the
	# reader then turns the cache over in well under the flushers' 30 s
	# expiry, so reclaim meets the trickle's pages while they are dirty (with
	# 3/5 of 3node-tiered's 768 MiB node 0 taken it met none).  Allocated
	# once, then held: re-touching it would only take node 0's CPU.
	free0_mb=$(( $(sed -n 's/.*MemFree: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo) / 1024 ))
	hog_mb=$((free0_mb - ROOM_MB))
	[ $hog_mb -lt 64 ] && hog_mb=64
	metric hog_mb "$hog_mb"
	start hog "$BIN/hog" --node 0 --size ${hog_mb}M --ramp 3 --passes 0 \
		--hold $(((TRICKLE_S + 20) * slow)) --report "$(report hog)" --report-every 1
	sleep $((4 * slow))
	# streaming reader: 4 MiB at a time, all of it page cache on node 0
	start reader numactl --membind=0 sh -c '
		off=0
		while :; do
			dd if="$1" of=/dev/null bs=1M count=4 skip=$off status=none
			off=$(( (off + 4) % $2 ))
			sleep 0.05
		done' reader "$TEST_DIR/clean" "$((n0_mb * 2))"
	sleep $((2 * slow))
	# trickle: one 16 KiB write (4 pages) at a new offset every 0.25 s
	writes=$((TRICKLE_S * 4))
	start trickle numactl --membind=0 --cpunodebind=0 sh -c '
		i=0
		while [ $i -lt $2 ]; do
			dd if=/dev/zero of="$1" bs=16K count=1 seek=$i conv=notrunc status=none || exit 1
			i=$((i + 1))
			sleep 0.25
		done' trickle "$TEST_DIR/trickle" "$writes"
	finish trickle
	rc=$?
	stop reader
	stop hog
	sample_stop
	echo 0 >"$INST/events/vmscan/mm_vmscan_lru_shrink_inactive/enable"
	echo 0 >"$INST/events/writeback/dirty_pressure/enable"

	metric node0_memtotal_kb "$n0_kb"
	metric pressure_at_start "$p0"
	metric trickle_writes "$writes"
	metric trickle_file_kb "$(( $(stat -c %s "$TEST_DIR/trickle") / 1024 ))"
	metric node0_dirtied $(( $(awk '$1 == "nr_dirtied" { print $2 }' /sys/devices/system/node/node0/vmstat) - d0 ))

	# the lowest sampled pressure, effective and node 0's
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		NF >= 3 { e = $(c["effective"]); n = $(c["node0"])
			if (me == "" || e < me) me = e; if (mn == "" || n < mn) mn = n; k++ }
		END { print "pressure_samples", k + 0; if (k) { print "effective_min_sampled", me; print "node0_min_sampled", mn } }' \
		"$OUT/pressure.tsv" | while read -r k v; do metric "$k" "$v"; done

	# node 0's reclaim batches (and fast-downs) from the instance
	cat "$INST/trace" >"$OUT/trickle-reclaim.trace"
	overrun=$(cat "$INST"/per_cpu/cpu*/stats | awk '$1 == "overrun:" { s += $2 } END { print s + 0 }')
	metric reclaim_trace_overrun "$overrun"
	rmdir "$INST"
	awk "$BATCH_AWK" "$OUT/trickle-reclaim.trace" 2>>"$OUT/trickle-fast-downs.log" |
		while read -r k v; do metric "$k" "$v"; done
	return $rc
}

#CHECK# trickle_complete       guest.exit_trickle == 0
# The situation: kswapd0 reclaimed node 0 steadily (at least 100 MiB over
# the run), the trickle dirtied node 0 pages (4 per write: at least half of
# them counted on node 0), the pressure started at 1024 and was sampled, and
# the instance lost no event (its counts are whole).
#CHECK# kswapd0_reclaimed      guest.node0_kswapd_reclaimed >= 25600
#CHECK# trickle_dirtied_node0  guest.node0_dirtied >= 320
#CHECK# started_unpressured    guest.pressure_at_start == 1024
#CHECK# pressure_sampled       guest.pressure_samples >= 20
#CHECK# reclaim_trace_whole    guest.reclaim_trace_overrun == 0
# The gate itself (patch 2), in every mode (the pressure is tracked in mode
# off too): every fast-down on node 0 came from a significant batch by the
# event's own count, none from a batch with fewer dirty folios.
#CHECK# gate_significant_only  guest.node0_fast_downs_minor_batch == 0 when guest.reclaim_trace_overrun == 0
#CHECK# fast_downs_paired      guest.node0_fast_downs_no_batch == 0 when guest.reclaim_trace_overrun == 0
# Reclaim met the trickle's dirty folios only in batches that were not
# significant: nothing may lower node 0, in any mode.
#CHECK# minor_dirt_keeps_1024  guest.node0_min_sampled == 1024 when guest.node0_batches_dirty_minor > 0 when guest.node0_batches_dirty_significant == 0
# Issue 14's claim: mostly clean reclaim (under 1% of the scanned folios
# dirty) that met dirty folios, none of its batches significant by the
# rule (a trickle at the scale reclaim sees it: a reader stalled by the
# host can leave several writes adjacent on the LRU, and 8 dirty folios in
# a batch lower by design), does not collapse the limits: >= 512 in modes
# global and node, 1024 in mode off.  Under the rule's first form the
# partial batches a quarter dirty counted as minor here and lowered node 0
# to 8..64, so these checks failed then.  In mode node the effective
# pressure is the average weighted by dirtyable memory (node 0 is a quarter
# of 2node-asym's memory), so it is judged on node 0's own value too.
#CHECK# effective_stays_high   guest.effective_min_sampled >= 512 if mode=global when guest.node0_dirty_met > 0 when guest.node0_dirty_share < 0.01 when guest.node0_batches_dirty_significant == 0
#CHECK# node0_stays_high       guest.node0_min_sampled >= 512 if mode=global,node when guest.node0_dirty_met > 0 when guest.node0_dirty_share < 0.01 when guest.node0_batches_dirty_significant == 0
#CHECK# off_stays_1024         guest.effective_min_sampled == 1024 if mode=off when guest.node0_dirty_met > 0 when guest.node0_dirty_share < 0.01 when guest.node0_batches_dirty_significant == 0
#CHECK# node_mode_effective_high guest.effective_min_sampled >= 512 if mode=node when guest.node0_dirty_met > 0
