#!/usr/bin/env python3
"""A matrix's report from its cells' result.json files: DIR/report.md and
DIR/report.html (plots inline), DIR/plots/ab-<scenario>.png.

  report.py DIR [--out DEST]   DIR holds one directory per cell (results/<matrix>/);
                               DEST (default DIR) gets report.md, report.html, plots/
                               (--out docs/matrix keeps a report in the repository)

Every number comes from a result.json (a cell that hung has cell.json only,
written by matrix.py); a metric a cell does not have is "n/a".  Repeated
cells (names ending -rN) are summarised as median with min..max.  Each
cell's host and QEMU accelerator (result.json "host", else the run's
host.json) are in the cells table; two sides that ran under different
accelerators are never compared ("not compared: accelerators differ"), and a
bench comparison whose sides ran on different hosts says so.

Each cell's kernel version is its result.json kernel_source's (else its
cell.json kver, else its name's -k<version>, else 6.1).  When the cells ran
more than one version (make bench KVERS=6.1,6.12), the cells table says each
cell's, every cluster of the A/B tables, bench and baseline comparisons
holds one version (topology/linux-<version>), and the one comparison across
versions is "Kernel versions": each kernel/mode on a later version against
itself on the earliest.
"""
import base64
import datetime
import functools
import glob
import html
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402
# verdict_of, failing_names and read_json are also report.NAME for the
# scripts and tests that call them so
from dplab.checks import failing_names, skipped, verdict_of  # noqa: E402,F401
# COLUMNS: the sides of an A/B table, the three modes of the series, then the stock kernel
from dplab.contract import (COLUMNS, DEFAULT_KVER, MODES, TOP, kver_of, lab_commit,  # noqa: E402,F401
                            parse_cell_name)
from dplab.files import job_env, read, read_json  # noqa: E402

GNUPLOT_AB = os.path.join(TOP, "launch", "report", "ab.gp")
GNUPLOT_VS_STOCK = os.path.join(TOP, "launch", "report", "vs-stock.gp")


# ---- metrics: each a function of result.json's "metrics" ------------------

def _num(v):
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _get(m, path):
    for p in path.split("."):
        if not isinstance(m, dict) or p not in m:
            return None
        m = m[p]
    return _num(m)


def file_pageout(m):
    # nr_vmscan_write counts every page reclaim wrote, anon (swap) included.
    w, s = _get(m, "vmstat_delta.nr_vmscan_write"), _get(m, "vmstat_delta.pswpout")
    return None if w is None or s is None else w - s


def allocstall(m):
    d = m.get("vmstat_delta")
    v = [_num(x) for k, x in d.items() if k.startswith("allocstall_")] if isinstance(d, dict) else []
    v = [x for x in v if x is not None]
    return sum(v) if v else None


def _workload_sum(m, keys):
    w = m.get("workloads")
    if not isinstance(w, dict):
        return None
    v = [_num(r.get(k)) for r in w.values() if isinstance(r, dict) for k in keys]
    v = [x for x in v if x is not None]
    return sum(v) if v else None


def _guest_sum(m, suffix):
    g = m.get("guest")
    v = [_num(x) for k, x in g.items() if k.endswith(suffix)] if isinstance(g, dict) else []
    v = [x for x in v if x is not None]
    return sum(v) if v else None


def throughput(m):
    # The workloads' reports; else what the scenario measured itself
    # (`metric <name>_bw_bytes_per_s ...` in the guest).
    v = _workload_sum(m, ("bw_bytes_per_s",))
    if v is None:
        v = _guest_sum(m, "bw_bytes_per_s")
    return None if v is None else v / 2**20


def files_per_s(m):
    # smallfiles: `metric fs_mark_files_per_s` in the guest.
    v = _guest_sum(m, "files_per_s")
    return v if v is not None else _workload_sum(m, ("files_per_s",))


def reclaim_throttle_ms(m):
    # mm_vmscan_throttled's delays summed over the nodes (analysis: throttled.nodeN)
    t = (m.get("trace") or {}).get("throttled")
    v = [_num(x.get("delayed_ms")) for x in t.values() if isinstance(x, dict)] if isinstance(t, dict) else []
    v = [x for x in v if x is not None]
    return sum(v) if v else None


def _workload_max(m, key):
    # the largest of the workloads' reports' key (several writers: the worst)
    w = m.get("workloads")
    v = [_num(r.get(key)) for r in w.values() if isinstance(r, dict)] if isinstance(w, dict) else []
    v = [x for x in v if x is not None]
    return max(v) if v else None


def write_p99_ms(m):
    v = _workload_max(m, "write_lat_p99_us")
    return None if v is None else v / 1000


def hog_alloc_p99_ms(m):
    v = _get(m, "workloads.hog.alloc_lat_p99_us")
    return None if v is None else v / 1000


def hog_churn_p99_ms(m):
    # hog --churn: chunks given back and allocated again while the writer
    # runs (hog_alloc_p99's first touches come before it starts); a hog
    # without --churn reports 0 chunks, which is no latency
    if not _get(m, "workloads.hog.churn_chunks"):
        return None
    v = _get(m, "workloads.hog.churn_lat_p99_us")
    return None if v is None else v / 1000


def pages_per_bdp(m):
    # cost: every balance_dirty_pages() entry computes the global limits,
    # which trace global_dirty_state (a few more come from the flusher)
    p, n = _get(m, "guest.loop_pages_total"), _get(m, "trace.counts.global_dirty_state")
    return None if p is None or not n else p / n


