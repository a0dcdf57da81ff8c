/*
 * The global dirty domain (writeback:global_dirty_state): peaks of dirty and writeback
 * pages, the median writeback, and the floor of the scaled limits (the freerun ceiling at
 * pressure 0 in seconds of writeout).  Metrics: dirty.global.*, floor.*
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>

#include "dpanalyze.h"

struct dirty {
	struct tep_event *global_dirty_state;
	struct tep_format_field *nr_dirty, *nr_writeback, *nr_written, *pressure, *freerun;

	struct samples writeback_pages;	/* nr_writeback of every sample */
	double dirty_peak, writeback_peak, dirty_writeback_peak;

	double written, written_t;	/* NAN until a sample gives nr_written */
	/* samples at pressure 0: time, freerun ceiling, nr_written (the floor) */
	struct samples zero_t, zero_freerun, zero_written;
};

static void on_global_dirty_state(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct dirty *d = analysis;
	long long dirty, writeback, written, pressure, freerun;

	(void)pid;
	if (!read_field(d->nr_dirty, r, &dirty) && !read_field(d->nr_writeback, r, &writeback)) {
		samples_push(&d->writeback_pages, (double)writeback);
		if ((double)dirty > d->dirty_peak)
			d->dirty_peak = (double)dirty;
		if ((double)writeback > d->writeback_peak)
			d->writeback_peak = (double)writeback;
		if ((double)(dirty + writeback) > d->dirty_writeback_peak)
			d->dirty_writeback_peak = (double)(dirty + writeback);
	}
	if (!read_field(d->nr_written, r, &written)) {
		d->written = (double)written;
		d->written_t = t;
	}
	/* at pressure 0 the scaled freerun ceiling is min(stock ceiling, floor) */
	if (!read_field(d->pressure, r, &pressure) && pressure == 0 && !isnan(d->written) &&
	    d->written_t == t && !read_field(d->freerun, r, &freerun)) {
		samples_push(&d->zero_t, t);
		samples_push(&d->zero_freerun, (double)freerun);
		samples_push(&d->zero_written, d->written);
	}
}

static void *dirty_create(struct analysis_context *ctx)
{
	struct dirty *d = xmalloc(sizeof(*d));
	struct tep_event *ev = find_event(ctx->tep, "writeback", "global_dirty_state");

	d->written = NAN;
	d->written_t = NAN;
	d->global_dirty_state = ev;
	d->nr_dirty = find_field(ev, "nr_dirty");
	d->nr_writeback = find_field(ev, "nr_writeback");
	d->nr_written = find_field(ev, "nr_written");
	d->pressure = find_field(ev, "pressure");
	d->freerun = find_field(ev, "freerun");
	analysis_on_event(ctx, ev, on_global_dirty_state, d);
	return d;
}

/* Dirty and writeback pages of the global domain (balance_dirty_pages fires only when a
 * task is past the freerun ceiling: throttle.c). */
static void emit_dirty(struct dirty *d, json_object *metrics)
{
	json_object *g;

	if (!d->writeback_pages.count) {
		unmeasurable(metrics, "dirty.global", "no writeback:global_dirty_state event in this trace");
		return;
	}
	g = json_child(json_child(metrics, "dirty"), "global");
	json_set(g, "samples", json_number((double)d->writeback_pages.count));
	json_set(g, "dirty_peak_pages", json_number(d->dirty_peak));
	json_set(g, "writeback_peak_pages", json_number(d->writeback_peak));
	json_set(g, "dirty_writeback_peak_pages", json_number(d->dirty_writeback_peak));
	samples_sort(&d->writeback_pages);
	json_set(g, "writeback_p50_pages", json_number(percentile(&d->writeback_pages, 50)));
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
static void emit_floor(struct dirty *d, json_object *metrics)
{
	struct samples seconds = { 0 };
	const double *t = d->zero_t.values;
	size_t n = d->zero_t.count, k;
	json_object *f;
	double rate;

	if (!d->freerun || !d->nr_written) {
		unmeasurable(metrics, "floor", "global_dirty_state has no freerun or nr_written field");
		return;
	}
	if (n < 4) {
		unmeasurable(metrics, "floor", "fewer than 4 global_dirty_state events at pressure 0");
		return;
	}
	for (k = 0; k < n && t[k] < (t[0] + t[n - 1]) / 2; k++)
		;
	if (n - k < 2 || t[n - 1] - t[k] < 1.0) {
		unmeasurable(metrics, "floor", "under 1 s of global_dirty_state events at pressure 0");
		return;
	}
	rate = (d->zero_written.values[n - 1] - d->zero_written.values[k]) / (t[n - 1] - t[k]);
	f = json_child(metrics, "floor");
	json_set(f, "events_at_zero", json_number((double)n));
	json_set(f, "late_events", json_number((double)(n - k)));
	json_set(f, "writeout_pages_per_s", json_number(rate));
	if (rate <= 0) {
		unmeasurable(metrics, "floor.freerun_seconds_min", "nothing written in the late half");
		return;
	}
	for (size_t i = k; i < n; i++)
		samples_push(&seconds, d->zero_freerun.values[i] / rate);
	samples_sort(&seconds);
	json_set(f, "freerun_seconds_min", json_number(seconds.values[0]));
	json_set(f, "freerun_seconds_p50", json_number(percentile(&seconds, 50)));
	json_set(f, "freerun_seconds_max", json_number(seconds.values[seconds.count - 1]));
	free(seconds.values);
}

static void dirty_emit(void *analysis, json_object *metrics, double duration)
{
	(void)duration;
	emit_dirty(analysis, metrics);
	emit_floor(analysis, metrics);
}

static void dirty_destroy(void *analysis)
{
	struct dirty *d = analysis;

	free(d->writeback_pages.values);
	free(d->zero_t.values);
	free(d->zero_freerun.values);
	free(d->zero_written.values);
	free(d);
}

const struct analysis_ops dirty_analysis = {
	.name = "dirty",
	.create = dirty_create,
	.emit = dirty_emit,
	.destroy = dirty_destroy,
};
