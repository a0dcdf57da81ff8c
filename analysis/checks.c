#define _POSIX_C_SOURCE 200809L
#include "checks.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const ops[] = { "==", "!=", "<", "<=", ">", ">=" };

static int op_index(const char *s)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(s, ops[i]))
			return (int)i;
	return -1;
}

static int compare(int op, double a, double b)
{
	switch (op) {
	case 0: return a == b;
	case 1: return a != b;
	case 2: return a < b;
	case 3: return a <= b;
	case 4: return a > b;
	default: return a >= b;
	}
}

/* The reason a metric cannot be measured, if the analyser recorded one for it or a parent. */
static const char *why_unmeasurable(const struct jval *metrics, const char *path)
{
	const struct jval *um = j_get(metrics, "unmeasurable");
	char buf[512];

	if (!um || strlen(path) >= sizeof(buf))
		return NULL;
	strcpy(buf, path);
	for (;;) {
		const struct jval *r = j_get(um, buf);
		char *dot;

		if (r && r->t == J_STR)
			return r->str;
		dot = strrchr(buf, '.');
		if (!dot)
			return NULL;
		*dot = 0;
	}
}

static int fail_line(const char *file, int line, const char *what, const char *tok)
{
	fprintf(stderr, "%s:%d: %s%s%s%s\n", file, line, what, tok ? " '" : "", tok ? tok : "",
		tok ? "'" : "");
	return -1;
}

static int eval_line(const char *file, int lineno, char *line, const struct jval *metrics,
		     struct jval *out)
{
	char *save = NULL, *tok[5], *rest, *end;
	const struct jval *m;
	struct jval *r;
	int op, want_bool = -1, xfail = 0;
	double want = 0;
	char expect[640];
	const char *status;
	int pass;

	for (int i = 0; i < 5; i++) {
		tok[i] = strtok_r(i ? NULL : line, " \t", &save);
		if (!tok[i])
			return fail_line(file, lineno,
					 "expected: check <name> <metric.path> <op> <value> [xfail <reason>]",
					 NULL);
	}
	if (strcmp(tok[0], "check"))
		return fail_line(file, lineno, "unknown directive", tok[0]);
	op = op_index(tok[3]);
	if (op < 0)
		return fail_line(file, lineno, "operator must be one of == != < <= > >=, not", tok[3]);
	if (!strcmp(tok[4], "true") || !strcmp(tok[4], "false")) {
		want_bool = tok[4][0] == 't';
		if (op > 1)
			return fail_line(file, lineno, "true/false only compare with == or !=", tok[3]);
	} else {
		errno = 0;
		want = strtod(tok[4], &end);
		if (errno || end == tok[4] || *end || !isfinite(want))
			return fail_line(file, lineno, "value is not a number, true or false", tok[4]);
	}
	rest = strtok_r(NULL, "", &save);
	while (rest && (*rest == ' ' || *rest == '\t'))
		rest++;
	if (rest && *rest) {
		if (strncmp(rest, "xfail", 5) || (rest[5] && rest[5] != ' ' && rest[5] != '\t'))
			return fail_line(file, lineno, "after the value only 'xfail <reason>' may follow", rest);
		rest += 5;
		while (*rest == ' ' || *rest == '\t')
			rest++;
		if (!*rest)
			return fail_line(file, lineno, "xfail needs a reason", NULL);
		xfail = 1;
	}
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(j_get(out->kids[i], "name")->str, tok[1]))
			return fail_line(file, lineno, "duplicate check name", tok[1]);

	snprintf(expect, sizeof(expect), "%s %s %s", tok[2], tok[3], tok[4]);
	r = j_obj();
	j_set(r, "name", j_str(tok[1]));
	j_set(r, "metric", j_str(tok[2]));
	j_set(r, "expectation", j_str(expect));
	m = j_path(metrics, tok[2]);
	if (!m || m->t == J_NULL || m->t == J_OBJ || m->t == J_ARR || m->t == J_STR ||
	    (want_bool >= 0) != (m->t == J_BOOL)) {
		const char *why = why_unmeasurable(metrics, tok[2]);
		char buf[600];

		if (!why) {
			snprintf(buf, sizeof(buf), !m || m->t == J_NULL ? "metric %s not in this run" :
				 "metric %s is not a %s", tok[2], want_bool >= 0 ? "boolean" : "number");
			why = buf;
		}
		j_set(r, "value", j_null());
		j_set(r, "pass", j_bool(0));
		j_set(r, "status", j_str("unmeasurable"));
		j_set(r, "reason", j_str(why));
		if (xfail)
			j_set(r, "xfail", j_str(rest));
		j_push(out, r);
		return 0;
	}
	if (want_bool >= 0) {
		j_set(r, "value", j_bool(m->b));
		pass = compare(op, m->b, want_bool);
	} else {
		j_set(r, "value", j_num(m->num));
		pass = compare(op, m->num, want);
	}
	status = pass ? "pass" : xfail ? "xfail" : "fail";
	j_set(r, "pass", j_bool(pass));
	j_set(r, "status", j_str(status));
	if (xfail) {
		j_set(r, "xfail", j_str(rest));
		/* an xfail that passes is news: say so instead of hiding it */
		if (pass)
			j_set(r, "unexpected_pass", j_bool(1));
	}
	j_push(out, r);
	return 0;
}

int checks_eval_file(const char *file, const struct jval *metrics, struct jval *out)
{
	FILE *f = fopen(file, "r");
	char line[2048];
	int lineno = 0;

	if (!f) {
		fprintf(stderr, "%s: cannot open checks file: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		char *p = line;

		lineno++;
		if (n == sizeof(line) - 1 && line[n - 1] != '\n') {
			fclose(f);
			return fail_line(file, lineno, "line longer than 2046 characters", NULL);
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (eval_line(file, lineno, p, metrics, out)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

struct check_tally checks_tally(const struct jval *results)
{
	struct check_tally t = { 0, 0, 0, 0 };

	for (size_t i = 0; i < results->n; i++) {
		const char *s = j_get(results->kids[i], "status")->str;

		if (!strcmp(s, "pass"))
			t.pass++;
		else if (!strcmp(s, "xfail"))
			t.xfail++;
		else if (!strcmp(s, "fail"))
			t.fail++;
		else
			t.unmeasurable++;
	}
	return t;
}
