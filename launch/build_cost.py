#!/usr/bin/env python3
"""Sum a timed kernel build (launch/build-cost.sh) per directory and per config symbol.

Each line of the cost log is "MS OBJECT" (the compiler's wall time for one object, its path
relative to the object tree); kbuild's compiler probes (objects under .tmp_*) are counted apart.  Objects are grouped by their directory, cut to two levels
(fs/xfs/libxfs counts as fs/xfs); each group is named with the config symbol that its
parent's Makefile or Kbuild adds it under (obj-$(CONFIG_XFS_FS) += xfs/), "always" for
obj-y, "?" when no line says.  Writes OUT/cost.tsv (ms, object) and OUT/summary.md, and
prints the summary.

Usage: build_cost.py --src TREE --log COST.LOG --wall SECONDS --jobs N --out DIR [--top N]
Exit: 0 written, 2 bad input (one line says what).
"""
import argparse
import os
import re
import sys


def die(msg):
    print(f"build_cost: {msg}", file=sys.stderr)
    sys.exit(2)


class Parser(argparse.ArgumentParser):
    """Bad arguments: one line and exit 2, like every other input error."""

    def error(self, message):
        die(message)


def read_log(path):
    objs = []
    try:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                parts = line.split()
                if len(parts) != 2 or not parts[0].isdigit() or not parts[1].endswith(".o"):
                    die(f"{path}:{n}: want 'MS OBJECT.o', not {line.strip()!r}")
                objs.append((int(parts[0]), os.path.normpath(parts[1])))
    except OSError as e:
        die(f"cannot read {path}: {e.strerror}")
    if not objs:
        die(f"{path}: no object was timed")
    return objs


def group_of(obj):
    d = os.path.dirname(obj)
    return "/".join(d.split("/")[:2]) if d else "."


_GATE = re.compile(r"^\s*(?:obj|core|drivers|libs|virt)-(\$\((CONFIG_[A-Za-z0-9_]+)\)|y)\s*[:+]?=(.*)$")


def gate_of(src, group):
    """The config symbols under which the parent's Makefile or Kbuild adds the group's last
    directory ('CONFIG_A or CONFIG_B' when several lines do), 'always' (-y), or '?'."""
    if group == "." or group.startswith("arch/"):
        return "always"  # the top Makefile adds arch/$(SRCARCH)/ for every configuration
    parent, name = os.path.split(group)
    gates = []
    for mk in ("Kbuild", "Makefile"):
        path = os.path.join(src, parent, mk)
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read().replace("\\\n", " ")
        except OSError:
            continue
        for line in text.splitlines():
            m = _GATE.match(line)
            if m and re.search(r"(^|\s)" + re.escape(name) + r"/(\s|$)", m.group(3)):
                g = m.group(2) or "always"
                if g not in gates:
                    gates.append(g)
    if "always" in gates:
        return "always"
    return " or ".join(gates) or "?"


def main():
    ap = Parser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--wall", type=float, required=True)
    ap.add_argument("--jobs", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--top", type=int, default=25)
    a = ap.parse_args()
    if not os.path.isdir(a.src):
        die(f"--src {a.src}: not a directory")
    if a.wall <= 0 or a.jobs < 1 or a.top < 1:
        die("--wall, --jobs and --top must be positive")
    objs = read_log(a.log)
    # kbuild's compiler probes (cc-option and friends) compile into .tmp_* directories
    probes, built = [], []
    for x in objs:
        (probes if x[1].startswith(".tmp_") or "/.tmp_" in x[1] else built).append(x)
    objs = built
    if not objs:
        die(f"{a.log}: only compiler probes were timed")
    total = sum(ms for ms, _ in objs)
    groups = {}
    for ms, o in objs:
        g = groups.setdefault(group_of(o), [0, 0])
        g[0] += ms
        g[1] += 1
    gates = {g: gate_of(a.src, g) for g in groups}
    by_symbol = {}
    for g, (ms, n) in groups.items():
        s = by_symbol.setdefault(gates[g], [0, 0, []])
        s[0] += ms
        s[1] += n
        s[2].append(g)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "cost.tsv"), "w", encoding="utf-8") as f:
        f.write("ms\tobject\n")
        for ms, o in sorted(objs, key=lambda x: -x[0]):
            f.write(f"{ms}\t{o}\n")
    busy = total / 1000 / (a.wall * a.jobs)
    lines = [
        "# Where the cold build's time went",
        "",
        f"{len(objs)} objects compiled in {a.wall:.0f} s of wall time at -j{a.jobs}; the compiler "
        f"ran {total / 1000:.0f} s in all ({busy:.0%} of {a.jobs} x wall: the rest is make, "
        "objtool, linking and idle slots).",
        "",
        f"Not counted: {len(probes)} compiler probes of kbuild's configuration checks "
        f"({sum(ms for ms, _ in probes) / 1000:.1f} s).",
        "",
        f"## The {min(a.top, len(groups))} directories that cost most",
        "",
        "| directory | objects | compiler s | share | brought in by |",
        "|---|---:|---:|---:|---|",
    ]
    for g, (ms, n) in sorted(groups.items(), key=lambda x: -x[1][0])[:a.top]:
        lines.append(f"| {g} | {n} | {ms / 1000:.1f} | {ms / total:.1%} | {gates[g]} |")
    lines += ["", "## Per config symbol (directories it adds, two levels deep)", "",
              "| symbol | objects | compiler s | share | directories |", "|---|---:|---:|---:|---|"]
    for s, (ms, n, gs) in sorted(by_symbol.items(), key=lambda x: -x[1][0]):
        lines.append(f"| {s} | {n} | {ms / 1000:.1f} | {ms / total:.1%} | "
                     f"{', '.join(sorted(gs)[:6])}{', ...' if len(gs) > 6 else ''} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "summary.md"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
