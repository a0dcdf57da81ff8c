#!/bin/bash
# Host tests of the test driver tests/run itself, on fake suites in a
# temporary directory (TEST_ROOT): its summary lines, counts and exit status,
# the progress lines on stderr, and the KTAP and JUnit files it writes next to
# the log.  The KTAP is read by a strict parser of the rules of the kernel's
# Documentation/dev-tools/ktap.rst (below) and, when a kernel tree is at hand,
# by that tree's tools/testing/kunit/kunit.py parse; the JUnit by xml.etree.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
py=/usr/bin/python3
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1: $(printf '%s' "$2" | cat -v)"; fail=1; }  # no raw bytes
tmp=${KEEP_TMP:-$(mktemp -d)}; [ -n "$KEEP_TMP" ] || trap 'rm -rf "$tmp"' EXIT
unset TEST_ROOT TEST_LOG TEST_KTAP TEST_JUNIT
flat() { tr '\n' '|' <"$1" | cut -c1-800; }

# ---- fake suites ---------------------------------------------------------
# "mixed": every kind of line, a .t that dies without a line, one whose names
# and reasons hold '#', XML's specials, a control character, a tab and a byte
# that is not UTF-8, one that reports nothing, one that is not executable.
mkdir -p "$tmp/root/mixed" "$tmp/root/good"
cat >"$tmp/root/mixed/10-kinds.t" <<'T'
#!/bin/sh
echo "PASS: alpha"
echo "PASS: beta: with colon"
echo "FAIL: gamma: want 1, got 2"
echo "not a check line"
echo "XFAIL: delta: 6.1 lacks it"
echo "SKIP: epsilon: unmeasurable: precondition w > 20 not met: measured 0"
echo "kinds-on-stderr" >&2
cp "$FAKE_ERR" "$FAKE_ERR.at-10"   # what the driver had said on stderr by now
sleep 1
exit 1
T
printf '#!/bin/sh\ncp "$FAKE_ERR" "$FAKE_ERR.at-20"\nexit 3\n' >"$tmp/root/mixed/20-dies.t"
cat >"$tmp/root/mixed/30-special.t" <<'T'
#!/bin/sh
printf 'PASS: hash#name\n'
printf 'FAIL: amp&<lt>"q": msg & < > " \001 tab\there # SKIP trap\n'
printf 'XFAIL: x # y: reason # SKIP not\n'
printf 'SKIP: bad\377utf: unmeasurable: r\n'
exit 1
T
printf '#!/bin/sh\nexit 0\n' >"$tmp/root/mixed/40-empty.t"
printf '#!/bin/sh\necho "PASS: never"\n' >"$tmp/root/mixed/50-noexec.t"
chmod +x "$tmp/root/mixed/"[1-4]0-*.t
# "good": no failure, so kunit.py must accept it
printf '#!/bin/sh\necho "PASS: a"\necho "XFAIL: b: known"\necho "SKIP: c: unmeasurable: no disk"\n' >"$tmp/root/good/10-ok.t"
printf '#!/bin/sh\necho "SKIP: d: unmeasurable: nothing to judge"\n' >"$tmp/root/good/20-skiponly.t"
chmod +x "$tmp/root/good/"*.t

run() { # DIR [tests/run args...]: the run's stdout, stderr and exit status in DIR
	local d=$1; shift
	mkdir -p "$d"
	FAKE_ERR=$d/err TEST_ROOT="$tmp/root" TEST_LOG="$d/test.log" TEST_KTAP="$d/test.ktap" TEST_JUNIT="$d/junit.xml" \
		tests/run "$@" >"$d/out" 2>"$d/err"
	echo $? >"$d/rc"
}
run "$tmp/m" mixed
run "$tmp/g" good

# ---- the driver's own lines ----------------------------------------------
rc=$(cat "$tmp/m/rc")
[ "$rc" -ne 0 ] && pass run_exit_status_failed || bad run_exit_status_failed "exit $rc with failures"
rc=$(cat "$tmp/g/rc")
[ "$rc" -eq 0 ] && pass run_exit_status_passed || bad run_exit_status_passed "exit $rc without a failure"
last=$(tail -n 1 "$tmp/m/out")
[ "$last" = "3 passed, 3 failed" ] && pass run_summary_mixed || bad run_summary_mixed "last line '$last'"
last=$(tail -n 1 "$tmp/g/out")
[ "$last" = "1 passed, 0 failed" ] && pass run_summary_good || bad run_summary_good "last line '$last'"

