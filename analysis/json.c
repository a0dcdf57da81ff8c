#define _POSIX_C_SOURCE 200809L
#include "json.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void *xcalloc(size_t n, size_t s)
{
	void *p = calloc(n ? n : 1, s);

	if (!p) {
		fputs("dpanalyze: out of memory\n", stderr);
		exit(2);
	}
	return p;
}

static struct jval *mk(enum jtype t)
{
	struct jval *v = xcalloc(1, sizeof(*v));

	v->t = t;
	return v;
}

struct jval *j_null(void) { return mk(J_NULL); }
struct jval *j_obj(void) { return mk(J_OBJ); }
struct jval *j_arr(void) { return mk(J_ARR); }

struct jval *j_bool(int b)
{
	struct jval *v = mk(J_BOOL);

	v->b = !!b;
	return v;
}

struct jval *j_num(double d)
{
	struct jval *v;

	/* NaN and infinities have no JSON spelling: they mean "not measured" */
	if (!isfinite(d))
		return mk(J_NULL);
	v = mk(J_NUM);
	v->num = d;
	return v;
}

struct jval *j_str(const char *s)
{
	struct jval *v = mk(J_STR);

	v->str = strdup(s ? s : "");
	if (!v->str) {
		fputs("dpanalyze: out of memory\n", stderr);
		exit(2);
	}
	return v;
}

static void grow(struct jval *c)
{
	if (c->n < c->cap)
		return;
	c->cap = c->cap ? 2 * c->cap : 8;
	c->kids = realloc(c->kids, c->cap * sizeof(*c->kids));
	if (c->t == J_OBJ)
		c->keys = realloc(c->keys, c->cap * sizeof(*c->keys));
	if (!c->kids || (c->t == J_OBJ && !c->keys)) {
		fputs("dpanalyze: out of memory\n", stderr);
		exit(2);
	}
}

void j_set(struct jval *obj, const char *key, struct jval *v)
{
	for (size_t i = 0; i < obj->n; i++) {
		if (!strcmp(obj->keys[i], key)) {
			j_free(obj->kids[i]);
			obj->kids[i] = v;
			return;
		}
	}
	grow(obj);
	obj->keys[obj->n] = strdup(key);
	obj->kids[obj->n++] = v;
}

void j_push(struct jval *arr, struct jval *v)
{
	grow(arr);
	arr->kids[arr->n++] = v;
}

struct jval *j_get(const struct jval *obj, const char *key)
{
	if (!obj || obj->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->kids[i];
	return NULL;
}

struct jval *j_path(const struct jval *root, const char *path)
{
	char buf[512];
	const struct jval *cur = root;
	char *save = NULL, *tok;

	if (strlen(path) >= sizeof(buf))
		return NULL;
	strcpy(buf, path);
	for (tok = strtok_r(buf, ".", &save); tok && cur; tok = strtok_r(NULL, ".", &save))
		cur = j_get(cur, tok);
	return (struct jval *)cur;
}

struct jval *j_child(struct jval *obj, const char *key)
{
	struct jval *c = j_get(obj, key);

	if (c && c->t == J_OBJ)
		return c;
	c = j_obj();
	j_set(obj, key, c);
	return c;
}

static void wstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void wnum(FILE *f, double d)
{
	if (d == floor(d) && fabs(d) < 1e15)
		fprintf(f, "%.0f", d);
	else
		fprintf(f, "%.6g", d);
}

static void wval(FILE *f, const struct jval *v, int indent, int depth)
{
	switch (v->t) {
	case J_NULL: fputs("null", f); return;
	case J_BOOL: fputs(v->b ? "true" : "false", f); return;
	case J_NUM: wnum(f, v->num); return;
	case J_STR: wstr(f, v->str); return;
	case J_OBJ:
	case J_ARR:
		break;
	}
	fputc(v->t == J_OBJ ? '{' : '[', f);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			fputc(',', f);
		if (indent)
			fprintf(f, "\n%*s", indent * (depth + 1), "");
		if (v->t == J_OBJ) {
			wstr(f, v->keys[i]);
			fputs(indent ? ": " : ":", f);
		}
		wval(f, v->kids[i], indent, depth + 1);
	}
	if (indent && v->n)
		fprintf(f, "\n%*s", indent * depth, "");
	fputc(v->t == J_OBJ ? '}' : ']', f);
}

void j_write(FILE *f, const struct jval *v, int indent)
{
	wval(f, v, indent, 0);
	fputc('\n', f);
}

