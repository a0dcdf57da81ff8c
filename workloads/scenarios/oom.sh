# oom: the OOM killer on one node while a writer dirties pages there.  A
# dirtier bound to the small node 0 writes 192 MiB at 6 MiB/s (32 s); 1 s in, a hog
# bound to node 0 asks for 128 MiB more than the node has.  The OOM kill
# (MPOL_BIND-constrained) must take the hog (exit 137) while the writer is
# still writing, the writer must finish, and every block it wrote must be on
# the disk afterwards (data_intact, scope written: an OOM kill loses no page
# cache).  The OOM report's stack dump is expected, not a kernel problem
# (collect.py); anything else on the console is.
CLAIM="an OOM kill on a node takes the hog, not the writer beside it, and loses none of its data"
TOPOLOGIES="2node-asym"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=150

workload() {
	node0_mb=$(( $(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo) / 1024 ))
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/f" --size 192M --bs 1M --rate 6M \
		--report "$(report dirtier)" --report-every 1
	sleep 1
	start hog "$BIN/hog" --node 0 --size "$((node0_mb + 128))M" --hold 2 \
		--report "$(report hog)" --report-every 1
	finish hog
	kill -0 "$(cat $PIDDIR/dirtier)" 2>/dev/null && metric dirtier_running_at_kill 1 || metric dirtier_running_at_kill 0
	finish dirtier
	return 0
}

#CHECK# oom_killed           vmstat_delta.oom_kill >= 1
#CHECK# oom_report_seen      console.oom_reports >= 1
#CHECK# hog_killed           guest.exit_hog == 137
#CHECK# killed_while_writing guest.dirtier_running_at_kill == 1
#CHECK# dirtier_survived     guest.exit_dirtier == 0
#CHECK# dirtier_wrote_all    workloads.dirtier.bytes_written == 201326592