# key, label, how it is computed (printed under the tables), function
METRICS = [
    ("file_pageout", "file pageout (pages)", "vmstat_delta.nr_vmscan_write - vmstat_delta.pswpout",
     file_pageout),
    ("immediate_reclaim", "immediate reclaim (pages)", "vmstat_delta.nr_vmscan_immediate_reclaim",
     lambda m: _get(m, "vmstat_delta.nr_vmscan_immediate_reclaim")),
    # what of that pageout really went to the disk (ext4 refuses delalloc folios from
    # reclaim; analysis/README.md); only runs that trace block:block_bio_queue have it
    ("reclaim_wb", "reclaim writeback (pages)", "trace.reclaim.kswapd_write.pages",
     lambda m: _get(m, "trace.reclaim.kswapd_write.pages")),
    ("pgscan_direct", "direct scans (pages)", "vmstat_delta.pgscan_direct",
     lambda m: _get(m, "vmstat_delta.pgscan_direct")),
    ("allocstall", "allocation stalls", "sum of vmstat_delta.allocstall_*", allocstall),
    ("hog_alloc_p99", "hog allocation p99 (ms)", "workloads.hog.alloc_lat_p99_us / 1000",
     hog_alloc_p99_ms),
    ("hog_churn_p99", "hog churn re-allocation p99 (ms)", "workloads.hog.churn_lat_p99_us / 1000",
     hog_churn_p99_ms),
    ("reclaim_throttle", "reclaim throttled (ms)", "sum of trace.throttled.nodeN.delayed_ms",
     reclaim_throttle_ms),
    ("kswapd_cpu", "kswapd CPU (s)", "kswapd_cpu.total_s", lambda m: _get(m, "kswapd_cpu.total_s")),
    ("oom_kill", "OOM kills", "vmstat_delta.oom_kill", lambda m: _get(m, "vmstat_delta.oom_kill")),
    ("throughput", "throughput (MiB/s)",
     "sum of workloads.*.bw_bytes_per_s (else of guest.*bw_bytes_per_s) / 2^20", throughput),
    ("pause_p99", "pause p99 (ms)", "trace.balance_dirty_pages.pause_p99_ms",
     lambda m: _get(m, "trace.balance_dirty_pages.pause_p99_ms")),
    # where a node domain held its task: 0 its freerun ceiling, 1 its limit (series patch 9)
    ("node_position", "node domain position (median call)", "trace.throttle.node_position_p50",
     lambda m: _get(m, "trace.throttle.node_position_p50")),
    # the same over the second half of its calls, once the node's rates settled
    ("node_position_late", "node domain position, settled (median late call)",
     "trace.throttle.node_position_late_p50",
     lambda m: _get(m, "trace.throttle.node_position_late_p50")),
    ("write_p99", "write() p99 (ms)", "largest workloads.*.write_lat_p99_us / 1000", write_p99_ms),
    # bound-elsewhere: the writer bound to the other node, the bystander of the squeeze
    ("bystander_MiBps", "bystander writer (MiB/s)", "guest.elsewhere_MiBps",
     lambda m: _get(m, "guest.elsewhere_MiBps")),
    ("files_per_s", "fs_mark files/s", "guest.fs_mark_files_per_s (sum of guest.*files_per_s)",
     files_per_s),
    # cost: the write() path below every limit (truncloop), its ratio is to stock
    ("ns_per_page", "write path ns per page", "guest.ns_per_page",
     lambda m: _get(m, "guest.ns_per_page")),
    ("pages_per_s", "pages dirtied per s", "guest.pages_per_s",
     lambda m: _get(m, "guest.pages_per_s")),
    # the same loop without the rounds a flusher or a timer landed in (truncloop's
    # mean of its fastest 90% of rounds); under ACCEL=icount, instructions x 8
    ("loop_ns_per_page", "write path ns per page, fastest 90% of rounds",
     "guest.round_ns_per_page_mean90", lambda m: _get(m, "guest.round_ns_per_page_mean90")),
    ("pages_per_bdp", "pages per balance_dirty_pages() entry",
     "guest.loop_pages_total / trace.counts.global_dirty_state", pages_per_bdp),
    # where the dirtier's life went (analysis/sched.c; runs that trace sched:sched_switch):
    # runnable but waiting for a CPU, and blocked (I/O, balance_dirty_pages() pauses).  A
    # writer that shares its CPU with the hog loses throughput the series did not take.
    ("dirtier_cpu_wait", "dirtier waiting for a CPU (share)", "trace.sched.task.dirtier.runnable_share",
     lambda m: _get(m, "trace.sched.task.dirtier.runnable_share")),
    ("dirtier_blocked", "dirtier blocked (share)", "trace.sched.task.dirtier.blocked_share",
     lambda m: _get(m, "trace.sched.task.dirtier.blocked_share")),
]
# Which way each metric is better, for the bench's verdicts: less reclaim
# meeting dirty pages, fewer scans, stalls and kills, shorter pauses and a
# cheaper write path are better; more throughput, files/s and pages dirtied
# per second are.  pages_per_bdp is higher-better: more pages between two
# balance_dirty_pages() entries is fewer entries, the series' cost lower.
BETTER = {"file_pageout": "lower", "immediate_reclaim": "lower", "reclaim_wb": "lower",
          "pgscan_direct": "lower", "allocstall": "lower", "oom_kill": "lower",
          "hog_alloc_p99": "lower", "hog_churn_p99": "lower", "reclaim_throttle": "lower", "kswapd_cpu": "lower",
          "write_p99": "lower", "bystander_MiBps": "higher",
          "throughput": "higher", "pause_p99": "lower", "node_position": "lower",
          "node_position_late": "lower",
          "files_per_s": "higher",
          "ns_per_page": "lower", "pages_per_s": "higher", "pages_per_bdp": "higher",
          "loop_ns_per_page": "lower",
          "dirtier_cpu_wait": "lower", "dirtier_blocked": "lower"}
# A metric added without its direction fails here, not as a silent verdict.
if set(BETTER) != {k for k, _, _, _ in METRICS} or not set(BETTER.values()) <= set(stats.DIRECTIONS):
    raise RuntimeError("report.py: BETTER must name the direction of every metric in METRICS")
# Measures of the series' own cost: against the stock kernel, not mode off.
VS_STOCK = ("ns_per_page", "pages_per_s", "pages_per_bdp", "loop_ns_per_page")
# Always in the A/B tables; the others only where some cell has them.
CORE = ("file_pageout", "immediate_reclaim", "pgscan_direct", "allocstall", "oom_kill",
        "throughput", "pause_p99")


# ---- cells ----------------------------------------------------------------

def fmt_check(c):
    st = c.get("status", "?")
    if skipped(c):
        return f"SKIP {c['name']}: unmeasurable: {c.get('reason', '')}"
    if st == "xfail":
        return f"XFAIL {c['name']}: {c.get('reason', '')}"
    if st == "unmeasurable":
        return f"UNMEASURABLE {c['name']}: {c.get('reason', '')}"
    return f"{st.upper()} {c['name']}: {c.get('expectation', '')}, got {fmt(c.get('value'))}"


@functools.lru_cache(maxsize=None)
def topology_names():
    """The topology files' names, which settle where a cell name's topology
    ends; read once per report."""
    try:
        return tuple(sorted(os.listdir(os.path.join(TOP, "topologies"))))
    except OSError:
        return ()


