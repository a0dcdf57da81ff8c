/*
 * dpanalyze: one pass over a trace.dat (libtracecmd) into TSV time series and metrics.
 *
 * Fields are read by name through libtraceevent (tep_find_field once per event type,
 * tep_read_number_field per record), so the file's own format descriptions decide the
 * layout: an appended field (global_dirty_state.pressure) is found when present and its
 * metrics are marked unmeasurable when not.
 *
 * This file opens the trace, hands every record to the handlers its event type has (the
 * analyses register them, see dpanalyze.h), writes the TSVs and the metrics document.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>

#include "dpanalyze.h"

#define MAXEXTRA 8
#define NEVENT_IDS 65536 /* common_type is 16 bits */

/* In metrics order. */
static const struct analysis_ops *const analyses[] = {
	&pressure_analysis, &pauses_analysis, &bandwidth_analysis,
	&reclaim_analysis,  &dirty_analysis,  &throttle_analysis,
	&sched_analysis,
};
#define NANALYSES (sizeof(analyses) / sizeof(analyses[0]))

struct run {
	struct analysis_context ctx;
	void *analysis[NANALYSES];
	const char *outdir;
	int write_tsv;
	struct event_type **types; /* by event id */
	unsigned long long t0, tlast, records, missed_events;
	int started;
};

static const char *trace_path;

/* seconds from the first event t0 */
static double seconds_since(unsigned long long t0, unsigned long long ts)
{
	return ts >= t0 ? (double)(ts - t0) / 1e9 : -(double)(t0 - ts) / 1e9;
}

/* A damaged or truncated trace.dat can make libtracecmd touch an mmap past the end of the
 * file (SIGBUS) or follow a wild offset (SIGSEGV).  That is bad input, not a crash of ours:
 * say so in one line and exit 2, as for any other unreadable trace. */
static void on_fault(int sig)
{
	static const char a[] = ": trace data truncated or corrupt (fault while reading)\n";
	const char *p = trace_path ? trace_path : "trace";

	(void)sig;
	if (write(2, prog, strlen(prog)) < 0 || write(2, ": ", 2) < 0 ||
	    write(2, p, strlen(p)) < 0 || write(2, a, sizeof(a) - 1) < 0)
		_exit(2);
	_exit(2);
}

/*
 * The traced kernel's page size, from the file header (trace-cmd.dat.v6(5), same in v7):
 * magic "\027\010\104tracing", version string, endian byte (0: little), long size byte,
 * then the 4-byte page size.  Debian 12's libtracecmd reads it but leaves
 * tep_get_page_size() at 0, and its tracecmd_page_size() is exported but not
 * in trace-cmd.h.  Returns 0 when the header cannot be read.
 */
static int file_page_size(const char *path)
{
	unsigned char b[64];
	FILE *f = fopen(path, "rb");
	size_t n, i;
	uint32_t v;

	if (!f)
		return 0;
	n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n < 10 || memcmp(b, "\027\010\104tracing", 10))
		return 0;
	for (i = 10; i < n && b[i]; i++)
		;
	if (i + 7 > n)
		return 0;
	memcpy(&v, b + i + 3, 4);
	if ((b[i + 1] == 0) != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
		v = __builtin_bswap32(v);
	return v >= 1024 && v <= (1u << 20) && !(v & (v - 1)) ? (int)v : 0;
}

/* ---------------------------------------------------------------- dispatch */

/* The event type of a record, set up on its first record: numeric fields for the TSV,
 * the analyses' handlers for it. */
static struct event_type *event_type_for(struct run *run, int id, struct tep_record *r)
{
	struct event_type *et;
	struct tep_format_field **all;

	if (id < 0 || id >= NEVENT_IDS)
		return NULL;
	if (run->types[id])
		return run->types[id];
	et = xmalloc(sizeof(*et));
	et->event = tep_find_event_by_record(run->ctx.tep, r);
	if (!et->event) {
		free(et);
		return NULL;
	}
	all = tep_event_fields(et->event);
	et->fields = xmalloc(sizeof(*et->fields) * ((size_t)et->event->format.nr_fields + 1));
	for (int i = 0; all && all[i]; i++) {
		if (!field_is_numeric(all[i]))
			continue;
		et->fields[et->nfields++] = all[i];
		if (!strcmp(all[i]->name, "nid"))
			et->nid = all[i];
	}
	free(all);
	for (int i = 0; i < run->ctx.nhandlers; i++) {
		if (run->ctx.handlers[i].event != et->event)
			continue;
		if (et->nhandlers == MAX_HANDLERS_PER_EVENT)
			die("internal: more than %d handlers for %s", MAX_HANDLERS_PER_EVENT,
			    et->event->name);
		et->handlers[et->nhandlers++] = &run->ctx.handlers[i];
	}
	run->types[id] = et;
	return et;
}

