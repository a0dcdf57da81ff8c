#!/usr/bin/env python3
"""Turn a run's OUT directory into result.json (the run contract in DESIGN.md).

Metrics come from plain files the guest left (vmstat snapshots, the guest's
topology view, workload reports, console.log) and from the trace analyser
(build/bin/dpanalyze) when it is built.  Checks are the scenario's #CHECK#
lines and every run's own (dplab.checks: IMPLICIT, topology_matches,
data_intact, guest_finished or crashed_as_requested), judged there: each
gets status pass, fail, xfail (with its reason), xpass or unmeasurable.  The
run passes when no check has an unexpected result; an unmeasurable check
whose `when` precondition did not hold (precondition_met false) is none:
the run could not judge that claim.

  collect.py OUT     re-collect an existing results directory

Re-collecting applies today's analyser and checks to the run's own records:
the lab commit (OUT/lab.json, OUT/lab.diff), the host (OUT/host.json) and
the kernel's .config (OUT/kernel.config), all written by run.py at run time.
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
# The rules live in the dplab package: checks are judged by dplab.checks
# alone, the console by dplab.console; this file assembles result.json.
from dplab.checks import (TOPOLOGY_CHECK, crash_check, data_check, evaluate, implicit,  # noqa: E402
                          skipped, unexpected, unfinished_check)
from dplab.console import console_report, last_console_line  # noqa: E402
from dplab.contract import TOP, kernel_obj_dir  # noqa: E402
from dplab.files import job_env, read, run_record  # noqa: E402



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


def kswapd_cpu(out):
    """Each kswapd's CPU seconds between the guest's snapshots (OUT/kswapd.
    {before,after}: a clk_tck line, then "kswapdN ticks pid"), as
    {"nodeN_s": ..., "total_s": ...}; None without both snapshots.  A kswapd
    whose pid changed in between was stopped and started again (a node's
    memory offlined and onlined): the new thread's ticks start from 0 and
    the old one's last are gone, so that node's time is unknown (null, the
    node named under "restarted"), and so is the total.  Snapshots without
    the pid (older runs) are read as before."""
    def ticks(when):
        t, pids = {}, {}
        for line in read(os.path.join(out, f"kswapd.{when}")).splitlines():
            w = line.split()
            if len(w) in (2, 3) and all(x.isdigit() for x in w[1:]):
                t[w[0]] = int(w[1])
                if len(w) == 3:
                    pids[w[0]] = w[2]
        return t, pids
    (before, pid0), (after, pid1) = ticks("before"), ticks("after")
    hz = after.pop("clk_tck", 0)
    before.pop("clk_tck", None)
    if not hz or not after:
        return None
    cpu, restarted = {}, []
    for name, t in sorted(after.items()):
        m = re.fullmatch(r"kswapd(\d+)", name)
        if m and name in before:
            node = f"node{m.group(1)}"
            if name in pid0 and name in pid1 and pid0[name] != pid1[name]:
                cpu[f"{node}_s"] = None
                restarted.append(node)
            else:
                cpu[f"{node}_s"] = round((t - before[name]) / hz, 2)
    if not cpu:
        return None
    cpu["total_s"] = None if restarted else round(sum(cpu.values()), 2)
    if restarted:
        cpu["restarted"] = restarted
    return cpu


def parse_meminfo(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"Node \d+ (\S+):\s+(\d+)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def data_section(out, reports):
    """metrics.data: the end-of-run verification of every file a dirtier
    wrote (verify-NAME.json from guest-lib's verify_report), summed.  Names
    are stable: files_verified, bytes_verified, blocks_verified, bad_blocks,
    files_missing, files_unverified, bytes_excluded (_lost: the writer saw an
    error there; _unsynced: no fsync confirmed it), excluded_bad_blocks,
    scope, files.NAME.*, unverified [names]."""
    verifies = {}
    for p in sorted(glob.glob(os.path.join(out, "verify-*.json"))):
        try:
            with open(p, encoding="utf-8") as f:
                verifies[os.path.basename(p)[7:-5]] = json.load(f)
        except (OSError, ValueError):
            verifies[os.path.basename(p)[7:-5]] = None
    writers = [k for k, v in reports.items() if isinstance(v, dict) and v.get("program") == "dirtier"
               and v.get("verify") != "only"]
    if not writers and not verifies:
        return None
    d = {"files_verified": 0, "bytes_verified": 0, "blocks_verified": 0, "bad_blocks": 0,
         "files_missing": 0, "files_unverified": 0, "bytes_excluded": 0, "bytes_excluded_lost": 0,
         "bytes_excluded_unsynced": 0, "excluded_bad_blocks": 0, "scope": None, "files": {},
         "unverified": []}
    scopes = set()
    for name, v in verifies.items():
        if not v or v.get("verify") != "only":
            d["unverified"].append(name)
            continue
        scopes.add(v.get("verify_scope"))
        d["files_verified"] += 1
        d["files_missing"] += int(bool(v.get("verify_missing")))
        d["bytes_verified"] += v.get("verify_bytes", 0)
        d["blocks_verified"] += v.get("verify_blocks", 0)
        d["bad_blocks"] += v.get("verify_bad_blocks", 0)
        lost, uns = v.get("verify_excluded_lost_bytes", 0), v.get("verify_excluded_unsynced_bytes", 0)
        d["bytes_excluded_lost"] += lost
        d["bytes_excluded_unsynced"] += uns
        d["bytes_excluded"] += lost + uns
        d["excluded_bad_blocks"] += v.get("verify_excluded_bad_blocks", 0)
        d["files"][name] = {k: v.get("verify_" + k) for k in (
            "scope", "bytes", "blocks", "bad_blocks", "first_bad_offset_bytes", "missing",
            "excluded_bad_blocks", "excluded_lost_bytes", "excluded_unsynced_bytes")}
        d["files"][name]["file"] = v.get("file")
    d["unverified"] += [w for w in writers if w not in verifies]
    d["files_unverified"] = len(d["unverified"])
    d["scope"] = "/".join(sorted(s for s in scopes if s)) or None
    log = read(os.path.join(out, "verify.log.err")).strip().splitlines()
    if log:
        d["errors"] = log[:10]
    return d


def analyse_trace(out, nnodes, tasks=()):
    """Trace metrics from the analyser, when it is built and a trace exists.
    tasks: the scenario's TRACE_TASKS, task names whose own
    balance_dirty_pages() entries are counted (0 when they never entered)."""
    tool = os.path.join(TOP, "build", "bin", "dpanalyze")
    trace = os.path.join(out, "trace.dat")
    if not os.path.exists(trace):
        return None, "no trace.dat"
    if not os.access(tool, os.X_OK):
        return None, "analyser not built (make analysis)"
    tjson = os.path.join(out, "trace-metrics.json")
    cmd = [tool, trace, "--out", out, "--json", tjson, "--nodes", str(nnodes)]
    for t in tasks:
        cmd += ["--task", t]
    r = subprocess.run(cmd, capture_output=True, text=True)
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


def disk_section(out, trace):
    """The test disk's QEMU write throttle as it was applied (qemu.cmd: the
    topology's, the scenario's DISK_WRITE_BPS, run.py's --disk-write-bps or
    --slow-motion), and the trace's bandwidth figures against it, so checks
    can be written relative to whatever throttle the run had."""
    m = re.search(r"throttling\.bps-write=(\d+)", read(os.path.join(out, "qemu.cmd")))
    if not m:
        return None
    bps = int(m.group(1))
    d = {"write_bps": bps, "write_kBps": bps / 1024}
    bw = (trace or {}).get("bandwidth") or {}
    for key, src in (("estimate_to_throttle", "avg_write_bw_final_kBps"),
                     ("device_to_throttle", "device_write_kBps")):
        v = bw.get(src)
        if bps and isinstance(v, (int, float)) and not isinstance(v, bool):
            d[key] = round(v / (bps / 1024), 4)
    return d


def kernel_has(out, kernel, variant, option):
    """Whether the .config the run's kernel was built from sets option=y:
    OUT/kernel.config, which run.py copies at run time.  A run from before it
    did has only the build's .config, which a rebuild since may have changed:
    that is read instead, and said on stderr."""
    kept = os.path.join(out, "kernel.config")
    if os.path.exists(kept):
        config = read(kept)
    else:
        build = os.path.join(kernel_obj_dir(kernel, variant), ".config")
        print(f"collect: {out} has no kernel.config (a run from before run.py kept one): "
              f"{option} read from {os.path.relpath(build, TOP)}, which a rebuild since the run may have changed",
              file=sys.stderr)
        config = read(build)
    return f"\n{option}=y\n" in "\n" + config


def node_metrics(out, topo):
    """Each node's vmstat delta and meminfo before and after, by node id."""
    nodes = {}
    for nid in sorted(topo.nodes):
        nd = {}
        dd = vmstat_delta(out, f"node{nid}.vmstat")
        if dd is not None:
            nd["vmstat_delta"] = dd
        for when in ("before", "after"):
            mi = parse_meminfo(read(os.path.join(out, f"node{nid}.meminfo.{when}")))
            if mi:
                nd[f"meminfo_{when}_kb"] = mi
        nodes[str(nid)] = nd
    return nodes