# stdout is the format CI and people read, to the byte (seconds aside)
sed 's/(\([0-9]*\)s)$/(Ns)/' "$tmp/m/out" >"$tmp/m/out.n"
printf '%s\n' \
'  [mixed/10-kinds] FAIL: gamma: want 1, got 2' \
'  [mixed/10-kinds] XFAIL: delta: 6.1 lacks it' \
'  [mixed/10-kinds] SKIP: epsilon: unmeasurable: precondition w > 20 not met: measured 0' \
'mixed/10-kinds                 2 passed   1 failed   1 xfail   1 unmeasurable  (Ns)' \
'  [mixed/20-dies] FAIL: mixed/20-dies: exited 3 without naming a failed check' \
'mixed/20-dies                  0 passed   1 failed   0 xfail   0 unmeasurable  (Ns)' \
"  [mixed/30-special] FAIL: amp&<lt>\"q\": msg & < > \" $(printf '\001') tab$(printf '\t')here # SKIP trap" \
'  [mixed/30-special] XFAIL: x # y: reason # SKIP not' \
"  [mixed/30-special] SKIP: bad$(printf '\377')utf: unmeasurable: r" \
'mixed/30-special               1 passed   1 failed   1 xfail   1 unmeasurable  (Ns)' \
'mixed/40-empty                 0 passed   0 failed   0 xfail   0 unmeasurable  (Ns)' \
'Failed checks, as above:' \
'  [mixed/10-kinds] FAIL: gamma: want 1, got 2' \
'  [mixed/20-dies] FAIL: mixed/20-dies: exited 3 without naming a failed check' \
"  [mixed/30-special] FAIL: amp&<lt>\"q\": msg & < > \" $(printf '\001') tab$(printf '\t')here # SKIP trap" \
"2 expected failures (XFAIL, not counted as passed); 2 unmeasurable (SKIP: precondition not met, counted neither as passed nor as failed); full log: $tmp/m/test.log" \
'3 passed, 3 failed' >"$tmp/m/out.want"
cmp -s "$tmp/m/out.n" "$tmp/m/out.want" && pass run_stdout_format \
	|| bad run_stdout_format "$(diff "$tmp/m/out.want" "$tmp/m/out.n" | tr '\n' '|' | cut -c1-600)"

# progress: one line per .t as it starts, on stderr only; the .t's own stderr
# goes to the log
printf '%s\n' '>> mixed/10-kinds ...' '>> mixed/20-dies ...' '>> mixed/30-special ...' '>> mixed/40-empty ...' \
	">> KTAP: $tmp/m/test.ktap, JUnit: $tmp/m/junit.xml" >"$tmp/m/err.want"
cmp -s "$tmp/m/err" "$tmp/m/err.want" && ! grep -q '^>>' "$tmp/m/out" && pass run_progress_stderr \
	|| bad run_progress_stderr "stderr: $(flat "$tmp/m/err")"
grep -qx kinds-on-stderr "$tmp/m/test.log" && ! grep -q kinds-on-stderr "$tmp/m/out" "$tmp/m/err" \
	&& pass run_test_stderr_in_log || bad run_test_stderr_in_log "log: $(flat "$tmp/m/test.log")"
