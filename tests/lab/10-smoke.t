#!/bin/bash
# The pipeline: boot, check the guest's view against the file, dd + sync,
# trace, collect, on the simplest topology and on a memoryless node; then
# the launcher's failure paths: hang, failing command, panic.  Every other
# topology boots in 30-matrix-smoke.t, where each run checks its topology.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
fail=0
base=results/test-smoke
for tm in uma:global 2node-memless:node; do
	t=${tm%:*} m=${tm#*:}
	out=$base/$t-$m
	start=$(date +%s.%N)
	log=$(/usr/bin/python3 launch/run.py --topo "$t" --scenario smoke --mode "$m" --out "$out" 2>&1); rc=$?
	wall=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)")
	if [ $rc -eq 0 ] && jq -e '.pass' "$out/result.json" >/dev/null 2>&1; then
		boot=$(jq -r '.metrics.boot_to_userspace_guest_s' "$out/result.json")
		echo "PASS: smoke.$t.$m (${wall}s wall, userspace at ${boot}s guest)"
	else
		echo "FAIL: smoke.$t.$m: rc=$rc $(echo "$log" | grep -E 'FAIL|UNMEAS|run:' | head -4 | tr '\n' ' ')"; fail=1
	fi
done
# The guest's kernel command line carries the mode.
grep -q 'dirty_pressure=node' $base/2node-memless-node/guest-cmdline 2>/dev/null &&
	echo "PASS: mode_on_cmdline" || { echo "FAIL: mode_on_cmdline: dirty_pressure=node not in the guest's /proc/cmdline"; fail=1; }
# A hung guest: the launcher kills it, keeps the console, exits 2 with one line.
out=$base/hang
log=$(/usr/bin/python3 launch/run.py --topo uma --cmd 'sleep 600' --timeout 25 --out $out --quiet 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$(echo "$log" | wc -l)" -eq 1 ] && [[ $log == *"guest hung"* ]] && grep -q 'workload start' $out/console.log; then
	echo "PASS: hang_detected"
else
	echo "FAIL: hang_detected: rc=$rc $log"; fail=1
fi
# A guest that never reaches userspace (here a shell as init, so guest-init
# never runs) is killed after --boot-timeout, not the scenario's timeout.
out=$base/noboot
t0=$(date +%s)
log=$(/usr/bin/python3 launch/run.py --topo uma --scenario smoke --boot-timeout 15 --append init=/bin/sh --out $out --quiet 2>&1); rc=$?
took=$(( $(date +%s) - t0 ))
if [ $rc -eq 2 ] && [ "$(echo "$log" | wc -l)" -eq 1 ] && [[ $log == *"did not boot: no userspace after 15s"* ]] && [ $took -lt 60 ]; then
	echo "PASS: boot_hang_detected (${took} s)"
else
	echo "FAIL: boot_hang_detected: rc=$rc after ${took} s: $log"; fail=1
fi
# A failing user command fails the run (exit 1), it does not pass silently.
log=$(/usr/bin/python3 launch/run.py --topo uma --cmd 'false' --out $base/cmdfail 2>&1); rc=$?
[ $rc -eq 1 ] && jq -e '.pass == false' $base/cmdfail/result.json >/dev/null && echo "PASS: failing_cmd_fails_run" ||
	{ echo "FAIL: failing_cmd_fails_run: rc=$rc"; fail=1; }
# A panic is a failed run, never a hang.
log=$(/usr/bin/python3 launch/run.py --topo uma --cmd 'echo c > /proc/sysrq-trigger' --timeout 60 --out $base/panic 2>&1); rc=$?
[ $rc -eq 1 ] && jq -e '.metrics.console.problems > 0' $base/panic/result.json >/dev/null && echo "PASS: panic_fails_run" ||
	{ echo "FAIL: panic_fails_run: rc=$rc $(echo "$log" | tail -2 | tr '\n' ' ')"; fail=1; }
# Slow motion (debug kernels): the disk is N times slower, writeback's
# expiry N times longer, the guest's scenario sees SLOW_MOTION=N, and
# result.json records it.
log=$(/usr/bin/python3 launch/run.py --topo uma --slow-motion 3 \
	--cmd 'test "$SLOW_MOTION" = 3 && test "$(cat /proc/sys/vm/dirty_expire_centisecs)" = 9000' \
	--out $base/slow --quiet 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qE 'throttling[.]bps-write=10485760([^0-9]|$)' $base/slow/qemu.cmd &&
	jq -e '.slow_motion == 3' $base/slow/result.json >/dev/null; then
	echo "PASS: slow_motion_disk_and_guest"
else
	echo "FAIL: slow_motion_disk_and_guest: rc=$rc $(grep -o 'bps-write=[0-9]*' $base/slow/qemu.cmd) $(jq -c .slow_motion $base/slow/result.json 2>/dev/null) $log"; fail=1
fi
exit $fail