def console_metrics(con):
    problems = con["problems"]
    return {"problems": len(problems), "first": problems[:10],
            "oom_reports": con["oom_reports"], "requested_crash": con["requested_crash"],
            "expected_lines": con["expected_lines"],
            "kcsan_elsewhere": len(con["kcsan_elsewhere"]),
            "kcsan_elsewhere_first": con["kcsan_elsewhere"][:10]}


def workload_reports(out):
    """The workloads' --report JSONs (OUT/report-NAME.json), by NAME."""
    reports = {}
    for p in sorted(glob.glob(os.path.join(out, "report-*.json"))):
        key = os.path.basename(p)[7:-5]
        try:
            with open(p, encoding="utf-8") as f:
                reports[key] = json.load(f)
        except (OSError, ValueError):
            reports[key] = {"error": "unreadable report"}
    return reports


def run_checks(out, sc, metrics, mode, kernel, con, data):
    """result.json's checks: the implicit ones, the scenario's, and those
    of the run itself (data, topology, a crash or an unfinished guest)."""
    crashed = con["crash_requested"]
    # workload_exit and kernel_clean lead every run's list (checks.IMPLICIT),
    # unless the scenario writes its own: a record from before.
    checks = evaluate(implicit(sc.checks, crashed), metrics, {"mode": mode, "kernel": kernel})
    if data is not None and not any(c.name == "data_intact" for c in sc.checks):
        checks.append(data_check(data))
    if not any(c.metric == TOPOLOGY_CHECK.metric for c in sc.checks):
        checks += evaluate([TOPOLOGY_CHECK], metrics)
    if crashed:
        checks.append(crash_check(con["requested_crash"], last_console_line(out)))
    elif "done" not in read(os.path.join(out, "guest-status")):
        checks.append(unfinished_check(last_console_line(out)))
    return checks


