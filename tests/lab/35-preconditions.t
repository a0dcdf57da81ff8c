#!/bin/bash
# Preconditions (`check ... when METRIC OP VALUE`, issue 19): a claim the run
# can only judge when a precondition on what it measured holds is judged
# then and unmeasurable otherwise, and the run passes either way.
# bandwidth-200m twice on 2node-sym, mode global:
#  - judged: run.py --disk-write-bps 4M, a disk two TCG writers outrun
#    many times over (13-33 MB/s each): balance_dirty_pages throttles them,
#    the estimate is traced, and its checks are judged (and must pass);
#  - unmeasurable: the scenario's own 200 MiB/s, which TCG writers cannot
#    fill: every `when` check is unmeasurable with the measured count quoted.
# Both runs must exit 0.  Which precondition a run met is what it measured:
# a host that outran 200 MiB/s (KVM) judges the second run too, and the
# unmeasurable path is then reported SKIP (not exercised), never PASS.
# Each check of each run is one PASS/FAIL/XFAIL/SKIP line.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/result-lines.sh
dir=results/test-preconditions
fail=0
pre='trace.balance_dirty_pages.calls > 20'

# one_run NAME ARGS...: run bandwidth-200m, print its check lines; sets rc, wall, r
one_run() {
	local name=$1 t0; shift
	out=$dir/$name
	t0=$(date +%s)
	/usr/bin/python3 launch/run.py --topo 2node-sym --scenario bandwidth-200m --mode global \
		--out "$out" "$@" >"$dir.$name.log" 2>&1; rc=$?
	wall=$(( $(date +%s) - t0 ))
	r=$out/result.json
	echo "preconditions.$name: exit $rc, wall ${wall}s" >&2
	if [ ! -f "$r" ]; then
		echo "FAIL: preconditions.$name: no result.json, exit $rc: $(tail -1 "$dir.$name.log")"
		return 1
	fi
	result_lines "bandwidth-200m.$name" "$r"
	if [ $rc -eq 0 ] && jq -e '.pass' "$r" >/dev/null; then
		echo "PASS: preconditions.$name.exit_0 (${wall}s wall)"
	else
		echo "FAIL: preconditions.$name.exit_0: exit $rc after ${wall}s"
		return 1
	fi
}
# when_checks R: the checks with a precondition, as "name status met" lines
when_checks() { jq -r '.checks[] | select(.precondition) | "\(.name) \(.status) \(.precondition_met)"' "$1"; }
calls() { jq -r '.metrics.trace.balance_dirty_pages.calls // "absent"' "$1"; }
mkdir -p "$dir"

# ---- judged: a 4 MiB/s disk --------------------------------------------------
one_run judged --disk-write-bps 4M || fail=1
if [ -f "$r" ]; then
	if grep -qE 'throttling[.]bps-write=4194304([^0-9]|$)' "$out/qemu.cmd" && jq -e '.metrics.disk.write_bps == 4194304' "$r" >/dev/null; then
		echo "PASS: preconditions.judged.disk_throttle_4m"
	else
		echo "FAIL: preconditions.judged.disk_throttle_4m: $(grep -o 'bps-write=[0-9]*' "$out/qemu.cmd") $(jq -c .metrics.disk "$r")"; fail=1
	fi
	w=$(when_checks "$r")
	n=$(grep -c . <<<"$w")
	if grep -q ' true$' <<<"$w" && ! grep -q ' false$' <<<"$w" && [ "$n" -ge 5 ] && [ "$(grep -c ' pass true$' <<<"$w")" -eq "$n" ]; then
		echo "PASS: preconditions.judged.all_judged_and_passed ($n checks, balance_dirty_pages calls $(calls "$r"))"
	elif grep -q ' false$' <<<"$w" && [ "$(grep -c ' false$' <<<"$w")" -eq "$n" ]; then
		echo "SKIP: preconditions.judged.all_judged_and_passed: unmeasurable: the writers never reached the throttle of a 4 MiB/s disk ($pre not met: measured $(calls "$r"))"
	else
		echo "FAIL: preconditions.judged.all_judged_and_passed: $(tr '\n' ',' <<<"$w")"; fail=1
	fi
fi

# ---- unmeasurable: the scenario's 200 MiB/s ----------------------------------
one_run unmeasurable || fail=1
if [ -f "$r" ]; then
	w=$(when_checks "$r")
	n=$(grep -c . <<<"$w")
	c=$(calls "$r")
	if [ "$n" -ge 5 ] && [ "$(grep -c ' unmeasurable false$' <<<"$w")" -eq "$n" ] &&
	   [ "$(jq '[.checks[] | select(.precondition) | .reason | select(startswith("precondition '"$pre"' not met: measured ") or startswith("precondition '"$pre"' not met: metric "))] | length' "$r")" -eq "$n" ]; then
		echo "PASS: preconditions.unmeasurable.none_judged ($n checks unmeasurable, balance_dirty_pages calls $c)"
	elif [ "$c" != absent ] && [ "$c" -gt 20 ] && ! grep -q ' false$' <<<"$w"; then
		echo "SKIP: preconditions.unmeasurable.none_judged: unmeasurable: this host's writers outran a 200 MiB/s disk ($pre held: measured $c), so the checks were judged"
	else
		echo "FAIL: preconditions.unmeasurable.none_judged: calls $c: $(tr '\n' ',' <<<"$w")"; fail=1
	fi
	# The summary names them as skipped, not as failures.
	if grep -q '^  SKIP         estimate_near_disk_low: unmeasurable: precondition' "$dir.unmeasurable.log" ||
	   ! grep -q ' false$' <<<"$w"; then
		echo "PASS: preconditions.unmeasurable.summary_says_skip"
	else
		echo "FAIL: preconditions.unmeasurable.summary_says_skip: $(grep -E 'SKIP|UNMEAS|run:' "$dir.unmeasurable.log" | head -3 | tr '\n' ' ')"; fail=1
	fi
fi
exit $fail
