# vmstat-cpuset: /proc/vmstat's dirty thresholds do not depend on who reads
# them (issue 14, item 7).  In series v1, mode node scaled the global
# domain's soft limits by the pressure of the nodes the *calling* task could
# use, so nr_dirty_background_threshold in /proc/vmstat changed with the
# reader's cpuset or MPOL_BIND policy.  Series v2 (the document, "node"):
# the global domain's limits use the average of the node pressures weighted
# by dirtyable memory, the same for every task; the per-task part is the
# node domain inside balance_dirty_pages(), which /proc/vmstat does not show.
#
# First the nodes' pressures are made to differ by the real mechanism
# (debugfs has no per-node write: dirty_pressure sets every node): a writer
# bound to node 0 (as imbalance's) fills node 0 with dirty page cache for a
# few seconds, then an anonymous hog bound to node 0 takes three quarters of
# it at once, so reclaim there meets the dirty pages and lowers node 0.  Hog
# after writer, not before as in imbalance: in mode node the writer's node
# domain would otherwise keep its dirty pages off node 0's LRU.  Both stop
# as soon as node 0 is lowered.
#
# Then, with absolute limits (vm.dirty_bytes 200 MiB, dirty_background_bytes
# 100 MiB, so free memory moving between reads cannot change them), rounds
# of reads of /proc/vmstat, each by its own task: unbound, bound with numactl
# (--membind=N, --cpunodebind=N when node N has CPUs) and in a cgroup-v1
# cpuset with cpuset.mems=N, for every node with memory.  Each read also
# reads the effective pressure from debugfs just before and after; it moves
# between reads (node 0 recovers 1 step/s, and mode node's weights follow
# memory), so readers are compared where they saw the same pressure (reads
# grouped by it), and each read whose pressure did not move ("pinned") is
# checked against the document: nr_dirty_threshold is the hard limit, never
# scaled (dirty_bytes in pages); nr_dirty_background_threshold the
# background limit scaled by the effective pressure, p / 1024, in modes
# global and node (mode off: unscaled).  A second reader, one task
# rebinding itself between reads (MPOL_BIND to each node, then each node's
# cpuset), compares the bindings within milliseconds.
CLAIM="/proc/vmstat's nr_dirty_threshold and nr_dirty_background_threshold are the same for every reader (unbound, numactl-bound, cpuset) while node pressures differ, and are the document's global thresholds"
TOPOLOGIES="2node-asym 3node-tiered"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=300

ROUNDS=16
SWITCH_ROUNDS=50
DIRTY_BYTES=209715200
BG_BYTES=104857600
CG=/tmp/dplab-cpuset

mem_nodes() {
	awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
		for (j = r[1]; j <= (n == 2 ? r[2] : r[1]); j++) print j } }' \
		/sys/devices/system/node/has_memory
}

# One read by the task running it: the effective pressure from debugfs, the
# two thresholds from /proc/vmstat, the pressure again, all within one awk:
# "thresh bg p_before p_after".  p_before == p_after pins the pressure the
# thresholds were computed with (it is cached per jiffy and moves between
# reads: node 0 recovers 1 step/s, and mode node's weights follow memory).
THRESH_AWK='BEGIN { f = "/sys/kernel/debug/vm/dirty_pressure"; getline pa <f; close(f)
	while ((getline l <"/proc/vmstat") > 0) { split(l, a, " ")
		if (a[1] == "nr_dirty_threshold") t = a[2]; if (a[1] == "nr_dirty_background_threshold") b = a[2] }
	close("/proc/vmstat"); getline pb <f; close(f); print t, b, pa, pb }'

