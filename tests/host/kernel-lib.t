#!/bin/bash
# launch/lib.sh, the shell the kernel scripts share, on a toy source tree
# (a tarball of three files, patches made with git): the series file's
# errors, the pristine tree made once, and series_apply writing only the
# files whose content changes (a header the series touches keeps its mtime
# when another patch changes: kbuild rebuilds by mtime).
. "$(dirname "$0")/../lib.sh"
. "$top/launch/lib.sh"
scratch

# ---- series_files ----------------------------------------------------------------
mkdir -p "$tmp/t/patches"
printf 'x\n' >"$tmp/t/patches/0001-a.patch"
printf 'x\n' >"$tmp/t/patches/0002-b.patch"
printf '# comment\n0001-a.patch\n\n0002-b.patch  # trailing\n' >"$tmp/t/patches/series"
out=$(series_files "$tmp/t" 2>&1); rc=$?
[ $rc -eq 0 ] && [ "$out" = "$tmp/t/patches/0001-a.patch
$tmp/t/patches/0002-b.patch" ] && pass series_files.in_order || bad series_files.in_order "rc=$rc $out"
for k in "missing:0003-c.patch:names 0003-c.patch, which does not exist" \
	"cover:0000-cover-letter.patch:names the cover letter" \
	"empty:# nothing:lists no patch"; do
	IFS=: read -r name line want <<<"$k"
	[ "$name" = cover ] && : >"$tmp/t/patches/0000-cover-letter.patch"
	printf '%s\n' "$line" >"$tmp/t/patches/series"
	out=$(series_files "$tmp/t" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == *"$want"* ]] \
		&& pass "series_files.$name" || bad "series_files.$name" "rc=$rc '$out'"
done
rm "$tmp/t/patches/series"
out=$(series_files "$tmp/t" 2>&1 >/dev/null); rc=$?
[ $rc -ne 0 ] && [ "$out" = "patches/series missing" ] && pass series_files.no_series || bad series_files.no_series "rc=$rc '$out'"

# ---- kernel_obj_dir: the shell rule is collect.py's ----------------------------
got=$(for k in patched stock; do for v in lab debug kcsan; do kernel_obj_dir "$top" $k $v; done; done)
want=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1] + "/launch"); import collect
for k in ("patched", "stock"):
    for v in ("lab", "debug", "kcsan"):
        print(collect.kernel_obj_dir(k, v))' "$top")
[ -n "$got" ] && [ "$got" = "$want" ] && pass kernel_obj_dir.same_as_collect || bad kernel_obj_dir.same_as_collect "$got vs $want"

# ---- a toy kernel tarball and a series made against it ------------------------------
mkdir -p "$tmp/mk/linux-source-6.1/include" "$tmp/mk/linux-source-6.1/mm"
printf '#define A 1\n' >"$tmp/mk/linux-source-6.1/include/a.h"
printf 'int b;\n' >"$tmp/mk/linux-source-6.1/mm/b.c"
printf 'doc\n' >"$tmp/mk/linux-source-6.1/README"
tar -C "$tmp/mk" -cJf "$tmp/linux.tar.xz" linux-source-6.1
mkp() {	# mkp NAME FILE CONTENT: a patch setting FILE to CONTENT, against the tree in $tmp/ref
	printf '%s' "$3" >"$tmp/ref/$2"
	git -C "$tmp/ref" add -A && git -C "$tmp/ref" -c user.name=t -c user.email=t@t commit -qm "$1" &&
		git -C "$tmp/ref" format-patch -q -1 --stdout >"$tmp/$1.patch"
}
cp -r "$tmp/mk/linux-source-6.1" "$tmp/ref"
git -C "$tmp/ref" init -q && git -C "$tmp/ref" add -A && git -C "$tmp/ref" -c user.name=t -c user.email=t@t commit -qm base
mkp p1 include/a.h $'#define A 2\n'
mkp p2 mm/b.c $'int b;\nint c;\n'
git -C "$tmp/ref" reset -q --hard HEAD~1
mkp p2x mm/b.c $'int b;\nint d;\n'
mkdir -p "$tmp/ref/mm" && mkp p3 mm/new.c $'int n;\n'

