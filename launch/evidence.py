#!/usr/bin/env python3
"""Check docs/evidence.md against the kept reports, and the cover letter against it.

  evidence.py check [--root DIR] [--evidence FILE] [--cover FILE]

docs/evidence.md holds one table per claim.  Every table has the columns

  workload | comparison | n | baseline median (min..max) | other median (min..max)
  | median ratio | 95% interval | MW p | verdict | source

and each row is one comparison copied from one kept report
(docs/matrix/<name>/report.md, linked in "source").  "check" verifies:

1. the rows against their reports.  The link must exist.  The row's number
   cells (n, the two medians, the ratio, the interval, p) must all be cells of
   one line of that report, as the report prints them (thousands separators
   are dropped on both sides; "-" in a row means "the report prints none",
   and is not looked up).  In a bench-comparison line (it has its own
   "X vs Y" and n cells) the comparison and n must be that line's; in an A/B
   line (one column per mode) the ratio must be the cell right after the
   other side's median, and n comes from the table's header: "median of up
   to N repeats" means N/N, no such phrase means one run per cell (1/1).  A
   verdict the report makes (better, worse, not resolved at n=A/B) must be
   that line's too;
2. verdicts come from a fixed list (VERDICTS): the report's own, or one this
   file states for reports that make none (ranges only, median ratio only,
   single run, a check that passed, no evidence kept).  "no evidence kept"
   rows have no source and no numbers; every other row has a source.  A
   "check passed in every cell" row names its scenario and topology first
   in its workload ("cp, 2node-sym, ..."), and every cell of those in the
   report's cell table must be PASS;
3. the cover letter's measured numbers against the tables.  The region
   checked is the cover letter's section "Measured effect ..." up to the
   next underlined heading.  In it a number is checked when it is written as
   a measurement: with a decimal point, a thousands separator or a k/M
   suffix; as either end of a range a..b; as a median before its
   "(min..max)"; after "p " (a p-value); before " times", " of off" or
   " of mode off"; or anywhere after the first
   column of a table row (a line indented by two spaces).  Plain integers in
   prose are the set-up (sizes, node numbers, repeat counts) and are not
   checked, nor is anything in NOT_MEASURED.  A checked number matches when
   a number cell of docs/evidence.md's tables is within half a unit of its
   last printed digit (p 0.016 matches 0.0159, 2.23M matches 2230000, 1.0
   matches 1.0000).

Each problem is one line "file:line: what"; exit 0 when there is none, 1
when there is one, 2 with one line when the input cannot be read.
"""
import argparse
import os
import re
import sys
from decimal import Decimal

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVIDENCE = os.path.join("docs", "evidence.md")
COVER = os.path.join("patches", "0000-cover-letter.patch")

COLUMNS = ("workload", "comparison", "n", "baseline median (min..max)",
           "other median (min..max)", "median ratio", "95% interval", "MW p",
           "verdict", "source")
# the columns whose numbers must be in the linked report, in that order
NUMBER_COLUMNS = ("n", "baseline median (min..max)", "other median (min..max)",
                  "median ratio", "95% interval", "MW p")
NONE = ("-", "\u2014")  # a cell the report prints nothing for

# Verdicts a row may give.  The first three are report.py's own (launch/
# stats.py's rule) and must be printed on the row's report line; the others
# are this file's words for what a report without statistics shows.
REPORT_VERDICT = re.compile(r"^(better|worse|not resolved at n=\d+/\d+)$")
VERDICTS = {
    "not resolved (ranges only)": "a report made before launch/stats.py: it compares min..max",
    "not tested (median ratio only)":
        "the report's A/B table has the ratio, its bench comparisons do not test it",
    "single run: no verdict": "one run per cell (a matrix, not a bench)",
    "check passed in every cell": "judged by a scenario check, not by a number of the report",
    "no evidence kept": "no kept report holds it",
}
NO_EVIDENCE = "no evidence kept"
PASSED = "check passed in every cell"

# Numbers in the cover letter's region that are no measurement
NOT_MEASURED = {"6.1": "the kernel version"}

