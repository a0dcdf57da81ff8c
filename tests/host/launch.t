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
# Hot-pluggable memory: boot memory in -m, the DIMM in a slot up to maxmem,
# its node without boot memory (no memdev); a topology without dimm= has no slots.
args=$($py launch/topology.py qemu-args 2node-hotplug | tr '\n' ' ')
[[ $args == *"-m 1536M,slots=1,maxmem=2048M "* && $args == *"-numa node,nodeid=1,cpus=1 "* &&
   $args == *"-object memory-backend-ram,id=hpmem1,size=512M -device pc-dimm,id=dimm1,memdev=hpmem1,node=1"* ]] &&
	pass qemu_dimm || bad qemu_dimm "$args"
args=$($py launch/topology.py qemu-args 2node-asym | tr '\n' ' ')
[[ $args != *"slots="* && $args != *"pc-dimm"* ]] && pass qemu_no_dimm || bad qemu_no_dimm "$args"

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
# A node's DIMM memory counts towards its MemTotal: missing (not onlined), it is a mismatch.
printf 'node 0 cpulist=0 memtotal_kb=1540000 distance=10,20\nnode 1 cpulist=1 memtotal_kb=524288 distance=20,10\n' >"$tmp/hp"
sed 's/memtotal_kb=524288/memtotal_kb=0/' "$tmp/hp" >"$tmp/hp-offline"
$py launch/topology.py check 2node-hotplug "$tmp/hp" >/dev/null && pass guest_view_dimm || bad guest_view_dimm "DIMM view rejected"
# Boot node of a DIMM topology: a 64 MiB SWIOTLB on top of the usual shortfall
# (1454600 kB measured), but not much more.
sed 's/memtotal_kb=1540000/memtotal_kb=1454600/' "$tmp/hp" >"$tmp/hp-swiotlb"
sed 's/memtotal_kb=1540000/memtotal_kb=1400000/' "$tmp/hp" >"$tmp/hp-short"
$py launch/topology.py check 2node-hotplug "$tmp/hp-swiotlb" >/dev/null && pass guest_view_dimm_swiotlb || bad guest_view_dimm_swiotlb "measured view rejected"
out=$($py launch/topology.py check 2node-hotplug "$tmp/hp-short"); rc=$?
[ $rc -eq 1 ] && [[ $out == *"node 0: MemTotal 1400000 kB"*"less 64 MiB of SWIOTLB"* ]] && pass guest_view_dimm_short || bad guest_view_dimm_short "rc=$rc $out"
out=$($py launch/topology.py check 2node-hotplug "$tmp/hp-offline"); rc=$?
[ $rc -eq 1 ] && [[ $out == *"node 1: MemTotal 0 kB, file says 524288 kB"* ]] && pass guest_view_dimm_missing || bad guest_view_dimm_missing "rc=$rc $out"

# A KASAN kernel's shadow (1/8 of memory) and image land on the boot node:
# 189948 kB measured on 2node-asym's 512 MiB node 0.  Allowed with --kasan
# only, and not a node that is short by more than that.
sed 's/memtotal_kb=500000/memtotal_kb=189948/' "$tmp/good" >"$tmp/kasan"
sed 's/memtotal_kb=500000/memtotal_kb=120000/' "$tmp/good" >"$tmp/kasan-short"
$py launch/topology.py check 2node-asym "$tmp/kasan" --kasan >/dev/null && pass guest_view_kasan || bad guest_view_kasan "measured KASAN view rejected"
out=$($py launch/topology.py check 2node-asym "$tmp/kasan"); rc=$?
[ $rc -eq 1 ] && pass guest_view_kasan_needs_flag || bad guest_view_kasan_needs_flag "rc=$rc $out"
out=$($py launch/topology.py check 2node-asym "$tmp/kasan-short" --kasan); rc=$?
[ $rc -eq 1 ] && [[ $out == *"less 320 MiB of KASAN shadow and image"* ]] && pass guest_view_kasan_short || bad guest_view_kasan_short "rc=$rc $out"

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
          dict(name="e", metric="x.z", op="==", value=0, xfail=None),
          dict(name="g", metric="x.z", op="==", value=0, xfail="not measurable under TCG")]