src=$tmp/src
out=$(pristine_tree "$src" "$tmp/linux.tar.xz" 2>&1); rc=$?
[ $rc -eq 0 ] && lib_git "$src" rev-parse -q --verify refs/tags/pristine >/dev/null && [ "$(cat "$src/include/a.h")" = "#define A 1" ] \
	&& pass pristine_tree.made || bad pristine_tree.made "rc=$rc $out"
first=$(lib_git "$src" rev-parse pristine)
pristine_tree "$src" "$tmp/linux.tar.xz" && [ "$(lib_git "$src" rev-parse pristine)" = "$first" ] \
	&& pass pristine_tree.once || bad pristine_tree.once "made again"
out=$(pristine_tree "$tmp/src2" "$tmp/nonexistent.tar.xz" 2>&1); rc=$?
[ $rc -ne 0 ] && [[ $out == *"cannot extract"* ]] && pass pristine_tree.bad_tarball || bad pristine_tree.bad_tarball "rc=$rc $out"

# ---- series_apply -------------------------------------------------------------------
mtime() { stat -c %Y.%y "$src/$1"; }
series_apply "$src" "$tmp/p1.patch" "$tmp/p2.patch" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(cat "$src/include/a.h")" = "#define A 2" ] && [ "$(tail -1 "$src/mm/b.c")" = "int c;" ] \
	&& pass series_apply.applies || bad series_apply.applies "rc=$rc $(cat "$tmp/err")"
a_before=$(mtime include/a.h) r_before=$(mtime README)
sleep 1.1
# p2 changes: a.h (p1's, unchanged) and README (no patch) keep their mtimes
series_apply "$src" "$tmp/p1.patch" "$tmp/p2x.patch" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ "$(tail -1 "$src/mm/b.c")" = "int d;" ] && [ "$(mtime include/a.h)" = "$a_before" ] && \
	[ "$(mtime README)" = "$r_before" ] && pass series_apply.untouched_files_keep_mtime \
	|| bad series_apply.untouched_files_keep_mtime "rc=$rc a.h $a_before -> $(mtime include/a.h) $(cat "$tmp/err")"
# a new file, then a series without it: created, then removed; stray build files go
series_apply "$src" "$tmp/p1.patch" "$tmp/p2x.patch" "$tmp/p3.patch" 2>"$tmp/err" && [ -f "$src/mm/new.c" ] && \
	: >"$src/mm/stray.o" && series_apply "$src" "$tmp/p1.patch" 2>>"$tmp/err" && [ ! -e "$src/mm/new.c" ] && \
	[ ! -e "$src/mm/stray.o" ] && [ "$(cat "$src/mm/b.c")" = "int b;" ] && [ "$(mtime include/a.h)" = "$a_before" ] \
	&& pass series_apply.adds_and_removes || bad series_apply.adds_and_removes "$(cat "$tmp/err"); $(ls "$src/mm")"
# back to pristine (the stock kernel): no patch
series_apply "$src" 2>"$tmp/err" && [ "$(cat "$src/include/a.h")" = "#define A 1" ] && \
	[ -z "$(lib_git "$src" status --porcelain)" ] && pass series_apply.none_is_pristine || bad series_apply.none_is_pristine "$(cat "$tmp/err")"
# a patch that does not apply: one line naming it, the tree left as it was
series_apply "$src" "$tmp/p1.patch" 2>/dev/null
before=$(lib_git "$src" ls-files -s; cat "$src/include/a.h" "$src/mm/b.c")
out=$(series_apply "$src" "$tmp/p1.patch" "$tmp/p1.patch" 2>&1); rc=$?
after=$(lib_git "$src" ls-files -s; cat "$src/include/a.h" "$src/mm/b.c")
[ $rc -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == "p1.patch does not apply to pristine + the patches before it: "* ]] && \
	[ "$before" = "$after" ] && pass series_apply.bad_patch_leaves_tree || bad series_apply.bad_patch_leaves_tree "rc=$rc '$out'"
series_apply "$src" "$tmp/p1.patch" 2>/dev/null
out=$(series_apply "$src" "$tmp/p1.patch" "$tmp/p1.patch" 2>&1)
[[ $out == *"first failing hunk in include/a.h:1; "* ]] && pass series_apply.names_failing_hunk || bad series_apply.names_failing_hunk "'$out'"

