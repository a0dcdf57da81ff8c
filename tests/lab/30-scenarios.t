#!/bin/bash
# The series' core claims on the kernel-map baseline, in make test's budget:
# imbalance (modes global and node) and fastdown on 2node-asym.  Each check
# of each run is one line: PASS, FAIL (fail, xpass, unmeasurable) or XFAIL
# with its reason.  The full cut of every scenario and topology is
# `make matrix-smoke` (tests/run matrix).
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/result-lines.sh
dir=results/test-scenarios
fail=0
for cell in 2node-asym:imbalance:global 2node-asym:imbalance:node 2node-asym:fastdown:global; do
	IFS=: read -r t s m <<<"$cell"
	out=$dir/$t-$s-$m
	log=$(/usr/bin/python3 launch/run.py --topo "$t" --scenario "$s" --mode "$m" --out "$out" --quiet 2>&1)
	c=$t.$s.$m
	if [ ! -f "$out/result.json" ]; then
		echo "FAIL: $c: no result.json: $log"; fail=1; continue
	fi
	result_lines "$c" "$out/result.json" || fail=1
done
exit $fail
