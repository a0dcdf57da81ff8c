#!/usr/bin/env python3
"""Turn a run's OUT directory into result.json (the run contract in DESIGN.md).

Metrics come from plain files the guest left (vmstat snapshots, the guest's
topology view, workload reports, console.log) and from the trace analyser
(build/bin/dpanalyze) when it is built.  Checks are the scenario's `check`
lines plus none else; each gets status pass, fail, xfail (with its reason) or
unmeasurable.  The run passes when no check has an unexpected result; an
unmeasurable check whose `when` precondition did not hold (precondition_met
false) is none: the run could not judge that claim.

  collect.py OUT     re-collect an existing results directory

Re-collecting applies today's analyser and checks to the run's own records:
the lab commit (OUT/lab.json, OUT/lab.diff), the host (OUT/host.json) and
the kernel's .config (OUT/kernel.config), all written by run.py at run time.
"""
import bisect
import glob
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario as scn  # noqa: E402
import topology  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lab_state(repo=TOP):
    """The lab checkout's commit: {"lab_commit": short hash, with
    '+uncommitted changes' when tracked files differ from it, "commit": the
    full hash, "dirty": whether they differ}.  None outside a git checkout."""
    try:
        full = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        short = subprocess.run(["git", "-C", repo, "rev-parse", "--short", "HEAD"], capture_output=True,
                               text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip() != ""
    except OSError:
        return None
    if not full:
        return None
    return {"lab_commit": short + ("+uncommitted changes" if dirty else ""), "commit": full, "dirty": dirty}


def lab_commit():
    """The checkout's lab_commit now (see lab_state); None outside git.  A
    run's own is recorded by run.py in OUT/lab.json and read from there."""
    state = lab_state()
    return state["lab_commit"] if state else None


def run_record(out, name):
    """OUT/name, a JSON record run.py wrote at run time, or None when the run
    has none (it is from before run.py wrote it) or it is unreadable."""
    try:
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

# Console lines that end a run as a failure, whatever the checks say.  Lockdep
# reports by their headlines: a bare "lockdep" also matched stack frames such
# as " ? lockdep_hardirqs_on_prepare" inside an expected OOM report.
PROBLEMS = [
    r"Kernel panic", r"\bOops\b", r"BUG: ", r"WARNING: .* at ", r"------------\[ cut here \]",
    r"KASAN: ", r"UBSAN: ", r"KCSAN: ", r"possible circular locking", r"INFO: task .* blocked for more than",
    r"soft lockup", r"hard LOCKUP", r"rcu: INFO: .* stall", r"general protection fault",
    r"DEBUG_LOCKS_WARN_ON", r"INFO: lockdep is turned off", r"inconsistent lock state",
    r"possible recursive locking", r"suspicious RCU usage", r"Call Trace:",
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


def kswapd_cpu(out):
    """Each kswapd's CPU seconds between the guest's snapshots (OUT/kswapd.
    {before,after}: a clk_tck line, then "kswapdN ticks"), as
    {"nodeN_s": ..., "total_s": ...}; None without both snapshots."""
    def ticks(when):
        t = {}
        for line in read(os.path.join(out, f"kswapd.{when}")).splitlines():
            w = line.split()
            if len(w) == 2 and w[1].isdigit():
                t[w[0]] = int(w[1])
        return t
    before, after = ticks("before"), ticks("after")
    hz = after.pop("clk_tck", 0)
    before.pop("clk_tck", None)
    if not hz or not after:
        return None
    cpu = {}
    for name, t in sorted(after.items()):
        m = re.fullmatch(r"kswapd(\d+)", name)
        if m and name in before:
            cpu[f"node{m.group(1)}_s"] = round((t - before[name]) / hz, 2)
    if not cpu:
        return None
    cpu["total_s"] = round(sum(cpu.values()), 2)
    return cpu


def parse_meminfo(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"Node \d+ (\S+):\s+(\d+)", line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def job_env(out):
    """OUT/job.env, what run.py gave the guest, as a dict ({} if absent)."""
    env = {}
    for line in read(os.path.join(out, "job.env")).splitlines():
        k, _, v = line.partition("=")
        try:
            env[k] = " ".join(shlex.split(v)) if v else ""
        except ValueError:
            env[k] = v
    return env


def last_console_line(out):
    lines = [ln for ln in read(os.path.join(out, "console.log")).splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "(console empty)"


# Reports the kernel prints on purpose.  Inside them only the lines listed
# here are expected; any other problem line still counts.
#  - OOM: "X invoked oom-killer:" ... "Killed process": its stack dump.
#  - A crash the scenario asked for (guest-lib's crash(): OUT/crash-requested
#    and "dplab: crash requested" on the console, then sysrq c): from
#    "sysrq: Trigger a crash" on, the panic and its stack dump.
_OOM_START = re.compile(r"invoked oom-killer: ")
_OOM_END = re.compile(r"(Out of memory|Memory cgroup out of memory): Killed process")
_OOM_EXPECTED = re.compile(r"Call Trace:")
_CRASH_MARK = re.compile(r"dplab: crash requested")
_CRASH_START = re.compile(r"sysrq: Trigger a crash")
_CRASH_PANIC = re.compile(r"Kernel panic - not syncing: sysrq triggered crash")
_CRASH_EXPECTED = re.compile(r"Kernel panic - not syncing: sysrq triggered crash|Call Trace:")
# A KCSAN report runs from "BUG: KCSAN: data-race in A / B" to its closing
# rule of '='.  It is a problem of the run when it is a race on the series'
# pressure state: an access's own function (the first frame under its
# "read/write to ADDR" line) is the series' (mm/dirty_pressure.c:
# dirty_pressure_*, dp_*), or ADDR is inside one of the series' variables
# (dp_state, dp_recovery, ...; from the run's System.map).  A frame of ours
# deeper in the stack does not make it ours: under KCSAN_STRICT 6.1 reports
# ktime_get_mono_fast_ns() reading tk_fast_mono inside its seqcount latch
# ("race at unknown origin"), called from dp_now(), and KCSAN only learned
# latch readers in 6.13.  Those, and 6.1's other known races (the tick
# code's, every run under TCG), are counted and quoted in
# metrics.console.kcsan_elsewhere, not failed.
_KCSAN_START = re.compile(r"BUG: KCSAN: ")
_KCSAN_END = re.compile(r"^(\[[ .0-9]+\] )?={20,}\s*$")
_KCSAN_OURS = re.compile(r"^(dirty_pressure\w*|dp_\w+)$")
_KCSAN_ACCESS = re.compile(r"\b(?:read-write|read|write)(?: \([a-z]+\))* to (0x[0-9a-f]+) of \d+ bytes by ")
_KCSAN_FRAME = re.compile(r"^(?:\[[ .0-9]+\])?\s+([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")


def load_symbols(path):
    """Data symbols of a System.map as a sorted list of (address, name);
    [] when there is none."""
    syms = []
    for ln in read(path).splitlines():
        f = ln.split()
        if len(f) == 3 and f[1] in "bBdDrR" and re.fullmatch(r"[0-9a-f]+", f[0]):
            syms.append((int(f[0], 16), f[2]))
    syms.sort()
    return syms


def symbolize(syms, addr):
    """NAME+0xOFF of the data symbol at or below addr, or None."""
    i = bisect.bisect_right(syms, (addr, chr(0x10ffff)))
    if i == 0 or addr - syms[i - 1][0] >= 1 << 16:
        return None
    base, name = syms[i - 1]
    return f"{name}+{addr - base:#x}"


def kcsan_accesses(block, syms):
    """[(function, data)] of a KCSAN report's accesses: the function making
    each access and its address, symbolized when the map knows it."""
    acc = []
    for i, ln in enumerate(block):
        m = _KCSAN_ACCESS.search(ln)
        if not m:
            continue
        fn = next((f.group(1) for f in map(_KCSAN_FRAME.match, block[i + 1:i + 4]) if f), "?")
        addr = int(m.group(1), 16)
        acc.append((fn, symbolize(syms, addr) or m.group(1)))
    return acc


def kcsan_is_ours(acc):
    """A report whose accesses could not be read counts as ours: a format
    this parser does not know must not hide a race."""
    return not acc or any(_KCSAN_OURS.match(fn) or _KCSAN_OURS.match(data.split("+")[0]) for fn, data in acc)


def console_report(out):
    """Problem lines of the console, less what an OOM report or a requested
    crash prints by design: {problems: [...], oom_reports, requested_crash,
    expected_lines, kcsan_elsewhere}.  OUT/System.map, when run.py kept
    one, names the data a KCSAN report raced on."""
    lines = read(os.path.join(out, "console.log")).splitlines()
    syms = None
    requested = os.path.exists(os.path.join(out, "crash-requested"))
    crash_from = None
    if requested:
        marked = False
        for i, ln in enumerate(lines):
            if _CRASH_MARK.search(ln):
                marked = True
            elif marked and _CRASH_START.search(ln):
                if any(_CRASH_PANIC.search(x) for x in lines[i:]):
                    crash_from = i
                break
    problems, expected, ooms, in_oom = [], 0, 0, False
    kcsan_elsewhere, kcsan_skip = [], set()
    for i, ln in enumerate(lines):
        if not _KCSAN_START.search(ln):
            continue
        end = next((j for j in range(i + 1, len(lines)) if _KCSAN_END.search(lines[j])), len(lines))
        if syms is None:
            syms = load_symbols(os.path.join(out, "System.map"))
        acc = kcsan_accesses(lines[i:end], syms)
        if not kcsan_is_ours(acc):
            what = "; ".join(f"{fn} on {data}" for fn, data in acc)
            kcsan_elsewhere.append(ln.strip() + (f" (accesses: {what})" if what else ""))
            kcsan_skip.update(range(i, end))
    for i, ln in enumerate(lines):
        if i in kcsan_skip:
            continue
        if _OOM_START.search(ln):
            in_oom, ooms = True, ooms + 1
        elif _OOM_END.search(ln):
            in_oom = False
        if not _PROBLEM.search(ln):
            continue
        if (in_oom and _OOM_EXPECTED.search(ln)) or \
                (crash_from is not None and i >= crash_from and _CRASH_EXPECTED.search(ln)):
            expected += 1
            continue
        problems.append(ln.strip())
    return {"problems": problems, "oom_reports": ooms,
            "requested_crash": int(crash_from is not None), "crash_requested": int(requested),
            "expected_lines": expected, "kcsan_elsewhere": kcsan_elsewhere}


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
    res = []
    for c in checks:
        if not applies(c, run or {}):
            continue
        v = lookup(metrics, c["metric"])
        expect = f"{c['metric']} {c['op']} {num(c['value'])}"
        r = {"name": c["name"], "value": v, "expectation": expect}
        when = c.get("when") or []
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
                     reason=f"metric {c['metric']} not in this run" + analyser_why(metrics, c["metric"]) +
                            (f" (precondition {r['precondition']} met)" if when else ""))
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
    return check["status"] in ("fail", "xpass", "unmeasurable")


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


def kernel_obj_dir(kernel, variant):
    """build/KERNEL/obj (VARIANT lab) or build/KERNEL/obj-VARIANT."""
    obj = "obj" + ("" if variant in (None, "lab") else f"-{variant}")
    return os.path.join(TOP, "build", kernel or "patched", obj)


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
    kc = kswapd_cpu(out)
    if kc is not None:
        metrics["kswapd_cpu"] = kc

    view = os.path.join(out, "guest-topology.txt")
    mism = topology.check_guest(topo, topology.parse_guest_view(view),
                                kasan=kernel_has(out, kernel, variant, "CONFIG_KASAN")) \
        if os.path.exists(view) else ["guest wrote no topology view"]
    metrics["topology"] = {"mismatches": len(mism), "details": mism}

    con = console_report(out)
    problems = con["problems"]
    metrics["console"] = {"problems": len(problems), "first": problems[:10],
                          "oom_reports": con["oom_reports"], "requested_crash": con["requested_crash"],
                          "expected_lines": con["expected_lines"],
                          "kcsan_elsewhere": len(con["kcsan_elsewhere"]),
                          "kcsan_elsewhere_first": con["kcsan_elsewhere"][:10]}
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
    tm, why = analyse_trace(out, len(topo["nodes"]), sc["vars"].get("TRACE_TASKS", "").split())
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

    # workload_exit and kernel_clean lead every run's list (scenario.py's
    # IMPLICIT), unless the scenario writes its own: a record from before.
    checks = evaluate(scn.implicit(sc["checks"], crashed), metrics, {"mode": mode, "kernel": kernel})
    if data is not None and not any(c["name"] == "data_intact" for c in sc["checks"]):
        checks.append(data_check(data))
    # Every run checks the guest's view of its topology, not just smoke:
    # a scenario's numbers mean nothing on the wrong NUMA layout.
    if not any(c["metric"] == "topology.mismatches" for c in sc["checks"]):
        checks += evaluate([{"name": "topology_matches", "metric": "topology.mismatches", "op": "==",
                             "value": 0, "xfail": None}], metrics)
    status = read(os.path.join(out, "guest-status"))
    if crashed:
        # The scenario asked for the crash: the run ends there, and it must
        # have ended in exactly that panic.
        ok = bool(con["requested_crash"])
        c = {"name": "crashed_as_requested", "value": con["requested_crash"],
             "expectation": "console: 'dplab: crash requested', then the sysrq panic",
             "passed": ok, "status": "pass" if ok else "fail"}
        if not ok:
            c["reason"] = f"no sysrq panic after the request; last console line: {last_console_line(out)!r}"
        checks.append(c)
    elif "done" not in status:
        checks.append({"name": "guest_finished", "value": 0, "expectation": "guest-status says done",
                       "passed": False, "status": "fail",
                       "reason": f"guest did not finish; last console line: {last_console_line(out)!r}"})
    slow = job_env(out).get("SLOW_MOTION", "1")
    # The lab commit and the host are the run's, recorded by run.py before
    # the boot; a run from before those records keeps what its last
    # result.json said (None when it said nothing), never today's.
    lab, host = run_record(out, "lab.json"), run_record(out, "host.json")
    previous = run_record(out, "result.json") or {}
    res = {
        "topology": topo["name"], "topology_description": topo["description"],
        "scenario": sc["name"], "claim": sc["vars"].get("CLAIM", ""),
        # a baseline of that scenario (same workload, tuning without the series)
        **({"baseline_of": sc["vars"]["BASELINE_OF"]} if sc["vars"].get("BASELINE_OF") else {}),
        "mode": mode, "kernel": kernel, "variant": variant,
        # run.py's --slow-motion: a disk N times slower, phases N times longer
        "slow_motion": int(slow) if slow.isdigit() else None,
        "kernel_release": read(os.path.join(out, "kernel-release")).strip() or None,
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
    topo["name"] = old.get("topology", topo["name"])
    sc["name"] = old.get("scenario", sc["name"])
    res = collect(out, topo, sc, old.get("mode", "?"), old.get("kernel", "?"), old.get("variant", "lab"),
                  old.get("metrics", {}).get("wall_s"))
    print_summary(res, out, TOP)
    return 0 if res["pass"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