r = collect.evaluate(checks, {"x": {"y": 5}})
print(" ".join(c["status"] for c in r), sum(collect.unexpected(c) for c in r), end=" ")
cond = [dict(name="f", metric="x.y", op="==", value=5, xfail=None, cond=("mode", ["node"]))]
print(len(collect.evaluate(cond, {"x": {"y": 5}}, {"mode": "off"})),
      len(collect.evaluate(cond, {"x": {"y": 5}}, {"mode": "node"})))
PY
)
[ "$out" = "pass fail xfail xpass unmeasurable xfail 3 0 1" ] && pass check_statuses || bad check_statuses "$out"

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

# ---- every malformed topology, scenario and run argument: one line, exit 2 ----
# The classes the fixtures and lines above leave out.  one_line NAME WANT
# CMD...: exit 2, nothing on stdout, exactly WANT on stderr; one_like NAME
# PREFIX CMD...: the same with a line starting with PREFIX (for errors whose
# wording is not settled yet).
bt=$tmp/bt; mkdir -p "$bt"
one_line() {
	local name=$1 want=$2 rc; shift 2
	"$@" >"$bt/o" 2>"$bt/e"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$bt/e")" -eq 1 ] && [ ! -s "$bt/o" ] && [ "$(cat "$bt/e")" = "$want" ]; then
		pass "$name"
	else
		bad "$name" "rc=$rc got '$(head -3 "$bt/e" | tr '\n' '|')' want '$want'"
	fi
}
one_like() {
	local name=$1 want=$2 rc; shift 2
	"$@" >"$bt/o" 2>"$bt/e"; rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$bt/e")" -eq 1 ] && [ ! -s "$bt/o" ] && [[ $(cat "$bt/e") == "$want"* ]]; then
		pass "$name"
	else
		bad "$name" "rc=$rc, $(wc -l <"$bt/e") lines: '$(head -3 "$bt/e" | tr '\n' '|')', want one line '$want...'"
	fi
}
base='memory 2G
node 0 cpus=1 mem=1G
node 1 cpus=1 mem=1G
distance 0 1 20
disk size=8G fs=ext4 write_bps=30M'
topo_case() {	# topo_case NAME 'LINE: MESSAGE' TEXT
	printf '%s\n' "$3" >"$bt/$1.topo"
	one_line "topology_error.$1" "topology: $bt/$1.topo:$2" $py launch/topology.py validate "$bt/$1.topo"
}
topo_case memory-two-sizes "1: memory takes one size" "$(sed '1s/.*/memory 1G 1G/' <<<"$base")"
topo_case node-no-id "2: node needs an id" "$(sed '2s/.*/node/' <<<"$base")"
topo_case node-id-not-integer "2: node id 'x' is not an integer" "$(sed '2s/node 0/node x/' <<<"$base")"
topo_case node-id-range "2: node id 64 out of range 0..63" "$(sed '2s/node 0/node 64/' <<<"$base")"
topo_case node-needs-mem "2: node 0 needs cpus= and mem=" "$(sed '2s/ mem=1G//' <<<"$base")"
topo_case node-attr-no-value "2: expected key=value, got 'fast'" "$(sed '2s/$/ fast/' <<<"$base")"
topo_case node-attr-twice "2: node attribute 'cpus' given twice" "$(sed '2s/$/ cpus=1/' <<<"$base")"
topo_case node-mem-not-mib "2: node 0 mem must be a whole number of MiB" "$(sed '2s/mem=1G/mem=1000K/' <<<"$base")"
topo_case cpus-range "2: cpus 65 out of range 0..64" "$(sed '2s/cpus=1/cpus=65/' <<<"$base")"
topo_case cpus-negative "2: cpus -1 out of range 0..64" "$(sed '2s/cpus=1/cpus=-1/' <<<"$base")"
topo_case distance-arity "4: distance takes: SRC DST VALUE (or: default VALUE)" "$(sed '4s/ 20$//' <<<"$base")"
topo_case distance-range "4: distance 300 out of range 11..254" "$(sed '4s/20$/300/' <<<"$base")"
topo_case distance-local "4: distance 10 out of range 11..254" "$(sed '4s/20$/10/' <<<"$base")"
topo_case distance-default-range "4: distance 5 out of range 11..254" "$(sed '4s/.*/distance default 5/' <<<"$base")"
topo_case distance-twice "5: distance 0 1 given twice" "$(sed '4p' <<<"$base")"
topo_case distance-unknown-node "5: distance names node 5, which is not defined" "$(sed '4a distance 0 5 20' <<<"$base")"
topo_case hmat-missing-attr "6: hmat needs bandwidth=" "$base
hmat initiator=0 target=1 latency=60"
topo_case hmat-unknown-attr "6: unknown hmat attribute 'speed' (known: initiator, target, latency, bandwidth)" "$base
hmat initiator=0 target=1 latency=60 bandwidth=5G speed=1"
topo_case hmat-latency-range "6: latency 0 out of range 1..1048576" "$base
hmat initiator=0 target=1 latency=0 bandwidth=5G"
topo_case hmat-target-no-memory "6: hmat target 1 is not a node with memory" "$(sed '2s/mem=1G/mem=2G/; 3s/mem=1G/mem=0/' <<<"$base")
hmat initiator=0 target=1 latency=60 bandwidth=5G"
topo_case hmat-memory-only-initiator "4: with hmat lines, memory-only node 2 needs initiator=" 'memory 2G
node 0 cpus=1 mem=1G
node 1 cpus=1 mem=512M
node 2 cpus=0 mem=512M
distance default 20
disk size=8G fs=ext4 write_bps=30M
hmat initiator=0 target=2 latency=60 bandwidth=5G'
topo_case cpu-node-initiator "3: node 1 has CPUs, so it is its own initiator" "$(sed '3s/$/ initiator=0/' <<<"$base")"
topo_case disk-twice "6: disk given twice" "$(sed '5p' <<<"$base")"
topo_case disk-needs-attr "5: disk needs write_bps=" "$(sed '5s/ write_bps=30M//' <<<"$base")"
topo_case disk-too-small "5: disk size must be at least 512M" "$(sed '5s/size=8G/size=256M/' <<<"$base")"
topo_case disk-unknown-attr "5: unknown disk attribute 'cache' (known: size, fs, write_bps, read_bps)" "$(sed '5s/$/ cache=none/' <<<"$base")"
topo_case disk-bad-rate "5: bad size 'fast' (want e.g. 512M, 2G)" "$(sed '5s/30M/fast/' <<<"$base")"
topo_case no-nodes "2: no node lines" "$(sed '2,4d' <<<"$base")"
topo_case comments-only "1: no node lines" "# nothing here"
topo_case no-memory "4: missing 'memory' (the total, which node mem= must sum to)" "$(sed '1d' <<<"$base")"
topo_case no-cpus "5: no node has CPUs" "$(sed 's/cpus=1/cpus=0/' <<<"$base")"
topo_case node0-no-memory "2: node 0 must have memory" "$(sed '2s/mem=1G/mem=0/; 3s/mem=1G/mem=2G/' <<<"$base")"
printf 'memory 2G\nnode 0 cpus=1 mem=2G # \xff\n' >"$bt/not-utf8.topo"
one_like topology_error.not-utf8 "topology: $bt/not-utf8.topo" $py launch/topology.py validate "$bt/not-utf8.topo"
one_line topology_cli.unknown-command "topology: unknown command 'frob'" $py launch/topology.py frob 2node-sym
one_line topology_cli.check-needs-view "topology: check needs FILE GUESTVIEW [--kasan]" $py launch/topology.py check 2node-sym
one_line topology_cli.directory "topology: no topology 'topologies' (not a file, nor a name under topologies/)" \
	$py launch/topology.py validate topologies

