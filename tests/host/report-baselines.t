#!/bin/bash
# Host tests of the report's Baselines section (issue 15 item 1): a scenario
# with BASELINE_OF= is the same workload under tuning a user can choose
# without the series; each setting's stock kernel is set against the series
# at the reference setting and at its own.  Hand-made result.json trees.
. "$(dirname "$0")/../lib.sh"
scratch

# imb (the reference, 60/10) and imb-tuned (BASELINE_OF=imb), stock / global
# / node, 4 repeats each, and imb on MGLRU (stock and global).  Immediate
# reclaim: stock at imb 1000..1300, global at imb 100..130, stock at
# imb-tuned 50..80 (the tuning alone beats the series: worse), global at
# imb-tuned 10..16 (the series still adds there: better); throughput the
# same everywhere (10, 11, 10, 11 MiB/s: not resolved).  imb-tuned's r1..r2
# say BASELINE_OF only in their kept scenario.sh (records from before
# result.json carried baseline_of).
$py - "$tmp/b" <<'PY'
import json, os, sys
root = sys.argv[1]
MiB = 2**20
def cell(scen, mode, kernel, r, ir, bw, lru="classic", base=None, in_json=True, hog=None):
    name = f"2node-asym-{scen}-{mode}-{kernel}" + ("" if lru == "classic" else f"-{lru}") + f"-r{r}"
    d = os.path.join(root, name); os.makedirs(d)
    m = {"wall_s": 30.0, "vmstat_delta": {"nr_vmscan_write": 0, "pswpout": 0,
         "nr_vmscan_immediate_reclaim": ir, "pgscan_direct": 5, "oom_kill": 0},
         "workloads": {"dirtier": {"bw_bytes_per_s": bw * MiB, "write_lat_p99_us": 20000.0}},
         "kswapd_cpu": {"node0_s": 1.0, "node1_s": 0.0, "total_s": 1.0},
         "trace": {"throttled": {"node0": {"count": 3, "delayed_ms": 300}, "node1": {"count": 0, "delayed_ms": 0}}}}
    if hog is not None:
        m["workloads"]["hog"] = {"alloc_lat_p99_us": hog}
    res = {"topology": "2node-asym", "scenario": scen, "claim": "c", "mode": mode, "kernel": kernel,
           "variant": "lab", "kernel_release": "6.1.0-test", "metrics": m,
           "checks": [{"name": "a", "value": 1, "expectation": "x == 1", "passed": True, "status": "pass"}],
           "pass": True}
    if base and in_json:
        res["baseline_of"] = base
    json.dump(res, open(os.path.join(d, "result.json"), "w"))
    json.dump({"name": name, "lru": lru, "repeat": r, "status": "PASS"}, open(os.path.join(d, "cell.json"), "w"))
    with open(os.path.join(d, "scenario.sh"), "w") as f:
        f.write((f'BASELINE_OF="{base}"\n' if base else "") + "workload() { :; }\n")
for r in range(1, 5):
    bw = 10 if r % 2 else 11
    cell("imb", "off", "stock", r, 1000 + 100 * (r - 1), bw, hog=4000.0 + r)
    cell("imb", "global", "patched", r, 100 + 10 * (r - 1), bw, hog=3000.0 + r)
    cell("imb", "node", "patched", r, 0, bw)
    cell("imb-tuned", "off", "stock", r, 50 + 10 * (r - 1), bw, base="imb", in_json=r > 2)
    cell("imb-tuned", "global", "patched", r, 10 + 2 * (r - 1), bw, base="imb", in_json=r > 2)
    cell("imb", "off", "stock", r, 0, bw, lru="mglru")
    cell("imb", "global", "patched", r, 0, bw, lru="mglru")
PY
out=$($py launch/report.py "$tmp/b" 2>&1); rc=$?
md="$tmp/b/report.md"
[ $rc -eq 0 ] && grep -q '^## Baselines: the series against tuning without it$' "$md" \
	&& pass baselines_section || bad baselines_section "rc=$rc $out"
grep -q '^### imb and its baselines$' "$md" && pass baselines_family || bad baselines_family "$(grep -c '^###' "$md")"
# verdict rows: | family | metric | better | comparison | baseline | other | n | ratio | CI | p | verdict | claim |
vrow() { grep -F "| imb family | $1 | " "$md" | grep -F "| $2 |"; }
r=$(vrow 'immediate reclaim (pages)' 'global at imb vs stock at imb-tuned')
[[ $r == *"| 65 (50..80) |"* ]] && pass baselines_stock_side_is_setting || bad baselines_stock_side_is_setting "$r"
[[ $r == *"| 115 (100..130) | 4/4 | 1.77 |"* && $r == *"| worse |"* ]] \
	&& pass baselines_tuning_beats_series || bad baselines_tuning_beats_series "$r"
