# recovery: no node stays pinned.  After every node's pressure is set to 0
# through debugfs, each node with memory recovers at dirty_pressure_recovery
# steps per second, and so does the effective pressure.  Runs on every
# topology: a memoryless node (2node-memless, 3node-tiered's memory-only
# tier has memory, its CPU-only nodes would not) has no kswapd and no LRU,
# so nothing would ever raise it, and in v1 of the series it held the
# effective (minimum) pressure at 0 for good.  Recovery follows the time
# since the last lowering, not kswapd's sleep, so a kswapd that wakes again
# does not stop it either.
CLAIM="after a lowering and an idle window every memory node's pressure, and the effective pressure, rose at the recovery rate (none pinned), and only memory nodes are tracked"
SYSCTL="vm.dirty_ratio=20 vm.dirty_background_ratio=10"
TIMEOUT=180
RECOVERY=32
IDLE_S=10

workload() {
	sync
	dp dirty_pressure_recovery "$RECOVERY"
	dp dirty_pressure 0
	t0=$(uptime_s)
	w0=$(awk '$1 == "pageoutrun" { print $2 }' /proc/vmstat)
	sleep "$IDLE_S"
	# read the effective value last: reading a node applies its recovery
	nodes=$(cat "$DP/dirty_pressure_nodes")
	eff=$(dp dirty_pressure)
	t1=$(uptime_s)
	w1=$(awk '$1 == "pageoutrun" { print $2 }' /proc/vmstat)
	want=$(echo "r = $RECOVERY * ($t1 - $t0); if (r > 1024) r = 1024; r" | bc)
	metric recovery_expected "$want"
	metric effective_after "$eff"
	metric effective_ratio "$(echo "scale=3; $eff / $want" | bc)"
	# The lowest and highest ratio over the nodes debugfs lists.
	lo=; hi=
	for v in $(echo "$nodes" | awk '{ print $2 }'); do
		r=$(echo "scale=3; $v / $want" | bc)
		[ -z "$lo" ] || [ "$(echo "$r < $lo" | bc)" = 1 ] && lo=$r
		[ -z "$hi" ] || [ "$(echo "$r > $hi" | bc)" = 1 ] && hi=$r
	done
	metric node_ratio_min "${lo:--1}"
	metric node_ratio_max "${hi:--1}"
	# Nodes listed against the nodes with memory (/sys .../has_memory).
	listed=$(echo "$nodes" | awk 'NF == 2 { printf "%s ", $1 }')
	mem=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
		for (j = r[1]; j <= (n == 2 ? r[2] : r[1]); j++) printf "%d ", j } }' \
		/sys/devices/system/node/has_memory)
	echo "listed: $listed; with memory: $mem"
	metric nodes_listed "$(echo "$listed" | wc -w)"
	metric nodes_with_memory "$(echo "$mem" | wc -w)"
	metric nodes_listed_not_memory "$(for n in $listed; do case " $mem " in *" $n "*) ;; *) echo "$n";; esac; done | wc -l)"
	metric memory_nodes_not_listed "$(for n in $mem; do case " $listed " in *" $n "*) ;; *) echo "$n";; esac; done | wc -l)"
	metric pageoutrun_while_idle $((w1 - w0))
	return 0
}

#CHECK# every_memory_node_listed  guest.memory_nodes_not_listed == 0
#CHECK# only_memory_nodes_listed  guest.nodes_listed_not_memory == 0
#CHECK# no_node_pinned            guest.node_ratio_min >= 0.85
#CHECK# no_node_too_fast          guest.node_ratio_max <= 1.15
#CHECK# effective_recovers        guest.effective_ratio >= 0.85
#CHECK# effective_not_too_fast    guest.effective_ratio <= 1.15
#CHECK# no_kswapd_runs_while_idle guest.pageoutrun_while_idle == 0
