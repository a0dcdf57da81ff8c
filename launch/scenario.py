#!/usr/bin/env python3
"""Scenario files (workloads/scenarios/<name>.sh): a shell fragment the guest
sources as written, defining workload() (and optionally setup()/teardown()),
plain NAME="value" settings, and check lines that the host evaluates, written
as a shell comment (inert in the guest, as rcutorture keeps its #CHECK# lines):

    #CHECK# NAME METRIC OP VALUE [if mode=M[,M] | if kernel=K[,K]]
            [when METRIC OP VALUE]... [xfail REASON...]        (one line)

METRIC is a dotted path into result.json's metrics (vmstat_delta.oom_kill,
trace.counts.writeback_written, ...), OP one of == != < <= > >=, VALUE a
number.  A check with `if` applies only to runs with that mode or kernel.
`when METRIC OP VALUE` is a precondition on what the run measured: the
claim is judged only when every `when` holds (the writers outran the disk,
reclaim met dirty pages).  When one does not hold, or its metric is absent,
the check is `unmeasurable` with the measured value in its reason, and that
is no failure of the run: the run could not show the claim, it did not
refute it.  `xfail REASON` marks a claim false on 6.1 for a stated kernel
reason (never a host's speed: that is what `when` is for).

Checks shared by several scenarios live in a lib file the scenario sources,
`. "$LAB/workloads/scenarios/lib/NAME.sh"`: its #CHECK# lines count where
the scenario sources it.  A live `check ...` line is bad input; only a run
record made before #CHECK# (OUT/scenario.sh, read with legacy=True by
collect.py) may have them, and then they are its whole list.  Every run also
gets workload_exit and kernel_clean (dplab/checks.py: IMPLICIT, implicit()),
and collect.py adds topology_matches.

  scenario.py validate FILE|NAME    check only (file:line errors, exit 2)
"""
import math
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# IMPLICIT and implicit() are dplab.checks', named here too for the scripts
# and tests that have always found them in this module
from dplab.checks import IMPLICIT, implicit  # noqa: E402,F401
from dplab.contract import KERNELS, MODES  # noqa: E402
from dplab.records import CheckSpec, Scenario  # noqa: E402

OPS = ("==", "!=", "<", "<=", ">", ">=")
SETTINGS = ("CLAIM", "TOPOLOGIES", "BENCH_TOPOLOGIES", "MODES", "EVENTS", "SYSCTL", "TIMEOUT",
            "TRACE_BUFFER_KB", "DISK_WRITE_BPS", "DISK_QUEUE", "CMDLINE", "STANDALONE", "SMOKE_SKIP",
            "TRACE_TASKS", "BASELINE_OF")
CONDITIONS = {"mode": MODES, "kernel": KERNELS}
_SETTING = re.compile(r"^([A-Z_][A-Z0-9_]*)=(.*)$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")


class ScenarioError(Exception):
    pass


def resolve(name, top):
    if os.sep in name or name.endswith(".sh"):
        return name
    return os.path.join(top, "workloads", "scenarios", name + ".sh")


def _unquote(v):
    try:
        w = shlex.split(v, comments=True)
    except ValueError as e:
        raise ValueError(f"bad quoting: {e}")
    return " ".join(w)


LIB = re.compile(r'^\. "\$LAB/workloads/scenarios/lib/([a-z0-9_.-]+)\.sh"$')
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIVE = "write check lines as '#CHECK# ...' (inert shell)"
def parse_check(w, where, n):
    """One check from its words after the #CHECK# (or legacy `check`)."""
    if len(w) < 5:
        raise ScenarioError(f"{where}: check needs NAME METRIC OP VALUE "
                            "[if ...] [when METRIC OP VALUE] [xfail REASON]")
    name, metric, op, value = w[1:5]
    if not _NAME.match(name):
        raise ScenarioError(f"{where}: check name '{name}' must be lower-case [a-z0-9_.-]")
    if op not in OPS:
        raise ScenarioError(f"{where}: check operator '{op}' unknown (known: {' '.join(OPS)})")
    try:
        value = float(value)
    except ValueError:
        raise ScenarioError(f"{where}: check value '{w[4]}' is not a number")
    if not math.isfinite(value):
        raise ScenarioError(f"{where}: check value '{w[4]}' is not a number")
    xfail, cond, when, rest = None, None, [], w[5:]
    if rest and rest[0] == "if":
        m = re.fullmatch(r"(mode|kernel)=([a-z,]+)", rest[1]) if len(rest) > 1 else None
        if not m or not set(m.group(2).split(",")) <= set(CONDITIONS[m.group(1)]):
            raise ScenarioError(f"{where}: 'if' takes mode={','.join(MODES)} or kernel={','.join(KERNELS)}")
        cond = (m.group(1), m.group(2).split(","))
        rest = rest[2:]
    while rest and rest[0] == "when":
        if len(rest) < 4 or rest[1] in ("when", "xfail", "if"):
            raise ScenarioError(f"{where}: 'when' takes METRIC OP VALUE")
        pm, pop, pv = rest[1:4]
        if pop not in OPS:
            raise ScenarioError(f"{where}: 'when' operator '{pop}' unknown (known: {' '.join(OPS)})")
        try:
            pval = float(pv)
        except ValueError:
            pval = math.nan
        if not math.isfinite(pval):
            raise ScenarioError(f"{where}: 'when' value '{pv}' is not a number")
        if pm == metric:
            raise ScenarioError(f"{where}: 'when' on the check's own metric {pm}: "
                                "such a check could never fail")
        when.append((pm, pop, pval))
        rest = rest[4:]
    if rest:
        if rest[0] != "xfail" or len(rest) < 2:
            raise ScenarioError(f"{where}: after VALUE only 'if ...', 'when METRIC OP VALUE' "
                                "and 'xfail REASON...' may follow, in that order")
        xfail = " ".join(rest[1:])
    return CheckSpec(name, metric, op, value, xfail, cond, when, n)


