# slowup: after the pressure has fallen and the hog has exited, the pressure
# recovers at dirty_pressure_recovery steps per second (default 1, as in
# 2010) while node 0's kswapd sleeps, from time stamps: no rise while that
# kswapd is awake and no kswapd wake-ups caused by recovery.
CLAIM="recovery at dirty_pressure_recovery steps/s while the node's kswapd sleeps, with no extra kswapd wake-ups"
TOPOLOGIES="2node-asym"
SYSCTL="vm.dirty_ratio=60 vm.dirty_background_ratio=10"
TIMEOUT=300
RECOVERY=1
IDLE_S=25

workload() {
	dp dirty_pressure_recovery "$RECOVERY"
	start hog "$BIN/hog" --node 0 --size 380M --ramp 2 --duration 30 --report "$(report hog)"
	sleep 4
	start dirtier "$BIN/dirtier" --node 0 --file "$TEST_DIR/f" --size 512M --bs 1M --report "$(report dirtier)"
	finish dirtier
	stop hog
	sync
	wait_kswapd_idle 0 60 || echo "kswapd0 never went idle"
	low=$(dp dirty_pressure)
	metric pressure_at_idle "$low"
	t0=$(uptime_s)
	w0=$(awk '$1 == "pageoutrun" { print $2 }' /proc/vmstat)
	sample_start 1
	sleep "$IDLE_S"
	sample_stop
	t1=$(uptime_s)
	high=$(dp dirty_pressure)
	w1=$(awk '$1 == "pageoutrun" { print $2 }' /proc/vmstat)
	metric pressure_after_idle "$high"
	metric idle_s "$(echo "$t1 - $t0" | bc)"
	# Expected: low + rate * time asleep, capped at 1024.  The ratio of the
	# observed rise to that is 1 when recovery runs at the configured rate.
	want=$(echo "r = $low + $RECOVERY * ($t1 - $t0); if (r > 1024) r = 1024; r" | bc)
	metric recovery_expected "$want"
	[ "$(echo "$want > $low" | bc)" = 1 ] &&
		metric recovery_ratio "$(echo "scale=3; ($high - $low) / ($want - $low)" | bc)"
	metric pageoutrun_while_idle $((w1 - w0))
	return 0
}

check workload_exit           workload.exit == 0
check kernel_clean            console.problems == 0
check pressure_was_lowered    guest.pressure_at_idle < 1024
check recovery_ratio_low      guest.recovery_ratio >= 0.85
check recovery_ratio_high     guest.recovery_ratio <= 1.15
check no_kswapd_runs_while_idle guest.pageoutrun_while_idle == 0
check slow_up_traced          trace.pressure.node0.slow_up > 0
check slope_in_trace_low      trace.pressure.node0.recovery_slope_per_s >= 0.8
check slope_in_trace_high     trace.pressure.node0.recovery_slope_per_s <= 1.2
