#!/bin/sh
# Open a run's trace in KernelShark, with its session and the dirty-pressure
# plugin when they exist.  Needs a display ($DISPLAY); under CI use xvfb-run.
#   launch/view.sh OUT
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: launch/view.sh OUT}
[ -f "$out/trace.dat" ] || { echo "view: no $out/trace.dat (run 'make run' first)" >&2; exit 2; }
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || { echo "view: no display; try: xvfb-run -a make view OUT=$out" >&2; exit 2; }
set -- -i "$out/trace.dat"
[ -f "$out/session.json" ] && set -- -s "$out/session.json"
plugin=$top/build/lib/plugin-dirty_pressure.so
[ -f "$plugin" ] && set -- "$@" -p "$plugin"
exec kernelshark "$@"
