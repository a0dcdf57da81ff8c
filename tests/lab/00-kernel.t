#!/bin/bash
# Build the patched guest kernel and check the result: the series applies to
# pristine 6.1 without fuzz, the fragment survives olddefconfig, a second
# `make kernel` is a no-op.  The stock tree is configured (not compiled: that
# is `make bench`'s business) and must differ from the patched .config only
# by the KUnit suite's option, so A/B runs compare like with like.
. "$(dirname "$0")/../lib.sh"
# progress (kernel.sh's stage lines) to fd 3, which tests/run shows; alone: stderr
for k in patched; do
	start=$(date +%s)
	if out=$(launch/kernel.sh $k lab 2>&1 | progress; exit "${PIPESTATUS[0]}"); then
		echo "PASS: kernel_build.$k ($(( $(date +%s) - start )) s)"
	else
		echo "FAIL: kernel_build.$k: $(echo "$out" | tail -5 | tr '\n' ' ')"; fail=1; continue
	fi
	echo "$out" | sed 's/^/# /' >&2
	again=$(launch/kernel.sh $k lab 2>&1)
	if [[ $again == *"up to date"* ]]; then echo "PASS: kernel_noop.$k"; else echo "FAIL: kernel_noop.$k: $again"; fail=1; fi
done
if out=$(launch/kernel.sh stock lab --config-only 2>&1); then
	d=$(diff <(grep -v '^#' build/stock/obj/.config | sort) <(grep -v '^#' build/patched/obj/.config | sort) | grep '^[<>]' | grep -v 'DIRTY_PRESSURE')
	[ -z "$d" ] && echo "PASS: stock_config_same" || { echo "FAIL: stock_config_same: $(echo $d | head -c 300)"; fail=1; }
else
	echo "FAIL: stock_config_same: $(echo "$out" | tail -3 | tr '\n' ' ')"; fail=1
fi
# A build of the patched kernel does not hold up the stock one (separate
# locks), while a second patched build waits for the first.
flock build/patched/.lock sleep 20 &
holder=$!
sleep 0.5
if timeout 15 launch/kernel.sh stock lab --config-only >/dev/null 2>&1; then
	echo "PASS: stock_not_blocked_by_patched"
else
	echo "FAIL: stock_not_blocked_by_patched: kernel.sh stock waited for the patched build's lock (or failed)"; fail=1
fi
if timeout 3 launch/kernel.sh patched lab >/dev/null 2>&1; then
	echo "FAIL: patched_builds_serialized: a second patched build ran beside the first"; fail=1
else
	echo "PASS: patched_builds_serialized"
fi
kill $holder 2>/dev/null; wait $holder 2>/dev/null
# The lab build leaves XFS out (a fifth of a cold build) and static keys
# unpatched (JUMP_LABEL off: see lab.config); the xfs variant, which
# topologies with an XFS disk boot,
# starts from a copy of the lab objects, so only XFS and what its options
# touch compile.  Rebuilt here from the lab build each time, as in a fresh clone.
cfg() { grep -qx "$2" "build/patched/$1/.config"; }
! cfg obj CONFIG_JUMP_LABEL=y && ! cfg obj CONFIG_XFS_FS=y && pass lab_config.no_jump_label_no_xfs \
	|| bad lab_config.no_jump_label_no_xfs "$(grep -E '^(# )?CONFIG_(JUMP_LABEL|XFS_FS)[= ]' build/patched/obj/.config | tr '\n' ' ')"
rm -rf build/patched/obj-xfs
start=$(date +%s)
if out=$(launch/kernel.sh patched xfs 2>&1 | progress; exit "${PIPESTATUS[0]}"); then
	lab_n=$(grep -c '^  CC ' build/patched/obj/build.log)
	xfs_n=$(grep -c '^  CC ' build/patched/obj-xfs/build.log)
	if [[ $out == *"seed build/patched/obj-xfs from build/patched/obj"* ]] && cfg obj-xfs CONFIG_XFS_FS=y &&
	   [ "$xfs_n" -lt 200 ] && [ -f build/patched/obj-xfs/arch/x86/boot/bzImage ]; then
		pass "xfs_variant.seeded_from_lab ($xfs_n objects compiled, $(( $(date +%s) - start )) s; the lab build's last: $lab_n)"
	else
		bad xfs_variant.seeded_from_lab "$xfs_n objects compiled; $(echo "$out" | tail -4 | tr '\n' ' ')"
	fi
	d=$(diff <(grep '^CONFIG_' build/patched/obj/.config | sort) <(grep '^CONFIG_' build/patched/obj-xfs/.config | sort) |
		sed -n 's/^[<>] \(CONFIG_[A-Z0-9_]*\)=.*/\1/p' | sort -u | tr '\n' ' ')
	# XFS and what it selects, nothing else
	[[ $d == *CONFIG_XFS_FS* ]] && [ -z "$(tr ' ' '\n' <<<"$d" | grep -vE '^(CONFIG_(XFS_|EXPORTFS|LIBCRC32C|CRC32C|CRYPTO_|FS_IOMAP|CRC)|$)')" ] \
		&& pass "xfs_variant.only_xfs_differs ($d)" || bad xfs_variant.only_xfs_differs "$d"
else
	bad xfs_variant.seeded_from_lab "$(echo "$out" | tail -5 | tr '\n' ' ')"
fi
rel=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' build/patched/obj/include/generated/utsrelease.h 2>/dev/null)
[[ $rel == 6.1.* ]] && echo "PASS: kernel_release_6.1 ($rel)" || { echo "FAIL: kernel_release_6.1: '$rel'"; fail=1; }
n=$(grep -cv '^\s*\(#\|$\)' patches/series 2>/dev/null)
changed=$(git -C build/patched/linux diff --shortstat pristine 2>/dev/null)
if [ "${n:-0}" -gt 0 ] && [ -n "$changed" ]; then
	echo "PASS: series_applied ($n patches:$changed)"
else
	echo "FAIL: series_applied: patches/series lists ${n:-0} patches, tree differs from pristine by '${changed}'"; fail=1
fi
exit $fail
