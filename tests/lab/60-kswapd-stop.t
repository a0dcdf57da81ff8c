#!/bin/bash
# kswapd_stop() resets a node's dirty pressure (patch 0003): on 2node-hotplug,
# squeeze node 1, offline all its memory (its kswapd stops), and check one
# reset event for nid 1 follows the offline and the effective pressure is
# 1024 again.  Mode global, where a node left low would hold the effective
# pressure (the minimum over online nodes) down.  Each check of the run is
# one PASS/FAIL/XFAIL line.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
. tests/result-lines.sh
dir=results/test-kswapd-stop
fail=0
for cell in 2node-hotplug:kswapd-stop:global; do
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