# cgroup v1's cpuset: cgroup v2 migrates a joining task's memory to the
# cpuset's nodes (memory_migrate is always on there), which moves dirtyable
# memory between nodes and with it mode node's weighted effective pressure,
# for every reader alike (measured: 3 steps for a Python reader joining
# node 0's cpuset).  v1 leaves memory where it is unless memory_migrate is
# set; new allocations follow cpuset.mems either way.
setup_cpusets() {
	mkdir -p $CG
	mountpoint -q $CG || mount -t cgroup -o cpuset dplab-cpuset $CG || return 1
	allcpus=$(cat $CG/cpuset.cpus)
	for n in $(mem_nodes); do
		mkdir -p $CG/dplab-n$n
		cpus=$(cat /sys/devices/system/node/node$n/cpulist)
		echo "${cpus:-$allcpus}" >$CG/dplab-n$n/cpuset.cpus || return 1
		echo "$n" >$CG/dplab-n$n/cpuset.mems || return 1
		[ "$(cat $CG/dplab-n$n/cpuset.memory_migrate)" = 0 ] || return 1
	done
}

# reader NAME: run the threshold read as reader NAME
reader() {
	case $1 in
	all) awk "$THRESH_AWK" ;;
	bind*)
		n=${1#bind}
		if [ -n "$(cat /sys/devices/system/node/node$n/cpulist)" ]; then
			numactl --cpunodebind="$n" --membind="$n" awk "$THRESH_AWK"
		else
			numactl --membind="$n" awk "$THRESH_AWK"
		fi ;;
	cpuset*)
		n=${1#cpuset}
		sh -c 'echo $$ >"$1/cgroup.procs" && exec awk "$2"' cpuset "$CG/dplab-n$n" "$THRESH_AWK" ;;
	esac
}

# One task that rebinds itself between reads: unbound, then MPOL_BIND to
# each memory node (and its CPUs), then into each node's cpuset and back,
# reading /proc/vmstat after each step, with debugfs' pressure before and
# after the round.  A round takes milliseconds, within a jiffy or two (the
# effective pressure is cached per jiffy), so when the pressure before and
# after agree every binding must see the same thresholds exactly.
# Lines: "round reader thresh bg p_before p_after".
SWITCH_PY='
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
SYS_set_mempolicy, MPOL_DEFAULT, MPOL_BIND = 238, 0, 2
dp, cg, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
nodes = [int(n) for n in sys.argv[4].split()]
cpusets = sys.argv[5] == "1"
allcpus = os.sched_getaffinity(0)
def node_cpus(n):
    s = open("/sys/devices/system/node/node%d/cpulist" % n).read().strip()
    out = set()
    for part in filter(None, s.split(",")):
        a, _, b = part.partition("-")
        out.update(range(int(a), int(b or a) + 1))
    return out
def policy(n):
    if n is None:
        r = libc.syscall(SYS_set_mempolicy, MPOL_DEFAULT, None, 0)
    else:
        mask = ctypes.c_ulong(1 << n)
        r = libc.syscall(SYS_set_mempolicy, MPOL_BIND, ctypes.byref(mask), 64)
    if r:
        raise OSError(ctypes.get_errno(), "set_mempolicy")
def move(path):
    with open(path + "/cgroup.procs", "w") as f:
        f.write(str(os.getpid()))
def thresholds():
    t = b = None
    with open("/proc/vmstat") as f:
        for line in f:
            k, v = line.split()
            if k == "nr_dirty_threshold": t = v
            elif k == "nr_dirty_background_threshold": b = v
    return t, b
def pressure():
    with open(dp + "/dirty_pressure") as f:
        return f.read().strip()
for r in range(rounds):
    seen = []
    pa = pressure()
    seen.append(("all",) + thresholds())
    for n in nodes:
        cpus = node_cpus(n)
        if cpus:
            os.sched_setaffinity(0, cpus)
        policy(n)
        seen.append(("bind%d" % n,) + thresholds())
        policy(None)
        os.sched_setaffinity(0, allcpus)
    if cpusets:
        for n in nodes:
            move("%s/dplab-n%d" % (cg, n))
            seen.append(("cpuset%d" % n,) + thresholds())
        move(cg)
    pb = pressure()
    for name, t, b in seen:
        print(r, name, t, b, pa, pb)
'

