/* Declarative checks: one per line, evaluated against the metrics tree.
 *
 *   # comment
 *   check <name> <metric.path> <op> <value> [xfail <reason...>]
 *
 * op is one of == != < <= > >=; value is a number, true or false.
 */
#ifndef DPLAB_CHECKS_H
#define DPLAB_CHECKS_H

#include "json.h"

/* Reads FILE and appends one result object per check to out (an array).
 * Returns 0, or -1 after printing one line "FILE:LINE: what" to stderr. */
int checks_eval_file(const char *file, const struct jval *metrics, struct jval *out);

/* Counts of each status in an array built by checks_eval_file. */
struct check_tally {
	int pass, fail, xfail, unmeasurable;
};
struct check_tally checks_tally(const struct jval *results);

#endif
