"""The only check evaluator, and the status rules every reader shares.

A check line (#CHECK# NAME METRIC OP VALUE [if ...] [when ...] [xfail ...],
parsed by launch/scenario.py) is judged against a run's metrics into one
entry of result.json's "checks": name, value, expectation, [precondition,
precondition_met,] passed, status [, reason].  The status is one of

  pass          the claim holds
  fail          it does not
  xfail         it does not, as its xfail REASON says it does not on 6.1
  xpass         an xfail claim that holds: the mark is stale, which is news
  unmeasurable  the metric is missing (a failure of the lab), or a `when`
                precondition did not hold (precondition_met false: skipped,
                the run could not judge the claim; neither pass nor fail)

From those: a run passes when no check is unexpected(); a cell's verdict
(report.md, the matrix's progress lines) is PASS, XFAIL or FAIL; and a
check's test line (tests/run's, matrix.ktap's) is PASS, XFAIL, SKIP or FAIL.

  python3 -m dplab.checks lines CELL RESULT_JSON
      one test line per check of a run (tests/result-lines.sh); exit 0 when
      the run passed, 1 when not, 2 when RESULT_JSON is unreadable
"""
import dataclasses
import json
import sys

from dplab.records import CheckSpec

# ---- the checks every run gets without its scenario writing them ------------
# Added by collect.py unless the scenario writes a check of that name (run
# records from before they were implicit do), first in a run's list in this
# order; workload_exit not for a run that crashed as its scenario asked (the
# workload never returns).
IMPLICIT = (CheckSpec("workload_exit", "workload.exit", "==", 0.0, implicit=True),
            CheckSpec("kernel_clean", "console.problems", "==", 0.0, implicit=True))
# Every run checks the guest's view of its topology, not just smoke: a
# scenario's numbers mean nothing on the wrong NUMA layout.  Added after the
# scenario's own checks unless one of them is on topology.mismatches.
TOPOLOGY_CHECK = CheckSpec("topology_matches", "topology.mismatches", "==", 0)


def implicit(checks, crashed=False):
    """The checks a run evaluates, in order: workload_exit, kernel_clean,
    then the scenario's.  A scenario whose list opens with its own check on
    topology.mismatches (smoke, CMD=) keeps it ahead of kernel_clean, where
    it has always been."""
    names = {c.name for c in checks}
    head = [dataclasses.replace(c) for c in IMPLICIT[:1] if c.name not in names and not crashed]
    rest = list(checks)
    while rest and rest[0].metric == "topology.mismatches":
        head.append(rest.pop(0))
    head += [dataclasses.replace(c) for c in IMPLICIT[1:] if c.name not in names]
    return head + rest


# ---- one check against a run's metrics ---------------------------------------

def lookup(metrics, path):
    cur = metrics
    for part in path.split("."):
        if isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, list) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            return None
    if isinstance(cur, bool):
        return int(cur)
    return cur if isinstance(cur, (int, float)) else None


def compare(v, op, want):
    return {"==": v == want, "!=": v != want, "<": v < want, "<=": v <= want,
            ">": v > want, ">=": v >= want}[op]


def applies(check, run):
    cond = check.cond
    return not cond or run.get(cond[0]) in cond[1]