# The comparison of one tsv ("round reader thresh bg p_before p_after").
# The hard limit: every read alike.  The background threshold follows the
# effective pressure, which moves between reads, so reads are grouped by
# the pressure they were pinned to (p_before == p_after): readers that saw
# the same pressure must see the same threshold, and it must be what the
# document says at that pressure.  readers_uncompared: readers that never
# shared a pressure with another reader (their bg was not compared).
COMPARE_AWK='
	function expect_bg(p) { return (mode != "off" && p < 1024) ? int(bg0 * p / 1024) : bg0 }
	BEGIN { th = int((db + 4095) / 4096); bg0 = int((bgb + 4095) / 4096) }
	NR == 1 { next }
	{ r = $1; n[r]++; reads++ }
	NF != 6 { bad[r] = 1; next }
	{ if (tmin == "" || $3 < tmin) tmin = $3; if ($3 > tmax) tmax = $3 }
	$5 == $6 {
		pinned++; if ($3 != th) tbad++; if ($4 != expect_bg($5)) bgbad++; last_bg = $4; last_p = $5
		k = $5
		if (!(k in gmin) || $4 < gmin[k]) gmin[k] = $4; if ($4 > gmax[k]) gmax[k] = $4
		if (!((k, $2) in seen)) { seen[k, $2] = 1; gn[k]++ }
	}
	END {
		for (r in n) { rounds++; if (n[r] != nreaders || (r in bad)) incomplete++ }
		for (k in gn) if (gn[k] >= 2) { groups++; if (gmax[k] - gmin[k] > mb) mb = gmax[k] - gmin[k] }
		for (kr in seen) { split(kr, x, SUBSEP); if (gn[x[1]] >= 2) cmp[x[2]] = 1 }
		nc = 0; for (rd in cmp) nc++
		print pre "rounds", rounds + 0
		print pre "rounds_incomplete", incomplete + 0
		print pre "reads", reads + 0
		print pre "reads_pinned", pinned + 0
		print pre "pressure_groups", groups + 0
		print pre "readers_uncompared", nreaders - nc
		if (reads) print pre "max_diff_thresh", tmax - tmin
		if (groups) print pre "max_diff_bg", mb + 0
		print pre "doc_thresh_mismatch", tbad + 0
		print pre "doc_bg_mismatch", bgbad + 0
		if (pinned) {
			print pre "bg_threshold_last", last_bg
			print pre "bg_threshold_doc_last", expect_bg(last_p)
			printf pre "bg_over_unscaled %.4f\n", last_bg / bg0
		}
	}'

