#!/bin/sh
# Open a run's trace in KernelShark, with a session and the dirty-pressure plugin when they
# exist: CPU rows, then one row per memory node with that node's pressure.  Needs a display
# ($DISPLAY); under CI use xvfb-run.
# Usage: launch/view.sh OUT
# The session is written afresh by build/bin/dpsession into a temporary file (the run's own
# OUT/session.json, written when the run was collected, may predate the node rows or name the
# trace where it used to be); without dpsession, OUT/session.json is used as it is.
case ${1:-} in -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: launch/view.sh OUT}
[ -f "$out/trace.dat" ] || { echo "view: no $out/trace.dat (run 'make run' first)" >&2; exit 2; }
[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] || { echo "view: no display; try: xvfb-run -a make view OUT=$out" >&2; exit 2; }
plugin=$top/build/lib/plugin-dirty_pressure.so
dpsession=$top/build/bin/dpsession
session=
tmp=
if [ -x "$dpsession" ] && [ -f "$plugin" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/dpview.XXXXXX") || exit 2
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM
	if "$dpsession" "$out/trace.dat" --out "$tmp/session.json" --plugin "$plugin" >/dev/null 2>"$tmp/err"; then
		session=$tmp/session.json
	else
		echo "view: dpsession: $(head -1 "$tmp/err"); opening without the node rows" >&2
	fi
fi
[ -z "$session" ] && [ -f "$out/session.json" ] && session=$out/session.json
if [ -n "$session" ]; then
	set -- -s "$session"
else
	set -- -i "$out/trace.dat"
fi
[ -f "$plugin" ] && set -- "$@" -p "$plugin"
if [ -n "$tmp" ]; then
	kernelshark "$@"	# not exec: the temporary session goes when KernelShark exits
else
	exec kernelshark "$@"
fi
