/*
 * balance_dirty_pages() pauses: their percentiles, the share inside the kernel's own band,
 * the longest hold, and with --task COMM one task name's own calls and pauses.
 * Metrics: balance_dirty_pages.*
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dpanalyze.h"

struct task_pauses {
	const char *comm;
	unsigned long calls, pauses;
	/* paused while it had a node domain under its freerun ceiling (series v2) */
	unsigned long pauses_under_node_ceiling;
	long long pause_max_ms;
};

struct pauses {
	struct analysis_context *ctx;
	struct tep_event *balance_dirty_pages;
	struct tep_format_field *pause, *paused;
	struct tep_format_field *node_dirty, *node_freerun, *node_limit;	/* series v2 */

	unsigned long calls, calls_without_pause;
	struct samples pauses_ms;	/* every pause > 0 */
	struct samples held_ms;		/* paused + pause of each of them */
	long long pause_gcd_ms;		/* of every pause > 0: the trace's jiffy in ms */
	/* --task COMM: that task's own entries and pauses, zeros included */
	struct task_pauses task[MAXTASK];
	int ntasks;
};

static long long gcd(long long a, long long b)
{
	while (b) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * A node domain under its freerun ceiling does not throttle (series patch 9):
 * a pause taken there came from the global (or memcg) domain.
 */
static int under_node_ceiling(const struct pauses *p, const struct tep_record *r)
{
	long long dirty, freerun, limit;

	return !read_field(p->node_dirty, r, &dirty) &&
	       !read_field(p->node_freerun, r, &freerun) &&
	       !read_field(p->node_limit, r, &limit) && limit > 0 && dirty <= freerun;
}

static void on_balance_dirty_pages(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct pauses *p = analysis;
	long long pause, paused;

	(void)t;
	if (read_field(p->pause, r, &pause) || read_field(p->paused, r, &paused))
		return;
	p->calls++;
	if (p->ntasks) {
		const char *comm = tep_data_comm_from_pid(p->ctx->tep, pid);

		for (int i = 0; comm && i < p->ntasks; i++) {
			struct task_pauses *task = &p->task[i];

			if (strcmp(task->comm, comm))
				continue;
			task->calls++;
			if (pause > 0) {
				task->pauses++;
				task->pauses_under_node_ceiling += under_node_ceiling(p, r);
				if (pause > task->pause_max_ms)
					task->pause_max_ms = pause;
			}
		}
	}
	if (pause <= 0) {
		p->calls_without_pause++;
		return;
	}
	samples_push(&p->pauses_ms, (double)pause);
	p->pause_gcd_ms = gcd(p->pause_gcd_ms, pause);
	/* `paused` is the time already spent in this balance_dirty_pages() call, so the task
	 * is held paused+pause ms in one go by the time this sleep ends */
	samples_push(&p->held_ms, (double)(paused + pause));
}

static void *pauses_create(struct analysis_context *ctx)
{
	struct pauses *p = xmalloc(sizeof(*p));

	p->ctx = ctx;
	p->balance_dirty_pages = find_event(ctx->tep, "writeback", "balance_dirty_pages");
	p->pause = find_field(p->balance_dirty_pages, "pause");
	p->paused = find_field(p->balance_dirty_pages, "paused");
	p->node_dirty = find_field(p->balance_dirty_pages, "node_dirty");
	p->node_freerun = find_field(p->balance_dirty_pages, "node_freerun");
	p->node_limit = find_field(p->balance_dirty_pages, "node_limit");
	for (int i = 0; i < ctx->ntasks; i++)
		p->task[i].comm = ctx->tasks[i];
	p->ntasks = ctx->ntasks;
	analysis_on_event(ctx, p->balance_dirty_pages, on_balance_dirty_pages, p);
	return p;
}

static void pauses_emit(void *analysis, json_object *metrics, double duration)
{
	struct pauses *p = analysis;
	json_object *out;
	size_t in_band = 0;
	double held_max = 0;
	long long jiffy_ms, hz, band_low, band_high;

	(void)duration;
	if (!p->balance_dirty_pages) {
		unmeasurable(metrics, "balance_dirty_pages",
			     "no writeback:balance_dirty_pages event in this trace");
		return;
	}
	out = json_child(metrics, "balance_dirty_pages");
	if (p->ntasks) {
		json_object *tasks = json_child(out, "task");

		for (int i = 0; i < p->ntasks; i++) {
			json_object *o = json_child(tasks, p->task[i].comm);

			json_set(o, "calls", json_number((double)p->task[i].calls));
			json_set(o, "pauses", json_number((double)p->task[i].pauses));
			json_set(o, "pause_max_ms", json_number((double)p->task[i].pause_max_ms));
			if (p->node_dirty && p->node_freerun && p->node_limit)
				json_set(o, "pauses_under_node_ceiling",
					 json_number((double)p->task[i].pauses_under_node_ceiling));
		}
	}
	samples_sort(&p->pauses_ms);
	/*
	 * The band is the kernel's own, in whole jiffies: wb_min_pause() aims
	 * at "10ms" as max(1, HZ / 100) jiffies and MAX_PAUSE is max(HZ / 5, 1)
	 * jiffies.  At HZ=250 that is 8..200 ms, and 8 ms is the 1-dd target,
	 * not a short pause.  The pauses are jiffies_to_msecs() of whole
	 * jiffies, so their gcd is the jiffy (4 ms at HZ=250) once the trace
	 * holds a few of them; HZ values whose jiffy is no whole number of ms
	 * give a gcd of 1 and the nominal 10..200 ms band.
	 */
	jiffy_ms = p->pause_gcd_ms > 0 && 1000 % p->pause_gcd_ms == 0 ? p->pause_gcd_ms : 1;
	hz = 1000 / jiffy_ms;
	band_low = (hz / 100 > 1 ? hz / 100 : 1) * jiffy_ms;
	band_high = (hz / 5 > 1 ? hz / 5 : 1) * jiffy_ms;
	for (size_t i = 0; i < p->pauses_ms.count; i++)
		if (p->pauses_ms.values[i] >= (double)band_low &&
		    p->pauses_ms.values[i] <= (double)band_high)
			in_band++;
	for (size_t i = 0; i < p->held_ms.count; i++)
		if (p->held_ms.values[i] > held_max)
			held_max = p->held_ms.values[i];
	json_set(out, "calls", json_number((double)p->calls));
	json_set(out, "calls_without_pause", json_number((double)p->calls_without_pause));
	json_set(out, "pauses", json_number((double)p->pauses_ms.count));
	json_set(out, "pause_p50_ms", json_number(percentile(&p->pauses_ms, 50)));
	json_set(out, "pause_p90_ms", json_number(percentile(&p->pauses_ms, 90)));
	json_set(out, "pause_p99_ms", json_number(percentile(&p->pauses_ms, 99)));
	json_set(out, "pause_max_ms", json_number(percentile(&p->pauses_ms, 100)));
	json_set(out, "pause_share_in_band",
		 p->pauses_ms.count ? json_number((double)in_band / (double)p->pauses_ms.count) : NULL);
	json_set(out, "pause_band_low_ms", json_number((double)band_low));
	json_set(out, "pause_band_high_ms", json_number((double)band_high));
	json_set(out, "jiffy_ms", p->pause_gcd_ms > 0 ? json_number((double)jiffy_ms) : NULL);
	/* entered but never paused: held 0 ms, which is a measurement */
	json_set(out, "max_held_ms", p->held_ms.count ? json_number(held_max)
				     : p->calls ? json_number(0) : NULL);
	if (!p->pauses_ms.count)
		unmeasurable(metrics, "balance_dirty_pages", "balance_dirty_pages never paused a task");
}

static void pauses_destroy(void *analysis)
{
	struct pauses *p = analysis;

	free(p->pauses_ms.values);
	free(p->held_ms.values);
	free(p);
}

const struct analysis_ops pauses_analysis = {
	.name = "pauses",
	.create = pauses_create,
	.emit = pauses_emit,
	.destroy = pauses_destroy,
};
