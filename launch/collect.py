#!/usr/bin/env python3
"""Turn a run's OUT directory into result.json (the run contract in DESIGN.md).

Metrics come from plain files the guest left (vmstat snapshots, the guest's
topology view, workload reports, console.log) and from the trace analyser
(build/bin/dpanalyze) when it is built.  Checks are the scenario's `check`
lines plus none else; each gets status pass, fail, xfail (with its reason) or
unmeasurable.  The run passes when no check has an unexpected result.

  collect.py OUT     re-collect an existing results directory
"""
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario as scn  # noqa: E402
import topology  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Console lines that end a run as a failure, whatever the checks say.
PROBLEMS = [
    r"Kernel panic", r"\bOops\b", r"BUG: ", r"WARNING: .* at ", r"------------\[ cut here \]",
    r"KASAN: ", r"UBSAN: ", r"KCSAN: ", r"possible circular locking", r"INFO: task .* blocked for more than",
    r"soft lockup", r"hard LOCKUP", r"rcu: INFO: .* stall", r"general protection fault",
    r"lockdep", r"Call Trace:",
]
_PROBLEM = re.compile("|".join(PROBLEMS))


def read(path, default=""):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return default


def parse_vmstat(text):
    out = {}
    for line in text.splitlines():
        w = line.split()
        if len(w) == 2 and w[1].lstrip("-").isdigit():
            out[w[0]] = int(w[1])
    return out


def vmstat_delta(out, prefix):
    before = parse_vmstat(read(os.path.join(out, f"{prefix}.before")))
    after = parse_vmstat(read(os.path.join(out, f"{prefix}.after")))
    if not before or not after:
        return None
    return {k: after[k] - before.get(k, 0) for k in after}


