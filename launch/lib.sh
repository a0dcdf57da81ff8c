# Shell shared by the kernel scripts (kernel.sh, check-series.sh): the
# series file, the pristine source tree, and moving a tree to a series.
# Sourced, not run.  Functions print one line on stderr and return non-zero
# on failure; the caller decides how to die.

# git in a source tree, with an identity for the pristine commit
lib_git() { local src=$1; shift; git -C "$src" -c user.name=dplab -c user.email=dplab@localhost "$@"; }

# ---- KSRC: a kernel source of the user's (a tree or a tarball) -------------
# Without KSRC the lab builds Debian's linux-source-6.1 under build/.  With
# KSRC=PATH every kernel of that source is built under its own root,
# build/ksrc/<name>-<hash>, so trees and objects of different sources never
# meet: the hash is over the source's real path (and, for a tarball, its
# size and mtime: a new tarball at the same path is a new source).

# ksrc_check KSRC: "tree" or "tarball" on stdout, or one line on stderr and
# non-zero when KSRC is not a Linux source.  A tarball is looked into only
# as far as its first entries (the full listing of a compressed tree takes
# seconds); its tree is checked again once extracted (ksrc_tree_ok).
ksrc_check() {
	local k=$1 first
	if [ -d "$k" ]; then
		ksrc_tree_ok "$k" || return 1
		echo tree
	elif [ -f "$k" ]; then
		first=$(tar -tf "$k" 2>/dev/null | head -1) || true
		[ -n "$first" ] || { echo "KSRC=$k is neither a directory nor a tar archive" >&2; return 1; }
		echo tarball
	else
		echo "KSRC=$k: no such file or directory" >&2
		return 1
	fi
}

# ksrc_tree_ok DIR: DIR looks like a Linux source tree (the top Makefile's
# VERSION and PATCHLEVEL, and the file the series is about)
ksrc_tree_ok() {
	if ! grep -q '^VERSION = [0-9]' "$1/Makefile" 2>/dev/null || ! grep -q '^PATCHLEVEL = [0-9]' "$1/Makefile" ||
	   [ ! -f "$1/mm/page-writeback.c" ]; then
		echo "KSRC=$1 is not a Linux source tree (no top Makefile with VERSION and PATCHLEVEL, or no mm/page-writeback.c)" >&2
		return 1
	fi
}

# ksrc_version MAKEFILE: a tree's version from its top Makefile, 6.1.192
# (VERSION.PATCHLEVEL.SUBLEVEL; - reads it from stdin)
ksrc_version() {
	awk -F' = ' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 } $1 == "SUBLEVEL" { s = $2 }
		END { if (v != "" && p != "") print v "." p "." (s == "" ? 0 : s) }' "$1"
}

# ksrc_root TOP KSRC: the build root of that source
ksrc_root() {
	local real name id
	real=$(realpath -e -- "$2" 2>/dev/null) || { echo "KSRC=$2: no such file or directory" >&2; return 1; }
	name=$(basename "$real"); name=${name%.tar*}; name=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_')
	if [ -f "$real" ]; then id=$(stat -c '%n %s %Y' -- "$real"); else id=$real; fi
	echo "$1/build/ksrc/$name-$(printf '%s' "$id" | sha256sum | cut -c1-12)"
}

# kernel_root TOP: where the kernels of the current source are built:
# build/ for Debian's 6.1, ksrc_root for KSRC
kernel_root() {
	if [ -z "${KSRC:-}" ]; then echo "$1/build"; else ksrc_root "$1" "$KSRC"; fi
}

# ksrc_snapshot SRC TREE: make SRC's pristine tag TREE as it is now, without
# touching TREE: TREE's files go into SRC's object store through an index of
# SRC's own (its stat cache makes an unchanged tree cost seconds), and the
# tag moves only when the content changed.  What TREE's .gitignore files
# ignore is left out, and so is an in-tree build's configuration, which
# would make kbuild refuse the out-of-tree build.  series_apply then moves
# SRC's work tree to it, writing only the files that changed.
ksrc_snapshot() {
	local src=$1 tree=$2 t old c
	if [ ! -d "$src/.git" ]; then
		mkdir -p "$src" && lib_git "$src" init -q && lib_git "$src" config gc.auto 0 || return 1
	fi
	t=$(cd "$tree" && export GIT_DIR="$src/.git" GIT_WORK_TREE="$tree" GIT_INDEX_FILE="$src/.git/dplab-ksrc.index" &&
		git add -A -- . ':!.config' ':!include/config' ':!include/generated' ':!arch/*/include/generated' &&
		git write-tree) || { echo "cannot read KSRC=$tree into $src" >&2; return 1; }
	old=$(lib_git "$src" rev-parse -q --verify 'refs/tags/pristine^{tree}' 2>/dev/null) || true
	[ "$t" = "$old" ] && return 0
	c=$(echo "KSRC $tree" | lib_git "$src" commit-tree "$t") && lib_git "$src" tag -f pristine "$c" >/dev/null ||
		{ echo "cannot tag the snapshot of KSRC=$tree" >&2; return 1; }
}

# version_mm VERSION: its major.minor (6.12.118 -> 6.12), as patches/<mm>/ names a port
version_mm() { echo "$1" | cut -d. -f1-2; }

