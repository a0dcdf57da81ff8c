#!/bin/bash
# Host tests of the run contract's one owner, launch/dplab/: the check
# evaluator against its users (result-lines.sh for tests/run, matrix.py's
# matrix.ktap, report.py's verdict, collect.py's pass), cell names both ways,
# the lists against the Makefile's help and kernel.sh --variants, the
# records against real JSON, and no second copy of a rule in the front ends.
. "$(dirname "$0")/../lib.sh"
scratch
. tests/result-lines.sh
pyl() { PYTHONPATH="$top/launch" $py "$@"; }

# ---- one evaluator, one status rule --------------------------------------
# Six #CHECK# lines, one per outcome, judged by dplab.checks.evaluate into a
# result.json; each user of the statuses must read the same outcome from it.
mkdir -p "$tmp/m/cell"
got_eval=$(pyl - "$tmp/m/cell/result.json" <<'P'
import json, sys
import scenario
from dplab import checks
sc = scenario.parse("""workload() { :; }
#CHECK# p x == 1
#CHECK# f x == 2
#CHECK# xf x == 2 xfail not on 6.1
#CHECK# xp x == 1 xfail not on 6.1
#CHECK# um missing.metric == 0
#CHECK# sk x == 1 when y > 20
""", "t.sh")
res = checks.evaluate(sc.checks, {"x": 1, "y": 0})
doc = {"checks": res, "pass": not any(checks.unexpected(c) for c in res)}
json.dump(doc, open(sys.argv[1], "w"), indent=1)
print(" ".join(f"{c['name']}={c['status']}{'/skip' if checks.skipped(c) else ''}" for c in res))
P
)
want_eval="p=pass f=fail xf=xfail xp=xpass um=unmeasurable sk=unmeasurable/skip"
[ "$got_eval" = "$want_eval" ] && pass evaluator.six_outcomes || bad evaluator.six_outcomes "$got_eval"

# result-lines.sh (tests/run's lab tests): the kind of each line, and rc 1
# because the run did not pass
lines=$(result_lines cell "$tmp/m/cell/result.json"); rc=$?
kinds=$(sed -E 's/^([A-Z]+): cell\.([a-z]+).*/\2=\1/' <<<"$lines" | tr '\n' ' ')
want_kinds="p=PASS f=FAIL xf=XFAIL xp=FAIL um=FAIL sk=SKIP "
[ $rc -eq 1 ] && [ "$kinds" = "$want_kinds" ] && pass result_lines.same_status || bad result_lines.same_status "rc=$rc $kinds"
# matrix.py's matrix.ktap: the same outcome for each check
pyl -c 'import sys, matrix; matrix.write_test_formats(sys.argv[1], [{"name": "cell"}], {})' "$tmp/m" >/dev/null
ktap=$(grep -E '^  (not )?ok [0-9]+ cell\.' "$tmp/m/matrix.ktap" | sed -E 's/^ *//; s/^ok [0-9]+ cell\.([a-z]+) # (XFAIL|SKIP).*/\1=\2/; s/^ok [0-9]+ cell\.([a-z]+)$/\1=PASS/; s/^not ok [0-9]+ cell\.([a-z]+).*/\1=FAIL/' | tr '\n' ' ')
[ "$ktap" = "$want_kinds" ] && pass matrix_ktap.same_status || bad matrix_ktap.same_status "$ktap"
# the KTAP line and the tests/run line are one function's: same text, value spelling aside
k_fail=$(grep -o 'not ok [0-9]* cell.um # .*' "$tmp/m/matrix.ktap")
[[ $k_fail == *"unmeasurable: missing.metric == 0, got None (metric missing.metric not in this run)" ]] && \
	grep -qx 'FAIL: cell.um: unmeasurable: missing.metric == 0, got null (metric missing.metric not in this run)' <<<"$lines" \
	&& pass test_line.one_text || bad test_line.one_text "$k_fail"