sc_case() {	# sc_case NAME 'WHERE: MESSAGE' TEXT: WHERE is ":LINE" or ""
	printf '%s\n' "$3" >"$bt/$1.sh"
	one_line "scenario_error.$1" "scenario: $bt/$1.sh$2" $py launch/scenario.py validate "$bt/$1.sh"
}
w='workload() { :; }'
sc_case check-too-few ":2: check needs NAME METRIC OP VALUE [xfail REASON]" "$w
check x a.b =="
sc_case check-name ":2: check name 'Bad' must be lower-case [a-z0-9_.-]" "$w
check Bad a.b == 1"
sc_case check-twice ":3: check 'x' defined twice" "$w
check x a.b == 1
check x a.c == 1"
sc_case if-kernel ":2: 'if' takes mode=off,global,node or kernel=patched,stock" "$w
check x a.b == 1 if kernel=vanilla"
sc_case if-bare ":2: 'if' takes mode=off,global,node or kernel=patched,stock" "$w
check x a.b == 1 if"
sc_case xfail-no-reason ":2: after VALUE only 'if ...' and 'xfail REASON...' may follow" "$w
check x a.b == 1 xfail"
# a NaN or an infinity would make a check that can never pass (or never fail)
sc_case check-value-nan ":2: check value 'nan' is not a number" "$w
check x a.b == nan"
sc_case check-value-inf ":2: check value 'inf' is not a number" "$w
check x a.b < inf"
sc_case bad-quoting ":2: bad quoting: No closing quotation" "$w
CLAIM=\"open"
sc_case disk-bps ": DISK_WRITE_BPS 'fast' must be a size like 20M" "$w
DISK_WRITE_BPS=fast"
sc_case timeout-small ": TIMEOUT '5' must be 10..7200 seconds" "$w
TIMEOUT=5"
sc_case timeout-word ": TIMEOUT 'soon' must be 10..7200 seconds" "$w
TIMEOUT=soon"
sc_case empty ": no workload() function" ""
one_line scenario_error.missing "scenario: no scenario '$bt/none.sh' (see workloads/scenarios/)" \
	$py launch/scenario.py validate "$bt/none.sh"