def _check_lines(text, path, legacy):
    """(line number, words, is_live) of each check line of one file."""
    for n, raw in enumerate(text.splitlines(), 1):
        w = raw.split()
        if w and w[0] == "#CHECK#":
            yield n, w, False
        elif w and w[0] == "check":
            if not legacy:
                raise ScenarioError(f"{path}:{n}: {LIVE}")
            yield n, w, True


def lib_path(lib, lib_dir=None):
    """A lib file: the run record's copy in lib_dir (OUT/scenario-lib/) when
    there is one, so re-collecting uses the checks the run had; else the
    lab's own."""
    if lib_dir and os.path.isfile(os.path.join(lib_dir, lib + ".sh")):
        return os.path.join(lib_dir, lib + ".sh")
    return os.path.join(TOP, "workloads", "scenarios", "lib", lib + ".sh")


def _lib_checks(lib, where, lib_dir=None):
    path = lib_path(lib, lib_dir)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        raise ScenarioError(f"{where}: no readable lib file workloads/scenarios/lib/{lib}.sh")
    rel = os.path.relpath(path, TOP) if path.startswith(TOP + os.sep) else path
    out = []
    for n, w, _ in _check_lines(text, rel, False):
        c = parse_check(w, f"{rel}:{n}", n)
        c.file = rel
        out.append(c)
    return out


def parse(text, path, legacy=False, lib_dir=None):
    """A records.Scenario.  legacy: a run record (OUT/scenario.sh) from before #CHECK#: live
    `check` lines are read, and when it has any they are its whole list
    (its lib files had no check lines then)."""
    sc = Scenario(os.path.basename(path).removesuffix(".sh"), path, text, {}, [])
    lines = {n: (w, live) for n, w, live in _check_lines(text, path, legacy)}
    old = any(live for w, live in lines.values())
    has_workload = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{n}"
        lib = LIB.match(line)
        if re.match(r"^workload\s*\(\)", line) or lib:
            has_workload = True
        if lib and lib.group(1) not in sc.libs:
            sc.libs.append(lib.group(1))
        new = []
        if n in lines:
            new = [parse_check(lines[n][0], where, n)]
        elif lib and not old:
            new = _lib_checks(lib.group(1), where, lib_dir)
        for c in new:
            if any(o.name == c.name for o in sc.checks):
                raise ScenarioError(f"{c.file or path}:{c.line}: check '{c.name}' defined twice"
                                    + (f" (also in {path})" if c.file else ""))
            sc.checks.append(c)
        if n in lines:
            continue
        m = _SETTING.match(line)
        if m and m.group(1) in SETTINGS:
            try:
                sc.vars[m.group(1)] = _unquote(m.group(2))
            except ValueError as e:
                raise ScenarioError(f"{where}: {e}")
    if not has_workload:
        raise ScenarioError(f"{path}: no workload() function")
    bps = sc.vars.get("DISK_WRITE_BPS")
    if bps is not None and not re.fullmatch(r"\d+[KMG]?", bps):
        raise ScenarioError(f"{path}: DISK_WRITE_BPS '{bps}' must be a size like 20M")
    q = sc.vars.get("DISK_QUEUE")
    if q is not None and not re.fullmatch(r"[1-9]\d*x[1-9]\d*[KkMm]", q):
        raise ScenarioError(f"{path}: DISK_QUEUE '{q}' must be REQUESTSxSIZE like 32x512K")
    # task names (the writers' executable names, comm) counted on their own
    # in the trace: dpanalyze --task, at most 8, 15 characters each
    tasks = sc.vars.get("TRACE_TASKS", "").split()
    bad = [w for w in tasks if not re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", w)]
    if bad or len(tasks) > 8 or len(set(tasks)) != len(tasks):
        raise ScenarioError(f"{path}: TRACE_TASKS '{' '.join(tasks)}' must be up to 8 distinct "
                            "task names of 1..15 characters [A-Za-z0-9_.-]")
    # a baseline: the same workload as scenario BASELINE_OF under tuning a
    # user can choose without the series (report.py's Baselines section)
    base = sc.vars.get("BASELINE_OF")
    if base is not None and (not _NAME.match(base) or base == sc.name):
        raise ScenarioError(f"{path}: BASELINE_OF '{base}' must name another scenario")
    t = sc.vars.get("TIMEOUT", "300")
    if not t.isdigit() or not 10 <= int(t) <= 7200:
        raise ScenarioError(f"{path}: TIMEOUT '{t}' must be 10..7200 seconds")
    return sc


def load(path, legacy=False, lib_dir=None):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        raise ScenarioError(f"no scenario '{path}' (see workloads/scenarios/)")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{path}: not UTF-8 text at byte {e.start}")
    return parse(text, path, legacy, lib_dir)


def load_cmd(cmd):
    """CMD='...': any guest command line as the workload, no checks but the
    run's own (exit status, topology, kernel clean: the first and last
    implicit, the topology one written here to keep its place between)."""
    text = ("# CMD given on the make command line\nCLAIM=\"user command\"\n"
            f"workload() {{\n\t{cmd}\n}}\n"
            "#CHECK# topology_matches topology.mismatches == 0\n")
    return parse(text, "cmd")


def main(argv):
    if len(argv) != 3 or argv[1] != "validate":
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        load(resolve(argv[2], top))
    except ScenarioError as e:
        print(f"scenario: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