def derive_views(out):
    """What KernelShark and the plots read: session.json, OUT/plots."""
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


def run_metrics(out, topo, sc, kernel, variant, wall_s):
    """result.json's metrics from OUT, with the console triage and the data
    verification they came from: (metrics, console report, data or None)."""
    metrics = {}
    d = vmstat_delta(out, "vmstat")
    if d is not None:
        metrics["vmstat_delta"] = d
    metrics["nodes"] = node_metrics(out, topo)
    kc = kswapd_cpu(out)
    if kc is not None:
        metrics["kswapd_cpu"] = kc

    view = os.path.join(out, "guest-topology.txt")
    mism = topology.check_guest(topo, topology.parse_guest_view(view),
                                kasan=kernel_has(out, kernel, variant, "CONFIG_KASAN")) \
        if os.path.exists(view) else ["guest wrote no topology view"]
    metrics["topology"] = {"mismatches": len(mism), "details": mism}

    con = console_report(out)
    metrics["console"] = console_metrics(con)
    ex = read(os.path.join(out, "workload-exit")).strip()
    metrics["workload"] = {"exit": int(ex) if ex.lstrip("-").isdigit() else None}
    reports = workload_reports(out)
    if reports:
        metrics["workloads"] = reports
    crashed = con["crash_requested"]
    data = None if crashed else data_section(out, reports)
    if data is not None:
        metrics["data"] = data
    elif crashed and any(isinstance(v, dict) and v.get("program") == "dirtier" for v in reports.values()):
        metrics["data"] = {"excluded": "requested crash: a later boot on this disk verifies what was synced"}
    extra = os.path.join(out, "guest-metrics.json")
    if os.path.exists(extra):
        try:
            with open(extra, encoding="utf-8") as f:
                metrics["guest"] = json.load(f)
        except ValueError:
            metrics["guest"] = {"error": "unreadable guest-metrics.json"}
    tm, why = analyse_trace(out, len(topo.nodes), sc.vars.get("TRACE_TASKS", "").split())
    if tm is not None:
        metrics["trace"] = tm
    else:
        metrics["trace_unavailable"] = why
    disk = disk_section(out, tm)
    if disk is not None:
        metrics["disk"] = disk
    if wall_s is not None:
        metrics["wall_s"] = round(wall_s, 2)
    boot = re.search(r"\[\s*([\d.]+)s\] userspace up", read(os.path.join(out, "console.log")))
    if boot:
        metrics["boot_to_userspace_guest_s"] = float(boot.group(1))
    return metrics, con, data


