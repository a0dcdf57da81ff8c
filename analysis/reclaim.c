/*
 * Reclaim: pageout by type, direct reclaim time, flusher work started for vmscan, per node
 * the shrink_inactive batches, kswapd wakes and sleeps and mm_vmscan_throttled, and the
 * write bios kswapd queued (block:block_bio_queue).
 * Metrics: reclaim.*, kswapd.*, throttled.*, block.*
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "dpanalyze.h"

#define DIRECT_RECLAIM_SLOTS 4096

/* include/trace/events/vmscan.h */
#define RECLAIM_WB_FILE 0x2
/* include/linux/writeback.h, 6.1 */
#define WB_REASON_VMSCAN 1

struct node_reclaim {
	unsigned long shrink_inactive, kswapd_wake, kswapd_sleep, throttled;
	double throttled_us;
	/* kswapdN's data write bios */
	int kswapd_wrote;
	double kswapd_write_pages;
};

struct reclaim {
	struct analysis_context *ctx;
	struct tep_event *write_folio, *shrink_inactive, *kswapd_wake, *kswapd_sleep, *throttled;
	struct tep_event *direct_begin, *direct_end, *writeback_start, *bio_queue;
	struct tep_format_field *reclaim_flags, *shrink_nid, *shrink_priority;
	struct tep_format_field *kswapd_wake_nid, *kswapd_sleep_nid;
	struct tep_format_field *throttled_nid, *throttled_usec;
	struct tep_format_field *writeback_reason, *bio_sectors, *bio_rwbs, *bio_comm;

	struct node_reclaim node[MAXNODE];
	unsigned long pageout_file, pageout_anon;
	unsigned long writeback_start_vmscan;

	/* direct reclaim begin time per pid (small open-addressing table); pid 0 is -1 */
	int direct_pid[DIRECT_RECLAIM_SLOTS];
	double direct_begin_t[DIRECT_RECLAIM_SLOTS]; /* -1: not in direct reclaim */
	double direct_total_s, direct_max_s;
	unsigned long direct_count;

	/*
	 * block:block_bio_queue: write bios by submitter.  In 6.1 only kswapd writes file
	 * folios from reclaim (shrink_folio_list() sends direct reclaim's dirty file folios
	 * back to the LRU), and a bio is queued in the context of the task that submits it,
	 * so the write bios whose comm is kswapdN are reclaim's own writeback on node N.
	 */
	unsigned long write_bios, kswapd_write_bios;
	double write_pages, kswapd_write_pages, kswapd_meta_pages;
};

static void on_write_folio(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	long long flags;

	(void)t;
	(void)pid;
	if (read_field(rc->reclaim_flags, r, &flags))
		return;
	if (flags & RECLAIM_WB_FILE)
		rc->pageout_file++;
	else
		rc->pageout_anon++;
}

static void on_shrink_inactive(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	long long nid, priority;

	(void)t;
	(void)pid;
	if (read_field(rc->shrink_nid, r, &nid) || read_field(rc->shrink_priority, r, &priority))
		return;
	if (!node_mark_seen(rc->ctx, nid))
		rc->node[nid].shrink_inactive++;
}

static void on_kswapd_wake(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	long long nid;

	(void)t;
	(void)pid;
	if (!read_field(rc->kswapd_wake_nid, r, &nid) && !node_mark_seen(rc->ctx, nid))
		rc->node[nid].kswapd_wake++;
}

static void on_kswapd_sleep(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	long long nid;

	(void)t;
	(void)pid;
	if (!read_field(rc->kswapd_sleep_nid, r, &nid) && !node_mark_seen(rc->ctx, nid))
		rc->node[nid].kswapd_sleep++;
}

static void on_throttled(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	long long nid, usec;

	(void)t;
	(void)pid;
	if (read_field(rc->throttled_nid, r, &nid) || read_field(rc->throttled_usec, r, &usec))
		return;
	if (node_mark_seen(rc->ctx, nid))
		return;
	rc->node[nid].throttled++;
	rc->node[nid].throttled_us += (double)usec;
}

static int direct_slot(struct reclaim *rc, int pid)
{
	unsigned int h = (unsigned int)pid * 2654435761u % DIRECT_RECLAIM_SLOTS;

	for (int i = 0; i < DIRECT_RECLAIM_SLOTS; i++, h = (h + 1) % DIRECT_RECLAIM_SLOTS)
		if (rc->direct_pid[h] == pid || rc->direct_pid[h] == 0)
			return (int)h;
	return -1;
}

static void on_direct_begin(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	int key = pid ? pid : -1, k = direct_slot(rc, key);

	(void)r;
	if (k < 0)
		return;
	rc->direct_pid[k] = key;
	rc->direct_begin_t[k] = t;
}

