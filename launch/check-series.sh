#!/bin/bash
# Check the kernel series before sending it: launch/check-series.sh [--quick]
#
#   apply       patches/series applies to pristine linux-source-6.1 with
#               git apply --whitespace=error-all (as `make kernel` does)
#   checkpatch  scripts/checkpatch.pl --strict on every patch: 0 errors,
#               0 warnings, 0 checks
#   numbering   each patch's Subject is [PATCH i/n] in series order
#   cover       0000-cover-letter.patch beside the series file, if present, is not in
#               the series (not applied: it has no diff), is checkpatch
#               --strict clean like the patches, announces [PATCH 0/n],
#               lists every patch's subject in order and carries the
#               series' diffstat summary line
#   docs        the .rst files the series touches, built by the kernel's
#               sphinx (SPHINXDIRS=their directories): HTML written, no
#               warning naming them
#   build       the objects the series touches, compiled (not linked):
#                 lab     tinyconfig + patches/lab.config + kunit.config,
#                         after each patch in turn (each must build alone)
#                 W=1     the same objects with W=1, series vs pristine:
#                         no new warnings
#                 statics no new .data/.bss object of 4 KiB or more in
#                         them (an array sized by MAX_NUMNODES)
#                 numa-off, debugfs-off, memcg-off, lru-gen-off
#                         the lab config with that option disabled
#                 i386    i386 defconfig + DEBUG_FS, KUNIT, the suite;
#                         the global pressure cache one word there
#
# One "PASS: name" or "FAIL: name: why" line per item (tests/run format);
# exits 1 if anything failed.  --quick does apply, checkpatch, numbering and
# cover only (~30 s).
#
# Works in its own scratch tree, build/check-series/ (source linux/ as a git
# repository tagged pristine, one objdir per config), so it never disturbs
# `make kernel`.  Measured on 2 shared cores: first run ~7 min (1.5 min to
# extract the tree, then six objdirs to configure and prepare), later runs
# 4-5 min (ccache, objdirs kept).  JOBS=N sets make's -j (default 2).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/launch/lib.sh"
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
jobs=${JOBS:-2}
quick=0
case ${1:-} in
--quick) quick=1 ;;
"") ;;
-h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
*) echo "check-series.sh: unknown argument '$1' (usage: check-series.sh [--quick])" >&2; exit 2 ;;
esac

# KSRC=PATH (a tree or a tarball, as for launch/kernel.sh): check the series
# (SERIES=, or the one for the tree's version) against that source, in its
# own build root (lib.sh kernel_root); bad input is one line and exit 2.
ksrc=${KSRC:-} kind=debian
if [ -n "$ksrc" ]; then
	kind=$(ksrc_check "$ksrc" 2>&1) || { echo "check-series.sh: $kind" >&2; exit 2; }
	[ "$kind" = tarball ] && tarball=$(realpath -- "$ksrc")
fi
work=$(kernel_root "$top")/check-series
src=$work/linux
logs=$work/logs
mkdir -p "$work" "$logs"
exec 9>"$work/.lock"
flock 9

# checkpatch's SPDX check needs python3 with ply and git (Debian's
# python3-ply, python3-git); prefer the system python over any shim.
export PATH=/usr/bin:$PATH

failed=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; failed=1; }
g() { git -C "$src" -c user.name=dplab -c user.email=dplab@localhost "$@"; }

[ "$kind" = tree ] || [ -r "$tarball" ] || { fail setup "$tarball missing (Debian package linux-source-6.1)"; exit 1; }

# Pristine source as a git repository: a tarball once, a tree every time.
if [ "$kind" = tree ]; then
	ksrc_snapshot "$src" "$(realpath -- "$ksrc")" 2>"$logs/extract.log" || { fail setup "$(cat "$logs/extract.log")"; exit 1; }
elif ! g rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	echo "# extracting $(basename "$tarball") into ${work#"$top"/} (once, ~2 min)" >&2
	pristine_tree "$src" "$tarball" 2>"$logs/extract.log" || { fail setup "$(cat "$logs/extract.log")"; exit 1; }
