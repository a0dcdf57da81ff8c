#!/bin/bash
# Faults and "no lost data" on 2node-asym: its small node 0 (512 MiB) is one
# a hog fills in seconds even under TCG (~75 us per page fault here, so a
# 1 GiB node of 2node-sym takes the OOM scenario alone past 100 s), and it is
# the lab's baseline topology.
#  - crash test: crash-sync writes, fsync()s, syncs and crashes the kernel
#    mid-write (boot 1, disk kept); crash-verify boots on the same disk and
#    rereads every block boot 1's reports call synced (boot 2); and boot 2
#    must have verified exactly the bytes boot 1 was promised;
#  - write-errors: fail_make_request mid-run, the writer told, nobody hung,
#    the pressure back;
#  - oom: an OOM kill on node 0 beside a writer.
# Every run also checks data_intact (collect.py).  Each check of each run is
# one line.  The wall time (~3 min on the lab's 2-core host) goes to the log:
# how long the runs take is the host's speed, no verdict on the lab (issue 19).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/result-lines.sh
dir=results/test-faults
fail=0
start=$(date +%s)
mkdir -p "$dir"

# run NAME ARGS...: one run into $dir/NAME; prints its lines
run() {
	local name=$1 log rc; shift
	log=$(/usr/bin/python3 launch/run.py --topo 2node-asym --mode global --out "$dir/$name" --quiet "$@" 2>&1); rc=$?
	if [ ! -f "$dir/$name/result.json" ]; then
		echo "FAIL: faults.$name: no result.json (run.py exit $rc): $(echo "$log" | tail -1)"
		return 1
	fi
	result_lines "faults.$name" "$dir/$name/result.json"
}

# ---- crash after sync: two boots on one disk ----
disk=$dir/crash-sync/test-disk.img
run crash-sync --scenario crash-sync --keep-disk || fail=1
if [ -f "$disk" ]; then
	run crash-verify --scenario crash-verify --disk "$disk" --append "dplab_record=$top/$dir/crash-sync" || fail=1
	rm -f "$disk"
	promised=$(jq '[.metrics.workloads // {} | .[] | select(.program == "dirtier") | .bytes_synced] | add // 0' \
		"$dir/crash-sync/result.json" 2>/dev/null)
	verified=$(jq '.metrics.data.bytes_verified // 0' "$dir/crash-verify/result.json" 2>/dev/null)
	if [ "${promised:-0}" -gt 0 ] && [ "$promised" = "$verified" ]; then
		echo "PASS: faults.crash.every_synced_byte_verified ($verified bytes)"
	else
		echo "FAIL: faults.crash.every_synced_byte_verified: boot 1 synced ${promised:-?} bytes, boot 2 verified ${verified:-?}"
		fail=1
	fi
else
	echo "FAIL: faults.crash-verify: boot 1 left no disk ($disk)"
	fail=1
fi

# ---- write errors mid-run; OOM beside a writer ----
run write-errors --scenario write-errors || fail=1
run oom --scenario oom || fail=1

echo "faults: wall $(( $(date +%s) - start ))s" >&2
exit $fail
