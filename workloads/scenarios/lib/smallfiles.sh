# The fs_mark workload, shared by smallfiles.sh and smallfiles-2010.sh, which
# set FSMARK_FILES (files per writer per loop) and FSMARK_LOOPS, with the
# checks they share (the host reads them for each scenario that sources
# this file).  4 writers, one directory each, one-byte files; in modes
# global and node the pressure is written to 0 every second, as if reclaim
# kept meeting dirty pages, and the floors must keep the writers moving (in
# mode off the write is tracked but not applied).
workload() {
	# fs_mark writes fs_log.txt into its working directory: not the
	# read-only root
	cd "$TEST_DIR" || return 1
	( while :; do dp dirty_pressure 0; sleep 1; done ) &
	forcer=$!
	fs_mark -S 0 -s 1 -n "$FSMARK_FILES" -L "$FSMARK_LOOPS" -k \
		-d "$TEST_DIR/a" -d "$TEST_DIR/b" -d "$TEST_DIR/c" -d "$TEST_DIR/d" >"$OUT/fs_mark.log" 2>&1
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
# The claim needs writers in balance_dirty_pages(): a precondition, not a
# check of its own.  Whether fs_mark outruns the writeout floor depends on
# the host (a TCG guest made 3,209 files/s against 3,182 pages/s written,
# and never left the freerun region): unmet, the claim is unmeasurable
# (SKIP), not passed.
#CHECK# never_held_1s    trace.balance_dirty_pages.max_held_ms < 1000 if mode=global,node when trace.balance_dirty_pages.calls > 0