def load_cell(d):
    res, cj = read_json(os.path.join(d, "result.json")), read_json(os.path.join(d, "cell.json")) or {}
    if res is None and not cj:
        return None
    name = os.path.basename(d)
    src = res or cj
    c = {"name": name, "dir": d}
    for k in ("topology", "scenario", "mode", "kernel"):
        c[k] = src.get(k) or cj.get(k) or "?"
    c["variant"] = src.get("variant") or cj.get("variant") or "lab"
    # a cell without cell.json (a run kept from before it): its name's fields,
    # by the contract's one reading of cell names
    lru, rep = cj.get("lru") or job_env(d).get("LRU"), cj.get("repeat")
    # the kernel version: what kernel.sh recorded the cell's kernel was built
    # from; a cell that never finished has its cell.json's or its name's
    c["kernel_version"] = source_version(res)
    kver = kver_of(c["kernel_version"]) or cj.get("kver")
    if lru is None or rep is None or kver is None:
        named = parse_cell_name(name, topology_names()) or {}
        lru = lru or named.get("lru")
        rep = rep if rep is not None else named.get("repeat")
        kver = kver or named.get("kver")
    c["lru"], c["repeat"], c["kver"] = lru or "classic", rep, kver or DEFAULT_KVER
    c["kernel_image"] = cj.get("kernel_image")
    # the machine and accelerator the run had (run.py's host.json, carried
    # into result.json); a cell that never finished may still have host.json
    host = (res or {}).get("host")
    if not isinstance(host, dict):
        host = read_json(os.path.join(d, "host.json"))
    host = host if isinstance(host, dict) else {}
    c["hostname"], c["accelerator"] = host.get("hostname"), host.get("accelerator")
    notes = []
    if res is not None:
        c["verdict"] = verdict_of(res)
        c["metrics"] = res.get("metrics", {})
        c["release"] = res.get("kernel_release")
        c["lab_commit"] = res.get("lab_commit")
        c["baseline_of"] = res.get("baseline_of") or baseline_of_record(d)
        notes = [fmt_check(x) for x in res.get("checks", []) if x.get("status") != "pass"]
        c["wall_s"] = _num(c["metrics"].get("wall_s"))
        lg = read(os.path.join(d, "lru-gen"), None)
        if c["lru"] == "mglru" and lg is not None and lg.strip() in ("", "0x0000"):
            notes.append(f"NOTE lru_gen was not on in the guest ({lg.strip() or 'empty'})")
    else:
        c["verdict"] = cj.get("status", "ERROR")
        c["metrics"] = {}
        c["release"] = None
        c["lab_commit"] = None
        c["wall_s"] = _num(cj.get("elapsed_s"))
        notes = [cj.get("reason") or "no result.json"]
    c["notes"] = notes
    c["values"] = {k: f(c["metrics"]) for k, _, _, f in METRICS}
    return c


def source_version(res):
    """The kernel version result.json's kernel_source names (6.12.118), or None."""
    ks = (res or {}).get("kernel_source")
    src = ks.get("source") if isinstance(ks, dict) else None
    v = src.get("version") if isinstance(src, dict) else None
    return v if isinstance(v, str) and kver_of(v) else None


def kver_key(v):
    return tuple(int(x) for x in v.split(".") if x.isdigit())


def kvers_of(cells):
    """The kernel versions (major.minor) the cells ran, oldest first."""
    return sorted({c["kver"] for c in cells}, key=kver_key)


def baseline_of_record(d):
    """BASELINE_OF= of the scenario as the run had it (OUT/scenario.sh), for
    records collected before result.json carried baseline_of."""
    m = re.search(r'^BASELINE_OF="?([a-z0-9][a-z0-9_.-]*)"?\s*$', read(os.path.join(d, "scenario.sh")),
                  re.M)
    return m.group(1) if m else None


def load_cells(root):
    cells = []
    for d in sorted(glob.glob(os.path.join(root, "*"))):
        if os.path.isdir(d) and os.path.basename(d) != "plots":
            c = load_cell(d)
            if c:
                cells.append(c)
    return cells


# ---- numbers --------------------------------------------------------------

def fmt(v):
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int) or (isinstance(v, float) and v.is_integer() and abs(v) >= 1000):
        return str(int(v))
    if not isinstance(v, float):
        return str(v)
    a = abs(v)
    return f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 0.01 or a == 0 else f"{v:.2g}"


