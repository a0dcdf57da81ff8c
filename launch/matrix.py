#!/usr/bin/env python3
"""The topology matrix: scenarios x topologies x modes x LRU x kernel x version,
one run.py per cell, each in
results/<matrix>/<topo>-<scenario>-<mode>-<kernel>[-k<version>][-mglru][-rN].

  matrix.py [--topos a,b] [--scenarios x,y] [--modes off,global,node]
            [--lru classic,mglru] [--kernels patched,stock] [--kvers 6.1,6.12] [--jobs N]
            [--matrix NAME] [--rerun] [--smoke | --bench [--repeats N]]
            [--cell-timeout SEC] [--cells a,b] [--list [--format text|json|gitlab]]
            [--engine local|slurm [--partition P] [--account A] [--time-limit MIN]]
            [--no-report]

Cells: each selected scenario on the topologies it names (TOPOLOGIES=, all
shipped ones when unset; --topos replaces it) in its modes (MODES=, all three
when unset; --modes replaces it).  The stock kernel has no dirty_pressure=, so
it runs once per topology/scenario/LRU, as mode off: the reference cell.

--kvers (make ... KVERS=6.1,6.12): every cell on each kernel version, each
built from Debian's linux-source-<version> (dplab.contract.kver_ksrc): a
6.1 cell runs as before, under its old name; a 6.12 cell runs with
KSRC=/usr/src/linux-source-6.12.tar.xz and its name says -k6.12.  Default:
6.1 alone, or, with KSRC= (or the Makefile's KVER=) set, that source, under
6.1's names; --kvers does not go with KSRC.

--smoke: every topology and every scenario at least once, modes rotated
across the cells, LRU (default classic,mglru) across the smoke scenario's.  --bench: each scenario on its first topology, every
mode plus stock, --repeats times (default 3), for medians and spreads
(default scenarios: imbalance, cp, smallfiles, those that exist); a scenario
whose comparison is across topologies names them in BENCH_TOPOLOGIES= (cost:
2 nodes against 64), and --topos runs the bench on every topology it lists.

A cell whose result.json exists is skipped (resume) unless --rerun.  A cell
that outlives --cell-timeout (default 2 x the scenario's TIMEOUT + 120 s) is
killed and recorded as HUNG; the matrix goes on.  DPLAB_RUNNER replaces
`python3 launch/run.py` (the host tests use a fake that never boots).

--cells a,b runs only those of the selected cells (by name): one CI job per
cell, or a cell to redo.  --list --format json prints the cells as a GitHub
Actions matrix (`{"include": [...]}`, for fromJSON), --format gitlab as a
GitLab child pipeline whose parallel:matrix has one CELL per cell; each job
runs `make <target> ... CELLS=<cell>` and a last job runs the report over
the OUT directories (docs/ci/).

--engine slurm (make ... ENGINE=slurm) submits the cells to run as one Slurm
job array (launch/slurm_engine.py): --jobs is the array's cells-at-once
throttle, --partition, --account and --time-limit (minutes per cell, default
the cell timeout + 5 min) go to sbatch.  The kernels and results/ must be on
a file system every node reads.

Exit 0 when every selected cell passes (XFAIL included), 1 when one fails,
hangs or is left not run, 2 with one line on bad selection input.  The report
(report.md and report.html) is regenerated at the end: launch/report.py DIR.
"""
import argparse
import concurrent.futures
import datetime
import functools
import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenario as scn  # noqa: E402
import topology  # noqa: E402
import slurm_engine  # noqa: E402
from dplab.checks import PASSING_VERDICTS, failing_names, skipped, test_line, verdict_of  # noqa: E402
from dplab.contract import (DEFAULT_KVER, KERNELS, KVERS, LRUS, MODES, TOP, ContractError,  # noqa: E402
                            build_variant, kernel_obj_dir, kver_ksrc)
from dplab.files import read_json  # noqa: E402
from dplab.records import Cell  # noqa: E402

ENGINES = ("local", "slurm")
FORMATS = ("text", "json", "gitlab")
# make bench without SCENARIOS: pageout and throughput (imbalance, cp) and
# fs_mark files/s (smallfiles); every scenario when none of them exists yet.
BENCH_SCENARIOS = ("imbalance", "cp", "smallfiles", "bound-alone", "bound-elsewhere")


