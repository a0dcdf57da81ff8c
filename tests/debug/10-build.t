#!/bin/bash
# The debug kernels of issue 7, patched: VARIANT=debug (patches/debug.config:
# lockdep, sleeping in atomic, KASAN, UBSAN, DEBUG_VM, list debugging) and
# VARIANT=kcsan (patches/kcsan.config; KCSAN excludes KASAN).  One build at a
# time (kernel.sh takes a lock); a cold build is 20-40 min on 2 shared cores.
# A fragment option that olddefconfig dropped fails the build with its name.
# Not part of `make test`: run as `tests/run debug`.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
fail=0
for v in ${DEBUG_VARIANTS:-debug kcsan}; do
	log=build/kernel-$v.out
	start=$(date +%s)
	if launch/kernel.sh patched "$v" >"$log" 2>&1; then
		echo "PASS: build.$v ($(( $(date +%s) - start ))s: $(tail -1 "$log" | sed 's/^\[[^]]*\] //'))"
	else
		why=$(grep -m1 -E '^  CONFIG_|error:' "$log")
		echo "FAIL: build.$v: $(grep -m1 FAILED "$log" | sed 's/^\[[^]]*\] //')${why:+: $why} (log: $log)"
		fail=1
	fi
done
exit $fail
