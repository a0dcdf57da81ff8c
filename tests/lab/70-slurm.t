#!/bin/bash
# The matrix beyond the local engine, with real guests (after 30-matrix-smoke,
# whose results/test-matrix-smoke is the local reference):
#  - make matrix-smoke ENGINE=slurm over 4 of its cells on a one-node Slurm
#    cluster started here (launch/slurm-local.sh, 127.0.0.1 only).  Midway
#    the node is lost (slurmd, its job steps and their guests killed): the
#    matrix exits 1 with the unfinished cells not run; with the node back the
#    same command runs only those.  Every cell then carries its Slurm job id
#    in result.json and cell.json, and the verdicts are the local run's.
#  - The CI matrix: two rows of `matrix.py --smoke --list --format json` run
#    as CI jobs would (their `make` line), the report over their OUTs; the
#    verdicts are the local run's.
# It stops everything it started.
. "$(dirname "$0")/../lib.sh"
ref=results/test-matrix-smoke
cluster=$(mktemp -d "${TMPDIR:-/tmp}/dplab-slurm.XXXXXX")
trap 'launch/slurm-local.sh stop "$cluster" >/dev/null 2>&1; rm -rf "$cluster"' EXIT
status_of() { $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["status"])' "$1/cell.json" 2>/dev/null || echo none; }

# cells of the smoke matrix, fastest scenarios first (seconds under TCG)
json=$($py launch/matrix.py --smoke --list --format json) || { bad smoke_list "matrix.py --list failed"; exit 1; }
pick() {   # pick N SCENARIO...: names of the first N cells whose scenario is listed, in that order
	$py -c 'import json,sys
rows = json.loads(sys.argv[1])["include"]; n = int(sys.argv[2]); out = []
for s in sys.argv[3:]:
    out += [r["name"] for r in rows if r["scenario"] == s and r["name"] not in out]
print(" ".join(out[:n]))' "$json" "$@"
}
slurm_cells=$(pick 4 smoke smallfiles xfs-recovery bad-bootparam fuzz-debugfs)
ci_cells=$(pick 2 bad-bootparam fuzz-debugfs xfs-recovery)
for c in $slurm_cells $ci_cells; do
	[ -f "$ref/$c/cell.json" ] || { bad reference "$ref/$c has no cell.json (run tests/lab/30-matrix-smoke.t first)"; exit 1; }
done
[ "$(wc -w <<<"$slurm_cells")" -eq 4 ] && [ "$(wc -w <<<"$ci_cells")" -eq 2 ] || { bad cells "picked '$slurm_cells' / '$ci_cells'"; exit 1; }

# ---- ENGINE=slurm ---------------------------------------------------------------
out=$(launch/slurm-local.sh start "$cluster" 2>&1) && pass slurm.cluster_starts || { bad slurm.cluster_starts "$out"; exit 1; }
export SLURM_CONF=$cluster/slurm.conf DPLAB_SLURM_GRACE=5
m=test-slurm-smoke
rm -rf "results/$m"
cells=$(tr ' ' ',' <<<"$slurm_cells")
first=${slurm_cells%% *}
make -s matrix-smoke ENGINE=slurm JOBS=1 MATRIX=$m CELLS="$cells" >"$cluster/run1.log" 2>&1 &
front=$!
for _ in $(seq 600); do [ -f "results/$m/$first/result.json" ] && break; sleep 0.5; done
sleep 4     # the second cell's guest is up
launch/slurm-local.sh crash "$cluster"
t0=$(date +%s)
wait $front; rc=$?
took=$(( $(date +%s) - t0 ))
done1=0 notrun=""
for c in $slurm_cells; do
	if [ -f "results/$m/$c/result.json" ]; then done1=$((done1 + 1)); else notrun="$notrun $c"; fi
