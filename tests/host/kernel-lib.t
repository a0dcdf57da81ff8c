#!/bin/bash
# launch/lib.sh, the shell the kernel scripts share, on a toy source tree
# (a tarball of three files, patches made with git): the series file's
# errors, the pristine tree made once, and series_apply writing only the
# files whose content changes (a header the series touches keeps its mtime
# when another patch changes: kbuild rebuilds by mtime).
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/launch/lib.sh"
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1: $2"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

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
exit $fail
