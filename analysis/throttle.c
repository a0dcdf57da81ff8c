/*
 * What balance_dirty_pages() did to a task's rate: task_ratelimit / dirty_ratelimit, the
 * range dirty_ratelimit took, where position control held the dirty pages, and the series
 * v2 fields (pos_ratio, freerun, the node domain).  Metrics: throttle.*
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "dpanalyze.h"

struct throttle {
	struct tep_event *balance_dirty_pages;
	struct tep_format_field *pause, *paused, *dirty_ratelimit, *task_ratelimit, *dirty, *setpoint;
	/* appended by series v2: absent on older kernels */
	struct tep_format_field *freerun, *pos_ratio, *node_dirty, *node_freerun, *node_limit;

	unsigned long calls;
	struct samples task_to_dirty_ratelimit, pos_ratios, dirty_to_setpoint;
	/*
	 * Where the node domain held the task at each call, in time order, as a
	 * fraction of its control area: (dirty - freerun) / (limit - freerun), 0
	 * its freerun ceiling, 1 or more its limit (the setpoint is 0.5 at
	 * pressure 1024).
	 */
	struct samples node_calls;
	double dirty_ratelimit_min, dirty_ratelimit_max;
	unsigned long dirty_ratelimit_samples;
	double freerun_min, freerun_last;
	unsigned long freerun_samples;
	unsigned long node_domain_calls, node_dirty_at_limit_calls;
	double node_dirty_over_limit_max;
};

static void on_balance_dirty_pages(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct throttle *th = analysis;
	long long pause, paused, drl, trl, v, dirty, limit, nfree;

	(void)t;
	(void)pid;
	if (read_field(th->pause, r, &pause) || read_field(th->paused, r, &paused))
		return;
	th->calls++;
	/* both in KB/s in the event; task_ratelimit is dirty_ratelimit times pos_ratio */
	if (!read_field(th->dirty_ratelimit, r, &drl)) {
		if (!read_field(th->task_ratelimit, r, &trl) && drl > 0)
			samples_push(&th->task_to_dirty_ratelimit, (double)trl / (double)drl);
		if (!th->dirty_ratelimit_samples || (double)drl < th->dirty_ratelimit_min)
			th->dirty_ratelimit_min = (double)drl;
		if (!th->dirty_ratelimit_samples || (double)drl > th->dirty_ratelimit_max)
			th->dirty_ratelimit_max = (double)drl;
		th->dirty_ratelimit_samples++;
	}
	if (!read_field(th->dirty, r, &dirty) && !read_field(th->setpoint, r, &limit) && limit > 0)
		samples_push(&th->dirty_to_setpoint, (double)dirty / (double)limit);
	if (!read_field(th->pos_ratio, r, &v))
		samples_push(&th->pos_ratios, (double)v / 1024.0); /* fixed point, 1024 = 1.0 */
	if (!read_field(th->freerun, r, &v)) {
		if (!th->freerun_samples || (double)v < th->freerun_min)
			th->freerun_min = (double)v;
		th->freerun_last = (double)v;
		th->freerun_samples++;
	}
	/* all three 0: the task has no node domain */
	if (!read_field(th->node_dirty, r, &dirty) && !read_field(th->node_limit, r, &limit) &&
	    limit > 0) {
		th->node_domain_calls++;
		/* the node domain's pos_ratio is 0 there: the task waits max_pause */
		if (dirty >= limit)
			th->node_dirty_at_limit_calls++;
		if ((double)dirty / (double)limit > th->node_dirty_over_limit_max)
			th->node_dirty_over_limit_max = (double)dirty / (double)limit;
		if (!read_field(th->node_freerun, r, &nfree) && limit > nfree)
			samples_push(&th->node_calls,
				     (double)(dirty - nfree) / (double)(limit - nfree));
	}
}

static void *throttle_create(struct analysis_context *ctx)
{
	struct throttle *th = xmalloc(sizeof(*th));
	struct tep_event *ev = find_event(ctx->tep, "writeback", "balance_dirty_pages");

	th->balance_dirty_pages = ev;
	th->pause = find_field(ev, "pause");
	th->paused = find_field(ev, "paused");
	th->dirty_ratelimit = find_field(ev, "dirty_ratelimit");
	th->task_ratelimit = find_field(ev, "task_ratelimit");
	th->dirty = find_field(ev, "dirty");
	th->setpoint = find_field(ev, "setpoint");
	th->freerun = find_field(ev, "freerun");
	th->pos_ratio = find_field(ev, "pos_ratio");
	th->node_dirty = find_field(ev, "node_dirty");
	th->node_freerun = find_field(ev, "node_freerun");
	th->node_limit = find_field(ev, "node_limit");
	analysis_on_event(ctx, ev, on_balance_dirty_pages, th);
	return th;
}

/* PREFIX_min, PREFIX_p50, PREFIX_max of non-empty samples */
static void emit_spread(json_object *o, const char *prefix, struct samples *s)
{
	char key[64];

	samples_sort(s);
	snprintf(key, sizeof(key), "%s_min", prefix);
	json_set(o, key, json_number(s->values[0]));
	snprintf(key, sizeof(key), "%s_p50", prefix);
	json_set(o, key, json_number(percentile(s, 50)));
	snprintf(key, sizeof(key), "%s_max", prefix);
	json_set(o, key, json_number(s->values[s->count - 1]));
}

/*
 * The calls of @calls from @from on that the node domain held above its
 * freerun ceiling (position > 0): below it, it let the task run.
 */
static void above_ceiling(const struct samples *calls, size_t from, struct samples *out)
{
	size_t i;

	for (i = from; i < calls->count; i++)
		if (calls->values[i] > 0.0)
			samples_push(out, calls->values[i]);
}