workload() {
	slow=${SLOW_MOTION:-1}
	n0_mb=$(( $(sed -n 's/.*MemTotal: *\([0-9]*\) kB/\1/p' /sys/devices/system/node/node0/meminfo) / 1024 ))

	# 1. node 0 lowered by reclaim meeting dirty pages
	sample_start 1
	start writer "$BIN/dirtier" --node 0 --file "$TEST_DIR/w" --size 1G --bs 1M \
		--report "$(report writer)"
	sleep $((4 * slow))
	start hog "$BIN/hog" --node 0 --size $((n0_mb * 3 / 4))M --ramp 1 --passes 0 --hold $((120 * slow)) \
		--report "$(report hog)" --report-every 1
	t=0
	while [ $t -lt $((120 * slow)) ] && [ "$(node_pressure 0)" -ge 1024 ]; do
		sleep 0.5; t=$((t + 1))
	done
	metric lowering_wait_s "$(echo "scale=1; $t / 2" | bc)"
	stop writer
	stop hog
	sample_stop
	metric dirty_pressure_node "$(dp dirty_pressure_node)"
	# let the hog's memory come back and writeback settle a moment
	sleep 2

	# 2. absolute limits, the readers, the rounds
	sysctl -q -w vm.dirty_bytes=$DIRTY_BYTES vm.dirty_background_bytes=$BG_BYTES
	readers="all"
	nb=0; nc=0
	for n in $(mem_nodes); do readers="$readers bind$n"; nb=$((nb + 1)); done
	if setup_cpusets 2>>"$OUT/cpuset.log"; then
		for n in $(mem_nodes); do readers="$readers cpuset$n"; nc=$((nc + 1)); done
	fi
	metric bind_readers "$nb"
	metric cpuset_readers "$nc"
	cat "$DP/dirty_pressure_nodes" >"$OUT/vmstat-cpuset.nodes"
	metric pressure_spread "$(awk '{ if (mn == "" || $2 < mn) mn = $2; if ($2 > mx) mx = $2 } END { print mx - mn }' "$OUT/vmstat-cpuset.nodes")"
	metric node0_pressure_at_reads "$(node_pressure 0)"
	echo "round reader thresh bg p_before p_after" >"$OUT/vmstat-readers.tsv"
	r=0
	while [ $r -lt $ROUNDS ]; do
		for rd in $readers; do echo "$r $rd $(reader "$rd")"; done >>"$OUT/vmstat-readers.tsv"
		r=$((r + 1))
	done
	metric effective_at_reads "$(dp dirty_pressure)"
	echo "round reader thresh bg p_before p_after" >"$OUT/vmstat-switch.tsv"
	/usr/bin/python3 -c "$SWITCH_PY" "$DP" "$CG" "$SWITCH_ROUNDS" "$(mem_nodes | tr '\n' ' ')" \
		"$([ "$nc" -gt 0 ] && echo 1 || echo 0)" >>"$OUT/vmstat-switch.tsv" 2>>"$OUT/vmstat-switch.err"
	metric switch_exit $?

	# 3. the comparison, of the separate tasks and of the rebinding one
	for f in readers switch; do
		awk -v pre="$([ $f = switch ] && echo switch_)" -v mode="$MODE" -v db=$DIRTY_BYTES \
			-v bgb=$BG_BYTES -v nreaders="$(echo $readers | wc -w)" "$COMPARE_AWK" "$OUT/vmstat-$f.tsv" |
			while read -r k v; do metric "$k" "$v"; done
	done

	for n in $(mem_nodes); do rmdir $CG/dplab-n$n 2>/dev/null; done
	umount $CG 2>/dev/null
	return 0
}

# the situation: reclaim lowered node 0, readers of every kind ran, and
# every round has all its reads
#CHECK# lowered_by_node0       guest.dirty_pressure_node == 0
#CHECK# bound_readers          guest.bind_readers >= 2
#CHECK# cpuset_readers         guest.cpuset_readers >= 2
#CHECK# every_round_complete   guest.rounds_incomplete == 0
#CHECK# switch_reader_ran      guest.switch_exit == 0
#CHECK# switch_rounds_complete guest.switch_rounds_incomplete == 0
# The claim, judged when the node pressures differed by at least a quarter
# of the range while reading.  The hard limit is never scaled: the same in
# every read.  The background threshold follows the effective pressure,
# which moves between reads: readers that saw the same pressure are
# compared, judged when every reader shared a pressure with another one.
# Separate tasks (unbound, numactl, cpuset):
#CHECK# same_thresh_all_readers guest.max_diff_thresh == 0 when guest.pressure_spread >= 256
#CHECK# same_bg_all_readers    guest.max_diff_bg == 0 when guest.pressure_spread >= 256 when guest.readers_uncompared == 0
# One task rebinding itself between reads (a round takes milliseconds):
#CHECK# switch_same_thresh     guest.switch_max_diff_thresh == 0 when guest.pressure_spread >= 256
#CHECK# switch_same_bg         guest.switch_max_diff_bg == 0 when guest.pressure_spread >= 256 when guest.switch_readers_uncompared == 0
# ... and what the document says, at each read with a pinned pressure:
# nr_dirty_threshold = dirty_bytes in pages, nr_dirty_background_threshold =
# dirty_background_bytes in pages times p / 1024 (mode off: unscaled)
#CHECK# thresh_as_documented   guest.doc_thresh_mismatch == 0 when guest.reads_pinned >= 10
#CHECK# bg_as_documented       guest.doc_bg_mismatch == 0 when guest.reads_pinned >= 10
#CHECK# switch_thresh_as_documented guest.switch_doc_thresh_mismatch == 0 when guest.switch_reads_pinned >= 10
#CHECK# switch_bg_as_documented guest.switch_doc_bg_mismatch == 0 when guest.switch_reads_pinned >= 10
