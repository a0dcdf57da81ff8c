# fuzz-debugfs: bad input for /sys/kernel/debug/vm/dirty_pressure*.  dpfuzz
# (workloads/dpfuzz.c) makes >= 1000 invalid writes to each of the five
# files, in classes (out of range, signs, 2^32 wrap and beyond, non-numeric,
# trailing garbage, NUL bytes, empty, oversize, unreadable buffers, split and
# offset writes, concurrent writers; writes to the read-only files), reading
# all five back after each; and valid writes in between, which must take
# effect.  The guest is quiet (no reclaim), so the pressure moves only by
# slow_up, which dpfuzz's model allows; the trace checks that no fast_down
# happened.  Every count of its report becomes a metric guest.<key>:
# <file>_<class>_<stat>, file pressure|mode|recovery|node|nodes|all.
CLAIM="every malformed write to /sys/kernel/debug/vm fails with EINVAL (EFAULT for an unreadable buffer) and changes nothing; valid writes take effect"
TOPOLOGIES="2node-sym"
MODES="global node"
TIMEOUT=180

workload() {
	r=$(report dpfuzz)
	"$BIN/dpfuzz" --count 1000 --report "$r" >"$OUT/workload-dpfuzz.log" 2>&1
	metric exit_dpfuzz $?
	[ -s "$r" ] || { echo "dpfuzz wrote no report" >&2; return 1; }
	jq -r 'to_entries[] | select(.value | type == "number") | "\(.key) \(.value)"' "$r" >/tmp/dpfuzz.metrics
	while read -r k v; do metric "$k" "$v"; done </tmp/dpfuzz.metrics
	jq -e '.status == "complete"' "$r" >/dev/null && metric report_complete 1 || metric report_complete 0
	# dpfuzz leaves the state as it found it: the boot mode
	[ "$(dp dirty_pressure_mode)" = "$MODE" ] && metric mode_restored 1 || metric mode_restored 0
	return 0
}

#CHECK# dpfuzz_clean             guest.exit_dpfuzz == 0
#CHECK# report_complete          guest.report_complete == 1
#CHECK# boot_mode_global         guest.initial_mode_code == 1 if mode=global
#CHECK# boot_mode_node           guest.initial_mode_code == 2 if mode=node
#CHECK# pressure_tried           guest.pressure_invalid_tried >= 1000
#CHECK# mode_tried               guest.mode_invalid_tried >= 1000
#CHECK# recovery_tried           guest.recovery_invalid_tried >= 1000
#CHECK# node_ro_tried            guest.node_invalid_tried >= 1000
#CHECK# nodes_ro_tried           guest.nodes_invalid_tried >= 1000
#CHECK# none_accepted            guest.all_invalid_accepted_bad == 0
#CHECK# right_errno              guest.all_invalid_wrong_errno == 0
#CHECK# state_unchanged          guest.all_invalid_state_changed == 0
#CHECK# pressure_valid_tried     guest.pressure_valid_tried >= 20
#CHECK# mode_valid_tried         guest.mode_valid_tried >= 20
#CHECK# recovery_valid_tried     guest.recovery_valid_tried >= 20
#CHECK# valid_took_effect        guest.all_valid_valid_failed == 0
#CHECK# no_io_errors             guest.io_errors == 0
#CHECK# rejects_out_of_range     guest.all_out_of_range_accepted_bad == 0
#CHECK# rejects_negative         guest.all_negative_accepted_bad == 0
#CHECK# rejects_plus_sign        guest.all_plus_sign_accepted_bad == 0
#CHECK# rejects_huge             guest.all_huge_accepted_bad == 0
#CHECK# rejects_non_numeric      guest.all_non_numeric_accepted_bad == 0
#CHECK# rejects_trailing_garbage guest.all_trailing_garbage_accepted_bad == 0
#CHECK# rejects_nul_byte         guest.all_nul_byte_accepted_bad == 0
#CHECK# rejects_empty            guest.all_empty_accepted_bad == 0
#CHECK# rejects_oversize         guest.all_oversize_accepted_bad == 0
#CHECK# rejects_bad_buffer       guest.all_bad_buffer_accepted_bad == 0
#CHECK# rejects_partial          guest.all_partial_accepted_bad == 0
#CHECK# rejects_concurrent       guest.all_concurrent_accepted_bad == 0
#CHECK# rejects_read_only        guest.all_read_only_accepted_bad == 0
#CHECK# quiet_guest_node0        trace.pressure.node0.fast_down == 0
#CHECK# quiet_guest_node1        trace.pressure.node1.fast_down == 0
#CHECK# mode_restored            guest.mode_restored == 1
