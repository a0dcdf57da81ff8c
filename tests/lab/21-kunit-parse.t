#!/bin/bash
# launch/kunit.sh reads the guest's KTAP with the kernel tree's own parser
# (tools/testing/kunit/kunit.py parse): fed canned consoles by a fake QEMU,
# a failing case is one FAIL line with kunit.py's status, a suite that never
# reports fails kunit_suites_present, and a clean console passes every case.
# Runs after 00-kernel.t (it needs the patched tree's kunit.py).
. "$(dirname "$0")/../lib.sh"
scratch
[ -f "$top/build/patched/linux/tools/testing/kunit/kunit.py" ] || { bad setup "no patched tree (run 00-kernel.t)"; exit 1; }
# a lab copy: its own bzImage stand-in, the real patched tree
lab=$tmp/lab
mkdir -p "$lab/build/patched/obj/arch/x86/boot"
cp -r "$top/launch" "$lab/launch"
ln -s "$top/build/patched/linux" "$lab/build/patched/linux"
echo "not a kernel" >"$lab/build/patched/obj/arch/x86/boot/bzImage"
# the fake QEMU prints $FAKE_CONSOLE on the serial console (stdout), with timestamps
cat >"$tmp/qemu" <<'F'
#!/bin/bash
[ "$1" = --version ] && { echo "QEMU emulator version 0.0 (fake)"; exit 0; }
awk '{ printf "[    %d.%06d] %s\r\n", NR, NR, $0 }' "$FAKE_CONSOLE"
F
chmod +x "$tmp/qemu"
console() {	# console FAILCASE SKIPSUITE: KTAP of the three suites
	local n=0 s c st
	echo "Linux version 6.1.192+ (fake)"
	echo "KTAP version 1"
	echo "1..$([ -n "$2" ] && echo 2 || echo 3)"
	for s in dirty_pressure dirty_pressure_writeback dirty_pressure_debugfs; do
		[ "$s" = "$2" ] && continue
		n=$((n + 1))
		echo "    KTAP version 1"
		echo "    # Subtest: $s"
		echo "    1..8"
		st=ok
		for c in 1 2 3 4 5 6 7 8; do
			if [ "${s}_case$c" = "$1" ]; then
				echo "    # ${s}_case$c: EXPECTATION FAILED at mm/fake.c:1"
				echo "    not ok $c ${s}_case$c"; st="not ok"
			else
				echo "    ok $c ${s}_case$c"
			fi
		done
		echo "$st $n $s"
	done
	echo "reboot: Power down"
}
run() { ACCEL=tcg DPLAB_QEMU=$tmp/qemu FAKE_CONSOLE=$tmp/console "$lab/launch/kunit.sh" lab --tap 2>"$tmp/err"; }

console "" "" >"$tmp/console"
out=$(run)
[ "$(grep -c '^PASS: kunit\.' <<<"$out")" -eq 24 ] && ! grep -q '^FAIL' <<<"$out" && grep -q '^PASS: kunit_suites_present' <<<"$out" \
	&& pass clean_console_all_pass || bad clean_console_all_pass "$(tr '\n' '|' <<<"$out" | cut -c1-300) $(cat "$tmp/err")"

console dirty_pressure_writeback_case3 "" >"$tmp/console"
out=$(run); rc=$?
[ $rc -ne 0 ] && grep -qx 'FAIL: kunit.dirty_pressure_writeback_case3: FAIL, see build/patched/obj/kunit.log' <<<"$out" && \
	[ "$(grep -c '^FAIL' <<<"$out")" -eq 1 ] && pass failing_case_is_fail || bad failing_case_is_fail "rc=$rc $(grep -v '^PASS' <<<"$out" | tr '\n' '|')"

console "" dirty_pressure_debugfs >"$tmp/console"
out=$(run); rc=$?
[ $rc -ne 0 ] && grep -q '^FAIL: kunit_suites_present: missing from kunit.py.s parse: dirty_pressure_debugfs' <<<"$out" \
	&& pass missing_suite_is_fail || bad missing_suite_is_fail "rc=$rc $(grep -v '^PASS' <<<"$out" | tr '\n' '|')"
# The kernel's own complaints while the suites run fail the boot, whatever
# the cases say: a race warned (WARNING at jump_label.h, taint W) in a
# case that then passed.  The clean console above says kunit_kernel_clean.
grep -qx 'PASS: kunit_kernel_clean' <<<"$(console "" "" >"$tmp/console"; run)" \
	&& pass clean_console_kernel_clean || bad clean_console_kernel_clean "no PASS: kunit_kernel_clean line"
console "" "" | awk '/# Subtest: dirty_pressure_debugfs/ { print; print "------------[ cut here ]------------";
	print "WARNING: CPU: 1 PID: 48 at include/linux/jump_label.h:322 dp_set_mode+0x7d/0xc0";
	print "Call Trace:"; print " <TASK>"; print " dpd_racer_fn+0x31/0x50"; print " </TASK>";
	print "---[ end trace 0000000000000000 ]---"; next } { print }' >"$tmp/console"
out=$(run); rc=$?
[ $rc -ne 0 ] && grep -q '^FAIL: kunit_kernel_clean: 3 problem lines on the console: .*WARNING: CPU: 1 PID: 48 at include/linux/jump_label.h:322' <<<"$out" \
	&& [ "$(grep -c '^PASS: kunit\.' <<<"$out")" -eq 24 ] \
	&& pass warning_is_fail || bad warning_is_fail "rc=$rc $(grep -v '^PASS' <<<"$out" | tr '\n' '|' | cut -c1-300)"
exit $fail
