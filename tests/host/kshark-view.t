#!/bin/bash
# Host checks of the KernelShark view (analysis/kshark-plugin/, launch/view.sh): the session
# dpsession writes has one pressure row per memory node, KernelShark loads the plugin without
# complaint, and a screenshot of `make view` on a fixture run (analysis/mktrace.py's synthetic
# trace, 2 memory nodes and a memoryless one) shows one band of the plugin's fill per node,
# node 0's (whose pressure falls) mostly in the low-pressure red.  No kernel needed; the
# screenshots need kernelshark, xvfb, x11-utils and imagemagick (else those checks fail).
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$top/build/bin
plugin=$top/build/lib/plugin-dirty_pressure.so
t=$(mktemp -d "${TMPDIR:-/tmp}/kshark-view.t.XXXXXX") || exit 1
trap 'rm -rf "$t"' EXIT
failed=0
base=4194304	# DP_ROW_PID_BASE, analysis/kshark-plugin/dirty_pressure.h

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failed=1; }
check() { if [ "$2" -eq 0 ]; then pass "$1"; else fail "$1" "$3"; fi; }
rows() { jq -c '."data streams"[0] | [(.CPUPlots | length), .TaskPlots]' "$1" 2>/dev/null; }

out=$(make -s -C "$top/analysis" kshark 2>&1); rc=$?
if [ $rc -ne 0 ] || [ ! -x "$bin/dpsession" ] || [ ! -f "$plugin" ]; then
	fail kshark-build "make -C analysis kshark exit $rc: $(printf '%s' "$out" | head -3)"
	exit 1
fi
pass kshark-build

# ---- the fixture run: a synthetic trace and the guest's view of a 3-node topology ----
mkdir -p "$t/run" "$t/bare"
python3 "$top/analysis/mktrace.py" "$t/run/trace.dat" >/dev/null || {
	fail mktrace "analysis/mktrace.py failed"; exit 1; }
cp "$t/run/trace.dat" "$t/bare/trace.dat"
cat >"$t/run/guest-topology.txt" <<'EOF'
node 0 cpulist=0 memtotal_kb=496208 distance=10,20,20
node 1 cpulist=1 memtotal_kb=1541808 distance=20,10,20
node 2 cpulist= memtotal_kb=0 distance=20,20,10
EOF
nids=$(trace-cmd report "$t/run/trace.dat" 2>/dev/null |
	sed -n 's/.*dirty_pressure: *nid=\([0-9]*\) .*/\1/p' | sort -un | tr '\n' ' ')

# ---- the session: one row per memory node, after every CPU ----
"$bin/dpsession" "$t/run/trace.dat" --out "$t/s.json" --plugin "$plugin" >/dev/null 2>"$t/err"; rc=$?
got=$(rows "$t/s.json")
[ $rc -eq 0 ] && [ "$got" = "[2,[$base,$((base + 1))]]" ]
check session-row-per-memory-node $? "exit $rc, [CPU rows, task rows] $got, want [2,[$base,$((base + 1))]] (nodes 0 and 1 have memory, 2 none): $(head -1 "$t/err")"
"$bin/dpsession" "$t/bare/trace.dat" --out "$t/b.json" --plugin "$plugin" >/dev/null 2>&1; rc=$?
want=$(for n in $nids; do printf '%s\n' $((base + n)); done | paste -sd,)
got=$(rows "$t/b.json")
[ $rc -eq 0 ] && [ -n "$nids" ] && [ "$got" = "[2,[$want]]" ]
check session-rows-from-events $? "exit $rc, got $got, want [2,[$want]] (no topology file: the nodes the events name, $nids)"
"$bin/dpsession" "$t/run/trace.dat" --out "$t/n.json" --plugin "$plugin" --nodes 1,3 >/dev/null 2>&1; rc=$?
got=$(rows "$t/n.json")
[ $rc -eq 0 ] && [ "$got" = "[2,[$((base + 1)),$((base + 3))]]" ]
check session-nodes-option $? "exit $rc, got $got"
"$bin/dpsession" "$t/run/trace.dat" --out "$t/x.json" --plugin "$plugin" --nodes 1,x >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && [ ! -e "$t/x.json" ]
check session-nodes-bad $? "exit $rc: $(head -2 "$t/err")"
"$bin/dpsession" "$t/run/trace.dat" --out "$t/np.json" >/dev/null 2>&1; rc=$?
got=$(rows "$t/np.json")
[ $rc -eq 0 ] && [ "$got" = "[2,[]]" ]
check session-no-plugin-no-rows $? "exit $rc, got $got (rows nothing would draw)"
python3 "$top/analysis/mktrace.py" "$t/stock.dat" --stock --seconds 5 >/dev/null
cp "$t/run/guest-topology.txt" "$t/"
"$bin/dpsession" "$t/stock.dat" --out "$t/st.json" --plugin "$plugin" >/dev/null 2>&1; rc=$?
got=$(rows "$t/st.json")
[ $rc -eq 0 ] && [ "$got" = "[2,[]]" ]
check session-stock-no-rows $? "exit $rc, got $got (a stock kernel's trace has no pressure to draw)"