r=$(vrow 'immediate reclaim (pages)' 'global at imb-tuned vs stock at imb-tuned')
[[ $r == *"| 13 (10..16) | 4/4 | 0.20 |"* && $r == *"| better |"* ]] \
	&& pass baselines_series_adds_on_tuning || bad baselines_series_adds_on_tuning "$r"
r=$(vrow 'immediate reclaim (pages)' 'global at imb vs stock at imb')
[[ $r == *"| 0.10 |"* && $r == *"| better |"* ]] && pass baselines_reference_row || bad baselines_reference_row "$r"
r=$(vrow 'throughput (MiB/s)' 'global at imb vs stock at imb-tuned')
[[ $r == *"| not resolved at n=4/4 |"* ]] && pass baselines_same_not_resolved || bad baselines_same_not_resolved "$r"
# MGLRU is a setting of its own; node has no cells at imb-tuned: no such row
vrow 'kswapd CPU (s)' 'global at imb vs stock at imb (mglru)' | grep -q . && pass baselines_mglru_setting \
	|| bad baselines_mglru_setting "$(grep -c mglru "$md")"
# 6.1's MGLRU counts no immediate reclaim: the classic reference is not set against it there
! vrow 'immediate reclaim (pages)' 'global at imb vs stock at imb (mglru)' | grep -q . && \
	vrow 'immediate reclaim (pages)' 'global at imb (mglru) vs stock at imb (mglru)' | grep -q . \
	&& pass baselines_no_immediate_reclaim_across_lrus || bad baselines_no_immediate_reclaim_across_lrus "$(vrow 'immediate reclaim (pages)' 'global at imb vs stock at imb (mglru)')"
! grep -qF 'node at imb-tuned vs stock' "$md" && pass baselines_no_empty_side || bad baselines_no_empty_side "$(grep -F 'node at imb-tuned' "$md" | head -1)"
# the one-sentence answers
s=$(grep -F -- '- global at imb vs stock at imb-tuned:' "$md")
[[ $s == *"worse on immediate reclaim (pages);"* && $s == *"better on nothing"* ]] \
	&& pass baselines_sentence || bad baselines_sentence "$s"
s=$(grep -F -- '- global at imb vs stock at imb:' "$md")
[[ $s == *"better on immediate reclaim (pages)"* && $s == *"hog allocation p99 (ms)"* ]] \
	&& pass baselines_sentence_reference || bad baselines_sentence_reference "$s"
# side-by-side medians: stock | off | global | node
r=$(grep -F '| immediate reclaim (pages) | imb-tuned |' "$md")
[ "$r" = "| immediate reclaim (pages) | imb-tuned | 65 (50..80) | n/a | 13 (10..16) | n/a |" ] \
	&& pass baselines_side_by_side || bad baselines_side_by_side "$r"
grep -q '<h2>Baselines: the series against tuning without it</h2>' "$tmp/b/report.html" \
	&& grep -q '<ul><li>global at imb vs stock at imb:' "$tmp/b/report.html" \
	&& pass baselines_html || bad baselines_html "$(grep -c Baselines "$tmp/b/report.html")"

# Without the reference's classic cells the baselines are not compared, and
# a matrix without any BASELINE_OF has no such section.
cp -a "$tmp/b" "$tmp/plain"
rm -rf "$tmp/plain"/*imb-tuned* "$tmp/plain"/report.* "$tmp/plain"/plots
$py launch/report.py "$tmp/plain" >/dev/null 2>&1
grep -q '^## A/B by scenario' "$tmp/plain/report.md" && ! grep -q Baselines "$tmp/plain/report.md" \
	&& pass baselines_absent_without_baseline || bad baselines_absent_without_baseline "$(grep Baselines "$tmp/plain/report.md")"
rm -rf "$tmp/b"/2node-asym-imb-{off,global,node}-*-r[1-4]
out=$($py launch/report.py "$tmp/b" 2>&1); rc=$?
[ $rc -eq 0 ] && grep -q '^imb: no cells of imb itself on the classic LRU; its baselines are not compared\.$' "$md" \
	&& pass baselines_no_reference || bad baselines_no_reference "rc=$rc $(grep -A2 Baselines "$md" | head -5)"

# The scenario setting: BASELINE_OF must name another scenario
mkdir -p "$tmp/sc"
printf 'BASELINE_OF="self"\nworkload() { :; }\n' >"$tmp/sc/self.sh"
out=$($py launch/scenario.py validate "$tmp/sc/self.sh" 2>&1); rc=$?
[ $rc -eq 2 ] && [[ $out == *"self.sh: BASELINE_OF 'self' must name another scenario"* ]] \
	&& pass bad_input.baseline_of_self || bad bad_input.baseline_of_self "rc=$rc $out"
for s in imbalance-default-ratios imbalance-bg-bytes; do
	out=$($py launch/scenario.py validate "$s" 2>&1) && grep -q '^BASELINE_OF="imbalance"$' "workloads/scenarios/$s.sh" \
		&& pass "shipped_baseline.$s" || bad "shipped_baseline.$s" "$out"
done
exit $fail
