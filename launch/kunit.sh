#!/bin/bash
# Boot the patched kernel with only the KUnit suites dirty_pressure* (the
# arithmetic, page-writeback's scaling, the debugfs parsers), print their
# KTAP and a summary.  No root filesystem: the executor runs before init and
# kunit_shutdown=poweroff ends the guest.  With --tap, print one PASS:/FAIL:
# line per test case instead (the tests/run protocol).  A warning, oops or
# other kernel complaint on the console fails the boot (kunit_kernel_clean)
# even when every case passed.  QEMU's accelerator is
# ACCEL's (auto, kvm, tcg, icount; default auto: launch/accel.py), said in one line on
# stderr; a bad value, or kvm where it does not run a guest, exits 2.
# Usage: launch/kunit.sh [VARIANT] [--tap]
set -uo pipefail
case ${1:-} in -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
variant=lab tap=0
for a in "$@"; do case $a in --tap) tap=1;; lab|debug|kcsan) variant=$a;; *) echo "kunit.sh: unknown argument '$a'" >&2; exit 2;; esac; done
. "$top/launch/lib.sh"
obj=$(kernel_obj_dir "$top" patched "$variant")
bz=$obj/arch/x86/boot/bzImage
[ -f "$bz" ] || { echo "kunit.sh: no kernel at ${bz#$top/}: run 'make kernel'" >&2; exit 2; }
accel_args=$(/usr/bin/python3 "$top/launch/accel.py" --image "$bz" --qemu-args --prog kunit.sh) || exit 2
log=$obj/kunit.log
t0=$(date +%s.%N)
# shellcheck disable=SC2086
# Two NUMA nodes of one CPU and 256 MiB each: the node mode cases need a
# second memory node.  One socket per CPU, as the lab's topologies do:
# sibling cores on two nodes make the scheduler warn at boot.
timeout 300 "${DPLAB_QEMU:-qemu-system-x86_64}" $accel_args -smp 2,sockets=2,cores=1,threads=1 -m 512M \
	-object memory-backend-ram,id=m0,size=256M -object memory-backend-ram,id=m1,size=256M \
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1 \
	-bios /usr/share/qemu/qboot.rom -kernel "$bz" -display none -monitor none -no-reboot \
	-serial stdio -append "console=ttyS0 kunit.filter_glob=dirty_pressure* kunit_shutdown=poweroff panic=-1 oops=panic" \
	>"$log" 2>&1
rc=$?
wall=$(echo "$(date +%s.%N) - $t0" | bc)
# The KTAP is read by the tree's own parser, tools/testing/kunit/kunit.py
# parse (it strips the console's timestamps, follows nesting, knows crashes
# and missing plans); its JSON gives each suite and case.
kunit_py=$(kernel_root "$top")/patched/linux/tools/testing/kunit/kunit.py
[ -f "$kunit_py" ] || { echo "kunit.sh: no ${kunit_py#$top/} (the patched tree: make kernel)" >&2; exit 2; }
json=$obj/kunit.json
rm -f "$json"
/usr/bin/python3 "$kunit_py" parse --json="$json" "$log" >"$obj/kunit.parse" 2>&1
# "suite case STATUS" per case (STATUS: PASS, FAILURE, SKIPPED, TEST_CRASHED, ...)
cases=$(/usr/bin/python3 - "$json" <<'PY' 2>/dev/null
import json, sys
def walk(g):
    for c in g.get("test_cases", []):
        print(g["name"], c["name"], c["status"])
    for s in g.get("sub_groups", []):
        walk(s)
walk(json.load(open(sys.argv[1])))
PY
)
cases_ok=$(awk '$3 == "PASS"' <<<"$cases" | grep -c .)
cases_bad=$(awk '$3 != "PASS" && $3 != "SKIPPED"' <<<"$cases" | grep -c .)
# every suite of the series must report, whatever order the executor takes
suites="dirty_pressure dirty_pressure_writeback dirty_pressure_debugfs"
missing=
for s in $suites; do
	awk -v s="$s" '$1 == s { f = 1 } END { exit !f }' <<<"$cases" || missing="$missing $s"
done
suite=$([ -z "$missing" ] && echo all)
# The kernel's own complaints while the suites ran (a WARN from a race, a
# lockdep or KASAN report) fail the boot as they fail a scenario's run,
# by the same rules (launch/dplab/console.py), whatever the cases said.
problems=$(PYTHONPATH=$top/launch /usr/bin/python3 -c '
import sys
from dplab.console import console_report
p = console_report(sys.argv[1], console=sys.argv[2])["problems"]
print(len(p), " | ".join(ln.strip() for ln in p[:2]))' "$obj" "$log")
nproblems=${problems%% *}
if [ $tap -eq 1 ]; then
	[ $rc -eq 0 ] || echo "FAIL: kunit_boot: qemu exited $rc (log ${log#$top/})"
	[ -n "$suite" ] && echo "PASS: kunit_suites_present ($suites)" ||
		echo "FAIL: kunit_suites_present: missing from kunit.py's parse:$missing (log ${log#$top/})"
	awk -v kl="${log#$top/}" '$3 == "PASS" { print "PASS: kunit." $2 }
		$3 == "SKIPPED" { print "SKIP: kunit." $2 ": unmeasurable: the suite skipped it" }
		$3 != "PASS" && $3 != "SKIPPED" && NF { print "FAIL: kunit." $2 ": " $3 ", see " kl }' <<<"$cases"
	[ "$cases_ok" -ge 20 ] && echo "PASS: kunit_at_least_20_cases" || echo "FAIL: kunit_at_least_20_cases: $cases_ok passed"
	[ "$nproblems" = 0 ] && echo "PASS: kunit_kernel_clean" ||
		echo "FAIL: kunit_kernel_clean: $nproblems problem lines on the console: ${problems#* } (log ${log#$top/})"
else
	cat "$obj/kunit.parse"
	[ -z "$missing" ] || echo "kunit: suites missing from the KTAP:$missing"
	[ "$nproblems" = 0 ] || echo "kunit: $nproblems problem lines on the console: ${problems#* }"
	printf 'kunit: suites dirty_pressure*: %d passed, %d failed (%.1f s wall, log %s)\n' \
		"$cases_ok" "$cases_bad" "$wall" "${log#$top/}"
fi
[ $rc -eq 0 ] && [ -n "$suite" ] && [ "$cases_bad" -eq 0 ] && [ "$cases_ok" -gt 0 ] && [ "$nproblems" = 0 ]