class BadInput(Exception):
    pass


def split_list(text, what, known=None):
    """'a,b c' -> ['a', 'b', 'c'] in order, no duplicates; unknown names are bad input."""
    items = []
    for w in text.replace(",", " ").split():
        if known is not None and w not in known:
            raise BadInput(f"unknown {what} '{w}' (known: {' '.join(known)})")
        if w not in items:
            items.append(w)
    if not items:
        raise BadInput(f"empty {what} list")
    return items


def shipped_topologies(tdir):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(tdir, "*"))
                  if os.path.isfile(p) and not p.endswith("~"))


def load_scenarios(sdir, names, topologies):
    """name -> {topos, modes, timeout}; every name and every TOPOLOGIES/MODES entry checked."""
    avail = sorted(os.path.basename(p)[:-3] for p in glob.glob(os.path.join(sdir, "*.sh")))
    explicit = names is not None
    if names is None:
        names = avail
    out = {}
    for n in names:
        if n not in avail:
            raise BadInput(f"unknown scenario '{n}' (known: {' '.join(avail)})")
        try:
            sc = scn.load(os.path.join(sdir, n + ".sh"))
        except scn.ScenarioError as e:
            raise BadInput(str(e))
        v = sc.vars
        # STANDALONE="why": a scenario that is one step of a sequence (the
        # second boot after a crash) cannot be a cell on its own; its lab
        # test runs the sequence.
        if v.get("STANDALONE"):
            if explicit:
                raise BadInput(f"scenario '{n}' is not a matrix cell: {v['STANDALONE']}")
            continue
        where = os.path.relpath(sc.path, TOP) if sc.path.startswith(TOP) else sc.path
        topos = v.get("TOPOLOGIES", "").split() or list(topologies)
        for t in topos:
            if t not in topologies:
                raise BadInput(f"{where}: TOPOLOGIES names unknown topology '{t}'")
        # BENCH_TOPOLOGIES="a b": the bench runs it on each of them, not
        # only on its first topology
        bench_topos = v.get("BENCH_TOPOLOGIES", "").split()
        for t in bench_topos:
            if t not in topologies:
                raise BadInput(f"{where}: BENCH_TOPOLOGIES names unknown topology '{t}'")
        modes = v.get("MODES", "").split() or list(MODES)
        for m in modes:
            if m not in MODES:
                raise BadInput(f"{where}: MODES names unknown mode '{m}'")
        out[n] = {"topos": topos, "bench_topos": bench_topos or topos[:1],
                  "modes": [m for m in MODES if m in modes],
                  "smoke_skip": v.get("SMOKE_SKIP"),
                  "timeout": int(v.get("TIMEOUT", "300"))}
    return out


def cell(topo, scen, mode, kernel, lru, variant="lab", repeat=None, kver=DEFAULT_KVER):
    """A cell as the rest of this file passes it around: records.Cell's dict
    (without "kver" for the default version, 6.1)."""
    return Cell.new(topo, scen, mode, kernel, lru, variant, repeat, kver).to_dict()


def cell_kver(c):
    return c.get("kver") or DEFAULT_KVER


def full_cells(scens, topos, modes, lrus, kernels, variant, kvers=(DEFAULT_KVER,)):
    cells = []
    for s, info in scens.items():
        for t in topos or info["topos"]:
            for lru in lrus:
                for kv in kvers:
                    for k in kernels:
                        for m in (["off"] if k == "stock" else modes or info["modes"]):
                            cells.append(cell(t, s, m, k, lru, variant, kver=kv))
    return cells


def smoke_cells(scens, topos, modes, lrus, kernels, variant, topologies, kvers=(DEFAULT_KVER,)):
    """Every topology and every scenario at least once, on each kernel
    version: the cut (smoke_cut), then the same cells on the next version."""
    cut = smoke_cut(scens, topos, modes, lrus, kernels, variant, topologies)
    return [dict(c) if kv == DEFAULT_KVER else
            cell(c["topology"], c["scenario"], c["mode"], c["kernel"], c["lru"], c["variant"], c["repeat"], kv)
            for kv in kvers for c in cut]


