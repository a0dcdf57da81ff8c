# Shell shared by the kernel scripts (kernel.sh, check-series.sh): the
# series file, the pristine source tree, and moving a tree to a series.
# Sourced, not run.  Functions print one line on stderr and return non-zero
# on failure; the caller decides how to die.

# git in a source tree, with an identity for the pristine commit
lib_git() { local src=$1; shift; git -C "$src" -c user.name=dplab -c user.email=dplab@localhost "$@"; }

# kernel_obj_dir TOP KERNEL VARIANT: where a kernel's objects and bzImage
# are (launch/collect.py kernel_obj_dir is the same rule for Python):
# build/<kernel>/obj for the lab variant, build/<kernel>/obj-<variant> else
kernel_obj_dir() {
	if [ "$3" = lab ]; then echo "$1/build/$2/obj"; else echo "$1/build/$2/obj-$3"; fi
}

# series_files TOP: the patches patches/series names, in order, one path a
# line.  Comments (#) and blank lines are skipped; a missing patch, the cover
# letter, or an empty series is an error.
series_files() {
	local top=$1 p n=0
	[ -f "$top/patches/series" ] || { echo "patches/series missing" >&2; return 1; }
	while read -r p; do
		p=${p%%#*}; p=$(echo "$p" | xargs)
		[ -n "$p" ] || continue
		case $p in 0000-cover-letter.patch)
			echo "patches/series names the cover letter $p: it is no patch, take it out of the series" >&2
			return 1 ;;
		esac
		[ -f "$top/patches/$p" ] || { echo "patches/series names $p, which does not exist" >&2; return 1; }
		echo "$top/patches/$p"
		n=$((n + 1))
	done <"$top/patches/series"
	[ $n -gt 0 ] || { echo "patches/series lists no patch" >&2; return 1; }
}

# pristine_tree SRC TARBALL: SRC as a git repository whose first commit,
# tagged pristine, is the tarball's tree (once; later calls return at once)
pristine_tree() {
	local src=$1 tarball=$2 tmp
	lib_git "$src" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1 && return 0
	tmp=$src.tmp
	rm -rf "$src" "$tmp"
	mkdir -p "$tmp"
	tar -xf "$tarball" -C "$tmp" || { echo "cannot extract $tarball" >&2; return 1; }
	mv "$tmp"/linux-source-* "$src" && rmdir "$tmp" || { echo "$tarball holds no linux-source-* tree" >&2; return 1; }
	{
		lib_git "$src" init -q &&
		lib_git "$src" config gc.auto 0 &&   # no background repacks of a 75k-file tree
		lib_git "$src" add -A -f &&          # -f: Debian's top-level .gitignore ignores everything
		lib_git "$src" commit -q -m "pristine $(basename "$tarball")" &&
		lib_git "$src" tag pristine
	} || { echo "cannot make the pristine git tree in $src" >&2; return 1; }
}

# series_apply SRC PATCH...: make SRC's work tree pristine + the patches,
# writing only the files whose content differs from what the tree holds now.
# kbuild rebuilds by mtime: re-applying the series from pristine rewrote
# every file it touches, headers included (vmstat.h, writeback.h), so a
# one-line change in one patch recompiled most of the kernel (873 objects
# for a documentation-only change).  The new tree is built in a scratch
# index, then `git read-tree -m -u` moves the work tree from the current
# state to it.  On a patch that does not apply, the tree is left as it was
# and the error names the patch.
series_apply() {
	local src=$1 f cur new idx
	shift
	idx=$(mktemp "${TMPDIR:-/tmp}/dplab-series-index.XXXXXX") || return 1
	GIT_INDEX_FILE=$idx lib_git "$src" read-tree pristine || { rm -f "$idx"; return 1; }
	for f in "$@"; do
		if ! GIT_INDEX_FILE=$idx lib_git "$src" apply --cached --whitespace=error-all "$f" 2>"$idx.err"; then
			echo "$(basename "$f") does not apply to pristine + the patches before it: $(head -3 "$idx.err" | tr '\n' ' ')" >&2
			rm -f "$idx" "$idx.err"
			return 1
		fi
	done
	new=$(GIT_INDEX_FILE=$idx lib_git "$src" write-tree)
	rm -f "$idx" "$idx.err"
	# the tree as it is now (the real index's stat cache makes this cheap)
	lib_git "$src" add -A -f && cur=$(lib_git "$src" write-tree) || return 1
	lib_git "$src" read-tree -m -u "$cur" "$new" || { echo "cannot move $src to the series' tree" >&2; return 1; }
}
