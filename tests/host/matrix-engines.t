#!/bin/bash
# Host tests of where the matrix's cells run, without booting anything (the
# fake runner of matrix.t writes each cell's result.json):
#  - CELLS= selection and --list --format json|gitlab, the CI matrix: each
#    emitted job, run as a CI job would (its own results tree, then merged as
#    artifacts are), gives the local matrix's verdicts;
#  - ENGINE=slurm on a real one-node Slurm cluster started here
#    (launch/slurm-local.sh: munged, slurmctld, slurmd on 127.0.0.1): every
#    cell runs as an array task whose job id lands in cell.json, verdicts equal
#    the local engine's, a node lost mid-matrix leaves the unfinished cells
#    not run and a rerun finishes only them, SIGTERM cancels the array, and
#    everything started is stopped.  Without Slurm installed those checks are
#    SKIP (unmeasurable), never passed.
. "$(dirname "$0")/../lib.sh"
skip() { echo "SKIP: $1: unmeasurable: precondition $2 not met"; }
tmp=${KEEP_TMP:-$(mktemp -d)}
cluster=$tmp/cluster
cleanup() {
	[ -d "$cluster" ] && launch/slurm-local.sh stop "$cluster" >/dev/null 2>&1
	[ -n "$KEEP_TMP" ] || rm -rf "$tmp"
}
trap cleanup EXIT
m() { $py launch/matrix.py --scenario-dir "$tmp/sc" --results "$tmp/results" "$@"; }
# verdicts of a matrix: "cell status" lines from each cell.json, sorted
verdicts() {
	for f in "$1"/*/cell.json; do
		$py -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["name"], d["status"])' "$f"
	done | sort
}

mkdir -p "$tmp/sc"
cat >"$tmp/sc/alpha.sh" <<'S'
TOPOLOGIES="uma 2node-asym"
MODES="off node"
TIMEOUT=60
workload() { :; }
#CHECK# ok workload.exit == 0
S
# the fake runner (tests/fixtures/fake-run): FAKE_SLEEP seconds every cell takes
cp tests/fixtures/fake-run "$tmp/fake-run"
export DPLAB_RUNNER="$tmp/fake-run" FAKE_LOG="$tmp/log"
unset ENGINE PARTITION ACCOUNT TIME_LIMIT

# ---- bad input: one line, exit 2, nothing run ------------------------------
for k in \
	"engine:--scenarios alpha --engine cloud:unknown ENGINE 'cloud'" \
	"format:--scenarios alpha --list --format yaml:unknown --format 'yaml'" \
	"format_without_list:--scenarios alpha --format json:--format goes with --list" \
	"cells:--scenarios alpha --cells uma-alpha-off-patched,uma-alpha-global-patched:cell 'uma-alpha-global-patched' is not in this selection" \
	"partition:--scenarios alpha --engine slurm --partition a/b:PARTITION must be a plain name" \
	"time_limit:--scenarios alpha --engine slurm --time-limit 0:TIME_LIMIT (minutes) must be a whole number"; do
	IFS=: read -r name args want <<<"$k"
	: >"$tmp/log"
	# shellcheck disable=SC2086
	out=$(m $args 2>&1); rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == "matrix: "*"$want"* ]] && [ ! -s "$tmp/log" ] \
		&& pass "bad_input.$name" || bad "bad_input.$name" "rc=$rc '$out'"
done
out=$(PATH=/nonexistent m --scenarios alpha --engine slurm --list 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == "matrix: ENGINE=slurm needs sbatch, squeue, scancel, sinfo on PATH"* ]] \
	&& pass bad_input.no_slurm_clients || bad bad_input.no_slurm_clients "rc=$rc '$out'"

# ---- CELLS= ------------------------------------------------------------------
out=$(m --scenarios alpha --cells 2node-asym-alpha-node-patched,uma-alpha-off-patched --list | tr '\n' ' ')
[ "$out" = "uma-alpha-off-patched 2node-asym-alpha-node-patched " ] && pass cells_select_in_plan_order \
	|| bad cells_select_in_plan_order "$out"

# ---- the CI matrix ------------------------------------------------------------
# json: a GitHub Actions matrix (fromJSON): one row per cell, in --list's
# order, each naming its OUT and the make line of its job
m --scenarios alpha --matrix ci --list --format json >"$tmp/ci.json"
$py - "$tmp/ci.json" "$(m --scenarios alpha --list | tr '\n' ' ')" <<'PY' && pass ci_json_rows || bad ci_json_rows "$(cat "$tmp/ci.json")"
import json, sys
rows = json.load(open(sys.argv[1]))["include"]
names = sys.argv[2].split()
assert [r["name"] for r in rows] == names, [r["name"] for r in rows]
for r in rows:
    assert r["out"] == "results/ci/" + r["name"], r
    assert r["make"] == f"make matrix SCENARIOS=alpha MATRIX=ci CELLS={r['name']}", r["make"]
    assert r["mode"] in ("off", "node") and r["kernel"] == "patched", r
PY
# gitlab: a child pipeline, its parallel:matrix naming every cell
m --scenarios alpha --matrix ci --list --format gitlab >"$tmp/ci.yml"
$py - "$tmp/ci.yml" "$(m --scenarios alpha --list | tr '\n' ' ')" <<'PY' && pass ci_gitlab_pipeline || bad ci_gitlab_pipeline "$(cat "$tmp/ci.yml")"
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
assert p["cell"]["parallel"]["matrix"][0]["CELL"] == sys.argv[2].split(), p["cell"]["parallel"]
assert p["cell"]["script"] == ["make matrix SCENARIOS=alpha MATRIX=ci CELLS=$CELL"], p["cell"]["script"]
assert p["report"]["script"] == ["python3 launch/report.py results/ci"], p["report"]
PY
# Two CI jobs, as CI runs them: each its own checkout (results tree), the
# selection from its row's make line (the variables make passes on), then
# the artifacts merged and the report run over them.  Verdicts and report
# lines must be the local matrix's.
: >"$tmp/log"
m --scenarios alpha --matrix ci --no-report >/dev/null 2>&1
mkdir -p "$tmp/merged/ci"
for i in 0 3; do
	job=$($py -c 'import json,sys; r=json.load(open(sys.argv[1]))["include"][int(sys.argv[2])]
print(r["make"])' "$tmp/ci.json" $i)
	# make's variables -> matrix.py's options, as the Makefile's MATRIX_ARGS maps them
	args=$(sed -e 's/^make matrix //' -e 's/SCENARIOS=/--scenarios /; s/MATRIX=/--matrix /; s/CELLS=/--cells /' <<<"$job")
	# shellcheck disable=SC2086
	$py launch/matrix.py --scenario-dir "$tmp/sc" --results "$tmp/job$i" $args --no-report >/dev/null 2>&1
	cp -r "$tmp/job$i/ci/." "$tmp/merged/ci/"
done
$py launch/report.py "$tmp/merged/ci" >/dev/null 2>&1
got=$(verdicts "$tmp/merged/ci" | tr '\n' ' ')
want=$(verdicts "$tmp/results/ci" | grep -E '^(uma-alpha-off-patched|2node-asym-alpha-node-patched) ' | tr '\n' ' ')
[ -n "$got" ] && [ "$got" = "$want" ] && [ -f "$tmp/merged/ci/report.md" ] && \
	grep -q 'uma-alpha-off-patched' "$tmp/merged/ci/report.md" && grep -q '2node-asym-alpha-node-patched' "$tmp/merged/ci/report.md" \
	&& pass ci_jobs_give_local_verdicts || bad ci_jobs_give_local_verdicts "got '$got' want '$want'"

# ---- ENGINE=slurm on a real one-node cluster ---------------------------------
slurm_checks="slurm.cluster_starts slurm.every_cell_is_an_array_task slurm.verdicts_equal_local slurm.resume_skips_done
slurm.node_lost_leaves_not_run slurm.rerun_finishes_only_those slurm.slurmd_stopped_gives_up_then_finishes slurm.cell_locked_not_run_twice slurm.sigterm_cancels_array slurm.submit_fails_not_run
slurm.everything_stopped"
have_slurm=1
for b in munged slurmctld slurmd sbatch squeue scancel sinfo; do command -v "$b" >/dev/null || have_slurm=0; done
if [ $have_slurm -eq 0 ]; then
	for c in $slurm_checks; do skip "$c" "Slurm and munge installed (make deps)"; done
	exit $fail
fi
if out=$(launch/slurm-local.sh start "$cluster" 2>&1); then
	pass slurm.cluster_starts
else
	bad slurm.cluster_starts "$out"
	exit 1
fi
export SLURM_CONF=$cluster/slurm.conf
sm=($py launch/matrix.py --scenario-dir "$tmp/sc" --results "$tmp/results" --engine slurm --slurm-grace 5)
sm() { "${sm[@]}" "$@"; }

# every cell an array task; verdicts as the local engine's (t-local: matrix "ci" above)
: >"$tmp/log"
out=$(sm --scenarios alpha --matrix s1 --jobs 2 --no-report 2>&1); rc=$?
ids=$(for f in "$tmp"/results/s1/*/cell.json; do $py -c 'import json,sys; d=json.load(open(sys.argv[1]))
print(d["engine"], d["slurm"]["array_job_id"], d["slurm"]["array_task_id"], d["slurm"]["node"])' "$f"; done | sort -u)
rids=$(for f in "$tmp"/results/s1/*/result.json; do $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["host"]["slurm_job_id"])' "$f"; done | sort -u | grep -c '^[0-9][0-9]*$')
[ $rc -eq 1 ] && [ "$(wc -l <<<"$ids")" -eq 4 ] && [ "$(cut -d' ' -f1,2,4 <<<"$ids" | sort -u | wc -l)" -eq 1 ] && \
	grep -q '^slurm [0-9]* [0-3] dplab0$' <<<"$ids" && [ "$rids" -eq 4 ] && [ "$(wc -l <"$tmp/log")" -eq 4 ] && \
	grep -q 'job array [0-9]*: 4 tasks, 2 at a time' <<<"$out" \
	&& pass slurm.every_cell_is_an_array_task || bad slurm.every_cell_is_an_array_task "rc=$rc ids='$ids' rids=$rids $out"
[ "$(verdicts "$tmp/results/s1")" = "$(verdicts "$tmp/results/ci")" ] && pass slurm.verdicts_equal_local \
	|| bad slurm.verdicts_equal_local "$(verdicts "$tmp/results/s1") vs $(verdicts "$tmp/results/ci")"
: >"$tmp/log"
out=$(sm --scenarios alpha --matrix s1 --no-report 2>&1)
[ ! -s "$tmp/log" ] && grep -q '4 cells, 4 done before, 0 to run' <<<"$out" && ! grep -q 'job array' <<<"$out" \
	&& pass slurm.resume_skips_done || bad slurm.resume_skips_done "$out"

# A node lost mid-matrix: slurmd, its job steps and what they run die at
# once.  The matrix gives up after the grace, leaves the rest not run
# (no result.json), and exits 1; with the node back, a rerun runs only those.
: >"$tmp/log"
FAKE_SLEEP=3 "${sm[@]}" --scenarios alpha --matrix s2 --no-report >"$tmp/s2.out" 2>&1 &
front=$!
for _ in $(seq 100); do [ -f "$tmp/results/s2/uma-alpha-off-patched/result.json" ] && break; sleep 0.2; done
sleep 1.5
launch/slurm-local.sh crash "$cluster"
start=$(date +%s)
wait $front; rc=$?
took=$(( $(date +%s) - start ))
nres=$(ls "$tmp"/results/s2/*/result.json 2>/dev/null | wc -l)
nnot=$(grep -c '^\[[0-9]/4\] .* NOT RUN (' "$tmp/s2.out")
[ $rc -eq 1 ] && [ "$nres" -ge 1 ] && [ "$nres" -le 2 ] && [ $((nres + nnot)) -eq 4 ] && [ $took -lt 60 ] && \
	grep -q 'cells not finished are left not run' "$tmp/s2.out" \
	&& pass slurm.node_lost_leaves_not_run || bad slurm.node_lost_leaves_not_run "rc=$rc results=$nres notrun=$nnot took=${took}s $(cat "$tmp/s2.out")"
launch/slurm-local.sh node-up "$cluster" >/dev/null 2>&1
: >"$tmp/log"
out=$(sm --scenarios alpha --matrix s2 --no-report 2>&1); rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/log")" -eq "$nnot" ] && grep -q "4 cells, $nres done before, $nnot to run under Slurm" <<<"$out" && \
	[ "$(verdicts "$tmp/results/s2")" = "$(verdicts "$tmp/results/ci")" ] \
	&& pass slurm.rerun_finishes_only_those || bad slurm.rerun_finishes_only_those "rc=$rc ran=$(wc -l <"$tmp/log") $out"

