#!/bin/bash
# Boot each debug kernel DEBUG_BOOTS times (default 10) with an empty
# workload, at loglevel 7, and count the boots that never reach userspace.
# One debug boot in five once sat idle after "tsc: Unable to calibrate
# against PIT" at loglevel 5, which said nothing about where it stopped;
# at loglevel 7 the last console line names the step.  Every hung boot is a
# FAIL line quoting that line; the PASS line gives the boot times.
# DEBUG_BOOT_LOAD=1 runs a two-job busy loop on the host meanwhile: the hang
# was seen while a kernel build shared the two cores.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
dir=results/test-debug/boots
boots=${DEBUG_BOOTS:-10}
case $boots in '' | *[!0-9]*) echo "FAIL: DEBUG_BOOTS must be a number, not '$boots'"; exit 2;; esac
fail=0
load_pids=()
if [ "${DEBUG_BOOT_LOAD:-0}" = 1 ]; then
	for _ in 1 2; do (while :; do :; done) & load_pids+=($!); done
fi
trap '[ ${#load_pids[@]} -gt 0 ] && kill "${load_pids[@]}" 2>/dev/null' EXIT
for v in ${DEBUG_VARIANTS:-debug kcsan}; do
	if [ ! -f "build/patched/obj-$v/arch/x86/boot/bzImage" ]; then
		echo "FAIL: $v: no kernel at build/patched/obj-$v (tests/debug/10-build.t builds it)"; fail=1; continue
	fi
	append=loglevel=7
	[ "$v" = debug ] && append="$append acpi=noirq"
	hung=0 times=
	for i in $(seq 1 "$boots"); do
		out=$dir/$v/boot-$i
		log=$(/usr/bin/python3 launch/run.py --variant "$v" --topo 2node-asym --cmd true \
			--timeout 600 --boot-timeout 240 --append "$append" --out "$out" --quiet 2>&1)
		if [ -f "$out/result.json" ]; then
			times="$times $(jq '.metrics.boot_to_userspace_guest_s' "$out/result.json")"
			if ! jq -e .pass "$out/result.json" >/dev/null; then
				echo "FAIL: $v.boot_$i: booted, but the run failed: $(jq -r '[.checks[] | select(.status != "pass") | .name] | join(", ")' "$out/result.json"); first console problem: $(jq -r '.metrics.console.first[0] // "none"' "$out/result.json")"
				fail=1
			fi
		else
			hung=$((hung + 1))
			echo "FAIL: $v.boot_$i: $log"
			fail=1
		fi
	done
	[ "$hung" = 0 ] && echo "PASS: $v.boots: $boots of $boots reached userspace (seconds:$times)"
done
exit $fail
