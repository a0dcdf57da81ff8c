#!/bin/bash
# Host tests of the report over cells of two kernel versions (issue 16, make
# bench KVERS=6.1,6.12): each cell's version from its result.json's
# kernel_source, the version in the cells table, every comparison within one
# version, and the one across versions: each kernel/mode on 6.12 against
# itself on 6.1.  Hand-made result.json trees.
. "$(dirname "$0")/../lib.sh"
scratch

# cp on uma, five repeats of off, global and stock on each version.  File
# pageout: 6.1 off 1000..1040, global 500..540, stock 1500..1540; 6.12 off
# 2000..2040, global 1900..1940, stock 3000..3040.  Throughput 10..10.4 MiB/s
# everywhere.  A 6.12 cell's name says -k6.12; its version is its
# kernel_source's (6.12.118), a 6.1 cell's Debian's 6.1.192.  The kernel
# builds differ between the versions (cell.json kernel_image), not within.
# A 6.12 repeat that hung has cell.json only (kver 6.12).
$py - "$tmp/kv" <<'PY'
import json, os, sys
root = sys.argv[1]
MiB = 2**20
po = {("6.1", "off"): 1000, ("6.1", "global"): 500, ("6.1", "stock"): 1500,
      ("6.12", "off"): 2000, ("6.12", "global"): 1900, ("6.12", "stock"): 3000}
src = {"6.1": {"kind": "debian", "version": "6.1.192", "package": "linux-source-6.1"},
       "6.12": {"kind": "tarball", "version": "6.12.118", "path": "/usr/src/linux-source-6.12.tar.xz"}}
for (v, col), base in po.items():
    mode, kernel = ("off", "stock") if col == "stock" else (col, "patched")
    for r in range(1, 6):
        name = f"uma-cp-{mode}-{kernel}" + ("" if v == "6.1" else f"-k{v}") + f"-r{r}"
        d = os.path.join(root, name); os.makedirs(d)
        json.dump({"topology": "uma", "scenario": "cp", "mode": mode, "kernel": kernel, "variant": "lab",
                   "kernel_release": f"{src[v]['version']}-test", "lab_commit": "abc1234",
                   "kernel_source": {"source": src[v], "series": {"file": None, "patches": []}},
                   "metrics": {"vmstat_delta": {"nr_vmscan_write": base + 10 * (r - 1), "pswpout": 0},
                               "workloads": {"dirtier": {"bw_bytes_per_s": (10 + 0.1 * (r - 1)) * MiB}}},
                   "checks": [], "pass": True}, open(os.path.join(d, "result.json"), "w"))
        cell = {"name": name, "topology": "uma", "scenario": "cp", "mode": mode, "kernel": kernel,
                "lru": "classic", "variant": "lab", "repeat": r, "status": "PASS",
                "kernel_image": f"{kernel}-{v}@1"}
        if v != "6.1":
            cell["kver"] = v
        json.dump(cell, open(os.path.join(d, "cell.json"), "w"))
d = os.path.join(root, "uma-cp-global-patched-k6.12-r6"); os.makedirs(d)
json.dump({"name": "uma-cp-global-patched-k6.12-r6", "topology": "uma", "scenario": "cp", "mode": "global",
           "kernel": "patched", "lru": "classic", "variant": "lab", "repeat": 6, "kver": "6.12",
           "status": "HUNG", "reason": "killed by the matrix after 360s"}, open(os.path.join(d, "cell.json"), "w"))
PY
out=$($py launch/report.py "$tmp/kv" 2>&1); rc=$?
md=$tmp/kv/report.md
[ $rc -eq 0 ] && [ -s "$md" ] && pass kvers_report.written || bad kvers_report.written "rc=$rc $out"

# the cells table: a Linux column, each cell's version as kernel_source has it
grep -q '^| cell | topology | scenario | mode | kernel | Linux | LRU | host | accel | verdict | checks not passing | wall s |$' "$md" && \
	grep -q '^| uma-cp-global-patched-k6.12-r1 | uma | cp | global | patched | 6.12.118 | classic |' "$md" && \
	grep -q '^| uma-cp-global-patched-r1 | uma | cp | global | patched | 6.1.192 | classic |' "$md" && \
	grep -q '^| uma-cp-global-patched-k6.12-r6 | uma | cp | global | patched | 6.12 | classic | .* | HUNG |' "$md" \
	&& pass kvers_report.cells_table_version || bad kvers_report.cells_table_version "$(grep -m3 '^| uma-cp-global' "$md")"

# one build per kernel and version: no warning about mixed builds
! grep -q 'WARNING' "$md" && pass kvers_report.builds_per_version || bad kvers_report.builds_per_version "$(grep WARNING "$md")"

