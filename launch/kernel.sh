#!/bin/bash
# Build the guest kernel.
# Usage: launch/kernel.sh [patched|stock] [lab|xfs|jumplabel|debug|kcsan] [--config-only]
#        launch/kernel.sh --variants   (print the variants, one line)
#
#   build/<kernel>/linux/         source: linux-source-6.1 as a git repo whose
#                                 first commit is the pristine tarball, with
#                                 patches/series applied on top (patched only)
#   build/<kernel>/obj[-variant]/ objects, .config, bzImage, build.log,
#                                 kernel-source.json (what was built: below)
#
# KSRC=PATH builds the user's source instead, a tree or a tarball, under
# build/ksrc/<name>-<hash>/<kernel>/ (launch/lib.sh ksrc_root): a tree is
# read into that root's git repository as its pristine commit each time
# (only changed files are rewritten, so a rebuild after editing one file is
# incremental), a tarball is extracted once.  KERNEL=patched applies
# SERIES= (a series file) or the series for the tree's version
# (lib.sh series_for).  Bad input (not a kernel source, no port for that
# version, a series that does not apply) is one line and exit 2, before
# anything is configured or compiled.
#
# Both kernels sit at the same depth under the same names, so the compiler
# sees identical relative paths (../linux/mm/...) and ccache serves the stock
# objects to the patched build for every file the series does not touch.
#
# Changing a patch re-applies the series from pristine in a scratch index and
# moves the tree to the result writing only the files whose content changed
# (launch/lib.sh series_apply), so kbuild recompiles only what the change
# touches.  Objects go through ccache.  One line per stage; the compiler's error
# is printed on failure.  A lock per kernel (build/<kernel>/.lock) serializes
# builds of the same kernel.
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/launch/lib.sh"
# The variants this script builds: lab alone, or lab plus patches/<variant>.config.
# run.py asks for them (--variants) to refuse a bad VARIANT before any build.
# xfs is the lab kernel with XFS, which run.py boots for a topology whose
# disk is XFS (launch/dplab/contract.py build_variant); jumplabel has static
# keys patched in, for the cost bench (see patches/lab.config).
variants=(lab xfs jumplabel debug kcsan)
config_only=0
args=()
for a in "$@"; do
	case $a in
	--config-only) config_only=1;;
	--variants) echo "${variants[*]}"; exit 0;;
	*) args+=("$a");;
	esac
done
kernel=${args[0]:-patched}
variant=${args[1]:-lab}
tarball=${LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}

case $kernel in patched|stock) ;; *) echo "kernel.sh: KERNEL must be patched or stock, not '$kernel'" >&2; exit 2;; esac
known=0
for v in "${variants[@]}"; do [ "$v" = "$variant" ] && known=1; done
[ $known -eq 1 ] || { echo "kernel.sh: VARIANT must be $(sed 's/ /, /g; s/\(.*\), /\1 or /' <<<"${variants[*]}"), not '$variant'" >&2; exit 2; }
ksrc=${KSRC:-}
if [ -n "$ksrc" ]; then
	kind=$(ksrc_check "$ksrc" 2>&1) || { echo "kernel.sh: $kind" >&2; exit 2; }
	[ "$kind" = tarball ] && tarball=$(realpath -- "$ksrc")
else
	kind=debian
	[ -r "$tarball" ] || { echo "kernel.sh: $tarball missing: run 'make deps' (Debian package linux-source-6.1)" >&2; exit 2; }
fi
root=$(kernel_root "$top")
src=$root/$kernel/linux
obj=$(kernel_obj_dir "$top" "$kernel" "$variant")
log=$obj/build.log
mkdir -p "$obj"
# One build of a kernel at a time (its variants share the source tree); the
# stock and the patched kernels share nothing but ccache, and build at once.
exec 9>"$root/$kernel/.lock"
flock 9

t0=$(date +%s)
stage() { printf '[kernel %s/%s %4ss] %s\n' "$kernel" "$variant" "$(( $(date +%s) - t0 ))" "$*"; }
die() { stage "FAILED: $*"; exit 1; }

# 1. Pristine source as a git repository: a tarball once, a tree every time
#    (ksrc_snapshot: seconds when nothing changed).
if [ "$kind" = tree ]; then
	ksrc_snapshot "$src" "$(realpath -- "$ksrc")" 2>"$obj/extract.log" || die "$(cat "$obj/extract.log")"
elif ! lib_git "$src" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	stage "extract $(basename "$tarball")"
	pristine_tree "$src" "$tarball" 2>"$obj/extract.log" || die "$(cat "$obj/extract.log")"
	if [ "$kind" = tarball ] && ! ksrc_tree_ok "$src" 2>"$obj/extract.log"; then
		rm -rf "$src"
		echo "kernel.sh: $(sed "s|KSRC=$src|KSRC=$ksrc (extracted)|" "$obj/extract.log")" >&2
		exit 2
	fi