# series_for TOP VERSION [SERIES]: the series file for a tree of VERSION:
# SERIES when given, else patches/series for 6.1 (the series' base) or
# patches/<major.minor>/series for a port; one line and non-zero when there
# is none
series_for() {
	local top=$1 ver=$2 want=${3:-} mm
	mm=$(version_mm "$ver")
	if [ -n "$want" ]; then
		[ -f "$want" ] || { echo "SERIES=$want: no such file" >&2; return 1; }
		realpath -- "$want"
	elif [ "$mm" = 6.1 ]; then
		echo "$top/patches/series"
	elif [ -f "$top/patches/$mm/series" ]; then
		echo "$top/patches/$mm/series"
	else
		echo "the series has no port to Linux $mm (the tree is $ver; no patches/$mm/series): give SERIES=FILE, or KERNEL=stock" >&2
		return 1
	fi
}

# patchset_hash PATCH...: KCIDB's patchset_hash: sha256 over the patches'
# sha256 sums, each followed by a newline, in order ("" for no patch)
patchset_hash() {
	[ $# -gt 0 ] || { echo ""; return 0; }
	local f
	for f in "$@"; do sha256sum <"$f" | cut -d' ' -f1; done | sha256sum | cut -d' ' -f1
}

# fragment_wants FRAGMENT...: the settings the config fragments ask for, one
# line per option ("CONFIG_X=v" or "# CONFIG_X is not set"), a later
# fragment's setting replacing an earlier one's, as merge_config.sh merges
# them (jumplabel.config turns on what lab.config turns off).
fragment_wants() {
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1=\2/p' \
		-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/# \1 is not set/p' "$@" |
		awk '{ o = ($1 == "#") ? $2 : substr($0, 1, index($0, "=") - 1)
		       if (!(o in want)) order[n++] = o
		       want[o] = $0 }
		     END { for (i = 0; i < n; i++) print want[order[i]] }'
}

# kernel_obj_dir TOP KERNEL VARIANT: where a kernel's objects and bzImage
# are (launch/collect.py kernel_obj_dir is the same rule for Python):
# <root>/<kernel>/obj for the lab variant, <root>/<kernel>/obj-<variant>
# else, <root> being kernel_root's
kernel_obj_dir() {
	local root
	root=$(kernel_root "$1") || return 1
	if [ "$3" = lab ]; then echo "$root/$2/obj"; else echo "$root/$2/obj-$3"; fi
}

# series_files TOP [SERIESFILE]: the patches a series file names (default
# patches/series), in order, one path a line; names are relative to the
# series file's directory.  Comments (#) and blank lines are skipped; a
# missing patch, the cover letter, or an empty series is an error.
series_files() {
	local top=$1 file=${2:-$1/patches/series} p n=0 dir name
	dir=$(dirname "$file")
	name=${file#"$top"/}
	[ -f "$file" ] || { echo "$name missing" >&2; return 1; }
	while read -r p; do
		p=${p%%#*}; p=$(echo "$p" | xargs)
		[ -n "$p" ] || continue
		case $p in 0000-cover-letter.patch)
			echo "$name names the cover letter $p: it is no patch, take it out of the series" >&2
			return 1 ;;
		esac
		[ -f "$dir/$p" ] || { echo "$name names $p, which does not exist" >&2; return 1; }
		echo "$dir/$p"
		n=$((n + 1))
	done <"$file"
	[ $n -gt 0 ] || { echo "$name lists no patch" >&2; return 1; }
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
	# the tarball's one top directory (linux-source-6.1, linux-6.12.5, ...)
	set -- "$tmp"/*
	[ $# -eq 1 ] && [ -d "$1" ] && mv "$1" "$src" && rmdir "$tmp" ||
		{ echo "$tarball does not hold one top directory" >&2; rm -rf "$tmp"; return 1; }
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
	local src=$1 f cur new idx hunk
	shift
	idx=$(mktemp "${TMPDIR:-/tmp}/dplab-series-index.XXXXXX") || return 1
	GIT_INDEX_FILE=$idx lib_git "$src" read-tree pristine || { rm -f "$idx"; return 1; }
	for f in "$@"; do
		if ! GIT_INDEX_FILE=$idx lib_git "$src" apply --cached --whitespace=error-all "$f" 2>"$idx.err"; then
			# git names the first hunk that failed: "error: patch failed: mm/vmscan.c:2760"
			hunk=$(sed -n 's/^error: patch failed: //p' "$idx.err" | head -1)
			echo "$(basename "$f") does not apply to pristine + the patches before it: ${hunk:+first failing hunk in $hunk; }$(head -3 "$idx.err" | tr '\n' ' ')" >&2
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

# wait_progress PID COMMAND...: wait for the background job PID and return
# its exit status; every DPLAB_PROGRESS_EVERY seconds (30) while it runs,
# the caller's stage() prints what COMMAND prints (a build's progress line).
wait_progress() {
	local pid=$1 every=${DPLAB_PROGRESS_EVERY:-30} _
	shift
	while kill -0 "$pid" 2>/dev/null; do
		for _ in $(seq "$every"); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
		kill -0 "$pid" 2>/dev/null && stage "$("$@")"
	done
	wait "$pid"
}
