#!/bin/bash
# Host tests of the launcher's pure parts: topology files, scenario files,
# QEMU arguments, the guest-view check and result.json assembly, from fixtures.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
py=/usr/bin/python3
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1: $2"; fail=1; }

# Every shipped topology validates; every bad one fails with its expected line.
for t in topologies/*; do
	out=$($py launch/topology.py validate "$t" 2>&1) && pass "topology_valid.${t##*/}" || bad "topology_valid.${t##*/}" "$out"
done
for f in tests/fixtures/topologies/bad-*.topo; do
	want=$(sed -n '1s/^# expect: //p' "$f")
	out=$($py launch/topology.py validate "$f" 2>&1); rc=$?
	n=$(printf '%s\n' "$out" | wc -l)
	if [ $rc -eq 2 ] && [ "$n" -eq 1 ] && [[ $out == "topology: tests/fixtures/topologies/$want"* ]]; then
		pass "topology_error.$(basename "$f" .topo)"
	else
		bad "topology_error.$(basename "$f" .topo)" "rc=$rc lines=$n got '$out' want '$want'"
	fi
done
out=$($py launch/topology.py validate no-such-topology 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"no topology 'no-such-topology'"* ]] && pass topology_missing || bad topology_missing "rc=$rc $out"

# QEMU arguments: the rules from lab-anchors (memdevs sum to -m, every
# distance pair, CPU-only node without memdev, HMAT initiators).
args=$($py launch/topology.py qemu-args 2node-memless | tr '\n' ' ')
[[ $args == *"-numa node,nodeid=1,cpus=1 "* && $args != *"id=mem1"* ]] && pass qemu_memless_node || bad qemu_memless_node "$args"
args=$($py launch/topology.py qemu-args 4node-ring | tr '\n' ' ')
[ "$(grep -o 'dist,src' <<<"$args" | wc -l)" -eq 6 ] && [[ $args == *"dist,src=0,dst=2,val=30"* ]] && pass qemu_all_distance_pairs || bad qemu_all_distance_pairs "$args"
args=$($py launch/topology.py qemu-args 3node-tiered | tr '\n' ' ')
[[ $args == *"hmat=on"* && $args == *"nodeid=2,memdev=mem2,initiator=0"* && $args == *"data-type=access-bandwidth,bandwidth=5120M"* ]] && pass qemu_hmat || bad qemu_hmat "$args"
args=$($py launch/topology.py qemu-args 8node-tiny | tr '\n' ' ')
[ "$(grep -o 'dist,src' <<<"$args" | wc -l)" -eq 28 ] && [[ $args == *"-smp 2,sockets=2,cores=1,threads=1 -m 2048M"* ]] && pass qemu_8node || bad qemu_8node "$args"

# The guest-view check catches each kind of mismatch.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/good" <<'V'
node 0 cpulist=0 memtotal_kb=500000 distance=10,20
node 1 cpulist=1 memtotal_kb=1540000 distance=20,10
V
$py launch/topology.py check 2node-asym "$tmp/good" >/dev/null && pass guest_view_match || bad guest_view_match "good view rejected"
sed 's/memtotal_kb=500000/memtotal_kb=300000/' "$tmp/good" >"$tmp/mem"
sed 's/distance=20,10/distance=30,10/' "$tmp/good" >"$tmp/dist"
sed 's/cpulist=1/cpulist=1-2/' "$tmp/good" >"$tmp/cpus"
head -1 "$tmp/good" >"$tmp/nodes"
for k in mem dist cpus nodes; do
	out=$($py launch/topology.py check 2node-asym "$tmp/$k"); rc=$?
	[ $rc -eq 1 ] && [[ $out == *'"pass": false'* ]] && pass "guest_view_mismatch.$k" || bad "guest_view_mismatch.$k" "rc=$rc $out"
done

