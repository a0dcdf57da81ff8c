#!/usr/bin/env python3
"""Topology files: parse, validate, turn into QEMU arguments, check a guest.

A topology is one plain-text file (format in README.md, "Topologies").  Every
error names file:line and ends the program with exit 2 before QEMU starts.

  topology.py validate FILE        check only
  topology.py qemu-args FILE       print the NUMA/CPU/memory QEMU arguments
  topology.py json FILE            print the parsed topology as JSON
  topology.py check FILE GUESTVIEW [--kasan]
                                   compare a guest's view (guest-topology.txt)
                                   with the file; prints JSON, exit 0/1;
                                   --kasan allows a KASAN kernel's shadow

A node's dimm=SIZE is memory in a hot-pluggable QEMU pc-dimm on that node,
on top of the boot memory (mem=, which 'memory' sums): the guest's ACPI
memory hot-plug driver adds it at boot and the kernel onlines it (run.py
boots such topologies with memhp_default_state=online; online_movable puts
it in ZONE_MOVABLE, where all of it can be offlined again).
"""
import json
import os
import re
import sys

from dplab.records import Disk, Hmat, Node, Topology

KEYS = ("description", "memory", "node", "distance", "hmat", "disk", "smoke")
NODE_ATTRS = ("cpus", "mem", "dimm", "initiator")
DISK_ATTRS = ("size", "fs", "write_bps", "read_bps")
HMAT_ATTRS = ("initiator", "target", "latency", "bandwidth")
FILESYSTEMS = ("ext4", "xfs")
MAX_NODES = 64
MAX_CPUS = 64
# A guest's MemTotal falls short of the configured size by the memmap
# (1.6%) and, on the boot node, by the kernel image and early reservations,
# a fixed ~30 MiB that is more than 5% of a 512 MiB node.  Allowed: 5% or
# 40 MiB, whichever is larger.
MEM_TOLERANCE = 0.05
MEM_TOLERANCE_KB = 40 << 10
# Hot-pluggable memory is added and offlined in memory blocks: 128 MiB on
# x86_64 below 64 GiB of RAM (arch/x86/mm/init_64.c), and add_memory()
# refuses a range that is not block aligned.
MEMORY_BLOCK = 128 << 20
# A guest with memory above 4 GiB reserves a 64 MiB SWIOTLB bounce buffer
# at boot, at the top of the memory below 4 GiB.  QEMU's pc machine puts
# pc-dimms above 4 GiB, and with 3.5 GiB of RAM or more it keeps only the
# first 3 GiB below 4 GiB and the rest above (hw/i386/pc_piix.c,
# gigabyte_align); the nodes' boot memory is laid out in node order.
# Measured on 2node-hotplug: node 0 (1536M) shows 1454600 kB, 115 MiB short,
# where 2node-asym's node 0 is 27 MiB short; on 64node (8G) node 23, the one
# ending at 3 GiB, shows 62868 kB where its neighbours show 128404 kB.
SWIOTLB_KB = 64 << 10
LOWMEM_SPLIT_FROM = 0xe0000000     # 3.5 GiB of RAM or more: split ...
LOWMEM_SPLIT_AT = 0xc0000000       # ... at 3 GiB
# Generic KASAN keeps one shadow byte per 8 bytes of memory, allocated at
# boot, and its kernel image is three times the lab's (55 MB against 18 MB
# of text, data and bss).  Measured on 2node-asym (2 GiB): node 0 (512M)
# shows 189948 kB, 326 MiB short, where the lab kernel is 27 MiB short: the
# 256 MiB of shadow and 36 MiB of image landed on the boot node.  A KASAN
# kernel may be short by an eighth of the guest's memory plus 64 MiB more.
KASAN_IMAGE_KB = 64 << 10


class TopologyError(Exception):
    pass


_SIZE = re.compile(r"^(\d+)([KMGT]?)(i?B)?$", re.IGNORECASE)


