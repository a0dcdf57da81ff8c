# result_lines CELL RESULT_JSON: one tests/run line per check of a run:
# PASS, XFAIL with its reason, SKIP for a check whose `when` precondition did
# not hold (unmeasurable: neither passed nor failed), or FAIL (fail, xpass,
# any other unmeasurable).  Returns non-zero unless the run passed.  The rule
# is launch/dplab/checks.py's test_line(), the one matrix.ktap's lines use.
_result_lines_launch=$(cd "$(dirname "${BASH_SOURCE:-tests/result-lines.sh}")/../launch" && pwd)
result_lines() {
	PYTHONPATH="$_result_lines_launch${PYTHONPATH:+:$PYTHONPATH}" python3 -m dplab.checks lines "$1" "$2"
}