# slurmd stopped alone (its job steps go on): the matrix gives up as above;
# with slurmd back, reruns finish the matrix.
: >"$tmp/log"
FAKE_SLEEP=15 "${sm[@]}" --scenarios alpha --modes off --matrix s5 --no-report >"$tmp/s5.out" 2>&1 &
front=$!
for _ in $(seq 100); do [ -s "$tmp/log" ] && break; sleep 0.2; done
launch/slurm-local.sh node-down "$cluster"
wait $front; rc5=$?
launch/slurm-local.sh node-up "$cluster" >/dev/null 2>&1
out=$(FAKE_SLEEP=1 "${sm[@]}" --scenarios alpha --modes off --matrix s5 --no-report 2>&1)
out=$(FAKE_SLEEP=1 "${sm[@]}" --scenarios alpha --modes off --matrix s5 --no-report 2>&1); rc=$?
[ $rc5 -eq 1 ] && [ $rc -eq 0 ] && [ "$(ls "$tmp"/results/s5/*/result.json | wc -l)" -eq 2 ] \
	&& pass slurm.slurmd_stopped_gives_up_then_finishes \
	|| bad slurm.slurmd_stopped_gives_up_then_finishes "rc=$rc5/$rc $(cat "$tmp/log") $(cat "$tmp/s5.out") $out"

