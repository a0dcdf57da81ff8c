/*
 * The write bandwidth estimate (writeback:bdi_dirty_ratelimit) of the device with most
 * estimates: final value, convergence, and against what the device really wrote
 * (global_dirty_state.nr_written) over the whole span and once settled.
 * Metrics: bandwidth.*
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpanalyze.h"

#define MAXBDI 16

struct estimate {
	double t, write_bw, avg_write_bw;
	int bdi; /* index into bandwidth.bdi_names */
	/* the latest global_dirty_state.nr_written (pages) before this estimate, and its time */
	double written, written_t;
};

struct bandwidth {
	struct analysis_context *ctx;
	struct tep_event *bdi_dirty_ratelimit;
	struct tep_format_field *write_bw, *avg_write_bw, *bdi;
	struct tep_format_field *nr_written; /* global_dirty_state's */

	struct estimate *estimates;
	size_t nestimates, capacity;
	char bdi_names[MAXBDI][33]; /* device names as the event gives them, e.g. "254:0" */
	unsigned long bdi_estimates[MAXBDI];
	int nbdis;

	double written, written_t; /* NAN until a global_dirty_state gives nr_written */
};

static void on_global_dirty_state(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct bandwidth *b = analysis;
	long long pages;

	(void)pid;
	if (!read_field(b->nr_written, r, &pages)) {
		b->written = (double)pages;
		b->written_t = t;
	}
}