def parse_meminfo(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"Node \d+ (\S+):\s+(\d+)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def last_console_line(out):
    lines = [ln for ln in read(os.path.join(out, "console.log")).splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "(console empty)"


def console_problems(out):
    return [ln.strip() for ln in read(os.path.join(out, "console.log")).splitlines()
            if _PROBLEM.search(ln)]


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
    cond = check.get("cond")
    return not cond or run.get(cond[0]) in cond[1]


def evaluate(checks, metrics, run=None):
    res = []
    for c in checks:
        if not applies(c, run or {}):
            continue
        v = lookup(metrics, c["metric"])
        expect = f"{c['metric']} {c['op']} {c['value']:g}"
        r = {"name": c["name"], "value": v, "expectation": expect}
        if v is None:
            r.update(passed=False, status="unmeasurable",
                     reason=f"metric {c['metric']} not in this run")
        else:
            ok = compare(v, c["op"], c["value"])
            r["passed"] = ok
            if c["xfail"]:
                r["status"] = "xpass" if ok else "xfail"
                r["reason"] = c["xfail"]
            else:
                r["status"] = "pass" if ok else "fail"
        res.append(r)
    return res


def unexpected(check):
    # An xfail check that passes is news too: the claim now holds, so the
    # xfail mark is stale.  Unmeasurable is a failure of the lab.
    return check["status"] in ("fail", "xpass", "unmeasurable")


def analyse_trace(out, nnodes):
    """Trace metrics from the analyser, when it is built and a trace exists."""
    tool = os.path.join(TOP, "build", "bin", "dpanalyze")
    trace = os.path.join(out, "trace.dat")
    if not os.path.exists(trace):
        return None, "no trace.dat"
    if not os.access(tool, os.X_OK):
        return None, "analyser not built (make analysis)"
    tjson = os.path.join(out, "trace-metrics.json")
    r = subprocess.run([tool, trace, "--out", out, "--json", tjson, "--nodes", str(nnodes)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["dpanalyze failed"])[-1]
    try:
        with open(tjson, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"dpanalyze output unreadable: {e}"
    tm = doc.get("metrics", {})
    tm["meta"] = doc.get("trace", {})
    return tm, None


def collect(out, topo, sc, mode, kernel, variant, wall_s=None):
    metrics = {}
    d = vmstat_delta(out, "vmstat")
    if d is not None:
        metrics["vmstat_delta"] = d
    nodes = {}
    for nid in sorted(topo["nodes"]):
        nd = {}
        dd = vmstat_delta(out, f"node{nid}.vmstat")
        if dd is not None:
            nd["vmstat_delta"] = dd
        for when in ("before", "after"):
            mi = parse_meminfo(read(os.path.join(out, f"node{nid}.meminfo.{when}")))
            if mi:
                nd[f"meminfo_{when}_kb"] = mi
        nodes[str(nid)] = nd
    metrics["nodes"] = nodes

    view = os.path.join(out, "guest-topology.txt")
    mism = topology.check_guest(topo, topology.parse_guest_view(view)) if os.path.exists(view) \
        else ["guest wrote no topology view"]
    metrics["topology"] = {"mismatches": len(mism), "details": mism}

    problems = console_problems(out)
    metrics["console"] = {"problems": len(problems), "first": problems[:10]}
    ex = read(os.path.join(out, "workload-exit")).strip()
    metrics["workload"] = {"exit": int(ex) if ex.lstrip("-").isdigit() else None}
    reports = {}
    for p in sorted(glob.glob(os.path.join(out, "report-*.json"))):
        key = os.path.basename(p)[7:-5]
        try:
            with open(p, encoding="utf-8") as f:
                reports[key] = json.load(f)
        except (OSError, ValueError):
            reports[key] = {"error": "unreadable report"}
    if reports:
        metrics["workloads"] = reports
    extra = os.path.join(out, "guest-metrics.json")
    if os.path.exists(extra):
        try:
            with open(extra, encoding="utf-8") as f:
                metrics["guest"] = json.load(f)
        except ValueError:
            metrics["guest"] = {"error": "unreadable guest-metrics.json"}
    tm, why = analyse_trace(out, len(topo["nodes"]))
    if tm is not None:
        metrics["trace"] = tm
    else:
        metrics["trace_unavailable"] = why
    if wall_s is not None:
        metrics["wall_s"] = round(wall_s, 2)
    boot = re.search(r"\[\s*([\d.]+)s\] userspace up", read(os.path.join(out, "console.log")))
    if boot:
        metrics["boot_to_userspace_guest_s"] = float(boot.group(1))

    checks = evaluate(sc["checks"], metrics, {"mode": mode, "kernel": kernel})
    status = read(os.path.join(out, "guest-status"))
    if "done" not in status:
        checks.append({"name": "guest_finished", "value": 0, "expectation": "guest-status says done",
                       "passed": False, "status": "fail",
                       "reason": f"guest did not finish; last console line: {last_console_line(out)!r}"})
    res = {
        "topology": topo["name"], "topology_description": topo["description"],
        "scenario": sc["name"], "claim": sc["vars"].get("CLAIM", ""),
        "mode": mode, "kernel": kernel, "variant": variant,
        "kernel_release": read(os.path.join(out, "kernel-release")).strip() or None,
        "metrics": metrics, "checks": checks,
        "pass": not any(unexpected(c) for c in checks),
    }
    with open(os.path.join(out, "result.json.tmp"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(os.path.join(out, "result.json.tmp"), os.path.join(out, "result.json"))
    session = os.path.join(TOP, "build", "bin", "dpsession")
    plugin = os.path.join(TOP, "build", "lib", "plugin-dirty_pressure.so")
    if os.access(session, os.X_OK) and os.path.exists(os.path.join(out, "trace.dat")):
        cmd = [session, os.path.join(out, "trace.dat"), "--out", os.path.join(out, "session.json")]
        if os.path.exists(plugin):
            cmd += ["--plugin", plugin]
        subprocess.run(cmd, capture_output=True)
    plots = os.path.join(TOP, "analysis", "plots.sh")
    if os.access(plots, os.X_OK) and os.path.isdir(os.path.join(out, "tsv")):
        subprocess.run([plots, out], capture_output=True)
    return res


def print_summary(res, out, top):
    rel = os.path.relpath(out)
    n = {s: sum(1 for c in res["checks"] if c["status"] == s)
         for s in ("pass", "fail", "xfail", "xpass", "unmeasurable")}
    print(f"run: {res['topology']} / {res['scenario']} / mode {res['mode']} / "
          f"{res['kernel']} {res['kernel_release']}")
    for c in res["checks"]:
        if c["status"] != "pass":
            why = f" ({c['reason']})" if c.get("reason") else ""
            print(f"  {c['status'].upper():12s} {c['name']}: {c['expectation']}, got {c['value']}{why}")
    verdict = "PASS" if res["pass"] else "FAIL"
    print(f"run: {verdict}: {n['pass']} pass, {n['fail']} fail, {n['xfail']} xfail, "
          f"{n['xpass']} xpass, {n['unmeasurable']} unmeasurable; wall {res['metrics'].get('wall_s')} s")
    print(f"run: results in {rel}/ (result.json, console.log, trace.dat)")
    print(f"run: trace: trace-cmd report {rel}/trace.dat | less;  KernelShark: make view OUT={rel}")


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    out = argv[1]
    try:
        topo = topology.load(os.path.join(out, "topology"))
        sc = scn.load(os.path.join(out, "scenario.sh"))
    except (topology.TopologyError, scn.ScenarioError) as e:
        print(f"collect: {e}", file=sys.stderr)
        return 2
    old = json.loads(read(os.path.join(out, "result.json"), "{}") or "{}")
    # OUT keeps copies named "topology" and "scenario.sh": the names come
    # from the run's own result.json.
    topo["name"] = old.get("topology", topo["name"])
    sc["name"] = old.get("scenario", sc["name"])
    res = collect(out, topo, sc, old.get("mode", "?"), old.get("kernel", "?"), old.get("variant", "lab"),
                  old.get("metrics", {}).get("wall_s"))
    print_summary(res, out, TOP)
    return 0 if res["pass"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