fi
# (from the pristine commit: a tree's work tree is written only by series_apply below)
version=$(lib_git "$src" show pristine:Makefile | ksrc_version -)
[ -n "$version" ] || die "no VERSION and PATCHLEVEL in the pristine tree's Makefile"

# build/linux: the patched source of Debian's 6.1, where tools expect a kernel tree.
[ "$kernel" = patched ] && [ "$kind" = debian ] && ln -sfn patched/linux "$top/build/linux"

# 2. The series.  Stamp = the pristine commit and the content of every patch in order.
series_files=() series_file=
if [ "$kernel" = patched ] && { [ -n "$ksrc" ] || [ -n "${SERIES:-}" ] || [ -f "$top/patches/series" ]; }; then
	series_file=$(series_for "$top" "$version" "${SERIES:-}" 2>&1) || { echo "kernel.sh: $series_file" >&2; exit 2; }
	list=$(series_files "$top" "$series_file" 2>&1) || { echo "kernel.sh: $list" >&2; exit 2; }
	mapfile -t series_files <<<"$list"
fi
stamp=$( (echo "$kernel"; lib_git "$src" rev-parse pristine; for f in "${series_files[@]}"; do basename "$f"; cat "$f"; done) |
	sha256sum | cut -c1-16)
if [ "$(cat "$src/.dplab-series" 2>/dev/null)" != "$stamp" ]; then
	stage "apply ${#series_files[@]} patches${series_file:+ from ${series_file#"$top"/}}${ksrc:+ to KSRC $version}"
	rm -f "$src/.dplab-series"
	if ! series_apply "$src" "${series_files[@]}" 2>"$obj/apply.log"; then
		# the user's tree or series is bad input; the lab's own series failing is the lab's
		[ -n "$ksrc${SERIES:-}" ] && { echo "kernel.sh: $(cat "$obj/apply.log")" >&2; exit 2; }
		die "$(cat "$obj/apply.log")"
	fi
	echo "$stamp" >"$src/.dplab-series"
	stage "applied: $(lib_git "$src" diff --name-only pristine | wc -l) files differ from pristine"
fi