# ... each start line is out while its .t runs (the .t copied the driver's
# stderr), and comes after the summary of the .t before
at10=$(cat "$tmp/m/err.at-10" 2>&1) at20=$(cat "$tmp/m/err.at-20" 2>&1)
[ "$at10" = ">> mixed/10-kinds ..." ] && [ "$at20" = ">> mixed/10-kinds ...
>> mixed/20-dies ..." ] && pass run_progress_at_start || bad run_progress_at_start "$at10|$at20"
mkdir -p "$tmp/c"
FAKE_ERR=$tmp/c/all TEST_ROOT="$tmp/root" TEST_LOG="$tmp/c/test.log" tests/run mixed >"$tmp/c/all" 2>&1
seq=$(grep -E '^(>> mixed/|mixed/)' "$tmp/c/all" | awk '{print $1 == ">>" ? "start " $2 : "end " $1}' | tr '\n' ' ')
want="start mixed/10-kinds end mixed/10-kinds start mixed/20-dies end mixed/20-dies start mixed/30-special end mixed/30-special start mixed/40-empty end mixed/40-empty "
[ "$seq" = "$want" ] && pass run_progress_order || bad run_progress_order "$seq"

# ---- KTAP ----------------------------------------------------------------
cat >"$tmp/m/ktap.want" <<'K'
KTAP version 1
1..4
  KTAP version 1
  # Subtest: mixed/10-kinds
  1..5
  ok 1 alpha
  ok 2 beta: with colon
  not ok 3 gamma # want 1, got 2
  ok 4 delta # XFAIL 6.1 lacks it
  ok 5 epsilon # SKIP unmeasurable: precondition w > 20 not met: measured 0
not ok 1 mixed/10-kinds # 1 failed, exit status 1
  KTAP version 1
  # Subtest: mixed/20-dies
  1..1
  not ok 1 mixed/20-dies (check) # exited 3 without naming a failed check
not ok 2 mixed/20-dies # 1 failed, exit status 3
  KTAP version 1
  # Subtest: mixed/30-special
  1..4
  ok 1 hash_name
  not ok 2 amp&<lt>"q" # msg & < > " \x01 tab\x09here _ SKIP trap
  ok 3 x _ y # XFAIL reason _ SKIP not
  ok 4 bad\xffutf # SKIP unmeasurable: r
not ok 3 mixed/30-special # 1 failed, exit status 1
ok 4 mixed/40-empty # SKIP no check reported
# Totals: pass:3 fail:3 xfail:2 xpass:0 skip:2 error:0
K
cmp -s "$tmp/m/test.ktap" "$tmp/m/ktap.want" && pass ktap_exact \
	|| bad ktap_exact "$(diff "$tmp/m/ktap.want" "$tmp/m/test.ktap" | tr '\n' '|' | cut -c1-600)"

# A strict reader of ktap.rst: version line, plan, results numbered from 1 in
# plan order, subtests indented two spaces with their own version line and
# plan (and "# Subtest: NAME", whose NAME the parent's result line repeats),
# names without '#', a directive only SKIP or XFAIL on "ok", a parent "not ok"
# exactly when a subtest is, "ok # SKIP" when every subtest skipped, nothing
# unparsed, and the kselftest totals line last, equal to the checks' counts.
# Prints one line per .t and the totals.
ktap_read() {
	$py - "$1" <<'P'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
if lines[-1] != "":
    sys.exit("no final newline")
lines.pop()
pos = 0
RESULT = re.compile(r"^(ok|not ok) ([0-9]+) ([^#]*[^# ])(?: # (.*))?$")
DIRECTIVE = re.compile(r"(?i)(skip|todo|xfail|xpass|timeout|error)\b")
counts = dict(pass_=0, fail=0, xfail=0, skip=0)

def die(msg):
    sys.exit(f"line {pos + 1}: {msg}: {lines[pos] if pos < len(lines) else '<end>'!r}")

def take(indent, pattern):
    global pos
    if pos >= len(lines) or not lines[pos].startswith(indent):
        die(f"expected {pattern!r} at indent {len(indent)}")
    m = re.fullmatch(pattern, lines[pos][len(indent):])
    if not m:
        die(f"expected {pattern!r}")
    pos += 1
    return m

def result(indent, num, want_name=None):
    m = take(indent, RESULT.pattern)
    status, n, name, rest = m.groups()
    if int(n) != num:
        die(f"test number {n}, want {num}")
    if name.startswith("- ") or name != name.strip():
        die("bad name")
    if want_name is not None and name != want_name:
        die(f"result names {name!r}, subtest header {want_name!r}")
    directive = None
    if rest is not None:
        d = DIRECTIVE.match(rest)
        if d:
            directive = d.group(1)
            if directive not in ("SKIP", "XFAIL") or status != "ok":
                die(f"directive {directive} on {status}")
    return status, name, directive

def block(indent):
    """A version line, optional subtest header, plan and its results."""
    take(indent, r"KTAP version 1")
    header = None
    if indent:
        header = take(indent, r"# Subtest: (.+)").group(1)
    n = int(take(indent, r"1\.\.([0-9]+)").group(1))
    kids = []
    for i in range(1, n + 1):
        while pos < len(lines) and lines[pos].startswith(indent + "# ") \
                and not lines[pos].startswith(indent + "# Totals:"):
            globals()["pos"] += 1  # diagnostic
        sub = None
        if pos < len(lines) and lines[pos] == indent + "  KTAP version 1":
            sub_header, sub = block(indent + "  ")
            status, name, directive = result(indent, i, sub_header)
        else:
            status, name, directive = result(indent, i)
        kids.append((status, name, directive, sub))
    return header, kids

_, tests = block("")
out = []
for status, name, directive, sub in tests:
    sub = sub or []
    if any(s[3] for s in sub):
        sys.exit(f"{name}: deeper than one level")
    failed = any(s[0] == "not ok" for s in sub)
    if (status == "not ok") != failed:
        die(f"{name} is {status} but a subtest failed: {failed}")
    all_skip = all(s[2] == "SKIP" for s in sub)
    if (directive == "SKIP") != (all_skip and not failed):
        die(f"{name}: SKIP directive {directive} but every subtest skipped: {all_skip}")
    kinds = []
    for s_status, s_name, s_dir, _ in sub:
        kind = "fail" if s_status == "not ok" else {None: "pass_", "XFAIL": "xfail", "SKIP": "skip"}[s_dir]
        counts[kind] += 1
        kinds.append(f"{kind.rstrip('_')}:{s_name}")
    out.append(f"{status}{' # ' + directive if directive else ''} {name} [{', '.join(kinds)}]")
m = take("", r"# Totals: pass:([0-9]+) fail:([0-9]+) xfail:([0-9]+) xpass:0 skip:([0-9]+) error:0")
if [int(x) for x in m.groups()] != [counts["pass_"], counts["fail"], counts["xfail"], counts["skip"]]:
    die(f"totals {m.groups()} but the results count {counts}")
if pos != len(lines):
    die("after the totals")
print("\n".join(out))
print("totals pass:%(pass_)d fail:%(fail)d xfail:%(xfail)d skip:%(skip)d" % counts)
P
}
got=$(ktap_read "$tmp/m/test.ktap" 2>&1)
want='not ok mixed/10-kinds [pass:alpha, pass:beta: with colon, fail:gamma, xfail:delta, skip:epsilon]
not ok mixed/20-dies [fail:mixed/20-dies (check)]
not ok mixed/30-special [pass:hash_name, fail:amp&<lt>"q", xfail:x _ y, skip:bad\xffutf]
ok # SKIP mixed/40-empty []
totals pass:3 fail:3 xfail:2 skip:2'
[ "$got" = "$want" ] && pass ktap_strict_parse_mixed || bad ktap_strict_parse_mixed "$(tr '\n' '|' <<<"$got")"
got=$(ktap_read "$tmp/g/test.ktap" 2>&1)
want='ok good/10-ok [pass:a, xfail:b, skip:c]
ok # SKIP good/20-skiponly [skip:d]
totals pass:1 fail:0 xfail:1 skip:2'
[ "$got" = "$want" ] && pass ktap_strict_parse_good || bad ktap_strict_parse_good "$(tr '\n' '|' <<<"$got")"
# the reader itself rejects what ktap.rst forbids
sed 's/^  ok 2 beta/  ok 3 beta/' "$tmp/m/test.ktap" >"$tmp/bad1.ktap"
sed 's/^  # Subtest: mixed\/20-dies$/  # Subtest: other/' "$tmp/m/test.ktap" >"$tmp/bad2.ktap"
sed 's/^  ok 1 hash_name/  ok 1 hash#name/' "$tmp/m/test.ktap" >"$tmp/bad3.ktap"
sed 's/^not ok 1 mixed\/10-kinds .*/ok 1 mixed\/10-kinds/' "$tmp/m/test.ktap" >"$tmp/bad4.ktap"
sed 's/^# Totals: pass:3/# Totals: pass:4/' "$tmp/m/test.ktap" >"$tmp/bad5.ktap"
sed 's/^  ok 2 beta/ok 2 beta/' "$tmp/m/test.ktap" >"$tmp/bad6.ktap"
rejected=0
for i in 1 2 3 4 5 6; do ktap_read "$tmp/bad$i.ktap" >/dev/null 2>&1 || rejected=$((rejected + 1)); done
[ $rejected -eq 6 ] && pass ktap_strict_parser_rejects || bad ktap_strict_parser_rejects "$rejected of 6 broken files rejected"

# the kernel's own KTAP reader, when a tree is here
kunit=
for k in "$top"/build/patched/linux/tools/testing/kunit/kunit.py "$top"/build/stock/linux/tools/testing/kunit/kunit.py; do
	[ -f "$k" ] && { kunit=$k; break; }
done
if [ -z "$kunit" ]; then
	echo "SKIP: ktap_kunit_parse_good: unmeasurable: no kernel tree with tools/testing/kunit/kunit.py under build/"
	echo "SKIP: ktap_kunit_parse_mixed: unmeasurable: no kernel tree with tools/testing/kunit/kunit.py under build/"
else
	out=$($py "$kunit" parse <"$tmp/g/test.ktap" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q 'Testing complete. Ran 4 tests: passed: 2, skipped: 2$' <<<"$out" && ! grep -q 'ERROR' <<<"$out"; then
		pass ktap_kunit_parse_good
	else
		bad ktap_kunit_parse_good "rc=$rc $(tr '\n' '|' <<<"$out" | cut -c1-600)"
	fi
	# with failures kunit.py exits 1; what matters is that it read the tree right
	out=$($py "$kunit" parse --json="$tmp/kunit.json" <"$tmp/m/test.ktap" 2>&1); rc=$?
	got=$($py - "$tmp/kunit.json" <<'P' 2>&1
import json, sys
def show(g, ind=""):
    for t in g["test_cases"]:
        print(f"{ind}{t['name']} {t['status']}")
    for s in g["sub_groups"]:
        print(f"{ind}{s['name']}:")
        show(s, ind + "  ")
show(json.load(open(sys.argv[1])))
P
)
	want='mixed/40-empty SKIP
mixed/10-kinds:
  alpha PASS
  beta: with colon PASS
  gamma FAIL
  delta PASS
  epsilon SKIP
mixed/20-dies:
  mixed/20-dies (check) FAIL
mixed/30-special:
  hash_name PASS
  amp&<lt>"q" FAIL
  x _ y PASS
  bad\xffutf SKIP'
	if [ $rc -eq 1 ] && [ "$got" = "$want" ] && ! grep -q 'ERROR' <<<"$out"; then
		pass ktap_kunit_parse_mixed
	else
		bad ktap_kunit_parse_mixed "rc=$rc $(tr '\n' '|' <<<"$got") $(grep ERROR <<<"$out" | tr '\n' '|')"
	fi
fi

# ---- JUnit ---------------------------------------------------------------
junit_read() {
	$py - "$1" <<'P'
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
tot = dict(tests=0, failures=0, skipped=0)
for s in root:
    assert s.tag == "testsuite", s.tag
    cases = list(s)
    n = dict(tests=len(cases), failures=0, skipped=0)
    print(f"{s.get('name')} tests={s.get('tests')} failures={s.get('failures')} skipped={s.get('skipped')}")
    for c in cases:
        assert c.tag == "testcase" and c.get("classname") == s.get("name"), (c.tag, c.attrib)
        kids = list(c)
        assert len(kids) <= 1, kids
        kind = kids[0].tag if kids else "pass"
        if kind == "failure":
            n["failures"] += 1
        elif kind == "skipped":
            n["skipped"] += 1
        else:
            assert kind == "pass", kind
        msg = " " + json.dumps(kids[0].get("message"), ensure_ascii=False) if kids else ""
        print(f"  {kind} {json.dumps(c.get('name'), ensure_ascii=False)}{msg}")
    for k, v in n.items():
        assert s.get(k) == str(v), (s.get("name"), k, s.get(k), v)
        tot[k] += v
    assert s.get("time", "").isdigit(), s.get("time")
for k, v in tot.items():
    assert root.get(k) == str(v), (k, root.get(k), v)
print("total " + " ".join(f"{k}={v}" for k, v in tot.items()))
P
}
got=$(junit_read "$tmp/m/junit.xml" 2>&1)
want='mixed/10-kinds tests=5 failures=1 skipped=2
  pass "alpha"
  pass "beta: with colon"
  failure "gamma" "want 1, got 2"
  skipped "delta" "XFAIL: 6.1 lacks it"
  skipped "epsilon" "unmeasurable: precondition w > 20 not met: measured 0"
mixed/20-dies tests=1 failures=1 skipped=0
  failure "mixed/20-dies" "exited 3 without naming a failed check"
mixed/30-special tests=4 failures=1 skipped=2
  pass "hash#name"
  failure "amp&<lt>\"q\"" "msg & < > \" \\x01 tab\there # SKIP trap"
  skipped "x # y" "XFAIL: reason # SKIP not"
  skipped "bad\\xffutf" "unmeasurable: r"
mixed/40-empty tests=0 failures=0 skipped=0
total tests=10 failures=3 skipped=4'
[ "$got" = "$want" ] && pass junit_wellformed_counts || bad junit_wellformed_counts "$(tr '\n' '|' <<<"$got" | cut -c1-800)"
got=$(junit_read "$tmp/g/junit.xml" 2>&1 | tail -n 1)
[ "$got" = "total tests=4 failures=0 skipped=3" ] && pass junit_good_counts || bad junit_good_counts "$got"
# each testsuite's time is the seconds of its summary line (10-kinds sleeps 1 s)
got=$($py -c '
import sys, xml.etree.ElementTree as ET
for s in ET.parse(sys.argv[1]).getroot(): print(s.get("name"), s.get("time"))' "$tmp/m/junit.xml" 2>&1)
want=$(sed -n 's/^\(mixed\/[^ ]*\) .*(\([0-9]*\)s)$/\1 \2/p' "$tmp/m/out")
k=$(sed -n 's/^mixed\/10-kinds .*(\([0-9]*\)s)$/\1/p' "$tmp/m/out")
[ "$got" = "$want" ] && [ "${k:-0}" -ge 1 ] && pass junit_times || bad junit_times "junit '$(tr '\n' '|' <<<"$got")' summary '$(tr '\n' '|' <<<"$want")'"

# ---- paths and failure to write ------------------------------------------
# Without TEST_KTAP/TEST_JUNIT the files sit next to the log, named after it.
mkdir -p "$tmp/d"
TEST_ROOT="$tmp/root" TEST_LOG="$tmp/d/run.log" tests/run good >/dev/null 2>&1
if cmp -s "$tmp/d/run.ktap" "$tmp/g/test.ktap" &&
   cmp -s <(sed 's/ time="[0-9]*"//' "$tmp/d/run.junit.xml") <(sed 's/ time="[0-9]*"//' "$tmp/g/junit.xml"); then
	pass default_paths_next_to_log
else
	bad default_paths_next_to_log "$(ls "$tmp/d" | tr '\n' ' ')"
fi
# A report that cannot be written is one more failure, not a silent pass.
mkdir -p "$tmp/w"
TEST_ROOT="$tmp/root" TEST_LOG="$tmp/w/test.log" TEST_KTAP=/dev/null/test.ktap tests/run good >"$tmp/w/out" 2>/dev/null; rc=$?
if [ $rc -ne 0 ] && [ "$(tail -n 1 "$tmp/w/out")" = "1 passed, 1 failed" ] &&
   grep -q '^  \[tests/run\] FAIL: report-formats: /dev/null/test.ktap' "$tmp/w/out"; then
	pass report_write_failure_counts
else
	bad report_write_failure_counts "rc=$rc $(flat "$tmp/w/out")"
fi
# fd 3: a test's progress lines reach the person watching (tests/run's
# stderr), not its stdout nor the log
mkdir -p "$tmp/root3/p"
printf '#!/bin/sh\necho "stage one of two" >&3\necho "to the log" >&2\necho "PASS: p1"\n' >"$tmp/root3/p/1.t"
chmod +x "$tmp/root3/p/1.t"
TEST_ROOT=$tmp/root3 TEST_LOG=$tmp/p3.log tests/run p >"$tmp/p3.out" 2>"$tmp/p3.err"
grep -qx 'stage one of two' "$tmp/p3.err" && ! grep -q 'stage one' "$tmp/p3.out" "$tmp/p3.log" && grep -q 'to the log' "$tmp/p3.log" \
	&& pass run_progress_fd3 || bad run_progress_fd3 "err: $(flat "$tmp/p3.err") log: $(flat "$tmp/p3.log")"
# ... and when tests/run's output is a file, as CI's log is, a progress line
# loses nothing already written there (no truncation, no hole of NULs)
mkdir -p "$tmp/root4/p"
printf '#!/bin/sh\necho "PASS: first"\n' >"$tmp/root4/p/1.t"
printf '#!/bin/bash\n. "%s/tests/lib.sh"\necho "stage of two" | progress >/dev/null\necho "PASS: second"\n' "$top" >"$tmp/root4/p/2.t"
chmod +x "$tmp/root4/p/1.t" "$tmp/root4/p/2.t"
TEST_ROOT=$tmp/root4 TEST_LOG=$tmp/p4.log tests/run p >"$tmp/p4.all" 2>&1
if grep -q '^p/1 .* 1 passed' "$tmp/p4.all" && grep -qx 'stage of two' "$tmp/p4.all" &&
   [ "$(tail -n 1 "$tmp/p4.all")" = "2 passed, 0 failed" ] &&
   [ "$(tr -d '\000' <"$tmp/p4.all" | wc -c)" -eq "$(wc -c <"$tmp/p4.all")" ]; then
	pass run_progress_keeps_file_log
else
	bad run_progress_keeps_file_log "$(tr '\000' '@' <"$tmp/p4.all" | tr -s '@' | head -c 300 | tr '\n' '|')"
fi
# CI keeps only the end of a long log: the failures are named again just
# above the summary line, with their test's name, whatever ran after them
mkdir -p "$tmp/root5/p"
printf '#!/bin/sh\necho "PASS: a1"\necho "FAIL: a2: wrong by 3"\nexit 1\n' >"$tmp/root5/p/1.t"
printf '#!/bin/sh\ni=0; while [ $i -lt 50 ]; do echo "PASS: b$i"; i=$((i + 1)); done\necho "SKIP: b99: unmeasurable: precondition x not met"\n' >"$tmp/root5/p/2.t"
printf '#!/bin/sh\necho "PASS: c1"\nexit 3\n' >"$tmp/root5/p/3.t"
chmod +x "$tmp/root5/p/1.t" "$tmp/root5/p/2.t" "$tmp/root5/p/3.t"
TEST_ROOT=$tmp/root5 TEST_LOG=$tmp/p5.log tests/run p >"$tmp/p5.out" 2>/dev/null; rc=$?
if [ $rc -ne 0 ] && [ "$(tail -n 1 "$tmp/p5.out")" = "52 passed, 2 failed" ] &&
   tail -n 5 "$tmp/p5.out" | grep -qx '  \[p/1\] FAIL: a2: wrong by 3' &&
   tail -n 5 "$tmp/p5.out" | grep -qx '  \[p/3\] FAIL: p/3: exited 3 without naming a failed check'; then
	pass run_repeats_failures_at_end
else
	bad run_repeats_failures_at_end "rc=$rc $(tail -n 6 "$tmp/p5.out" | tr '\n' '|')"
fi
# A suite's `prebuild` (the lab's kernels) starts when the run starts, in the
# background at idle priority, so that it builds while the suites before it
# run; in the run's session (the scheduler's autogroup: its nice value then
# counts against the tests, not beside them) but its own process group, which
# the driver stops at the end whatever is left of it.  Only a selected
# suite's prebuild starts, and TEST_PREBUILD=0 starts none.
mkdir -p "$tmp/root6/h" "$tmp/root6/l" "$tmp/pb"
cat >"$tmp/root6/l/prebuild" <<'T'
#!/bin/bash
echo "prebuild says"
read -r -a st </proc/self/stat
echo "nice=${st[18]} policy=$(chrt -p $$ | sed -n 's/.*policy: //p') sid=$(ps -o sid= -p $$ | tr -d ' ') pgid=$(ps -o pgid= -p $$ | tr -d ' ') pid=$$" >"$PB/started"
sleep "${PB_SLEEP:-2}"
touch "$PB/built"
T
cat >"$tmp/root6/h/1.t" <<'T'
#!/bin/bash
sleep 1.5
[ -f "$PB/started" ] && echo "PASS: prebuild_seen" || echo "FAIL: prebuild_seen: no prebuild running beside the host suite"
echo "sid=$(ps -o sid= -p $$ | tr -d ' ') pgid=$(ps -o pgid= -p $$ | tr -d ' ')" >"$PB/test"
T
cat >"$tmp/root6/l/1.t" <<'T'
#!/bin/bash
for _ in $(seq 40); do [ -f "$PB/built" ] && break; sleep 0.25; done
[ -f "$PB/built" ] && echo "PASS: built" || echo "FAIL: built: the prebuild never finished"
T
chmod +x "$tmp/root6/l/prebuild" "$tmp/root6/h/1.t" "$tmp/root6/l/1.t"
PB=$tmp/pb TEST_ROOT=$tmp/root6 TEST_LOG=$tmp/p6.log tests/run h l >"$tmp/p6.out" 2>"$tmp/p6.err"; rc=$?
[ $rc -eq 0 ] && [ "$(tail -n 1 "$tmp/p6.out")" = "2 passed, 0 failed" ] && pass run_prebuild_beside_earlier_suites \
	|| bad run_prebuild_beside_earlier_suites "rc=$rc $(tr '\n' '|' <"$tmp/p6.out")"
started=$(cat "$tmp/pb/started" 2>/dev/null) test=$(cat "$tmp/pb/test" 2>/dev/null)
[[ $started == nice=19\ policy=SCHED_IDLE* ]] && pass run_prebuild_idle_priority || bad run_prebuild_idle_priority "'$started'"
psid=$(sed -n 's/.*sid=\([0-9]*\).*/\1/p' <<<"$started") ppg=$(sed -n 's/.*pgid=\([0-9]*\).*/\1/p' <<<"$started")
ppid_=$(sed -n 's/.*pid=\([0-9]*\)$/\1/p' <<<"$started")
tsid=$(sed -n 's/^sid=\([0-9]*\).*/\1/p' <<<"$test") tpg=$(sed -n 's/.*pgid=\([0-9]*\)/\1/p' <<<"$test")
[ -n "$psid" ] && [ "$psid" = "$tsid" ] && [ "$ppg" != "$tpg" ] && [ "$ppg" = "$ppid_" ] && pass run_prebuild_session_and_group \
	|| bad run_prebuild_session_and_group "prebuild '$started', a test '$test'"
grep -qx 'prebuild says' "$tmp/p6.prebuild-l.log" 2>/dev/null && grep -q '^>> l/prebuild: .*p6.prebuild-l.log' "$tmp/p6.err" \
	&& pass run_prebuild_log || bad run_prebuild_log "$(tr '\n' '|' <"$tmp/p6.err" | cut -c1-300)"
# one still running when the run ends is stopped with its children
rm -f "$tmp/pb/"*
t0=$(date +%s)
PB=$tmp/pb PB_SLEEP=300 TEST_ROOT=$tmp/root6 TEST_LOG=$tmp/p7.log tests/run h >/dev/null 2>&1
took=$(( $(date +%s) - t0 ))
# (l not selected: its prebuild must not start)
[ ! -f "$tmp/pb/started" ] && pass run_prebuild_only_selected_suites || bad run_prebuild_only_selected_suites "l/prebuild ran for 'tests/run h'"
rm -f "$tmp/pb/"*
mkdir -p "$tmp/root7/l"
cp "$tmp/root6/l/prebuild" "$tmp/root7/l/prebuild"
printf '#!/bin/sh\nsleep 1\necho "PASS: x"\n' >"$tmp/root7/l/1.t"; chmod +x "$tmp/root7/l/1.t"
t0=$(date +%s)
PB=$tmp/pb PB_SLEEP=300 TEST_ROOT=$tmp/root7 TEST_LOG=$tmp/p7.log tests/run l >/dev/null 2>&1
took=$(( $(date +%s) - t0 ))
# what is left of the prebuild's process group (its sleep 300 included),
# given up to 5 s to go: a SIGTERM is not an instant exit on a loaded host
pg=$(sed -n 's/.*pgid=\([0-9]*\) .*/\1/p' "$tmp/pb/started" 2>/dev/null)
left=unknown
for _ in $(seq 50); do
	[ -n "$pg" ] || break
	left=$(pgrep -g "$pg" | tr '\n' ' ')
	[ -z "$left" ] && break
	sleep 0.1
done
[ -f "$tmp/pb/started" ] && [ $took -lt 30 ] && [ -z "$left" ] && pass run_prebuild_stopped_at_end \
	|| bad run_prebuild_stopped_at_end "took ${took}s, started '$(cat "$tmp/pb/started" 2>/dev/null)', left in its group: '$left'"
[ -n "$pg" ] && pkill -g "$pg" 2>/dev/null
rm -f "$tmp/pb/"*
PB=$tmp/pb TEST_PREBUILD=0 TEST_ROOT=$tmp/root7 TEST_LOG=$tmp/p8.log tests/run l >/dev/null 2>&1
[ ! -f "$tmp/pb/started" ] && pass run_prebuild_off || bad run_prebuild_off "TEST_PREBUILD=0 started l/prebuild"
exit $fail
