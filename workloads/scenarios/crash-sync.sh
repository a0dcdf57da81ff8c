# crash-sync: boot 1 of the crash test.  A writer fills a file and fsync()s
# it, the guest syncs, then a second writer goes on (fsync every 8 MiB,
# report every 0.5 s) and the kernel is crashed in the middle of it (sysrq
# c; panic=-1 and -no-reboot make QEMU exit).  What each writer's last
# report calls synced (bytes_synced) is the promise; the reports live in OUT
# on the host, out of the crash's reach.  Boot 2 is crash-verify, on the same
# disk: run.py --keep-disk here, then
#   run.py --scenario crash-verify --disk OUT/test-disk.img --append dplab_record=OUT
# (tests/lab/50-faults.t does both).  This run verifies nothing itself: its
# data check is the next boot's.
CLAIM="boot 1: fsync()ed and synced data is on the disk when the kernel crashes mid-write"
TOPOLOGIES="2node-asym"
STANDALONE="boot 1 of the crash test; tests/lab/50-faults.t runs it with crash-verify"
TIMEOUT=150

bytes_synced() { sed -n 's/.*"bytes_synced": \([0-9]*\).*/\1/p' "$(report "$1")" 2>/dev/null; }

workload() {
	start synced "$BIN/dirtier" --file "$TEST_DIR/synced" --size 128M --bs 1M --fsync end \
		--report "$(report synced)"
	finish synced || return 1
	sync
	start inflight "$BIN/dirtier" --file "$TEST_DIR/inflight" --size 2G --bs 1M --fsync every=8 \
		--report "$(report inflight)" --report-every 0.5
	# Crash once the second writer has had two fsync()s confirmed and is
	# writing the next interval.
	t=0
	while v=$(bytes_synced inflight); [ "${v:-0}" -lt 16777216 ]; do
		[ $t -ge 60 ] && { echo "crash-sync: the second writer never synced 16 MiB" >&2; return 1; }
		sleep 0.5; t=$((t + 1))
	done
	sleep 1.5
	metric inflight_synced_at_crash "$(bytes_synced inflight)"
	# Crash with data in flight.  Most of each interval is the fsync(), but
	# the writer can sit between an fsync() that emptied the page cache and
	# its next write() (writing its report, say): one look can see nothing
	# in flight.  Look every 0.05 s for up to 5 s, then crash at once; a
	# writer that never dirties a page in 5 s fails dirty_at_crash.
	polls=0
	while kb=$(awk '/^(Dirty|Writeback):/ { s += $2 } END { print s + 0 }' /proc/meminfo)
		[ "$kb" -eq 0 ] && [ $polls -lt 100 ]; do
		sleep 0.05; polls=$((polls + 1))
	done
	metric dirty_kb_at_crash "$kb"
	metric in_flight_polls $polls
	crash
}

#CHECK# synced_writer_ok      guest.exit_synced == 0
#CHECK# synced_file_synced    workloads.synced.bytes_synced >= 134217728
#CHECK# inflight_synced_some  workloads.inflight.bytes_synced >= 16777216
#CHECK# inflight_no_errors    workloads.inflight.fsync_errors == 0
#CHECK# dirty_at_crash        guest.dirty_kb_at_crash > 0