static void on_direct_end(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	int key = pid ? pid : -1, k = direct_slot(rc, key);
	double d;

	(void)r;
	if (k < 0 || rc->direct_pid[k] != key || rc->direct_begin_t[k] < 0)
		return;
	d = t - rc->direct_begin_t[k];
	rc->direct_total_s += d;
	rc->direct_count++;
	if (d > rc->direct_max_s)
		rc->direct_max_s = d;
	rc->direct_begin_t[k] = -1;
}

static void on_writeback_start(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	long long reason;

	(void)t;
	(void)pid;
	if (!read_field(rc->writeback_reason, r, &reason) && reason == WB_REASON_VMSCAN)
		rc->writeback_start_vmscan++;
}

static void on_bio_queue(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct reclaim *rc = analysis;
	char rwbs[16], comm[32];
	long long sectors;
	double pages;
	const char *op;
	int nid = -1;

	(void)t;
	(void)pid;
	if (read_field(rc->bio_sectors, r, &sectors) || sectors < 0 || rc->ctx->page_size <= 0)
		return;
	read_string_field(rc->bio_rwbs, r, rwbs, sizeof(rwbs));
	read_string_field(rc->bio_comm, r, comm, sizeof(comm));
	/* blk_fill_rwbs(): an optional F (preflush) first, then the operation letter */
	op = rwbs[0] == 'F' ? rwbs + 1 : rwbs;
	if (*op != 'W')
		return;
	pages = (double)sectors * 512.0 / (double)rc->ctx->page_size;
	rc->write_bios++;
	rc->write_pages += pages;
	if (strncmp(comm, "kswapd", 6))
		return;
	if (comm[6] >= '0' && comm[6] <= '9') {
		nid = atoi(comm + 6);
		if (nid >= MAXNODE)
			nid = -1;
	}
	/* REQ_META ('M'): filesystem metadata (XFS buffers and log), not page cache */
	if (strchr(op, 'M')) {
		rc->kswapd_meta_pages += pages;
		return;
	}
	rc->kswapd_write_bios++;
	rc->kswapd_write_pages += pages;
	if (nid >= 0) {
		rc->node[nid].kswapd_write_pages += pages;
		rc->node[nid].kswapd_wrote = 1;
	}
}

static void *reclaim_create(struct analysis_context *ctx)
{
	struct reclaim *rc = xmalloc(sizeof(*rc));
	struct tep_handle *tep = ctx->tep;

	rc->ctx = ctx;
	for (int i = 0; i < DIRECT_RECLAIM_SLOTS; i++)
		rc->direct_begin_t[i] = -1;
	rc->write_folio = find_event(tep, "vmscan", "mm_vmscan_write_folio");
	rc->reclaim_flags = find_field(rc->write_folio, "reclaim_flags");
	rc->shrink_inactive = find_event(tep, "vmscan", "mm_vmscan_lru_shrink_inactive");
	rc->shrink_nid = find_field(rc->shrink_inactive, "nid");
	rc->shrink_priority = find_field(rc->shrink_inactive, "priority");
	rc->kswapd_wake = find_event(tep, "vmscan", "mm_vmscan_kswapd_wake");
	rc->kswapd_wake_nid = find_field(rc->kswapd_wake, "nid");
	rc->kswapd_sleep = find_event(tep, "vmscan", "mm_vmscan_kswapd_sleep");
	rc->kswapd_sleep_nid = find_field(rc->kswapd_sleep, "nid");
	rc->throttled = find_event(tep, "vmscan", "mm_vmscan_throttled");
	rc->throttled_nid = find_field(rc->throttled, "nid");
	rc->throttled_usec = find_field(rc->throttled, "usec_delayed");
	rc->direct_begin = find_event(tep, "vmscan", "mm_vmscan_direct_reclaim_begin");
	rc->direct_end = find_event(tep, "vmscan", "mm_vmscan_direct_reclaim_end");
	rc->writeback_start = find_event(tep, "writeback", "writeback_start");
	rc->writeback_reason = find_field(rc->writeback_start, "reason");
	rc->bio_queue = find_event(tep, "block", "block_bio_queue");
	rc->bio_sectors = find_field(rc->bio_queue, "nr_sector");
	rc->bio_rwbs = find_field(rc->bio_queue, "rwbs");
	rc->bio_comm = find_field(rc->bio_queue, "comm");

	analysis_on_event(ctx, rc->write_folio, on_write_folio, rc);
	analysis_on_event(ctx, rc->shrink_inactive, on_shrink_inactive, rc);
	analysis_on_event(ctx, rc->kswapd_wake, on_kswapd_wake, rc);
	analysis_on_event(ctx, rc->kswapd_sleep, on_kswapd_sleep, rc);
	analysis_on_event(ctx, rc->throttled, on_throttled, rc);
	analysis_on_event(ctx, rc->direct_begin, on_direct_begin, rc);
	analysis_on_event(ctx, rc->direct_end, on_direct_end, rc);
	analysis_on_event(ctx, rc->writeback_start, on_writeback_start, rc);
	analysis_on_event(ctx, rc->bio_queue, on_bio_queue, rc);
	return rc;
}

