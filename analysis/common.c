/* dpanalyze: helpers every analysis uses (errors, samples, fields, metrics JSON). */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dpanalyze.h"

const char *prog = "dpanalyze";

void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

/* ---------------------------------------------------------------- samples */

void samples_push(struct samples *s, double x)
{
	if (s->count == s->capacity) {
		s->capacity = s->capacity ? 2 * s->capacity : 256;
		s->values = realloc(s->values, s->capacity * sizeof(double));
		if (!s->values)
			die("out of memory");
	}
	s->values[s->count++] = x;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void samples_sort(struct samples *s)
{
	if (s->count)
		qsort(s->values, s->count, sizeof(double), compare_doubles);
}

double percentile(const struct samples *s, double p)
{
	size_t k;

	if (!s->count)
		return NAN;
	k = (size_t)ceil(p / 100.0 * (double)s->count);
	if (k < 1)
		k = 1;
	return s->values[k - 1];
}

/* ---------------------------------------------------------------- fields */

struct tep_event *find_event(struct tep_handle *tep, const char *system, const char *name)
{
	return tep_find_event_by_name(tep, system, name);
}

struct tep_format_field *find_field(struct tep_event *event, const char *name)
{
	return event ? tep_find_field(event, name) : NULL;
}

int read_field(const struct tep_format_field *f, const struct tep_record *r, long long *out)
{
	unsigned long long v;

	if (!f || f->offset < 0 || f->offset + f->size > r->size)
		return -1;
	if (tep_read_number_field((struct tep_format_field *)f, r->data, &v))
		return -1;
	if (f->flags & TEP_FIELD_IS_SIGNED) {
		switch (f->size) {
		case 1: *out = (int8_t)v; return 0;
		case 2: *out = (int16_t)v; return 0;
		case 4: *out = (int32_t)v; return 0;
		default: break;
		}
	}
	*out = (long long)v;
	return 0;
}

void read_string_field(const struct tep_format_field *f, const struct tep_record *r, char *buf,
		       size_t len)
{
	size_t n;

	buf[0] = 0;
	if (!f || f->offset < 0 || f->offset + f->size > r->size || !len)
		return;
	n = (size_t)f->size < len - 1 ? (size_t)f->size : len - 1;
	memcpy(buf, (const char *)r->data + f->offset, n);
	buf[n] = 0;
}

/* ---------------------------------------------------------------- dispatch */

void analysis_on_event(struct analysis_context *ctx, struct tep_event *event,
		       record_handler handle, void *analysis)
{
	if (!event)
		return;
	if (ctx->nhandlers == MAX_HANDLERS)
		die("internal: more than %d event handlers", MAX_HANDLERS);
	ctx->handlers[ctx->nhandlers++] = (struct event_handler){ event, handle, analysis };
}

int node_mark_seen(struct analysis_context *ctx, long long nid)
{
	if (nid < 0 || nid >= MAXNODE) {
		ctx->events_with_bad_nid++;
		return -1;
	}
	ctx->node_seen[nid] = 1;
	return 0;
}

/* ---------------------------------------------------------------- metrics JSON */

json_object *json_number(double d)
{
	char text[32];

	/* NaN and infinities have no JSON spelling: they mean "not measured" */
	if (!isfinite(d))
		return NULL;
	if (d == floor(d) && fabs(d) < 1e15)
		return json_object_new_int64((int64_t)d);
	snprintf(text, sizeof(text), "%.6g", d);
	return json_object_new_double_s(d, text);
}

json_object *json_child(json_object *obj, const char *key)
{
	json_object *c;

	if (json_object_object_get_ex(obj, key, &c) && json_object_is_type(c, json_type_object))
		return c;
	c = json_object_new_object();
	json_set(obj, key, c);
	return c;
}

void json_set(json_object *obj, const char *key, json_object *value)
{
	if (json_object_object_add(obj, key, value))
		die("out of memory");
}

void unmeasurable(json_object *metrics, const char *path, const char *why)
{
	json_set(json_child(metrics, "unmeasurable"), path, json_object_new_string(why));
}