# Scenarios: every shipped one validates; malformed check lines are caught.
for s in workloads/scenarios/*.sh; do
	out=$($py launch/scenario.py validate "$s" 2>&1) && pass "scenario_valid.$(basename "$s" .sh)" || bad "scenario_valid.$(basename "$s" .sh)" "$out"
done
printf 'workload() { :; }\ncheck x a.b ~= 1\n' >"$tmp/bad-op.sh"
printf 'workload() { :; }\ncheck x a.b == many\n' >"$tmp/bad-val.sh"
printf 'check x a.b == 1\n' >"$tmp/no-workload.sh"
printf 'workload() { :; }\ncheck x a.b == 1 because\n' >"$tmp/bad-xfail.sh"
printf 'workload() { :; }\ncheck x a.b == 1 if mode=fast\n' >"$tmp/bad-if.sh"
for k in bad-op:"check operator '~=' unknown" bad-val:"check value 'many' is not a number" \
	no-workload:"no workload() function" bad-if:"'if' takes mode=off,global,node" bad-xfail:"only 'if ...' and 'xfail REASON...' may follow"; do
	f=${k%%:*} want=${k#*:}
	out=$($py launch/scenario.py validate "$tmp/$f.sh" 2>&1); rc=$?
	[ $rc -eq 2 ] && [[ $out == *"$want"* ]] && [ "$(wc -l <<<"$out")" -eq 1 ] && pass "scenario_error.$f" || bad "scenario_error.$f" "rc=$rc $out"
done

# Check evaluation: pass, fail, xfail, xpass, unmeasurable.
out=$($py - <<'PY'
import sys; sys.path.insert(0, "launch")
import collect
checks = [dict(name="a", metric="x.y", op=">=", value=3, xfail=None),
          dict(name="b", metric="x.y", op="<", value=3, xfail=None),
          dict(name="c", metric="x.y", op="<", value=3, xfail="claim false on 6.1"),
          dict(name="d", metric="x.y", op=">", value=3, xfail="stale"),
          dict(name="e", metric="x.z", op="==", value=0, xfail=None)]
r = collect.evaluate(checks, {"x": {"y": 5}})
print(" ".join(c["status"] for c in r), sum(collect.unexpected(c) for c in r), end=" ")
cond = [dict(name="f", metric="x.y", op="==", value=5, xfail=None, cond=("mode", ["node"]))]
print(len(collect.evaluate(cond, {"x": {"y": 5}}, {"mode": "off"})),
      len(collect.evaluate(cond, {"x": {"y": 5}}, {"mode": "node"})))
PY
)
[ "$out" = "pass fail xfail xpass unmeasurable 3 0 1" ] && pass check_statuses || bad check_statuses "$out"

# result.json from a recorded results directory (no boot).
if [ -d tests/fixtures/run-smoke ]; then
	cp -r tests/fixtures/run-smoke "$tmp/run"
	$py launch/collect.py "$tmp/run" >"$tmp/collect.out" 2>&1
	if jq -e '.checks | length > 0' "$tmp/run/result.json" >/dev/null &&
	   jq -e '.metrics.vmstat_delta.nr_dirtied > 0 and .metrics.topology.mismatches == 0' "$tmp/run/result.json" >/dev/null; then
		pass collect_fixture
	else
		bad collect_fixture "$(tail -3 "$tmp/collect.out")"
	fi
	# Break the guest's view: the topology check must turn it into a failure.
	sed -i 's/cpulist=1/cpulist=1-3/' "$tmp/run/guest-topology.txt"
	$py launch/collect.py "$tmp/run" >/dev/null 2>&1
	jq -e '.pass == false and ([.checks[] | select(.name=="topology_matches" and .status=="fail")] | length == 1)' \
		"$tmp/run/result.json" >/dev/null && pass collect_detects_topology_mismatch || bad collect_detects_topology_mismatch "still passes"
else
	bad collect_fixture "tests/fixtures/run-smoke missing"
fi
exit $fail