# report.py's verdict and collect.py's pass from the same list
v=$(pyl -c 'import json, sys, report, collect
d = json.load(open(sys.argv[1]))
print(report.verdict_of(d), report.failing_names(d), [c["name"] for c in d["checks"] if collect.unexpected(c)])' "$tmp/m/cell/result.json")
[ "$v" = "FAIL ['f', 'xp', 'um'] ['f', 'xp', 'um']" ] && pass verdict.same_rule || bad verdict.same_rule "$v"
# without the failing checks: XFAIL verdict, rc 0, the skip neither
jq '.checks |= map(select(.name | IN("f", "xp", "um") | not)) | .pass = true' "$tmp/m/cell/result.json" >"$tmp/ok.json"
lines=$(result_lines cell "$tmp/ok.json"); rc=$?
v=$(pyl -c 'import json, sys, report; print(report.verdict_of(json.load(open(sys.argv[1]))))' "$tmp/ok.json")
[ $rc -eq 0 ] && [ "$v" = XFAIL ] && [ "$(grep -c . <<<"$lines")" -eq 3 ] && pass verdict.xfail_and_skip || bad verdict.xfail_and_skip "rc=$rc $v"
out=$(result_lines cell "$tmp/nosuch.json" 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == "checks: $tmp/nosuch.json: "* ]] && pass result_lines.unreadable || bad result_lines.unreadable "rc=$rc $out"

# ---- no second copy of a rule ----------------------------------------------
copies=$(grep -nE '^(MODES|KERNELS|LRUS|COLUMNS|NOT_PASSING|IMPLICIT|PROBLEMS) = |^def (verdict_of|failing_names|check_line|skipped|unexpected|evaluate|kernel_obj_dir|console_report|job_env|read_json|lab_state|implicit)\(' \
	launch/{run,matrix,report,scenarios-doc,collect,slurm_engine,scenario,topology}.py)
[ -z "$copies" ] && pass one_owner.no_copies_in_front_ends || bad one_owner.no_copies_in_front_ends "$(tr '\n' '|' <<<"$copies")"
grep -q 'status' tests/result-lines.sh && grep -qE 'jq|"pass"' tests/result-lines.sh \
	&& bad one_owner.result_lines_has_no_rule "tests/result-lines.sh spells the status rule again" \
	|| pass one_owner.result_lines_has_no_rule

# ---- cell names ----------------------------------------------------------------
# Every cell a matrix plans (smoke, bench with repeats, a variant and MGLRU):
# the name is contract.cell_name of its fields, and parses back to them.
{ $py launch/matrix.py --smoke --lru classic,mglru --kernels patched,stock --list --format json
  $py launch/matrix.py --bench --variant debug --lru mglru --repeats 2 --list --format json
  $py launch/matrix.py --topos uma,2node-asym --kernels patched,stock --variant kcsan --list --format json
  $py launch/matrix.py --bench --kvers 6.1,6.12 --lru classic,mglru --repeats 2 --list --format json
  $py launch/matrix.py --smoke --kvers 6.12 --variant debug --kernels patched,stock --list --format json; } >"$tmp/cells.json" 2>/dev/null