def collect(out, topo, sc, mode, kernel, variant, wall_s=None):
    """Judge the run in OUT: write OUT/result.json (and the views derived
    from the trace) and return it."""
    metrics, con, data = run_metrics(out, topo, sc, kernel, variant, wall_s)
    checks = run_checks(out, sc, metrics, mode, kernel, con, data)
    slow = job_env(out).get("SLOW_MOTION", "1")
    # The lab commit and the host are the run's, recorded by run.py before
    # the boot; a run from before those records keeps what its last
    # result.json said (None when it said nothing), never today's.
    lab, host = run_record(out, "lab.json"), run_record(out, "host.json")
    previous = run_record(out, "result.json") or {}
    res = {
        "topology": topo.name, "topology_description": topo.description,
        "scenario": sc.name, "claim": sc.vars.get("CLAIM", ""),
        # a baseline of that scenario (same workload, tuning without the series)
        **({"baseline_of": sc.vars["BASELINE_OF"]} if sc.vars.get("BASELINE_OF") else {}),
        "mode": mode, "kernel": kernel, "variant": variant,
        # run.py's --slow-motion: a disk N times slower, phases N times longer
        "slow_motion": int(slow) if slow.isdigit() else None,
        "kernel_release": read(os.path.join(out, "kernel-release")).strip() or None,
        # what the kernel was built from (kernel.sh's record, kept by run.py):
        # source, version, series file, patches, patchset_hash, config fragments
        **({"kernel_source": ks} if (ks := run_record(out, "kernel-source.json") or
                                      previous.get("kernel_source")) else {}),
        "lab_commit": lab["lab_commit"] if isinstance(lab, dict) else previous.get("lab_commit"),
        # hostname, cpu_model, online_cpus, usable_cpus, memory_total_kb,
        # qemu_version, accelerator (kvm|tcg), accelerator_requested (auto|kvm|tcg),
        # accelerator_reason, loadavg_start (run.py's record_host)
        "host": host if isinstance(host, dict) else previous.get("host"),
        "metrics": metrics, "checks": checks,
        "pass": not any(unexpected(c) for c in checks),
    }
    with open(os.path.join(out, "result.json.tmp"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(os.path.join(out, "result.json.tmp"), os.path.join(out, "result.json"))
    derive_views(out)
    return res


def print_summary(res, out, top):
    rel = os.path.relpath(out)
    n = {s: sum(1 for c in res["checks"] if c["status"] == s and not skipped(c))
         for s in ("pass", "fail", "xfail", "xpass", "unmeasurable")}
    n["skip"] = sum(1 for c in res["checks"] if skipped(c))
    print(f"run: {res['topology']} / {res['scenario']} / mode {res['mode']} / "
          f"{res['kernel']} {res['kernel_release']}")
    for c in res["checks"]:
        if skipped(c):
            print(f"  {'SKIP':12s} {c['name']}: unmeasurable: {c['reason']}")
        elif c["status"] != "pass":
            why = f" ({c['reason']})" if c.get("reason") else ""
            print(f"  {c['status'].upper():12s} {c['name']}: {c['expectation']}, got {c['value']}{why}")
    verdict = "PASS" if res["pass"] else "FAIL"
    print(f"run: {verdict}: {n['pass']} pass, {n['fail']} fail, {n['xfail']} xfail, "
          f"{n['xpass']} xpass, {n['unmeasurable']} unmeasurable, "
          f"{n['skip']} unmeasurable by precondition (skip); wall {res['metrics'].get('wall_s')} s")
    print(f"run: results in {rel}/ (result.json, console.log, trace.dat)")
    print(f"run: trace: trace-cmd report {rel}/trace.dat | less;  KernelShark: make view OUT={rel}")


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    out = argv[1]
    try:
        topo = topology.load(os.path.join(out, "topology"))
        # a record from before #CHECK# has live check lines: still read
        # and its lib files as the run had them (OUT/scenario-lib/), when it kept them
        sc = scn.load(os.path.join(out, "scenario.sh"), legacy=True,
                      lib_dir=os.path.join(out, "scenario-lib"))
    except (topology.TopologyError, scn.ScenarioError) as e:
        print(f"collect: {e}", file=sys.stderr)
        return 2
    old = json.loads(read(os.path.join(out, "result.json"), "{}") or "{}")
    # OUT keeps copies named "topology" and "scenario.sh": the names come
    # from the run's own result.json.
    topo.name = old.get("topology", topo.name)
    sc.name = old.get("scenario", sc.name)
    res = collect(out, topo, sc, old.get("mode", "?"), old.get("kernel", "?"), old.get("variant", "lab"),
                  old.get("metrics", {}).get("wall_s"))
    print_summary(res, out, TOP)
    return 0 if res["pass"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