static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct run *run = data;
	struct event_type *et;
	int id, pid;
	double t;

	(void)h;
	(void)cpu;
	if (!run->started) {
		run->started = 1;
		run->t0 = r->ts;
	}
	if (r->ts > run->tlast)
		run->tlast = r->ts;
	run->records++;
	if (r->missed_events > 0)
		run->missed_events += (unsigned long long)r->missed_events;
	if (r->size < 8)
		return 0;
	id = tep_data_type(run->ctx.tep, r);
	et = event_type_for(run, id, r);
	if (!et)
		return 0;
	et->count++;
	pid = tep_data_pid(run->ctx.tep, r);
	if (run->write_tsv && et->nfields)
		tsv_row(run->outdir, run->t0, et, r, pid);
	if (!et->nhandlers)
		return 0;
	t = seconds_since(run->t0, r->ts);
	for (int i = 0; i < et->nhandlers; i++)
		et->handlers[i]->handle(et->handlers[i]->analysis, r, t, pid);
	return 0;
}

/* ---------------------------------------------------------------- metrics document */

static int has_field(struct tep_handle *tep, const char *system, const char *event,
		     const char *field)
{
	return find_field(find_event(tep, system, event), field) != NULL;
}

static json_object *trace_section(struct run *run, double duration)
{
	struct tep_handle *tep = run->ctx.tep;
	json_object *meta = json_object_new_object();

	json_set(meta, "file", json_object_new_string(trace_path));
	json_set(meta, "records", json_number((double)run->records));
	json_set(meta, "missed_events", json_number((double)run->missed_events));
	json_set(meta, "duration_s", json_number(duration));
	json_set(meta, "cpus", json_number(tep_get_cpus(tep)));
	json_set(meta, "has_dirty_pressure_event",
		 json_object_new_boolean(find_event(tep, "writeback", "dirty_pressure") != NULL));
	json_set(meta, "has_global_pressure_field",
		 json_object_new_boolean(has_field(tep, "writeback", "global_dirty_state", "pressure")));
	/* the series v2's fields for what the throttle compared against */
	json_set(meta, "has_global_freerun_field",
		 json_object_new_boolean(has_field(tep, "writeback", "global_dirty_state", "freerun")));
	json_set(meta, "has_throttle_fields",
		 json_object_new_boolean(has_field(tep, "writeback", "balance_dirty_pages", "freerun") &&
					 has_field(tep, "writeback", "balance_dirty_pages", "pos_ratio")));
	json_set(meta, "has_node_domain_fields",
		 json_object_new_boolean(has_field(tep, "writeback", "balance_dirty_pages", "node_dirty") &&
					 has_field(tep, "writeback", "balance_dirty_pages", "node_freerun") &&
					 has_field(tep, "writeback", "balance_dirty_pages", "node_limit")));
	/* the first event's own time stamp: the TSVs count from it, and samplers that
	 * read /proc/uptime in the guest are placed on the trace's axis with it */
	json_set(meta, "first_ts_s", json_number((double)run->t0 / 1e9));
	return meta;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		die("%s: cannot open: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("%s: cannot read: %s", path, strerror(errno));
	if (n > 64L << 20)
		die("%s: larger than 64 MiB, not a metrics file", path);
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("%s: cannot read: %s", path, strerror(errno));
	buf[n] = 0;
	fclose(f);
	if (strlen(buf) != (size_t)n)
		die("%s: contains a NUL byte, not JSON", path);
	return buf;
}

/* A copy of a parsed value whose numbers are written as the trace's metrics are
 * (json_number): an extra metric reads the same in the output as before json-c. */
static json_object *normalized(json_object *v)
{
	json_object *copy;

	switch (json_object_get_type(v)) {
	case json_type_boolean:
		return json_object_new_boolean(json_object_get_boolean(v));
	case json_type_double:
	case json_type_int:
		return json_number(json_object_get_double(v));
	case json_type_string:
		return json_object_new_string_len(json_object_get_string(v),
						  json_object_get_string_len(v));
	case json_type_array:
		copy = json_object_new_array();
		for (size_t i = 0; i < json_object_array_length(v); i++)
			json_object_array_add(copy, normalized(json_object_array_get_idx(v, i)));
		return copy;
	case json_type_object: {
		copy = json_object_new_object();
		json_object_object_foreach(v, key, value)
			json_set(copy, key, normalized(value));
		return copy;
	}
	case json_type_null:
	default:
		return NULL;
	}
}

static void merge_extra(json_object *metrics, const char *path)
{
	char *text = slurp(path);
	struct json_tokener *tok = json_tokener_new_ex(64);
	json_object *extra;

	if (!tok)
		die("out of memory");
	/* strict: RFC 8259 only, and nothing but white space after the value */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	/* the length counts the NUL, which ends the text (and a bare number) */
	extra = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
	if (!extra) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		die("%s: not valid JSON: at byte %zu: %s", path, json_tokener_get_parse_end(tok),
		    e == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	free(text);
	if (!json_object_is_type(extra, json_type_object))
		die("%s: extra metrics must be a JSON object", path);
	json_object_object_foreach(extra, key, value) {
		if (json_object_object_get_ex(metrics, key, NULL))
			die("%s: key '%s' clashes with a metric from the trace", path, key);
		json_set(metrics, key, normalized(value));
	}
	json_object_put(extra);
}

static void write_document(json_object *doc, const char *path)
{
	FILE *f = fopen(path, "w");
	const char *text;

	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		die("out of memory");
	fputs(text, f);
	fputc('\n', f);
	if (fclose(f))
		die("writing %s failed: %s", path, strerror(errno));
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s TRACE.dat --out DIR [--json FILE] [--extra-metrics FILE]...\n"
		"       [--nodes N] [--task COMM]... [--no-tsv]\n"
		"\n"
		"Reads a trace-cmd trace.dat in one pass and writes:\n"
		"  DIR/tsv/<event>[.nodeN].tsv  time series: time_s cpu pid <numeric fields>\n"
		"  DIR/metrics.json (or --json FILE)  {trace, metrics}\n"
		"\n"
		"  --extra-metrics FILE  a JSON object merged into metrics (e.g. vmstat deltas);\n"
		"                        may be given up to %d times\n"
		"  --no-tsv              metrics only\n"
		"  --nodes N             report nodes 0..N-1 even if no event names them\n"
		"  --task COMM           balance_dirty_pages.task.COMM.{calls,pauses,pause_max_ms}:\n"
		"                        that task name's own entries, 0 when it never entered;\n"
		"                        with sched:sched_switch in the trace, sched.task.COMM:\n"
		"                        its time on a CPU, runnable, blocked, sleeping, and who\n"
		"                        ran while it waited (sched.c);\n"
		"                        up to %d times, COMM 1..15 of [A-Za-z0-9_.-]\n"
		"\n"
		"Checks of the metrics are launch/collect.py's (a scenario's check lines).\n"
		"Exit: 0 written, 2 bad input (one line on stderr says what).\n",
		prog, MAXEXTRA, MAXTASK);
}

static void mkdir_p(const char *dir)
{
	char buf[4096];

	if (strlen(dir) >= sizeof(buf))
		die("output path too long");
	strcpy(buf, dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			die("cannot create %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		die("cannot create %s: %s", buf, strerror(errno));
}

struct options {
	const char *out, *json, *extra[MAXEXTRA];
	int nextra, nodes, write_tsv;
};

static void add_task(struct analysis_context *ctx, const char *comm)
{
	size_t len = strlen(comm);

	if (!len || len > 15 ||
	    strspn(comm, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
		die("--task: want a task name of 1..15 characters [A-Za-z0-9_.-], not '%s'", comm);
	for (int i = 0; i < ctx->ntasks; i++)
		if (!strcmp(ctx->tasks[i], comm))
			die("--task %s given twice", comm);
	if (ctx->ntasks == MAXTASK)
		die("at most %d --task names", MAXTASK);
	memcpy(ctx->tasks[ctx->ntasks++], comm, len + 1);
}

static void parse_options(int argc, char **argv, struct options *o, struct analysis_context *ctx)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "json", required_argument, NULL, 'j' },
		{ "extra-metrics", required_argument, NULL, 'x' },
		{ "no-tsv", no_argument, NULL, 'n' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "task", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	o->write_tsv = 1;
	opterr = 0; /* our own one-line messages instead of getopt's */
	while ((opt = getopt_long(argc, argv, ":o:j:x:nN:t:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': o->out = optarg; break;
		case 'j': o->json = optarg; break;
		case 'x':
			if (o->nextra == MAXEXTRA)
				die("at most %d --extra-metrics files", MAXEXTRA);
			o->extra[o->nextra++] = optarg;
			break;
		case 'n': o->write_tsv = 0; break;
		case 'N': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > MAXNODE)
				die("--nodes: want a node count 1..%d, not '%s'", MAXNODE, optarg);
			o->nodes = (int)v;
			break;
		}
		case 't': add_task(ctx, optarg); break;
		case 'h': usage(stdout); exit(0);
		case ':':
			die("option '%s' needs an argument (see --help)", argv[optind - 1]);
		default:
			die("unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		die(optind == argc ? "missing TRACE.dat argument (see --help)"
				   : "exactly one TRACE.dat argument expected (see --help)");
	if (!o->out)
		die("--out DIR is required (see --help)");
}

static struct tracecmd_input *open_trace(const char *path)
{
	struct tracecmd_input *h;
	struct sigaction sa;

	if (access(path, R_OK))
		die("%s: cannot read: %s", path, strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	/* libtracecmd and libtraceevent print their own warnings; we print one line instead */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h)
		die("%s: not a readable trace.dat (bad header, unsupported version or truncated)", path);
	if (!tracecmd_get_tep(h))
		die("%s: trace has no event formats", path);
	return h;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct tracecmd_input *h;
	struct run *run = xmalloc(sizeof(*run));
	struct analysis_context *ctx = &run->ctx;
	json_object *doc, *metrics, *counts;
	char path[4096];
	double duration;

	parse_options(argc, argv, &o, ctx);
	trace_path = argv[optind];
	h = open_trace(trace_path);
	ctx->trace_path = trace_path;
	ctx->tep = tracecmd_get_tep(h);
	ctx->page_size = tep_get_page_size(ctx->tep);
	if (ctx->page_size <= 0)
		ctx->page_size = file_page_size(trace_path);

	mkdir_p(o.out);
	if (o.write_tsv) {
		snprintf(path, sizeof(path), "%s/tsv", o.out);
		mkdir_p(path);
	}
	run->outdir = o.out;
	run->write_tsv = o.write_tsv;
	run->types = xmalloc(sizeof(*run->types) * NEVENT_IDS);
	/* nodes no event names still get metrics (e.g. "node 1 was never lowered") */
	for (int i = 0; i < o.nodes; i++)
		ctx->node_seen[i] = 1;
	for (size_t i = 0; i < NANALYSES; i++)
		run->analysis[i] = analyses[i]->create(ctx);

	if (tracecmd_iterate_events(h, NULL, 0, on_record, run) < 0)
		die("%s: cannot iterate events (corrupt data section)", trace_path);
	if (!run->records)
		die("%s: the trace holds no events", trace_path);
	for (int i = 0; i < NEVENT_IDS; i++)
		if (run->types[i] && tsv_close(run->types[i]))
			die("writing TSV under %s failed: %s", o.out, strerror(errno));

	duration = seconds_since(run->t0, run->tlast);
	doc = json_object_new_object();
	json_set(doc, "trace", trace_section(run, duration));
	metrics = json_child(doc, "metrics");
	json_set(metrics, "duration_s", json_number(duration));
	counts = json_child(metrics, "counts");
	for (int i = 0; i < NEVENT_IDS; i++)
		if (run->types[i])
			json_set(counts, run->types[i]->event->name,
				 json_number((double)run->types[i]->count));
	for (size_t i = 0; i < NANALYSES; i++)
		analyses[i]->emit(run->analysis[i], metrics, duration);
	if (ctx->events_with_bad_nid)
		json_set(metrics, "events_with_bad_nid", json_number((double)ctx->events_with_bad_nid));
	for (int i = 0; i < o.nextra; i++)
		merge_extra(metrics, o.extra[i]);

	if (o.json)
		snprintf(path, sizeof(path), "%s", o.json);
	else
		snprintf(path, sizeof(path), "%s/metrics.json", o.out);
	write_document(doc, path);

	json_object_put(doc);
	for (size_t i = 0; i < NANALYSES; i++)
		analyses[i]->destroy(run->analysis[i]);
	for (int i = 0; i < NEVENT_IDS; i++) {
		if (run->types[i]) {
			free(run->types[i]->fields);
			free(run->types[i]);
		}
	}
	free(run->types);
	tracecmd_close(h);
	free(run);
	return 0;
}
