# result_lines CELL RESULT_JSON: one tests/run line per check of a run:
# PASS, XFAIL with its reason, SKIP for a check whose `when` precondition did
# not hold (unmeasurable: neither passed nor failed), or FAIL (fail, xpass,
# any other unmeasurable).  Returns non-zero unless the run passed.
result_lines() {
	jq -r --arg c "$1" '.checks[] |
		if .status == "pass" then "PASS: \($c).\(.name)"
		elif .status == "xfail" then "XFAIL: \($c).\(.name): \(.reason)"
		elif .status == "unmeasurable" and .precondition_met == false then "SKIP: \($c).\(.name): unmeasurable: \(.reason)"
		else "FAIL: \($c).\(.name): \(.status): \(.expectation), got \(.value)\(if .reason then " (" + .reason + ")" else "" end)" end' "$2"
	jq -e '.pass' "$2" >/dev/null
}