printf '%s\n# \xff\n' "$w" >"$bt/not-utf8.sh"
one_like scenario_error.not-utf8 "scenario: $bt/not-utf8.sh" $py launch/scenario.py validate "$bt/not-utf8.sh"
# MODES and TOPOLOGIES are checked where they are used: by the matrix
mkdir -p "$bt/sc"
printf 'MODES="off fast"\n%s\n' "$w" >"$bt/sc/delta.sh"
one_line scenario_error.modes "matrix: $bt/sc/delta.sh: MODES names unknown mode 'fast'" \
	$py launch/matrix.py --scenario-dir "$bt/sc" --results "$bt/res" --scenarios delta --list

# run.py: each argument it checks before booting, and argparse's own errors
# (which print usage as well: several lines)
run() { $py launch/run.py "$@"; }
one_line run_error.mode "run: MODE must be one of off, global, node, not 'fast'" run --mode fast
one_line run_error.kernel "run: KERNEL must be patched or stock, not 'vanilla'" run --kernel vanilla
one_line run_error.lru "run: LRU must be classic or mglru, not 'lfu'" run --lru lfu
one_line run_error.no-topology "run: no topology 'nosuch' (not a file, nor a name under topologies/)" run --topo nosuch
one_line run_error.bad-topology "run: $bt/cpus-range.topo:2: cpus 65 out of range 0..64" run --topo "$bt/cpus-range.topo"
one_line run_error.no-scenario "run: no scenario '$top/workloads/scenarios/nosuch.sh' (see workloads/scenarios/)" \
	run --scenario nosuch
one_line run_error.bad-scenario "run: $bt/check-name.sh:2: check name 'Bad' must be lower-case [a-z0-9_.-]" \
	run --scenario "$bt/check-name.sh"
one_line run_error.no-kernel "run: no kernel at build/patched/obj-none/arch/x86/boot/bzImage: run 'make kernel KERNEL=patched'" \
	run --variant none
one_like run_error.not-utf8-topology "run: $bt/not-utf8.topo" run --topo "$bt/not-utf8.topo"
one_like run_error.unknown-option "run: " run --bogus
one_like run_error.stray-argument "run: " run extra
one_like run_error.timeout-not-number "run: " run --timeout soon
# --variant none: never boots even while --timeout is not checked
one_like run_error.timeout-negative "run: --timeout" run --timeout -5 --variant none
one_line run_error.boot-timeout-short "run: --boot-timeout 3: want 10..7200 seconds" run --boot-timeout 3 --variant none
one_line run_error.slow-motion-range "run: --slow-motion 0: want 1..50" run --slow-motion 0 --variant none
one_line run_error.slow-motion-disk "run: --slow-motion 20: write_bps 30720K / 20 is under 2M" \
	run --topo 2node-asym --slow-motion 20 --variant none
one_like run_error.slow-motion-not-number "run: " run --slow-motion fast
exit $fail
