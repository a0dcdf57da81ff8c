"""Typed records of the run contract.

The inputs of a run, as the parsers return them: Topology (topology.load(),
with Node, Disk and Hmat inside), Scenario and CheckSpec (scenario.load()).
The front ends read their fields; to_dict() and from_dict() give their JSON
form and read it back.

The documents a run writes (result.json, cell.json) are built as dicts and
read back as Result, Check and Cell: each a dataclass over one document (or
one entry of it) whose from_dict() and to_dict() give it back key for key,
in the same order.  A key such a record does not name is kept in `extra` and
written after the named ones; a named key the document did not have stays
ABSENT and is not written (old run records lack keys added since, and
several keys appear only sometimes: baseline_of, a check's reason and
precondition).

  Topology     topology.load()'s parse (Node, Disk, Hmat inside); its
               to_dict() is `topology.py json FILE`
  CheckSpec    one parsed #CHECK# line
  Scenario     scenario.py's parse of a scenario file (CheckSpecs inside)
  Check        one entry of result.json "checks"
  Result       result.json
  Cell         a matrix cell (matrix.py --list --format json's rows) and
               its cell.json, which adds the run's status to it; kver only
               for a version other than the default 6.1

"""
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional

from dplab import contract


class _Absent:
    """A key the document did not have (not the same as null)."""
    def __repr__(self):
        return "ABSENT"

    def __bool__(self):
        return False


ABSENT = _Absent()


def _opt(**kw):
    return field(default=ABSENT, **kw)


class _Record:
    # JSON keys that are not Python names: field name -> key
    KEYS = {}
    # fields holding records or lists of them: field name -> record class
    NESTED = {}

    @classmethod
    def from_dict(cls, d):
        names = [f.name for f in dataclasses.fields(cls) if f.name != "extra"]
        keys = {cls.KEYS.get(n, n): n for n in names}
        kw, extra = {}, {}
        for k, v in d.items():
            if k not in keys:
                extra[k] = v
                continue
            n = keys[k]
            sub = cls.NESTED.get(n)
            if sub is not None and isinstance(v, list):
                v = [sub.from_dict(x) if isinstance(x, dict) else x for x in v]
            kw[n] = v
        missing = [n for n in names if n not in kw and _required(cls, n)]
        if missing:
            raise ValueError(f"{cls.__name__}: missing {', '.join(missing)}")
        return cls(**kw, extra=extra)

    def to_dict(self):
        d = {}
        for f in dataclasses.fields(self):
            if f.name == "extra":
                continue
            v = getattr(self, f.name)
            if v is ABSENT:
                continue
            if isinstance(v, list):
                v = [x.to_dict() if isinstance(x, _Record) else x for x in v]
            d[self.KEYS.get(f.name, f.name)] = v
        d.update(self.extra)
        return d


def _required(cls, name):
    f = next(f for f in dataclasses.fields(cls) if f.name == name)
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


@dataclass
class Node:
    cpus: int
    mem: int                    # boot memory, bytes
    line: int                   # its line in the topology file
    dimm: int = 0               # hot-pluggable (pc-dimm) memory, bytes
    initiator: Optional[int] = None  # a memory-only node's CPU node (hmat)

    @property
    def memory(self):
        """Boot plus hot-pluggable memory, bytes."""
        return self.mem + self.dimm

    def to_dict(self):
        d = {"cpus": self.cpus, "mem": self.mem, "line": self.line, "dimm": self.dimm}
        if self.initiator is not None:
            d["initiator"] = self.initiator
        return d

    @classmethod
    def from_dict(cls, d):
        return cls(d["cpus"], d["mem"], d["line"], d.get("dimm", 0), d.get("initiator"))


class _Flat:
    """A record of plain fields: its JSON is its fields, in order."""
    def to_dict(self):
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d):
        return cls(**d)


@dataclass
class Disk(_Flat):
    size: int                   # bytes
    fs: str                     # ext4 | xfs
    write_bps: int              # QEMU's write throttle, bytes/s (0: none)
    read_bps: int = 0


@dataclass
class Hmat(_Flat):
    initiator: int
    target: int
    latency_ns: int
    bandwidth: int              # bytes/s
    line: int


@dataclass
class Topology:
    """A parsed topology file (topology.load()).  Node ids are ints and
    distances are keyed by (a, b); to_dict() is the JSON form that
    `topology.py json` prints, with ids as strings and "a-b" keys."""
    name: str
    path: str
    description: str
    memory: int                 # bytes; the nodes' mem= sum to it
    nodes: dict                 # int -> Node
    distances: dict             # (a, b) -> distance, as the file gives them
    default_distance: Optional[int]
    hmat: list                  # [Hmat]
    disk: Disk
    smoke_skip: Optional[str] = None  # why make matrix-smoke leaves it out

    def distance(self, a, b):
        if a == b:
            return 10
        d = self.distances
        return d.get((a, b)) or d.get((b, a)) or self.default_distance

    def cpu_ranges(self):
        """Each node's CPU indexes, CPUs numbered in node order."""
        out, c = {}, 0
        for nid in sorted(self.nodes):
            n = self.nodes[nid].cpus
            out[nid] = list(range(c, c + n))
            c += n
        return out

    def total_cpus(self):
        return sum(n.cpus for n in self.nodes.values())

    def to_dict(self):
        return {"name": self.name, "path": self.path, "description": self.description,
                "memory": self.memory,
                "nodes": {str(k): v.to_dict() for k, v in self.nodes.items()},
                "distances": {f"{a}-{b}": v for (a, b), v in self.distances.items()},
                "default_distance": self.default_distance,
                "hmat": [h.to_dict() for h in self.hmat],
                "disk": self.disk.to_dict(), "smoke_skip": self.smoke_skip}

    @classmethod
    def from_dict(cls, d):
        def pair(k):
            a, b = k.split("-")
            return int(a), int(b)
        return cls(d["name"], d["path"], d["description"], d["memory"],
                   {int(k): Node.from_dict(v) for k, v in d["nodes"].items()},
                   {pair(k): v for k, v in d["distances"].items()},
                   d["default_distance"], [Hmat.from_dict(h) for h in d["hmat"]],
                   Disk.from_dict(d["disk"]), d.get("smoke_skip"))