# 3. Configuration: tinyconfig + fragments, via merge_config.sh.
frags=("$top/patches/lab.config")
# A version's own options (patches/<major.minor>/lab.config), for the
# patched and the stock kernel alike: 6.12 builds cgroup v1's cpuset, which
# vmstat-cpuset mounts, only with CPUSETS_V1, an option 6.1 does not have.
mm=$(version_mm "$version")
[ "$mm" != 6.1 ] && [ -f "$top/patches/$mm/lab.config" ] && frags+=("$top/patches/$mm/lab.config")
[ "$kernel" = patched ] && [ -f "$top/patches/kunit.config" ] && frags+=("$top/patches/kunit.config")
[ "$variant" != lab ] && frags+=("$top/patches/$variant.config")
for f in "${frags[@]}"; do [ -f "$f" ] || die "config fragment $f missing"; done
kmake() { make -C "$src" O="$obj" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
# The xfs variant starts from a copy of the lab build when it has none of its
# own: its objects sit at the same depth and name the source by absolute
# paths and the generated headers by relative ones, so kbuild's per-option
# dependencies then recompile only fs/xfs and what XFS's options touch
# (minutes, not a cold build).
[ "$variant" = xfs ] && lab_obj=$(kernel_obj_dir "$top" "$kernel" lab)
if [ "$variant" = xfs ] && [ ! -f "$obj/.config" ] && [ -f "$lab_obj/.dplab-built" ]; then
	stage "seed ${obj#$top/} from ${lab_obj#$top/}"
	cp -a --reflink=auto "$lab_obj/." "$obj/"
	rm -f "$obj/.dplab-config" "$obj/.dplab-built" "$obj/build.log"
	# objtool's own build (tools/objtool) records commands with absolute
	# output paths: left as they are, it relinks, and every object that
	# objtool checks then recompiles (a cold build, since the .config differs).
	grep -rlF "$lab_obj/" "$obj/tools" --include='.*.cmd' --include='*.d' 2>/dev/null |
		xargs -r sed -i "s|$lab_obj/|$obj/|g"
fi
# What the configuration depends on: the fragments and what the series does
# to Kconfig files (a patch touching only C or documentation needs no new
# configuration: 23 s saved per rebuild)
cstamp=$( (cat "${frags[@]}"; lib_git "$src" diff HEAD -- ':(glob)**/Kconfig*') | sha256sum | cut -c1-16)
if [ "$(cat "$obj/.dplab-config" 2>/dev/null)" != "$cstamp" ] || [ ! -f "$obj/.config" ]; then
	stage "configure: tinyconfig + ${frags[*]##*/}"
	rm -f "$obj/.dplab-config"
	{
		kmake tinyconfig &&
		KCONFIG_CONFIG="$obj/.config" "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" &&
		kmake olddefconfig
	} >"$obj/config.log" 2>&1 || { tail -20 "$obj/config.log"; die "configuration"; }
	# Every option the fragments ask for (the last one's word on it) must
	# survive olddefconfig.
	missing=$(fragment_wants "${frags[@]}" |
		while IFS= read -r want; do
			case $want in
			"# "*) opt=${want#\# }; opt=${opt%% *}
				if grep -q "^$opt=" "$obj/.config"; then echo "  $opt: fragment wants it off, .config has $(grep "^$opt=" "$obj/.config")"; fi ;;
			*) grep -qxF "$want" "$obj/.config" || echo "  ${want%%=*}: fragment wants ${want#*=}, .config has $(grep -E "^(# )?${want%%=*}[= ]" "$obj/.config" || echo nothing)" ;;
			esac
		done)
	[ -z "$missing" ] || { echo "$missing"; die "options the fragments ask for are missing from .config"; }
	echo "$cstamp" >"$obj/.dplab-config"
fi

# What this build is, for result.json's kernel_source (run.py keeps a copy
# in each run's OUT): the source (Debian's package and version, or the
# user's tree with git describe and commit, or tarball), the series file,
# its patches and their KCIDB patchset_hash, and the config fragments.
describe= commit=
if [ "$kind" = tree ] && git -C "$ksrc" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	describe=$(git -C "$ksrc" describe --always --dirty --tags 2>/dev/null || true)
	commit=$(git -C "$ksrc" rev-parse HEAD)
fi
KIND=$kind VERSION=$version KSRC_PATH=${ksrc:+$(realpath -- "$ksrc")} DESCRIBE=$describe COMMIT=$commit \
TARBALL=$tarball PRISTINE=$(lib_git "$src" rev-parse 'pristine^{tree}') \
SERIES_FILE=${series_file#"$top"/} PATCHSET=$(patchset_hash "${series_files[@]}") \
PKGVER=$( [ "$kind" = debian ] && dpkg-query -W -f '${Version}' linux-source-6.1 2>/dev/null || true) \
/usr/bin/python3 - "$obj/kernel-source.json" "$top" "${series_files[@]}" -- "${frags[@]}" <<'PY' || die "kernel-source.json"
import hashlib, json, os, sys
out, top, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
cut = rest.index("--")
patches, frags = rest[:cut], rest[cut + 1:]
e = os.environ
def sha(p):
    with open(p, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
src = {"kind": e["KIND"], "version": e["VERSION"], "pristine_tree": e["PRISTINE"]}
if e["KIND"] == "debian":
    src.update(package="linux-source-6.1", package_version=e["PKGVER"] or None, tarball=e["TARBALL"])
elif e["KIND"] == "tarball":
    src.update(path=e["KSRC_PATH"])
else:
    src.update(path=e["KSRC_PATH"], git_describe=e["DESCRIBE"] or None, git_commit=e["COMMIT"] or None)
rec = {"source": src,
       "series": {"file": e["SERIES_FILE"] or None, "patches": [os.path.basename(p) for p in patches],
                  "patchset_hash": e["PATCHSET"]},
       "config_fragments": [{"file": os.path.relpath(f, top), "sha256": sha(f)} for f in frags]}
with open(out + ".tmp", "w") as f:
    json.dump(rec, f, indent=1)
os.replace(out + ".tmp", out)
PY

[ $config_only -eq 1 ] && { stage "configured: ${obj#$top/}/.config"; exit 0; }

# 4. Compile.  Nothing newer than bzImage (and stamps unchanged): no-op.
bz=$obj/arch/x86/boot/bzImage
if [ -f "$bz" ] && [ "$(cat "$obj/.dplab-built" 2>/dev/null)" = "$cstamp" ] &&
   [ -z "$(find "$src" -path "$src/.git" -prune -o -newer "$bz" -type f -print -quit)" ]; then
	stage "up to date: $bz"
	exit 0
fi
rm -f "$obj/.dplab-built"
export CCACHE_BASEDIR=$top/build CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
jobs=$(( $(nproc) + 1 ))
stage "compile bzImage (-j$jobs, ccache; log: ${log#$top/})"
kmake -j"$jobs" bzImage >"$log" 2>&1 &
compiled() { echo "compiling: $(grep -c '^  CC ' "$log") objects so far"; }
if ! wait_progress $! compiled; then
	grep -E -B2 -A6 'error:|Error [0-9]|undefined reference' "$log" | head -60
	die "compile (full log: $log)"
fi
echo "$cstamp" >"$obj/.dplab-built"
stage "built $(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$obj/include/generated/utsrelease.h"): ${bz#$top/} ($(grep -c '^  CC ' "$log") objects compiled)"
