#!/bin/bash
# Host tests of ACCEL=auto|kvm|tcg|icount (launch/accel.py, run.py --accel, the
# report's refusal to compare across accelerators), without a kernel or KVM:
# a copy of launch/ in a temporary lab tree with a dummy bzImage, a device
# path that is missing, a directory or a plain file (DPLAB_KVM_DEV), and a
# fake QEMU (DPLAB_QEMU) whose probe guest comes up, hangs or fails.
. "$(dirname "$0")/../lib.sh"
scratch
unset ACCEL DPLAB_KVM_DEV DPLAB_QEMU DPLAB_ACCEL_CACHE DPLAB_ACCEL_PROBE_TIMEOUT DPLAB_ACCEL_PROBE_ACCEL

# The lab tree: launch/ copied (the code under test), topologies and
# scenarios linked, a dummy kernel, a kernel.sh that only lists variants.
lab=$tmp/lab
lab_copy "$lab"
mkdir -p "$lab/build/patched/obj/arch/x86/boot"
printf '%s\n' '#!/bin/bash' "[ \"\${1:-}\" = --variants ] && exec '$top/launch/kernel.sh' \"\$@\"" \
	"echo \"\$*\" >>'$lab/kernel.sh-ran'" >"$lab/launch/kernel.sh"
chmod +x "$lab/launch/kernel.sh"
echo "not a kernel" >"$lab/build/patched/obj/arch/x86/boot/bzImage"
acc() { $py "$lab/launch/accel.py" "$@"; }

# A fake QEMU: logs every call; the probe guest (its -append names
# accel-probe-init.sh) follows FAKE_MODE: ok (prints the marker, then waits to
# be killed), slow (the marker after 1 s), hang (boots, never gets there),
# fail (QEMU cannot open KVM).  Any other guest exits at once.
fake=$tmp/fake-qemu
cat >"$fake" <<'F'
#!/bin/bash
echo "$*" >>"$FAKE_LOG"
[ "$1" = --version ] && { echo "QEMU emulator version 0.0 (fake)"; exit 0; }
con=$(printf '%s\n' "$@" | sed -n 's/^file,id=con,path=//p')
case " $* " in *accel-probe-init.sh*) ;; *) exit 0;; esac
echo "probe $*" >>"$FAKE_LOG.probes"
case $FAKE_MODE in
ok) echo "dplab-accel-probe: userspace up" >>"$con"; exec sleep 30;;
slow) sleep 1; echo "dplab-accel-probe: userspace up" >>"$con"; exec sleep 30;;
hang) echo "[    0.000000] Linux version 6.1.0-fake" >>"$con"; exec sleep 60;;
fail) echo "qemu-system-x86_64: -accel kvm: failed to initialize kvm: Permission denied" >&2; exit 1;;
esac
exit 3
F
chmod +x "$fake"
export FAKE_LOG=$tmp/fake.log
probes() { cat "$FAKE_LOG.probes" 2>/dev/null | wc -l; }

# ---- bad values: one line, exit 2, before anything is built or booted ----
out=$(ACCEL=bogus acc 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$out" = "accel: ACCEL must be auto, kvm, tcg or icount, not 'bogus'" ] && pass bad_value.accel_py \
	|| bad bad_value.accel_py "rc=$rc '$out'"
out=$(ACCEL=KVM $py "$lab/launch/run.py" --topo uma --check-only 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "run: ACCEL must be auto, kvm, tcg or icount, not 'KVM'" ] && pass bad_value.run_check_only \
	|| bad bad_value.run_check_only "rc=$rc '$out'"
out=$($py "$lab/launch/run.py" --topo uma --accel hvf 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "run: ACCEL must be auto, kvm, tcg or icount, not 'hvf'" ] && [ ! -d "$lab/results" ] \
	&& pass bad_value.run_option || bad bad_value.run_option "rc=$rc '$out'"
# make run: the Makefile exports ACCEL, run.py's --check-only refuses it
# before kernel.sh; make kunit and make matrix refuse it before a build.
rm -f "$lab/kernel.sh-ran"
make -s -C "$lab" run DEB_PACKAGES= ACCEL=bogus >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ ! -e "$lab/kernel.sh-ran" ] && [ "$(grep -c "ACCEL" "$tmp/e")" -eq 1 ] &&
	grep -qxF "run: ACCEL must be auto, kvm, tcg or icount, not 'bogus'" "$tmp/e" && pass bad_value.make_run \
	|| bad bad_value.make_run "rc=$rc kernel.sh: $(cat "$lab/kernel.sh-ran" 2>/dev/null) $(tr '\n' '|' <"$tmp/e")"