done
[ $rc -ne 0 ] && [ $done1 -ge 1 ] && [ $done1 -lt 4 ] && [ $took -lt 90 ] && \
	grep -q 'cells not finished are left not run' "$cluster/run1.log" \
	&& pass slurm.node_lost_leaves_not_run || bad slurm.node_lost_leaves_not_run "rc=$rc done=$done1 took=${took}s: $(tail -5 "$cluster/run1.log")"
qemu_left=$(pgrep -af qemu-system | grep -F "results/$m/")
[ -z "$qemu_left" ] && pass slurm.node_lost_no_guest_left || bad slurm.node_lost_no_guest_left "$qemu_left"

launch/slurm-local.sh node-up "$cluster" >/dev/null 2>&1 || bad slurm.node_up "see $cluster/slurmd.log"
make -s matrix-smoke ENGINE=slurm JOBS=1 MATRIX=$m CELLS="$cells" >"$cluster/run2.log" 2>&1; rc=$?
cat "$cluster/run1.log" "$cluster/run2.log" >&2
grep -q "4 cells, $done1 done before, $((4 - done1)) to run under Slurm" "$cluster/run2.log" \
	&& pass slurm.rerun_runs_only_not_run || bad slurm.rerun_runs_only_not_run "$(head -3 "$cluster/run2.log")"
for c in $slurm_cells; do
	want=$(status_of "$ref/$c") got=$(status_of "results/$m/$c")
	jid=$($py -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["slurm_job_id"] or "")' "results/$m/$c/result.json" 2>/dev/null)
	cid=$($py -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["engine"], d["slurm"]["job_id"])' "results/$m/$c/cell.json" 2>/dev/null)
	[ -n "$jid" ] && [ "$cid" = "slurm $jid" ] && pass "slurm.$c.job_id" || bad "slurm.$c.job_id" "result.json '$jid', cell.json '$cid'"
	[ "$got" = "$want" ] && pass "slurm.$c.verdict_as_local" || bad "slurm.$c.verdict_as_local" "slurm $got, local $want"
done
[ $rc -eq 0 ] || grep -qxE 'FAIL|HUNG|ERROR' <<<"$(for c in $slurm_cells; do status_of "$ref/$c"; done)" \
	&& pass slurm.exit_is_verdict || bad slurm.exit_is_verdict "rc=$rc with every local verdict passing"
[ -f "results/$m/report.md" ] && pass slurm.report_written || bad slurm.report_written "no results/$m/report.md"
launch/slurm-local.sh stop "$cluster" >/dev/null 2>&1
left=$(for b in slurmctld slurmd munged slurmstepd; do
	for p in $(pgrep -x $b); do tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$cluster/slurm.conf" && echo "$b $p"; done
done)
[ -z "$left" ] && pass slurm.everything_stopped || bad slurm.everything_stopped "$left"
unset SLURM_CONF DPLAB_SLURM_GRACE

# ---- the CI matrix, fed back through the runner ----------------------------------------
ci=test-ci-feed
rm -rf "results/$ci"
json=$($py launch/matrix.py --smoke --matrix $ci --list --format json)
for c in $ci_cells; do
	line=$($py -c 'import json,sys
print(next(r["make"] for r in json.loads(sys.argv[1])["include"] if r["name"] == sys.argv[2]))' "$json" "$c")
	echo "ci job: $line" >&2
	# shellcheck disable=SC2086
	(eval "$line" -s) >&2
done
$py launch/report.py "results/$ci" >/dev/null 2>&1
for c in $ci_cells; do
	want=$(status_of "$ref/$c") got=$(status_of "results/$ci/$c")
	[ "$got" = "$want" ] && grep -q "$c" "results/$ci/report.md" 2>/dev/null && pass "ci.$c.verdict_as_local" \
		|| bad "ci.$c.verdict_as_local" "ci $got, local $want"
done
n=$(find "results/$ci" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" -eq 2 ] && pass ci.only_the_jobs_cells || bad ci.only_the_jobs_cells "$n cell directories"
exit $fail
