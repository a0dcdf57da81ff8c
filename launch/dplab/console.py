"""console.log triage: the lines that fail a run whatever its checks say.

A run's kernel_clean check is console.problems == 0 (checks.IMPLICIT);
console_report() decides which lines count, and collect.py puts its answer
under metrics.console.
"""
import bisect
import os
import re

from dplab.files import read

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


def console_report(out, console=None):
    """Problem lines of the console, less what an OOM report or a requested
    crash prints by design: {problems: [...], oom_reports, requested_crash,
    expected_lines, kcsan_elsewhere}.  OUT/System.map, when run.py kept
    one, names the data a KCSAN report raced on.  console: another log than
    OUT/console.log (kunit.sh's, beside the kernel's System.map)."""
    lines = read(console or os.path.join(out, "console.log")).splitlines()
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

