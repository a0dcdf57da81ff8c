#!/bin/bash
# Where a cold kernel build spends its time: launch/build-cost.sh [patched|stock] [VARIANT]
#
# Builds the kernel's configuration (launch/kernel.sh's, lab config by default) once more
# from nothing, without ccache, in build/build-cost/<kernel>-<variant>/, with each compiler
# call timed by a wrapper; then launch/build_cost.py sums the seconds per directory and
# names the config symbol that brings each directory in (its parent Makefile's
# obj-$(CONFIG_...) line).  That tells which parts of lab.config cost build time, as
# seconds measured, not objects counted.  Writes cost.tsv (ms, object) and summary.md
# there.  Takes as long as a cold build (11-12 min on 2 cores); shows progress.
# Exit: 0 measured, 1 the build failed, 2 bad arguments.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/launch/lib.sh"
case ${1:-} in -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0;; esac
kernel=${1:-patched}
variant=${2:-lab}
case $kernel in patched|stock) ;; *) echo "build-cost: KERNEL must be patched or stock, not '$kernel'" >&2; exit 2;; esac
[ $# -le 2 ] || { echo "build-cost: at most two arguments, KERNEL and VARIANT (see --help)" >&2; exit 2; }

# the same source tree and .config as `make kernel` (it validates VARIANT)
"$top/launch/kernel.sh" "$kernel" "$variant" --config-only || exit $?
src=$(kernel_root "$top")/$kernel/linux
ref=$(kernel_obj_dir "$top" "$kernel" "$variant")
out=$top/build/build-cost/$kernel-$variant
rm -rf "$out"
mkdir -p "$out/obj"
cp "$ref/.config" "$out/obj/.config"

# The wrapper: the compiler's wall time for each object it writes (-c ... -o X.o).
wrap=$out/cc-timed
cat >"$wrap" <<'EOF'
#!/bin/sh
s=$(date +%s%N)
"$@"
rc=$?
o=
prev=
for a in "$@"; do
	[ "$prev" = -o ] && o=$a
	prev=$a
done
case $o in *.o) echo "$(( ($(date +%s%N) - s) / 1000000 )) $o" >>"$DPLAB_COST_LOG";; esac
exit $rc
EOF
chmod +x "$wrap"
export DPLAB_COST_LOG=$out/cost.log
: >"$DPLAB_COST_LOG"

# objects the incremental build has, for the progress line
want=$(find "$ref" -name '*.o' ! -name '*.mod.o' 2>/dev/null | wc -l)
jobs=$(( $(nproc) + 1 ))
t0=$(date +%s)
stage() { printf '[build-cost %s/%s %4ss] %s\n' "$kernel" "$variant" "$(( $(date +%s) - t0 ))" "$*"; }
stage "cold build without ccache (-j$jobs) in ${out#$top/}/obj"
make -C "$src" O="$out/obj" ARCH=x86_64 olddefconfig >"$out/build.log" 2>&1 &&
	make -C "$src" O="$out/obj" ARCH=x86_64 CC="$wrap gcc" HOSTCC=gcc -j"$jobs" bzImage \
		>>"$out/build.log" 2>&1 &
timed() { echo "compiling: $(wc -l <"$DPLAB_COST_LOG") of about $want objects"; }
if ! wait_progress $! timed; then
	grep -E -B2 -A6 'error:|Error [0-9]' "$out/build.log" | head -40
	stage "FAILED (log: ${out#$top/}/build.log)"
	exit 1
fi
wall=$(( $(date +%s) - t0 ))
stage "built in ${wall}s: $(wc -l <"$DPLAB_COST_LOG") objects timed"
/usr/bin/python3 "$top/launch/build_cost.py" --src "$src" --log "$DPLAB_COST_LOG" \
	--wall "$wall" --jobs "$jobs" --out "$out" || exit 1
rm -rf "$out/obj"	# 1.4 GB of objects nobody needs after the measurement
