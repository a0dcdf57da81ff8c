/*
 * dpanalyze: one pass over a trace.dat (libtracecmd) into TSV time series, metrics and checks.
 *
 * Fields are read by name through libtraceevent (tep_find_field once per event type,
 * tep_read_number_field per record), so the file's own format descriptions decide the
 * layout: an appended field (global_dirty_state.pressure) is found when present and its
 * metrics are marked unmeasurable when not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include "checks.h"
#include "json.h"

#define MAXNODE 64
#define MAXEXTRA 8

static const char *prog = "dpanalyze";
static const char *trace_path;

static void die2(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die2(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		die2("out of memory");
	return p;
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

/* ---------------------------------------------------------------- growable arrays */

struct dvec {
	double *v;
	size_t n, cap;
};

static void dpush(struct dvec *d, double x)
{
	if (d->n == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 256;
		d->v = realloc(d->v, d->cap * sizeof(double));
		if (!d->v)
			die2("out of memory");
	}
	d->v[d->n++] = x;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* nearest-rank percentile of a sorted vector */
static double pct(const struct dvec *d, double p)
{
	size_t k;

	if (!d->n)
		return NAN;
	k = (size_t)ceil(p / 100.0 * (double)d->n);
	if (k < 1)
		k = 1;
	return d->v[k - 1];
}

/* ---------------------------------------------------------------- per event type */

struct evtype {
	struct tep_event *ev;
	int nf;
	struct tep_format_field **f; /* numeric fields, in format order */
	struct tep_format_field *nid;
	FILE *tsv[MAXNODE + 1];      /* [MAXNODE] = the event has no nid */
	unsigned long long count;
};

/* Fields the specific analyses read, looked up once per trace. */
struct fieldset {
	struct tep_event *ev;
	struct tep_format_field *a[16];
};

enum { DP_NID, DP_OLD, DP_NEW, DP_PRIO, DP_REASON };
enum { GD_DIRTY, GD_BG, GD_THRESH, GD_LIMIT, GD_PRESSURE, GD_WRITTEN, GD_WB, GD_FREERUN };
/* BD_FREERUN.. are fields the series v2 appends: absent on older kernels */
enum { BD_PAUSE, BD_PAUSED, BD_DRL, BD_TRL, BD_FREERUN, BD_POS, BD_NDIRTY, BD_NFREERUN, BD_NLIMIT,
       BD_DIRTY, BD_SETPOINT };
enum { BQ_SECTORS, BQ_RWBS, BQ_COMM };
enum { BW_BW, BW_AVG, BW_BDI };
enum { SI_NID, SI_PRIO };
enum { WF_FLAGS };
enum { KS_NID };
enum { TH_NID, TH_DELAYED };
enum { WS_REASON };

struct node {
	int seen;
	/* dirty pressure, a step function of time */
	int have;
	double cur, min, integral, below512, since;
	unsigned long fast_down, slow_up, writes, resets;
	unsigned long formula_ok, formula_bad;
	/* against the batch that caused it (see pending_fd) and, literally, the preceding scan */
	unsigned long prio_matched, prio_unmatched, prio_noscan;
	unsigned long prev_matched, prev_unmatched, prev_none;
	/* pooled least squares over runs of consecutive slow_up events */
	unsigned long run_n, runs;
	double rt, rv, rtt, rtv, sxx, sxy;
	int last_shrink_prio;
	unsigned long kswapd_wake, kswapd_sleep, throttled, shrink_inactive, shrink_dirty;
	/* kswapd between mm_vmscan_kswapd_wake and _sleep; the series applies no
	 * recovery in that window (dirty_pressure_kswapd_wake() runs before the
	 * wake event, dirty_pressure_kswapd_sleep() after the sleep event) */
	int kswapd_awake;
	unsigned long slow_up_awake;
	double throttled_us;
};

struct bwpoint {
	double t, bw, avg;
	int bdi; /* index into state.bdis */
	/* the latest global_dirty_state.nr_written (pages) before this estimate, and its time */
	double written, written_t;
};

#define MAXBDI 16
#define MAXTASK 8

struct state {
	struct tep_handle *tep;
	const char *outdir;
	int write_tsv;
	struct evtype **types; /* by event id */
	int ntypes;
	unsigned long long t0, tlast, records, missed;
	int started;

	struct fieldset dp, gd, bd, bw, si, wf, kw, ksl, th, drb, dre, ws, bq;
	struct node node[MAXNODE];
	unsigned long bad_nid;

	/*
	 * The series applies a fast_down inside shrink_inactive_list(), before that batch's
	 * mm_vmscan_lru_shrink_inactive fires: the scan that caused a fast_down is the same
	 * task's next lru_shrink_inactive on the node, not the preceding one (checked on a
	 * guest trace).  Fast-downs wait here for it.
	 */
	struct {
		int pid, nid, prio;
	} pend[64];
	int npend;

	int last_lower_nid;
	double last_lower_t;

	struct dvec pauses, held;
	unsigned long bdp_calls, bdp_nopause;
	/* --task COMM: that task's own balance_dirty_pages() entries and pauses, zeros included */
	struct {
		char comm[16];
		unsigned long calls, pauses;
		long long pause_max;
	} task[MAXTASK];
	int ntask;
	long long pause_gcd; /* of every pause > 0: the trace's jiffy in ms */

	struct bwpoint *bwp;
	size_t nbw, capbw;
	char bdis[MAXBDI][33]; /* device names as the event gives them, e.g. "254:0" */
	unsigned long bdi_n[MAXBDI];
	int nbdi;

	double gd_pmin, gd_pint, gd_plast, gd_tlast, gd_tfirst;
	unsigned long gd_n;
	int gd_have;
	double gd_written, gd_written_t; /* NAN until a global_dirty_state gives nr_written */
	int page_size; /* the traced kernel's, in bytes; 0 if the file does not say */

	unsigned long pageout_file, pageout_anon;

	/* global_dirty_state's dirty and writeback pages, per sample */
	struct dvec gd_wb;
	/* global_dirty_state at pressure 0: time, freerun ceiling, nr_written (the floor) */
	struct dvec gz_t, gz_freerun, gz_written;
	double gd_dirty_peak, gd_wb_peak, gd_sum_peak;

	/* balance_dirty_pages: task_ratelimit / dirty_ratelimit, and the series v2 fields */
	struct dvec trl_ratio, pos_ratio;
	/* dirty / setpoint of each call, and the range dirty_ratelimit took */
	struct dvec dirty_to_setpoint;
	double drl_min, drl_max;
	unsigned long drl_n;
	double freerun_min, freerun_last;
	unsigned long freerun_n, node_calls;
	double node_over_limit_max; /* node_dirty / node_limit */

	/*
	 * block:block_bio_queue: write bios by submitter.  In 6.1 only kswapd writes file
	 * folios from reclaim (shrink_folio_list() sends direct reclaim's dirty file folios
	 * back to the LRU), and a bio is queued in the context of the task that submits it,
	 * so the write bios whose comm is kswapdN are reclaim's own writeback on node N.
	 */
	unsigned long bq_write_bios, bq_ksw_bios;
	double bq_write_pages, bq_ksw_pages, bq_ksw_meta_pages;
	double bq_ksw_node_pages[MAXNODE];
	int bq_ksw_node_seen[MAXNODE];

	/* direct reclaim begin time per pid (small open-addressing table) */
	int dr_pid[4096];
	double dr_t[4096];
	double dr_total, dr_max;
	unsigned long dr_n;

	unsigned long wb_vmscan;
};

static double secs(struct state *s, unsigned long long ts)
{
	return ts >= s->t0 ? (double)(ts - s->t0) / 1e9 : -(double)(s->t0 - ts) / 1e9;
}

/* Reads a field, checking it lies inside the record (a corrupt record may be short). */
static int rd(const struct tep_format_field *f, const struct tep_record *r, long long *out)
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

/* A char array field (comm, rwbs) as a C string; "" when it does not lie inside the record. */
static void rd_str(const struct tep_format_field *f, const struct tep_record *r, char *buf,
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

static void fs_init(struct state *s, struct fieldset *fs, const char *sys, const char *name,
		    const char *const *fields)
{
	fs->ev = tep_find_event_by_name(s->tep, sys, name);
	if (!fs->ev)
		return;
	for (int i = 0; fields[i]; i++)
		fs->a[i] = tep_find_field(fs->ev, fields[i]);
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

/* ---------------------------------------------------------------- TSV */

static int numeric(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

static struct evtype *evtype_for(struct state *s, int id, struct tep_record *r)
{
	struct evtype *et;
	struct tep_format_field **all;

	if (id < 0 || id >= s->ntypes)
		return NULL;
	if (s->types[id])
		return s->types[id];
	et = xmalloc(sizeof(*et));
	et->ev = tep_find_event_by_record(s->tep, r);
	if (!et->ev) {
		free(et);
		return NULL;
	}
	all = tep_event_fields(et->ev);
	for (int i = 0; all && all[i]; i++)
		;
	et->f = xmalloc(sizeof(*et->f) * ((size_t)et->ev->format.nr_fields + 1));
	for (int i = 0; all && all[i]; i++) {
		if (!numeric(all[i]))
			continue;
		et->f[et->nf++] = all[i];
		if (!strcmp(all[i]->name, "nid"))
			et->nid = all[i];
	}
	free(all);
	s->types[id] = et;
	return et;
}

static FILE *tsv_open(struct state *s, struct evtype *et, int slot)
{
	char path[4096];
	FILE *f;

	if (slot == MAXNODE)
		snprintf(path, sizeof(path), "%s/tsv/%s.tsv", s->outdir, et->ev->name);
	else
		snprintf(path, sizeof(path), "%s/tsv/%s.node%d.tsv", s->outdir, et->ev->name, slot);
	f = fopen(path, "w");
	if (!f)
		die2("cannot write %s: %s", path, strerror(errno));
	/* big buffers: a 100 MB trace writes a million rows */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	fputs("time_s\tcpu\tpid", f);
	for (int i = 0; i < et->nf; i++)
		fprintf(f, "\t%s", et->f[i]->name);
	fputc('\n', f);
	return f;
}

/* printf("%lld") and "%.9f" dominate a large trace's run time; this does not. */
static char *put_int(char *p, long long v)
{
	char tmp[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	if (v < 0)
		*p++ = '-';
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static void tsv_row(struct state *s, struct evtype *et, struct tep_record *r, int pid)
{
	char line[4096], *p = line;
	unsigned long long d = r->ts >= s->t0 ? r->ts - s->t0 : 0;
	unsigned long long frac = d % 1000000000ULL;
	int slot = MAXNODE;
	long long v;

	if (et->nid) {
		if (rd(et->nid, r, &v) || v < 0 || v >= MAXNODE)
			return; /* counted in bad_nid by the specific analysis where it matters */
		slot = (int)v;
	}
	if (!et->tsv[slot])
		et->tsv[slot] = tsv_open(s, et, slot);
	p = put_int(p, (long long)(d / 1000000000ULL));
	*p++ = '.';
	for (unsigned long long div = 100000000ULL; div; div /= 10)
		*p++ = (char)('0' + (frac / div) % 10);
	*p++ = '\t';
	p = put_int(p, r->cpu);
	*p++ = '\t';
	p = put_int(p, pid);
	for (int i = 0; i < et->nf && p - line < (long)sizeof(line) - 32; i++) {
		*p++ = '\t';
		if (rd(et->f[i], r, &v))
			*p++ = '-';
		else
			p = put_int(p, v);
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), et->tsv[slot]);
}

/* ---------------------------------------------------------------- specific analyses */

static struct node *node_at(struct state *s, long long nid)
{
	if (nid < 0 || nid >= MAXNODE) {
		s->bad_nid++;
		return NULL;
	}
	s->node[nid].seen = 1;
	return &s->node[nid];
}

static void pressure_advance(struct node *n, double t)
{
	double dt = t - n->since;

	if (dt > 0) {
		n->integral += n->cur * dt;
		if (n->cur < 512)
			n->below512 += dt;
	}
	n->since = t;
}

static void slow_up_close(struct node *n)
{
	if (n->run_n >= 2) {
		double k = (double)n->run_n;

		n->sxx += n->rtt - n->rt * n->rt / k;
		n->sxy += n->rtv - n->rt * n->rv / k;
		n->runs++;
	}
	n->run_n = 0;
	n->rt = n->rv = n->rtt = n->rtv = 0;
}

/* A fast_down whose batch scan never came: counted as having no scan. */
static void pending_drop(struct state *s, int k)
{
	s->node[s->pend[k].nid].prio_noscan++;
	s->pend[k] = s->pend[--s->npend];
}

static void pending_add(struct state *s, int pid, int nid, int prio)
{
	for (int k = 0; k < s->npend; k++)
		if (s->pend[k].pid == pid && s->pend[k].nid == nid) {
			pending_drop(s, k);
			break;
		}
	if (s->npend == (int)(sizeof(s->pend) / sizeof(s->pend[0])))
		pending_drop(s, 0);
	s->pend[s->npend].pid = pid;
	s->pend[s->npend].nid = nid;
	s->pend[s->npend++].prio = prio;
}

static void pending_scan(struct state *s, int pid, int nid, int prio)
{
	for (int k = 0; k < s->npend; k++) {
		if (s->pend[k].pid != pid || s->pend[k].nid != nid)
			continue;
		if (s->pend[k].prio == prio)
			s->node[nid].prio_matched++;
		else
			s->node[nid].prio_unmatched++;
		s->pend[k] = s->pend[--s->npend];
		return;
	}
}

static void on_dirty_pressure(struct state *s, struct tep_record *r, double t, int pid)
{
	long long nid, old, nw, prio, reason;
	struct node *n;

	if (rd(s->dp.a[DP_NID], r, &nid) || rd(s->dp.a[DP_OLD], r, &old) ||
	    rd(s->dp.a[DP_NEW], r, &nw) || rd(s->dp.a[DP_PRIO], r, &prio) ||
	    rd(s->dp.a[DP_REASON], r, &reason))
		return;
	n = node_at(s, nid);
	if (!n)
		return;
	if (!n->have) {
		/* the value before the first change: from trace start, it was `old` */
		n->have = 1;
		n->cur = n->min = (double)old;
		n->since = 0;
	}
	pressure_advance(n, t);
	n->cur = (double)nw;
	if (n->cur < n->min)
		n->min = n->cur;
	if (reason != 1)
		slow_up_close(n);
	switch (reason) {
	case 0:
		n->fast_down++;
		if (prio >= 0 && prio <= 13 && nw == (1024LL >> (13 - prio)))
			n->formula_ok++;
		else
			n->formula_bad++;
		if (n->last_shrink_prio < 0)
			n->prev_none++;
		else if (n->last_shrink_prio == prio)
			n->prev_matched++;
		else
			n->prev_unmatched++;
		pending_add(s, pid, (int)nid, (int)prio);
		s->last_lower_nid = (int)nid;
		s->last_lower_t = t;
		break;
	case 1:
		n->slow_up++;
		if (n->kswapd_awake)
			n->slow_up_awake++;
		n->run_n++;
		n->rt += t;
		n->rv += (double)nw;
		n->rtt += t * t;
		n->rtv += t * (double)nw;
		break;
	case 2:
		n->writes++;
		break;
	default:
		n->resets++;
		break;
	}
}

static void on_global_dirty_state(struct state *s, struct tep_record *r, double t)
{
	long long p, d, w;

	if (!rd(s->gd.a[GD_DIRTY], r, &d) && !rd(s->gd.a[GD_WB], r, &w)) {
		dpush(&s->gd_wb, (double)w);
		if ((double)d > s->gd_dirty_peak)
			s->gd_dirty_peak = (double)d;
		if ((double)w > s->gd_wb_peak)
			s->gd_wb_peak = (double)w;
		if ((double)(d + w) > s->gd_sum_peak)
			s->gd_sum_peak = (double)(d + w);
	}

	if (s->gd.a[GD_WRITTEN] && !rd(s->gd.a[GD_WRITTEN], r, &p)) {
		s->gd_written = (double)p;
		s->gd_written_t = t;
	}
	if (!s->gd.a[GD_PRESSURE] || rd(s->gd.a[GD_PRESSURE], r, &p))
		return;
	/* at pressure 0 the scaled freerun ceiling is min(stock ceiling, floor) */
	if (p == 0 && !isnan(s->gd_written) && s->gd_written_t == t &&
	    !rd(s->gd.a[GD_FREERUN], r, &d)) {
		dpush(&s->gz_t, t);
		dpush(&s->gz_freerun, (double)d);
		dpush(&s->gz_written, s->gd_written);
	}
	if (s->gd_have) {
		s->gd_pint += s->gd_plast * (t - s->gd_tlast);
	} else {
		s->gd_have = 1;
		s->gd_pmin = (double)p;
		s->gd_tfirst = t;
	}
	if (p < s->gd_pmin)
		s->gd_pmin = (double)p;
	s->gd_plast = (double)p;
	s->gd_tlast = t;
	s->gd_n++;
}

static long long gcdll(long long a, long long b)
{
	while (b) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void on_balance_dirty_pages(struct state *s, struct tep_record *r)
{
	long long pause, paused;

	long long drl, trl, v, nd, nl;

	if (rd(s->bd.a[BD_PAUSE], r, &pause) || rd(s->bd.a[BD_PAUSED], r, &paused))
		return;
	s->bdp_calls++;
	if (s->ntask) {
		const char *comm = tep_data_comm_from_pid(s->tep, tep_data_pid(s->tep, r));

		for (int i = 0; comm && i < s->ntask; i++) {
			if (strcmp(s->task[i].comm, comm))
				continue;
			s->task[i].calls++;
			if (pause > 0) {
				s->task[i].pauses++;
				if (pause > s->task[i].pause_max)
					s->task[i].pause_max = pause;
			}
		}
	}
	/* both in KB/s in the event; task_ratelimit is dirty_ratelimit times pos_ratio */
	if (!rd(s->bd.a[BD_DRL], r, &drl)) {
		if (!rd(s->bd.a[BD_TRL], r, &trl) && drl > 0)
			dpush(&s->trl_ratio, (double)trl / (double)drl);
		if (!s->drl_n || (double)drl < s->drl_min)
			s->drl_min = (double)drl;
		if (!s->drl_n || (double)drl > s->drl_max)
			s->drl_max = (double)drl;
		s->drl_n++;
	}
	if (!rd(s->bd.a[BD_DIRTY], r, &nd) && !rd(s->bd.a[BD_SETPOINT], r, &nl) && nl > 0)
		dpush(&s->dirty_to_setpoint, (double)nd / (double)nl);
	if (!rd(s->bd.a[BD_POS], r, &v))
		dpush(&s->pos_ratio, (double)v / 1024.0); /* fixed point, 1024 = 1.0 */
	if (!rd(s->bd.a[BD_FREERUN], r, &v)) {
		if (!s->freerun_n || (double)v < s->freerun_min)
			s->freerun_min = (double)v;
		s->freerun_last = (double)v;
		s->freerun_n++;
	}
	/* all three 0: the task has no node domain */
	if (!rd(s->bd.a[BD_NDIRTY], r, &nd) && !rd(s->bd.a[BD_NLIMIT], r, &nl) && nl > 0) {
		s->node_calls++;
		if ((double)nd / (double)nl > s->node_over_limit_max)
			s->node_over_limit_max = (double)nd / (double)nl;
	}
	if (pause <= 0) {
		s->bdp_nopause++;
		return;
	}
	dpush(&s->pauses, (double)pause);
	s->pause_gcd = gcdll(s->pause_gcd, pause);
	/* `paused` is the time already spent in this balance_dirty_pages() call, so the task
	 * is held paused+pause ms in one go by the time this sleep ends */
	dpush(&s->held, (double)(paused + pause));
}

static void on_bdi_dirty_ratelimit(struct state *s, struct tep_record *r, double t)
{
	long long bw, avg;
	struct tep_format_field *bf = s->bw.a[BW_BDI];

	if (rd(s->bw.a[BW_BW], r, &bw) || rd(s->bw.a[BW_AVG], r, &avg))
		return;
	char name[33] = "?";
	int k;

	if (bf && bf->offset >= 0 && bf->offset + bf->size <= r->size) {
		size_t len = (size_t)bf->size < sizeof(name) - 1 ? (size_t)bf->size : sizeof(name) - 1;

		memcpy(name, (char *)r->data + bf->offset, len);
		name[len] = 0;
		for (char *c = name; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
	}
	for (k = 0; k < s->nbdi && strcmp(s->bdis[k], name); k++)
		;
	if (k == s->nbdi) {
		if (s->nbdi == MAXBDI)
			return; /* more devices than any lab topology has: ignore the rest */
		memcpy(s->bdis[k], name, sizeof(name));
		s->nbdi++;
	}
	s->bdi_n[k]++;
	if (s->nbw == s->capbw) {
		s->capbw = s->capbw ? 2 * s->capbw : 256;
		s->bwp = realloc(s->bwp, s->capbw * sizeof(*s->bwp));
		if (!s->bwp)
			die2("out of memory");
	}
	s->bwp[s->nbw++] = (struct bwpoint){ t, (double)bw, (double)avg, k, s->gd_written,
					     s->gd_written_t };
}

static void on_block_bio_queue(struct state *s, struct tep_record *r)
{
	char rwbs[16], comm[32];
	long long sectors;
	double pages;
	const char *c;
	int nid = -1;

	if (rd(s->bq.a[BQ_SECTORS], r, &sectors) || sectors < 0 || s->page_size <= 0)
		return;
	rd_str(s->bq.a[BQ_RWBS], r, rwbs, sizeof(rwbs));
	rd_str(s->bq.a[BQ_COMM], r, comm, sizeof(comm));
	/* blk_fill_rwbs(): an optional F (preflush) first, then the operation letter */
	c = rwbs[0] == 'F' ? rwbs + 1 : rwbs;
	if (*c != 'W')
		return;
	pages = (double)sectors * 512.0 / (double)s->page_size;
	s->bq_write_bios++;
	s->bq_write_pages += pages;
	if (strncmp(comm, "kswapd", 6))
		return;
	if (comm[6] >= '0' && comm[6] <= '9') {
		nid = atoi(comm + 6);
		if (nid >= MAXNODE)
			nid = -1;
	}
	/* REQ_META ('M'): filesystem metadata (XFS buffers and log), not page cache */
	if (strchr(c, 'M')) {
		s->bq_ksw_meta_pages += pages;
		return;
	}
	s->bq_ksw_bios++;
	s->bq_ksw_pages += pages;
	if (nid >= 0) {
		s->bq_ksw_node_pages[nid] += pages;
		s->bq_ksw_node_seen[nid] = 1;
	}
}

static int dr_slot(struct state *s, int pid)
{
	unsigned int h = (unsigned int)pid * 2654435761u % 4096u;

	for (int i = 0; i < 4096; i++, h = (h + 1) % 4096u)
		if (s->dr_pid[h] == pid || s->dr_pid[h] == 0)
			return (int)h;
	return -1;
}

static void on_record_specific(struct state *s, struct tep_event *ev, struct tep_record *r,
			       int pid)
{
	double t = secs(s, r->ts);
	long long v;
	struct node *n;

	if (ev == s->dp.ev) {
		on_dirty_pressure(s, r, t, pid);
	} else if (ev == s->gd.ev) {
		on_global_dirty_state(s, r, t);
	} else if (ev == s->bd.ev) {
		on_balance_dirty_pages(s, r);
	} else if (ev == s->bw.ev) {
		on_bdi_dirty_ratelimit(s, r, t);
	} else if (ev == s->si.ev) {
		long long prio;

		if (rd(s->si.a[SI_NID], r, &v) || rd(s->si.a[SI_PRIO], r, &prio))
			return;
		n = node_at(s, v);
		if (n) {
			pending_scan(s, pid, (int)v, (int)prio);
			n->last_shrink_prio = (int)prio;
			n->shrink_inactive++;
		}
	} else if (ev == s->wf.ev) {
		if (rd(s->wf.a[WF_FLAGS], r, &v))
			return;
		/* RECLAIM_WB_FILE, include/trace/events/vmscan.h */
		if (v & 0x2)
			s->pageout_file++;
		else
			s->pageout_anon++;
	} else if (ev == s->kw.ev || ev == s->ksl.ev) {
		if (rd((ev == s->kw.ev ? s->kw.a : s->ksl.a)[KS_NID], r, &v))
			return;
		n = node_at(s, v);
		if (n && ev == s->kw.ev) {
			n->kswapd_wake++;
			n->kswapd_awake = 1;
		} else if (n) {
			n->kswapd_sleep++;
			n->kswapd_awake = 0;
		}
	} else if (ev == s->th.ev) {
		long long d;

		if (rd(s->th.a[TH_NID], r, &v) || rd(s->th.a[TH_DELAYED], r, &d))
			return;
		n = node_at(s, v);
		if (n) {
			n->throttled++;
			n->throttled_us += (double)d;
		}
	} else if (ev == s->drb.ev || ev == s->dre.ev) {
		int k = dr_slot(s, pid ? pid : -1);

		if (k < 0)
			return;
		if (ev == s->drb.ev) {
			s->dr_pid[k] = pid ? pid : -1;
			s->dr_t[k] = t;
		} else if (s->dr_pid[k] == (pid ? pid : -1) && s->dr_t[k] >= 0) {
			double d = t - s->dr_t[k];

			s->dr_total += d;
			s->dr_n++;
			if (d > s->dr_max)
				s->dr_max = d;
			s->dr_t[k] = -1;
		}
	} else if (ev == s->bq.ev) {
		on_block_bio_queue(s, r);
	} else if (ev == s->ws.ev) {
		/* WB_REASON_VMSCAN == 1 in 6.1 */
		if (!rd(s->ws.a[WS_REASON], r, &v) && v == 1)
			s->wb_vmscan++;
	}
}

static int on_record(struct tracecmd_input *h, struct tep_record *r, int cpu, void *data)
{
	struct state *s = data;
	struct evtype *et;
	int id, pid;

	(void)h;
	(void)cpu;
	if (!s->started) {
		s->started = 1;
		s->t0 = r->ts;
	}
	if (r->ts > s->tlast)
		s->tlast = r->ts;
	s->records++;
	if (r->missed_events > 0)
		s->missed += (unsigned long long)r->missed_events;
	if (r->size < 8)
		return 0;
	id = tep_data_type(s->tep, r);
	et = evtype_for(s, id, r);
	if (!et)
		return 0;
	et->count++;
	pid = tep_data_pid(s->tep, r);
	if (s->write_tsv && et->nf)
		tsv_row(s, et, r, pid);
	on_record_specific(s, et->ev, r, pid);
	return 0;
}

/* ---------------------------------------------------------------- metrics */

static void unmeasurable(struct jval *m, const char *path, const char *why)
{
	j_set(j_child(m, "unmeasurable"), path, j_str(why));
}

static void metrics_pressure(struct state *s, struct jval *m, double dur)
{
	struct jval *p = j_child(m, "pressure");
	int any = 0;

	while (s->npend)
		pending_drop(s, 0);

	if (!s->dp.ev) {
		unmeasurable(m, "pressure",
			     "no writeback:dirty_pressure event in this trace (kernel without the series?)");
		j_set(m, "last_lowering_node", j_null());
		unmeasurable(m, "last_lowering_node", "no writeback:dirty_pressure event in this trace");
	} else {
		for (int i = 0; i < MAXNODE; i++) {
			struct node *n = &s->node[i];
			struct jval *o;
			char key[16];

			if (!n->seen)
				continue;
			any = 1;
			snprintf(key, sizeof(key), "node%d", i);
			o = j_child(p, key);
			if (!n->have) {
				/* no change traced: it stayed where it was, 1024 unless set before the trace */
				n->cur = n->min = 1024;
				n->since = 0;
				j_set(o, "assumed_unchanged", j_bool(1));
			}
			pressure_advance(n, dur);
			slow_up_close(n);
			j_set(o, "min", j_num(n->min));
			j_set(o, "mean", j_num(dur > 0 ? n->integral / dur : n->cur));
			j_set(o, "final", j_num(n->cur));
			j_set(o, "time_below_512_s", j_num(n->below512));
			j_set(o, "fast_down", j_num((double)n->fast_down));
			j_set(o, "slow_up", j_num((double)n->slow_up));
			j_set(o, "slow_up_while_kswapd_awake", j_num((double)n->slow_up_awake));
			j_set(o, "write", j_num((double)n->writes));
			j_set(o, "reset", j_num((double)n->resets));
			j_set(o, "recovery_slope_per_s", n->sxx > 0 ? j_num(n->sxy / n->sxx) : j_null());
			if (n->sxx <= 0) {
				char path[64];

				snprintf(path, sizeof(path), "pressure.%s.recovery_slope_per_s", key);
				unmeasurable(m, path, "fewer than two slow_up events in a row on this node");
			}
			j_set(o, "recovery_runs", j_num((double)n->runs));
			j_set(o, "fast_down_formula_ok", j_num((double)n->formula_ok));
			j_set(o, "fast_down_formula_bad", j_num((double)n->formula_bad));
			j_set(o, "fast_down_priority_matched", j_num((double)n->prio_matched));
			j_set(o, "fast_down_priority_unmatched", j_num((double)n->prio_unmatched));
			j_set(o, "fast_down_no_scan", j_num((double)n->prio_noscan));
			j_set(o, "fast_down_preceding_priority_matched", j_num((double)n->prev_matched));
			j_set(o, "fast_down_preceding_priority_unmatched", j_num((double)n->prev_unmatched));
			j_set(o, "fast_down_no_preceding_scan", j_num((double)n->prev_none));
		}
		if (!any)
			unmeasurable(m, "pressure", "no node appears in the trace's events");
		j_set(m, "last_lowering_node", s->last_lower_nid >= 0 ? j_num(s->last_lower_nid) : j_null());
		if (s->last_lower_nid >= 0)
			j_set(m, "last_lowering_time_s", j_num(s->last_lower_t));
		else
			unmeasurable(m, "last_lowering_node", "no fast_down event in this trace");
	}
	/* the effective value in global_dirty_state, independent of the dirty_pressure event */
	if (s->gd.ev && s->gd.a[GD_PRESSURE] && s->gd_have) {
		struct jval *g = j_child(p, "global");

		s->gd_pint += s->gd_plast * (dur - s->gd_tlast);
		j_set(g, "min", j_num(s->gd_pmin));
		/* time-weighted from the first sample: before it the value is unknown */
		j_set(g, "mean", j_num(dur > s->gd_tfirst ? s->gd_pint / (dur - s->gd_tfirst) : s->gd_plast));
		j_set(g, "final", j_num(s->gd_plast));
	} else {
		unmeasurable(m, "pressure.global",
			     s->gd.ev ? "global_dirty_state has no pressure field (stock kernel)"
				      : "no writeback:global_dirty_state event in this trace");
	}
}

static void metrics_pauses(struct state *s, struct jval *m)
{
	struct jval *b;
	size_t inband = 0;
	double hmax = 0;
	long long jiffy_ms, hz, band_low, band_high;

	if (!s->bd.ev) {
		unmeasurable(m, "balance_dirty_pages", "no writeback:balance_dirty_pages event in this trace");
		return;
	}
	b = j_child(m, "balance_dirty_pages");
	if (s->ntask) {
		struct jval *tk = j_child(b, "task");

		for (int i = 0; i < s->ntask; i++) {
			struct jval *t = j_child(tk, s->task[i].comm);

			j_set(t, "calls", j_num((double)s->task[i].calls));
			j_set(t, "pauses", j_num((double)s->task[i].pauses));
			j_set(t, "pause_max_ms", j_num((double)s->task[i].pause_max));
		}
	}
	if (s->pauses.n)
		qsort(s->pauses.v, s->pauses.n, sizeof(double), dcmp);
	/*
	 * The band is the kernel's own, in whole jiffies: wb_min_pause() aims
	 * at "10ms" as max(1, HZ / 100) jiffies and MAX_PAUSE is max(HZ / 5, 1)
	 * jiffies.  At HZ=250 that is 8..200 ms, and 8 ms is the 1-dd target,
	 * not a short pause.  The pauses are jiffies_to_msecs() of whole
	 * jiffies, so their gcd is the jiffy (4 ms at HZ=250) once the trace
	 * holds a few of them; HZ values whose jiffy is no whole number of ms
	 * give a gcd of 1 and the nominal 10..200 ms band.
	 */
	jiffy_ms = s->pause_gcd > 0 && 1000 % s->pause_gcd == 0 ? s->pause_gcd : 1;
	hz = 1000 / jiffy_ms;
	band_low = (hz / 100 > 1 ? hz / 100 : 1) * jiffy_ms;
	band_high = (hz / 5 > 1 ? hz / 5 : 1) * jiffy_ms;
	for (size_t i = 0; i < s->pauses.n; i++)
		if (s->pauses.v[i] >= (double)band_low && s->pauses.v[i] <= (double)band_high)
			inband++;
	for (size_t i = 0; i < s->held.n; i++)
		if (s->held.v[i] > hmax)
			hmax = s->held.v[i];
	j_set(b, "calls", j_num((double)s->bdp_calls));
	j_set(b, "calls_without_pause", j_num((double)s->bdp_nopause));
	j_set(b, "pauses", j_num((double)s->pauses.n));
	j_set(b, "pause_p50_ms", j_num(pct(&s->pauses, 50)));
	j_set(b, "pause_p90_ms", j_num(pct(&s->pauses, 90)));
	j_set(b, "pause_p99_ms", j_num(pct(&s->pauses, 99)));
	j_set(b, "pause_max_ms", j_num(pct(&s->pauses, 100)));
	j_set(b, "pause_share_in_band",
	      s->pauses.n ? j_num((double)inband / (double)s->pauses.n) : j_null());
	j_set(b, "pause_band_low_ms", j_num((double)band_low));
	j_set(b, "pause_band_high_ms", j_num((double)band_high));
	j_set(b, "jiffy_ms", s->pause_gcd > 0 ? j_num((double)jiffy_ms) : j_null());
	/* entered but never paused: held 0 ms, which is a measurement */
	j_set(b, "max_held_ms", s->held.n ? j_num(hmax) : s->bdp_calls ? j_num(0) : j_null());
	if (!s->pauses.n)
		unmeasurable(m, "balance_dirty_pages", "balance_dirty_pages never paused a task");
}

/*
 * Where the estimate settled, beside the final one: "converges within 10% in
 * 10 s" is a claim about every estimate from 10 s after the first on, and one
 * sample says little of it.  The last estimate follows the last ~3 s of
 * completions (6.1 blends a 3 s period), so a writer finishing or a guest
 * stalled near the end moves it: on this lab's TCG hosts the final estimate
 * was 0.83-1.17 of the device's whole-span rate in runs whose device held its
 * throttle.  Settled: the estimates from first + 10 s to the last, their
 * 10th/50th/90th percentile over what the device wrote in that same window.
 */
#define BW_SETTLE_S 10.0

/* kB/s the device wrote between two estimates, from their nr_written (pages) */
static double device_kBps(const struct state *s, const struct bwpoint *a, const struct bwpoint *b)
{
	return (b->written - a->written) * (double)s->page_size / 1024.0 / (b->written_t - a->written_t);
}

static void metrics_bandwidth_settled(struct state *s, struct jval *m, struct jval *b, int best,
				      double t_first, const struct bwpoint *wlast)
{
	struct dvec est = { 0 };
	const struct bwpoint *w0 = NULL;
	double dev, span;

	for (size_t i = 0; i < s->nbw; i++) {
		const struct bwpoint *p = &s->bwp[i];

		if (p->bdi != best || p->t < t_first + BW_SETTLE_S)
			continue;
		dpush(&est, p->avg);
		if (!w0 && !isnan(p->written))
			w0 = p;
	}
	span = w0 ? wlast->written_t - w0->written_t : 0;
	if (!w0 || span < 1.0 || wlast->written < w0->written) {
		unmeasurable(m, "bandwidth.settled_estimate_to_device",
			     "under 1 s of estimates from 10 s after the first one");
		free(est.v);
		return;
	}
	dev = device_kBps(s, w0, wlast);
	j_set(b, "settled_span_s", j_num(span));
	j_set(b, "settled_samples", j_num((double)est.n));
	j_set(b, "settled_device_write_kBps", j_num(dev));
	if (dev <= 0) {
		unmeasurable(m, "bandwidth.settled_estimate_to_device",
			     "the device wrote nothing in the settled window");
		free(est.v);
		return;
	}
	qsort(est.v, est.n, sizeof(double), dcmp);
	j_set(b, "settled_estimate_p10_to_device", j_num(pct(&est, 10) / dev));
	j_set(b, "settled_estimate_to_device", j_num(pct(&est, 50) / dev));
	j_set(b, "settled_estimate_p90_to_device", j_num(pct(&est, 90) / dev));
	free(est.v);
}

static void metrics_bandwidth(struct state *s, struct jval *m)
{
	struct jval *b;
	double fin = NAN, last_bw = NAN, conv = NAN, dev = NAN;
	size_t n = 0, lastk = 0;
	const struct bwpoint *wfirst = NULL, *wlast = NULL;
	int best = 0;

	if (!s->nbw) {
		unmeasurable(m, "bandwidth", "no writeback:bdi_dirty_ratelimit event in this trace");
		return;
	}
	b = j_child(m, "bandwidth");
	/* the device the run wrote to is the one with most estimates; others would mix in */
	for (int k = 1; k < s->nbdi; k++)
		if (s->bdi_n[k] > s->bdi_n[best])
			best = k;
	for (size_t i = 0; i < s->nbw; i++) {
		if (s->bwp[i].bdi != best)
			continue;
		fin = s->bwp[i].avg;
		last_bw = s->bwp[i].bw;
		lastk = i;
		n++;
		if (!isnan(s->bwp[i].written)) {
			if (!wfirst)
				wfirst = &s->bwp[i];
			wlast = &s->bwp[i];
		}
	}
	/*
	 * What the device really wrote while the estimates were made: the estimate is
	 * judged against this, not against the disk's nominal throttle, because a
	 * CPU-starved QEMU delivers less than its throttle (measured 18.4 MiB/s of a
	 * 20 MiB/s disk with one host core busy) and the estimator rightly follows.
	 * nr_written counts every device's completions: the scenarios that read this
	 * write one device (bdis says).  The whole throttled span is used because
	 * completions arrive in bursts of several MiB: over 10-18 s windows the
	 * measured rate scattered 16.1-23.4 MiB/s on a quiet host.
	 */
	if (wfirst && s->page_size > 0 && wlast->written_t - wfirst->written_t >= 1.0 &&
	    wlast->written >= wfirst->written)
		dev = device_kBps(s, wfirst, wlast);
	/* converged: from the first estimate after which avg_write_bw stays within 10% of final */
	conv = s->bwp[lastk].t;
	for (size_t i = lastk + 1; i-- > 0;) {
		if (s->bwp[i].bdi != best)
			continue;
		if (fabs(s->bwp[i].avg - fin) > 0.1 * fin)
			break;
		conv = s->bwp[i].t;
	}
	j_set(b, "bdi", j_str(s->bdis[best]));
	j_set(b, "bdis", j_num(s->nbdi));
	j_set(b, "samples", j_num((double)n));
	j_set(b, "write_bw_final_kBps", j_num(last_bw));
	j_set(b, "avg_write_bw_final_kBps", j_num(fin));
	j_set(b, "converge_time_s", j_num(conv));
	if (isnan(dev)) {
		unmeasurable(m, "bandwidth.device_write_kBps",
			     !s->gd.a[GD_WRITTEN] ? "global_dirty_state has no nr_written field"
			     : s->page_size <= 0 ? "the trace file gives no page size"
			     : "under 1 s of estimates with global_dirty_state.nr_written before them");
		unmeasurable(m, "bandwidth.estimate_to_device", "device write rate unmeasurable");
		return;
	}
	j_set(b, "device_write_kBps", j_num(dev));
	j_set(b, "device_span_s", j_num(wlast->written_t - wfirst->written_t));
	j_set(b, "estimate_to_device", dev > 0 ? j_num(fin / dev) : j_null());
	if (dev <= 0)
		unmeasurable(m, "bandwidth.estimate_to_device", "the device wrote nothing while estimated");
	metrics_bandwidth_settled(s, m, b, best, wfirst->t, wlast);
}

static void metrics_reclaim(struct state *s, struct jval *m)
{
	struct jval *r = j_child(m, "reclaim");
	struct jval *k = j_child(m, "kswapd");
	struct jval *t = j_child(m, "throttled");

	if (s->wf.ev) {
		j_set(r, "file_pageout", j_num((double)s->pageout_file));
		j_set(r, "anon_pageout", j_num((double)s->pageout_anon));
	} else {
		unmeasurable(m, "reclaim.file_pageout", "no vmscan:mm_vmscan_write_folio event in this trace");
		unmeasurable(m, "reclaim.anon_pageout", "no vmscan:mm_vmscan_write_folio event in this trace");
	}
	if (s->drb.ev && s->dre.ev) {
		j_set(r, "direct_reclaim_total_s", j_num(s->dr_total));
		j_set(r, "direct_reclaim_count", j_num((double)s->dr_n));
		j_set(r, "direct_reclaim_max_ms", j_num(s->dr_max * 1000));
	} else {
		unmeasurable(m, "reclaim.direct_reclaim_total_s",
			     "no mm_vmscan_direct_reclaim_begin/end events in this trace");
	}
	if (s->ws.ev)
		j_set(r, "writeback_start_vmscan", j_num((double)s->wb_vmscan));
	for (int i = 0; i < MAXNODE; i++) {
		struct node *n = &s->node[i];
		char key[16];

		if (!n->seen)
			continue;
		snprintf(key, sizeof(key), "node%d", i);
		if (s->kw.ev) {
			struct jval *o = j_child(k, key);

			j_set(o, "wake", j_num((double)n->kswapd_wake));
			j_set(o, "sleep", j_num((double)n->kswapd_sleep));
		}
		if (s->si.ev)
			j_set(j_child(j_child(r, "shrink_inactive"), key), "calls",
			      j_num((double)n->shrink_inactive));
		if (s->th.ev) {
			struct jval *o = j_child(t, key);

			j_set(o, "count", j_num((double)n->throttled));
			j_set(o, "delayed_ms", j_num(n->throttled_us / 1000));
		}
	}
	if (s->bq.ev && s->page_size > 0) {
		struct jval *w = j_child(r, "kswapd_write");
		struct jval *b = j_child(m, "block");

		j_set(b, "write_bios", j_num((double)s->bq_write_bios));
		j_set(b, "write_pages", j_num(s->bq_write_pages));
		j_set(w, "pages", j_num(s->bq_ksw_pages));
		j_set(w, "bios", j_num((double)s->bq_ksw_bios));
		j_set(w, "meta_pages", j_num(s->bq_ksw_meta_pages));
		for (int i = 0; i < MAXNODE; i++) {
			char key[16];

			if (!s->node[i].seen && !s->bq_ksw_node_seen[i])
				continue;
			snprintf(key, sizeof(key), "node%d", i);
			j_set(j_child(w, key), "pages", j_num(s->bq_ksw_node_pages[i]));
		}
		/* > 0: kswapd sent more data pages to the disk than reclaim's traced
		 * writepage calls could account for */
		if (s->wf.ev)
			j_set(r, "kswapd_write_excess_pages",
			      j_num(s->bq_ksw_pages - (double)s->pageout_file));
		else
			unmeasurable(m, "reclaim.kswapd_write_excess_pages",
				     "no vmscan:mm_vmscan_write_folio event in this trace");
	} else {
		const char *why = s->bq.ev ? "the trace file gives no page size"
			: "no block:block_bio_queue event in this trace (add it to the scenario's EVENTS)";

		unmeasurable(m, "reclaim.kswapd_write", why);
		unmeasurable(m, "reclaim.kswapd_write_excess_pages", why);
		unmeasurable(m, "block", why);
	}
	if (!s->kw.ev)
		unmeasurable(m, "kswapd", "no vmscan:mm_vmscan_kswapd_wake event in this trace");
	if (!s->th.ev)
		unmeasurable(m, "throttled", "no vmscan:mm_vmscan_throttled event in this trace");
}

static void set_pcts(struct jval *o, const char *prefix, struct dvec *d)
{
	char key[64];

	qsort(d->v, d->n, sizeof(double), dcmp);
	snprintf(key, sizeof(key), "%s_min", prefix);
	j_set(o, key, j_num(d->v[0]));
	snprintf(key, sizeof(key), "%s_p50", prefix);
	j_set(o, key, j_num(pct(d, 50)));
	snprintf(key, sizeof(key), "%s_max", prefix);
	j_set(o, key, j_num(d->v[d->n - 1]));
}

/*
 * The floor of the scaled limits (series v2: one second of the machine's
 * writeout).  At pressure 0 the global freerun ceiling is min(stock ceiling,
 * floor), so over the second half of the pressure-0 global_dirty_state events
 * (every caller's: writers, flushers, /proc/vmstat readers) the ceiling is
 * given in seconds of the writeout the trace measured over the same window
 * (nr_written).  A floor taken from one wb, or none for a caller without a
 * wb, shows as a spread between callers.
 */
static void metrics_floor(struct state *s, struct jval *m)
{
	struct dvec secs_v = { 0 };
	struct jval *f;
	size_t n = s->gz_t.n, k;
	double rate;

	if (!s->gd.a[GD_FREERUN] || !s->gd.a[GD_WRITTEN]) {
		unmeasurable(m, "floor", "global_dirty_state has no freerun or nr_written field");
		return;
	}
	if (n < 4) {
		unmeasurable(m, "floor", "fewer than 4 global_dirty_state events at pressure 0");
		return;
	}
	for (k = 0; k < n && s->gz_t.v[k] < (s->gz_t.v[0] + s->gz_t.v[n - 1]) / 2; k++)
		;
	if (n - k < 2 || s->gz_t.v[n - 1] - s->gz_t.v[k] < 1.0) {
		unmeasurable(m, "floor", "under 1 s of global_dirty_state events at pressure 0");
		return;
	}
	rate = (s->gz_written.v[n - 1] - s->gz_written.v[k]) / (s->gz_t.v[n - 1] - s->gz_t.v[k]);
	f = j_child(m, "floor");
	j_set(f, "events_at_zero", j_num((double)n));
	j_set(f, "late_events", j_num((double)(n - k)));
	j_set(f, "writeout_pages_per_s", j_num(rate));
	if (rate <= 0) {
		unmeasurable(m, "floor.freerun_seconds_min", "nothing written in the late half");
		return;
	}
	for (size_t i = k; i < n; i++)
		dpush(&secs_v, s->gz_freerun.v[i] / rate);
	qsort(secs_v.v, secs_v.n, sizeof(double), dcmp);
	j_set(f, "freerun_seconds_min", j_num(secs_v.v[0]));
	j_set(f, "freerun_seconds_p50", j_num(pct(&secs_v, 50)));
	j_set(f, "freerun_seconds_max", j_num(secs_v.v[secs_v.n - 1]));
	free(secs_v.v);
}

/* Dirty and writeback pages of the global domain, and what the throttle compared them
 * against (balance_dirty_pages fires only when a task is past the freerun ceiling). */
static void metrics_dirty_throttle(struct state *s, struct jval *m)
{
	struct jval *g, *t;

	if (s->gd_wb.n) {
		g = j_child(j_child(m, "dirty"), "global");
		j_set(g, "samples", j_num((double)s->gd_wb.n));
		j_set(g, "dirty_peak_pages", j_num(s->gd_dirty_peak));
		j_set(g, "writeback_peak_pages", j_num(s->gd_wb_peak));
		j_set(g, "dirty_writeback_peak_pages", j_num(s->gd_sum_peak));
		qsort(s->gd_wb.v, s->gd_wb.n, sizeof(double), dcmp);
		j_set(g, "writeback_p50_pages", j_num(pct(&s->gd_wb, 50)));
	} else {
		unmeasurable(m, "dirty.global", "no writeback:global_dirty_state event in this trace");
	}
	if (!s->bd.ev) {
		unmeasurable(m, "throttle", "no writeback:balance_dirty_pages event in this trace");
		return;
	}
	t = j_child(m, "throttle");
	j_set(t, "calls", j_num((double)s->bdp_calls));
	if (s->trl_ratio.n)
		set_pcts(t, "task_to_dirty_ratelimit", &s->trl_ratio);
	else
		unmeasurable(m, "throttle.task_to_dirty_ratelimit_p50",
			     "no balance_dirty_pages call (the writers never left the freerun region)");
	if (s->drl_n) {
		/* a rate estimator that never moves shows min == max */
		j_set(t, "dirty_ratelimit_min_kBps", j_num(s->drl_min));
		j_set(t, "dirty_ratelimit_max_kBps", j_num(s->drl_max));
		j_set(t, "dirty_ratelimit_range_kBps", j_num(s->drl_max - s->drl_min));
	}
	/*
	 * Where position control held the dirty pages: the median of dirty /
	 * setpoint over the second half of the calls, once it had settled.
	 */
	if (s->dirty_to_setpoint.n >= 2) {
		struct dvec late = { s->dirty_to_setpoint.v + s->dirty_to_setpoint.n / 2,
				     s->dirty_to_setpoint.n - s->dirty_to_setpoint.n / 2, 0 };

		qsort(late.v, late.n, sizeof(double), dcmp);
		j_set(t, "dirty_to_setpoint_late_p50", j_num(pct(&late, 50)));
	} else {
		unmeasurable(m, "throttle.dirty_to_setpoint_late_p50", "fewer than 2 balance_dirty_pages calls");
	}
	if (s->pos_ratio.n)
		set_pcts(t, "pos_ratio", &s->pos_ratio);
	else
		unmeasurable(m, "throttle.pos_ratio_p50",
			     s->bd.a[BD_POS] ? "no balance_dirty_pages call"
					     : "balance_dirty_pages has no pos_ratio field (kernel before series v2)");
	if (s->freerun_n) {
		j_set(t, "freerun_min_pages", j_num(s->freerun_min));
		j_set(t, "freerun_final_pages", j_num(s->freerun_last));
	} else {
		unmeasurable(m, "throttle.freerun_min_pages",
			     s->bd.a[BD_FREERUN] ? "no balance_dirty_pages call"
						 : "balance_dirty_pages has no freerun field (kernel before series v2)");
	}
	if (s->bd.a[BD_NDIRTY] && s->bd.a[BD_NLIMIT]) {
		j_set(t, "node_domain_calls", j_num((double)s->node_calls));
		j_set(t, "node_dirty_over_limit_max", s->node_calls ? j_num(s->node_over_limit_max) : j_null());
	} else {
		unmeasurable(m, "throttle.node_domain_calls",
			     "balance_dirty_pages has no node_dirty/node_limit fields (kernel before series v2)");
	}
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s TRACE.dat --out DIR [--checks FILE] [--json FILE]\n"
		"       [--extra-metrics FILE]... [--nodes N] [--no-tsv] [--allow-unmeasurable]\n"
		"\n"
		"Reads a trace-cmd trace.dat in one pass and writes:\n"
		"  DIR/tsv/<event>[.nodeN].tsv  time series: time_s cpu pid <numeric fields>\n"
		"  DIR/metrics.json (or --json FILE)  {trace, metrics, checks, pass}\n"
		"\n"
		"  --checks FILE         lines 'check <name> <metric.path> <op> <value> [xfail <reason>]'\n"
		"                        op: == != < <= > >=; value: number, true or false\n"
		"  --extra-metrics FILE  a JSON object merged into metrics (e.g. vmstat deltas),\n"
		"                        so checks can use it; may be given up to %d times\n"
		"  --no-tsv              metrics only\n"
		"  --nodes N             report nodes 0..N-1 even if no event names them\n"
		"  --task COMM           balance_dirty_pages.task.COMM.{calls,pauses,pause_max_ms}:\n"
		"                        that task name's own entries, 0 when it never entered;\n"
		"                        up to %d times, COMM 1..15 of [A-Za-z0-9_.-]\n"
		"  --allow-unmeasurable  an unmeasurable check does not fail the run\n"
		"\n"
		"Exit: 0 all checks pass or xfail, 1 a check failed (or was unmeasurable),\n"
		"      2 bad input (one line on stderr says what).\n",
		prog, MAXEXTRA, MAXTASK);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		die2("%s: cannot open: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die2("%s: cannot read: %s", path, strerror(errno));
	if (n > 64L << 20)
		die2("%s: larger than 64 MiB, not a metrics file", path);
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die2("%s: cannot read: %s", path, strerror(errno));
	buf[n] = 0;
	fclose(f);
	if (strlen(buf) != (size_t)n)
		die2("%s: contains a NUL byte, not JSON", path);
	return buf;
}

static void merge_extra(struct jval *metrics, const char *path)
{
	char err[256];
	char *text = slurp(path);
	struct jval *x = j_parse(text, err, sizeof(err));

	free(text);
	if (!x)
		die2("%s: not valid JSON: %s", path, err);
	if (x->t != J_OBJ)
		die2("%s: extra metrics must be a JSON object", path);
	for (size_t i = 0; i < x->n; i++) {
		if (j_get(metrics, x->keys[i]))
			die2("%s: key '%s' clashes with a metric from the trace", path, x->keys[i]);
		j_set(metrics, x->keys[i], x->kids[i]);
		x->kids[i] = NULL;
	}
	j_free(x);
}

static void mkdir_p(const char *dir)
{
	char buf[4096];

	if (strlen(dir) >= sizeof(buf))
		die2("output path too long");
	strcpy(buf, dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			die2("cannot create %s: %s", buf, strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0777) && errno != EEXIST)
		die2("cannot create %s: %s", buf, strerror(errno));
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "checks", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "extra-metrics", required_argument, NULL, 'x' },
		{ "no-tsv", no_argument, NULL, 'n' },
		{ "nodes", required_argument, NULL, 'N' },
		{ "task", required_argument, NULL, 't' },
		{ "allow-unmeasurable", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *checks = NULL, *json = NULL, *extra[MAXEXTRA];
	int nextra = 0, allow_um = 0, opt, rc = 0, nodes = 0;
	struct tracecmd_input *h;
	struct state *s;
	struct jval *doc, *meta, *m, *cks, *counts;
	struct sigaction sa;
	char jpath[4096];
	double dur;
	FILE *jf;

	s = xmalloc(sizeof(*s));
	s->write_tsv = 1;
	opterr = 0; /* our own one-line messages instead of getopt's */
	while ((opt = getopt_long(argc, argv, ":o:c:j:x:nN:t:uh", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'c': checks = optarg; break;
		case 'j': json = optarg; break;
		case 'x':
			if (nextra == MAXEXTRA)
				die2("at most %d --extra-metrics files", MAXEXTRA);
			extra[nextra++] = optarg;
			break;
		case 'n': s->write_tsv = 0; break;
		case 'N': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 1 || v > MAXNODE)
				die2("--nodes: want a node count 1..%d, not '%s'", MAXNODE, optarg);
			nodes = (int)v;
			break;
		}
		case 't': {
			size_t len = strlen(optarg);

			if (!len || len > 15 || strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
				die2("--task: want a task name of 1..15 characters [A-Za-z0-9_.-], not '%s'", optarg);
			for (int i = 0; i < s->ntask; i++)
				if (!strcmp(s->task[i].comm, optarg))
					die2("--task %s given twice", optarg);
			if (s->ntask == MAXTASK)
				die2("at most %d --task names", MAXTASK);
			memcpy(s->task[s->ntask++].comm, optarg, len + 1);
			break;
		}
		case 'u': allow_um = 1; break;
		case 'h': usage(stdout); return 0;
		case ':':
			die2("option '%s' needs an argument (see --help)", argv[optind - 1]);
		default:
			die2("unknown option '%s' (see --help)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		die2(optind == argc ? "missing TRACE.dat argument (see --help)"
				    : "exactly one TRACE.dat argument expected (see --help)");
	if (!out)
		die2("--out DIR is required (see --help)");
	trace_path = argv[optind];
	if (access(trace_path, R_OK))
		die2("%s: cannot read: %s", trace_path, strerror(errno));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);

	/* libtracecmd and libtraceevent print their own warnings; we print one line instead */
	tracecmd_set_loglevel(TEP_LOG_NONE);
	tep_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(trace_path, TRACECMD_FL_LOAD_NO_PLUGINS | TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	if (!h)
		die2("%s: not a readable trace.dat (bad header, unsupported version or truncated)",
		     trace_path);
	s->tep = tracecmd_get_tep(h);
	if (!s->tep)
		die2("%s: trace has no event formats", trace_path);
	s->page_size = tep_get_page_size(s->tep);
	if (s->page_size <= 0)
		s->page_size = file_page_size(trace_path);

	mkdir_p(out);
	if (s->write_tsv) {
		snprintf(jpath, sizeof(jpath), "%s/tsv", out);
		mkdir_p(jpath);
	}
	s->outdir = out;
	s->ntypes = 65536; /* common_type is 16 bits */
	s->types = xmalloc(sizeof(*s->types) * (size_t)s->ntypes);
	s->last_lower_nid = -1;
	s->gd_written = NAN;
	s->gd_written_t = NAN;
	for (int i = 0; i < MAXNODE; i++)
		s->node[i].last_shrink_prio = -1;
	/* nodes no event names still get metrics (e.g. "node 1 was never lowered") */
	for (int i = 0; i < nodes; i++)
		s->node[i].seen = 1;
	for (int i = 0; i < 4096; i++)
		s->dr_t[i] = -1;

	fs_init(s, &s->dp, "writeback", "dirty_pressure",
		(const char *const[]){ "nid", "old", "new", "priority", "reason", NULL });
	fs_init(s, &s->gd, "writeback", "global_dirty_state",
		(const char *const[]){ "nr_dirty", "background_thresh", "dirty_thresh",
				       "dirty_limit", "pressure", "nr_written", "nr_writeback",
				       "freerun", NULL });
	fs_init(s, &s->bd, "writeback", "balance_dirty_pages",
		(const char *const[]){ "pause", "paused", "dirty_ratelimit", "task_ratelimit",
				       "freerun", "pos_ratio", "node_dirty", "node_freerun",
				       "node_limit", "dirty", "setpoint", NULL });
	fs_init(s, &s->bq, "block", "block_bio_queue",
		(const char *const[]){ "nr_sector", "rwbs", "comm", NULL });
	fs_init(s, &s->bw, "writeback", "bdi_dirty_ratelimit",
		(const char *const[]){ "write_bw", "avg_write_bw", "bdi", NULL });
	fs_init(s, &s->si, "vmscan", "mm_vmscan_lru_shrink_inactive",
		(const char *const[]){ "nid", "priority", NULL });
	fs_init(s, &s->wf, "vmscan", "mm_vmscan_write_folio",
		(const char *const[]){ "reclaim_flags", NULL });
	fs_init(s, &s->kw, "vmscan", "mm_vmscan_kswapd_wake", (const char *const[]){ "nid", NULL });
	fs_init(s, &s->ksl, "vmscan", "mm_vmscan_kswapd_sleep", (const char *const[]){ "nid", NULL });
	fs_init(s, &s->th, "vmscan", "mm_vmscan_throttled",
		(const char *const[]){ "nid", "usec_delayed", NULL });
	fs_init(s, &s->drb, "vmscan", "mm_vmscan_direct_reclaim_begin", (const char *const[]){ NULL });
	fs_init(s, &s->dre, "vmscan", "mm_vmscan_direct_reclaim_end", (const char *const[]){ NULL });
	fs_init(s, &s->ws, "writeback", "writeback_start", (const char *const[]){ "reason", NULL });
	/* a format without the fields the analysis needs is as good as no event */
	if (s->dp.ev && (!s->dp.a[DP_NID] || !s->dp.a[DP_NEW] || !s->dp.a[DP_OLD] ||
			 !s->dp.a[DP_PRIO] || !s->dp.a[DP_REASON]))
		die2("%s: writeback:dirty_pressure lacks nid/old/new/priority/reason fields", trace_path);

	if (tracecmd_iterate_events(h, NULL, 0, on_record, s) < 0)
		die2("%s: cannot iterate events (corrupt data section)", trace_path);
	if (!s->records)
		die2("%s: the trace holds no events", trace_path);
	for (int i = 0; i < s->ntypes; i++)
		for (int k = 0; s->types[i] && k <= MAXNODE; k++)
			if (s->types[i]->tsv[k] && fclose(s->types[i]->tsv[k]))
				die2("writing TSV under %s failed: %s", out, strerror(errno));

	dur = secs(s, s->tlast);
	doc = j_obj();
	meta = j_child(doc, "trace");
	j_set(meta, "file", j_str(trace_path));
	j_set(meta, "records", j_num((double)s->records));
	j_set(meta, "missed_events", j_num((double)s->missed));
	j_set(meta, "duration_s", j_num(dur));
	j_set(meta, "cpus", j_num(tep_get_cpus(s->tep)));
	j_set(meta, "has_dirty_pressure_event", j_bool(s->dp.ev != NULL));
	j_set(meta, "has_global_pressure_field", j_bool(s->gd.a[GD_PRESSURE] != NULL));
	/* the series v2's fields for what the throttle compared against */
	j_set(meta, "has_global_freerun_field", j_bool(s->gd.a[GD_FREERUN] != NULL));
	j_set(meta, "has_throttle_fields", j_bool(s->bd.a[BD_FREERUN] && s->bd.a[BD_POS]));
	j_set(meta, "has_node_domain_fields",
	      j_bool(s->bd.a[BD_NDIRTY] && s->bd.a[BD_NFREERUN] && s->bd.a[BD_NLIMIT]));
	/* the first event's own time stamp: the TSVs count from it, and samplers that
	 * read /proc/uptime in the guest are placed on the trace's axis with it */
	j_set(meta, "first_ts_s", j_num((double)s->t0 / 1e9));
	m = j_child(doc, "metrics");
	j_set(m, "duration_s", j_num(dur));
	counts = j_child(m, "counts");
	for (int i = 0; i < s->ntypes; i++)
		if (s->types[i])
			j_set(counts, s->types[i]->ev->name, j_num((double)s->types[i]->count));
	metrics_pressure(s, m, dur);
	metrics_pauses(s, m);
	metrics_bandwidth(s, m);
	metrics_reclaim(s, m);
	metrics_dirty_throttle(s, m);
	metrics_floor(s, m);
	if (s->bad_nid)
		j_set(m, "events_with_bad_nid", j_num((double)s->bad_nid));
	for (int i = 0; i < nextra; i++)
		merge_extra(m, extra[i]);

	cks = j_arr();
	j_set(doc, "checks", cks);
	if (checks) {
		struct check_tally t;

		if (checks_eval_file(checks, m, cks))
			exit(2);
		t = checks_tally(cks);
		rc = t.fail || (t.unmeasurable && !allow_um);
		j_set(doc, "summary", j_obj());
		j_set(j_get(doc, "summary"), "pass", j_num(t.pass));
		j_set(j_get(doc, "summary"), "fail", j_num(t.fail));
		j_set(j_get(doc, "summary"), "xfail", j_num(t.xfail));
		j_set(j_get(doc, "summary"), "unmeasurable", j_num(t.unmeasurable));
	}
	j_set(doc, "pass", j_bool(!rc));

	if (json)
		snprintf(jpath, sizeof(jpath), "%s", json);
	else
		snprintf(jpath, sizeof(jpath), "%s/metrics.json", out);
	jf = fopen(jpath, "w");
	if (!jf)
		die2("cannot write %s: %s", jpath, strerror(errno));
	j_write(jf, doc, 1);
	if (fclose(jf))
		die2("writing %s failed: %s", jpath, strerror(errno));

	j_free(doc);
	for (int i = 0; i < s->ntypes; i++) {
		if (s->types[i]) {
			free(s->types[i]->f);
			free(s->types[i]);
		}
	}
	free(s->types);
	free(s->pauses.v);
	free(s->held.v);
	free(s->gd_wb.v);
	free(s->gz_t.v);
	free(s->gz_freerun.v);
	free(s->gz_written.v);
	free(s->trl_ratio.v);
	free(s->dirty_to_setpoint.v);
	free(s->pos_ratio.v);
	free(s->bwp);
	tracecmd_close(h);
	free(s);
	return rc;
}
