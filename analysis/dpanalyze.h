/*
 * dpanalyze: what the main loop and the analyses share.
 *
 * Each analysis (pressure.c, pauses.c, throttle.c, bandwidth.c, reclaim.c, dirty.c,
 * sched.c) keeps its own state, registers a handler for each event it reads
 * (analysis_on_event) and writes its part of the metrics object at the end
 * (struct analysis_ops.emit).  dpanalyze.c opens
 * the trace, dispatches every record to the handlers of its event type, writes the TSV
 * time series (tsv.c) and the metrics document.
 */
#ifndef DPLAB_DPANALYZE_H
#define DPLAB_DPANALYZE_H

#include <stddef.h>
#include <stdio.h>

#include <event-parse.h>
#include <json-c/json.h>

#define MAXNODE 64
#define MAXTASK 8
#define MAX_HANDLERS 32
#define MAX_HANDLERS_PER_EVENT 4

extern const char *prog;

/* exit 2 with one line "dpanalyze: ..." on stderr: bad input (or out of memory) */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xmalloc(size_t n);

/* ---- growable vector of doubles, sorted for percentiles */

struct samples {
	double *values;
	size_t count, capacity;
};

void samples_push(struct samples *s, double x);
void samples_sort(struct samples *s);
/* nearest-rank percentile of sorted samples, NAN when there are none */
double percentile(const struct samples *s, double p);

/* ---- fields of a record */

/* The event when the trace has it, else NULL. */
struct tep_event *find_event(struct tep_handle *tep, const char *system, const char *name);
/* The event's field of that name; NULL when the event or the field is missing. */
struct tep_format_field *find_field(struct tep_event *event, const char *name);
/* Reads a numeric field, checking it lies inside the record (a corrupt record may be
 * short).  0, or -1 when the field is absent or does not fit. */
int read_field(const struct tep_format_field *f, const struct tep_record *r, long long *out);
/* A char array field (comm, rwbs) as a C string; "" when it does not lie inside the record. */
void read_string_field(const struct tep_format_field *f, const struct tep_record *r, char *buf,
		       size_t len);

/* ---- what every analysis sees */

/* t: seconds from the first event; pid: the record's common_pid */
typedef void (*record_handler)(void *analysis, const struct tep_record *r, double t, int pid);

struct event_handler {
	struct tep_event *event;
	record_handler handle;
	void *analysis;
};

struct analysis_context {
	const char *trace_path;
	struct tep_handle *tep;
	int page_size;			/* the traced kernel's, in bytes; 0 if the file does not say */
	int node_seen[MAXNODE];		/* named by some event's nid, or below --nodes */
	unsigned long events_with_bad_nid;
	char tasks[MAXTASK][16];	/* --task COMM */
	int ntasks;
	struct event_handler handlers[MAX_HANDLERS];
	int nhandlers;
};

/* Calls handle(analysis, ...) for every record of event (nothing when event is NULL). */
void analysis_on_event(struct analysis_context *ctx, struct tep_event *event,
		       record_handler handle, void *analysis);
/* A node named by an event: marks it seen and returns 0, or counts the event as having a
 * bad nid and returns -1.  Exactly one analysis calls it per event type. */
int node_mark_seen(struct analysis_context *ctx, long long nid);

struct analysis_ops {
	const char *name;
	void *(*create)(struct analysis_context *ctx);
	/* metrics: the "metrics" object; duration_s: first to last event */
	void (*emit)(void *analysis, json_object *metrics, double duration_s);
	void (*destroy)(void *analysis);
};

extern const struct analysis_ops pressure_analysis;	/* pressure.c */
extern const struct analysis_ops pauses_analysis;	/* pauses.c */
extern const struct analysis_ops bandwidth_analysis;	/* bandwidth.c */
extern const struct analysis_ops reclaim_analysis;	/* reclaim.c */
extern const struct analysis_ops dirty_analysis;	/* dirty.c */
extern const struct analysis_ops throttle_analysis;	/* throttle.c */
extern const struct analysis_ops sched_analysis;	/* sched.c */

/* ---- metrics JSON (json-c) */

/* A number as dpanalyze has always written it: null when not finite, an integer when
 * whole and below 1e15, else 6 significant digits. */
json_object *json_number(double d);
/* obj[key] as an object, created (or replacing a non-object) when needed. */
json_object *json_child(json_object *obj, const char *key);
/* obj[key] = value, replacing an existing key; takes ownership of value. */
void json_set(json_object *obj, const char *key, json_object *value);
/* metrics.unmeasurable[path] = why */
void unmeasurable(json_object *metrics, const char *path, const char *why);

/* ---- TSV time series (tsv.c) */

/* One per event type seen in the trace. */
struct event_type {
	struct tep_event *event;
	int nfields;
	struct tep_format_field **fields; /* numeric fields, in format order */
	struct tep_format_field *nid;
	FILE *tsv[MAXNODE + 1];           /* [MAXNODE]: the event has no nid */
	unsigned long long count;
	struct event_handler *handlers[MAX_HANDLERS_PER_EVENT];
	int nhandlers;
};

int field_is_numeric(const struct tep_format_field *f);
/* One row "time_s cpu pid <numeric fields>" into DIR/tsv/<event>[.nodeN].tsv. */
void tsv_row(const char *outdir, unsigned long long t0, struct event_type *et,
	     const struct tep_record *r, int pid);
/* Closes every TSV of the event type; -1 when a write failed. */
int tsv_close(struct event_type *et);

#endif
