#!/usr/bin/env python3
"""Write tests/run's results as KTAP v1 and as JUnit XML.

Usage: report-formats.py RECORDS KTAP_OUT JUNIT_OUT

RECORDS is the file tests/run writes while it runs: for each .t, in order,
  @T <suite/name>
  <its check lines: PASS: name | FAIL: name: why | XFAIL: name: reason
   | SKIP: name: unmeasurable: ...>
  @E <exit status> <elapsed seconds>
(a .t that exited non-zero without a FAIL line already carries tests/run's
"FAIL: <suite/name>: exited N without naming a failed check").

KTAP (Documentation/dev-tools/ktap.rst, in kselftest's style): one top-level
test per .t, its checks nested two spaces deeper with their own version line,
"# Subtest:" header and plan (a check named like its .t gets " (check)"
appended, or kunit.py would take it for the .t's result).  PASS is "ok",
FAIL "not ok N name # why", XFAIL "ok N name # XFAIL reason", SKIP
"ok N name # SKIP reason".  A .t is "not ok" when one of its checks failed,
"ok ... # SKIP" when it reported no check or only SKIPs.  The last line is
kselftest's
"# Totals: pass:P fail:F xfail:X xpass:0 skip:S error:0", counting checks:
the same numbers as tests/run's summary.  '#' may not appear in a KTAP test
name, nor (for the kernel's kunit.py, which reads "# SKIP" anywhere on a
result line as the directive) in a diagnostic: it is written as '_'.

JUnit: one <testsuite> per .t, one <testcase> per check; FAIL is <failure>,
SKIP and XFAIL are <skipped> (an XFAIL is not a pass).  Characters XML 1.0
cannot carry (control characters, invalid UTF-8) are written as \\xNN,
in KTAP too.
"""
import os
import re
import sys

KINDS = ("PASS", "FAIL", "XFAIL", "SKIP")
CHECK = re.compile(r"^(PASS|FAIL|XFAIL|SKIP): (.*)$")


class Check:
    def __init__(self, kind, name, message):
        self.kind, self.name, self.message = kind, name, message


class Suite:
    def __init__(self, name):
        self.name, self.checks, self.rc, self.elapsed = name, [], None, 0

    def count(self, kind):
        return sum(1 for c in self.checks if c.kind == kind)


def parse_check(line):
    m = CHECK.match(line)
    if not m:
        return None
    kind, rest = m.groups()
    if kind == "PASS":          # "PASS: name", the whole rest
        return Check(kind, rest, "")
    name, _, message = rest.partition(": ")   # "KIND: name: message"
    return Check(kind, name, message)


def read_records(path):
    suites = []
    with open(path, "rb") as f:
        data = f.read()
    # tests/run's lines are bytes from the tests; keep invalid UTF-8 visible.
    text = data.decode("utf-8", errors="backslashreplace")
    cur = None
    for no, line in enumerate(text.split("\n"), 1):
        if line.startswith("@T "):
            if cur is not None:
                raise ValueError(f"{path}:{no}: @T before @E of {cur.name}")
            cur = Suite(line[3:])
        elif line.startswith("@E "):
            parts = line.split()
            if cur is None or len(parts) != 3:
                raise ValueError(f"{path}:{no}: bad end record {line!r}")
            cur.rc, cur.elapsed = int(parts[1]), int(parts[2])
            suites.append(cur)
            cur = None
        elif line:
            c = parse_check(line)
            if cur is None or c is None:
                raise ValueError(f"{path}:{no}: not a check line: {line!r}")
            cur.checks.append(c)
    if cur is not None:
        raise ValueError(f"{path}: {cur.name} has no end record")
    return suites


# ---- KTAP ------------------------------------------------------------------

def escaped(ch):
    cp = ord(ch)
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def ktap_text(s):
    """One line of KTAP text: no '#', no control characters, no edge spaces."""
    s = "".join(ch if ch.isprintable() else escaped(ch) for ch in s)
    return s.replace("#", "_").strip()


def ktap_name(s):
    s = ktap_text(s)
    # kunit.py drops a leading "- " (TAP's optional separator); and a test
    # needs a name.
    if s.startswith("- "):
        s = "_" + s[1:]
    return s or "(unnamed)"


def ktap_result(ok, num, name, directive=None, diag=""):
    line = f"{'ok' if ok else 'not ok'} {num} {ktap_name(name)}"
    diag = ktap_text(diag)
    if directive:
        line += f" # {directive}" + (f" {diag}" if diag else "")
    elif diag:
        # A diagnostic must not read as a directive (TAP's keywords are
        # case-insensitive).
        if re.match(r"(?i)(skip|todo|xfail|xpass|timeout|error)\b", diag):
            diag = "- " + diag
        line += f" # {diag}"
    return line


