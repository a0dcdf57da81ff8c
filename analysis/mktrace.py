#!/usr/bin/env python3
"""Write a synthetic trace.dat (trace-cmd file format v6) with the events dpanalyze reads.

Why: the series' kernel (writeback:dirty_pressure, global_dirty_state.pressure) may not
exist yet, and tests need traces whose true metrics are known. The file is written in
the documented v6 format (trace-cmd.dat.v6(5)) with ring-buffer pages as the 6.1 kernel
lays them out, so trace-cmd report, libtracecmd and KernelShark read it like a real one.

Usage: mktrace.py OUT.dat [--seconds S] [--stock] [--v2] [--block] [--sched] [--scale N]
                  [--truth FILE]
  --stock    no dirty_pressure event and no global_dirty_state.pressure (stock 6.1)
  --v2       the fields the series v2 appends for what the throttle compared against:
             global_dirty_state.freerun, balance_dirty_pages.{freerun, pos_ratio,
             node_dirty, node_freerun, node_limit}, appended unsigned longs as the v2
             kernel lays them out (tests/host/analysis.t compares them with a real v2 trace)
  --block    block:block_bio_queue events as 6.1 lays them out: the flusher's bios and
             kswapd's (one page for every second file pageout, one metadata bio per
             reclaim episode, one 8-page bio from kswapd1)
  --sched    sched:sched_switch as 6.1 lays it out, from a small two-CPU scheduler: a hog
             bound to CPU 0, two "dirtier" processes one after the other (the second
             migrates), kworker and kswapd threads; the truth holds each dirtier's and the
             hog's time on a CPU, runnable, blocked, sleeping, and who ran while it waited
  --scale N  multiply the event rate by N (for the benchmark's large trace)
  --truth F  write the generated ground truth (counts, fast_down matches) as JSON
"""
import argparse
import json
import random
import struct
import sys

