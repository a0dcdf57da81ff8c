"""The matrix under Slurm (make matrix ENGINE=slurm): the cells left to run
become one job array, one array task per cell, and this process follows them
until every task has ended.

Why a job array and not srun steps inside one allocation: an allocation
holds its nodes for the whole matrix, idle while its last cells finish and
waiting in the queue until all of them are free at once; an array lets each
cell start as soon as any node has room, gives every cell its own job id
(kept in cell.json and result.json), and one `scancel` stops the matrix.
The array's %N throttle is the matrix's cells-at-once (JOBS).

Each array task runs `matrix.py --slurm-task FILE`: it plans the same matrix
from the arguments saved in FILE and runs its cell with the local engine's
code (timeout -> HUNG, cell.json, the same verdicts), so a cell's record is
the same whichever engine ran it, plus the Slurm ids.

A cell whose task ended without writing its cell.json (cancelled, its node
lost) is NOT RUN: it has no result.json, so running the same command again
submits it again (resume).  When no node of the partition answers for
--slurm-grace seconds (default 60), the array is cancelled and the matrix
ends with the cells not finished left not run.
"""
import fcntl
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import time

from dplab.checks import PASSING_VERDICTS
from dplab.contract import TOP
from dplab.files import read_json

POLL_S = 2.0
# sinfo states in which a node runs nothing new (a trailing '*' means not
# responding, whatever the state)
DEAD_STATES = ("down", "drain", "drained", "draining", "fail", "failing", "future",
               "inval", "maint", "no_respond", "power_down", "powered_down", "unknown")


class SlurmError(Exception):
    pass


def slurm_cmd(cmd, timeout=30):
    """Run a Slurm client; its stdout, or SlurmError with its last stderr line."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SlurmError(f"{cmd[0]}: {e}")
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
        raise SlurmError(last if last.startswith(cmd[0] + ":") else f"{cmd[0]}: {last}")
    return p.stdout


def time_limit_min(a, r, todo):
    if a.time_limit:
        return a.time_limit
    worst = max(r.timeout(c) for c in todo)
    # the task's own timeout (HUNG) must fire before Slurm's kill
    return math.ceil((worst + 300) / 60)


# the front end's options that an array task must not see (with a value, and flags)
FRONT_ONLY = ("--engine", "--partition", "--account", "--time-limit", "--slurm-grace")
FRONT_ONLY_FLAGS = ("--list", "--rerun")


def task_argv(argv):
    """The front end's arguments, minus what only the front end uses."""
    out, skip = [], False
    for x in argv:
        if skip:
            skip = False
        elif x in FRONT_ONLY:
            skip = True
        elif x.split("=", 1)[0] not in FRONT_ONLY and x not in FRONT_ONLY_FLAGS:
            out.append(x)
    return out + ["--engine", "local", "--no-report"]