r=$(pyl - "$tmp/cells.json" <<'P'
import json, os, sys
from dplab import contract, records
text = open(sys.argv[1]).read()
dec, docs, i = json.JSONDecoder(), [], 0
while i < len(text.rstrip()):
    d, i = dec.raw_decode(text, i)
    docs.append(d)
    while i < len(text) and text[i].isspace():
        i += 1
topos = sorted(os.listdir(os.path.join(contract.TOP, "topologies")))
n, bad, kvers = 0, [], set()
for doc in docs:
    for row in doc["include"]:
        n += 1
        f = contract.parse_cell_name(row["name"], topos)
        fields = {k: row[k] for k in ("topology", "scenario", "mode", "kernel", "variant", "lru", "repeat")}
        # the default version is left out of the row, as out of the name
        fields["kver"] = row.get("kver", contract.DEFAULT_KVER)
        kvers.add(fields["kver"])
        if f != fields or contract.cell_name(**f) != row["name"] or ("kver" in row) != (fields["kver"] != "6.1"):
            bad.append(row["name"])
        c = records.Cell.from_dict(row)
        if c.to_dict() != row or records.Cell.new(c.topology, c.scenario, c.mode, c.kernel, c.lru, c.variant,
                                                   c.repeat, c.kver).name != row["name"]:
            bad.append("record " + row["name"])
print(n, bad[:3], sorted(kvers))
P
)
[[ $r == *" [] ['6.1', '6.12']" ]] && [ "${r%% *}" -gt 100 ] && pass cell_name.round_trip || bad cell_name.round_trip "$r"
r=$(pyl -c 'from dplab.contract import parse_cell_name as p
print(p("uma-smoke-node-patched-kcsan-mglru-r3", ["uma"]), p("uma-smoke-nope-patched", ["uma"]), p("x-smoke-off-stock", ["uma"]))')
[ "$r" = "{'topology': 'uma', 'scenario': 'smoke', 'mode': 'node', 'kernel': 'patched', 'variant': 'kcsan', 'lru': 'mglru', 'repeat': 3, 'kver': '6.1'} None None" ] \
	&& pass cell_name.parse_and_refuse || bad cell_name.parse_and_refuse "$r"
# the kernel version (issue 16): -k<version> after the kernel, the default 6.1 left out;
# a version the contract does not know is no cell's
r=$(pyl -c 'from dplab.contract import parse_cell_name as p, cell_name as n
print(p("uma-smoke-node-patched-k6.12-kcsan-mglru-r3", ["uma"]), p("uma-smoke-off-stock-k6.12", ["uma"])["kver"],
      p("uma-smoke-off-stock-k6.1", ["uma"]), p("uma-smoke-off-stock-k7.3", ["uma"]),
      n("uma", "smoke", "off", "stock", kver="6.1"), n("uma", "smoke", "off", "stock", lru="mglru", repeat=2, kver="6.12"))')
[ "$r" = "{'topology': 'uma', 'scenario': 'smoke', 'mode': 'node', 'kernel': 'patched', 'variant': 'kcsan', 'lru': 'mglru', 'repeat': 3, 'kver': '6.12'} 6.12 None None uma-smoke-off-stock uma-smoke-off-stock-k6.12-mglru-r2" ] \
	&& pass cell_name.kver || bad cell_name.kver "$r"
# the report reads an old cell's fields (no cell.json) from its name the same
# way: a scenario whose name ends in -rN is not a repeat, -mglru is the LRU
for c in uma-smoke-off-patched-mglru-r2 2node-sym-bandwidth-200m-off-stock uma-x-r3-node-patched uma-smoke-off-stock-k6.12-r4; do
	mkdir -p "$tmp/old/$c" && echo '{"topology": "uma", "metrics": {}}' >"$tmp/old/$c/result.json"
done
r=$(pyl -c 'import sys, report
print(*[(c["lru"], c["repeat"], c["kver"]) for c in map(report.load_cell, sys.argv[1:])])' \
	"$tmp/old/uma-smoke-off-patched-mglru-r2" "$tmp/old/2node-sym-bandwidth-200m-off-stock" "$tmp/old/uma-x-r3-node-patched" \
	"$tmp/old/uma-smoke-off-stock-k6.12-r4" 2>&1)
[ "$r" = "('mglru', 2, '6.1') ('classic', None, '6.1') ('classic', None, '6.1') ('classic', 4, '6.12')" ] && pass cell_name.report_reads_old_cells \
	|| bad cell_name.report_reads_old_cells "$r"

# ---- the lists and their other spellings ------------------------------------
lists=$(pyl -c 'from dplab import contract as c; import scenario as s
print("|".join(c.MODES), "|".join(c.KERNELS), ",".join(c.LRUS), "|".join(c.variants()), c.DEFAULT_VARIANT,
      s.CONDITIONS == {"mode": c.MODES, "kernel": c.KERNELS})')
read -r modes kernels lrus variants default cond <<<"$lists"
help=$(make -s --no-print-directory help)
grep -qF "MODE=$modes]" <<<"$help" && grep -qF "KERNEL=$kernels]" <<<"$help" && grep -qF "LRU=$lrus]" <<<"$help" \
	&& pass lists.makefile_help || bad lists.makefile_help "MODE=$modes KERNEL=$kernels LRU=$lrus not all in make help"
grep -qF "VARIANT=$variants]" <<<"$help" && [ "$(launch/kernel.sh --variants | tr ' ' '|')" = "$variants" ] && \
	[[ "|$variants|" == *"|$default|"* ]] && [ "$cond" = True ] && pass lists.variants_kernel_sh || \
	bad lists.variants_kernel_sh "$variants default=$default conditions=$cond"
# ---- which build a run boots: the lab build has no XFS --------------------
# build_variant: a lab run on an XFS disk boots the xfs variant, every other
# run its own VARIANT; run.py --print-build and matrix.py --builds say the same
r=$(pyl -c 'from dplab.contract import build_variant as b
print(b("lab", "xfs"), b(None, "xfs"), b("lab", "ext4"), b("debug", "xfs"), b("kcsan", "ext4"))')
[ "$r" = "xfs xfs lab debug kcsan" ] && pass build_variant.xfs_disk || bad build_variant.xfs_disk "$r"
# Every build a run can boot on an XFS disk has XFS, and the lab build has
# not (it is the xfs variant's alone): the fragments, as kernel.sh merges them
nox=
grep -qx 'CONFIG_XFS_FS=y' patches/lab.config && nox+="lab.config has XFS; "
for v in $(launch/kernel.sh --variants); do
	bv=$(pyl -c 'import sys; from dplab.contract import build_variant; print(build_variant(sys.argv[1], "xfs"))' "$v")
	frags="patches/lab.config"; [ "$bv" != lab ] && frags+=" patches/$bv.config"
	# shellcheck disable=SC2086
	grep -hqx 'CONFIG_XFS_FS=y' $frags || nox+="VARIANT=$v on an XFS disk boots $bv, without XFS; "
done
[ -z "$nox" ] && pass build_variant.xfs_in_every_xfs_build || bad build_variant.xfs_in_every_xfs_build "$nox"
# run.py for every shipped topology: xfs exactly where the disk is XFS
want= got=
for t in topologies/*; do
	fs=$(sed -n 's/^disk .*fs=\([a-z0-9]*\).*/\1/p' "$t")
	want+="$(basename "$t")=$([ "$fs" = xfs ] && echo xfs || echo lab) "
	got+="$(basename "$t")=$($py launch/run.py --topo "$(basename "$t")" --scenario smoke --mode off --print-build 2>&1) "
done
[ "$got" = "$want" ] && [[ $want == *=xfs* ]] && pass build_variant.run_print_build || bad build_variant.run_print_build "$got (want $want)"

# the Makefile's default KERNEL/MODE/VARIANT are names the contract knows
defaults=
for v in MODE KERNEL VARIANT; do
	val=$(sed -n "s/^$v *?= *//p" Makefile)
	case $v in MODE) l=$modes;; KERNEL) l=$kernels;; VARIANT) l=$variants;; esac
	[[ "|$l|" == *"|$val|"* ]] || defaults+="$v=$val not in $l; "
done
[ -z "$defaults" ] && pass lists.makefile_defaults || bad lists.makefile_defaults "$defaults"
# the kernel versions (KVER=, KVERS=): the Makefile's list is the contract's, its help
# names them, each one's source is the contract's, and make deps installs each one's package
r=$(pyl -c 'from dplab import contract as c
print("|".join(c.KVERS), c.DEFAULT_KVER, *[f"{v}={c.kver_ksrc(v) or chr(45)}" for v in c.KVERS])')
read -r kvers kdefault ksrcs <<<"$r"
db=$(make -s --no-print-directory -pn help 2>/dev/null)
mk_kvers=$(sed -n 's/^KVERS_KNOWN := //p' <<<"$db" | tr ' ' '|')
mk_srcs=$(for v in ${kvers//|/ }; do s=$(make -s --no-print-directory KVER="$v" -pn help 2>/dev/null | sed -n 's/^KSRC := //p'); echo "$v=${s:--}"; done | tr '\n' ' ')
pkgs=$(sed -n 's/^DEB_PACKAGES := //p' <<<"$db")
missing=$(for v in ${kvers//|/ }; do [[ " $pkgs " == *" linux-source-$v "* ]] || echo "linux-source-$v"; done)
[ "$mk_kvers" = "$kvers" ] && [ "$kdefault" = 6.1 ] && [ "$mk_srcs" = "$ksrcs " ] && [ -z "$missing" ] && \
	grep -qF "KVER=$kvers" <<<"$help" && grep -qF "KVERS=${kvers//|/,}" <<<"$help" \
	&& pass lists.kvers || bad lists.kvers "contract $kvers ($ksrcs), Makefile $mk_kvers ($mk_srcs), not in DEB_PACKAGES: $missing"

# ---- records: exactly today's JSON ----------------------------------------------
r=$(pyl - <<'P'
import json, glob
import topology, scenario
from dplab import records
bad = []
p = "tests/fixtures/run-smoke/result.json"
text = open(p).read()
x = json.loads(text)
r = records.Result.from_dict(x)
if r.to_dict() != x or json.dumps(r.to_dict(), indent=1) + "\n" != text:
    bad.append("result")
if not (isinstance(r.checks[0], records.Check) and r.checks[0].status == "pass" and r.pass_ is True
        and r.checks[0].reason is records.ABSENT):
    bad.append("result fields")
# a check with every optional key, in collect's order
c = {"name": "n", "value": None, "expectation": "a > 1", "precondition": "b > 2", "precondition_met": False,
     "passed": False, "status": "unmeasurable", "reason": "why", "new_key": 1}
if json.dumps(records.Check.from_dict(c).to_dict()) != json.dumps(c):
    bad.append("check")
for f in sorted(glob.glob("topologies/*")):
    topo = topology.load(f)
    t = json.loads(json.dumps(topo.to_dict()))
    back = records.Topology.from_dict(t)
    if back != topo or back.to_dict() != t or not isinstance(topo.nodes[0], records.Node) \
            or not isinstance(topo.disk, records.Disk):
        bad.append(f)
for f in sorted(glob.glob("workloads/scenarios/*.sh")):
    s = scenario.load(f)
    d = json.loads(json.dumps(s.to_dict()))
    if records.Scenario.from_dict(d) != s or not all(isinstance(c, records.CheckSpec) for c in s.checks):
        bad.append(f)
try:
    records.Check.from_dict({"name": "x"})
    bad.append("missing keys accepted")
except ValueError:
    pass
print(bad or "ok")
P
)
[ "$r" = ok ] && pass records.round_trip || bad records.round_trip "$r"
# topology.py json is the Topology record's JSON
t=$($py launch/topology.py json topologies/2node-asym)
r=$(pyl -c 'import json, sys, topology; from dplab import records
print(json.loads(json.dumps(topology.load(sys.argv[1]).to_dict())) == json.loads(sys.argv[2]))' topologies/2node-asym "$t")
[ "$r" = True ] && pass records.topology_json || bad records.topology_json "$r"

exit $fail