PAGE = 4096
HEADER_PAGE = (
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n")
HEADER_EVENT = (
    "# compressed entry header\n"
    "\ttype_len    :    5 bits\n"
    "\ttime_delta  :   27 bits\n"
    "\tarray       :   32 bits\n\n"
    "\tpadding     : type == 29\n"
    "\ttime_extend : type == 30\n"
    "\ttime_stamp : type == 31\n"
    "\tdata max type_len  == 28\n")

# (type text, name, size, signed); arrays as ("char", "bdi[32]", 32, 1)
UL = ("unsigned long", 8, 0)
L = ("long", 8, 1)
I = ("int", 4, 1)
UI = ("unsigned int", 4, 0)


def f(t, name):
    return (t[0], name, t[1], t[2])


RECLAIM_FLAGS = ('(REC->reclaim_flags) ? __print_flags(REC->reclaim_flags, "|", '
                 '{0x0001u, "RECLAIM_WB_ANON"}, {0x0002u, "RECLAIM_WB_FILE"}, '
                 '{0x0010u, "RECLAIM_WB_MIXED"}, {0x0004u, "RECLAIM_WB_SYNC"}, '
                 '{0x0008u, "RECLAIM_WB_ASYNC"}) : "RECLAIM_WB_NONE"')


def events(stock, v2=False, block=False, sched=False):
    ev = []
    gds = [f(UL, "nr_dirty"), f(UL, "nr_writeback"), f(UL, "background_thresh"),
           f(UL, "dirty_thresh"), f(UL, "dirty_limit"), f(UL, "nr_dirtied"),
           f(UL, "nr_written")]
    gfmt = ('"dirty=%lu writeback=%lu bg_thresh=%lu thresh=%lu limit=%lu dirtied=%lu '
            'written=%lu')
    gargs = ("REC->nr_dirty, REC->nr_writeback, REC->background_thresh, REC->dirty_thresh, "
             "REC->dirty_limit, REC->nr_dirtied, REC->nr_written")
    if not stock:
        gds.append(f(UL, "pressure"))
        gfmt += ' pressure=%lu'
        gargs += ", REC->pressure"
    if v2:
        gds.append(f(UL, "freerun"))
        gfmt += ' freerun=%lu'
        gargs += ", REC->freerun"
    ev.append(("writeback", "global_dirty_state", gds, gfmt + '", ' + gargs))
    if not stock:
        ev.append(("writeback", "dirty_pressure",
                    [f(I, "nid"), f(UI, "old"), f(UI, "new"), f(I, "priority"), f(I, "reason")],
                    '"nid=%d old=%u new=%u priority=%d reason=%s", REC->nid, REC->old, REC->new, '
                    'REC->priority, __print_symbolic(REC->reason, { 0, "fast_down" }, '
                    '{ 1, "slow_up" }, { 2, "write" }, { 3, "reset" })'))
    ev.append(("writeback", "bdi_dirty_ratelimit",
               [("char", "bdi[32]", 32, 1), f(UL, "write_bw"), f(UL, "avg_write_bw"),
                f(UL, "dirty_rate"), f(UL, "dirty_ratelimit"), f(UL, "task_ratelimit"),
                f(UL, "balanced_dirty_ratelimit"), ("ino_t", "cgroup_ino", 8, 0)],
               '"bdi %s: write_bw=%lu awrite_bw=%lu dirty_rate=%lu dirty_ratelimit=%lu '
               'task_ratelimit=%lu balanced_dirty_ratelimit=%lu cgroup_ino=%lu", REC->bdi, '
               'REC->write_bw, REC->avg_write_bw, REC->dirty_rate, REC->dirty_ratelimit, '
               'REC->task_ratelimit, REC->balanced_dirty_ratelimit, '
               '(unsigned long)REC->cgroup_ino'))
    bdf = [("char", "bdi[32]", 32, 1), f(UL, "limit"), f(UL, "setpoint"), f(UL, "dirty"),
           f(UL, "bdi_setpoint"), f(UL, "bdi_dirty"), f(UL, "dirty_ratelimit"),
           f(UL, "task_ratelimit"), f(UI, "dirtied"), f(UI, "dirtied_pause"),
           f(UL, "paused"), f(L, "pause"), f(UL, "period"), f(L, "think"),
           ("ino_t", "cgroup_ino", 8, 0)]
    bfmt = ('"bdi %s: limit=%lu setpoint=%lu dirty=%lu bdi_setpoint=%lu bdi_dirty=%lu '
            'dirty_ratelimit=%lu task_ratelimit=%lu dirtied=%u dirtied_pause=%u paused=%lu '
            'pause=%ld period=%lu think=%ld cgroup_ino=%lu')
    bargs = ('REC->bdi, REC->limit, REC->setpoint, REC->dirty, REC->bdi_setpoint, REC->bdi_dirty, '
             'REC->dirty_ratelimit, REC->task_ratelimit, REC->dirtied, REC->dirtied_pause, '
             'REC->paused, REC->pause, REC->period, REC->think, (unsigned long)REC->cgroup_ino')
    if v2:
        bdf += [f(UL, "freerun"), f(UL, "pos_ratio"), f(UL, "node_dirty"), f(UL, "node_freerun"),
                f(UL, "node_limit")]
        bfmt += ' freerun=%lu pos_ratio=%lu node_dirty=%lu node_freerun=%lu node_limit=%lu'
        bargs += (', REC->freerun, REC->pos_ratio, REC->node_dirty, REC->node_freerun, '
                  'REC->node_limit')
    ev.append(("writeback", "balance_dirty_pages", bdf, bfmt + '", ' + bargs))
    if block:
        # include/trace/events/block.h, class block_bio (6.1)
        ev.append(("block", "block_bio_queue",
                   [("dev_t", "dev", 4, 0), ("sector_t", "sector", 8, 0), f(UI, "nr_sector"),
                    ("char", "rwbs[8]", 8, 1), ("char", "comm[16]", 16, 1)],
                   '"%d,%d %s %llu + %u [%s]", ((unsigned int) ((REC->dev) >> 20)), '
                   '((unsigned int) ((REC->dev) & ((1U << 20) - 1))), REC->rwbs, '
                   '(unsigned long long)REC->sector, REC->nr_sector, REC->comm'))
    if sched:
        # include/trace/events/sched.h, sched_switch (6.1)
        ev.append(("sched", "sched_switch",
                   [("char", "prev_comm[16]", 16, 1), ("pid_t", "prev_pid", 4, 1),
                    f(I, "prev_prio"), f(L, "prev_state"), ("char", "next_comm[16]", 16, 1),
                    ("pid_t", "next_pid", 4, 1), f(I, "next_prio")],
                   '"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s '
                   'next_pid=%d next_prio=%d", REC->prev_comm, REC->prev_pid, REC->prev_prio, '
                   '(REC->prev_state & 0xff) ? __print_flags(REC->prev_state & 0xff, "|", '
                   '{ 0x01, "S" }, { 0x02, "D" }, { 0x04, "T" }, { 0x08, "t" }, { 0x10, "X" }, '
                   '{ 0x20, "Z" }, { 0x40, "P" }, { 0x80, "I" }) : "R", '
                   'REC->prev_state & 0x100 ? "+" : "", REC->next_comm, REC->next_pid, '
                   'REC->next_prio'))
    wbw = [("char", "name[32]", 32, 1), f(L, "nr_pages"), ("dev_t", "sb_dev", 4, 0),
           f(I, "sync_mode"), f(I, "for_kupdate"), f(I, "range_cyclic"),
           f(I, "for_background"), f(I, "reason"), ("ino_t", "cgroup_ino", 8, 0)]
    wfmt = ('"bdi %s: sb_dev %d:%d nr_pages=%ld sync_mode=%d kupdate=%d range_cyclic=%d '
            'background=%d reason=%s cgroup_ino=%lu", REC->name, ((unsigned int) '
            '((REC->sb_dev) >> 20)), ((unsigned int) ((REC->sb_dev) & ((1U << 20) - 1))), '
            'REC->nr_pages, REC->sync_mode, REC->for_kupdate, REC->range_cyclic, '
            'REC->for_background, __print_symbolic(REC->reason, { 0, "background" }, '
            '{ 1, "vmscan" }, { 2, "sync" }, { 3, "periodic" }, { 4, "laptop_timer" }, '
            '{ 5, "fs_free_space" }, { 6, "forker_thread" }, { 7, "foreign_flush" }), '
            '(unsigned long)REC->cgroup_ino')
    ev.append(("writeback", "writeback_start", wbw, wfmt))
    ev.append(("writeback", "writeback_written", wbw, wfmt))
    ev.append(("vmscan", "mm_vmscan_kswapd_sleep", [f(I, "nid")], '"nid=%d", REC->nid'))
    ev.append(("vmscan", "mm_vmscan_kswapd_wake", [f(I, "nid"), f(I, "zid"), f(I, "order")],
               '"nid=%d order=%d", REC->nid, REC->order'))
    ev.append(("vmscan", "mm_vmscan_direct_reclaim_begin",
               [f(I, "order"), ("unsigned long", "gfp_flags", 8, 0)],
               '"order=%d gfp_flags=0x%lx", REC->order, REC->gfp_flags'))
    ev.append(("vmscan", "mm_vmscan_direct_reclaim_end", [f(UL, "nr_reclaimed")],
               '"nr_reclaimed=%lu", REC->nr_reclaimed'))
    ev.append(("vmscan", "mm_vmscan_write_folio", [f(UL, "pfn"), f(I, "reclaim_flags")],
               '"page=%p pfn=0x%lx flags=%s", (void *)0, REC->pfn, ' + RECLAIM_FLAGS))
    ev.append(("vmscan", "mm_vmscan_lru_shrink_inactive",
               [f(I, "nid"), f(UL, "nr_scanned"), f(UL, "nr_reclaimed"), f(UL, "nr_dirty"),
                f(UL, "nr_writeback"), f(UL, "nr_congested"), f(UL, "nr_immediate"),
                f(UI, "nr_activate0"), f(UI, "nr_activate1"), f(UL, "nr_ref_keep"),
                f(UL, "nr_unmap_fail"), f(I, "priority"), f(I, "reclaim_flags")],
               '"nid=%d nr_scanned=%ld nr_reclaimed=%ld nr_dirty=%ld nr_writeback=%ld '
               'nr_congested=%ld nr_immediate=%ld nr_activate_anon=%d nr_activate_file=%d '
               'nr_ref_keep=%ld nr_unmap_fail=%ld priority=%d flags=%s", REC->nid, '
               'REC->nr_scanned, REC->nr_reclaimed, REC->nr_dirty, REC->nr_writeback, '
               'REC->nr_congested, REC->nr_immediate, REC->nr_activate0, REC->nr_activate1, '
               'REC->nr_ref_keep, REC->nr_unmap_fail, REC->priority, ' + RECLAIM_FLAGS))
    ev.append(("vmscan", "mm_vmscan_throttled",
               [f(I, "nid"), f(I, "usec_timeout"), f(I, "usec_delayed"), f(I, "reason")],
               '"nid=%d usec_timeout=%d usect_delayed=%d reason=%d", REC->nid, '
               'REC->usec_timeout, REC->usec_delayed, REC->reason'))
    return ev


class Event:
    def __init__(self, eid, system, name, fields, pfmt):
        self.id, self.system, self.name = eid, system, name
        self.layout = []  # (name, offset, size, signed, is_array)
        off = 8
        lines = ["\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;",
                 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;",
                 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;",
                 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;", ""]
        for typ, fname, size, signed in fields:
            arr = "[" in fname
            align = 1 if arr else size
            off = (off + align - 1) // align * align
            lines.append("\tfield:%s %s;\toffset:%d;\tsize:%d;\tsigned:%d;"
                         % (typ, fname, off, size, signed))
            self.layout.append((fname.split("[")[0], off, size, signed, arr))
            off += size
        self.size = (off + 3) // 4 * 4
        self.format = ("name: %s\nID: %d\nformat:\n%s\n\nprint fmt: %s\n"
                       % (name, eid, "\n".join(lines), pfmt))

    def pack(self, pid, vals):
        buf = bytearray(self.size)
        struct.pack_into("<HBBi", buf, 0, self.id, 0, 0, pid)
        for fname, off, size, signed, arr in self.layout:
            v = vals.get(fname, 0)
            if arr:
                b = v.encode()[:size - 1]
                buf[off:off + len(b)] = b
            else:
                code = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
                struct.pack_into("<" + (code if signed else code.upper()), buf, off, v)
        return bytes(buf)


class CpuStream:
    """Ring-buffer pages for one CPU, as the 6.1 kernel writes them."""

    def __init__(self):
        self.pages, self.cur, self.base, self.last = [], bytearray(), None, None

    def flush(self):
        if self.base is None:
            return
        page = struct.pack("<QQ", self.base, len(self.cur)) + bytes(self.cur)
        self.pages.append(page + bytes(PAGE - len(page)))
        self.cur, self.base = bytearray(), None

    def add(self, ts, payload):
        if len(payload) <= 112:
            hdr_len, extra = len(payload) // 4, b""
        else:  # type_len 0: the length (payload + 4) sits in array[0]
            hdr_len, extra = 0, struct.pack("<I", len(payload) + 4)
        need = 4 + len(extra) + len(payload)
        delta = 0 if self.base is None else ts - self.last
        ext = b""
        if delta >= (1 << 27):  # TIME_EXTEND: 59-bit delta in two words
            ext = struct.pack("<II", 30 | ((delta & ((1 << 27) - 1)) << 5), delta >> 27)
            delta = 0
        if self.base is None or len(self.cur) + len(ext) + need > PAGE - 16:
            self.flush()
            self.base, ext, delta = ts, b"", 0
        self.cur += ext + struct.pack("<I", hdr_len | (delta << 5)) + extra + payload
        self.last = ts


def write_dat(path, evs, streams, comms):
    out = bytearray(b"\x17\x08\x44tracing6\x00\x00\x08")
    out += struct.pack("<I", PAGE)
    for tag, text in ((b"header_page\x00", HEADER_PAGE), (b"header_event\x00", HEADER_EVENT)):
        out += tag + struct.pack("<Q", len(text)) + text.encode()
    out += struct.pack("<I", 0)  # no ftrace formats
    systems = []
    for e in evs:
        if e.system not in systems:
            systems.append(e.system)
    out += struct.pack("<I", len(systems))
    for s in systems:
        mine = [e for e in evs if e.system == s]
        out += s.encode() + b"\x00" + struct.pack("<I", len(mine))
        for e in mine:
            out += struct.pack("<Q", len(e.format)) + e.format.encode()
    out += struct.pack("<I", 0) + struct.pack("<I", 0)  # kallsyms, printk
    cmd = "".join("%d %s\n" % (p, c) for p, c in comms).encode()
    out += struct.pack("<Q", len(cmd)) + cmd
    out += struct.pack("<I", len(streams))
    out += b"options  \x00" + struct.pack("<H", 0) + b"flyrecord\x00"
    table_at = len(out)
    out += bytes(16 * len(streams))
    offsets = []
    for s in streams:
        s.flush()
        pad = (-len(out)) % PAGE
        out += bytes(pad)
        offsets.append((len(out), PAGE * len(s.pages)))
        for p in s.pages:
            out += p
    for i, (o, sz) in enumerate(offsets):
        struct.pack_into("<QQ", out, table_at + 16 * i, o, sz)
    with open(path, "wb") as fh:
        fh.write(out)


def simulate(args):
    """A two-node story: a writer on node 0, reclaim lowers node 0's pressure, idle recovery."""
    rnd = random.Random(args.seed)
    evs = events(args.stock, args.v2, args.block, args.sched)
    byname = {}
    for i, (sy, nm, fl, pf) in enumerate(evs):
        byname[nm] = Event(300 + i, sy, nm, fl, pf)
    recs = []  # (ts_ns, cpu, pid, event, vals)

    def emit(ts, cpu, pid, evname, **vals):
        if evname in byname:
            recs.append((int(ts * 1e9) + 1000000000, cpu, pid, byname[evname], vals))

    T = args.seconds
    last_prio = -1
    truth = {"fast_down": 0, "fast_down_formula_ok": 0, "fast_down_priority_matched": 0,
             "fast_down_preceding_priority_matched": 0,
             "slow_up": 0, "file_pageout": 0, "kswapd_wake": {0: 0, 1: 0},
             "slow_up_while_kswapd_awake": 0,
             "kswapd_write_pages": 0, "kswapd_write_node0_pages": 0, "kswapd_write_node1_pages": 0,
             "kswapd_meta_pages": 0, "block_write_pages": 0,
             "pos_ratio": [], "node_domain_calls": 0, "node_dirty_at_limit_calls": 0,
             "node_calls": [],
             "freerun_min": None}
    sector = [0]

    def bio(t, cpu, pid, comm, pages, rwbs="W"):
        # 4 KiB pages, 512-byte sectors; dev 254:0 as the lab's virtio disk
        emit(t, cpu, pid, "block_bio_queue", dev=(254 << 20), sector=sector[0], nr_sector=pages * 8,
             rwbs=rwbs, comm=comm)
        sector[0] += pages * 8
        if args.block:
            truth["block_write_pages"] += pages
    pressure = {0: 1024, 1: 1024}
    dirty, dirtied, written = 2000, 0, 0
    step = 0.01 / args.scale
    t = 0.0
    next_bdp, next_gds, next_bw = 0.05, 0.0, 0.2
    bw = 25600
    done, reset = set(), False
    while t < T:
        t += step * (0.5 + rnd.random())
        # the dirtying task, pid 100 on cpu 0
        if t >= next_bdp:
            pause = rnd.choice([0, 4, 8, 12, 20, 40, 80, 120, 200])
            paused = rnd.choice([0, 0, 10, 30])
            # v2: pos_ratio falls from 1.5 to 0.5 over the run; a node domain during
            # node 0's reclaim episodes (0 outside: no node domain)
            pos = int(1024 * (1.5 - t / T))
            free = 35000 * min(pressure.values()) // 1024
            nodedom = any(lo * T < t < hi * T for lo, hi in ((0.20, 0.30), (0.55, 0.65)))
            # late in the second episode the node's dirty pages reach its limit and pass it
            # and early in the first it is under its freerun ceiling (6000)
            ndirty = (12000 + int(4000 * (t / T - 0.60) / 0.05) if t > 0.60 * T
                      else 5000 if t < 0.25 * T else 9000) if nodedom else 0
            call = dict(bdi="254:0", limit=60000, setpoint=40000,
                        dirty=dirty, bdi_setpoint=38000, bdi_dirty=dirty - 100,
                        dirty_ratelimit=bw, task_ratelimit=bw // 2, dirtied=32, dirtied_pause=32,
                        paused=paused, pause=pause, period=pause + 5, think=3,
                        freerun=free, pos_ratio=pos)
            nfree, nlimit = (6000, 12000) if nodedom else (0, 0)
            emit(t, 0, 100, "balance_dirty_pages", **call, node_dirty=ndirty,
                 node_freerun=nfree, node_limit=nlimit)
            # --node-writers N[:D]: N - 1 more bound writers (pids 101...), the
            # same call each, spread over D node domains (domain d's limits
            # 1 + d times the first's); not in the truth, which is pid 100's
            for k in range(1, getattr(args, "writers", 1)):
                f = 1 + k % getattr(args, "domains", 1)
                emit(t + k * 1e-4, 0, 100 + k, "balance_dirty_pages", **call,
                     node_dirty=ndirty * f, node_freerun=nfree * f, node_limit=nlimit * f)
            if args.v2:
                truth["pos_ratio"].append(pos / 1024)
                truth["node_domain_calls"] += 1 if nodedom else 0
                truth["node_dirty_at_limit_calls"] += 1 if nodedom and ndirty >= 12000 else 0
                if nodedom:
                    truth["node_calls"].append((ndirty - 6000) / 6000)
                truth["freerun_min"] = free if truth["freerun_min"] is None else min(truth["freerun_min"], free)
            next_bdp = t + max(pause, 5) / 1000.0 * (1 + rnd.random()) / args.scale
            dirty += 300
            dirtied += 300
        if t >= next_gds:
            emit(t, 0, 100, "global_dirty_state", nr_dirty=dirty, nr_writeback=800,
                 background_thresh=10000, dirty_thresh=60000, dirty_limit=60000,
                 nr_dirtied=dirtied, nr_written=written, pressure=min(pressure.values()),
                 freerun=35000 * min(pressure.values()) // 1024)
            next_gds = t + 0.02 / args.scale
        if t >= next_bw:
            bw = int(bw * 0.9 + 30720 * 0.1)
            emit(t, 1, 50, "bdi_dirty_ratelimit", bdi="254:0", write_bw=bw + rnd.randint(-500, 500),
                 avg_write_bw=bw, dirty_rate=bw, dirty_ratelimit=bw, task_ratelimit=bw,
                 balanced_dirty_ratelimit=bw)
            n = rnd.randint(200, 2000)
            emit(t, 1, 50, "writeback_start", name="254:0", nr_pages=n, sb_dev=(254 << 20),
                 range_cyclic=1, for_background=1, reason=0)
            emit(t + 0.001, 1, 50, "writeback_written", name="254:0", nr_pages=n,
                 sb_dev=(254 << 20), range_cyclic=1, for_background=1, reason=0)
            bio(t + 0.0005, 1, 50, "kworker/u4:1", 256)
            written += n
            dirty = max(1000, dirty - n)
            next_bw = t + 0.2 / args.scale
        # two reclaim episodes on node 0; each ends with kswapd asleep and a 64 steps/s recovery
        for lo, hi in ((0.20, 0.30), (0.55, 0.65)):
            if lo * T < t < hi * T and rnd.random() < 0.3:
                if rnd.random() < 0.2:
                    truth["kswapd_wake"][0] += 1
                    emit(t, 0, 30, "mm_vmscan_kswapd_wake", nid=0, zid=1, order=0)
                prio = rnd.choice([12, 12, 11, 10, 9, 8])
                # as in the series: the fast_down (below) comes inside the batch, before its
                # mm_vmscan_lru_shrink_inactive, which follows 2 us later
                emit(t + 2e-6, 0, 30, "mm_vmscan_lru_shrink_inactive", nid=0, nr_scanned=32,
                     nr_reclaimed=20, nr_dirty=12, priority=prio, reclaim_flags=0x2 | 0x8)
                for _ in range(rnd.randint(0, 2)):
                    fl = rnd.choice([0x2 | 0x8, 0x1 | 0x8])
                    truth["file_pageout"] += 1 if fl & 0x2 else 0
                    emit(t + 1e-6, 0, 30, "mm_vmscan_write_folio", pfn=rnd.randint(1, 1 << 20),
                         reclaim_flags=fl)
                    # every second file pageout really goes to the disk (ext4 refuses
                    # delalloc folios from reclaim: the others wrote nothing)
                    if fl & 0x2 and truth["file_pageout"] % 2 == 0 and args.block:
                        truth["kswapd_write_pages"] += 1
                        truth["kswapd_write_node0_pages"] += 1
                    if fl & 0x2 and truth["file_pageout"] % 2 == 0:
                        bio(t + 1.5e-6, 0, 30, "kswapd0", 1)
                new = 1024 >> (13 - prio)
                if new < pressure[0] and not args.stock:
                    # every 3rd fast_down claims another priority than the scan's: planted
                    claim = prio if truth["fast_down"] % 3 else prio + 1
                    truth["fast_down"] += 1
                    truth["fast_down_formula_ok"] += 1 if new == 1024 >> (13 - claim) else 0
                    truth["fast_down_priority_matched"] += 1 if claim == prio else 0
                    truth["fast_down_preceding_priority_matched"] += 1 if claim == last_prio else 0
                    emit(t + 1e-6, 0, 30, "dirty_pressure", nid=0, old=pressure[0], new=new,
                         priority=claim, reason=0)
                    pressure[0] = new
                last_prio = prio
            if t >= hi * T and (lo, hi) not in done:
                done.add((lo, hi))
                # metadata written by kswapd (an inode shrinker): not reclaim's page cache
                bio(t - 1e-6, 0, 30, "kswapd0", 2, "WSM")
                truth["kswapd_meta_pages"] += 2 if args.block else 0
                emit(t, 0, 30, "mm_vmscan_kswapd_sleep", nid=0)
                rec_t = t
                rises = 0
                while pressure[0] < 1024 and not args.stock and rec_t < t + 0.2 * T:
                    rec_t += 8 / 64
                    new = min(1024, pressure[0] + 8)
                    truth["slow_up"] += 1
                    # planted: the 3rd rise of each recovery while kswapd0 is awake
                    rises += 1
                    if rises == 3:
                        truth["kswapd_wake"][0] += 1
                        truth["slow_up_while_kswapd_awake"] += 1
                        emit(rec_t - 0.01, 0, 30, "mm_vmscan_kswapd_wake", nid=0, zid=1, order=0)
                        emit(rec_t + 0.01, 0, 30, "mm_vmscan_kswapd_sleep", nid=0)
                    emit(rec_t, 0, 30, "dirty_pressure", nid=0, old=pressure[0], new=new,
                         priority=0, reason=1)
                    pressure[0] = new
        if 0.22 * T < t < 0.26 * T and rnd.random() < 0.02:
            emit(t, 1, 200, "mm_vmscan_direct_reclaim_begin", order=0, gfp_flags=0xcc0)
            emit(t + 0.003, 1, 200, "mm_vmscan_direct_reclaim_end", nr_reclaimed=32)
            emit(t + 0.003, 1, 200, "mm_vmscan_throttled", nid=0, usec_timeout=100000,
                 usec_delayed=2000, reason=0)
        if t >= 0.9 * T and not reset:
            reset = True
            truth["kswapd_wake"][1] += 1
            emit(t, 1, 31, "mm_vmscan_kswapd_wake", nid=1, zid=1, order=0)
            bio(t + 0.005, 1, 31, "kswapd1", 8)
            if args.block:
                truth["kswapd_write_pages"] += 8
                truth["kswapd_write_node1_pages"] += 8
            emit(t + 0.01, 1, 31, "mm_vmscan_kswapd_sleep", nid=1)
            if not args.stock:
                emit(t, 1, 0, "dirty_pressure", nid=1, old=1024, new=1024, priority=0, reason=3)
    story = sched_story(rnd, T, emit) if args.sched else None
    recs.sort(key=lambda r: r[0])
    if story:
        truth["sched"] = sched_truth(recs, story)
    streams = [CpuStream(), CpuStream()]
    counts = {}
    for ts, cpu, pid, ev, vals in recs:
        streams[cpu].add(ts, ev.pack(pid, vals))
        counts[ev.name] = counts.get(ev.name, 0) + 1
    truth["counts"] = counts
    if truth["pos_ratio"]:
        p = sorted(truth["pos_ratio"])
        # nearest rank, as dpanalyze's pct()
        truth["pos_ratio_min"], truth["pos_ratio_max"] = p[0], p[-1]
        truth["pos_ratio_p50"] = p[max(1, -(-len(p) * 50 // 100)) - 1]
    del truth["pos_ratio"]
    # where the node domain held pid 100, every call in time order; above its
    # freerun ceiling (position > 0) over the run, and over its second half
    calls = truth.pop("node_calls")
    late = calls[len(calls) // 2:]
    p = sorted(x for x in calls if x > 0)
    if p:
        truth["node_position_p50"] = p[max(1, -(-len(p) * 50 // 100)) - 1]
    truth["node_throttled_calls"] = len(p)
    truth["node_dirty_at_limit_late_calls"] = sum(1 for x in late if x >= 1)
    lp = sorted(x for x in late if x > 0)
    if lp:
        truth["node_position_late_p50"] = lp[max(1, -(-len(lp) * 50 // 100)) - 1]
    comms = [(100, "dd"), (30, "kswapd0"), (31, "kswapd1"), (50, "kworker/u4:1"), (200, "hog")]
    return list(byname.values()), streams, comms, truth


# sched_switch prev_state as 6.1 reports it
SCHED_R, SCHED_PREEMPTED, SCHED_S, SCHED_D, SCHED_Z, SCHED_I = 0, 0x100, 0x01, 0x02, 0x20, 0x80
SCHED_CLASS = {SCHED_R: "runnable", SCHED_PREEMPTED: "runnable", SCHED_S: "sleeping",
               SCHED_I: "sleeping", SCHED_D: "blocked"}


def sched_story(rnd, T, emit):
    """A two-CPU scheduler, as far as sched_switch shows it.  The hog is bound to CPU 0;
    dirtier 400 runs on CPU 0 from 0.1 T to 0.55 T, dirtier 401 from 0.5 T to 0.85 T and
    moves between the CPUs when preempted, and a third dirtier from 0.88 T reuses the
    first one's pid 400; kswapd0 (CPU 0), a kworker and jbd2 (CPU 1) wake periodically.
    A task that migrates to an idle CPU is switched out and in at one timestamp, which
    trace readers may order either way.  Tasks are named by task ids (402 is the third
    dirtier); the events carry their pids.
    Returns what happened, as the analysis must find it: each followed task's states from
    its first switch in, and what ran on each CPU."""
    comm = {200: "hog", 400: "dirtier", 401: "dirtier", 402: "dirtier", 30: "kswapd0",
            60: "kworker/1:2", 61: "jbd2/vda-8"}
    folded = {200: "hog", 400: "dirtier", 401: "dirtier", 402: "dirtier", 30: "kswapd",
              60: "kworker", 61: "jbd2", 0: "idle"}
    pid_of = {402: 400}
    home = {200: 0, 400: 0, 401: 1, 402: 1, 30: 0, 60: 1, 61: 1}
    exits = {400: 0.55 * T, 401: 0.85 * T, 402: 0.93 * T}
    exited = set()
    cur, rq = [0, 0], [[], []]
    segs = {tid: [] for tid in (200, 400, 401, 402)}  # [class, start, end, cpu]
    runs = [[], []]                                   # [folded name, start, end]
    wakes = [(0.06 * T, 200), (0.1 * T, 400), (0.5 * T, 401), (0.88 * T, 402)]
    wakes += [(k * 0.03, 60) for k in range(2, int(T / 0.03))]
    wakes += [(k * 0.05, 30) for k in range(2, int(T / 0.05))]
    wakes += [(k * 0.07, 61) for k in range(2, int(T / 0.07))]
    wakes.sort()

    def switch(t, cpu, state, nxt):
        prev = cur[cpu]
        # a task runs on one CPU at a time and leaves its queue to run
        assert nxt == 0 or (nxt != cur[1 - cpu] and nxt not in rq[0] + rq[1]), (t, cpu, nxt)
        emit(t, cpu, pid_of.get(prev, prev), "sched_switch",
             prev_comm=comm.get(prev, "swapper/%d" % cpu), prev_pid=pid_of.get(prev, prev),
             prev_prio=120, prev_state=state, next_comm=comm.get(nxt, "swapper/%d" % cpu),
             next_pid=pid_of.get(nxt, nxt), next_prio=120)
        if state == SCHED_Z:
            exited.add(prev)
        if runs[cpu]:
            runs[cpu][-1][2] = t
        runs[cpu].append([folded[nxt], t, None])
        if prev in segs:
            segs[prev][-1][2] = t
            if state != SCHED_Z:
                segs[prev].append([SCHED_CLASS[state], t, None, cpu])
        if nxt in segs:
            if segs[nxt]:
                segs[nxt][-1][2] = t
            segs[nxt].append(["on_cpu", t, None, cpu])
        cur[cpu] = nxt

    def wake(t, pid, cpu):
        if cur[cpu] == 0:
            switch(t, cpu, SCHED_R, pid)
        else:
            rq[cpu].append(pid)

    t = 0.05 * T
    while t < 0.95 * T:
        t += rnd.uniform(0.001, 0.015)
        while wakes and wakes[0][0] <= t:
            wt, pid = wakes.pop(0)
            if pid in (30, 60, 61) and (pid in rq[home[pid]] or pid in cur):
                continue                              # still running from its last wake
            if pid == 402 and 400 not in exited:
                raise RuntimeError("mktrace: pid 400 reused before its first task exited")
            wake(wt, pid, home[pid])
        cpu = rnd.randrange(2)
        pid, r = cur[cpu], rnd.random()
        if pid == 0:
            continue
        if pid in (30, 60, 61):                       # a kthread runs a little, then idles
            state = SCHED_I if r < 0.5 else SCHED_S
            switch(t, cpu, state, rq[cpu].pop(0) if rq[cpu] else 0)
        elif pid in exits and t >= exits[pid]:
            switch(t, cpu, SCHED_Z, rq[cpu].pop(0) if rq[cpu] else 0)
        elif r < 0.5 and rq[cpu]:                     # preempted (R+) or yields (R)
            state = SCHED_PREEMPTED if r < 0.4 else SCHED_R
            switch(t, cpu, state, rq[cpu].pop(0))
            # dirtier 401 may wait on the other CPU's queue: it migrates
            rq[1 - cpu if pid == 401 and rnd.random() < 0.5 else cpu].append(pid)
            if cur[1 - cpu] == 0 and rq[1 - cpu]:
                switch(t, 1 - cpu, SCHED_R, rq[1 - cpu].pop(0))
        elif r < 0.65 and pid != 200 or r < 0.52:     # blocks (D) or sleeps (S) briefly
            state = SCHED_D if r < 0.6 else SCHED_S
            switch(t, cpu, state, rq[cpu].pop(0) if rq[cpu] else 0)
            wakes.append((t + rnd.uniform(0.001, 0.02), pid))
            home[pid] = 0 if pid != 401 else rnd.randrange(2)
            wakes.sort()
    return {"segs": segs, "runs": runs, "pid_of": pid_of}


def sched_truth(recs, story):
    """What dpanalyze must report for the story: every open interval ends at the trace's
    last record, a wait is credited to what ran on the CPU the task left."""
    tend = (recs[-1][0] - 1000000000) / 1e9
    classes = ("on_cpu", "runnable", "blocked", "sleeping", "stopped")

    def times(seglists):
        d = {c + "_s": 0.0 for c in classes}
        by = {}
        for segs in seglists:
            for cls, a, b, cpu in segs:
                b = tend if b is None else b
                d[cls + "_s"] += b - a
                if cls != "runnable":
                    continue
                for name, ra, rb in story["runs"][cpu]:
                    rb = tend if rb is None else rb
                    o = min(b, rb) - max(a, ra)
                    if o > 0:
                        by[name] = by.get(name, 0.0) + o
        d["span_s"] = sum(d[c + "_s"] for c in classes)
        d["preempted_by"] = {k: v for k, v in by.items() if v > 0}
        return d
    out = {}
    for name, tids in (("dirtier", (400, 401, 402)), ("hog", (200,))):
        ran = sorted((p for p in tids if story["segs"][p]), key=lambda p: story["segs"][p][0][1])
        out[name] = times([story["segs"][p] for p in ran])
        out[name]["instances"] = len(ran)
        out[name]["by_start"] = {
            str(i + 1): dict(times([story["segs"][p]]), pid=story["pid_of"].get(p, p))
            for i, p in enumerate(ran)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--stock", action="store_true")
    ap.add_argument("--v2", action="store_true")
    ap.add_argument("--block", action="store_true")
    ap.add_argument("--sched", action="store_true")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--truth")
    ap.add_argument("--node-writers", default="1",
                    help="N[:D]: N bound writers over D node domains (v2 fields; default 1)")
    a = ap.parse_args()
    if a.seconds <= 0 or a.scale <= 0:
        sys.exit("mktrace: --seconds and --scale must be positive")
    try:
        n, _, d = a.node_writers.partition(":")
        a.writers, a.domains = int(n), int(d or 1)
    except ValueError:
        a.writers = 0
    if a.writers < 1 or not 1 <= a.domains <= a.writers:
        sys.exit("mktrace: --node-writers wants N[:D] with 1 <= D <= N")
    evs, streams, comms, truth = simulate(a)
    write_dat(a.out, evs, streams, comms)
    if a.truth:
        with open(a.truth, "w") as fh:
            json.dump(truth, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