def summary(values):
    """median, min, max, n of the values present (None when there are none)."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    med = statistics.median(v)
    if all(isinstance(x, int) for x in v) and float(med).is_integer():
        med = int(med)      # counters stay whole numbers
    return med, min(v), max(v), len(v)


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_summary(s, of):
    if s is None:
        return "n/a"
    med, lo, hi, n = s
    txt = fmt(med)
    if of > 1:
        txt += f" ({fmt(lo)}..{fmt(hi)})" if n > 1 else ""
        if n < of:
            txt += f" [{n}/{of}]"
    return txt


def fmt_ratio(r, fine=False):
    """Two decimals; four (fine) for the series' cost, a ratio to stock near
    1 whose 0.1% an icount bench resolves."""
    return "n/a" if r is None else "inf" if r == math.inf else f"{r:.4f}" if fine else f"{r:.2f}"


# ---- grouping -------------------------------------------------------------

def order_key(c):
    col = next((i for i, (k, m, _) in enumerate(COLUMNS) if k == c["kernel"] and m == c["mode"]), 9)
    return (c["scenario"], c["topology"], c["variant"], c["lru"], kver_key(c["kver"]), col, c["repeat"] or 0,
            c["name"])


def column_of(c):
    """The A/B table column a cell belongs to (COLUMNS' label), None for none."""
    return next((lbl for k, m, lbl in COLUMNS if k == c["kernel"] and m == c["mode"]), None)


def cluster_label(c):
    """topology[/variant][/lru]: the cells compared with each other."""
    return c["topology"] + ("" if c["variant"] == "lab" else f"/{c['variant']}") + \
        ("" if c["lru"] == "classic" else f"/{c['lru']}")


def groups(cells):
    """scenario -> [(cluster label, {column label: [cells]})], cluster =
    topology[/variant][/lru][/linux-<version>]: the version only when the
    cells ran more than one, and then every cluster holds one."""
    out = {}
    several = len(kvers_of(cells)) > 1
    for c in sorted(cells, key=order_key):
        lab = cluster_label(c) + (f"/linux-{c['kver']}" if several else "")
        col = column_of(c)
        if col is None or (c["release"] is None and not c["metrics"] and c["repeat"] is not None):
            # A repeat that never finished (hung, aborted) is in the cells
            # table; counted here it would pass for a repeat without values.
            continue
        gl = out.setdefault(c["scenario"], [])
        if not gl or gl[-1][0] != lab:
            gl.append((lab, {}))
        gl[-1][1].setdefault(col, []).append(c)
    return out


# ---- documents: a list of blocks rendered to markdown and to HTML ---------

def md_cell(t):
    return str(t).replace("|", "\\|").replace("\n", " ")


def render_md(blocks):
    out = []
    for b in blocks:
        if b[0] == "h":
            out.append("#" * b[1] + " " + b[2])
        elif b[0] == "p":
            out.append(b[1])
        elif b[0] == "table":
            hdr, rows = b[1], b[2]
            out.append("| " + " | ".join(md_cell(h) for h in hdr) + " |")
            out.append("|" + "|".join("---" for _ in hdr) + "|")
            out += ["| " + " | ".join(md_cell(x) for x in r) + " |" for r in rows]
        elif b[0] == "list":
            out += [f"- {md_cell(x)}" for x in b[1]]
        elif b[0] == "img":
            out.append(f"![{b[2]}]({b[1]})")
        out.append("")
    return "\n".join(out)


def render_html(blocks, root, title):
    css = ("body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em}"
           "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;"
           "text-align:left;font-size:90%}th{background:#eee}td.PASS{background:#dfd}"
           "td.FAIL,td.HUNG,td.ERROR,td.ABORTED{background:#fdd}td.XFAIL{background:#ffd}"
           "img{max-width:100%}code{background:#f4f4f4}")
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
           f"<style>{css}</style></head><body>"]
    for b in blocks:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{html.escape(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            t = html.escape(b[1])
            t = re.sub(r"`([^`]*)`", r"<code>\1</code>", t)
            out.append(f"<p>{t}</p>")
        elif b[0] == "table":
            out.append("<table><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in b[1]) + "</tr>")
            for r in b[2]:
                out.append("<tr>" + "".join(
                    f"<td class='{html.escape(str(x))}'>{html.escape(str(x))}</td>" if str(x) in
                    ("PASS", "FAIL", "XFAIL", "HUNG", "ERROR", "ABORTED") else f"<td>{html.escape(str(x))}</td>"
                    for x in r) + "</tr>")
            out.append("</table>")
        elif b[0] == "list":
            out.append("<ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in b[1]) + "</ul>")
        elif b[0] == "img":
            try:
                with open(os.path.join(root, b[1]), "rb") as f:
                    data = base64.b64encode(f.read()).decode()
                out.append(f"<p><img alt='{html.escape(b[2])}' src='data:image/png;base64,{data}'></p>")
            except OSError:
                out.append(f"<p>(plot {html.escape(b[1])} missing)</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ---- the report -----------------------------------------------------------

def lab_commits(cells):
    """The lab commits the cells ran at, from their result.json; cells from
    before result.json recorded it are named by the checkout's commit now."""
    seen = sorted({c["lab_commit"] for c in cells if c["lab_commit"]})
    if any(c["release"] and not c["lab_commit"] for c in cells):
        now = lab_commit() or "unknown"
        seen.append(f"{now} (at report time: some cells did not record theirs)")
    return ", ".join(seen) or "unknown"


def cells_table(cells):
    # the kernel version, when the cells ran more than one
    several = len(kvers_of(cells)) > 1
    rows = []
    for c in sorted(cells, key=order_key):
        rows.append([c["name"], c["topology"], c["scenario"], c["mode"], c["kernel"]] +
                    ([c["kernel_version"] or c["kver"]] if several else []) +
                    [c["lru"], c["hostname"] or "n/a", c["accelerator"] or "n/a",
                     c["verdict"], "; ".join(c["notes"]) or "", fmt(c["wall_s"])])
    return ("table", ["cell", "topology", "scenario", "mode", "kernel"] + (["Linux"] if several else []) +
            ["LRU", "host", "accel", "verdict", "checks not passing", "wall s"], rows)


# ---- which cells may be compared -----------------------------------------

NOT_COMPARED = "not compared: accelerators differ"


def accelerators(*sides):
    """The accelerators the cells of these sides recorded (a cell from
    before the record has none and constrains nothing)."""
    return sorted({c["accelerator"] for cells in sides for c in cells if c.get("accelerator")})


def accelerators_differ(*sides):
    """A comparison across accelerators measures QEMU, not the kernel:
    TCG runs a guest many times slower than KVM."""
    return len(accelerators(*sides)) > 1


def hosts(cells):
    return sorted({c["hostname"] for c in cells if c.get("hostname")})


def hosts_differ(*sides):
    return len({h for cells in sides for h in hosts(cells)}) > 1


# Reliability counts summed over every cell (issue 7): what was verified,
# injected and tried, so "0 bad blocks across the matrix" is a number here.
RELIABILITY = [
    ("dirtier files verified after sync and drop_caches", lambda m: _get(m, "data.files_verified")),
    ("bytes verified", lambda m: _get(m, "data.bytes_verified")),
    ("bad blocks (data_intact fails on any)", lambda m: _get(m, "data.bad_blocks")),
    ("files missing", lambda m: _get(m, "data.files_missing")),
    ("bytes excluded (lost to injected errors, or never synced)", lambda m: _get(m, "data.bytes_excluded")),
    ("write faults injected", lambda m: _get(m, "guest.faults_injected")),
    ("write faults survived", lambda m: _get(m, "guest.faults_survived")),
    ("invalid debugfs writes tried", lambda m: _get(m, "guest.all_invalid_tried")),
    ("invalid debugfs writes accepted", lambda m: _get(m, "guest.all_invalid_accepted_bad")),
    ("OOM kills", lambda m: _get(m, "vmstat_delta.oom_kill")),
    ("kernel problems on the console", lambda m: _get(m, "console.problems")),
]


def reliability_block(cells):
    rows = []
    for label, f in RELIABILITY:
        vals = [v for v in (f(c["metrics"]) for c in cells) if v is not None]
        rows.append([label, fmt(sum(vals)) if vals else "n/a", str(len(vals))])
    return ("table", ["count (sum over cells)", "total", "cells with it"], rows)


def ab_blocks(scen, glist, used):
    blocks = []
    for lab, cols in glist:
        present = [lbl for _, _, lbl in COLUMNS if lbl in cols]
        nrep = max(len(v) for v in cols.values())
        if not any(c["release"] or c["metrics"] for v in cols.values() for c in v):
            blocks.append(("p", f"`{lab}`: no cell finished (" + ", ".join(
                f"{c['name']} {c['verdict']}" for v in cols.values() for c in v) + ")."))
            continue
        hdr = ["metric", "off"]
        for lbl in present:
            if lbl != "off":
                hdr += [lbl, f"{lbl}/off"]
        rows = []
        for key, label, _, _ in METRICS:
            if key not in used:
                continue
            s = {lbl: summary([c["values"][key] for c in cols.get(lbl, [])]) for lbl in ("off",) + tuple(present)}
            base = s["off"][0] if s.get("off") else None
            row = [label, fmt_summary(s.get("off"), nrep)]
            for lbl in present:
                if lbl == "off":
                    continue
                r = NOT_COMPARED if accelerators_differ(cols.get("off", []), cols[lbl]) else \
                    fmt_ratio(ratio(s[lbl][0] if s[lbl] else None, base))
                row += [fmt_summary(s[lbl], nrep), r]
            rows.append(row)
        rel = sorted({c["release"] for v in cols.values() for c in v if c["release"]})
        note = f"`{lab}`" + (f", kernel {', '.join(rel)}" if rel else "")
        if nrep > 1:
            note += f"; median of up to {nrep} repeats (min..max), [n/N] where some repeats lack the value"
        every = [c for v in cols.values() for c in v]
        if accelerators_differ(every):
            note += "; accelerators: " + ", ".join(
                f"{lbl} {'/'.join(accelerators(cols[lbl])) or 'n/a'}" for _, _, lbl in COLUMNS if lbl in cols)
        blocks += [("p", note), ("table", hdr, rows)]
        blocks += stock_block(lab, cols, used, nrep)
    return blocks


def stock_block(lab, cols, used, nrep):
    """The series' cost (VS_STOCK metrics): each kernel/mode with its ratio
    to the stock kernel, which has none of the series."""
    keys = [k for k in VS_STOCK if k in used]
    if "stock" not in cols or not keys:
        return []
    present = [lbl for _, _, lbl in COLUMNS if lbl in cols and lbl != "stock"]
    hdr = ["metric", "stock"]
    for lbl in present:
        hdr += [lbl, f"{lbl}/stock"]
    label = {k: lbl for k, lbl, _, _ in METRICS}
    rows = []
    for key in keys:
        s = {lbl: summary([c["values"][key] for c in cols.get(lbl, [])]) for lbl in ["stock"] + present}
        base = s["stock"][0] if s["stock"] else None
        row = [label[key], fmt_summary(s["stock"], nrep)]
        for lbl in present:
            r = NOT_COMPARED if accelerators_differ(cols["stock"], cols[lbl]) else \
                fmt_ratio(ratio(s[lbl][0] if s[lbl] else None, base), fine=True)
            row += [fmt_summary(s[lbl], nrep), r]
        rows.append(row)
    return [("p", f"`{lab}` against the stock kernel (the series' cost: ratio 1.0000 is free)"),
            ("table", hdr, rows)]


def fmt_p(p):
    return "n/a" if p is None else f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"


def fmt_ci(ci, r, fine=False):
    """The bootstrap interval, n/a where the ratio itself is (0 over 0)."""
    if ci is None or r is None:
        return "n/a"
    return f"{fmt_ratio(ci[0], fine)}..{fmt_ratio(ci[1], fine)}"


def stat_row(where, key, what, comparison, base, other, claim="", cells=None):
    """A bench row comparing two sides' repeats (lists of values, None for a
    repeat without the metric): medians (min..max), n a side, the ratio of
    medians with its bootstrap 95% interval, the exact Mann-Whitney p and
    the verdict of stats.compare() in the metric's better direction.
    `claim` is the row's threshold claim, judged on the medians (or "").
    `cells` (baseline cells, other cells): sides that ran under different
    accelerators get medians only, "not compared: accelerators differ"; on
    different hosts the comparison says "(hosts differ)"."""
    b, o = [x for x in base if x is not None], [x for x in other if x is not None]
    if cells and hosts_differ(*cells):
        comparison += " (hosts differ)"
    if cells and accelerators_differ(*cells):
        return [where, what, BETTER[key], comparison, fmt_summary(summary(b), 2), fmt_summary(summary(o), 2),
                f"{len(b)}/{len(o)}", "n/a", "n/a", "n/a", NOT_COMPARED, "not compared" if claim else ""]
    c = stats.compare(b, o, BETTER[key])
    r = ratio(summary(o)[0] if o else None, summary(b)[0] if b else None)
    if b and o and r is None and c["ratio"] == math.inf:
        r = math.inf        # some against none: the ratio is unbounded
    return [where, what, BETTER[key], comparison, fmt_summary(summary(b), 2), fmt_summary(summary(o), 2),
            f"{c['n'][0]}/{c['n'][1]}", fmt_ratio(r, key in VS_STOCK), fmt_ci(c["ci"], r, key in VS_STOCK),
            fmt_p(c["p"]), c["verdict"], claim]


def repeats_needed_text(alpha=stats.ALPHA):
    """How many repeats a verdict needs, from the test itself."""
    n = stats.min_n_per_side(alpha)
    m = next(b for b in range(n, 100) if stats.min_p(n - 1, b) < alpha)   # one side a run short
    ex = ", ".join(f"{stats.min_p(k, k):.2g} at n={k}/{k}" for k in (3, 4, 5))
    return (f"A verdict needs repeats: without ties the smallest two-sided p that a against b repeats "
            f"can give is 2/C(a+b, a) ({ex}), so p < {alpha:g} needs at least {n} repeats a side "
            f"(or {n - 1} against {m}); ties raise it.")


def bench_blocks(cells):
    """Comparisons that need repeats: medians, ratios and their intervals,
    mode against off, stock against off, and the cost metrics against stock."""
    rows, sides = [], []
    for scen, glist in groups(cells).items():
        for lab, cols in glist:
            if max(len(v) for v in cols.values()) < 2:
                continue
            where = f"{scen} on {lab}"

            def vals(lbl, key):
                return [c["values"][key] for c in cols.get(lbl, [])]

            def med(lbl, key):
                return summary(vals(lbl, key))

            def side(base, other):
                return cols.get(base, []), cols.get(other, [])
            every = [c for v in cols.values() for c in v]
            if hosts_differ(every) or accelerators_differ(every):
                sides.append(f"{where}: " + "; ".join(
                    f"{lbl} on {', '.join(hosts(cols[lbl])) or 'n/a'} ({'/'.join(accelerators(cols[lbl])) or 'n/a'})"
                    for _, _, lbl in COLUMNS if lbl in cols))
            label = {k: lbl for k, lbl, _, _ in METRICS}
            # hog_churn_p99: what an allocation on the writer's node met while it wrote,
            # the reviewer's allocation stall latency (scenario imbalance-churn)
            for key, test in (("file_pageout", None), ("reclaim_wb", None), ("oom_kill", None),
                              ("throughput", 0.03), ("bystander_MiBps", None), ("files_per_s", -0.05),
                              ("pause_p99", None), ("hog_churn_p99", None)):
                what = label[key]
                off = med("off", key)
                for lbl in ("global", "node"):
                    if lbl not in cols:
                        continue
                    x = med(lbl, key)
                    if off is None and x is None:
                        continue
                    r = ratio(x[0] if x else None, off[0] if off else None)
                    if test is None:
                        claim = ""
                    elif off and x and min(off[3], x[3]) < 2:
                        claim = "needs >= 2 repeats"
                    elif r is None:
                        claim = "n/a"
                    elif test > 0:      # both ways: within test of off
                        claim = f"within {test:.0%}" if abs(r - 1) <= test else f"OUTSIDE {test:.0%}"
                    else:               # one way: no worse than off by more than -test
                        claim = f">= {1 + test:.0%} of off" if r >= 1 + test else f"BELOW {1 + test:.0%} of off"
                    rows.append(stat_row(where, key, what, f"{lbl} vs off", vals("off", key), vals(lbl, key),
                                         claim, side("off", lbl)))
            if "stock" in cols:
                # the series' own cost: every mode against the kernel without it
                for key in VS_STOCK:
                    st = med("stock", key)
                    for lbl in ("off", "global", "node"):
                        x = med(lbl, key) if lbl in cols else None
                        if lbl in cols and (st is not None or x is not None):
                            rows.append(stat_row(where, key, label[key], f"{lbl} vs stock",
                                                 vals("stock", key), vals(lbl, key), cells=side("stock", lbl)))
            if "stock" in cols and "off" in cols:
                for key, what, _, _ in METRICS:
                    off, st = med("off", key), med("stock", key)
                    if key not in VS_STOCK and (off is not None or st is not None):
                        rows.append(stat_row(where, key, what, "stock vs off", vals("off", key),
                                             vals("stock", key), cells=side("off", "stock")))
    if not rows:
        return []
    return [("h", 2, "Bench comparisons"),
            ("p", "Medians of the repeats with min..max; n counts the repeats with the value, baseline/other. "
                  "ratio is the other's median over the baseline's (the baseline is the one named last in "
                  "the comparison: mode off, or the stock kernel), 95% CI its bootstrap percentile interval "
                  f"({stats.RESAMPLES:,} resamples of each side with replacement, seeded, so a report is "
                  "reproducible; where the baseline's median is 0 the ratio is inf, and a resample with both "
                  "medians 0 counts as 1). MW p is the exact two-sided Mann-Whitney U p-value over the "
                  "repeats; tied values take the mean of their ranks and p is counted over every split of the "
                  "pooled repeats with those ties, so ties cost resolution (launch/stats.py). better says "
                  "which way the metric is better. The verdict is the other's against the baseline: better "
                  f"or worse only when p < {stats.ALPHA:g} and the interval excludes 1, else not resolved at "
                  "n=baseline/other. " + repeats_needed_text() + " The claims are judged on the medians "
                  "alone, as before: throughput must stay within 3% of mode off and fs_mark files/s within "
                  "5% (issue 4's smallfiles claim: >= 95% of off). The stock kernel is compared with the "
                  "series in mode off, and the write path's cost (scenario cost) with the stock kernel in "
                  "every mode."),
            ("table", ["scenario / topology", "metric", "better", "comparison", "baseline", "other", "n",
                       "ratio", "95% CI", "MW p", "verdict", "claim"], rows)] + ([
            ("p", "Not every comparison's cells ran on one host under one accelerator. A comparison whose "
                  "sides ran on different hosts says \"(hosts differ)\": under TCG the host's speed is in "
                  "every time measured. One whose sides ran under different accelerators (TCG, KVM) is "
                  "not compared (medians only): the difference would be QEMU's. Hosts (accelerators) of "
                  "each column: " + " | ".join(sides) + ".")] if sides else [])


def kver_blocks(cells):
    """Issue 16: each kernel/mode on a later kernel version against itself on
    the earliest version present (6.12 against 6.1), scenario, topology,
    variant and LRU alike, with the bench's statistics: the one comparison
    that sets cells of different versions against each other."""
    vers = kvers_of(cells)
    if len(vers) < 2:
        return []
    base = vers[0]
    by = {}     # (scenario, cluster) -> column label -> version -> [cells]
    for c in sorted(cells, key=order_key):
        col = column_of(c)
        if col is None or (c["release"] is None and not c["metrics"]):
            continue    # a cell that never finished has no values
        by.setdefault((c["scenario"], cluster_label(c)), {}).setdefault(col, {}) \
            .setdefault(c["kver"], []).append(c)
    rows = []
    for (scen, lab), cols in by.items():
        for _, _, lbl in COLUMNS:
            on = cols.get(lbl, {})
            for v in vers[1:]:
                b, o = on.get(base, []), on.get(v, [])
                if not b or not o or max(len(b), len(o)) < 2:
                    continue
                for key, what, _, _ in METRICS:
                    bv, ov = [c["values"][key] for c in b], [c["values"][key] for c in o]
                    if all(x is None for x in bv + ov):
                        continue
                    rows.append(stat_row(f"{scen} on {lab}", key, what, f"{lbl}: {v} vs {base}", bv, ov,
                                         cells=(b, o)))
    head = [("h", 2, f"Kernel versions: {', '.join(vers[1:])} against {base}")]
    if not rows:
        return head + [("p", f"No kernel and mode has repeats on {base} and on a later version: nothing is "
                             "compared across versions (every other table keeps each version to itself).")]
    return head + [
        ("p", f"Each kernel and mode on a later kernel version against the same kernel and mode on {base} "
              "(the baseline), on the same scenario, topology, variant and LRU: the only comparison that sets "
              "cells of different versions against each other; every other table keeps each version to "
              "itself (clusters `<topology>/linux-<version>`). A cell's version is its result.json "
              "kernel_source's. Medians (min..max), the ratio of medians with its bootstrap 95% interval, "
              f"the exact Mann-Whitney p and the verdict as in the bench comparisons (p < {stats.ALPHA:g} "
              "and the interval excluding 1)."),
        ("table", ["scenario / topology", "metric", "better", "comparison", "baseline", "other", "n",
                   "ratio", "95% CI", "MW p", "verdict", "claim"], rows)]


# The metrics a baseline comparison is judged on: what reclaim met and did,
# what the hog and the writer felt, and what the reclaim threads cost.
NOT_COUNTED_BY_MGLRU = ("immediate_reclaim",)
BASELINE_METRICS = ("file_pageout", "immediate_reclaim", "pgscan_direct", "allocstall", "oom_kill",
                    "reclaim_throttle", "hog_alloc_p99", "hog_churn_p99", "kswapd_cpu", "throughput",
                    "write_p99")


def baseline_blocks(cells):
    """Issue 15: does the series beat what a user can already do without it?
    A scenario with BASELINE_OF=R runs R's workload under tuning a user can
    choose (other sysctls); R's cells on another LRU are a baseline too.
    Each setting's stock kernel is set against the series at R's own setting
    (the tuning the series was made for, classic LRU) and against the series
    at that same setting (does the series still add anything there)."""
    refs = sorted({c["baseline_of"] for c in cells if c.get("baseline_of")})
    out = []
    label = {k: lbl for k, lbl, _, _ in METRICS}
    # each kernel version's family on its own (said when there are several)
    vers = kvers_of(cells)
    for ref, v in [(r, v) for r in refs for v in vers]:
        on = f" (Linux {v})" if len(vers) > 1 else ""
        fam = [c for c in cells if c["kver"] == v and (c["scenario"] == ref or c.get("baseline_of") == ref)]
        if not fam:
            continue
        settings = {}
        for c in sorted(fam, key=order_key):
            col = column_of(c)
            if col is None or (c["release"] is None and not c["metrics"]):
                continue
            name = c["scenario"] + ("" if c["lru"] == "classic" else f" ({c['lru']})") + \
                ("" if c["variant"] == "lab" else f" [{c['variant']}]")
            settings.setdefault((c["scenario"] != ref, c["lru"] != "classic", name), {}) \
                .setdefault(col, []).append(c)
        order = sorted(settings)
        if not order or order[0][:2] != (False, False):
            out.append(("p", f"{ref}{on}: no cells of {ref} itself on the classic LRU; its baselines are "
                             "not compared."))
            continue
        ref_name, ref_cols = order[0][2], settings[order[0]]
        modes = [m for m in ("global", "node") if m in ref_cols]

        def vals(cols, lbl, key):
            return [c["values"][key] for c in cols.get(lbl, [])]
        side_rows, rows, sentences = [], [], []
        for key in BASELINE_METRICS:
            for k in order:
                cols = settings[k]
                if all(summary(vals(cols, lbl, key)) is None for lbl in cols):
                    continue
                side_rows.append([label[key], k[2]] + [fmt_summary(summary(vals(cols, lbl, key)), 2)
                                                        for lbl in ("stock", "off", "global", "node")])
        for k in order:
            name, cols = k[2], settings[k]
            if "stock" not in cols:
                continue
            verdicts = {}
            for m in modes:
                pairs = [(f"{m} at {ref_name} vs stock at {name}", ref_cols, m)]
                if k != order[0] and m in cols:
                    pairs.append((f"{m} at {name} vs stock at {name}", cols, m))
                for comparison, ocols, lbl in pairs:
                    for key in BASELINE_METRICS:
                        # 6.1's MGLRU does not count immediate reclaim (evict_folios()):
                        # the series at the reference (classic LRU) against stock on
                        # MGLRU would compare a count with a 0 by construction
                        if key in NOT_COUNTED_BY_MGLRU and k[1] and ocols is ref_cols:
                            continue
                        base, other = vals(cols, "stock", key), vals(ocols, lbl, key)
                        if not [x for x in base if x is not None] and not [x for x in other if x is not None]:
                            continue
                        row = stat_row(f"{ref} family{on}", key, label[key], comparison, base, other,
                                       cells=(cols.get("stock", []), ocols.get(lbl, [])))
                        rows.append(row)
                        verdicts.setdefault(comparison, []).append((label[key], row[10]))
            for comparison, vs in verdicts.items():
                better = [w for w, v in vs if v == "better"]
                worse = [w for w, v in vs if v == "worse"]
                rest = [v for w, v in vs if v not in ("better", "worse")]
                ns = sorted({v.rsplit("n=", 1)[-1] for v in rest if "n=" in v})
                sentences.append(
                    f"{comparison}: better on {', '.join(better) or 'nothing'}; worse on "
                    f"{', '.join(worse) or 'nothing'}; not resolved on {len(rest)} metric(s)"
                    + (f" (n={', '.join(ns)})" if ns else "") + ".")
        if not rows:
            continue
        out += [("h", 3, f"{ref} and its baselines{on}"),
                ("p", f"The same workload as {ref} under the tuning a user can choose without the series "
                      f"(scenarios with BASELINE_OF={ref}, and {ref} on another LRU). Each setting's stock "
                      f"kernel is the baseline: against the series at {ref_name} (does the series beat what "
                      "a user can already do without it?) and against the series at the same setting (does "
                      "it still add anything there). 6.1's MGLRU counts no immediate reclaim, so that metric is "
                      "not set against a stock kernel on MGLRU from the classic reference. Medians (min..max) "
                      "of the repeats:"),
                ("table", ["metric", "setting", "stock", "off", "global", "node"], side_rows),
                ("p", "In one sentence each (verdicts as in the bench comparisons: Mann-Whitney p < "
                      f"{stats.ALPHA:g} and the bootstrap interval excluding 1):"),
                ("list", sentences),
                ("table", ["family", "metric", "better", "comparison", "baseline", "other", "n",
                           "ratio", "95% CI", "MW p", "verdict", "claim"], rows)]
    if not out:
        return []
    return [("h", 2, "Baselines: the series against tuning without it")] + out


def gnuplot_panels(root, script, kind, scen, title, blocks, panels, series):
    """Write plots/<kind>-<scenario>.dat (BLOCKS: one list of data rows per
    panel, gnuplot index blocks) and draw it with SCRIPT: PANELS titles the
    panels (gnuplot array M), SERIES names the bars (array L).  The PNG's
    path relative to ROOT, or None (said on stderr) when gnuplot failed."""
    pdir = os.path.join(root, "plots")
    os.makedirs(pdir, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", scen)
    dat, png = os.path.join(pdir, f"{kind}-{safe}.dat"), os.path.join(pdir, f"{kind}-{safe}.png")
    with open(dat, "w", encoding="utf-8") as f:
        for rows in blocks:
            f.write("".join(r + "\n" for r in rows) + "\n\n")

    def arr(name, items):
        return f"array {name}[{len(items)}] = [" + ", ".join(json.dumps(x) for x in items) + "]"
    cmd = ["gnuplot", "-e", f"datafile={json.dumps(dat)}; outfile={json.dumps(png)}; "
           f"title={json.dumps(title)}; " + arr("M", panels) + "; " + arr("L", series), script]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png):
        print(f"report: gnuplot failed for {scen} ({kind}): {(r.stderr.strip().splitlines() or ['?'])[-1]}",
              file=sys.stderr)
        return None
    return os.path.relpath(png, root)


def plot(root, scen, glist, used):
    """One PNG per scenario: a panel per metric, bars per mode (gnuplot)."""
    if not shutil.which("gnuplot") or not glist:
        return None
    # A panel whose bars are all zero (or n/a) says nothing: left out, named under the plot.
    keys = [(k, lbl) for k, lbl, _, _ in METRICS if k in used and any(
        c["values"][k] not in (None, 0) for _, cols in glist for v in cols.values() for c in v)]
    present = [lbl for _, _, lbl in COLUMNS if any(lbl in cols for _, cols in glist)]
    if not keys or not present:
        return None
    blocks = []
    for key, _ in keys:
        rows = []
        for lab, cols in glist:
            row = [f'"{lab}"']
            for lbl in present:
                s = summary([c["values"][key] for c in cols.get(lbl, [])])
                row += ["?", "?", "?"] if s is None else [repr(float(s[0])), repr(float(s[1])),
                                                         repr(float(s[2]))]
            rows.append(" ".join(row))
        blocks.append(rows)
    return gnuplot_panels(root, GNUPLOT_AB, "ab", scen, f"scenario {scen}: mode against mode", blocks,
                          [lbl for _, lbl in keys], present)


def plot_vs_stock(root, scen, glist):
    """The cost metrics (VS_STOCK) of the series' modes against the stock
    kernel, in percent with the bootstrap 95% interval, for the clusters
    with stock cells and repeats: differences of 0.01-1% that bars from 0
    cannot show.  None when there is nothing to draw."""
    if not shutil.which("gnuplot"):
        return None
    label = {k: lbl for k, lbl, _, _ in METRICS}
    modes = [lbl for _, _, lbl in COLUMNS if lbl != "stock"]
    rows = {}
    for key in VS_STOCK:
        for lab, cols in glist:
            base = [c["values"][key] for c in cols.get("stock", []) if c["values"][key] is not None]
            if len(base) < 2 or stats.median(base) == 0:
                continue
            row, seen = [f'"{lab}"'], False
            for lbl in modes:
                other = [c["values"][key] for c in cols.get(lbl, []) if c["values"][key] is not None]
                if not other:
                    row += ["?", "?", "?"]
                    continue
                lo, hi = stats.bootstrap_ratio_ci(base, other)
                row += [repr((x - 1) * 100) for x in (stats.ratio_of_medians(base, other), lo, hi)]
                seen = True
            if seen:
                rows.setdefault(key, []).append(" ".join(row))
    if not rows:
        return None
    return gnuplot_panels(root, GNUPLOT_VS_STOCK, "vs-stock", scen,
                          f"scenario {scen}: the series against the stock kernel",
                          list(rows.values()), [label[k] for k in rows], modes)


def build(root, dest):
    cells = load_cells(root)
    # Plots of scenarios no longer in the matrix must not linger in a kept report.
    for old in [p for pat in ("ab-*.png", "ab-*.dat", "vs-stock-*.png", "vs-stock-*.dat")
                for p in glob.glob(os.path.join(dest, "plots", pat))]:
        os.unlink(old)
    name = os.path.basename(os.path.abspath(root))
    counts = {}
    for c in cells:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    rel = sorted({c["release"] for c in cells if c["release"]})
    stamps = {}
    several = len(kvers_of(cells)) > 1
    for c in cells:
        if c["kernel_image"]:
            stamps.setdefault(c["kernel"] + (f" (Linux {c['kver']})" if several else ""), set()) \
                .add(c["kernel_image"])
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    b = [("h", 1, f"dplab matrix: {name}"),
         ("p", f"Generated {now} by `launch/report.py` from {len(cells)} cells' result.json; "
               f"lab commit {lab_commits(cells)}; kernel {', '.join(rel) or 'n/a'}."),
         ("p", "Verdicts: " + (", ".join(f"{n} {v}" for v, n in sorted(counts.items())) or "no cells") +
               ". XFAIL: passes only because a check failed as its scenario expects (reason shown). "
               f"Checks skipped because their precondition did not hold (SKIP, unmeasurable, neither "
               f"passed nor failed): {sum(1 for c in cells for n in c['notes'] if n.startswith('SKIP '))}.")]
    for k, s in sorted(stamps.items()):
        if len(s) > 1:
            b.append(("p", f"WARNING: the {k} cells ran {len(s)} different kernel builds; "
                           "RERUN=1 for a matrix of one build."))
    b += [("h", 2, "Cells"), cells_table(cells),
          ("h", 2, "Reliability totals"), reliability_block(cells)]
    gs = groups(cells)
    if gs:
        b += [("h", 2, "A/B by scenario"),
              ("p", "Ratios are against mode off of the same topology; n/a where a cell lacks the metric "
                    "or off is 0. Sources in result.json metrics: " +
                    "; ".join(f"{lbl} = {src}" for _, lbl, src, _ in METRICS) + ".")]
    for scen, glist in gs.items():
        used = [k for k, _, _, _ in METRICS if k in CORE or any(
            c["values"][k] is not None for _, cols in glist for v in cols.values() for c in v)]
        claim = next((read_json(os.path.join(c["dir"], "result.json")) or {}
                      for _, cols in glist for v in cols.values() for c in v), {}).get("claim")
        b.append(("h", 3, f"{scen}"))
        if claim:
            b.append(("p", f"Claim: {claim}"))
        b += ab_blocks(scen, glist, used)
        png = plot(dest, scen, glist, used)
        if png:
            b.append(("img", png, f"{scen}: mode against mode"))
        vs = plot_vs_stock(dest, scen, glist)
        if vs:
            b.append(("img", vs, f"{scen}: the series against the stock kernel, % (95% CI)"))
        zero = [lbl for k, lbl, _, _ in METRICS if k in used and all(
            c["values"][k] in (None, 0) for _, cols in glist for v in cols.values() for c in v)]
        if zero:
            b.append(("p", ("Not plotted" if png else "No plot") + ", 0 or n/a in every cell: " +
                      ", ".join(zero) + "."))
    b += bench_blocks(cells)
    b += kver_blocks(cells)
    b += baseline_blocks(cells)
    return b, cells, name


def main(argv):
    args = argv[1:]
    dest = None
    if len(args) == 3 and args[1] == "--out":
        dest = args[2]
        args = args[:1]
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args and args[0] in ("-h", "--help") else 2
    root = args[0]
    dest = dest or root
    if not os.path.isdir(root):
        print(f"report: no directory '{root}'", file=sys.stderr)
        return 2
    os.makedirs(dest, exist_ok=True)
    blocks, cells, name = build(root, dest)
    if not cells:
        print(f"report: no cells in {root} (no */result.json nor */cell.json)", file=sys.stderr)
        return 2
    for fn, text in (("report.md", render_md(blocks)),
                     ("report.html", render_html(blocks, dest, f"dplab matrix: {name}"))):
        p = os.path.join(dest, fn)
        with open(p + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(p + ".tmp", p)
    print(f"report: {os.path.relpath(os.path.join(dest, 'report.md'))} and report.html "
          f"({len(cells)} cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
