#!/bin/bash
# The matrix's results in the formats CI and kernel tooling read, written
# next to report.md: matrix.ktap (KTAP v1, one test per cell with its checks
# nested, kselftest's Totals line) and matrix.junit.xml, from a fake-runner
# matrix: two cells pass, two fail, one runner dies without a result.  When
# a kernel tree is at hand, its tools/testing/kunit/kunit.py parses the KTAP.
. "$(dirname "$0")/../lib.sh"
scratch
mkdir -p "$tmp/sc"
cat >"$tmp/sc/alpha.sh" <<'S'
TOPOLOGIES="uma 2node-asym"
MODES="off node"
workload() { :; }
#CHECK# ok workload.exit == 0
S
cp tests/fixtures/fake-run "$tmp/fake-run"
export FAKE_LOG=$tmp/log
m() { $py launch/matrix.py --scenario-dir "$tmp/sc" --results "$tmp/res" "$@"; }
DPLAB_RUNNER=$tmp/fake-run m --scenarios alpha --matrix k >"$tmp/out" 2>&1
DPLAB_RUNNER=/bin/false m --scenarios alpha --topos uma --modes off --matrix k2 >>"$tmp/out" 2>&1
k=$tmp/res/k/matrix.ktap
[ "$(head -2 "$k" | tr '\n' '|')" = "KTAP version 1|1..4|" ] && [ "$(grep -c '^ok [0-9]' "$k")" -eq 2 ] && \
	[ "$(grep -c '^not ok [0-9]' "$k")" -eq 2 ] && grep -qx '  not ok 1 uma-alpha-node-patched.ok # fail: workload.exit == 0, got 0' "$k" && \
	[ "$(tail -1 "$k")" = "# Totals: pass:2 fail:2 xfail:0 xpass:0 skip:0 error:0" ] \
	&& pass ktap_cells_and_checks || bad ktap_cells_and_checks "$(tr '\n' '|' <"$k" | cut -c1-600)"
k2=$tmp/res/k2/matrix.ktap
grep -q '^  not ok 1 uma-alpha-off-patched.result # .*ERROR, no result.json' "$k2" && grep -q '^not ok 1 uma-alpha-off-patched' "$k2" \
	&& pass ktap_cell_without_result_fails || bad ktap_cell_without_result_fails "$(tr '\n' '|' <"$k2" 2>/dev/null | cut -c1-400)"
$py - "$tmp/res/k/matrix.junit.xml" <<'PY' && pass junit_cells_and_checks || bad junit_cells_and_checks "$(head -c 600 "$tmp/res/k/matrix.junit.xml")"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
suites = r.findall("testsuite")
assert [s.get("name") for s in suites] == ["uma-alpha-off-patched", "uma-alpha-node-patched",
                                         "2node-asym-alpha-off-patched", "2node-asym-alpha-node-patched"]
assert sum(len(s.findall("testcase/failure")) for s in suites) == 2
PY
kunit=build/linux/tools/testing/kunit/kunit.py
if [ -f "$kunit" ]; then
	out=$($py "$kunit" parse <"$k" 2>&1)
	grep -qE 'Testing complete\. Ran 4 tests: passed: 2, failed: 2' <<<"$out" \
		&& pass ktap_kunit_py_parses || bad ktap_kunit_py_parses "$(tail -3 <<<"$out" | tr '\n' '|')"
else
	echo "SKIP: ktap_kunit_py_parses: unmeasurable: precondition a kernel tree at build/linux not met"
fi
exit $fail