def write_ktap(suites, out):
    lines = ["KTAP version 1", f"1..{len(suites)}"]
    totals = dict.fromkeys(KINDS, 0)
    for i, s in enumerate(suites, 1):
        for k in KINDS:
            totals[k] += s.count(k)
        name = ktap_name(s.name)
        if not s.checks:
            lines.append(ktap_result(True, i, name, "SKIP", "no check reported"))
            continue
        sub = ["KTAP version 1", f"# Subtest: {name}", f"1..{len(s.checks)}"]
        for j, c in enumerate(s.checks, 1):
            # A result line named like its parent ends the parent for
            # kunit.py (tests/run names the check of a .t that died so).
            cname = ktap_name(c.name)
            if cname == name:
                cname += " (check)"
            if c.kind == "PASS":
                sub.append(ktap_result(True, j, cname))
            elif c.kind == "FAIL":
                sub.append(ktap_result(False, j, cname, None, c.message))
            elif c.kind == "XFAIL":
                sub.append(ktap_result(True, j, cname, "XFAIL", c.message))
            else:
                sub.append(ktap_result(True, j, cname, "SKIP", c.message))
        lines.extend("  " + l for l in sub)
        f, p, x = s.count("FAIL"), s.count("PASS"), s.count("XFAIL")
        if f:
            lines.append(ktap_result(False, i, name, None,
                                     f"{f} failed" + (f", exit status {s.rc}" if s.rc else "")))
        elif p or x:
            lines.append(ktap_result(True, i, name))
        else:
            lines.append(ktap_result(True, i, name, "SKIP", "every check unmeasurable"))
    lines.append("# Totals: pass:{} fail:{} xfail:{} xpass:0 skip:{} error:0".format(
        totals["PASS"], totals["FAIL"], totals["XFAIL"], totals["SKIP"]))
    out.write("\n".join(lines) + "\n")


# ---- JUnit -----------------------------------------------------------------

def xml_char_ok(cp):
    return (cp in (0x9, 0xA, 0xD) or 0x20 <= cp <= 0xD7FF
            or 0xE000 <= cp <= 0xFFFD or 0x10000 <= cp <= 0x10FFFF)


def xml_attr(s):
    """Text for a double-quoted XML attribute value."""
    out = []
    for ch in s:
        cp = ord(ch)
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif ch in "\t\n\r":
            out.append(f"&#{cp};")   # else attribute normalization eats them
        elif not xml_char_ok(cp) or 0x7F <= cp <= 0x9F:
            out.append(escaped(ch))
        else:
            out.append(ch)
    return "".join(out)


def write_junit(suites, out):
    tot = {"tests": 0, "failures": 0, "skipped": 0, "time": 0}
    body = []
    for s in suites:
        tests = len(s.checks)
        failures = s.count("FAIL")
        skipped = s.count("SKIP") + s.count("XFAIL")
        tot["tests"] += tests
        tot["failures"] += failures
        tot["skipped"] += skipped
        tot["time"] += s.elapsed
        body.append(f'  <testsuite name="{xml_attr(s.name)}" tests="{tests}" failures="{failures}"'
                    f' errors="0" skipped="{skipped}" time="{s.elapsed}">')
        for c in s.checks:
            head = f'    <testcase classname="{xml_attr(s.name)}" name="{xml_attr(c.name)}"'
            if c.kind == "PASS":
                body.append(head + "/>")
                continue
            if c.kind == "FAIL":
                inner = f'<failure message="{xml_attr(c.message)}"/>'
            elif c.kind == "XFAIL":
                inner = f'<skipped message="{xml_attr("XFAIL: " + c.message)}"/>'
            else:
                inner = f'<skipped message="{xml_attr(c.message)}"/>'
            body.append(f"{head}>{inner}</testcase>")
        body.append("  </testsuite>")
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(f'<testsuites name="dplab" tests="{tot["tests"]}" failures="{tot["failures"]}"'
              f' errors="0" skipped="{tot["skipped"]}" time="{tot["time"]}">\n')
    out.write("\n".join(body) + ("\n" if body else ""))
    out.write("</testsuites>\n")


def write_atomically(path, writer, suites):
    d = os.path.dirname(path) or "."
    os.makedirs(d, exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        writer(suites, f)
    os.replace(tmp, path)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: report-formats.py RECORDS KTAP_OUT JUNIT_OUT\n")
        return 2
    suites = read_records(argv[1])
    write_atomically(argv[2], write_ktap, suites)
    write_atomically(argv[3], write_junit, suites)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