# A cell still run by an earlier task (orphaned on a node whose slurmd was
# lost, in a cluster of several): its lock is held, so a rerun's task must
# not run it into the same OUT; the other cells run, it stays NOT RUN.
mkdir -p "$tmp/results/s6"
flock -n "$tmp/results/s6/.uma-alpha-off-patched.lock" sleep 60 &
holder=$!
sleep 0.5
: >"$tmp/log"
out=$("${sm[@]}" --scenarios alpha --modes off --matrix s6 --no-report 2>&1); rc=$?
kill $holder 2>/dev/null; wait $holder 2>/dev/null
[ $rc -eq 1 ] && [ "$(cat "$tmp/log")" = "2node-asym-alpha-off-patched" ] && \
	grep -q '^\[.*uma-alpha-off-patched NOT RUN' <<<"$out" && grep -q 'still being run by an earlier task' "$tmp"/results/s6/slurm/*.out \
	&& pass slurm.cell_locked_not_run_twice || bad slurm.cell_locked_not_run_twice "rc=$rc $(cat "$tmp/log") $out"

# SIGTERM to the matrix: the array is cancelled, nothing of it left queued
: >"$tmp/log"
FAKE_SLEEP=30 "${sm[@]}" --scenarios alpha --matrix s3 --no-report >"$tmp/s3.out" 2>&1 &
front=$!
for _ in $(seq 100); do [ -s "$tmp/log" ] && break; sleep 0.2; done
sleep 1
kill -TERM $front
wait $front; rc=$?
left=""
for _ in $(seq 50); do left=$(squeue -h -o %i); [ -z "$left" ] && break; sleep 0.2; done
[ $rc -eq 130 ] && [ -z "$left" ] && [ ! -e "$tmp/results/s3/uma-alpha-off-patched/result.json" ] \
	&& pass slurm.sigterm_cancels_array || bad slurm.sigterm_cancels_array "rc=$rc queued='$left' $(cat "$tmp/s3.out")"

# the controller gone: sbatch fails; every cell not run, exit 1, the reason said
launch/slurm-local.sh stop "$cluster" >/dev/null 2>&1
out=$(sm --scenarios alpha --matrix s4 --no-report 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q '^matrix: slurm: could not submit: sbatch: ' <<<"$out" && [ "$(grep -c '^\[[0-9]/4\] .* NOT RUN (not submitted)' <<<"$out")" -eq 4 ] \
	&& pass slurm.submit_fails_not_run || bad slurm.submit_fails_not_run "rc=$rc $out"

left=$(pgrep -af 'slurmctld|slurmd|munged|slurmstepd|fake-run' | grep -F "$tmp" ; \
	for p in $(pgrep -x slurmctld; pgrep -x slurmd; pgrep -x munged; pgrep -x slurmstepd); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$cluster/slurm.conf" && echo "$p"
	done)
[ -z "$left" ] && pass slurm.everything_stopped || bad slurm.everything_stopped "$left"
exit $fail
