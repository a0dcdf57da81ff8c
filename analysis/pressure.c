/*
 * Dirty pressure per node (writeback:dirty_pressure) and in the global domain
 * (global_dirty_state.pressure): a step function of time, its fast_down and slow_up
 * events, the recovery slope, and each fast_down against the scan batch that caused it.
 * Metrics: pressure.*, last_lowering_node, last_lowering_time_s.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpanalyze.h"

/* writeback:dirty_pressure's reason */
enum { REASON_FAST_DOWN, REASON_SLOW_UP, REASON_WRITE };

struct node_pressure {
	/* a step function of time: set once the first event gives the value before it */
	int known;
	double current, min, integral, time_below_512, since;
	unsigned long fast_down, slow_up, writes, resets;
	unsigned long formula_ok, formula_bad;
	/* against the batch that caused it (see pending) and, literally, the preceding scan */
	unsigned long priority_matched, priority_unmatched, no_scan;
	unsigned long preceding_matched, preceding_unmatched, no_preceding_scan;
	/* pooled least squares over runs of consecutive slow_up events: the open run's sums,
	 * and the pooled sums of squares of the closed ones */
	unsigned long run_events, runs;
	double run_t, run_value, run_tt, run_tv, pooled_sxx, pooled_sxy;
	int last_shrink_priority;	/* -1: no lru_shrink_inactive on the node yet */
	/*
	 * Between mm_vmscan_kswapd_wake and _sleep.  Series v1 applied no recovery in that
	 * window; series v2 recovers from the last time reclaim met dirty folios, so
	 * slow_up_while_kswapd_awake only describes when recovery was applied.
	 */
	int kswapd_awake;
	unsigned long slow_up_while_kswapd_awake;
};

struct pressure {
	struct analysis_context *ctx;
	struct tep_event *dirty_pressure;
	struct tep_format_field *nid, *old, *new, *priority, *reason;
	struct tep_format_field *shrink_nid, *shrink_priority;
	struct tep_format_field *kswapd_wake_nid, *kswapd_sleep_nid;
	struct tep_event *global_dirty_state;
	struct tep_format_field *global_pressure;

	struct node_pressure node[MAXNODE];

	/*
	 * The series applies a fast_down inside shrink_inactive_list(), before that batch's
	 * mm_vmscan_lru_shrink_inactive fires: the scan that caused a fast_down is the same
	 * task's next lru_shrink_inactive on the node, not the preceding one (checked on a
	 * guest trace).  Fast-downs wait here for it.
	 */
	struct {
		int pid, nid, priority;
	} pending[64];
	int npending;

	int last_lowering_nid;		/* -1: no fast_down */
	double last_lowering_t;

	/* global_dirty_state.pressure, from its first sample */
	int global_known;
	double global_min, global_integral, global_last, global_last_t, global_first_t;
};

static void advance(struct node_pressure *n, double t)
{
	double dt = t - n->since;

	if (dt > 0) {
		n->integral += n->current * dt;
		if (n->current < 512)
			n->time_below_512 += dt;
	}
	n->since = t;
}

static void slow_up_run_close(struct node_pressure *n)
{
	if (n->run_events >= 2) {
		double k = (double)n->run_events;

		n->pooled_sxx += n->run_tt - n->run_t * n->run_t / k;
		n->pooled_sxy += n->run_tv - n->run_t * n->run_value / k;
		n->runs++;
	}
	n->run_events = 0;
	n->run_t = n->run_value = n->run_tt = n->run_tv = 0;
}

/* A fast_down whose batch scan never came: counted as having no scan. */
static void pending_drop(struct pressure *p, int k)
{
	p->node[p->pending[k].nid].no_scan++;
	p->pending[k] = p->pending[--p->npending];
}

static void pending_add(struct pressure *p, int pid, int nid, int priority)
{
	for (int k = 0; k < p->npending; k++)
		if (p->pending[k].pid == pid && p->pending[k].nid == nid) {
			pending_drop(p, k);
			break;
		}
	if (p->npending == (int)(sizeof(p->pending) / sizeof(p->pending[0])))
		pending_drop(p, 0);
	p->pending[p->npending].pid = pid;
	p->pending[p->npending].nid = nid;
	p->pending[p->npending++].priority = priority;
}

static void pending_scan(struct pressure *p, int pid, int nid, int priority)
{
	for (int k = 0; k < p->npending; k++) {
		if (p->pending[k].pid != pid || p->pending[k].nid != nid)
			continue;
		if (p->pending[k].priority == priority)
			p->node[nid].priority_matched++;
		else
			p->node[nid].priority_unmatched++;
		p->pending[k] = p->pending[--p->npending];
		return;
	}
}

