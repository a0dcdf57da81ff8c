#!/bin/bash
# make matrix-smoke, in make test: every topology and every scenario at
# least once (the series' core claims among them: imbalance, fastdown).  Each
# check of each cell becomes one line: PASS, FAIL (fail, xpass, unmeasurable),
# XFAIL with the scenario's reason, or SKIP for a check whose `when`
# precondition did not hold (unmeasurable, with the measured value: neither
# passed nor failed).  A cell without result.json (hung, could not run) is
# one FAIL.
. "$(dirname "$0")/../lib.sh"
. tests/result-lines.sh
dir=results/test-matrix-smoke
# each cell's line as it ends, to the log and to fd 3 (tests/run shows it)
/usr/bin/python3 launch/matrix.py --smoke --matrix test-matrix-smoke --rerun 2>&1 | progress >&2
cells=$(/usr/bin/python3 launch/matrix.py --smoke --list)
fail=0
for c in $cells; do
	r=$dir/$c/result.json
	if [ ! -f "$r" ]; then
		echo "FAIL: $c: no result.json ($(tail -1 "$dir/$c/console.log" 2>/dev/null | cut -c1-120))"
		fail=1
		continue
	fi
	result_lines "$c" "$r" || fail=1
done
exit $fail