def smoke_cut(scens, topos, modes, lrus, kernels, variant, topologies):
    """Every topology and every scenario at least once.  Each scenario runs on
    the first topology it names that no earlier cell has covered; topologies
    left over run the smoke scenario (or the first scenario naming them).
    Modes rotate across the cells."""
    plan, covered = [], set()
    wanted = topos or topologies
    # SMOKE_SKIP="why": a scenario whose claim is not yet reproduced in this
    # lab stays out of the smoke cut (and so out of make test), said aloud
    # here and in the scenario file; `make matrix` still runs it.
    for s in [s for s in scens if scens[s].get("smoke_skip")]:
        print(f"matrix: smoke: not in the cut: {s}: {scens[s]['smoke_skip']}", file=sys.stderr)
    order = [s for s in scens if s != "smoke" and not scens[s].get("smoke_skip")] + \
        (["smoke"] if "smoke" in scens else [])
    for s in order:
        cand = [t for t in (topos or scens[s]["topos"]) if topos or t in wanted]
        t = next((t for t in cand if t not in covered), cand[0] if cand else None)
        if t is not None:
            plan.append((t, s))
            covered.add(t)
    for t in wanted:
        if t in covered:
            continue
        s = "smoke" if "smoke" in scens else next((s for s in scens if t in scens[s]["topos"]), None)
        if s is None:
            print(f"matrix: smoke: no selected scenario names topology {t}", file=sys.stderr)
            continue
        plan.append((t, s))
        covered.add(t)
    cells, nsmoke = [], 0
    for i, (t, s) in enumerate(plan):
        allowed = [m for m in (modes or scens[s]["modes"])]
        m = allowed[i % len(allowed)]
        # LRU rotates over the smoke scenario's cells only: the pipeline is
        # proven under both, while the claim scenarios keep the LRU their
        # checks were written for (the first of the selection).
        lru = lrus[0]
        if s == "smoke":
            lru = lrus[nsmoke % len(lrus)]
            nsmoke += 1
        cells.append(cell(t, s, m, "patched" if "patched" in kernels else kernels[0], lru, variant))
    # The smoke scenario runs under every LRU of the selection even when
    # the claim scenarios left it a single topology: the rest on that one.
    first = next((c for c in cells if c["scenario"] == "smoke"), None)
    if first:
        for lru in lrus:
            if not any(c["scenario"] == "smoke" and c["lru"] == lru for c in cells):
                cells.append(cell(first["topology"], "smoke", first["mode"], first["kernel"], lru, variant))
    if "stock" in kernels and "patched" in kernels and plan:
        t, s = plan[-1]
        cells.append(cell(t, s, "off", "stock", lrus[0], variant))
    return cells