static void on_dirty_pressure(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct pressure *p = analysis;
	long long nid, old, value, priority, reason;
	struct node_pressure *n;

	if (read_field(p->nid, r, &nid) || read_field(p->old, r, &old) ||
	    read_field(p->new, r, &value) || read_field(p->priority, r, &priority) ||
	    read_field(p->reason, r, &reason))
		return;
	if (node_mark_seen(p->ctx, nid))
		return;
	n = &p->node[nid];
	if (!n->known) {
		/* the value before the first change: from trace start, it was `old` */
		n->known = 1;
		n->current = n->min = (double)old;
		n->since = 0;
	}
	advance(n, t);
	n->current = (double)value;
	if (n->current < n->min)
		n->min = n->current;
	if (reason != REASON_SLOW_UP)
		slow_up_run_close(n);
	switch (reason) {
	case REASON_FAST_DOWN:
		n->fast_down++;
		if (priority >= 0 && priority <= 13 && value == (1024LL >> (13 - priority)))
			n->formula_ok++;
		else
			n->formula_bad++;
		if (n->last_shrink_priority < 0)
			n->no_preceding_scan++;
		else if (n->last_shrink_priority == priority)
			n->preceding_matched++;
		else
			n->preceding_unmatched++;
		pending_add(p, pid, (int)nid, (int)priority);
		p->last_lowering_nid = (int)nid;
		p->last_lowering_t = t;
		break;
	case REASON_SLOW_UP:
		n->slow_up++;
		if (n->kswapd_awake)
			n->slow_up_while_kswapd_awake++;
		n->run_events++;
		n->run_t += t;
		n->run_value += (double)value;
		n->run_tt += t * t;
		n->run_tv += t * (double)value;
		break;
	case REASON_WRITE:
		n->writes++;
		break;
	default:
		n->resets++;
		break;
	}
}

/* A reclaim batch: settles a fast_down waiting for it.  reclaim.c counts the node. */
static void on_shrink_inactive(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct pressure *p = analysis;
	long long nid, priority;

	(void)t;
	if (read_field(p->shrink_nid, r, &nid) || read_field(p->shrink_priority, r, &priority) ||
	    nid < 0 || nid >= MAXNODE)
		return;
	pending_scan(p, pid, (int)nid, (int)priority);
	p->node[nid].last_shrink_priority = (int)priority;
}

static void kswapd_set(struct pressure *p, const struct tep_format_field *f,
		       const struct tep_record *r, int awake)
{
	long long nid;

	if (read_field(f, r, &nid) || nid < 0 || nid >= MAXNODE)
		return;
	p->node[nid].kswapd_awake = awake;
}

static void on_kswapd_wake(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct pressure *p = analysis;

	(void)t;
	(void)pid;
	kswapd_set(p, p->kswapd_wake_nid, r, 1);
}

static void on_kswapd_sleep(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct pressure *p = analysis;

	(void)t;
	(void)pid;
	kswapd_set(p, p->kswapd_sleep_nid, r, 0);
}

static void on_global_dirty_state(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct pressure *p = analysis;
	long long value;

	(void)pid;
	if (read_field(p->global_pressure, r, &value))
		return;
	if (p->global_known) {
		p->global_integral += p->global_last * (t - p->global_last_t);
	} else {
		p->global_known = 1;
		p->global_min = (double)value;
		p->global_first_t = t;
	}
	if (value < p->global_min)
		p->global_min = (double)value;
	p->global_last = (double)value;
	p->global_last_t = t;
}

static void *pressure_create(struct analysis_context *ctx)
{
	struct pressure *p = xmalloc(sizeof(*p));
	struct tep_event *shrink = find_event(ctx->tep, "vmscan", "mm_vmscan_lru_shrink_inactive");
	struct tep_event *wake = find_event(ctx->tep, "vmscan", "mm_vmscan_kswapd_wake");
	struct tep_event *sleep = find_event(ctx->tep, "vmscan", "mm_vmscan_kswapd_sleep");

	p->ctx = ctx;
	p->last_lowering_nid = -1;
	for (int i = 0; i < MAXNODE; i++)
		p->node[i].last_shrink_priority = -1;
	p->dirty_pressure = find_event(ctx->tep, "writeback", "dirty_pressure");
	p->nid = find_field(p->dirty_pressure, "nid");
	p->old = find_field(p->dirty_pressure, "old");
	p->new = find_field(p->dirty_pressure, "new");
	p->priority = find_field(p->dirty_pressure, "priority");
	p->reason = find_field(p->dirty_pressure, "reason");
	/* a format without the fields the analysis needs is as good as no event */
	if (p->dirty_pressure && (!p->nid || !p->new || !p->old || !p->priority || !p->reason))
		die("%s: writeback:dirty_pressure lacks nid/old/new/priority/reason fields",
		    ctx->trace_path);
	p->shrink_nid = find_field(shrink, "nid");
	p->shrink_priority = find_field(shrink, "priority");
	p->kswapd_wake_nid = find_field(wake, "nid");
	p->kswapd_sleep_nid = find_field(sleep, "nid");
	p->global_dirty_state = find_event(ctx->tep, "writeback", "global_dirty_state");
	p->global_pressure = find_field(p->global_dirty_state, "pressure");

	analysis_on_event(ctx, p->dirty_pressure, on_dirty_pressure, p);
	analysis_on_event(ctx, shrink, on_shrink_inactive, p);
	analysis_on_event(ctx, wake, on_kswapd_wake, p);
	analysis_on_event(ctx, sleep, on_kswapd_sleep, p);
	if (p->global_pressure)
		analysis_on_event(ctx, p->global_dirty_state, on_global_dirty_state, p);
	return p;
}