# A number as the documents print it: 1,398,067  0.0159  2.23M  63.9  0.
NUMBER = re.compile(r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?[kM]?")
THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
SUFFIX = {"": 1, "k": 1000, "M": 1000000}


class Problems(Exception):
    """Input that cannot be checked at all: exit 2."""


def numbers(text):
    """(start, end, raw) of every number in text standing on its own: not
    part of a word (2node, p99, x86), nor of a version (6.1.192)."""
    for m in NUMBER.finditer(text):
        s, e = m.start(), m.end()
        before = text[s - 1] if s else " "
        if before.isalnum() or before == "_":
            continue
        # a dot before is a range's "..", or part of a longer number
        if before == "." and text[s - 2:s] != "..":
            continue
        after = text[e] if e < len(text) else " "
        if after.isalnum() or after == "_":
            continue
        if after == "." and e + 1 < len(text) and text[e + 1].isdigit():
            continue  # 6.1.192: a version, not a number
        yield s, e, m.group()


def value(raw):
    """(value, unit of the last printed digit) of a printed number."""
    mult = SUFFIX[raw[-1]] if raw[-1] in "kM" else 1
    digits = raw.rstrip("kM").replace(",", "")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return Decimal(digits) * mult, Decimal(1).scaleb(-decimals) * mult


def plain(text):
    """A cell as compared: no thousands separators, no surrounding blanks."""
    return THOUSANDS.sub("", text.strip())


def cells(line):
    """A markdown table line's cells, or None when it is not one."""
    s = line.strip()
    if not s.startswith("|") or not s.endswith("|"):
        return None
    return [c.strip() for c in s[1:-1].split("|")]


def read(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().split("\n")
    except OSError as e:
        raise Problems(f"{what} {path}: {e.strerror}") from None


# ---- docs/evidence.md ----------------------------------------------------------

def evidence_rows(lines, shown, problems):
    """Every data row of every table: (line number, {column: cell})."""
    rows = []
    i = 0
    while i < len(lines):
        head = cells(lines[i])
        sep = cells(lines[i + 1]) if i + 1 < len(lines) else None
        if head is None or sep is None or not all(re.fullmatch(r":?-+:?", c) for c in sep):
            i += 1
            continue
        if tuple(head) != COLUMNS:
            problems.append(f"{shown}:{i + 1}: table header is not | {' | '.join(COLUMNS)} |")
        i += 2
        while i < len(lines) and cells(lines[i]) is not None:
            row = cells(lines[i])
            if len(row) != len(COLUMNS):
                problems.append(f"{shown}:{i + 1}: {len(row)} cells, the header has {len(COLUMNS)}")
            elif tuple(head) == COLUMNS:
                rows.append((i + 1, dict(zip(COLUMNS, row))))
            i += 1
    return rows


def section_n(report, index):
    """n per side of an A/B line, from the header of its table: None when the
    line is in no A/B table (e.g. an old bench-comparison line)."""
    for j in range(index - 1, -1, -1):
        text = report[j]
        if text.startswith("## ") or text.startswith("### "):
            return None
        if text.startswith("`"):
            if " against " in text:
                return None  # the "against stock" tables print no n
            m = re.search(r"median of up to (\d+) repeats", text)
            return f"{m.group(1)}/{m.group(1)}" if m else "1/1"
    return None


def match_line(row, report_cells, n_from_header):
    """Cells of the row missing from this report line, in column order (an
    empty list: the line is the row's)."""
    have = [plain(c) for c in report_cells]
    missing = []
    for col in NUMBER_COLUMNS:
        want = plain(row[col])
        if want in NONE:
            continue
        if col == "n":
            printed = [c for c in have if re.fullmatch(r"\d+/\d+", c)]
            got = printed[0] if printed else n_from_header
            if got != want:
                missing.append(want)
        elif want not in have:
            missing.append(want)
    # "global vs off", or a Baselines line's "node at imbalance vs stock at imbalance-bg-bytes"
    compared = [c for c in have if " vs " in c]
    if compared:
        if plain(row["comparison"]) not in compared:
            missing.append(row["comparison"])
    else:
        # an A/B line: the ratio is the column right after the other side's median
        other, ratio = plain(row[NUMBER_COLUMNS[2]]), plain(row["median ratio"])
        if other in have and ratio in have and ratio not in NONE and \
                not any(have[k] == other and k + 1 < len(have) and have[k + 1] == ratio
                        for k in range(len(have))):
            missing.append(ratio)
    verdict = row["verdict"]
    if REPORT_VERDICT.match(verdict) and verdict not in have:
        missing.append(verdict)
    return missing


def check_cells_passed(row, report, where, target_shown, problems):
    """A "check passed in every cell" row: the report's cells of its
    scenario on its topology (the workload's first two words) all PASS."""
    scenario, _, rest = row["workload"].partition(", ")
    topology = re.split(r"[,:\s]", rest, maxsplit=1)[0]
    # the cells table's verdict column moved when host and accelerator
    # columns came in: take the first cell that is a verdict
    kinds = ("PASS", "FAIL", "XFAIL", "HUNG", "ERROR", "ABORTED", "NOT RUN")
    verdicts = [next((x for x in c[5:] if x in kinds), "?") for c in map(cells, report)
                if c and len(c) > 6 and c[1] == topology and c[2] == scenario]
    if not verdicts or any(v != "PASS" for v in verdicts):
        problems.append(f"{where}: {scenario} on {topology}: {verdicts.count('PASS')} of "
                        f"{len(verdicts)} cells PASS in {target_shown}")


def check_row(lineno, row, shown, base, root, problems):
    where = f"{shown}:{lineno}"
    verdict = row["verdict"]
    if not REPORT_VERDICT.match(verdict) and verdict not in VERDICTS:
        problems.append(f"{where}: verdict '{verdict}' is none of better, worse, "
                        f"not resolved at n=A/B, {', '.join(VERDICTS)}")
        return
    numbered = [c for c in NUMBER_COLUMNS if plain(row[c]) not in NONE]
    link = re.fullmatch(r"\[[^\]]*\]\(([^)\s]+)\)", row["source"])
    if verdict == NO_EVIDENCE:
        if link or numbered:
            problems.append(f"{where}: '{NO_EVIDENCE}' with a source or numbers")
        return
    if not link:
        problems.append(f"{where}: source is not a link to a kept report")
        return
    target = os.path.normpath(os.path.join(base, link.group(1)))
    target_shown = os.path.relpath(target, root)
    if not os.path.isfile(target):
        problems.append(f"{where}: link {link.group(1)} does not exist")
        return
    report = read(target, "report")
    if verdict == PASSED:
        check_cells_passed(row, report, where, target_shown, problems)
        return
    if not numbered and not REPORT_VERDICT.match(verdict):
        return
    best = None
    for k, text in enumerate(report):
        rc = cells(text)
        if rc is None:
            continue
        missing = match_line(row, rc, section_n(report, k))
        if not missing:
            return
        if best is None or len(missing) < len(best):
            best = missing
    first = best[0] if best else plain(row[numbered[0]]) if numbered else verdict
    problems.append(f"{where}: {first} not in {target_shown}")


# ---- the cover letter ------------------------------------------------------------

def measured_region(lines):
    """(first, last) line indexes of the section 'Measured effect ...', to the
    line before the next underlined heading; None without that section."""
    def heading(k):
        return k + 1 < len(lines) and lines[k].strip() and re.fullmatch(r"=+", lines[k + 1])
    start = next((k for k in range(len(lines))
                  if heading(k) and lines[k].startswith("Measured effect")), None)
    if start is None:
        return None
    end = next((k for k in range(start + 2, len(lines)) if heading(k)), len(lines))
    return start, end - 1


def measured_numbers(line):
    """The numbers of one cover-letter line that rule 3 checks."""
    table = re.match(r"  \S.*?(?:\s{2,}|$)", line)  # a table row and its label
    after_label = table.end() if table else None
    out = []
    for s, e, raw in numbers(line):
        if raw in NOT_MEASURED:
            continue
        checked = (
            ("." in raw or "," in raw or raw[-1] in "kM")
            or line[e:e + 2] == ".." or line[s - 2:s] == ".."
            or (line[s - 2:s] == "p " and (s < 3 or not line[s - 3].isalnum()))
            or re.match(r" (times|of off|of mode off)\b", line[e:])
            or re.match(r" \(\d[\d,.]*[kM]?\.\.", line[e:])  # a median (min..max)
            or (after_label is not None and s >= after_label))
        if checked:
            out.append(raw)
    return out


def evidence_values(rows):
    """Every number of the tables' number cells, as values."""
    vals = set()
    for _, row in rows:
        for col in NUMBER_COLUMNS:
            for _, _, raw in numbers(row[col]):
                vals.add(value(raw)[0])
    return vals


def check_cover(lines, shown, evidence_shown, vals, problems):
    region = measured_region(lines)
    if region is None:
        problems.append(f"{shown}:1: no section 'Measured effect' (the region rule 3 checks)")
        return
    for k in range(region[0], region[1] + 1):
        for raw in measured_numbers(lines[k]):
            v, unit = value(raw)
            if not any(abs(v - e) <= unit / 2 for e in vals):
                problems.append(f"{shown}:{k + 1}: {raw} not in {evidence_shown}")


def check(root, evidence, cover):
    problems = []
    ev_shown = os.path.relpath(evidence, root)
    rows = evidence_rows(read(evidence, "evidence"), ev_shown, problems)
    if not rows:
        problems.append(f"{ev_shown}:1: no table")
    base = os.path.dirname(evidence)
    for lineno, row in rows:
        check_row(lineno, row, ev_shown, base, root, problems)
    check_cover(read(cover, "cover letter"), os.path.relpath(cover, root), ev_shown,
                evidence_values(rows), problems)
    return problems


class Parser(argparse.ArgumentParser):
    """Bad arguments: one line and exit 2, like every other input error."""

    def error(self, message):
        print(f"evidence: {message}", file=sys.stderr)
        sys.exit(2)


def main(argv):
    ap = Parser(description=__doc__.split("\n")[0], epilog=__doc__.split("\n", 2)[2],
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["check"], help="the only mode: check the documents")
    ap.add_argument("--root", default=TOP, help="the lab tree (default: this one)")
    ap.add_argument("--evidence", help=f"the evidence file (default: ROOT/{EVIDENCE})")
    ap.add_argument("--cover", help=f"the cover letter (default: ROOT/{COVER})")
    a = ap.parse_args(argv)
    root = os.path.abspath(a.root)
    evidence = os.path.abspath(a.evidence or os.path.join(root, EVIDENCE))
    cover = os.path.abspath(a.cover or os.path.join(root, COVER))
    try:
        problems = check(root, evidence, cover)
    except Problems as e:
        print(f"evidence: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"evidence: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"evidence: {os.path.relpath(evidence, root)} matches its reports and "
          f"{os.path.relpath(cover, root)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