/*
 * The node domain once its rates settled: the second half of its calls in
 * time order (as dirty_to_setpoint_late_p50 is the global domain's).  Mode
 * node's rates start from the device's 100 MiB/s and take seconds to come
 * down to the node's writeout, so calls at the node limit while they do
 * are the start's, not the balance's.
 */
static void node_domain_late(json_object *metrics, json_object *out, const struct samples *calls)
{
	size_t half = calls->count / 2, i, at_limit = 0;
	struct samples above = { 0 };

	if (calls->count < 2) {
		unmeasurable(metrics, "throttle.node_position_late_p50",
			     "fewer than 2 balance_dirty_pages calls with a node domain");
		unmeasurable(metrics, "throttle.node_dirty_at_limit_late_calls",
			     "fewer than 2 balance_dirty_pages calls with a node domain");
		return;
	}
	for (i = half; i < calls->count; i++)
		if (calls->values[i] >= 1.0)
			at_limit++;
	above_ceiling(calls, half, &above);
	json_set(out, "node_dirty_at_limit_late_calls", json_number((double)at_limit));
	if (above.count) {
		samples_sort(&above);
		json_set(out, "node_position_late_p50", json_number(percentile(&above, 50)));
	} else {
		unmeasurable(metrics, "throttle.node_position_late_p50",
			     "no late balance_dirty_pages call above a node domain's freerun ceiling");
	}
	free(above.values);
}

static void throttle_emit(void *analysis, json_object *metrics, double duration)
{
	struct throttle *th = analysis;
	json_object *out;

	(void)duration;
	if (!th->balance_dirty_pages) {
		unmeasurable(metrics, "throttle", "no writeback:balance_dirty_pages event in this trace");
		return;
	}
	out = json_child(metrics, "throttle");
	json_set(out, "calls", json_number((double)th->calls));
	if (th->task_to_dirty_ratelimit.count)
		emit_spread(out, "task_to_dirty_ratelimit", &th->task_to_dirty_ratelimit);
	else
		unmeasurable(metrics, "throttle.task_to_dirty_ratelimit_p50",
			     "no balance_dirty_pages call (the writers never left the freerun region)");
	if (th->dirty_ratelimit_samples) {
		/* a rate estimator that never moves shows min == max */
		json_set(out, "dirty_ratelimit_min_kBps", json_number(th->dirty_ratelimit_min));
		json_set(out, "dirty_ratelimit_max_kBps", json_number(th->dirty_ratelimit_max));
		json_set(out, "dirty_ratelimit_range_kBps",
			 json_number(th->dirty_ratelimit_max - th->dirty_ratelimit_min));
	}
	/*
	 * Where position control held the dirty pages: the median of dirty /
	 * setpoint over the second half of the calls, once it had settled.
	 */
	if (th->dirty_to_setpoint.count >= 2) {
		size_t half = th->dirty_to_setpoint.count / 2;
		struct samples late = { th->dirty_to_setpoint.values + half,
					th->dirty_to_setpoint.count - half, 0 };

		samples_sort(&late);
		json_set(out, "dirty_to_setpoint_late_p50", json_number(percentile(&late, 50)));
	} else {
		unmeasurable(metrics, "throttle.dirty_to_setpoint_late_p50",
			     "fewer than 2 balance_dirty_pages calls");
	}
	if (th->pos_ratios.count)
		emit_spread(out, "pos_ratio", &th->pos_ratios);
	else
		unmeasurable(metrics, "throttle.pos_ratio_p50",
			     th->pos_ratio ? "no balance_dirty_pages call"
					   : "balance_dirty_pages has no pos_ratio field (kernel before series v2)");
	if (th->freerun_samples) {
		json_set(out, "freerun_min_pages", json_number(th->freerun_min));
		json_set(out, "freerun_final_pages", json_number(th->freerun_last));
	} else {
		unmeasurable(metrics, "throttle.freerun_min_pages",
			     th->freerun ? "no balance_dirty_pages call"
					 : "balance_dirty_pages has no freerun field (kernel before series v2)");
	}
	if (th->node_dirty && th->node_limit) {
		struct samples above = { 0 };

		json_set(out, "node_domain_calls", json_number((double)th->node_domain_calls));
		json_set(out, "node_dirty_over_limit_max",
			 th->node_domain_calls ? json_number(th->node_dirty_over_limit_max) : NULL);
		json_set(out, "node_dirty_at_limit_calls",
			 json_number((double)th->node_dirty_at_limit_calls));
		above_ceiling(&th->node_calls, 0, &above);
		json_set(out, "node_throttled_calls", json_number((double)above.count));
		if (above.count) {
			samples_sort(&above);
			json_set(out, "node_position_p50", json_number(percentile(&above, 50)));
		} else {
			unmeasurable(metrics, "throttle.node_position_p50",
				     "no balance_dirty_pages call above a node domain's freerun ceiling");
		}
		free(above.values);
		node_domain_late(metrics, out, &th->node_calls);
	} else {
		unmeasurable(metrics, "throttle.node_domain_calls",
			     "balance_dirty_pages has no node_dirty/node_limit fields (kernel before series v2)");
	}
}

static void throttle_destroy(void *analysis)
{
	struct throttle *th = analysis;

	free(th->task_to_dirty_ratelimit.values);
	free(th->pos_ratios.values);
	free(th->dirty_to_setpoint.values);
	free(th->node_calls.values);
	free(th);
}

const struct analysis_ops throttle_analysis = {
	.name = "throttle",
	.create = throttle_create,
	.emit = throttle_emit,
	.destroy = throttle_destroy,
};
