#!/bin/bash
# ACCEL on this machine, with the built kernel and the real QEMU (under 30 s
# where KVM does not work; a KVM host adds one smoke run under KVM):
#  - auto decides here, from a cold cache, and says why in one line;
#  - the probe really boots: with a device that opens (DPLAB_KVM_DEV=/dev/null)
#    QEMU -accel kvm is started on the lab bzImage; where /dev/kvm does not
#    run a guest that fails and auto falls back to TCG, cached on the second call;
#  - the probe guest itself reaches its marker (booted under TCG here:
#    DPLAB_ACCEL_PROBE_ACCEL=tcg), so a KVM host's probe tests KVM, not the script;
#  - ACCEL=kvm: where /dev/kvm runs a guest, a smoke run under KVM must pass;
#    elsewhere it is refused in one line, exit 2, and the KVM run is SKIP
#    (unmeasurable), never PASS.
. "$(dirname "$0")/../lib.sh"
scratch
unset ACCEL DPLAB_KVM_DEV DPLAB_QEMU DPLAB_ACCEL_PROBE_TIMEOUT DPLAB_ACCEL_PROBE_ACCEL
export DPLAB_ACCEL_CACHE=$tmp/cache.json
bz=build/patched/obj/arch/x86/boot/bzImage
[ -f "$bz" ] || { echo "FAIL: accel.kernel: no $bz (tests/lab/00-kernel.t builds it)"; exit 1; }
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# auto, cold cache, the real device
t0=$(date +%s%N)
out=$($py launch/accel.py --image "$bz" 2>"$tmp/e"); rc=$?
took=$(ms "$t0"); line=$(cat "$tmp/e")
if [ -e /dev/kvm ]; then want_re='^accel: (kvm|tcg) \(auto: /dev/kvm .+\)$'; else want_re='^accel: tcg \(auto: /dev/kvm missing\)$'; fi
if [ $rc -eq 0 ] && [ "$(wc -l <"$tmp/e")" -eq 1 ] && [[ $line =~ $want_re ]] && [ "$out" = "${line:7:3}" ]; then
	pass "accel.auto_here ($line; ${took} ms uncached)"
else
	bad accel.auto_here "rc=$rc out=$out stderr='$(tr '\n' '|' <"$tmp/e")'"
fi
kvm_ok=0; [ "$out" = kvm ] && kvm_ok=1
t0=$(date +%s%N)
out2=$($py launch/accel.py --image "$bz" 2>"$tmp/e2"); rc=$?
took2=$(ms "$t0")
if [ $rc -eq 0 ] && [ "$out2" = "$out" ] && { [ ! -e /dev/kvm ] || grep -q '(cached probe: ' "$tmp/e2"; }; then
	pass "accel.auto_again (${took2} ms$([ -e /dev/kvm ] && echo ', cached'))"
else
	bad accel.auto_again "rc=$rc out=$out2 stderr='$(tr '\n' '|' <"$tmp/e2")'"
fi

# the probe boots QEMU -accel kvm on the lab kernel: a device that opens
# (/dev/null) makes auto start it even where /dev/kvm is missing
rm -f "$DPLAB_ACCEL_CACHE"
t0=$(date +%s%N)
out=$(DPLAB_KVM_DEV=/dev/null $py launch/accel.py --image "$bz" 2>"$tmp/e"); rc=$?
took=$(ms "$t0")
if [ $kvm_ok -eq 1 ]; then
	[ $rc -eq 0 ] && [ "$out" = kvm ] && grep -q '(probed: probe guest reached userspace in ' "$tmp/e" \
		&& pass "accel.probe_boots_kvm (${took} ms)" || bad accel.probe_boots_kvm "rc=$rc out=$out $(tr '\n' '|' <"$tmp/e")"
else
	[ $rc -eq 0 ] && [ "$out" = tcg ] && grep -q '^accel: tcg (auto: /dev/null does not run a guest (probed: ' "$tmp/e" &&
		jq -e '.usable == false' "$DPLAB_ACCEL_CACHE" >/dev/null 2>&1 \
		&& pass "accel.probe_fails_falls_back ($(cat "$tmp/e"); ${took} ms)" \
		|| bad accel.probe_fails_falls_back "rc=$rc out=$out $(tr '\n' '|' <"$tmp/e")"
fi
t0=$(date +%s%N)
out=$(DPLAB_KVM_DEV=/dev/null $py launch/accel.py --image "$bz" 2>"$tmp/e"); rc=$?
took=$(ms "$t0")
[ $rc -eq 0 ] && grep -q '(cached probe: ' "$tmp/e" && [ "$took" -lt 3000 ] && pass "accel.probe_cached (${took} ms)" \
	|| bad accel.probe_cached "rc=$rc ${took} ms $(tr '\n' '|' <"$tmp/e")"

# the probe guest reaches its marker (under TCG: it is the script and the
# kernel's 9p root that are tested here, not KVM)
rm -f "$DPLAB_ACCEL_CACHE"
out=$(DPLAB_KVM_DEV=/dev/null DPLAB_ACCEL_PROBE_ACCEL=tcg $py launch/accel.py --image "$bz" 2>"$tmp/e"); rc=$?
[ $rc -eq 0 ] && [ "$out" = kvm ] && grep -q '(probed: probe guest reached userspace in [0-9.]* s))$' "$tmp/e" \
	&& pass "accel.probe_guest_reaches_marker ($(grep -o 'in [0-9.]* s' "$tmp/e") under TCG)" \
	|| bad accel.probe_guest_reaches_marker "rc=$rc out=$out $(tr '\n' '|' <"$tmp/e")"
rm -f "$DPLAB_ACCEL_CACHE"

# ACCEL=kvm
if [ $kvm_ok -eq 1 ]; then
	out=$tmp/kvm-smoke
	log=$(ACCEL=kvm $py launch/run.py --topo uma --scenario smoke --out "$out" 2>&1); rc=$?
	[ $rc -eq 0 ] && jq -e '.pass and .host.accelerator == "kvm" and .host.accelerator_requested == "kvm"' "$out/result.json" >/dev/null 2>&1 &&
		grep -q -- ' -accel kvm -cpu host ' "$out/qemu.cmd" && pass accel.kvm_smoke_run \
		|| bad accel.kvm_smoke_run "rc=$rc $(tail -2 <<<"$log" | tr '\n' '|')"
else
	log=$(ACCEL=kvm $py launch/run.py --topo uma --scenario smoke --out "$tmp/kvm-refused" 2>&1); rc=$?
	[ $rc -eq 2 ] && [ "$(wc -l <<<"$log")" -eq 1 ] && [[ $log == "run: ACCEL=kvm but /dev/kvm "* ]] && [ ! -e "$tmp/kvm-refused" ] \
		&& pass "accel.kvm_refused_here ($log)" || bad accel.kvm_refused_here "rc=$rc $log"
	echo "SKIP: accel.kvm_smoke_run: unmeasurable: precondition /dev/kvm runs a guest not met ($line)"
fi
exit $fail