# ---- view.sh's own refusals ----
env -u DISPLAY -u WAYLAND_DISPLAY "$top/launch/view.sh" "$t/run" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && grep -q "xvfb-run" "$t/err"; check view-no-display $? "exit $rc: $(head -1 "$t/err")"
DISPLAY=:99 "$top/launch/view.sh" "$t/nowhere" >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ]; check view-no-trace $? "exit $rc: $(head -1 "$t/err")"

# ---- a screenshot of `make view` on the fixture run ----
# The run's own session.json is the kind a run collected before the node rows carries (CPU
# rows only): view.sh must write a fresh one, not open that.
cp "$t/np.json" "$t/run/session.json"
# bands: runs of >= 10 screen lines in which more than half the pixels are the plugin's fills
# (DirtyPressure.cpp fill_of); per band: its height and the share of the low-pressure red
bands() {
	{ convert "$1" ppm:- 2>/dev/null || convert-im6.q16 "$1" ppm:- 2>/dev/null; } | python3 -c '
import sys
d = sys.stdin.buffer.read()
parts = d.split(maxsplit=4)
w, h, px = int(parts[1]), int(parts[2]), parts[4]
low = {(240, 150, 150), (252, 226, 226)}
fills = low | {(246, 200, 120), (253, 240, 214), (170, 222, 170), (232, 246, 232)}
bands, run = [], None
for y in range(h + 1):
    n = nl = 0
    if y < h:
        row = px[y * w * 3:(y + 1) * w * 3]
        for x in range(w):
            c = (row[3 * x], row[3 * x + 1], row[3 * x + 2])
            if c in fills:
                n += 1
                nl += c in low
    if y < h and n > w // 2:
        run = run or [0, 0, 0]
        run[0] += 1; run[1] += n; run[2] += nl
    elif run:
        if run[0] >= 10:
            bands.append("%d:%d" % (run[0], 100 * run[2] // run[1]))
        run = None
print(" ".join(bands))'
}
if SCREENSHOT_LOG=$t/ks.log "$top/analysis/kshark-plugin/screenshot.sh" "$t/run" "$t/view.png" 2>"$t/err"; then
	# KernelShark says "Failed to import plugin!" (e.g. a session naming an older build of
	# it: "Timestamp mismatch!") and goes on without it
	[ -f "$t/ks.log" ] && ! grep -Eiq "fail|mismatch|error|cannot" "$t/ks.log"
	check view-loads-plugin $? "no log, or KernelShark said: $(grep -Ei "fail|mismatch|error|cannot" "$t/ks.log" 2>/dev/null | head -2 | tr '\n' ' ')"
	set -- $(bands "$t/view.png")
	# node 0's pressure falls and stays low: mostly red; node 1's never changes: no red
	[ $# -eq 2 ] && [ "${1#*:}" -ge 50 ] && [ "${2#*:}" -eq 0 ]
	check view-row-per-node $? "bands (height:percent red) '$*', want 2 (nodes 0 and 1), node 0's >= 50 % red, node 1's none"
	mkdir -p "$top/build/test-artifacts" && cp "$t/view.png" "$top/build/test-artifacts/kshark-view.png"
else
	fail view-loads-plugin "$(cat "$t/err")"
	fail view-row-per-node "no screenshot"
fi
exit $failed