def neighbour_order(items, r):
    """@items reordered for repeat @r so that, taken two by two (two guests
    at a time), each item shares the host with every other once per
    len(items) - 1 repeats: round r of the circle method's round-robin (up to
    four items, r1 keeps the given order).  With JOBS=1 the order changes
    nothing."""
    seq = list(items) + ([None] if len(items) % 2 else [])
    k = len(seq)
    if k <= 2:
        return list(items)
    j = r % (k - 1)
    circle = [seq[0]] + seq[1 + j:] + seq[1:1 + j]
    out, alone = [], []
    for i in range(k // 2):
        pair = [x for x in (circle[i], circle[k - 1 - i]) if x is not None]
        (out if len(pair) == 2 else alone).extend(pair)
    return out + alone    # an odd item out runs last, beside the next repeat


def bench_cells(scens, topos, modes, lrus, kernels, variant, repeats, kvers=(DEFAULT_KVER,)):
    """Each scenario on its first topology (or on its BENCH_TOPOLOGIES, or on
    every one of --topos), every mode plus stock on each kernel version,
    repeated."""
    cells = []
    for s, info in scens.items():
        for lru in lrus:
            # Repeats interleave the modes and topologies (r1 of each, then
            # r2...), so slow drift of a shared machine spreads over all
            # modes alike, and over the topologies a ratio is compared across.
            # Within a repeat the kernel versions, kernels and modes rotate
            # neighbours (neighbour_order), so that two guests at a time do
            # not pair the same cells in every repeat.
            for r in range(1, repeats + 1):
                for t in topos or info["bench_topos"]:
                    combos = [(kv, k, m) for kv in kvers for k in kernels
                              for m in (["off"] if k == "stock" else modes or info["modes"])]
                    for kv, k, m in neighbour_order(combos, r):
                        cells.append(cell(t, s, m, k, lru, variant, r, kv))
    return cells


def write_test_formats(root, cells, statuses):
    """root/matrix.ktap and root/matrix.junit.xml, as tests/run writes them:
    one test per cell, its checks nested; a cell without result.json (HUNG,
    ERROR, NOT RUN) is one failed check."""
    records = os.path.join(root, ".matrix-records")
    with open(records, "w", encoding="utf-8") as f:
        for c in cells:
            out = os.path.join(root, c["name"])
            res = read_json(os.path.join(out, "result.json"))
            rec = read_json(os.path.join(out, "cell.json")) or {}
            f.write(f"@T {c['name']}\n")
            if res is None:
                st = statuses.get(c["name"], rec.get("status", "NOT RUN"))
                f.write(f"FAIL: {c['name']}.result: {st}, no result.json"
                        f"{': ' + rec['reason'] if rec.get('reason') else ''}\n")
                rc = 2
            else:
                for chk in res.get("checks", []):
                    f.write(test_line(c["name"], chk).replace("\n", " ") + "\n")
                rc = 0 if res.get("pass") else 1
            f.write(f"@E {rc} {int(rec.get('elapsed_s') or 0)}\n")
    tool = os.path.join(TOP, "tests", "report-formats.py")
    r = subprocess.run([sys.executable, tool, records, os.path.join(root, "matrix.ktap"),
                        os.path.join(root, "matrix.junit.xml")], capture_output=True, text=True)
    os.unlink(records)
    if r.returncode != 0:
        print(f"matrix: KTAP/JUnit not written: {r.stderr.strip()}", file=sys.stderr)
    else:
        print(f"matrix: KTAP {os.path.relpath(root)}/matrix.ktap, JUnit matrix.junit.xml")


def fmt_s(s):
    s = int(round(s))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Runner:
    def __init__(self, a, root, cells, scens):
        self.a, self.root, self.cells, self.scens = a, root, cells, scens
        self.tdir = a.topology_dir or os.path.join(TOP, "topologies")
        self.lock = threading.Lock()
        self.done = 0
        self.ran = []          # elapsed seconds of cells actually run
        self.t0 = time.monotonic()
        self.procs = {}
        self.stopping = False
        self.to_run = 0
        self.slurm = None      # a Slurm array task: its ids, stamped into cell.json

    def command(self, c, out):
        runner = os.environ.get("DPLAB_RUNNER")
        base = shlex.split(runner) if runner else [sys.executable, os.path.join(TOP, "launch", "run.py")]
        cmd = base + ["--topo", c["topology"], "--scenario", self.scen_arg(c["scenario"]),
                      "--mode", c["mode"], "--kernel", c["kernel"], "--out", out, "--quiet"]
        if c["variant"] != "lab":
            cmd += ["--variant", c["variant"]]
        if c["lru"] != "classic":
            cmd += ["--lru", c["lru"]]
        return cmd

    def scen_arg(self, name):
        if self.a.scenario_dir:
            return os.path.join(self.a.scenario_dir, name + ".sh")
        return name

    def timeout(self, c):
        if self.a.cell_timeout:
            return self.a.cell_timeout
        return 2 * self.scens[c["scenario"]]["timeout"] + 120

    def progress(self, c, status, detail, elapsed):
        with self.lock:
            self.done += 1
            if elapsed is not None:
                self.ran.append(elapsed)
            left = self.to_run - len(self.ran)
            if self.ran and left > 0:
                eta = fmt_s(sum(self.ran) / len(self.ran) * left / max(1, self.a.jobs))
            else:
                eta = "0s" if left <= 0 else "?"
            took = f"{fmt_s(elapsed)}, " if elapsed is not None else ""
            d = f" {detail}" if detail else ""
            print(f"[{self.done}/{len(self.cells)}] {c['name']} {status}{d} "
                  f"({took}elapsed {fmt_s(time.monotonic() - self.t0)}, ETA {eta})", flush=True)

    def run_cell(self, c):
        out = os.path.join(self.root, c["name"])
        if self.stopping:
            return "ABORTED"
        cmd = self.command(c, out)
        t0 = time.monotonic()
        # A session of its own: on timeout the whole group (run.py, QEMU) goes.
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True, cwd=TOP, env=cell_env(c))
        with self.lock:
            self.procs[p.pid] = p
        if self.stopping:
            kill_group(p)
        hung_outer = False
        try:
            so, se = p.communicate(timeout=self.timeout(c))
        except subprocess.TimeoutExpired:
            hung_outer = True
            kill_group(p)
            so, se = p.communicate()
        with self.lock:
            self.procs.pop(p.pid, None)
        elapsed = time.monotonic() - t0
        rc = p.returncode
        res = read_json(os.path.join(out, "result.json"))
        last = (se.strip().splitlines() or [""])[-1]
        if hung_outer:
            status, reason = "HUNG", f"killed by the matrix after {self.timeout(c)}s"
        elif self.stopping and rc not in (0, 1):
            status, reason = "ABORTED", "interrupted"
        elif res is not None and rc in (0, 1):
            status, reason = verdict_of(res), ", ".join(failing_names(res))
        elif rc == 2 and "hung" in last:
            status, reason = "HUNG", last
        else:
            status, reason = "ERROR", last or f"runner exited {rc} without result.json"
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "matrix-cell.log"), "w", encoding="utf-8") as f:
            f.write("$ " + " ".join(shlex.quote(x) for x in cmd) + "\n" + (so or "") + (se or ""))
        write_json(os.path.join(out, "cell.json"), dict(
            c, status=status, reason=reason, rc=rc, elapsed_s=round(elapsed, 1),
            finished=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            kernel_image=kernel_stamp(c, self.tdir), engine="slurm" if self.slurm else "local",
            **({"slurm": self.slurm} if self.slurm else {})))
        if status != "ABORTED":
            detail = f"({reason})" if reason and status != "PASS" else ""
            skip = [x["name"] for x in (res or {}).get("checks", []) if skipped(x)]
            if skip and status in ("PASS", "XFAIL", "FAIL"):
                # neither passed nor failed: the run could not judge them
                detail += f"{' ' if detail else ''}(unmeasurable, precondition not met: {', '.join(skip)})"
            self.progress(c, status, detail, elapsed)
        return status

    def stop(self):
        self.stopping = True
        with self.lock:
            for p in list(self.procs.values()):
                kill_group(p)


