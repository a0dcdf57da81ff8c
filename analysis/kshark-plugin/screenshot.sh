#!/bin/sh
# screenshot.sh SESSION.json|RUN_DIR OUT.png: open a session in KernelShark under Xvfb, or a
# run's directory as `make view OUT=RUN_DIR` opens it (launch/view.sh), and save one
# screenshot of the window (1280x800).  Uses a private KernelShark cache directory, so the
# user's settings and last session are untouched and the root warning dialog (which would
# cover the window when run as root) is pre-acknowledged.  SCREENSHOT_LOG=FILE keeps
# KernelShark's output.  Needs: kernelshark, xvfb (xvfb-run), x11-utils (xwininfo),
# imagemagick (import).
set -u
prog=screenshot.sh
case ${1:-} in -h|--help) sed -n '2,9s/^# //p' "$0"; exit 0 ;; esac
[ $# -eq 2 ] || { echo "$prog: usage: $prog SESSION.json|RUN_DIR OUT.png" >&2; exit 2; }
[ -r "$1" ] || { echo "$prog: $1: cannot read" >&2; exit 2; }
for t in kernelshark xvfb-run xwininfo import; do
	command -v $t >/dev/null || { echo "$prog: $t not installed" >&2; exit 2; }
done
session=$(realpath "$1")
view=$(cd "$(dirname "$0")/../.." && pwd)/launch/view.sh
out=$(realpath -m "$2")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kshark-shot.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
chmod 700 "$tmp"
printf '[General]\nnoRootWarn=true\n' >"$tmp/setting.ini"
export KS_USER_CACHE_DIR=$tmp XDG_RUNTIME_DIR=$tmp
xvfb-run -a -s "-screen 0 1280x800x24" sh -c '
	# its own process group, so that view.sh and the KernelShark it starts go together
	if [ -d "$1" ]; then
		setsid "$4" "$1" >"$3/kernelshark.log" 2>&1 &
	else
		setsid kernelshark -s "$1" >"$3/kernelshark.log" 2>&1 &
	fi
	ks=$!
	i=0
	# wait for the main window, then give it time to load and draw
	while [ $i -lt 60 ] && ! xwininfo -root -tree 2>/dev/null | grep -q "\"Kernel Shark"; do
		sleep 0.5; i=$((i + 1))
	done
	sleep 4
	import -window root "$2"
	rc=$?
	kill -- -$ks 2>/dev/null
	wait $ks 2>/dev/null
	exit $rc' sh "$session" "$out" "$tmp" "$view"
rc=$?
[ -n "${SCREENSHOT_LOG:-}" ] && cp "$tmp/kernelshark.log" "$SCREENSHOT_LOG" 2>/dev/null
if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
	echo "$prog: no screenshot (exit $rc): $(head -1 "$tmp/kernelshark.log" 2>/dev/null)" >&2
	exit 2
fi