# A/B tables: one cluster per version
grep -qx '`uma/linux-6.1`, kernel 6.1.192-test; median of up to 5 repeats (min..max), \[n/N\] where some repeats lack the value' "$md" && \
	grep -qx '`uma/linux-6.12`, kernel 6.12.118-test; median of up to 5 repeats (min..max), \[n/N\] where some repeats lack the value' "$md" && \
	[ "$(grep -c '^| file pageout (pages) | 1020 (1000..1040) | 520 (500..540) | 0.51 | 1520 (1500..1540) | 1.49 |$' "$md")" -eq 1 ] && \
	[ "$(grep -c '^| file pageout (pages) | 2020 (2000..2040) | 1920 (1900..1940) | 0.95 | 3020 (3000..3040) | 1.50 |$' "$md")" -eq 1 ] \
	&& pass kvers_report.ab_per_version || bad kvers_report.ab_per_version "$(grep -e '^`uma' -e '^| file pageout' "$md")"

# bench comparisons: within a version only (5 repeats a side, never 10)
b=$(sed -n '/^## Bench comparisons/,/^## /p' "$md")
r61=$(grep -F '| cp on uma/linux-6.1 | file pageout (pages) | lower | global vs off |' <<<"$b")
r612=$(grep -F '| cp on uma/linux-6.12 | file pageout (pages) | lower | global vs off |' <<<"$b")
[[ $r61 == *"| 1020 (1000..1040) | 520 (500..540) | 5/5 | 0.51 | "*"| 0.0079 | better |  |" ]] && \
	[[ $r612 == *"| 2020 (2000..2040) | 1920 (1900..1940) | 5/5 | 0.95 | "*"| 0.0079 | better |  |" ]] && \
	[ "$(grep -c '^| cp on ' <<<"$b")" -gt 0 ] && [ -z "$(grep '^| cp on ' <<<"$b" | grep -v ' | 5/5 | \| | 0/0 | ')" ] && \
	! grep -q '^| cp on uma |' <<<"$b" \
	&& pass kvers_report.bench_within_version || bad kvers_report.bench_within_version "$r61 / $r612 / $(grep '^| cp on ' <<<"$b" | grep -v ' | 5/5 | ' | head -2)"

# the comparison across versions: each kernel/mode on 6.12 against itself on 6.1
grep -q '^## Kernel versions: 6.12 against 6.1$' "$md" && pass kvers_report.section || bad kvers_report.section "$(grep '^## ' "$md")"
k=$(sed -n '/^## Kernel versions/,/^## /p' "$md")
vrow() { grep -F "| cp on uma | $1 | $2 |" <<<"$k"; }
r=$(vrow 'file pageout (pages)' 'lower | global: 6.12 vs 6.1')
[[ $r == *"| 520 (500..540) | 1920 (1900..1940) | 5/5 | 3.69 | "*"| 0.0079 | worse |  |" ]] \
	&& pass kvers_report.global_612_vs_61 || bad kvers_report.global_612_vs_61 "$r"
r=$(vrow 'file pageout (pages)' 'lower | off: 6.12 vs 6.1'); r2=$(vrow 'file pageout (pages)' 'lower | stock: 6.12 vs 6.1')
[[ $r == *"| 1020 (1000..1040) | 2020 (2000..2040) | 5/5 | 1.98 | "*"| worse |  |" ]] && \
	[[ $r2 == *"| 1520 (1500..1540) | 3020 (3000..3040) | 5/5 | 1.99 | "*"| worse |  |" ]] \
	&& pass kvers_report.off_stock_612_vs_61 || bad kvers_report.off_stock_612_vs_61 "$r / $r2"
r=$(vrow 'throughput (MiB/s)' 'higher | global: 6.12 vs 6.1')
[[ $r == *"| 5/5 | 1.00 | "*"| 1.0000 | not resolved at n=5/5 |  |" ]] && pass kvers_report.same_not_resolved \
	|| bad kvers_report.same_not_resolved "$r"
# no other comparison across versions: same column on both sides, nothing else
[ -z "$(grep '^| cp on ' <<<"$k" | grep -v -E '\| (off|global|stock): 6\.12 vs 6\.1 \|')" ] && \
	[ "$(grep -c '^| cp on ' <<<"$k")" -eq 6 ] \
	&& pass kvers_report.only_same_kernel_mode || bad kvers_report.only_same_kernel_mode "$(grep '^| cp on ' <<<"$k" | cut -c1-90)"
grep -q '<h2>Kernel versions: 6.12 against 6.1</h2>' "$tmp/kv/report.html" && pass kvers_report.html \
	|| bad kvers_report.html "$(grep -c 'Kernel versions' "$tmp/kv/report.html")"