def cell_env(c):
    """The environment a cell runs in: the matrix's, with KSRC set to its
    version's source when that is not the default (6.1 cells keep whatever
    KSRC the matrix has: --kvers refuses one, so with versions it has none)."""
    ksrc = kver_ksrc(cell_kver(c))
    return dict(os.environ, KSRC=ksrc) if ksrc else dict(os.environ)


def kernel_stamp(c, tdir):
    """Which bzImage a cell ran (size and mtime): the report warns when a matrix mixes builds."""
    try:
        img = os.path.join(kernel_obj_dir(c["kernel"], cell_build_variant(c, tdir),
                                          cell_env(c).get("KSRC", "")),
                           "arch/x86/boot/bzImage")
        st = os.stat(img)
    except (OSError, ContractError, BadInput):
        return None
    return f"{st.st_size}@{int(st.st_mtime)}"


def kill_group(p):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


def write_json(path, obj):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")
    os.replace(path + ".tmp", path)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topos")
    ap.add_argument("--scenarios")
    ap.add_argument("--modes")
    ap.add_argument("--lru")
    ap.add_argument("--kernels")
    ap.add_argument("--kvers", help="kernel versions, commas (default 6.1)")
    ap.add_argument("--variant", default="lab")
    ap.add_argument("--jobs", default="1")
    ap.add_argument("--matrix")
    ap.add_argument("--rerun", action="store_true")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--smoke", action="store_true")
    g.add_argument("--bench", action="store_true")
    ap.add_argument("--repeats", default="3")
    ap.add_argument("--cell-timeout", default=os.environ.get("CELL_TIMEOUT"))
    ap.add_argument("--results", default=os.path.join(TOP, "results"), help=argparse.SUPPRESS)
    ap.add_argument("--scenario-dir", help=argparse.SUPPRESS)   # host tests
    ap.add_argument("--topology-dir", help=argparse.SUPPRESS)   # host tests
    ap.add_argument("--list", action="store_true", help="print the cells and stop")
    ap.add_argument("--builds", action="store_true",
                    help="print the kernel builds the cells boot, one 'KSRC KERNEL VARIANT' line each "
                         "(KSRC '-': the environment's; '=PATH': that source, '=' Debian's 6.1), and stop")
    ap.add_argument("--format", default="text", help="--list as text (names), json (GitHub "
                    "Actions matrix) or gitlab (child pipeline)")
    ap.add_argument("--cells", help="only these cells of the selection (names, commas)")
    ap.add_argument("--engine", default=os.environ.get("ENGINE") or "local",
                    help="local (default) or slurm")
    ap.add_argument("--partition", default=os.environ.get("PARTITION") or None)
    ap.add_argument("--account", default=os.environ.get("ACCOUNT") or None)
    ap.add_argument("--time-limit", default=os.environ.get("TIME_LIMIT") or None,
                    help="Slurm minutes per cell (default: cell timeout + 5)")
    ap.add_argument("--slurm-task", help=argparse.SUPPRESS)     # one array task (slurm_engine)
    # seconds with no node answering before the array is given up (tests: a few)
    ap.add_argument("--slurm-grace", default=os.environ.get("DPLAB_SLURM_GRACE") or "60",
                    help=argparse.SUPPRESS)
    ap.add_argument("--no-report", action="store_true")
    return ap.parse_args(argv)