def parse_size(text):
    """'512M' -> bytes; binary units; plain numbers are bytes."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"bad size '{text}' (want e.g. 512M, 2G)")
    mult = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    return int(m.group(1)) * mult[m.group(2).upper()]


def parse_int(text, what, lo, hi):
    if not re.fullmatch(r"-?\d+", text):
        raise ValueError(f"{what} '{text}' is not an integer")
    v = int(text)
    if not lo <= v <= hi:
        raise ValueError(f"{what} {v} out of range {lo}..{hi}")
    return v


def parse_attrs(words, allowed, where):
    attrs = {}
    for w in words:
        if "=" not in w:
            raise ValueError(f"expected key=value, got '{w}'")
        k, v = w.split("=", 1)
        if k not in allowed:
            raise ValueError(f"unknown {where} attribute '{k}' (known: {', '.join(allowed)})")
        if k in attrs:
            raise ValueError(f"{where} attribute '{k}' given twice")
        attrs[k] = v
    return attrs


def load(path):
    """Parse and validate into a records.Topology; raise
    TopologyError('file:line: what')."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise TopologyError(f"{path}: cannot read: {e.strerror}")
    except UnicodeDecodeError as e:
        raise TopologyError(f"{path}: not UTF-8 text at byte {e.start}")
    topo = Topology(os.path.basename(path), path, "", None, {}, {}, None, [], None)
    lineof = {}     # "memory" and each distance pair -> its line
    for n, raw in enumerate(lines, 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, *words = line.split()
        try:
            if key not in KEYS:
                raise ValueError(f"unknown key '{key}' (known: {', '.join(KEYS)})")
            _LINE_PARSERS[key](topo, words, n, lineof)
        except ValueError as e:
            raise TopologyError(f"{path}:{n}: {e}")
    _check_whole(topo, lineof, len(lines))
    return topo


# ---- one line of each key: (topo, words after the key, line number, lineof) --

def _description(topo, words, n, lineof):
    topo.description = " ".join(words)


def _smoke(topo, words, n, lineof):
    # "smoke skip WHY": make matrix-smoke (and so make test) leaves the
    # topology out, said aloud; make matrix still runs it
    if len(words) < 2 or words[0] != "skip":
        raise ValueError("smoke takes 'skip' and a reason")
    topo.smoke_skip = " ".join(words[1:])


def _memory(topo, words, n, lineof):
    if len(words) != 1:
        raise ValueError("memory takes one size")
    topo.memory = parse_size(words[0])
    lineof["memory"] = n


def _node(topo, words, n, lineof):
    if not words:
        raise ValueError("node needs an id")
    nid = parse_int(words[0], "node id", 0, MAX_NODES - 1)
    if nid in topo.nodes:
        raise ValueError(f"node {nid} defined twice")
    a = parse_attrs(words[1:], NODE_ATTRS, "node")
    if "cpus" not in a or "mem" not in a:
        raise ValueError(f"node {nid} needs cpus= and mem=")
    node = Node(parse_int(a["cpus"], "cpus", 0, MAX_CPUS), parse_size(a["mem"]), n)
    if node.mem % (1 << 20):
        raise ValueError(f"node {nid} mem must be a whole number of MiB")
    node.dimm = parse_size(a["dimm"]) if "dimm" in a else 0
    if "dimm" in a and (node.dimm == 0 or node.dimm % MEMORY_BLOCK):
        raise ValueError(f"node {nid} dimm must be a whole number of "
                         f"{MEMORY_BLOCK >> 20}M memory blocks")
    if "initiator" in a:
        node.initiator = parse_int(a["initiator"], "initiator", 0, MAX_NODES - 1)
    if node.cpus == 0 and node.memory == 0:
        raise ValueError(f"node {nid} has neither CPUs nor memory")
    topo.nodes[nid] = node


def _distance(topo, words, n, lineof):
    if len(words) == 2 and words[0] == "default":
        topo.default_distance = parse_int(words[1], "distance", 11, 254)
        return
    if len(words) != 3:
        raise ValueError("distance takes: SRC DST VALUE (or: default VALUE)")
    a = parse_int(words[0], "node id", 0, MAX_NODES - 1)
    b = parse_int(words[1], "node id", 0, MAX_NODES - 1)
    if a == b:
        raise ValueError("a node's distance to itself is always 10")
    v = parse_int(words[2], "distance", 11, 254)
    if (a, b) in topo.distances:
        raise ValueError(f"distance {a} {b} given twice")
    topo.distances[(a, b)] = v
    lineof[(a, b)] = n


def _hmat(topo, words, n, lineof):
    a = parse_attrs(words, HMAT_ATTRS, "hmat")
    for k in HMAT_ATTRS:
        if k not in a:
            raise ValueError(f"hmat needs {k}=")
    topo.hmat.append(Hmat(
        parse_int(a["initiator"], "initiator", 0, MAX_NODES - 1),
        parse_int(a["target"], "target", 0, MAX_NODES - 1),
        parse_int(a["latency"], "latency", 1, 1 << 20),
        parse_size(a["bandwidth"]), n))


def _disk(topo, words, n, lineof):
    if topo.disk:
        raise ValueError("disk given twice")
    a = parse_attrs(words, DISK_ATTRS, "disk")
    for k in ("size", "fs", "write_bps"):
        if k not in a:
            raise ValueError(f"disk needs {k}=")
    if a["fs"] not in FILESYSTEMS:
        raise ValueError(f"disk fs '{a['fs']}' unknown (known: {', '.join(FILESYSTEMS)})")
    d = Disk(parse_size(a["size"]), a["fs"], parse_size(a["write_bps"]),
             parse_size(a["read_bps"]) if "read_bps" in a else 0)
    if d.size < (512 << 20):
        raise ValueError("disk size must be at least 512M")
    if d.write_bps and d.write_bps < (2 << 20):
        raise ValueError("disk write_bps under 2M makes guests time out (QEMU warns)")
    topo.disk = d


_LINE_PARSERS = {"description": _description, "memory": _memory, "node": _node,
                 "distance": _distance, "hmat": _hmat, "disk": _disk, "smoke": _smoke}


def _check_whole(topo, lineof, end):
    """The rules across lines; a rule with no line of its own names the
    file's last line (end)."""
    def err(n, msg):
        return TopologyError(f"{topo.path}:{n}: {msg}")

    nodes = topo.nodes
    if not nodes:
        raise err(end, "no node lines")
    ids = sorted(nodes)
    if ids != list(range(len(ids))):
        raise err(nodes[ids[-1]].line, f"node ids must be 0..{len(ids) - 1} without gaps")
    if topo.memory is None:
        raise err(end, "missing 'memory' (the total, which node mem= must sum to)")
    total = sum(nd.mem for nd in nodes.values())
    if total != topo.memory:
        dimm = sum(nd.dimm for nd in nodes.values())
        hint = " (dimm= memory is not part of it)" if dimm and total + dimm == topo.memory else ""
        raise err(lineof["memory"], f"node memories sum to {total >> 20}M, memory says {topo.memory >> 20}M{hint}")
    if topo.total_cpus() == 0:
        raise err(end, "no node has CPUs")
    if nodes[0].mem == 0:
        # Linux on x86 needs memory on the boot CPU's node for early allocations.
        raise err(nodes[0].line, "node 0 must have memory" +
                  (" at boot (mem=; dimm= is added later)" if nodes[0].dimm else ""))
    if topo.disk is None:
        raise err(end, "missing 'disk' line")
    dist = topo.distances
    for (a, b), v in dist.items():
        for x in (a, b):
            if x not in nodes:
                raise err(lineof[(a, b)], f"distance names node {x}, which is not defined")
        if (b, a) in dist and dist[(b, a)] != v:
            raise err(lineof[(a, b)], f"distance {a} {b} is {v} but {b} {a} is {dist[(b, a)]}")
    if len(nodes) > 1:
        for a in ids:
            for b in ids:
                if a < b and (a, b) not in dist and (b, a) not in dist \
                        and topo.default_distance is None:
                    raise err(end, f"missing distance between nodes {a} and {b}")
    for nid, nd in nodes.items():
        if nd.initiator is not None:
            i = nd.initiator
            if i not in nodes or nodes[i].cpus == 0:
                raise err(nd.line, f"node {nid} initiator={i} is not a node with CPUs")
            if nd.cpus:
                raise err(nd.line, f"node {nid} has CPUs, so it is its own initiator")
    for h in topo.hmat:
        i, t = h.initiator, h.target
        if i not in nodes or nodes[i].cpus == 0:
            raise err(h.line, f"hmat initiator {i} is not a node with CPUs")
        if t not in nodes or nodes[t].memory == 0:
            raise err(h.line, f"hmat target {t} is not a node with memory")
    if topo.hmat:
        for nid, nd in nodes.items():
            if nd.cpus == 0 and nd.initiator is None:
                raise err(nd.line, f"with hmat lines, memory-only node {nid} needs initiator=")


def qemu_args(topo):
    nodes = topo.nodes
    ncpu = topo.total_cpus()
    # One socket per vCPU: QEMU's default puts all vCPUs in one socket
    # sharing an LLC, which the kernel warns about across nodes.
    mem = f"{topo.memory >> 20}M"
    dimms = [nid for nid in sorted(nodes) if nodes[nid].dimm]
    if dimms:
        # -m is the boot memory; the DIMMs go in slots up to maxmem.
        maxmem = topo.memory + sum(nodes[nid].dimm for nid in dimms)
        mem += f",slots={len(dimms)},maxmem={maxmem >> 20}M"
    args = ["-smp", f"{ncpu},sockets={ncpu},cores=1,threads=1", "-m", mem]
    machine = "pc,hmat=on" if topo.hmat else "pc"
    args = ["-machine", machine] + args
    cpus = topo.cpu_ranges()
    for nid in sorted(nodes):
        nd = nodes[nid]
        spec = f"node,nodeid={nid}"
        if cpus[nid]:
            c = cpus[nid]
            spec += f",cpus={c[0]}" if len(c) == 1 else f",cpus={c[0]}-{c[-1]}"
        if nd.mem:
            args += ["-object", f"memory-backend-ram,id=mem{nid},size={nd.mem >> 20}M"]
            spec += f",memdev=mem{nid}"
        if topo.hmat:
            spec += f",initiator={nid if nd.initiator is None else nd.initiator}"
        args += ["-numa", spec]
    ids = sorted(nodes)
    if len(ids) > 1:
        for a in ids:
            for b in ids:
                if a < b:
                    args += ["-numa", f"dist,src={a},dst={b},val={topo.distance(a, b)}"]
    for nid in dimms:
        args += ["-object", f"memory-backend-ram,id=hpmem{nid},size={nodes[nid].dimm >> 20}M",
                 "-device", f"pc-dimm,id=dimm{nid},memdev=hpmem{nid},node={nid}"]
    for h in topo.hmat:
        base = f"hmat-lb,initiator={h.initiator},target={h.target},hierarchy=memory"
        args += ["-numa", f"{base},data-type=access-latency,latency={h.latency_ns}"]
        args += ["-numa", f"{base},data-type=access-bandwidth,bandwidth={h.bandwidth >> 20}M"]
    return args


def parse_guest_view(path):
    """guest-topology.txt, written by launch/guest-init.sh:
         node N cpulist=0-1 memtotal_kb=123 distance=10 20"""
    view = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            w = line.split()
            if len(w) < 2 or w[0] != "node":
                continue
            nid = int(w[1])
            v = {"cpus": 0, "memtotal_kb": 0, "distance": []}
            for item in w[2:]:
                if item.startswith("cpulist="):
                    v["cpus"] = count_cpulist(item[8:])
                elif item.startswith("memtotal_kb="):
                    v["memtotal_kb"] = int(item[12:])
                elif item.startswith("distance="):
                    v["distance"] = [int(x) for x in item[9:].split(",") if x]
            view[nid] = v
    return view


def count_cpulist(s):
    n = 0
    for part in s.split(","):
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            n += int(b) - int(a) + 1
        else:
            n += 1
    return n


def swiotlb_node(topo):
    """The node that holds the guest's SWIOTLB (the top of the RAM below
    4 GiB), or None when the guest has no memory above 4 GiB."""
    nodes = topo.nodes
    boot = sum(nd.mem for nd in nodes.values())
    if boot >= LOWMEM_SPLIT_FROM:
        top = LOWMEM_SPLIT_AT
    elif any(nd.dimm for nd in nodes.values()):
        top = boot
    else:
        return None
    end = 0
    for nid in sorted(nodes):
        end += nodes[nid].mem
        if nodes[nid].mem and end >= top:
            return nid
    return None


def check_guest(topo, view, kasan=False):
    """Return a list of mismatches (empty when the guest matches the file).
    kasan: the guest runs a KASAN kernel (its shadow and image are allowed)."""
    bad = []
    nodes = topo.nodes
    kasan_kb = (sum(nd.memory for nd in nodes.values()) >> 13) + KASAN_IMAGE_KB \
        if kasan else 0
    swiotlb = swiotlb_node(topo)
    if sorted(view) != sorted(nodes):
        bad.append(f"guest has nodes {sorted(view)}, file has {sorted(nodes)}")
    for nid in sorted(nodes):
        if nid not in view:
            continue
        want, got = nodes[nid], view[nid]
        if got["cpus"] != want.cpus:
            bad.append(f"node {nid}: {got['cpus']} CPUs, file says {want.cpus}")
        want_kb = want.memory >> 10
        tol = max(MEM_TOLERANCE * want_kb, MEM_TOLERANCE_KB)
        if nid == swiotlb and got["memtotal_kb"] < want_kb:
            tol += SWIOTLB_KB
        if got["memtotal_kb"] < want_kb:
            tol += kasan_kb
        if abs(got["memtotal_kb"] - want_kb) > tol and \
                not (want_kb == 0 and got["memtotal_kb"] == 0):
            extra = (", less 64 MiB of SWIOTLB" if nid == swiotlb else "") + \
                (f", less {kasan_kb >> 10} MiB of KASAN shadow and image" if kasan_kb else "")
            bad.append(f"node {nid}: MemTotal {got['memtotal_kb']} kB, file says {want_kb} kB (±5% or 40 MiB{extra})")
        want_d = [topo.distance(nid, b) for b in sorted(nodes)]
        if got["distance"] and got["distance"] != want_d:
            bad.append(f"node {nid}: distances {got['distance']}, file says {want_d}")
        elif not got["distance"]:
            bad.append(f"node {nid}: guest shows no distances")
    return bad


def resolve(name, topdir):
    """TOPO is a name under topologies/ or a path."""
    if os.sep in name or os.path.exists(name) and not os.path.isdir(name):
        return name
    return os.path.join(topdir, "topologies", name)


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    cmd, path = argv[1], argv[2]
    topdir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = resolve(path, topdir)
    if not os.path.isfile(path):
        print(f"topology: no topology '{argv[2]}' (not a file, nor a name under topologies/)", file=sys.stderr)
        return 2
    try:
        topo = load(path)
    except TopologyError as e:
        print(f"topology: {e}", file=sys.stderr)
        return 2
    if cmd == "validate":
        return 0
    if cmd == "qemu-args":
        print("\n".join(qemu_args(topo)))
        return 0
    if cmd == "json":
        print(json.dumps(topo.to_dict(), indent=1))
        return 0
    if cmd == "check":
        if len(argv) not in (4, 5) or len(argv) == 5 and argv[4] != "--kasan":
            print("topology: check needs FILE GUESTVIEW [--kasan]", file=sys.stderr)
            return 2
        bad = check_guest(topo, parse_guest_view(argv[3]), kasan=len(argv) == 5)
        print(json.dumps({"pass": not bad, "mismatches": bad}))
        return 0 if not bad else 1
    print(f"topology: unknown command '{cmd}'", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
