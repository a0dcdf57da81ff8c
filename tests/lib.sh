# Sourced first by the tests/*/*.t files (. "$(dirname "$0")/../lib.sh"):
# the repository root as the working directory, the PASS:/FAIL: lines of
# the tests/run protocol, and scratch, a directory for the test's files.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
# the system's python, never a shim earlier in PATH
py=/usr/bin/python3
fail=0
pass() { echo "PASS: $1"; }
bad() { echo "FAIL: $1: $2"; fail=1; }
# scratch: $tmp, a new directory removed when the test exits; KEEP_TMP=DIR
# uses and keeps DIR instead, to look at what a failing test left
scratch() {
	tmp=${KEEP_TMP:-$(mktemp -d)}
	[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
}
# progress: a filter that copies its input to fd 3, where tests/run shows a
# test's progress lines (the kernel build's stages, the matrix's cells); a
# test run alone has none, and they go to its stderr.  It writes to fd 3 as
# inherited, never opens /dev/fd/3: when tests/run's stderr is a file (CI's
# log), that opens the file again, truncating what was written there (tee),
# or at an offset of its own that the next line of tests/run overwrites
# (tee -a).
{ : >&3; } 2>/dev/null || exec 3>&2
progress() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		printf '%s\n' "$line"
		printf '%s\n' "$line" >&3
	done
}
# lab_copy DIR: a lab in DIR for tests that stand stubs in for its scripts:
# the Makefile and launch/ copied (the code under test), topologies and
# scenarios linked
lab_copy() {
	mkdir -p "$1/workloads"
	cp Makefile "$1/"
	cp -r launch "$1/launch"
	rm -rf "$1/launch/__pycache__"
	ln -s "$top/topologies" "$1/topologies"
	ln -s "$top/workloads/scenarios" "$1/workloads/scenarios"
}