def posint(text, what, lo=1, hi=10000):
    if not str(text).isdigit() or not lo <= int(text) <= hi:
        raise BadInput(f"{what} must be a whole number {lo}..{hi}, not '{text}'")
    return int(text)


def plan(a):
    a.jobs = posint(a.jobs, "JOBS", 1, 64)
    a.repeats = posint(a.repeats, "REPEATS", 1, 100)
    if a.cell_timeout not in (None, ""):
        a.cell_timeout = posint(a.cell_timeout, "CELL_TIMEOUT", 1, 86400)
    else:
        a.cell_timeout = None
    name = a.matrix or ("smoke" if a.smoke else "bench" if a.bench else "matrix")
    if not name.replace("-", "").replace("_", "").replace(".", "").isalnum() or name.startswith("."):
        raise BadInput(f"MATRIX must be a plain name ([A-Za-z0-9._-]), not '{name}'")
    a.matrix = name
    tdir = a.topology_dir or os.path.join(TOP, "topologies")
    sdir = a.scenario_dir or os.path.join(TOP, "workloads", "scenarios")
    topologies = shipped_topologies(tdir)
    topos = split_list(a.topos, "topology", topologies) if a.topos else None
    modes = split_list(a.modes, "mode", MODES) if a.modes else None
    lrus = split_list(a.lru, "LRU", LRUS) if a.lru else (list(LRUS) if a.smoke else ["classic"])
    kernels = split_list(a.kernels, "kernel", KERNELS) if a.kernels else \
        (list(KERNELS) if a.bench else ["patched"])
    kvers = split_list(a.kvers, "kernel version", KVERS) if a.kvers else [DEFAULT_KVER]
    if a.kvers and os.environ.get("KSRC"):
        raise BadInput(f"KVERS picks each version's Debian source: not with KSRC={os.environ['KSRC']} "
                       "(nor KVER=); leave one out")
    if len(kvers) > 1 and os.environ.get("SERIES"):
        raise BadInput(f"SERIES={os.environ['SERIES']} is one series: KVERS names {len(kvers)} versions, "
                       "each takes its own (patches/series, patches/<version>/series)")
    names = split_list(a.scenarios, "scenario") if a.scenarios else None
    if names is None and a.bench:
        # The scenarios that make the bench's claims (issue 4), those that exist.
        have = [n for n in BENCH_SCENARIOS if os.path.isfile(os.path.join(sdir, n + ".sh"))]
        names = have or None
    scens = load_scenarios(sdir, names, topologies)
    if not scens:
        raise BadInput(f"no scenarios in {sdir}")
    if a.smoke:
        # a topology file's "smoke skip WHY" keeps it out of the cut (not out
        # of an explicit TOPOS=), said aloud like a scenario's SMOKE_SKIP
        in_cut = []
        for t in topologies:
            try:
                why = topology.load(os.path.join(tdir, t)).smoke_skip
            except topology.TopologyError as e:
                raise BadInput(str(e))
            if why and not topos:
                print(f"matrix: smoke: not in the cut: topology {t}: {why}", file=sys.stderr)
            else:
                in_cut.append(t)
        cells = smoke_cells(scens, topos, modes, lrus, kernels, a.variant, in_cut, kvers)
    elif a.bench:
        cells = bench_cells(scens, topos, modes, lrus, kernels, a.variant, a.repeats, kvers)
    else:
        cells = full_cells(scens, topos, modes, lrus, kernels, a.variant, kvers)
    if a.cells:
        by_name = {c["name"]: c for c in cells}
        wanted = split_list(a.cells, "cell")
        for w in wanted:
            if w not in by_name:
                raise BadInput(f"cell '{w}' is not in this selection "
                               f"(--list shows its {len(cells)} cells)")
        cells = [c for c in cells if c["name"] in wanted]
    return cells, scens