fi
version=$(g show pristine:Makefile | ksrc_version -)
series_file=$(series_for "$top" "$version" "${SERIES:-}" 2>&1) || { echo "check-series.sh: $series_file" >&2; exit 2; }
list=$(series_files "$top" "$series_file" 2>"$logs/series.log") || { fail setup "$(cat "$logs/series.log")"; exit 1; }
mapfile -t patches <<<"$list"

to_pristine() { g reset -q --hard pristine && g clean -q -fdx; }

# --- apply
to_pristine
ok=1
for p in "${patches[@]}"; do
	if ! g apply --whitespace=error-all "$p" 2>"$logs/apply.log"; then
		fail "apply: $(basename "$p")" "$(head -3 "$logs/apply.log" | tr '\n' ' ')"
		ok=0
		break
	fi
done
[ $ok = 1 ] && pass "apply: ${#patches[@]} patches apply to pristine $version without fuzz"

# --- checkpatch (the cover letter too: it is mailed with the series; no
# summary with "0 lines checked" counts as a pass)
# the cover letter beside the series file: patches/ for 6.1, patches/<ver>/ for a port
cover=$(dirname "$series_file")/0000-cover-letter.patch
checked=("${patches[@]}")
[ -f "$cover" ] && checked+=("$cover")
for p in "${checked[@]}"; do
	n=$(basename "$p")
	# Patch mode checks only the lines of a diff, so the cover letter (no
	# diff: "0 lines checked") is read as a file (-f).  The patches are
	# checked both ways: checkpatch also reads any path git tracks as a
	# file, as it does run on patches/*.patch from the top of this repo,
	# where a blank context line ' ' or a '-- ' signature is trailing
	# whitespace (the series is made with diff.suppressBlankEmpty and
	# --no-signature).
	if [ "$p" = "$cover" ]; then
		out=$(cd "$src" && scripts/checkpatch.pl --strict -f "$p" 2>&1)
	else
		out=$(cd "$src" && scripts/checkpatch.pl --strict "$p" 2>&1)
		asfile=$(cd "$src" && scripts/checkpatch.pl --strict -f "$p" 2>&1)
		tot=$(echo "$asfile" | grep -E '^total: ' | tail -1)
		if ! echo "$tot" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
			out="$asfile"$'\n'"total: read as a file (as for a path git tracks): ${tot#total: }"
		fi
	fi
	tot=$(echo "$out" | grep -E '^total: ' | tail -1)
	if echo "$out" | grep -q 'Traceback\|ModuleNotFoundError'; then
		fail "checkpatch: $n" "checkpatch's helpers crashed (python3-ply, python3-git installed?)"
	elif [ "$tot" = "" ]; then
		fail "checkpatch: $n" "no summary line from checkpatch"
	elif echo "$tot" | grep -q ', 0 lines checked'; then
		fail "checkpatch: $n" "checkpatch read no lines of it: $tot"
	elif echo "$tot" | grep -q '^total: 0 errors, 0 warnings, 0 checks'; then
		pass "checkpatch: $n"
	else
		echo "$out" >"$logs/checkpatch-$n.log"
		fail "checkpatch: $n" "$tot (log: ${logs#"$top"/}/checkpatch-$n.log)"
	fi
done

# --- numbering and cover letter
# subject FILE: the Subject header, continuation lines unfolded
subject() {
	awk '/^Subject: / { s = substr($0, 10); on = 1; next }
	     on && /^[ \t]/ { s = s $0; next }
	     on { print s; exit }' "$1"
}
n=${#patches[@]}
i=0 bad=
for p in "${patches[@]}"; do
	i=$((i + 1))
	case $(subject "$p") in
	"[PATCH $i/$n] "*) ;;
	*) bad="$bad $(basename "$p")" ;;
	esac
done
[ -z "$bad" ] && pass "numbering: [PATCH i/$n] in series order" ||
	fail numbering "not [PATCH i/$n] in series order:$bad"
