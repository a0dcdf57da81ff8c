# smallfiles: the workload that locked the 2010 series up: fs_mark creating
# one-byte files on XFS with 4 writers.  No task may be held in
# balance_dirty_pages for more than 1 s at a stretch; files/s against mode
# off is compared in `make bench`.
#
# One-byte files never bring the dirty count near the default limits on
# their own (0 balance_dirty_pages calls, measured), so the 2010 worst case
# is forced: in modes global and node the pressure is written to 0 every
# second, as if reclaim kept meeting dirty pages, and the floors must keep
# the writers moving.  In mode off the write is tracked but not applied.
# The limits are small (4 MiB, background 2 MiB) so that the dirty count
# crosses the freerun ceiling in every run: with the defaults and pressure
# 0 the ceiling is one second of the estimated write bandwidth (it starts
# at 100 MiB/s), and a quiet host finished fs_mark in 8.5 s without one
# balance_dirty_pages call, so nothing was tested.
CLAIM="fs_mark on XFS with 4 writers: no task held in balance_dirty_pages > 1 s"
TOPOLOGIES="2node-xfs"
SYSCTL="vm.dirty_bytes=4194304 vm.dirty_background_bytes=2097152"
TIMEOUT=300

workload() {
	# fs_mark writes fs_log.txt into its working directory: not the
	# read-only root
	cd "$TEST_DIR" || return 1
	( while :; do dp dirty_pressure 0; sleep 1; done ) &
	forcer=$!
	fs_mark -S 0 -s 1 -n 4000 -L 2 -k -d "$TEST_DIR/a" -d "$TEST_DIR/b" -d "$TEST_DIR/c" -d "$TEST_DIR/d" \
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
#CHECK# throttle_reached trace.balance_dirty_pages.calls > 0 if mode=global,node
#CHECK# never_held_1s    trace.balance_dirty_pages.max_held_ms < 1000 if mode=global,node