static void emit_node(struct pressure *p, int i, json_object *metrics, json_object *o,
		      double duration)
{
	struct node_pressure *n = &p->node[i];
	char key[16];

	snprintf(key, sizeof(key), "node%d", i);
	if (!n->known) {
		/* no change traced: it stayed where it was, 1024 unless set before the trace */
		n->current = n->min = 1024;
		n->since = 0;
		json_set(o, "assumed_unchanged", json_object_new_boolean(1));
	}
	advance(n, duration);
	slow_up_run_close(n);
	json_set(o, "min", json_number(n->min));
	json_set(o, "mean", json_number(duration > 0 ? n->integral / duration : n->current));
	json_set(o, "final", json_number(n->current));
	json_set(o, "time_below_512_s", json_number(n->time_below_512));
	json_set(o, "fast_down", json_number((double)n->fast_down));
	json_set(o, "slow_up", json_number((double)n->slow_up));
	json_set(o, "slow_up_while_kswapd_awake", json_number((double)n->slow_up_while_kswapd_awake));
	json_set(o, "write", json_number((double)n->writes));
	json_set(o, "reset", json_number((double)n->resets));
	json_set(o, "recovery_slope_per_s",
		 n->pooled_sxx > 0 ? json_number(n->pooled_sxy / n->pooled_sxx) : NULL);
	if (n->pooled_sxx <= 0) {
		char path[64];

		snprintf(path, sizeof(path), "pressure.%s.recovery_slope_per_s", key);
		unmeasurable(metrics, path, "fewer than two slow_up events in a row on this node");
	}
	json_set(o, "recovery_runs", json_number((double)n->runs));
	json_set(o, "fast_down_formula_ok", json_number((double)n->formula_ok));
	json_set(o, "fast_down_formula_bad", json_number((double)n->formula_bad));
	json_set(o, "fast_down_priority_matched", json_number((double)n->priority_matched));
	json_set(o, "fast_down_priority_unmatched", json_number((double)n->priority_unmatched));
	json_set(o, "fast_down_no_scan", json_number((double)n->no_scan));
	json_set(o, "fast_down_preceding_priority_matched", json_number((double)n->preceding_matched));
	json_set(o, "fast_down_preceding_priority_unmatched",
		 json_number((double)n->preceding_unmatched));
	json_set(o, "fast_down_no_preceding_scan", json_number((double)n->no_preceding_scan));
}

static void pressure_emit(void *analysis, json_object *metrics, double duration)
{
	struct pressure *p = analysis;
	json_object *out = json_child(metrics, "pressure");
	int any = 0;

	while (p->npending)
		pending_drop(p, 0);

	if (!p->dirty_pressure) {
		unmeasurable(metrics, "pressure",
			     "no writeback:dirty_pressure event in this trace (kernel without the series?)");
		json_set(metrics, "last_lowering_node", NULL);
		unmeasurable(metrics, "last_lowering_node", "no writeback:dirty_pressure event in this trace");
	} else {
		for (int i = 0; i < MAXNODE; i++) {
			char key[16];

			if (!p->ctx->node_seen[i])
				continue;
			any = 1;
			snprintf(key, sizeof(key), "node%d", i);
			emit_node(p, i, metrics, json_child(out, key), duration);
		}
		if (!any)
			unmeasurable(metrics, "pressure", "no node appears in the trace's events");
		json_set(metrics, "last_lowering_node",
			 p->last_lowering_nid >= 0 ? json_number(p->last_lowering_nid) : NULL);
		if (p->last_lowering_nid >= 0)
			json_set(metrics, "last_lowering_time_s", json_number(p->last_lowering_t));
		else
			unmeasurable(metrics, "last_lowering_node", "no fast_down event in this trace");
	}
	/* the effective value in global_dirty_state, independent of the dirty_pressure event */
	if (p->global_pressure && p->global_known) {
		json_object *g = json_child(out, "global");

		p->global_integral += p->global_last * (duration - p->global_last_t);
		json_set(g, "min", json_number(p->global_min));
		/* time-weighted from the first sample: before it the value is unknown */
		json_set(g, "mean", json_number(duration > p->global_first_t
						 ? p->global_integral / (duration - p->global_first_t)
						 : p->global_last));
		json_set(g, "final", json_number(p->global_last));
	} else {
		unmeasurable(metrics, "pressure.global",
			     p->global_dirty_state ? "global_dirty_state has no pressure field (stock kernel)"
						   : "no writeback:global_dirty_state event in this trace");
	}
}

static void pressure_destroy(void *analysis)
{
	free(analysis);
}

const struct analysis_ops pressure_analysis = {
	.name = "pressure",
	.create = pressure_create,
	.emit = pressure_emit,
	.destroy = pressure_destroy,
};
