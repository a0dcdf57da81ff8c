#!/bin/bash
# Host tests of scenario shell code (no boot): a scenario's workload() runs
# with launch/guest-lib.sh sourced and the guest's side effects stubbed, and
# /proc/meminfo replaced (a private mount namespace, bind mount) by a file
# each stubbed `sleep` advances, so the test sets what the guest would see.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scenario-shell.t.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1: $2"; fail=1; }

if ! unshare -m true 2>/dev/null; then
	echo "SKIP: crash_sync.samples_until_in_flight: unmeasurable: precondition unshare -m (root) not met"
	exit 0
fi

# meminfo KB: a /proc/meminfo whose Dirty is KB and Writeback 0
meminfo() { printf 'MemTotal:        2000000 kB\nDirty:          %8d kB\nWriteback:             0 kB\nWritebackTmp:          0 kB\n' "$1"; }

# crash_sync SEQ...: crash-sync's workload() where /proc/meminfo shows
# Dirty SEQ[i] after the i-th sleep (the last value thereafter); prints the
# metrics it recorded, then "crashed" if it crashed.  The stubbed sleep
# copies the next of the prepared files $tmp/meminfo.I over the mounted one.
crash_sync() {
	: >"$tmp/metrics"
	i=0
	for kb; do meminfo "$kb" >"$tmp/meminfo.$i"; i=$((i + 1)); done
	echo $((i - 1)) >"$tmp/last"
	cp "$tmp/meminfo.0" "$tmp/meminfo"
	unshare -m sh -c '
		tmp=$1
		mount --bind "$tmp/meminfo" /proc/meminfo || exit 9
		OUT=$tmp/out; mkdir -p "$OUT"; BIN=/nonexistent; TEST_DIR=$tmp
		PIDDIR=$tmp/pids
		. launch/guest-lib.sh
		. workloads/scenarios/crash-sync.sh
		# the guest side effects, stubbed
		start() { :; }
		finish() { return 0; }
		sync() { :; }
		bytes_synced() { echo 16777216; }
		metric() { echo "$1 $2" >>"$tmp/metrics"; }
		crash() { echo crashed >>"$tmp/metrics"; return 0; }
		# each sleep moves the guest on: the next meminfo of the sequence
		step=0
		sleep() {
			[ $step -lt "$(cat "$tmp/last")" ] && step=$((step + 1))
			cat "$tmp/meminfo.$step" >"$tmp/meminfo"	# same inode: the bind mount sees it
		}
		workload
	' sh "$tmp"
	cat "$tmp/metrics"
}

# The writer between an fsync() that emptied the page cache and its next
# write(): /proc/meminfo shows nothing in flight at the moment crash-sync
# first looks (after its 1.5 s), and 8 MiB a few samples later.  The CI run
# of 2026-12-06 failed dirty_at_crash (got 0) on exactly this.
out=$(crash_sync 0 0 0 0 0 8192)
kb=$(echo "$out" | awk '$1 == "dirty_kb_at_crash" { print $2 }')
if [ "${kb:-0}" -gt 0 ] && echo "$out" | grep -qx crashed; then
	pass crash_sync.samples_until_in_flight
else
	bad crash_sync.samples_until_in_flight "dirty_kb_at_crash ${kb:-unset}: $(echo "$out" | tr '\n' ' ')"
fi
# Nothing in flight ever: it gives up (bounded), records 0 and still
# crashes, so the check dirty_at_crash fails instead of the run hanging.
out=$(crash_sync 0)
kb=$(echo "$out" | awk '$1 == "dirty_kb_at_crash" { print $2 }')
if [ "$kb" = 0 ] && echo "$out" | grep -qx crashed; then
	pass crash_sync.nothing_in_flight_recorded_as_0
else
	bad crash_sync.nothing_in_flight_recorded_as_0 "$(echo "$out" | tr '\n' ' ')"
fi
exit $fail