static void on_bdi_dirty_ratelimit(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct bandwidth *b = analysis;
	const struct tep_format_field *bf = b->bdi;
	long long bw, avg;
	char name[33] = "?";
	int k;

	(void)pid;
	if (read_field(b->write_bw, r, &bw) || read_field(b->avg_write_bw, r, &avg))
		return;
	if (bf && bf->offset >= 0 && bf->offset + bf->size <= r->size) {
		size_t len = (size_t)bf->size < sizeof(name) - 1 ? (size_t)bf->size : sizeof(name) - 1;

		memcpy(name, (const char *)r->data + bf->offset, len);
		name[len] = 0;
		for (char *c = name; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
	}
	for (k = 0; k < b->nbdis && strcmp(b->bdi_names[k], name); k++)
		;
	if (k == b->nbdis) {
		if (b->nbdis == MAXBDI)
			return; /* more devices than any lab topology has: ignore the rest */
		memcpy(b->bdi_names[k], name, sizeof(name));
		b->nbdis++;
	}
	b->bdi_estimates[k]++;
	if (b->nestimates == b->capacity) {
		b->capacity = b->capacity ? 2 * b->capacity : 256;
		b->estimates = realloc(b->estimates, b->capacity * sizeof(*b->estimates));
		if (!b->estimates)
			die("out of memory");
	}
	b->estimates[b->nestimates++] = (struct estimate){ t, (double)bw, (double)avg, k,
							   b->written, b->written_t };
}

static void *bandwidth_create(struct analysis_context *ctx)
{
	struct bandwidth *b = xmalloc(sizeof(*b));
	struct tep_event *gds = find_event(ctx->tep, "writeback", "global_dirty_state");

	b->ctx = ctx;
	b->written = NAN;
	b->written_t = NAN;
	b->bdi_dirty_ratelimit = find_event(ctx->tep, "writeback", "bdi_dirty_ratelimit");
	b->write_bw = find_field(b->bdi_dirty_ratelimit, "write_bw");
	b->avg_write_bw = find_field(b->bdi_dirty_ratelimit, "avg_write_bw");
	b->bdi = find_field(b->bdi_dirty_ratelimit, "bdi");
	b->nr_written = find_field(gds, "nr_written");
	if (b->nr_written)
		analysis_on_event(ctx, gds, on_global_dirty_state, b);
	analysis_on_event(ctx, b->bdi_dirty_ratelimit, on_bdi_dirty_ratelimit, b);
	return b;
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
#define SETTLE_S 10.0

/* kB/s the device wrote between two estimates, from their nr_written (pages) */
static double device_kBps(const struct bandwidth *b, const struct estimate *from,
			  const struct estimate *to)
{
	return (to->written - from->written) * (double)b->ctx->page_size / 1024.0 /
	       (to->written_t - from->written_t);
}

static void emit_settled(struct bandwidth *b, json_object *metrics, json_object *out, int best,
			 double t_first, const struct estimate *last_written)
{
	struct samples settled = { 0 };
	const struct estimate *first_written = NULL;
	double device, span;

	for (size_t i = 0; i < b->nestimates; i++) {
		const struct estimate *e = &b->estimates[i];

		if (e->bdi != best || e->t < t_first + SETTLE_S)
			continue;
		samples_push(&settled, e->avg_write_bw);
		if (!first_written && !isnan(e->written))
			first_written = e;
	}
	span = first_written ? last_written->written_t - first_written->written_t : 0;
	if (!first_written || span < 1.0 || last_written->written < first_written->written) {
		unmeasurable(metrics, "bandwidth.settled_estimate_to_device",
			     "under 1 s of estimates from 10 s after the first one");
		free(settled.values);
		return;
	}
	device = device_kBps(b, first_written, last_written);
	json_set(out, "settled_span_s", json_number(span));
	json_set(out, "settled_samples", json_number((double)settled.count));
	json_set(out, "settled_device_write_kBps", json_number(device));
	if (device <= 0) {
		unmeasurable(metrics, "bandwidth.settled_estimate_to_device",
			     "the device wrote nothing in the settled window");
		free(settled.values);
		return;
	}
	samples_sort(&settled);
	json_set(out, "settled_estimate_p10_to_device", json_number(percentile(&settled, 10) / device));
	json_set(out, "settled_estimate_to_device", json_number(percentile(&settled, 50) / device));
	json_set(out, "settled_estimate_p90_to_device", json_number(percentile(&settled, 90) / device));
	free(settled.values);
}

/* The device the run wrote to is the one with most estimates; others would mix in. */
static int busiest_bdi(const struct bandwidth *b)
{
	int best = 0;

	for (int k = 1; k < b->nbdis; k++)
		if (b->bdi_estimates[k] > b->bdi_estimates[best])
			best = k;
	return best;
}

/* The time of the first estimate of bdi after which avg_write_bw stays within 10% of
 * its final value; last is the index of bdi's last estimate. */
static double converge_time(const struct bandwidth *b, int bdi, size_t last)
{
	double final_avg = b->estimates[last].avg_write_bw, converged = b->estimates[last].t;

	for (size_t i = last + 1; i-- > 0;) {
		if (b->estimates[i].bdi != bdi)
			continue;
		if (fabs(b->estimates[i].avg_write_bw - final_avg) > 0.1 * final_avg)
			break;
		converged = b->estimates[i].t;
	}
	return converged;
}

static void bandwidth_emit(void *analysis, json_object *metrics, double duration)
{
	struct bandwidth *b = analysis;
	json_object *out;
	double final_avg = NAN, final_bw = NAN, device = NAN;
	size_t samples = 0, last = 0;
	const struct estimate *first_written = NULL, *last_written = NULL;
	int best;

	(void)duration;
	if (!b->nestimates) {
		unmeasurable(metrics, "bandwidth", "no writeback:bdi_dirty_ratelimit event in this trace");
		return;
	}
	out = json_child(metrics, "bandwidth");
	best = busiest_bdi(b);
	for (size_t i = 0; i < b->nestimates; i++) {
		const struct estimate *e = &b->estimates[i];

		if (e->bdi != best)
			continue;
		final_avg = e->avg_write_bw;
		final_bw = e->write_bw;
		last = i;
		samples++;
		if (!isnan(e->written)) {
			if (!first_written)
				first_written = e;
			last_written = e;
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
	if (first_written && b->ctx->page_size > 0 &&
	    last_written->written_t - first_written->written_t >= 1.0 &&
	    last_written->written >= first_written->written)
		device = device_kBps(b, first_written, last_written);
	json_set(out, "bdi", json_object_new_string(b->bdi_names[best]));
	json_set(out, "bdis", json_number(b->nbdis));
	json_set(out, "samples", json_number((double)samples));
	json_set(out, "write_bw_final_kBps", json_number(final_bw));
	json_set(out, "avg_write_bw_final_kBps", json_number(final_avg));
	json_set(out, "converge_time_s", json_number(converge_time(b, best, last)));
	if (isnan(device)) {
		unmeasurable(metrics, "bandwidth.device_write_kBps",
			     !b->nr_written ? "global_dirty_state has no nr_written field"
			     : b->ctx->page_size <= 0 ? "the trace file gives no page size"
			     : "under 1 s of estimates with global_dirty_state.nr_written before them");
		unmeasurable(metrics, "bandwidth.estimate_to_device", "device write rate unmeasurable");
		return;
	}
	json_set(out, "device_write_kBps", json_number(device));
	json_set(out, "device_span_s", json_number(last_written->written_t - first_written->written_t));
	json_set(out, "estimate_to_device", device > 0 ? json_number(final_avg / device) : NULL);
	if (device <= 0)
		unmeasurable(metrics, "bandwidth.estimate_to_device",
			     "the device wrote nothing while estimated");
	emit_settled(b, metrics, out, best, first_written->t, last_written);
}

static void bandwidth_destroy(void *analysis)
{
	struct bandwidth *b = analysis;

	free(b->estimates);
	free(b);
}

const struct analysis_ops bandwidth_analysis = {
	.name = "bandwidth",
	.create = bandwidth_create,
	.emit = bandwidth_emit,
	.destroy = bandwidth_destroy,
};