make -s -C "$lab" kunit DEB_PACKAGES= ACCEL=tcp >/dev/null 2>"$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ ! -e "$lab/kernel.sh-ran" ] && grep -qxF "kunit: ACCEL must be auto, kvm, tcg or icount, not 'tcp'" "$tmp/e" \
	&& pass bad_value.make_kunit || bad bad_value.make_kunit "rc=$rc $(tr '\n' '|' <"$tmp/e")"
out=$(ACCEL=qemu "$lab/launch/kunit.sh" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "kunit.sh: ACCEL must be auto, kvm, tcg or icount, not 'qemu'" ] && pass bad_value.kunit_sh \
	|| bad bad_value.kunit_sh "rc=$rc '$out'"

# ---- icount: TCG on one thread, the guest's clock counting instructions ----
# (no probe: it needs no device); one vCPU only, refused before the boot
out=$(acc --accel icount --qemu-args 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = "-accel tcg,thread=single -icount shift=3 -cpu max" ] &&
	[ "$(cat "$tmp/e")" = "accel: icount (requested)" ] && [ "$(probes)" -eq 0 ] && pass icount.qemu_args \
	|| bad icount.qemu_args "rc=$rc '$out' $(cat "$tmp/e")"
out=$($py "$lab/launch/run.py" --topo 2node-sym --scenario smoke --accel icount --check-only 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(echo "$out" | wc -l)" -eq 1 ] &&
	[[ $out == "run: ACCEL=icount runs one vCPU only"*"topology 2node-sym has 2"* ]] && pass icount.refuses_two_vcpus \
	|| bad icount.refuses_two_vcpus "rc=$rc '$out'"
for t in 2node-1cpu 64node-1cpu; do
	out=$(ACCEL=icount $py "$lab/launch/run.py" --topo $t --scenario cost --check-only 2>&1); rc=$?
	[ $rc -eq 0 ] && [ -z "$out" ] && pass "icount.takes_$t" || bad "icount.takes_$t" "rc=$rc '$out'"
done
# host.json names icount, not tcg: the report never compares the two
$py - "$lab/launch" "$tmp/hj" <<'P' && pass icount.host_json || bad icount.host_json "$(cat "$tmp/hj/host.json" 2>&1 | tr '\n' ' ')"
import json, os, sys
sys.path.insert(0, sys.argv[1])
import accel, run
os.makedirs(sys.argv[2], exist_ok=True)
run.record_host(sys.argv[2], ["qemu-system-x86_64"] + accel.qemu_args("icount"), {"requested": "icount", "reason": "requested"})
h = json.load(open(os.path.join(sys.argv[2], "host.json")))
sys.exit(h["accelerator"] != "icount" or h["accelerator_requested"] != "icount")
P

# ---- auto without a usable device: TCG, said in one line, nothing probed ----
export DPLAB_QEMU=$fake FAKE_MODE=ok
out=$(DPLAB_KVM_DEV=$tmp/no-kvm acc 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = tcg ] && [ "$(cat "$tmp/e")" = "accel: tcg (auto: $tmp/no-kvm missing)" ] &&
	[ "$(probes)" -eq 0 ] && [ ! -e "$lab/build/accel-probe-$(hostname).json" ] && pass auto.device_missing \
	|| bad auto.device_missing "rc=$rc out=$out stderr='$(tr '\n' '|' <"$tmp/e")' probes=$(probes)"
mkdir -p "$tmp/kvm-dir"
out=$(DPLAB_KVM_DEV=$tmp/kvm-dir acc 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = tcg ] && [ "$(cat "$tmp/e")" = "accel: tcg (auto: $tmp/kvm-dir not openable: Is a directory)" ] &&
	[ "$(probes)" -eq 0 ] && pass auto.device_not_openable \
	|| bad auto.device_not_openable "rc=$rc out=$out stderr='$(tr '\n' '|' <"$tmp/e")' probes=$(probes)"
out=$(DPLAB_KVM_DEV=$tmp/no-kvm acc --accel kvm 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "accel: ACCEL=kvm but $tmp/no-kvm missing" ] && pass kvm.device_missing_exit2 \
	|| bad kvm.device_missing_exit2 "rc=$rc '$out'"
out=$(DPLAB_KVM_DEV=$tmp/no-kvm ACCEL=kvm $py "$lab/launch/run.py" --topo uma --check-only 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "run: ACCEL=kvm but $tmp/no-kvm missing" ] && pass kvm.device_missing_check_only \
	|| bad kvm.device_missing_check_only "rc=$rc '$out'"
out=$(DPLAB_KVM_DEV=$tmp/no-kvm ACCEL=tcg acc 2>&1 >/dev/null); rc=$?
[ $rc -eq 0 ] && [ "$out" = "accel: tcg (requested)" ] && pass tcg.requested || bad tcg.requested "rc=$rc '$out'"

# ---- a device that opens: the probe boots, its result is cached -----------
export DPLAB_KVM_DEV=$tmp/kvm
: >"$DPLAB_KVM_DEV"
cache=$lab/build/accel-probe-$(hostname).json
out=$(acc 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = kvm ] && grep -qx "accel: kvm (auto: $DPLAB_KVM_DEV runs a guest (probed: probe guest reached userspace in [0-9.]* s))" "$tmp/e" &&
	[ "$(probes)" -eq 1 ] && jq -e '.usable == true and .key.boot_id != "" and (.key.device_id | length) == 3' "$cache" >/dev/null 2>&1 &&
	grep -q -- '-accel kvm -cpu host .*-kernel '"$lab"'/build/patched/obj/arch/x86/boot/bzImage' "$FAKE_LOG.probes" \
	&& pass probe.guest_up_kvm || bad probe.guest_up_kvm "rc=$rc out=$out stderr='$(tr '\n' '|' <"$tmp/e")' probes=$(probes) $(cat "$cache" 2>&1 | tr -d '\n ')"
out=$(FAKE_MODE=fail acc 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = kvm ] && grep -q "(cached probe: " "$tmp/e" && [ "$(probes)" -eq 1 ] && pass cache.hit \
	|| bad cache.hit "rc=$rc out=$out stderr='$(tr '\n' '|' <"$tmp/e")' probes=$(probes)"
# a new device node (a module reload): probed again; here it fails to start
: >"$tmp/kvm.new"; mv "$tmp/kvm.new" "$DPLAB_KVM_DEV"
out=$(FAKE_MODE=fail acc 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = tcg ] && [ "$(probes)" -eq 2 ] &&
	[ "$(cat "$tmp/e")" = "accel: tcg (auto: $DPLAB_KVM_DEV does not run a guest (probed: qemu -accel kvm exited 1: qemu-system-x86_64: -accel kvm: failed to initialize kvm: Permission denied))" ] \
	&& pass cache.miss_new_device_probe_fails || bad cache.miss_new_device_probe_fails "rc=$rc out=$out stderr='$(tr '\n' '|' <"$tmp/e")' probes=$(probes)"
# another boot of the host: probed again; the guest boots but never reaches userspace
jq '.key.boot_id = "00000000-0000-0000-0000-000000000000"' "$cache" >"$cache.x" && mv "$cache.x" "$cache"
t0=$(date +%s)
out=$(FAKE_MODE=hang DPLAB_ACCEL_PROBE_TIMEOUT=2 acc 2>"$tmp/e"); rc=$?
took=$(( $(date +%s) - t0 ))
[ $rc -eq 0 ] && [ "$out" = tcg ] && [ "$(probes)" -eq 3 ] && [ $took -lt 10 ] &&
	[ "$(cat "$tmp/e")" = "accel: tcg (auto: $DPLAB_KVM_DEV does not run a guest (probed: probe guest did not reach userspace within 2 s; last console line: '[    0.000000] Linux version 6.1.0-fake'))" ] \
	&& pass probe.guest_hangs_tcg || bad probe.guest_hangs_tcg "rc=$rc ${took}s out=$out stderr='$(tr '\n' '|' <"$tmp/e")' probes=$(probes)"
# kvm requested where the cached probe failed: one line, exit 2, nothing boots
out=$(ACCEL=kvm FAKE_MODE=ok acc 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [ "$(probes)" -eq 3 ] &&
	[[ $out == "accel: ACCEL=kvm but $DPLAB_KVM_DEV does not run a guest (cached probe: probe guest did not reach userspace within 2 s;"* ]] \
	&& pass kvm.cached_failure_exit2 || bad kvm.cached_failure_exit2 "rc=$rc probes=$(probes) '$out'"
out=$(ACCEL=kvm $py "$lab/launch/run.py" --topo uma --check-only 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == "run: ACCEL=kvm but $DPLAB_KVM_DEV does not run a guest (cached probe: probe guest did not reach"* ]] \
	&& pass kvm.cached_failure_check_only || bad kvm.cached_failure_check_only "rc=$rc '$out'"
# kvm requested, no cache: the run probes, the guest fails; exit 2 before
# OUT is made and before the run's guest boots
rm -f "$cache"
out=$(ACCEL=kvm FAKE_MODE=fail $py "$lab/launch/run.py" --topo uma --out "$tmp/kvm-refused" 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$out" = "run: ACCEL=kvm but $DPLAB_KVM_DEV does not run a guest (probed: qemu -accel kvm exited 1: qemu-system-x86_64: -accel kvm: failed to initialize kvm: Permission denied)" ] &&
	[ ! -e "$tmp/kvm-refused" ] && [ "$(probes)" -eq 4 ] && ! grep -v -e --version -e accel-probe-init "$FAKE_LOG" \
	&& pass kvm.unusable_run_exit2_before_boot || bad kvm.unusable_run_exit2_before_boot "rc=$rc probes=$(probes) '$out' $(ls "$tmp/kvm-refused" 2>&1)"
# a corrupt cache is a miss, not an error
echo '{"key": ' >"$cache"
out=$(acc 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = kvm ] && [ "$(probes)" -eq 5 ] && grep -q '(probed: ' "$tmp/e" && pass cache.corrupt_is_miss \
	|| bad cache.corrupt_is_miss "rc=$rc out=$out probes=$(probes) $(tr '\n' '|' <"$tmp/e")"
# parallel cells on a cold cache: one probe, the others wait for its result
rm -f "$cache"
for i in 1 2 3; do FAKE_MODE=slow acc >"$tmp/par.$i" 2>&1 & done
wait
[ "$(probes)" -eq 6 ] && [ "$(cat "$tmp/par".* | grep -c '^kvm$')" -eq 3 ] && [ "$(cat "$tmp/par".* | grep -c '(cached probe: ')" -eq 2 ] \
	&& pass cache.parallel_probes_once || bad cache.parallel_probes_once "probes=$(probes) $(cat "$tmp/par".* | tr '\n' '|')"
# DPLAB_ACCEL_CACHE moves the cache
out=$(DPLAB_ACCEL_CACHE=$tmp/other/c.json acc 2>&1 >/dev/null)
[ "$(probes)" -eq 7 ] && [ -s "$tmp/other/c.json" ] && pass cache.path_override || bad cache.path_override "probes=$(probes) $out"

# ---- run.py end to end on the fake: QEMU's arguments and host.json --------
# (the fake "guest" exits at once: the run fails, its records stay)
run_fake() { $py "$lab/launch/run.py" --topo uma --scenario smoke --out "$tmp/$1" --boot-timeout 10 --timeout 10 "${@:2}"; }
rm -f "$cache"
run_fake run-auto >/dev/null 2>"$tmp/e"; rc=$?
if grep -q -- ' -accel kvm -cpu host ' "$tmp/run-auto/qemu.cmd" 2>/dev/null &&
   grep -qx "accel: kvm (auto: $DPLAB_KVM_DEV runs a guest (probed: probe guest reached userspace in [0-9.]* s))" "$tmp/e" &&
   jq -e --arg d "$DPLAB_KVM_DEV" '.accelerator == "kvm" and .accelerator_requested == "auto" and
	(.accelerator_reason | startswith("auto: " + $d + " runs a guest (probed: "))' "$tmp/run-auto/host.json" >/dev/null 2>&1; then
	pass run.auto_kvm_args_and_record
else
	bad run.auto_kvm_args_and_record "rc=$rc $(cat "$tmp/run-auto/qemu.cmd" 2>&1 | cut -c1-120) $(cat "$tmp/run-auto/host.json" 2>&1 | tr -d '\n') $(tr '\n' '|' <"$tmp/e")"
fi
# (not the accelerator's: run.py keeps the lib files a scenario sources in
# OUT/scenario-lib/, so re-collecting the record reads the checks it ran with)
ACCEL=tcg run_fake run-lib --topo 2node-asym --scenario slowup --quiet >/dev/null 2>&1
cmp -s "$tmp/run-lib/scenario-lib/slowup.sh" "$top/workloads/scenarios/lib/slowup.sh" && [ -f "$tmp/run-lib/scenario.sh" ] \
	&& pass run.record_keeps_scenario_lib || bad run.record_keeps_scenario_lib "$(ls "$tmp/run-lib" 2>&1 | tr '\n' ' ')"
# result.json carries the record (collect.py)
jq -e '.host.accelerator == "kvm" and .host.accelerator_requested == "auto"' "$tmp/run-auto/result.json" >/dev/null 2>&1 \
	&& pass run.result_json_accelerator || bad run.result_json_accelerator "rc=$rc $(jq -c .host "$tmp/run-auto/result.json" 2>&1)"
ACCEL=tcg run_fake run-tcg >/dev/null 2>"$tmp/e"; rc=$?
grep -q -- ' -accel tcg,thread=multi -cpu max ' "$tmp/run-tcg/qemu.cmd" 2>/dev/null && grep -qx "accel: tcg (requested)" "$tmp/e" &&
	jq -e '.accelerator == "tcg" and .accelerator_requested == "tcg" and .accelerator_reason == "requested"' "$tmp/run-tcg/host.json" >/dev/null 2>&1 \
	&& pass run.tcg_args_and_record || bad run.tcg_args_and_record "rc=$rc $(cat "$tmp/run-tcg/host.json" 2>&1 | tr -d '\n') $(tr '\n' '|' <"$tmp/e")"
DPLAB_KVM_DEV=$tmp/no-kvm run_fake run-nokvm --quiet >/dev/null 2>"$tmp/e"; rc=$?
grep -q -- ' -accel tcg,thread=multi -cpu max ' "$tmp/run-nokvm/qemu.cmd" 2>/dev/null && ! grep -q '^accel: ' "$tmp/e" &&
	jq -e --arg r "auto: $tmp/no-kvm missing" '.accelerator == "tcg" and .accelerator_requested == "auto" and .accelerator_reason == $r' \
	"$tmp/run-nokvm/host.json" >/dev/null 2>&1 \
	&& pass run.auto_fallback_record_quiet || bad run.auto_fallback_record_quiet "rc=$rc $(cat "$tmp/run-nokvm/host.json" 2>&1 | tr -d '\n') $(tr '\n' '|' <"$tmp/e")"
# kunit.sh boots under the accelerator chosen (the fake exits: no KTAP)
FAKE_MODE=ok "$lab/launch/kunit.sh" >/dev/null 2>"$tmp/e"
tail -1 "$FAKE_LOG" | grep -q -- '^-accel kvm -cpu host -smp 2,sockets=2,cores=1,threads=1 ' && grep -q '^accel: kvm (auto: ' "$tmp/e" \
	&& pass kunit.accel_args || bad kunit.accel_args "$(tail -1 "$FAKE_LOG" | cut -c1-80) $(tr '\n' '|' <"$tmp/e")"

# ---- the report: never a verdict across accelerators ----------------------
$py - "$tmp/rep" <<'PY'
import json, os, sys
root = sys.argv[1]
MiB = 2**20
# off on host a under TCG, global on host a under KVM, node on host b under TCG
sides = {"off": ("hosta", "tcg", 1000, 10.0), "global": ("hosta", "kvm", 500, 30.0),
         "node": ("hostb", "tcg", 500, 8.0)}
for mode, (hn, acc, po, bw) in sides.items():
    for i in range(1, 5):
        d = os.path.join(root, f"uma-fx-{mode}-patched-r{i}"); os.makedirs(d)
        json.dump({"topology": "uma", "scenario": "fx", "mode": mode, "kernel": "patched", "variant": "lab",
                   "kernel_release": "6.1.0-test", "lab_commit": "abc1234",
                   "host": {"hostname": hn, "accelerator": acc, "accelerator_requested": "auto"},
                   "metrics": {"vmstat_delta": {"nr_vmscan_write": po + i, "pswpout": 0},
                               "workloads": {"dirtier": {"bw_bytes_per_s": (bw + i / 10) * MiB}}},
                   "checks": [], "pass": True}, open(os.path.join(d, "result.json"), "w"))
# a hung cell: no result.json, its host.json from run.py
d = os.path.join(root, "uma-fx-off-stock-r1"); os.makedirs(d)
json.dump({"name": "uma-fx-off-stock-r1", "topology": "uma", "scenario": "fx", "mode": "off", "kernel": "stock",
           "lru": "classic", "status": "HUNG", "reason": "killed by the matrix after 360s", "repeat": 1},
          open(os.path.join(d, "cell.json"), "w"))
json.dump({"hostname": "hostc", "accelerator": "kvm"}, open(os.path.join(d, "host.json"), "w"))
PY
$py "$lab/launch/report.py" "$tmp/rep" >/dev/null 2>"$tmp/e"; rc=$?
md=$tmp/rep/report.md
brow() { grep -m1 "^| fx on uma | $1 | $2 |" "$md"; }
r=$(brow 'file pageout (pages)' 'lower | global vs off')
[ $rc -eq 0 ] && [[ $r == *"| 1002 (1001..1004) | 502 (501..504) | 4/4 | n/a | n/a | n/a | not compared: accelerators differ |  |" ]] \
	&& pass report.bench_not_compared_across_accelerators || bad report.bench_not_compared_across_accelerators "rc=$rc '$r' $(head -2 "$tmp/e")"
r=$(brow 'throughput (MiB/s)' 'higher | global vs off')
[[ $r == *"| not compared: accelerators differ | not compared |" ]] && pass report.bench_claim_not_judged_across_accelerators \
	|| bad report.bench_claim_not_judged_across_accelerators "'$r'"
r=$(brow 'file pageout (pages)' 'lower | node vs off (hosts differ)')
[[ $r == *"| 4/4 | 0.50 | "*" | 0.0286 | better |  |" ]] && pass report.bench_hosts_differ_said \
	|| bad report.bench_hosts_differ_said "'$r'"
grep -q '^Not every comparison.*Hosts (accelerators) of each column: fx on uma: off on hosta (tcg); global on hosta (kvm); node on hostb (tcg)\.$' "$md" \
	&& pass report.bench_hosts_listed || bad report.bench_hosts_listed "$(grep '^Not every' "$md" | cut -c1-300)"
r=$(grep -m1 '^| file pageout (pages) | 1002' "$md")
[ "$r" = "| file pageout (pages) | 1002 (1001..1004) | 502 (501..504) | not compared: accelerators differ | 502 (501..504) | 0.50 |" ] \
	&& pass report.ab_ratio_not_across_accelerators || bad report.ab_ratio_not_across_accelerators "'$r'"
r=$(grep -m1 '^| uma-fx-global-patched-r1 |' "$md")
[[ $r == "| uma-fx-global-patched-r1 | uma | fx | global | patched | classic | hosta | kvm | PASS |  |"* ]] \
	&& pass report.cells_host_and_accel || bad report.cells_host_and_accel "'$r'"
r=$(grep -m1 '^| uma-fx-off-stock-r1 |' "$md")
[[ $r == "| uma-fx-off-stock-r1 | uma | fx | off | stock | classic | hostc | kvm | HUNG | killed by the matrix after 360s |"* ]] \
	&& pass report.cells_host_from_host_json || bad report.cells_host_from_host_json "'$r'"
grep -q "<th>host</th><th>accel</th>" "$tmp/rep/report.html" && pass report.html_columns || bad report.html_columns "no host/accel in report.html"
# one accelerator and one host everywhere: verdicts as before, no note
sed -i 's/"kvm"/"tcg"/; s/"hostb"/"hosta"/' "$tmp"/rep/uma-fx-*-patched-r*/result.json
rm -rf "$tmp/rep/uma-fx-off-stock-r1"
$py "$lab/launch/report.py" "$tmp/rep" >/dev/null 2>&1
r=$(brow 'file pageout (pages)' 'lower | global vs off')
[[ $r == *"| 4/4 | 0.50 | "*" | 0.0286 | better |  |" ]] && ! grep -q 'not compared\|hosts differ\|^Not every' "$md" \
	&& pass report.same_accelerator_compared || bad report.same_accelerator_compared "'$r' $(grep -c 'not compared' "$md")"
exit $fail
