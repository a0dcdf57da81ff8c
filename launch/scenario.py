#!/usr/bin/env python3
"""Scenario files (workloads/scenarios/<name>.sh): a shell fragment the guest
sources, defining workload() (and optionally setup()/teardown()), plain
NAME="value" settings, and `check` lines that the host evaluates:

    check NAME METRIC OP VALUE [if mode=M[,M] | if kernel=K[,K]]
          [when METRIC OP VALUE]... [xfail REASON...]          (one line)

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

  scenario.py validate FILE|NAME    check only (file:line errors, exit 2)
"""
import math
import os
import re
import shlex
import sys

OPS = ("==", "!=", "<", "<=", ">", ">=")
SETTINGS = ("CLAIM", "TOPOLOGIES", "BENCH_TOPOLOGIES", "MODES", "EVENTS", "SYSCTL", "TIMEOUT",
            "TRACE_BUFFER_KB", "DISK_WRITE_BPS", "DISK_QUEUE", "CMDLINE", "STANDALONE", "SMOKE_SKIP",
            "TRACE_TASKS")
CONDITIONS = {"mode": ("off", "global", "node"), "kernel": ("patched", "stock")}
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


def parse(text, path):
    sc = {"name": os.path.basename(path).removesuffix(".sh"), "path": path, "text": text,
          "vars": {}, "checks": []}
    has_workload = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{n}"
        if re.match(r"^workload\s*\(\)", line) or \
                re.match(r'^\. "\$LAB/workloads/scenarios/lib/[a-z0-9_.-]+\.sh"$', line):
            has_workload = True
        if line.startswith("check ") or line == "check":
            w = line.split()
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
                    raise ScenarioError(f"{where}: 'if' takes mode=off,global,node or kernel=patched,stock")
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
            if any(c["name"] == name for c in sc["checks"]):
                raise ScenarioError(f"{where}: check '{name}' defined twice")
            sc["checks"].append({"name": name, "metric": metric, "op": op, "value": value,
                                 "xfail": xfail, "cond": cond, "when": when, "line": n})
            continue
        m = _SETTING.match(line)
        if m and m.group(1) in SETTINGS:
            try:
                sc["vars"][m.group(1)] = _unquote(m.group(2))
            except ValueError as e:
                raise ScenarioError(f"{where}: {e}")
    if not has_workload:
        raise ScenarioError(f"{path}: no workload() function")
    bps = sc["vars"].get("DISK_WRITE_BPS")
    if bps is not None and not re.fullmatch(r"\d+[KMG]?", bps):
        raise ScenarioError(f"{path}: DISK_WRITE_BPS '{bps}' must be a size like 20M")
    q = sc["vars"].get("DISK_QUEUE")
    if q is not None and not re.fullmatch(r"[1-9]\d*x[1-9]\d*[KkMm]", q):
        raise ScenarioError(f"{path}: DISK_QUEUE '{q}' must be REQUESTSxSIZE like 32x512K")
    # task names (the writers' executable names, comm) counted on their own
    # in the trace: dpanalyze --task, at most 8, 15 characters each
    tasks = sc["vars"].get("TRACE_TASKS", "").split()
    bad = [w for w in tasks if not re.fullmatch(r"[A-Za-z0-9_.-]{1,15}", w)]
    if bad or len(tasks) > 8 or len(set(tasks)) != len(tasks):
        raise ScenarioError(f"{path}: TRACE_TASKS '{' '.join(tasks)}' must be up to 8 distinct "
                            "task names of 1..15 characters [A-Za-z0-9_.-]")
    t = sc["vars"].get("TIMEOUT", "300")
    if not t.isdigit() or not 10 <= int(t) <= 7200:
        raise ScenarioError(f"{path}: TIMEOUT '{t}' must be 10..7200 seconds")
    return sc


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        raise ScenarioError(f"no scenario '{path}' (see workloads/scenarios/)")
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{path}: not UTF-8 text at byte {e.start}")
    return parse(text, path)


def load_cmd(cmd):
    """CMD='...': any guest command line as the workload, no checks but the
    run's own (topology, kernel clean, exit status)."""
    text = ("# CMD given on the make command line\nCLAIM=\"user command\"\n"
            f"workload() {{\n\t{cmd}\n}}\n"
            "check workload_exit workload.exit == 0\n"
            "check topology_matches topology.mismatches == 0\n"
            "check kernel_clean console.problems == 0\n")
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
