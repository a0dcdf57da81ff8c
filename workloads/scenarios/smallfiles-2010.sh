# smallfiles-2010: the case that locked the 2010 series up, as it was:
# fs_mark creating one-byte files with 4 writers on XFS (issue 15 item 3).
# smallfiles sets 4 MiB limits, which puts the freerun ceiling (3 MiB)
# under the series' floor of one second of writeout: the scaling never acts
# there, so that check cannot fail because of the series.  Here the limits
# are 256 MiB (background 128 MiB): the stock freerun ceiling, 192 MiB, is
# above the floor (about one second of the 30 MiB/s disk), so with the
# pressure forced to 0 (modes global and node, every second, as if reclaim
# kept meeting dirty pages) the scaled ceiling is the floor and the writers
# are throttled against it; in mode off the same writes are tracked but
# not applied.  40,000 one-byte files dirty about 160 MiB of page cache,
# under the stock ceiling and well over the floor.  No writer may be held
# in balance_dirty_pages() for more than 1 s at a stretch; files/s against
# mode off is the bench's (`make bench SCENARIOS=smallfiles-2010`).
CLAIM="fs_mark with 1-byte files and 4 writers on XFS, pressure 0 and the ceiling above the floor: no task held in balance_dirty_pages > 1 s"
TOPOLOGIES="2node-xfs"
SYSCTL="vm.dirty_bytes=268435456 vm.dirty_background_bytes=134217728"
TIMEOUT=420

workload() {
	# fs_mark writes fs_log.txt into its working directory: not the
	# read-only root
	cd "$TEST_DIR" || return 1
	( while :; do dp dirty_pressure 0; sleep 1; done ) &
	forcer=$!
	fs_mark -S 0 -s 1 -n 10000 -L 1 -k -d "$TEST_DIR/a" -d "$TEST_DIR/b" -d "$TEST_DIR/c" -d "$TEST_DIR/d" \
		>"$OUT/fs_mark.log" 2>&1
	rc=$?
	kill $forcer
	wait $forcer 2>/dev/null
	metric exit_fs_mark $rc
	# Last line of the table: FSUse% Count Size Files/sec App-Overhead
	metric fs_mark_files_per_s "$(awk '$1 ~ /^[0-9]+$/ && NF >= 5 { f = $4 } END { print f + 0 }' "$OUT/fs_mark.log")"
	return 0
}

#CHECK# fs_mark_ok       guest.exit_fs_mark == 0
#CHECK# made_files       guest.fs_mark_files_per_s > 0
# the premise: the scaled ceiling really sat under the stock one, so the
# series acted (global domain, as traced by series v2)
#CHECK# throttle_reached trace.balance_dirty_pages.calls > 0 if mode=global,node
#CHECK# never_held_1s    trace.balance_dirty_pages.max_held_ms < 1000 if mode=global,node
# and the stock ceiling was not: in mode off nothing entered the throttle
#CHECK# stock_ceiling_not_reached trace.balance_dirty_pages.calls == 0 if mode=off