def submit(a, r, todo, argv):
    sdir = os.path.join(r.root, "slurm")
    os.makedirs(sdir, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    cells_file = os.path.join(sdir, f"cells-{stamp}-{os.getpid()}.json")
    with open(cells_file, "w", encoding="utf-8") as f:
        json.dump({"argv": task_argv(argv), "root": r.root, "cells": todo}, f, indent=1)
        f.write("\n")
    task = [sys.executable, os.path.join(TOP, "launch", "matrix.py"), "--slurm-task", cells_file]
    cmd = ["sbatch", "--parsable", f"--array=0-{len(todo) - 1}%{a.jobs}",
           f"--job-name=dplab-{a.matrix}", f"--output={sdir}/%A_%a.out",
           f"--time={time_limit_min(a, r, todo)}", f"--chdir={TOP}", "--export=ALL"]
    if a.partition:
        cmd.append(f"--partition={a.partition}")
    if a.account:
        cmd.append(f"--account={a.account}")
    cmd += ["--wrap", shlex.join(task)]
    job = slurm_cmd(cmd).strip().split(";")[0]
    if not job.isdigit():
        raise SlurmError(f"sbatch printed no job id: '{job}'")
    return job


def active_tasks(job):
    """The indices of the array's tasks Slurm still has (pending or running)."""
    out = slurm_cmd(["squeue", "-h", "-r", "-j", job, "-o", "%K"])
    return {int(k) for k in out.split() if k.isdigit()}


def partition_alive(a):
    """True when a node of the partition can run cells; None when sinfo cannot say."""
    cmd = ["sinfo", "-h", "-o", "%T"] + ([f"--partition={a.partition}"] if a.partition else [])
    try:
        states = slurm_cmd(cmd).split()
    except SlurmError:
        return None
    for st in states:
        if st.endswith("*"):
            continue
        if st.lower().rstrip("~#!%$@^-") not in DEAD_STATES:
            return True
    return False


def finished_record(r, c, job):
    """The cell.json this array wrote for c, or None."""
    rec = read_json(os.path.join(r.root, c["name"], "cell.json"))
    if rec is None or str(rec.get("slurm", {}).get("array_job_id")) != job:
        return None
    return rec


def run(a, r, todo, statuses, argv):
    """Submit the todo cells and follow them; fills statuses.  Returns
    "done", "lost" (nodes or controller gone: the rest left not run) or
    "interrupted"."""
    if not todo:
        return "done"
    try:
        job = submit(a, r, todo, argv)
    except SlurmError as e:
        print(f"matrix: slurm: could not submit: {e}", file=sys.stderr)
        for c in todo:
            statuses[c["name"]] = "NOT RUN"
            r.progress(c, "NOT RUN", "(not submitted)", None)
        return "lost"
    print(f"matrix: slurm: job array {job}: {len(todo)} tasks, {a.jobs} at a time"
          f"{', partition ' + a.partition if a.partition else ''}; "
          f"logs in {os.path.relpath(os.path.join(r.root, 'slurm'))}/", flush=True)
    stop = {"signal": None}

    def on_signal(signum, frame):
        stop["signal"] = signum
    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    reported = set()

    def report(i, c, rec):
        reported.add(i)
        statuses[c["name"]] = rec["status"]
        detail = f"({rec['reason']})" if rec.get("reason") and rec["status"] != "PASS" else ""
        detail += f"{' ' if detail else ''}[{job}_{i} on {rec.get('slurm', {}).get('node')}]"
        r.progress(c, rec["status"], detail, rec.get("elapsed_s"))
    outcome = "done"
    dead_since = None
    try:
        while True:
            if stop["signal"]:
                outcome = "interrupted"
                break
            try:
                tasks = active_tasks(job)
                err = None
            except SlurmError as e:
                tasks, err = None, str(e)
            # a task writes its cell.json before it ends: read it once Slurm
            # no longer lists the task
            for i, c in enumerate(todo):
                if i in reported or tasks is None or i in tasks:
                    continue
                rec = finished_record(r, c, job)
                if rec is not None:
                    report(i, c, rec)
            if tasks is not None and not tasks:
                break
            # Nodes gone (or the controller): Slurm would hold the tasks until
            # a node returns; the matrix gives up after the grace and leaves
            # them not run, for a rerun.
            alive = partition_alive(a) if err is None else False
            if alive is False:
                dead_since = dead_since or time.monotonic()
                if time.monotonic() - dead_since > a.slurm_grace:
                    why = err or "no node of the partition answers"
                    print(f"matrix: slurm: {why} for {a.slurm_grace}s; cancelling job {job}",
                          file=sys.stderr, flush=True)
                    outcome = "lost"
                    break
            else:
                dead_since = None
            time.sleep(POLL_S)
    finally:
        if outcome != "done":
            try:
                slurm_cmd(["scancel", job])
            except SlurmError as e:
                print(f"matrix: slurm: scancel {job}: {e}", file=sys.stderr)
        for s, h in old.items():
            signal.signal(s, h)
    for i, c in enumerate(todo):
        if i not in reported:
            # a task that ended between the last poll and now
            rec = finished_record(r, c, job)
            if rec is not None:
                report(i, c, rec)
                continue
            statuses[c["name"]] = "NOT RUN"
            if outcome != "interrupted":
                r.progress(c, "NOT RUN", f"(slurm task {job}_{i} ended without a result; "
                           "run the same command again to run it)", None)
    if outcome == "lost":
        print("matrix: slurm: cells not finished are left not run; run the same command again "
              "to resume", file=sys.stderr)
    return outcome


def array_task(cells_file, a_outer):
    """One array task: plan the matrix as the front end did and run cell
    SLURM_ARRAY_TASK_ID with the local engine's code."""
    import matrix
    with open(cells_file, encoding="utf-8") as f:
        d = json.load(f)
    idx = int(os.environ.get("SLURM_ARRAY_TASK_ID", "-1"))
    if not 0 <= idx < len(d["cells"]):
        print(f"matrix: slurm task: SLURM_ARRAY_TASK_ID {idx} is not a cell of {cells_file}",
              file=sys.stderr)
        return 2
    a = matrix.parse_args(d["argv"])
    try:
        _, scens = matrix.plan(a)
    except matrix.BadInput as e:
        print(f"matrix: slurm task: {e}", file=sys.stderr)
        return 2
    c = d["cells"][idx]
    # One run of a cell at a time: a task orphaned by a lost slurmd may
    # still be running it when a rerun's task starts (same OUT, rmtree'd
    # by run.py).  The later one leaves the cell NOT RUN instead.
    lock = open(os.path.join(d["root"], f".{c['name']}.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"matrix: slurm task: {c['name']} is still being run by an earlier task; "
              "left not run", file=sys.stderr)
        return 3
    r = matrix.Runner(a, d["root"], [c], scens)
    r.to_run = 1
    r.slurm = {
        "job_id": os.environ.get("SLURM_JOB_ID"),
        "array_job_id": os.environ.get("SLURM_ARRAY_JOB_ID"),
        "array_task_id": idx,
        "node": os.environ.get("SLURMD_NODENAME"),
        "cluster": os.environ.get("SLURM_CLUSTER_NAME"),
        "partition": os.environ.get("SLURM_JOB_PARTITION"),
    }
    status = r.run_cell(c)
    return 0 if status in PASSING_VERDICTS else 1