static void emit_nodes(struct reclaim *rc, json_object *out, json_object *kswapd,
		       json_object *throttled)
{
	for (int i = 0; i < MAXNODE; i++) {
		struct node_reclaim *n = &rc->node[i];
		char key[16];

		if (!rc->ctx->node_seen[i])
			continue;
		snprintf(key, sizeof(key), "node%d", i);
		if (rc->kswapd_wake) {
			json_object *o = json_child(kswapd, key);

			json_set(o, "wake", json_number((double)n->kswapd_wake));
			json_set(o, "sleep", json_number((double)n->kswapd_sleep));
		}
		if (rc->shrink_inactive)
			json_set(json_child(json_child(out, "shrink_inactive"), key), "calls",
				 json_number((double)n->shrink_inactive));
		if (rc->throttled) {
			json_object *o = json_child(throttled, key);

			json_set(o, "count", json_number((double)n->throttled));
			json_set(o, "delayed_ms", json_number(n->throttled_us / 1000));
		}
	}
}

static void emit_kswapd_write(struct reclaim *rc, json_object *metrics, json_object *out)
{
	json_object *w, *block;

	if (!rc->bio_queue || rc->ctx->page_size <= 0) {
		const char *why = rc->bio_queue ? "the trace file gives no page size"
			: "no block:block_bio_queue event in this trace (add it to the scenario's EVENTS)";

		unmeasurable(metrics, "reclaim.kswapd_write", why);
		unmeasurable(metrics, "reclaim.kswapd_write_excess_pages", why);
		unmeasurable(metrics, "block", why);
		return;
	}
	w = json_child(out, "kswapd_write");
	block = json_child(metrics, "block");
	json_set(block, "write_bios", json_number((double)rc->write_bios));
	json_set(block, "write_pages", json_number(rc->write_pages));
	json_set(w, "pages", json_number(rc->kswapd_write_pages));
	json_set(w, "bios", json_number((double)rc->kswapd_write_bios));
	json_set(w, "meta_pages", json_number(rc->kswapd_meta_pages));
	for (int i = 0; i < MAXNODE; i++) {
		char key[16];

		if (!rc->ctx->node_seen[i] && !rc->node[i].kswapd_wrote)
			continue;
		snprintf(key, sizeof(key), "node%d", i);
		json_set(json_child(w, key), "pages", json_number(rc->node[i].kswapd_write_pages));
	}
	/* > 0: kswapd sent more data pages to the disk than reclaim's traced
	 * writepage calls could account for */
	if (rc->write_folio)
		json_set(out, "kswapd_write_excess_pages",
			 json_number(rc->kswapd_write_pages - (double)rc->pageout_file));
	else
		unmeasurable(metrics, "reclaim.kswapd_write_excess_pages",
			     "no vmscan:mm_vmscan_write_folio event in this trace");
}

static void reclaim_emit(void *analysis, json_object *metrics, double duration)
{
	struct reclaim *rc = analysis;
	json_object *out = json_child(metrics, "reclaim");
	json_object *kswapd = json_child(metrics, "kswapd");
	json_object *throttled = json_child(metrics, "throttled");

	(void)duration;
	if (rc->write_folio) {
		json_set(out, "file_pageout", json_number((double)rc->pageout_file));
		json_set(out, "anon_pageout", json_number((double)rc->pageout_anon));
	} else {
		unmeasurable(metrics, "reclaim.file_pageout",
			     "no vmscan:mm_vmscan_write_folio event in this trace");
		unmeasurable(metrics, "reclaim.anon_pageout",
			     "no vmscan:mm_vmscan_write_folio event in this trace");
	}
	if (rc->direct_begin && rc->direct_end) {
		json_set(out, "direct_reclaim_total_s", json_number(rc->direct_total_s));
		json_set(out, "direct_reclaim_count", json_number((double)rc->direct_count));
		json_set(out, "direct_reclaim_max_ms", json_number(rc->direct_max_s * 1000));
	} else {
		unmeasurable(metrics, "reclaim.direct_reclaim_total_s",
			     "no mm_vmscan_direct_reclaim_begin/end events in this trace");
	}
	if (rc->writeback_start)
		json_set(out, "writeback_start_vmscan", json_number((double)rc->writeback_start_vmscan));
	emit_nodes(rc, out, kswapd, throttled);
	emit_kswapd_write(rc, metrics, out);
	if (!rc->kswapd_wake)
		unmeasurable(metrics, "kswapd", "no vmscan:mm_vmscan_kswapd_wake event in this trace");
	if (!rc->throttled)
		unmeasurable(metrics, "throttled", "no vmscan:mm_vmscan_throttled event in this trace");
}

static void reclaim_destroy(void *analysis)
{
	free(analysis);
}

const struct analysis_ops reclaim_analysis = {
	.name = "reclaim",
	.create = reclaim_create,
	.emit = reclaim_emit,
	.destroy = reclaim_destroy,
};
