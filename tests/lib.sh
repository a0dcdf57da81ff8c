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