@dataclass
class CheckSpec:
    """One parsed #CHECK# line (or one of checks.IMPLICIT's)."""
    name: str
    metric: str                 # dotted path into result.json "metrics"
    op: str                     # == != < <= > >=
    value: float
    xfail: Optional[str] = None  # the kernel reason the claim is false on 6.1
    cond: Optional[tuple] = None  # ("mode"|"kernel", [values]) of `if`
    when: list = field(default_factory=list)   # [(metric, op, value)] preconditions
    line: Optional[int] = None  # line number in its file
    file: Optional[str] = None  # the lib file it came from (else the scenario)
    implicit: bool = False      # one of checks.IMPLICIT

    def to_dict(self):
        d = {"name": self.name, "metric": self.metric, "op": self.op, "value": self.value,
             "xfail": self.xfail, "cond": self.cond, "when": self.when}
        for k in ("line", "file"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.implicit:
            d["implicit"] = True
        return d

    @classmethod
    def from_dict(cls, d):
        cond = d.get("cond")
        return cls(d["name"], d["metric"], d["op"], d["value"], d.get("xfail"),
                   tuple(cond) if cond else None, [tuple(w) for w in d.get("when", [])],
                   d.get("line"), d.get("file"), d.get("implicit", False))


@dataclass
class Scenario:
    """scenario.py's parse of a scenario file."""
    name: str
    path: str
    text: str
    vars: dict                  # the settings (CLAIM=, TOPOLOGIES=, ...)
    checks: list                # [CheckSpec], in file order (lib checks in place)
    libs: list = field(default_factory=list)   # lib files it sources, by name

    def to_dict(self):
        return {"name": self.name, "path": self.path, "text": self.text, "vars": self.vars,
                "checks": [c.to_dict() for c in self.checks], "libs": self.libs}

    @classmethod
    def from_dict(cls, d):
        return cls(d["name"], d["path"], d["text"], d["vars"],
                   [CheckSpec.from_dict(c) for c in d["checks"]], d.get("libs", []))


@dataclass
class Check(_Record):
    name: str
    value: Any
    expectation: str
    precondition: Any = _opt()
    precondition_met: Any = _opt()
    passed: Any = _opt()
    status: Any = _opt()        # pass fail xfail xpass unmeasurable (checks.py)
    reason: Any = _opt()
    extra: dict = field(default_factory=dict)


@dataclass
class Result(_Record):
    topology: Any = _opt()
    topology_description: Any = _opt()
    scenario: Any = _opt()
    claim: Any = _opt()
    baseline_of: Any = _opt()
    mode: Any = _opt()
    kernel: Any = _opt()
    variant: Any = _opt()
    slow_motion: Any = _opt()
    kernel_release: Any = _opt()
    kernel_source: Any = _opt()     # kernel.sh's kernel-source.json, as run.py kept it
    lab_commit: Any = _opt()
    host: Any = _opt()
    metrics: Any = _opt()
    checks: Any = _opt()        # [Check]
    pass_: Any = _opt()         # "pass": no check unexpected (checks.unexpected)
    extra: dict = field(default_factory=dict)
    KEYS = {"pass_": "pass"}
    NESTED = {"checks": Check}


@dataclass
class Cell(_Record):
    name: str
    topology: str
    scenario: str
    mode: str
    kernel: str
    lru: str
    variant: str
    repeat: Optional[int]
    # the kernel version (KVERS=): ABSENT for the default, 6.1, as in the
    # cell's name, so a 6.1 cell's record is what it was before versions
    kver: Any = _opt()
    # cell.json adds status, reason, rc, elapsed_s, finished, kernel_image,
    # engine[, slurm]; --list --format json adds out and make
    extra: dict = field(default_factory=dict)

    @classmethod
    def new(cls, topology, scenario, mode, kernel, lru, variant=contract.DEFAULT_VARIANT, repeat=None,
            kver=contract.DEFAULT_KVER):
        kver = contract.DEFAULT_KVER if kver in (None, ABSENT) else kver
        return cls(contract.cell_name(topology, scenario, mode, kernel, variant, lru, repeat, kver),
                   topology, scenario, mode, kernel, lru, variant, repeat,
                   ABSENT if kver == contract.DEFAULT_KVER else kver)