def check_engine(a):
    if a.engine not in ENGINES:
        raise BadInput(f"unknown ENGINE '{a.engine}' (known: {' '.join(ENGINES)})")
    if a.format not in FORMATS:
        raise BadInput(f"unknown --format '{a.format}' (known: {' '.join(FORMATS)})")
    if a.format != "text" and not a.list:
        raise BadInput("--format goes with --list")
    a.slurm_grace = posint(a.slurm_grace, "slurm grace", 1, 86400)
    if a.time_limit is not None:
        a.time_limit = posint(a.time_limit, "TIME_LIMIT (minutes)", 1, 100000)
    for what, v in (("PARTITION", a.partition), ("ACCOUNT", a.account)):
        if v is not None and (not v or not all(ch.isalnum() or ch in "-_." for ch in v)):
            raise BadInput(f"{what} must be a plain name ([A-Za-z0-9._-]), not '{v}'")
    if a.engine == "slurm":
        missing = [t for t in ("sbatch", "squeue", "scancel", "sinfo") if not shutil.which(t)]
        if missing:
            raise BadInput(f"ENGINE=slurm needs {', '.join(missing)} on PATH (Debian: slurm-client)")


# The make variables that select these cells: what a CI job passes to make
# so that `make <target> ... CELLS=<cell>` plans the same matrix.
def make_selection(a):
    target = "matrix-smoke" if a.smoke else "bench" if a.bench else "matrix"
    args = [target]
    for var, val in (("TOPOS", a.topos), ("SCENARIOS", a.scenarios), ("MODES", a.modes),
                     ("LRU", a.lru), ("KERNELS", a.kernels), ("KVERS", a.kvers), ("MATRIX", a.matrix)):
        if val:
            args.append(f"{var}={val}")
    if a.bench:
        args.append(f"REPEATS={a.repeats}")
    if a.variant != "lab":
        args.append(f"VARIANT={a.variant}")
    return args


@functools.lru_cache(maxsize=None)
def topology_disk_fs(tdir, name):
    """The filesystem of a topology's test disk (every topology has one):
    read once per topology, however many cells name it."""
    try:
        return topology.load(os.path.join(tdir, name)).disk.fs
    except topology.TopologyError as e:
        raise BadInput(str(e))


def cell_build_variant(c, tdir):
    """The kernel variant a cell boots: its VARIANT, or xfs for a lab cell on
    a topology whose disk is XFS (dplab.contract.build_variant, as run.py)."""
    return build_variant(c["variant"], topology_disk_fs(tdir, c["topology"]))


def cell_builds(a, cells):
    """The Makefile's kernel builds before a matrix runs: one 'KSRC KERNEL
    VARIANT' line per build the cells boot, in the cells' order.  KSRC is
    '-' without KVERS (the environment's source), else '=' and the version's
    source (empty for Debian's 6.1)."""
    tdir = a.topology_dir or os.path.join(TOP, "topologies")
    seen = []
    for c in cells:
        src = "=" + (kver_ksrc(cell_kver(c)) or "") if a.kvers else "-"
        b = f"{src} {c['kernel']} {cell_build_variant(c, tdir)}"
        if b not in seen:
            seen.append(b)
    return seen