void j_free(struct jval *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		j_free(v->kids[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
	free(v->str);
	free(v);
}

/* ---- parser: recursive descent with a depth bound, so hostile input cannot blow the stack */

struct pstate {
	const char *s;
	size_t pos;
	char *err;
	size_t errlen;
	int failed;
};

static void perr(struct pstate *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;
	p->failed = 1;
	n = snprintf(p->err, p->errlen, "at byte %zu: ", p->pos);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < p->errlen)
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
}

static void skipws(struct pstate *p)
{
	while (p->s[p->pos] && isspace((unsigned char)p->s[p->pos]))
		p->pos++;
}

static char *pstring(struct pstate *p)
{
	size_t cap = 16, n = 0;
	char *out = xcalloc(cap, 1);

	p->pos++; /* opening quote */
	for (;;) {
		unsigned char c = (unsigned char)p->s[p->pos];

		if (!c) {
			perr(p, "unterminated string");
			free(out);
			return NULL;
		}
		p->pos++;
		if (c == '"')
			break;
		if (c == '\\') {
			char e = p->s[p->pos++];

			switch (e) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case '/': case '\\': case '"': c = (unsigned char)e; break;
			case 'u': {
				unsigned int u = 0;

				for (int i = 0; i < 4; i++) {
					char h = p->s[p->pos];

					if (!isxdigit((unsigned char)h)) {
						perr(p, "bad \\u escape");
						free(out);
						return NULL;
					}
					u = u * 16 + (unsigned int)(isdigit((unsigned char)h) ? h - '0' : (tolower((unsigned char)h) - 'a' + 10));
					p->pos++;
				}
				/* metrics are ASCII; anything else becomes '?' rather than mis-encoded */
				c = u < 0x80 ? (unsigned char)u : '?';
				break;
			}
			default:
				perr(p, "bad escape");
				free(out);
				return NULL;
			}
		} else if (c < 0x20) {
			perr(p, "control character in string");
			free(out);
			return NULL;
		}
		if (n + 2 > cap) {
			cap *= 2;
			out = realloc(out, cap);
			if (!out) {
				fputs("dpanalyze: out of memory\n", stderr);
				exit(2);
			}
		}
		out[n++] = (char)c;
	}
	out[n] = 0;
	return out;
}

static struct jval *pval(struct pstate *p, int depth)
{
	struct jval *v;
	char c;

	if (depth > 64) {
		perr(p, "nesting deeper than 64");
		return NULL;
	}
	skipws(p);
	c = p->s[p->pos];
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';

		v = c == '{' ? j_obj() : j_arr();
		p->pos++;
		skipws(p);
		if (p->s[p->pos] == close) {
			p->pos++;
			return v;
		}
		for (;;) {
			char *key = NULL;
			struct jval *kid;

			skipws(p);
			if (close == '}') {
				if (p->s[p->pos] != '"') {
					perr(p, "expected a string key");
					j_free(v);
					return NULL;
				}
				key = pstring(p);
				if (!key) {
					j_free(v);
					return NULL;
				}
				skipws(p);
				if (p->s[p->pos] != ':') {
					perr(p, "expected ':'");
					free(key);
					j_free(v);
					return NULL;
				}
				p->pos++;
			}
			kid = pval(p, depth + 1);
			if (!kid) {
				free(key);
				j_free(v);
				return NULL;
			}
			if (key) {
				j_set(v, key, kid);
				free(key);
			} else {
				j_push(v, kid);
			}
			skipws(p);
			if (p->s[p->pos] == ',') {
				p->pos++;
				continue;
			}
			if (p->s[p->pos] == close) {
				p->pos++;
				return v;
			}
			perr(p, "expected ',' or '%c'", close);
			j_free(v);
			return NULL;
		}
	}
	if (c == '"') {
		char *s = pstring(p);

		if (!s)
			return NULL;
		v = j_str(s);
		free(s);
		return v;
	}
	if (!strncmp(p->s + p->pos, "true", 4)) {
		p->pos += 4;
		return j_bool(1);
	}
	if (!strncmp(p->s + p->pos, "false", 5)) {
		p->pos += 5;
		return j_bool(0);
	}
	if (!strncmp(p->s + p->pos, "null", 4)) {
		p->pos += 4;
		return j_null();
	}
	if (c == '-' || isdigit((unsigned char)c)) {
		char *end;
		double d = strtod(p->s + p->pos, &end);

		p->pos = (size_t)(end - p->s);
		v = mk(J_NUM);
		v->num = d;
		return v;
	}
	perr(p, c ? "unexpected character '%c'" : "unexpected end of input", c);
	return NULL;
}

struct jval *j_parse(const char *text, char *err, size_t errlen)
{
	struct pstate p = { text, 0, err, errlen, 0 };
	struct jval *v = pval(&p, 0);

	if (!v)
		return NULL;
	skipws(&p);
	if (p.s[p.pos]) {
		perr(&p, "trailing characters");
		j_free(v);
		return NULL;
	}
	return v;
}