# One version (the 6.1 cells alone): no Linux column, no version in the
# clusters, no version section: the report as before versions
mkdir "$tmp/one" && cp -a "$tmp/kv"/uma-cp-*-r[1-5] "$tmp/one/" && rm -rf "$tmp/one"/*-k6.12-*
$py launch/report.py "$tmp/one" >/dev/null 2>&1
grep -q '^| cell | topology | scenario | mode | kernel | LRU | host |' "$tmp/one/report.md" && \
	grep -q '^| cp on uma | file pageout (pages) | lower | global vs off |' "$tmp/one/report.md" && \
	! grep -q 'linux-6\|Kernel versions\|Linux' "$tmp/one/report.md" \
	&& pass kvers_report.one_version_as_before || bad kvers_report.one_version_as_before "$(grep -m2 -e '^| cell' -e 'linux-6' "$tmp/one/report.md")"

# The version is the record's: a cell named as 6.1's whose kernel_source says
# 6.12 (make bench KVER=6.12 names cells as 6.1's) is a 6.12 cell.
mkdir "$tmp/rec"
for c in uma-cp-off-patched-r1 uma-cp-off-patched-r2; do cp -a "$tmp/kv/$c" "$tmp/rec/"; done
for r in 1 2; do
	mkdir "$tmp/rec/uma-cp-off-patched-r1$r"
	jq '.kernel_source.source.version = "6.12.5"' "$tmp/kv/uma-cp-off-patched-k6.12-r$r/result.json" >"$tmp/rec/uma-cp-off-patched-r1$r/result.json"
done
$py launch/report.py "$tmp/rec" >/dev/null 2>&1
grep -q '^| uma-cp-off-patched-r11 | uma | cp | off | patched | 6.12.5 |' "$tmp/rec/report.md" && \
	grep -qF '| cp on uma | file pageout (pages) | lower | off: 6.12 vs 6.1 | 1005 (1000..1010) | 2005 (2000..2010) | 2/2 |' "$tmp/rec/report.md" \
	&& pass kvers_report.version_from_kernel_source || bad kvers_report.version_from_kernel_source "$(grep -e 'r11 |' -e 'off: 6.12' "$tmp/rec/report.md" | head -3)"

# Baselines (BASELINE_OF): each version's family on its own
$py - "$tmp/bl" <<'PY'
import json, os, sys
root = sys.argv[1]
def cell(v, scen, mode, kernel, r, ir, base=None):
    name = f"2node-asym-{scen}-{mode}-{kernel}" + ("" if v == "6.1" else f"-k{v}") + f"-r{r}"
    d = os.path.join(root, name); os.makedirs(d)
    res = {"topology": "2node-asym", "scenario": scen, "mode": mode, "kernel": kernel, "variant": "lab",
           "kernel_release": f"{v}.0-test", "kernel_source": {"source": {"version": f"{v}.7"}},
           "metrics": {"vmstat_delta": {"nr_vmscan_immediate_reclaim": ir}}, "checks": [], "pass": True}
    if base:
        res["baseline_of"] = base
    json.dump(res, open(os.path.join(d, "result.json"), "w"))
for r in range(1, 5):
    for v, k in (("6.1", 1), ("6.12", 10)):
        cell(v, "imb", "off", "stock", r, k * (1000 + 100 * r))
        cell(v, "imb", "global", "patched", r, k * (100 + 10 * r))
        cell(v, "imb-tuned", "off", "stock", r, k * (50 + 10 * r), base="imb")
PY
$py launch/report.py "$tmp/bl" >/dev/null 2>&1
md=$tmp/bl/report.md
r61=$(grep -F '| imb family (Linux 6.1) | immediate reclaim (pages) | lower | global at imb vs stock at imb-tuned |' "$md")
r612=$(grep -F '| imb family (Linux 6.12) | immediate reclaim (pages) | lower | global at imb vs stock at imb-tuned |' "$md")
grep -q '^### imb and its baselines (Linux 6.1)$' "$md" && grep -q '^### imb and its baselines (Linux 6.12)$' "$md" && \
	[[ $r61 == *"| 75 (60..90) | 125 (110..140) | 4/4 |"* ]] && [[ $r612 == *"| 750 (600..900) | 1250 (1100..1400) | 4/4 |"* ]] && \
	! grep -q '^| imb family |' "$md" \
	&& pass kvers_report.baselines_per_version || bad kvers_report.baselines_per_version "$(grep -e '^###' -e 'stock at imb-tuned |' "$md" | head -5)"
exit $fail