if [ -f "$cover" ]; then
	want=$(for p in "${patches[@]}"; do subject "$p" | sed 's/^\[PATCH [0-9]*\/[0-9]*\] //'; done)
	# the shortlog: "Author (n):" and its indented subject lines
	got=$(awk '/^[^ ].* \([0-9]+\):$/ { on = 1; next }
		   on && /^  [^ ]/ { if (e != "") print e; e = substr($0, 3); next }
		   on && /^    [^ ]/ { sub(/^ +/, ""); e = e " " $0; next }
		   on { if (e != "") print e; exit }' "$cover")
	stat=""
	if [ $ok = 1 ]; then
		# the series is applied (apply step above): its diffstat summary
		g add -A -f && stat=$(g diff --cached --shortstat pristine)
	fi
	cstat=$(grep -E '^ [0-9]+ files? changed' "$cover")
	if [[ $(subject "$cover") != "[PATCH 0/$n] "* ]]; then
		fail cover "Subject is not [PATCH 0/$n] ...: $(subject "$cover")"
	elif [ "$got" != "$want" ]; then
		fail cover "its shortlog is not the series' subjects in order: $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -2 | tr '\n' ' ')"
	elif [ $ok = 1 ] && [ "$cstat" != "$stat" ]; then
		fail cover "diffstat summary '${cstat# }' but the series makes '${stat# }'"
	else
		pass "cover: 0000-cover-letter.patch announces the $n patches of the series"
	fi
fi

[ $quick = 1 ] && exit $failed
[ $ok = 1 ] || { fail build "skipped: the series does not apply"; exit 1; }

# --- builds
# Objects to compile: every .c the series touches, plus fs/fs-writeback.c,
# which instantiates the writeback trace events.
mapfile -t srcs < <(cat "${patches[@]}" | sed -n 's@^+++ b/\(.*\.c\)$@\1@p' | sort -u)
srcs+=(fs/fs-writeback.c)
mapfile -t srcs < <(printf '%s\n' "${srcs[@]}" | sort -u)

kmake() { # arch objdir args...
	local arch=$1 obj=$2; shift 2
	make -C "$src" O="$obj" ARCH="$arch" CC="ccache gcc" HOSTCC="ccache gcc" -j"$jobs" "$@"
}

# objs objdir: the objects whose source exists and that the config builds
objs() {
	local obj=$1 c o
	for c in "${srcs[@]}"; do
		[ -f "$src/$c" ] || continue
		o=${c%.c}.o
		# a .c that another .c of its directory #includes (the KUnit
		# suites of static functions) is compiled through that one
		grep -qs "^#include \"${c##*/}\"" "$src/${c%/*}"/*.c && continue
		# the suite's object is only built with its option
		if [ "$c" = mm/dirty_pressure_test.c ] &&
		   ! grep -q '^CONFIG_DIRTY_PRESSURE_KUNIT_TEST=y' "$obj/.config"; then
			continue
		fi
		echo "$o"
	done
}

# configure name arch: objdir build/check-series/obj-<name> from the lab
# fragments (or i386 defconfig) and that variant's changes; checks them.
configure() {
	local name=$1 arch=$2 obj=$work/obj-$1 opt
	local want=()
	mkdir -p "$obj"
	{
		if [ "$arch" = i386 ]; then
			kmake i386 "$obj" defconfig &&
			"$src/scripts/config" --file "$obj/.config" -e DEBUG_FS -e KUNIT \
				-e DIRTY_PRESSURE_KUNIT_TEST
			want=(CONFIG_DEBUG_FS=y CONFIG_KUNIT=y CONFIG_DIRTY_PRESSURE_KUNIT_TEST=y)
		else
			kmake "$arch" "$obj" tinyconfig &&
			"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
				"$top/patches/lab.config" "$top/patches/kunit.config"
		fi
	} >"$logs/config-$name.log" 2>&1 || return 1
	case $name in
	numa-off)	opt=NUMA ;;
	debugfs-off)	opt=DEBUG_FS ;;
	memcg-off)	opt=MEMCG ;;
	lru-gen-off)	opt=LRU_GEN ;;
	*)		opt= ;;
	esac
	[ -n "$opt" ] && "$src/scripts/config" --file "$obj/.config" -d "$opt"
	kmake "$arch" "$obj" olddefconfig >>"$logs/config-$name.log" 2>&1 || return 1
	if [ -n "$opt" ] && grep -q "^CONFIG_$opt=y" "$obj/.config"; then
		echo "CONFIG_$opt is still set (selected by another option)" >>"$logs/config-$name.log"
		return 1
	fi
	for w in "${want[@]}"; do
		grep -qx "$w" "$obj/.config" ||
			{ echo "$w missing from .config" >>"$logs/config-$name.log"; return 1; }
	done
	kmake "$arch" "$obj" prepare >>"$logs/config-$name.log" 2>&1
}

# build name arch [W=1]: compile objs; output kept in logs/build-<name>.log
build() {
	local name=$1 arch=$2; shift 2
	local obj=$work/obj-${name%%@*}
	# shellcheck disable=SC2046
	kmake "$arch" "$obj" "$@" $(objs "$obj") >"$logs/build-$name.log" 2>&1
}

# big_statics objdir: "object symbol bytes" for each static (.data or
# .bss) object of 4 KiB or more in the objects built there.  The lab config
# has NODES_SHIFT=10 as Debian does, so an array per possible node id
# (MAX_NUMNODES) of even 4 bytes shows here.
big_statics() {
	local obj=$1 o
	for o in $(objs "$obj"); do
		[ -f "$obj/$o" ] || continue
		nm -S -t d "$obj/$o" | awk -v o="$o" \
			'NF == 4 && $3 ~ /^[bBdD]$/ && $2 + 0 >= 4096 { print o, $4, $2 + 0 }'
	done | sort
}

# warnings from a build log, without line/column numbers, one per line
warnings() {
	grep -E '^[^ ]+:[0-9]+:[0-9]+: warning:' "$1" | sed -E 's/:[0-9]+:[0-9]+:/:/' | sort
}

why() { # a short reason from a log
	local e
	e=$(grep -m1 -E 'error:|Error [0-9]|\*\*\*' "$1" | cut -c1-160)
	e=${e:-see $1}
	echo "${e//$top\//}"
}

# --- docs: the series' documents through the kernel's own sphinx build of
# their directories (SPHINXDIRS, about 1 min), with no warning or error
# naming a file the series touches.  Warnings elsewhere in a directory
# (references out of the SPHINXDIRS subset) are stock 6.1's and not counted.
mapfile -t docs < <(cat "${patches[@]}" | sed -n 's@^+++ b/Documentation/\(.*\.rst\)$@\1@p' | sort -u)
if [ ${#docs[@]} -eq 0 ]; then
	pass "docs: the series touches no .rst file"
elif ! command -v sphinx-build >/dev/null; then
	fail docs "sphinx-build not found (Debian: $(echo python3-sphinx python3-sphinx-rtd-theme); make check-series installs them)"
else
	dirs=$(printf '%s\n' "${docs[@]}" | xargs -n1 dirname | sort -u | tr '\n' ' ')
	rm -rf "$work/obj-docs"
	if make -C "$src" O="$work/obj-docs" SPHINXDIRS="${dirs% }" htmldocs >"$logs/docs.log" 2>&1; then
		mine=$(grep -E 'WARNING|ERROR|SEVERE' "$logs/docs.log" |
			grep -F "$(printf 'Documentation/%s\n' "${docs[@]}")")
		missing=
		for d in "${docs[@]}"; do
			[ -f "$work/obj-docs/Documentation/output/${d%.rst}.html" ] || missing="$missing $d"
		done
		if [ -n "$mine" ]; then
			fail docs "$(echo "$mine" | wc -l) sphinx warning(s), first: $(echo "$mine" | head -1 | sed "s@$src/@@")"
		elif [ -n "$missing" ]; then
			fail docs "no HTML written for:$missing (log: ${logs#"$top"/}/docs.log)"
		else
			pass "docs: ${docs[*]} build with sphinx, no warning of their own"
		fi
	else
		fail docs "sphinx build failed: $(why "$logs/docs.log")"
	fi
fi

# lab config: W=1 baseline at pristine, then each patch in turn, then W=1.
to_pristine
if configure lab x86_64; then
	build lab@w1-pristine x86_64 W=1 || true
	warnings "$logs/build-lab@w1-pristine.log" >"$logs/w1-pristine.txt"
	big_statics "$work/obj-lab" >"$logs/statics-pristine.txt"
	i=0
	for p in "${patches[@]}"; do
		i=$((i + 1))
		g apply "$p"
		# a new Kconfig option (the KUnit suite's) needs the fragments again
		if grep -q '^+++ b/.*Kconfig' "$p" && ! configure lab x86_64; then
			fail "build: lab config after $(basename "$p")" "reconfiguration failed: $(why "$logs/config-lab.log")"
			continue
		fi
		if build "lab@$i" x86_64; then
			pass "build: lab config after $(basename "$p")"
		else
			fail "build: lab config after $(basename "$p")" "$(why "$logs/build-lab@$i.log")"
		fi
	done
	if build lab@w1 x86_64 W=1; then
		warnings "$logs/build-lab@w1.log" >"$logs/w1-series.txt"
		new=$(comm -13 "$logs/w1-pristine.txt" "$logs/w1-series.txt")
		if [ -z "$new" ]; then
			pass "build: W=1 adds no warnings in $(objs "$work/obj-lab" | wc -l) touched objects"
		else
			fail "build: W=1" "$(echo "$new" | wc -l) new warning(s), first: $(echo "$new" | head -1)"
		fi
	else
		fail "build: W=1" "$(why "$logs/build-lab@w1.log")"
	fi
	# what a machine pays for the series whatever its node count
	big_statics "$work/obj-lab" >"$logs/statics-series.txt"
	new=$(comm -13 "$logs/statics-pristine.txt" "$logs/statics-series.txt")
	if [ -z "$new" ]; then
		pass "build: no new static object of 4 KiB or more (NODES_SHIFT=$(sed -n 's/^CONFIG_NODES_SHIFT=//p' "$work/obj-lab/.config"))"
	else
		fail "build: static data" "$(echo "$new" | wc -l) new static object(s) of 4 KiB or more, first: $(echo "$new" | head -1) bytes"
	fi
else
	fail "build: lab config" "configuration failed: $(why "$logs/config-lab.log")"
fi

# i386_global_cache object: the effective pressure's per-jiffy cache is read
# on every balance_dirty_pages() call in mode global.  On i386 an atomic64_t
# read is a locked cmpxchg8b, a write to a line every dirtier reads; one
# word (an atomic_long_t) is a plain load.
i386_global_cache() {
	local size
	size=$(nm -S -t d "$1" 2>/dev/null | awk '$4 == "dp_global_cache" { print $2 + 0 }')
	if [ "$size" = 4 ]; then
		pass "build: i386: dp_global_cache is one word (a plain load)"
	else
		fail "build: i386: dp_global_cache" "${size:-no} bytes in ${1#$top/}, not one 4-byte word: its reads are locked cmpxchg8b"
	fi
}

# The variants build the whole series.
for v in numa-off:x86_64 debugfs-off:x86_64 memcg-off:x86_64 lru-gen-off:x86_64 i386:i386; do
	name=${v%%:*} arch=${v##*:}
	if ! configure "$name" "$arch"; then
		fail "build: $name" "configuration failed: $(why "$logs/config-$name.log")"
	elif build "$name" "$arch"; then
		pass "build: $name ($(objs "$work/obj-$name" | wc -l) objects)"
		[ "$arch" = i386 ] && i386_global_cache "$work/obj-$name/mm/dirty_pressure.o"
	else
		fail "build: $name" "$(why "$logs/build-$name.log")"
	fi
done

exit $failed