def num(v):
    """A number as a reader wants it: 31457280, 0.95, 106277486.8."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        v = int(v)
    return format(v, ".10g") if isinstance(v, float) else str(v)


def analyser_why(metrics, path):
    """' (analyser: why)' when dpanalyze named a trace metric unmeasurable."""
    um = (metrics.get("trace") or {}).get("unmeasurable")
    if not path.startswith("trace.") or not isinstance(um, dict):
        return ""
    key = path[len("trace."):]
    while key:
        if isinstance(um.get(key), str):
            return f" (analyser: {um[key]})"
        key = key.rpartition(".")[0]
    return ""


def precondition_text(when):
    return " and ".join(f"{m} {op} {num(v)}" for m, op, v in when)


def unmet_precondition(when, metrics):
    """None when every `when` of a check holds, else why not, quoting what
    the run measured."""
    for m, op, want in when:
        got = lookup(metrics, m)
        if got is None:
            return f"precondition {m} {op} {num(want)} not met: metric {m} not in this run" + \
                analyser_why(metrics, m)
        if not compare(got, op, want):
            return f"precondition {m} {op} {num(want)} not met: measured {num(got)}"
    return None


def evaluate(checks, metrics, run=None):
    """result.json's entries (dicts) for those of checks (CheckSpecs) that
    apply to run ({"mode": ..., "kernel": ...}), in their order."""
    res = []
    for c in checks:
        if not applies(c, run or {}):
            continue
        v = lookup(metrics, c.metric)
        expect = f"{c.metric} {c.op} {num(c.value)}"
        r = {"name": c.name, "value": v, "expectation": expect}
        when = c.when
        if when:
            # A claim the run could only judge under a precondition on what
            # it measured (the writers outran the disk, reclaim met dirty
            # pages): unmet, it is unmeasurable, and no failure of the run.
            r["precondition"] = precondition_text(when)
            why = unmet_precondition(when, metrics)
            r["precondition_met"] = why is None
            if why:
                r.update(passed=False, status="unmeasurable", reason=why)
                res.append(r)
                continue
        if v is None:
            # Without a precondition, or with one that held, a missing
            # metric is a failure of the lab, xfail mark or not.
            r.update(passed=False, status="unmeasurable",
                     reason=f"metric {c.metric} not in this run" + analyser_why(metrics, c.metric) +
                            (f" (precondition {r['precondition']} met)" if when else ""))
        else:
            ok = compare(v, c.op, c.value)
            r["passed"] = ok
            if c.xfail:
                r["status"] = "xpass" if ok else "xfail"
                r["reason"] = c.xfail
            else:
                r["status"] = "pass" if ok else "fail"
        res.append(r)
    return res


# ---- checks of the run itself, not of a metric path --------------------------

def data_check(data):
    """The implicit check of every run with dirtier files: no bad block."""
    c = {"name": "data_intact", "value": data["bad_blocks"],
         "expectation": "data.bad_blocks == 0 (every dirtier file reread after sync and drop_caches)"}
    if data["files_unverified"]:
        c.update(passed=False, status="unmeasurable",
                 reason=f"no verification of {', '.join(data['unverified'])} (see verify.log.err)")
    else:
        ok = data["bad_blocks"] == 0
        c.update(passed=ok, status="pass" if ok else "fail")
        if not ok:
            bad = [f"{n}: {f['bad_blocks']} bad, first at {f['first_bad_offset_bytes']}"
                   for n, f in data["files"].items() if f["bad_blocks"]]
            c["reason"] = "; ".join(bad)
    return c


def crash_check(requested_crash, last_line):
    """The scenario asked for the crash: the run ends there, and it must
    have ended in exactly that panic (console.py's requested_crash)."""
    ok = bool(requested_crash)
    c = {"name": "crashed_as_requested", "value": requested_crash,
         "expectation": "console: 'dplab: crash requested', then the sysrq panic",
         "passed": ok, "status": "pass" if ok else "fail"}
    if not ok:
        c["reason"] = f"no sysrq panic after the request; last console line: {last_line!r}"
    return c


def unfinished_check(last_line):
    """The guest never wrote 'done' to guest-status."""
    return {"name": "guest_finished", "value": 0, "expectation": "guest-status says done",
            "passed": False, "status": "fail",
            "reason": f"guest did not finish; last console line: {last_line!r}"}


# ---- what a status means -------------------------------------------------------

NOT_PASSING = ("fail", "xpass", "unmeasurable")


def skipped(check):
    """Unmeasurable because a precondition did not hold: the run could not
    judge the claim.  Neither a pass nor a failure."""
    return check.get("status") == "unmeasurable" and check.get("precondition_met") is False


def unexpected(check):
    # An xfail check that passes is news too: the claim now holds, so the
    # xfail mark is stale.  Unmeasurable is a failure of the lab, unless a
    # precondition of the check did not hold (skipped).
    if skipped(check):
        return False
    return check["status"] in NOT_PASSING


def verdict_of(res):
    """PASS, XFAIL (passes only because of expected failures) or FAIL.  A
    check skipped for an unmet precondition (skipped()) is none of them:
    the cell shows it as SKIP among its notes."""
    st = [c.get("status") for c in res.get("checks", []) if not skipped(c)]
    if any(s in NOT_PASSING for s in st) or not res.get("pass"):
        return "FAIL"
    return "XFAIL" if "xfail" in st else "PASS"


# the verdicts of a cell that passed (matrix.py's exit status, a Slurm task's)
PASSING_VERDICTS = ("PASS", "XFAIL")


def failing_names(res):
    return [c["name"] for c in res.get("checks", [])
            if c.get("status") in NOT_PASSING and not skipped(c)]


def json_text(v):
    """A JSON value as jq's string interpolation writes it (null, true, 3,
    0.95, strings bare): the spelling tests/run's lines have always had."""
    if isinstance(v, str):
        return v
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e17:
        return str(int(v))
    return json.dumps(v)


def test_line(cell, c, show=str):
    """One check as a test line, in cell: PASS, XFAIL with its reason, SKIP
    for an unmet precondition (unmeasurable: neither passed nor failed),
    else FAIL (fail, xpass, any other unmeasurable).  show spells values and
    reasons: str for matrix.ktap, json_text for tests/run's lines."""
    name = f"{cell}.{c['name']}"
    if c.get("status") == "pass":
        return f"PASS: {name}"
    if c.get("status") == "xfail":
        return f"XFAIL: {name}: {show(c.get('reason'))}"
    if skipped(c):
        return f"SKIP: {name}: unmeasurable: {show(c.get('reason'))}"
    why = f" ({c['reason']})" if c.get("reason") else ""
    return (f"FAIL: {name}: {show(c.get('status'))}: {show(c.get('expectation'))}, "
            f"got {show(c.get('value'))}{why}")


def main(argv):
    if len(argv) != 4 or argv[1] != "lines":
        print(__doc__.strip(), file=sys.stderr if len(argv) < 2 or argv[1] not in ("-h", "--help") else sys.stdout)
        return 0 if len(argv) == 2 and argv[1] in ("-h", "--help") else 2
    cell, path = argv[2], argv[3]
    try:
        with open(path, encoding="utf-8") as f:
            res = json.load(f)
        checks = res["checks"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"checks: {path}: {e}", file=sys.stderr)
        return 2
    for c in checks:
        print(test_line(cell, c, json_text))
    return 0 if res.get("pass") is True else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
