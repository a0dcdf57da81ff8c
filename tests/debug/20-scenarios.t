#!/bin/bash
# The series under the debug kernels (tests/debug/10-build.t builds them):
# imbalance (modes global and node), slowup, smallfiles and kswapd-stop, each
# on its scenario's first topology, under VARIANT=debug and VARIANT=kcsan.
# collect.py fails a run whose console shows lockdep, KASAN, UBSAN, KCSAN,
# WARN, BUG, a hung task or a stall; the console_clean line quotes the
# first report.  Every other check of the run is a line too.  Boot and wall
# times are in the PASS lines.  Scenario timeouts are multiplied by
# DEBUG_TIMEOUT_FACTOR (default 5): the instrumented kernels run slower.
# Cells of the scenarios in DEBUG_SLOW_SCENARIOS (default imbalance and
# kswapd-stop, the two that squeeze a node with a bound dirtier) run in
# slow motion (run.py --slow-motion DEBUG_SLOW_MOTION, default 15: the
# disk at 2 MiB/s instead of 30, writeback's 30 s expiry 15 times longer,
# and the hog's phases 15 times longer).
# Imbalance's claim needs the dirtier to outrun the disk: under KCSAN it
# dirtied 3-4 MiB/s, and at full disk speed imbalance/node saw reclaim on
# node 0 meet 0 dirty pages in 8,102 shrink_inactive_list calls; kswapd-stop
# never lowered node 1's pressure, so it had nothing to reset.
# VARIANT=debug boots with acpi=noirq: under KASAN and lockdep ACPI's _PRT
# method times out (AE_AML_LOOP_TIMEOUT) and the virtio devices would get
# no interrupt; they use MSI-X instead (patches/debug.config).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
dir=results/test-debug
factor=${DEBUG_TIMEOUT_FACTOR:-5}
fail=0
# kasan_topology NAME: a copy of topologies/NAME whose node 0 has 352 MiB
# more, printed as a path.  Generic KASAN takes its shadow (an eighth of all
# memory) and its larger image from the boot node: on 2node-asym node 0 fell
# from 485 MB to 190 MB, the scenario's 380 MiB hog was OOM-killed and the
# run measured another workload.  With the extra memory node 0 keeps about
# what it has under the lab kernel.
kasan_topology() {
	mkdir -p "$dir/topo"
	awk 'function mib(v) { return v ~ /G$/ ? v * 1024 : v + 0 }
	     $1 == "description" { print $0 "; node 0 +352M for KASAN shadow"; next }
	     $1 == "memory" { printf "memory       %dM\n", mib($2) + 352; next }
	     $1 == "node" && $2 == "0" { for (i = 3; i <= NF; i++) if ($i ~ /^mem=/) $i = "mem=" mib(substr($i, 5)) + 352 "M" }
	     { print }' "topologies/$1" >"$dir/topo/$1-kasan"
	echo "$dir/topo/$1-kasan"
}
for v in ${DEBUG_VARIANTS:-debug kcsan}; do
	if [ ! -f "build/patched/obj-$v/arch/x86/boot/bzImage" ]; then
		echo "FAIL: $v: no kernel at build/patched/obj-$v (tests/debug/10-build.t builds it)"; fail=1; continue
	fi
	append=
	[ "$v" = debug ] && append=acpi=noirq
	for cell in ${DEBUG_CELLS:-imbalance:global imbalance:node slowup:global smallfiles:global kswapd-stop:global}; do
		s=${cell%%:*} m=${cell#*:}
		f=workloads/scenarios/$s.sh
		t=$(sed -n 's/^TOPOLOGIES="\([^ "]*\).*/\1/p' "$f")
		to=$(sed -n 's/^TIMEOUT=\([0-9]*\).*/\1/p' "$f")
		topo=$t
		if [ "$v" = debug ] && ! grep -q 'dimm=' "topologies/$t"; then
			topo=$(kasan_topology "$t")
		fi
		slow=1
		case " ${DEBUG_SLOW_SCENARIOS-imbalance kswapd-stop} " in *" $s "*) slow=${DEBUG_SLOW_MOTION:-15};; esac
		c=$v.$t.$s.$m
		out=$dir/$v/$t-$s-$m
		log=$(/usr/bin/python3 launch/run.py --variant "$v" --topo "$topo" --scenario "$s" --mode "$m" \
			--slow-motion "$slow" --timeout $(( ${to:-300} * factor * (slow > 1 ? 3 : 1) )) \
			--append "$append" --out "$out" --quiet 2>&1)
		if [ ! -f "$out/result.json" ]; then
			first=$(grep -a -m1 -E 'BUG: |WARNING: |KASAN: |UBSAN: |KCSAN: |possible circular|blocked for more than|stall' "$out/console.log" 2>/dev/null)
			echo "FAIL: $c: no result.json: $log${first:+; console: $first}"; fail=1; continue
		fi
		n=$(jq '.metrics.console.problems' "$out/result.json")
		times="boot $(jq '.metrics.boot_to_userspace_guest_s' "$out/result.json") s, wall $(jq '.metrics.wall_s' "$out/result.json") s"
		[ "$slow" -gt 1 ] && times="$times, slow motion x$slow"
		if [ "$n" = 0 ]; then
			echo "PASS: $c.console_clean ($times)"
		else
			echo "FAIL: $c.console_clean: $n report line(s), first: $(jq -r '.metrics.console.first[0]' "$out/result.json") ($times; $out/console.log)"
			fail=1
		fi
		jq -r --arg c "$c" '.checks[] | select(.name != "kernel_clean") |
			if .status == "pass" then "PASS: \($c).\(.name)"
			elif .status == "xfail" then "XFAIL: \($c).\(.name): \(.reason)"
			else "FAIL: \($c).\(.name): \(.status): \(.expectation), got \(.value)\(if .reason then " (" + .reason + ")" else "" end)" end' \
			"$out/result.json"
		jq -e '[.checks[] | select(.name != "kernel_clean") | select(.status != "pass" and .status != "xfail")] | length == 0' \
			"$out/result.json" >/dev/null || fail=1
	done
done
exit $fail