# ---- KSRC: the user's own source ---------------------------------------------------
# a toy tree that passes for Linux 6.12.5: a top Makefile and mm/page-writeback.c
mktree() {	# mktree DIR VERSION PATCHLEVEL SUBLEVEL
	mkdir -p "$1/mm" "$1/include"
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\nEXTRAVERSION =\n' "$2" "$3" "$4" >"$1/Makefile"
	printf 'int wb;\n' >"$1/mm/page-writeback.c"
	printf '#define A 1\n' >"$1/include/a.h"
}
mktree "$tmp/k612" 6 12 5
[ "$(ksrc_check "$tmp/k612")" = tree ] && [ "$(ksrc_version "$tmp/k612/Makefile")" = 6.12.5 ] && \
	[ "$(ksrc_version - <"$tmp/k612/Makefile")" = 6.12.5 ] && pass ksrc.tree_and_version || bad ksrc.tree_and_version "$(ksrc_check "$tmp/k612" 2>&1)"
mkdir -p "$tmp/notlinux"; printf 'all:\n' >"$tmp/notlinux/Makefile"
for k in "notlinux:$tmp/notlinux:is not a Linux source tree" "missing:$tmp/nosuch:no such file or directory" \
	"nottar:$tmp/k612/Makefile:is neither a directory nor a tar archive"; do
	IFS=: read -r name path want <<<"$k"
	out=$(ksrc_check "$path" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && [[ $out == *"$want"* ]] && pass "ksrc_check.$name" || bad "ksrc_check.$name" "rc=$rc '$out'"
done
[ "$(ksrc_check "$tmp/linux.tar.xz")" = tarball ] && pass ksrc_check.tarball || bad ksrc_check.tarball "$(ksrc_check "$tmp/linux.tar.xz" 2>&1)"
# roots: one per source, stable, under build/ksrc; a new tarball at the same path is a new source
r1=$(ksrc_root "$top" "$tmp/k612") r2=$(ksrc_root "$top" "$tmp/k612/") r3=$(ksrc_root "$top" "$tmp/notlinux")
t1=$(ksrc_root "$top" "$tmp/linux.tar.xz"); touch -d '2020-01-01' "$tmp/linux.tar.xz"; t2=$(ksrc_root "$top" "$tmp/linux.tar.xz")
[[ $r1 == "$top/build/ksrc/k612-"???????????? ]] && [ "$r1" = "$r2" ] && [ "$r1" != "$r3" ] && \
	[[ $t1 == "$top/build/ksrc/linux-"* ]] && [ "$t1" != "$t2" ] && pass ksrc_root.one_per_source || bad ksrc_root.one_per_source "$r1 $r2 $r3 $t1 $t2"
# the Python rule (dplab.contract, what run.py and matrix.py use) follows KSRC the same way
py_obj=$(KSRC=$tmp/k612 /usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[1] + "/launch")
from dplab.contract import kernel_obj_dir
print(kernel_obj_dir("stock", "debug")); print(kernel_obj_dir("patched", "lab"))' "$top")
[ "$py_obj" = "$r1/stock/obj-debug
$r1/patched/obj" ] && pass kernel_obj_dir.python_follows_ksrc || bad kernel_obj_dir.python_follows_ksrc "$py_obj"
[ "$(KSRC= kernel_root "$top")" = "$top/build" ] && [ "$(KSRC=$tmp/k612 kernel_root "$top")" = "$r1" ] && \
	[ "$(KSRC=$tmp/k612 kernel_obj_dir "$top" stock debug)" = "$r1/stock/obj-debug" ] \
	&& pass kernel_root.follows_ksrc || bad kernel_root.follows_ksrc "$(KSRC=$tmp/k612 kernel_obj_dir "$top" stock debug)"
# the series for a version
out=$(series_for "$top" 6.1.192) && [ "$out" = "$top/patches/series" ] && pass series_for.base || bad series_for.base "$out"
# (6.6: a version the series has no port to; 6.12 has patches/6.12/series)
out=$(series_for "$top" 6.6.5 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$out" = "the series has no port to Linux 6.6 (the tree is 6.6.5; no patches/6.6/series): give SERIES=FILE, or KERNEL=stock" ] \
	&& pass series_for.no_port || bad series_for.no_port "rc=$rc $out"
printf 'p1.patch\n' >"$tmp/my.series"
out=$(series_for "$top" 6.12.5 "$tmp/my.series") && [ "$out" = "$tmp/my.series" ] && \
	[ "$(series_files "$top" "$out")" = "$tmp/p1.patch" ] && pass series_for.given || bad series_for.given "$out"
out=$(series_for "$top" 6.12.5 "$tmp/none.series" 2>&1); rc=$?
[ $rc -ne 0 ] && [ "$out" = "SERIES=$tmp/none.series: no such file" ] && pass series_for.given_missing || bad series_for.given_missing "rc=$rc $out"
# KCIDB's patchset_hash: sha256 over each patch's sha256 and a newline
want=$(/usr/bin/python3 -c 'import hashlib, sys
print(hashlib.sha256("".join(hashlib.sha256(open(p, "rb").read()).hexdigest() + "\n" for p in sys.argv[1:]).encode()).hexdigest())' \
	"$tmp/p1.patch" "$tmp/p2.patch")
[ "$(patchset_hash "$tmp/p1.patch" "$tmp/p2.patch")" = "$want" ] && [ -z "$(patchset_hash)" ] \
	&& pass patchset_hash.kcidb || bad patchset_hash.kcidb "$(patchset_hash "$tmp/p1.patch" "$tmp/p2.patch") vs $want"
# a tree read in as pristine, incrementally; the user's tree is never written
ks=$tmp/ksrc-src
printf 'CONFIG_X=y\n' >"$tmp/k612/.config"
ksrc_snapshot "$ks" "$tmp/k612" 2>"$tmp/err" && series_apply "$ks" 2>>"$tmp/err" && \
	[ "$(cat "$ks/include/a.h")" = "#define A 1" ] && [ ! -e "$ks/.config" ] && [ ! -e "$tmp/k612/.git" ] \
	&& pass ksrc_snapshot.made || bad ksrc_snapshot.made "$(cat "$tmp/err"); $(ls -a "$ks")"
tag1=$(lib_git "$ks" rev-parse pristine)
ksrc_snapshot "$ks" "$tmp/k612" && [ "$(lib_git "$ks" rev-parse pristine)" = "$tag1" ] && pass ksrc_snapshot.unchanged_keeps_tag \
	|| bad ksrc_snapshot.unchanged_keeps_tag "moved"
w_before=$(stat -c %Y.%y "$ks/mm/page-writeback.c")
sleep 1.1
printf 'int wb;\nint more;\n' >"$tmp/k612/mm/page-writeback.c"; printf '#define A 2\n' >"$tmp/k612/include/a.h"
ksrc_snapshot "$ks" "$tmp/k612" && series_apply "$ks" && [ "$(tail -1 "$ks/mm/page-writeback.c")" = "int more;" ] && \
	[ "$(lib_git "$ks" rev-parse pristine)" != "$tag1" ] && pass ksrc_snapshot.follows_the_tree || bad ksrc_snapshot.follows_the_tree "$(cat "$ks/mm/page-writeback.c")"
ksrc_snapshot "$ks" "$tmp/k612" && printf '#define A 1\n' >"$tmp/k612/include/a.h" && ksrc_snapshot "$ks" "$tmp/k612" && \
	series_apply "$ks" && [ "$(stat -c %Y.%y "$ks/mm/page-writeback.c")" != "$w_before" ] && \
	m=$(stat -c %Y.%y "$ks/mm/page-writeback.c") && sleep 1.1 && printf '#define A 3\n' >"$tmp/k612/include/a.h" && \
	ksrc_snapshot "$ks" "$tmp/k612" && series_apply "$ks" && [ "$(stat -c %Y.%y "$ks/mm/page-writeback.c")" = "$m" ] && \
	[ "$(cat "$ks/include/a.h")" = "#define A 3" ] && pass ksrc_snapshot.only_changed_files_written || bad ksrc_snapshot.only_changed_files_written "$(stat -c %y "$ks/mm/page-writeback.c")"

# ---- kernel.sh with KSRC: bad input is one line and exit 2, before anything builds ----
ks_kernel() { KSRC=$1 SERIES=${3:-} timeout 120 "$top/launch/kernel.sh" "$2" lab 2>&1; }
mktree "$tmp/k66" 6 6 5
for k in "not_a_tree:$tmp/notlinux:stock:kernel.sh: KSRC=$tmp/notlinux is not a Linux source tree" \
	"missing:$tmp/nosuch:stock:kernel.sh: KSRC=$tmp/nosuch: no such file or directory" \
	"no_port:$tmp/k66:patched:kernel.sh: the series has no port to Linux 6.6 (the tree is 6.6.5; no patches/6.6/series): give SERIES=FILE, or KERNEL=stock"; do
	IFS=: read -r name path kern want <<<"$k"
	s0=$(date +%s)
	out=$(ks_kernel "$path" "$kern"); rc=$?
	last=$(grep -v '^\[kernel' <<<"$out")
	[ $rc -eq 2 ] && [ "$(wc -l <<<"$last")" -eq 1 ] && [[ $last == "$want"* ]] && ! grep -q 'configure\|compile' <<<"$out" \
		&& pass "kernel_sh.ksrc_$name" || bad "kernel_sh.ksrc_$name" "rc=$rc '$out'"
done
# a series that does not apply to the tree: exit 2 naming the patch and the hunk's file
printf 'p2.patch\n' >"$tmp/p2.series"
out=$(ks_kernel "$tmp/k612" patched "$tmp/p2.series"); rc=$?
[ $rc -eq 2 ] && grep -q '^kernel.sh: p2.patch does not apply to pristine + the patches before it: ' <<<"$out" && \
	! grep -q 'configure\|compile' <<<"$out" && pass kernel_sh.ksrc_series_does_not_apply || bad kernel_sh.ksrc_series_does_not_apply "rc=$rc '$out'"
rm -rf "$(ksrc_root "$top" "$tmp/k612")" "$(ksrc_root "$top" "$tmp/k66")" "$(ksrc_root "$top" "$tmp/notlinux")"
rmdir "$top/build/ksrc" 2>/dev/null

# ---- fragment_wants: a later fragment's setting replaces an earlier one's ----
printf 'CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=64\n# a comment\n' >"$tmp/f1.config"
printf 'CONFIG_B=y\n# CONFIG_A is not set\n' >"$tmp/f2.config"
out=$(fragment_wants "$tmp/f1.config" "$tmp/f2.config")
[ "$out" = "# CONFIG_A is not set
CONFIG_B=y
CONFIG_C=64" ] && pass fragment_wants.last_wins || bad fragment_wants.last_wins "$out"
# The shipped variants: jumplabel.config turns on what lab.config turns off
# (before fragment_wants, kernel.sh read both and refused the jumplabel
# build: "CONFIG_JUMP_LABEL: fragment wants it off").
out=$(fragment_wants "$top/patches/lab.config" "$top/patches/jumplabel.config" | grep 'CONFIG_JUMP_LABEL[= ]')
[ "$out" = "CONFIG_JUMP_LABEL=y" ] && pass fragment_wants.jumplabel_variant || bad fragment_wants.jumplabel_variant "'$out'"
out=$(fragment_wants "$top/patches/lab.config" | grep 'CONFIG_JUMP_LABEL[= ]')
[ "$out" = "# CONFIG_JUMP_LABEL is not set" ] && pass fragment_wants.lab_variant || bad fragment_wants.lab_variant "'$out'"

# ---- wait_progress: the job's exit status, and the caller's progress line while it runs ----
stage() { echo "stage: $*"; }
(sleep 2.5; exit 3) &
# in this shell, not in $(...): only the job's own shell can wait for it
DPLAB_PROGRESS_EVERY=1 wait_progress $! echo "still building" >"$tmp/wp.out"; rc=$?
out=$(cat "$tmp/wp.out")
n=$(grep -c '^stage: still building$' <<<"$out")
[ $rc -eq 3 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] && pass wait_progress.status_and_lines ||
	bad wait_progress.status_and_lines "rc=$rc, $n lines: $out"
exit $fail
