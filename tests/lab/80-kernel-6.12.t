#!/bin/bash
# The series' port to Debian's linux-source-6.12 (patches/6.12/), as far as
# CI takes it (issue 16): the port applies without fuzz and is checkpatch
# --strict clean with its cover letter (check-series --quick against 6.12),
# the patched 6.12 kernel builds in the lab config, its KUnit suites pass
# under QEMU, and the core case runs on it: one writer bound to the small
# node, alone, in mode node (bound-alone), with that scenario's own checks.
# The config-variant compile tests and the other scenarios of 6.12 are
# `make check-series KVER=6.12` and `make matrix KVERS=6.1,6.12`: each costs
# as much as the 6.1 ones, which CI already runs once.
. "$(dirname "$0")/../lib.sh"
export KSRC=/usr/src/linux-source-6.12.tar.xz
[ -r "$KSRC" ] || { bad kernel612.source "$KSRC missing: make deps installs linux-source-6.12"; exit 1; }
# the checks' names get a 6.12 prefix, so that they never read as 6.1's
prefix() { sed -E "s/^(PASS|FAIL|XFAIL|SKIP): /\1: $1./"; }

out=$(launch/check-series.sh --quick 2>&1); rc=$?
echo "$out" | grep -E '^(PASS|FAIL): ' | prefix 6.12.series
[ $rc -eq 0 ] || fail=1

start=$(date +%s)
if log=$(launch/kernel.sh patched lab 2>&1 | progress; exit "${PIPESTATUS[0]}"); then
	pass "6.12.kernel_build ($(( $(date +%s) - start )) s)"
else
	bad 6.12.kernel_build "$(echo "$log" | tail -5 | tr '\n' ' ')"; exit 1
fi
root=$(. launch/lib.sh && kernel_root "$top")
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$root/patched/obj/include/generated/utsrelease.h" 2>/dev/null)
[[ $rel == 6.12.* ]] && pass "6.12.kernel_release ($rel)" || bad 6.12.kernel_release "'$rel'"
# the version's own fragment went in: without CPUSETS_V1, 6.12 has no
# cgroup v1 cpuset and vmstat-cpuset's cpuset readers never run
grep -qx 'CONFIG_CPUSETS_V1=y' "$root/patched/obj/.config" && pass 6.12.config_cpusets_v1 ||
	bad 6.12.config_cpusets_v1 "patches/6.12/lab.config's CONFIG_CPUSETS_V1=y is not in the 6.12 .config"
# no warning from the files the series adds or touches (the tree's own, such
# as mm/memory.c's last_cpupid #warning, are 6.12's)
warn=$(grep -E '(mm/(dirty_pressure|page-writeback|vmscan)|include/linux/(mmzone|vmstat)\.h|trace/events/writeback\.h).*warning:' \
	"$root/patched/obj/build.log" 2>/dev/null | head -3)
[ -z "$warn" ] && pass 6.12.no_warnings_in_touched_files || bad 6.12.no_warnings_in_touched_files "$warn"

out=$(launch/kunit.sh lab --tap 2>&1); rc=$?
echo "$out" | grep -E '^(PASS|FAIL|XFAIL|SKIP): ' | prefix 6.12.kunit
n=$(echo "$out" | grep -c '^PASS: ')
[ $rc -eq 0 ] && [ "$n" -gt 0 ] || bad 6.12.kunit "rc=$rc, $n cases passed: $(echo "$out" | grep -vE '^(PASS|SKIP): ' | tail -3 | tr '\n' ' ')"

cell=results/test-6.12/2node-asym-bound-alone-node
log=$($py launch/run.py --topo 2node-asym --scenario bound-alone --mode node --out "$cell" --quiet 2>&1); rc=$?
ver=$(jq -r '.kernel_source.source.version // empty' "$cell/result.json" 2>/dev/null)
if [[ $ver == 6.12.* ]]; then pass "6.12.core_case_kernel ($ver)"; else bad 6.12.core_case_kernel "result.json names kernel '$ver'"; fi
if [ $rc -eq 0 ] && jq -e '.pass' "$cell/result.json" >/dev/null 2>&1; then
	pass "6.12.core_case.bound-alone.node ($(jq -r '[.checks[] | select(.status == "pass")] | length' "$cell/result.json") checks)"
else
	bad 6.12.core_case.bound-alone.node "rc=$rc $(jq -r '[.checks[] | select(.status != "pass") | .name] | join(" ")' "$cell/result.json" 2>/dev/null) $(echo "$log" | tail -2 | tr '\n' ' ')"
fi
exit $fail