def list_cells(a, cells):
    if a.format == "text":
        for c in cells:
            print(c["name"])
        return
    sel = make_selection(a)
    if a.format == "json":
        rows = []
        for c in cells:
            row = dict(c)
            row["out"] = f"results/{a.matrix}/{c['name']}"
            row["make"] = " ".join(["make"] + [shlex.quote(x) for x in sel + [f"CELLS={c['name']}"]])
            rows.append(row)
        json.dump({"include": rows}, sys.stdout, indent=1)
        print()
        return
    # gitlab: a child pipeline; CELL takes each name, one job per cell
    # (parallel:matrix), then the report over every job's artifacts
    q = json.dumps     # a JSON string is a YAML scalar
    print("# generated by launch/matrix.py --list --format gitlab: a child pipeline")
    print("stages: [cells, report]")
    print("default:")
    print("  image: debian:12")
    print("  before_script:")
    print("    - " + q("apt-get update -qq && apt-get install -y -qq make python3"))
    print("cell:")
    print("  stage: cells")
    print("  script:")
    print("    - " + q("make " + " ".join(shlex.quote(x) for x in sel) + " CELLS=$CELL"))
    print("  artifacts:")
    print("    when: always")
    print("    paths: [" + q(f"results/{a.matrix}/") + "]")
    print("  parallel:")
    print("    matrix:")
    print("      - CELL:")
    for c in cells:
        print("          - " + q(c["name"]))
    print("report:")
    print("  stage: report")
    print("  when: always")
    print("  script:")
    print("    - " + q(f"python3 launch/report.py results/{a.matrix}"))
    print("  artifacts:")
    print("    paths: [" + q(f"results/{a.matrix}/report.md") + ", " + q(f"results/{a.matrix}/report.html") + "]")


def main(argv):
    a = parse_args(argv)
    if a.slurm_task:
        return slurm_engine.array_task(a.slurm_task, a)
    try:
        check_engine(a)
        cells, scens = plan(a)
    except BadInput as e:
        print(f"matrix: {e}", file=sys.stderr)
        return 2
    if a.list:
        list_cells(a, cells)
        return 0
    if a.builds:
        try:
            for line in cell_builds(a, cells):
                print(line)
        except BadInput as e:
            print(f"matrix: {e}", file=sys.stderr)
            return 2
        return 0
    root = os.path.abspath(os.path.join(a.results, a.matrix))
    os.makedirs(root, exist_ok=True)
    r = Runner(a, root, cells, scens)
    todo, statuses = [], {}
    for c in cells:
        res = read_json(os.path.join(root, c["name"], "result.json"))
        if res is not None and not a.rerun:
            statuses[c["name"]] = verdict_of(res)
        else:
            todo.append(c)
    r.to_run = len(todo)
    where = " under Slurm" if a.engine == "slurm" else ""
    print(f"matrix: {a.matrix}: {len(cells)} cells, {len(cells) - len(todo)} done before, "
          f"{len(todo)} to run{where}, {a.jobs} at a time; results in {os.path.relpath(root)}/",
          flush=True)
    for c in cells:
        if c["name"] in statuses:
            r.progress(c, statuses[c["name"]], "(done before; RERUN=1 runs it again)", None)

    def on_signal(signum, frame):
        r.stop()
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)
    interrupted = False
    if a.engine == "slurm":
        interrupted = slurm_engine.run(a, r, todo, statuses, argv) == "interrupted"
    else:
        ex = concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs)
        try:
            futs = {ex.submit(r.run_cell, c): c for c in todo}
            for f in concurrent.futures.as_completed(futs):
                statuses[futs[f]["name"]] = f.result()
        except KeyboardInterrupt:
            # Kill the running cells first: shutdown() waits for them.
            interrupted = True
            r.stop()
        finally:
            ex.shutdown(wait=True, cancel_futures=True)
    counts = {}
    for s in statuses.values():
        counts[s] = counts.get(s, 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "no cell finished"
    print(f"matrix: {a.matrix}: {summary}; wall {fmt_s(time.monotonic() - r.t0)}", flush=True)
    if not a.no_report:
        rep = subprocess.run([sys.executable, os.path.join(TOP, "launch", "report.py"), root],
                             capture_output=True, text=True)
        sys.stdout.write(rep.stdout)
        sys.stderr.write(rep.stderr)
        write_test_formats(root, cells, statuses)
    if interrupted:
        print("matrix: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    return 0 if all(s in PASSING_VERDICTS for s in statuses.values()) and \
        len(statuses) == len(cells) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
