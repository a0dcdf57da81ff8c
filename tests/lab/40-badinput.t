#!/bin/bash
# Bad input against the series' kernel, on 2node-sym: dpfuzz over the
# debugfs files (scenario fuzz-debugfs) in modes global and node, and a
# garbage dirty_pressure= boot parameter (bad-bootparam) in mode node, where
# the documented fall-back to global differs from the mode asked for.  The
# three guests boot at once (about 1 minute instead of 3 on a loaded 2-core
# machine).  One line per check of each run, and per run:
#   fuzz: the trace's writeback:dirty_pressure events with nid -1 (one per
#         write the kernel took) equal the writes dpfuzz saw succeed, none
#         lost;
#   boot: the serial console shows the warning exactly once.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/result-lines.sh
dir=results/test-badinput
mkdir -p "$dir"
cells="fuzz-debugfs:global fuzz-debugfs:node bad-bootparam:node"
start=$(date +%s)
for c in $cells; do
	s=${c%:*} m=${c#*:}
	/usr/bin/python3 launch/run.py --topo 2node-sym --scenario "$s" --mode "$m" \
		--out "$dir/$s-$m" --quiet >"$dir/$s-$m.log" 2>&1 &
done
wait
echo "40-badinput: 3 guests in $(( $(date +%s) - start )) s" >&2
fail=0
for c in $cells; do
	s=${c%:*} m=${c#*:}
	out=$dir/$s-$m r=$out/result.json cell=2node-sym.$s.$m
	if [ ! -f "$r" ]; then
		echo "FAIL: $cell: no result.json: $(head -1 "$out.log")"; fail=1; continue
	fi
	echo "$cell: wall $(jq -r .metrics.wall_s "$r") s" >&2
	result_lines "$cell" "$r" || fail=1
	case $s in
	fuzz-debugfs)
		got=$(jq -c '{events: .metrics.trace.events_with_bad_nid, taken: .metrics.guest.pressure_writes_taken,
			missed: .metrics.trace.meta.missed_events}' "$r")
		if jq -e '.metrics.trace.events_with_bad_nid == .metrics.guest.pressure_writes_taken
			and .metrics.guest.pressure_writes_taken > 0
			and .metrics.trace.meta.missed_events == 0' "$r" >/dev/null; then
			echo "PASS: $cell.trace_writes_match"
		else
			echo "FAIL: $cell.trace_writes_match: write events (nid -1) vs writes taken: $got"; fail=1
		fi
		;;
	bad-bootparam)
		n=$(grep -c "dirty_pressure: unknown mode 'garbage', using 'global'" "$out/console.log")
		if [ "$n" -eq 1 ]; then
			echo "PASS: $cell.console_warning_once"
		else
			echo "FAIL: $cell.console_warning_once: $n warning lines on the console, want 1"; fail=1
		fi
		;;
	esac
done
exit $fail
