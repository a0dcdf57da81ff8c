#!/bin/bash
# launch/build_cost.py, the summary of a timed cold build (launch/build-cost.sh), on a
# toy source tree and cost log whose sums are known: objects grouped two directories
# deep, each group named by the config symbol its parent's Makefile or Kbuild adds it
# under, and one line and exit 2 on bad input.  (The timed build itself takes a cold
# kernel build: it is a tool, run by hand, not part of make test.)
. "$(dirname "$0")/../lib.sh"
scratch

src=$tmp/src
mkdir -p "$src/net" "$src/fs" "$src/mm" "$src/drivers"
printf 'obj-y += core/\nobj-$(CONFIG_INET) += ipv4/ \\\n\tipv6/\n' >"$src/net/Makefile"
printf 'obj-$(CONFIG_XFS_FS)\t\t+= xfs/\nobj-$(CONFIG_EXT4_FS) += ext4/\n' >"$src/fs/Makefile"
printf 'obj-y += base/\n' >"$src/drivers/Makefile"
cat >"$tmp/cost.log" <<'LOG'
1200 net/ipv4/tcp.o
800 net/ipv4/udp.o
500 net/ipv6/af_inet6.o
300 net/core/dev.o
4000 fs/xfs/xfs_inode.o
1000 fs/xfs/libxfs/xfs_bmap.o
700 mm/vmscan.o
100 drivers/base/core.o
50 drivers/thermal/thermal.o
30 .tmp_4242/tmp.o
LOG
out=$($py launch/build_cost.py --src "$src" --log "$tmp/cost.log" --wall 10 --jobs 2 --out "$tmp/o" 2>&1); rc=$?
row() { awk -v k="| $1 |" 'index($0, k) == 1' "$tmp/o/summary.md" | head -1; }
[ $rc -eq 0 ] && [ "$(row fs/xfs)" = "| fs/xfs | 2 | 5.0 | 57.8% | CONFIG_XFS_FS |" ] &&
	pass groups.two_levels_deep || bad groups.two_levels_deep "rc=$rc '$(row fs/xfs)': $out"
[ "$(row net/ipv6)" = "| net/ipv6 | 1 | 0.5 | 5.8% | CONFIG_INET |" ] &&
	pass gate.continued_line || bad gate.continued_line "'$(row net/ipv6)'"
[ "$(row CONFIG_INET)" = "| CONFIG_INET | 3 | 2.5 | 28.9% | net/ipv4, net/ipv6 |" ] &&
	pass symbol.sums_its_directories || bad symbol.sums_its_directories "'$(row CONFIG_INET)'"
[ "$(row mm)" = "| mm | 1 | 0.7 | 8.1% | ? |" ] && [ "$(row net/core)" = "| net/core | 1 | 0.3 | 3.5% | always |" ] &&
	[ "$(row drivers/thermal)" = "| drivers/thermal | 1 | 0.1 | 0.6% | ? |" ] &&
	pass gate.always_and_unknown || bad gate.always_and_unknown "'$(row mm)' '$(row net/core)' '$(row drivers/thermal)'"
grep -q "^9 objects compiled in 10 s of wall time at -j2; the compiler ran 9 s in all (43% of 2 x wall" "$tmp/o/summary.md" &&
	grep -q "^Not counted: 1 compiler probes of kbuild's configuration checks (0.0 s)" "$tmp/o/summary.md" &&
	pass summary.totals_without_probes || bad summary.totals_without_probes "$(sed -n 3,5p "$tmp/o/summary.md" | tr '\n' '|')"
[ "$(sed -n 2p "$tmp/o/cost.tsv")" = "$(printf '4000\tfs/xfs/xfs_inode.o')" ] && [ "$(wc -l <"$tmp/o/cost.tsv")" -eq 10 ] &&
	pass cost_tsv.slowest_first || bad cost_tsv.slowest_first "$(head -2 "$tmp/o/cost.tsv" | tr '\n' ' ')"

# a directory that several lines add: every symbol, in the Makefile's order
mkdir -p "$src/kernel"
printf 'obj-$(CONFIG_TRACING) += trace/\nobj-$(CONFIG_FUNCTION_TRACER) += trace/\n' >"$src/kernel/Makefile"
printf '10 kernel/trace/trace.o\n10 arch/x86/kernel/setup.o\n' >"$tmp/k.log"
$py launch/build_cost.py --src "$src" --log "$tmp/k.log" --wall 1 --jobs 1 --out "$tmp/k" >/dev/null 2>&1
got=$(awk -v k="| kernel/trace |" 'index($0, k) == 1' "$tmp/k/summary.md")
[ "$got" = "| kernel/trace | 1 | 0.0 | 50.0% | CONFIG_TRACING or CONFIG_FUNCTION_TRACER |" ] &&
	pass gate.several_lines || bad gate.several_lines "'$got'"
# the architecture's directory: the top Makefile adds it, whatever the configuration
got=$(awk -v k="| arch/x86 |" 'index($0, k) == 1' "$tmp/k/summary.md")
[ "$got" = "| arch/x86 | 1 | 0.0 | 50.0% | always |" ] && pass gate.arch || bad gate.arch "'$got'"

# bad input: one line, exit 2
printf '12 mm/a.o\nnot a line\n' >"$tmp/bad.log"
for k in "log:--log $tmp/bad.log:bad.log:2: want 'MS OBJECT.o'" "nolog:--log $tmp/none.log:cannot read" \
	"empty:--log /dev/null:no object was timed"; do
	IFS=: read -r name arg want <<<"$k"
	err=$($py launch/build_cost.py --src "$src" $arg --wall 10 --jobs 2 --out "$tmp/o2" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ "${err#*"$want"}" != "$err" ] &&
		pass "bad_input.$name" || bad "bad_input.$name" "rc=$rc '$err'"
done
err=$($py launch/build_cost.py --src "$src" --wall 1 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$err" = "build_cost: the following arguments are required: --log, --jobs, --out" ] &&
	pass bad_input.arguments || bad bad_input.arguments "rc=$rc '$err'"
err=$(launch/build-cost.sh nosuch 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ "$err" = "build-cost: KERNEL must be patched or stock, not 'nosuch'" ] &&
	pass bad_input.kernel || bad bad_input.kernel "rc=$rc '$err'"
out=$(launch/build-cost.sh --help); rc=$?
[ $rc -eq 0 ] && [ "${out#Where a cold kernel build}" != "$out" ] && pass help || bad help "rc=$rc '$out'"
exit $fail
