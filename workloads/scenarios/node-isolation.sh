# node-isolation: the question the 2010 author left open.  Squeeze node 0 of
# 4node-ring (hog + bound dirtier).  Mode global lowers everyone's limits as
# in 2010; mode node lowers the global effective pressure only by node 0's
# share of dirtyable memory (<= 1/4 here).  An unbound dirtier on node 0's
# CPU then writes while node 0 is still squeezed: where its page cache lands
# is measured in every mode, stock included, so the report separates the
# series' steering from what 6.1 already does.  It separates nothing here:
# on 4node-ring that writer put 2-7% of its page cache on node 0 in every
# mode (bench of 2026-12-05, 4 repeats: off 0.038..0.064, global
# 0.046..0.055, node 0.017..0.067, stock 0.029..0.053): 6.1's allocator
# falls back from the full node by itself, with or without the series.
CLAIM="one pressured node lowers the global limits only by its share (mode node); an unbound writer's page cache leaves the squeezed node in every mode, stock included"
TOPOLOGIES="4node-ring 8node-tiny"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=420
# Where each writer's time goes (analysis/sched.c): on 8node-tiny the unbound
# writer shares node 0's CPU with the hog, and its throughput moves with that
# share as much as with the series (docs/matrix/README.md).  sched.task.dirtier
# .by_start.1 is the bound writer, .by_start.2 the unbound one.
EVENTS="sched:sched_switch"
TRACE_TASKS="dirtier hog"

# What node 0 has free for the unbound writer's pages without reclaim, in MiB,
# from /proc/zoneinfo as the page allocator sees it: per zone, the free pages
# above the low watermark (with its boost) and above the lowmem protection
# against a movable page cache allocation.  MemFree alone misleads here: node
# 0's DMA zone keeps about 27 of its ~30 free MiB out of a page cache
# allocation's reach that way.  node_dirty_ok()'s headroom is no bound over
# the run: writeback of the writer's first pages gives it back as it goes.
node0_usable() {
	awk -v kb="$(($(getconf PAGESIZE) / 1024))" '
		function zone_end() {
			if (!inzone) return
			u = free - low - boost - prot; if (u > 0) usable += u
			allfree += free; inzone = 0
		}
		/^Node / { zone_end(); inzone = ($2 + 0 == 0); free = low = boost = prot = 0; next }
		!inzone { next }
		$1 == "pages" && $2 == "free" { free = $3 }
		$1 == "low" { low = $2 } $1 == "boost" { boost = $2 }
		$1 == "protection:" { gsub(/[(),]/, " "); for (i = 2; i <= NF; i++) if ($i + 0 > prot) prot = $i + 0 }
		END { zone_end()
			printf "node0_free_mb_at_unbound %d\n", allfree * kb / 1024
			printf "node0_usable_mb_at_unbound %d\n", usable * kb / 1024 }' /proc/zoneinfo |
	while read -r _k _v; do metric "$_k" "$_v"; done
}

workload() {
	n0_mb=$(( $(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo) / 1024 ))
	sample_start 1
	start hog "$BIN/hog" --node 0 --size $((n0_mb * 3 / 4))M --ramp 2 --duration 120 --report "$(report hog)"
	sleep 4
	start bound "$BIN/dirtier" --node 0 --file "$TEST_DIR/bound" --size 640M --bs 1M --report "$(report bound)"
	finish bound
	metric node0_pressure_after_squeeze "$(node_pressure 0)"
	# Unbound: default policy, on node 0's CPU, while node 0 is still squeezed.
	# kswapd frees node 0 in bursts of up to ~50 MiB here (13-14 k pages
	# in one second of mode off's trace), so what node 0 has free for the
	# writer's first pages is measured, not assumed (node0_usable above).
	node0_usable
	start unbound taskset -c "$(cut -d, -f1 /sys/devices/system/node/node0/cpulist | cut -d- -f1)" \
		"$BIN/dirtier" --policy default --file "$TEST_DIR/unbound" --size 128M --bs 1M --report "$(report unbound)"
	finish unbound
	stop hog
	total=$(jq '[.pagecache_pages_node[]] | add' "$(report unbound)")
	[ "${total:-0}" -gt 0 ] && metric unbound_node0_share "$(jq '.pagecache_pages_node[0] / ([.pagecache_pages_node[]] | add)' "$(report unbound)")"
	metric effective_min_sampled "$(awk 'NR > 1 && ($2 < m || m == "") { m = $2 } END { print m + 0 }' "$OUT/pressure.tsv")"
	return 0
}

# In mode node (series v2) the bound dirtier's node domain keeps node 0's
# reclaim away from its dirty pages, so nothing lowers node 0 there (measured
# 2026-12-05 on 4node-ring: 0 fast-downs, the steering check still passed,
# unbound share on node 0 0.06)
#CHECK# node0_pressured        trace.pressure.node0.fast_down > 0 if mode=off,global when trace.meta.has_dirty_pressure_event == 1
#CHECK# global_drops_as_2010   trace.pressure.global.min < 512 if mode=global
#CHECK# node_mode_limits_share trace.pressure.global.min >= 768 if mode=node
#CHECK# node_mode_sampled      guest.effective_min_sampled >= 768 if mode=node
# Only while node 0 is squeezed: the hog (120 s) must outlive the unbound
# writer, which on a slow host (bound 640M at a few MB/s) it may not; stopped
# by `stop hog` it exits 143, finished on its own 0.  And only if node 0 is
# full when the writer starts: its first pages go to what node 0 has free
# (node0_usable), whatever the fallback does.  Measured on 4node-ring,
# 2026-12-07: as the scenario runs, 2-5 MiB usable (29-32 MiB MemFree) and
# shares of 0.019-0.040 in 4 of 4 runs (off, node); with the clean cache
# dropped first, 52-55 MiB usable and shares of 0.23-0.46 in 4 of 4 (CI's
# smoke cell that day failed with 0.347, its free memory not recorded).
# With at most 16 MiB usable (1/8 of the file) a share of 1/4 needs 16 MiB
# reclaimed on node 0 for this writer, which is what the claim says does not
# happen.  Every mode and the stock kernel: the share is the same in all of
# them (see above).
#CHECK# dirty_steered_away     guest.unbound_node0_share < 0.25 when guest.exit_hog == 143 when guest.node0_usable_mb_at_unbound <= 16
