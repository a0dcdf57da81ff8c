/* hog: anonymous memory bound to a NUMA node, to put one node under memory
 * pressure.  It allocates (first-touches) the memory MiB by MiB, optionally
 * ramped over time, re-touches it for a number of passes or a duration,
 * holds it, and optionally releases it gradually.  Every 1 MiB chunk's
 * allocation and each re-touch are timed, so reclaim stalls show.  With
 * --churn it gives back part of the memory while holding and allocates it
 * again, so allocation latency is also taken later (while a writer runs).
 * An OOM kill is seen by the caller as death by SIGKILL.
 *
 * Report (JSON, one flat object; keys carry their unit):
 *   program, version, status (complete|interrupted|running: an interim
 *   report of --report-every), error, signal,
 *   numa_available, nodes, node (-1: none), policy (bind|default),
 *   cpu_bound, size_bytes, chunk_bytes, page_bytes, touch (seq|random),
 *   thp, ramp_s, hold_s, release, churn_bytes_requested, churn_every_ms,
 *   passes_requested, duration_s_requested,
 *   chunks_allocated, bytes_allocated, alloc_s, alloc_bytes_per_s,
 *   alloc_lat_{p50,p90,p99,max,mean}_us (per chunk), passes_done,
 *   chunk_touches, touch_s, touch_bytes_per_s,
 *   touch_lat_{p50,p90,p99,max,mean}_us (per chunk), churn_chunks,
 *   churn_s, churn_lat_{p50,p90,p99,max,mean}_us (per chunk re-allocated
 *   by --churn), resident_pages_node
 *   [per node], nonresident_pages, resident_error_pages,
 *   resident_sampled_pages, resident_sample_stride, chunks_released,
 *   release_s, elapsed_s.
 */
#include "common.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK (1ull << 20)

static const char *const touch_names[] = { "seq", "random" };

enum {
	OPT_HELP, OPT_NODE, OPT_SIZE, OPT_TOUCH, OPT_PASSES, OPT_DURATION,
	OPT_RAMP, OPT_HOLD, OPT_RELEASE, OPT_THP, OPT_REPORT, OPT_EVERY,
	OPT_CHURN, OPT_CHURN_EVERY,
};

static const struct opt opts[] = {
	{ "help", 0, OPT_HELP },
	{ "node", 1, OPT_NODE },
	{ "size", 1, OPT_SIZE },
	{ "touch", 1, OPT_TOUCH },
	{ "passes", 1, OPT_PASSES },
	{ "duration", 1, OPT_DURATION },
	{ "ramp", 1, OPT_RAMP },
	{ "hold", 1, OPT_HOLD },
	{ "release", 0, OPT_RELEASE },
	{ "thp", 0, OPT_THP },
	{ "report", 1, OPT_REPORT },
	{ "report-every", 1, OPT_EVERY },
	{ "churn", 1, OPT_CHURN },
	{ "churn-every", 1, OPT_CHURN_EVERY },
	{ NULL, 0, 0 },
};

static void help(void)
{
	printf(
"Usage: hog --size SIZE [options]\n"
"Anonymous memory, bound to a node, allocated and touched in 1 MiB chunks.\n"
"SIZE accepts K, M, G, T suffixes (powers of 1024).\n"
"\n"
"  --size SIZE      memory to allocate (required)\n"
"  --node N         run on node N's CPUs and bind the memory to N (MPOL_BIND);\n"
"                   without it: no pinning, default policy\n"
"  --touch ORDER    seq (default) | random: order of chunks, and of pages in a\n"
"                   chunk, in the touch passes\n"
"  --passes N       touch passes over all memory after allocating (default 1)\n"
"  --duration S     instead of --passes: keep touching for S seconds\n"
"  --ramp S         spread the allocation (and --release) over S seconds\n"
"  --hold S         keep the memory S seconds after touching\n"
"  --release        at the end, unmap chunk by chunk (over --ramp seconds)\n"
"  --churn SIZE     while holding, every --churn-every ms give back SIZE (whole\n"
"                   MiB) of the memory, chunk by chunk (MADV_DONTNEED), and\n"
"                   half a period later first-touch those chunks again, each\n"
"                   timed (churn_lat_*); the next period takes the next chunks.\n"
"                   Needs --hold; at most --size\n"
"  --churn-every MS period of --churn in milliseconds (default 100)\n"
"  --thp            allow transparent huge pages (default: MADV_NOHUGEPAGE, so\n"
"                   every chunk faults in 4K pages and timings compare)\n"
"  --report FILE    JSON report, written atomically, also on SIGTERM/SIGINT\n"
"  --report-every S also rewrite the report every S seconds while running\n"
"                   (status \"running\"), so an OOM kill leaves the last one\n"
"  --help           this text\n"
"\n"
"Exit: 0 done, 1 error, 2 bad arguments or cannot start, 128+N after signal N\n"
"(report still written); killed by the OOM killer: death by SIGKILL.\n");
}

struct cfg {
	const char *report;
	uint64_t size, passes, churn, churn_every_ms;
	double duration, ramp, hold, every;
	int node, random, release, thp, passes_set, duration_set;
};

static void parse_args(int argc, char **argv, struct cfg *c)
{
	const char *v, *size_arg = NULL, *churn_arg = NULL;
	int id, i = 1, size_set = 0, every_set = 0;

	memset(c, 0, sizeof(*c));
	c->node = -1;
	c->passes = 1;
	c->churn_every_ms = 100;
	while ((id = opt_next(argc, argv, opts, &i, &v)) >= 0) {
		switch (id) {
		case OPT_HELP:
			help();
			exit(0);
		case OPT_NODE:
			c->node = parse_node("node", v);
			break;
		case OPT_SIZE:
			c->size = parse_size("size", v);
			size_arg = v;
			size_set = 1;
			break;
		case OPT_TOUCH:
			c->random = parse_choice("touch", "order", v, touch_names, 2);
			break;
		case OPT_PASSES:
			c->passes = parse_count("passes", v);
			c->passes_set = 1;
			break;
		case OPT_DURATION:
			c->duration = parse_seconds("duration", v);
			c->duration_set = 1;
			break;
		case OPT_RAMP:
			c->ramp = parse_seconds("ramp", v);
			break;
		case OPT_HOLD:
			c->hold = parse_seconds("hold", v);
			break;
		case OPT_RELEASE:
			c->release = 1;
			break;
		case OPT_THP:
			c->thp = 1;
			break;
		case OPT_REPORT:
			c->report = v;
			break;
		case OPT_EVERY:
			c->every = parse_report_every(v);
			break;
		case OPT_CHURN:
			c->churn = parse_size("churn", v);
			churn_arg = v;
			break;
		case OPT_CHURN_EVERY:
			c->churn_every_ms = parse_count("churn-every", v);
			every_set = 1;
			break;
		}
	}
	require_size(size_set, c->size);
	if (c->size > (uint64_t)SIZE_MAX / 2)
		usage_error("--size %llu: too large for this machine",
			    (unsigned long long)c->size);
	if (c->every > 0 && !c->report)
		usage_error("--report-every needs --report");
	if (c->passes_set && c->duration_set)
		usage_error("--passes and --duration exclude each other");
	if (churn_arg && (c->churn == 0 || c->churn % CHUNK))
		usage_error("--churn %s: want a whole number of MiB, at least 1M",
			    churn_arg);
	if (churn_arg && c->churn > c->size)
		usage_error("--churn %s: more than --size %s", churn_arg, size_arg);
	if (churn_arg && c->hold <= 0)
		usage_error("--churn needs --hold (it churns while holding)");
	if (every_set && !churn_arg)
		usage_error("--churn-every needs --churn");
	if (c->churn_every_ms == 0 || c->churn_every_ms > 86400000)
		usage_error("--churn-every must be 1..86400000 ms");
	if (c->report)
		report_path_check("report", c->report);
}

struct state {
	const char *status;
	char error[256];
	char *base;
	uint64_t nchunks, allocated, released, passes_done, touches;
	uint64_t t0, alloc_ns, touch_ns, release_ns;
	/* --churn: chunks re-allocated, time spent, the dropped batch (out
	 * chunks from first) and when the next step is due */
	uint64_t churned, churn_ns, churn_first, churn_out, churn_next;
	uint64_t churn_period_start;
	struct hist alat, tlat, clat;
	struct placement res;
	int cpu_bound, placed, running;
	uint64_t rng, next_report;
	uint32_t *order;	/* chunk or page permutation scratch */
};

static uint64_t chunk_len(const struct cfg *c, uint64_t i)
{
	uint64_t off = i * CHUNK;

	return c->size - off < CHUNK ? c->size - off : CHUNK;
}

static void shuffle(uint32_t *a, uint64_t n, uint64_t *rng)
{
	for (uint64_t i = 0; i < n; i++)
		a[i] = (uint32_t)i;
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = rand64(rng) % i;
		uint32_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* Writes one word in every page of chunk i, in page order or shuffled. */
static void touch_chunk(const struct cfg *c, struct state *s, uint64_t i,
			uint64_t val, uint32_t *pages)
{
	uint64_t ps = (uint64_t)numa.page_size, np = pages_of(chunk_len(c, i));
	char *p = s->base + i * CHUNK;

	if (c->random && pages) {
		shuffle(pages, np, &s->rng);
		for (uint64_t k = 0; k < np; k++)
			((volatile uint64_t *)(p + pages[k] * ps))[0] += val;
	} else {
		for (uint64_t k = 0; k < np; k++)
			((volatile uint64_t *)(p + k * ps))[0] += val;
	}
}

static int report(const struct cfg *c, const struct state *s);

/* --churn cycles over the whole chunks only: a partial last chunk is never
 * given back, so every churned chunk is a full 1 MiB allocation. */
static uint64_t churn_chunk(const struct cfg *c, const struct state *s,
			    uint64_t k)
{
	return (s->churn_first + k) % (c->size / CHUNK);
}

static void churn_drop(const struct cfg *c, struct state *s)
{
	uint64_t n = c->churn / CHUNK, a = now_ns();

	for (uint64_t k = 0; k < n; k++) {
		if (madvise(s->base + churn_chunk(c, s, k) * CHUNK, CHUNK,
			    MADV_DONTNEED) < 0) {
			snprintf(s->error, sizeof(s->error),
				 "madvise(MADV_DONTNEED): %s", strerror(errno));
			break;
		}
		s->churn_out++;
	}
	s->churn_ns += now_ns() - a;
}

/* First touch of the dropped chunks again: each one's time is an
 * allocation on the node as it is now. */
static void churn_refill(const struct cfg *c, struct state *s)
{
	uint64_t t = now_ns();

	for (uint64_t k = 0; k < s->churn_out; k++) {
		uint64_t a = now_ns();

		touch_chunk(c, s, churn_chunk(c, s, k), 1, NULL);
		hist_add(&s->clat, now_ns() - a);
		s->churned++;
	}
	s->churn_first = churn_chunk(c, s, s->churn_out);
	s->churn_out = 0;
	s->churn_ns += now_ns() - t;
}

/* One step of --churn: give back at the start of a period, allocate again
 * half a period later, so that the node's other allocations (a writer's
 * page cache) can take the freed pages in between and the re-allocation
 * meets what they left.  A late step starts the next period late rather
 * than catching up in a burst. */
static void churn_step(const struct cfg *c, struct state *s)
{
	uint64_t period = c->churn_every_ms * 1000000ull, t;

	if (!s->churn_out) {
		s->churn_period_start = s->churn_next;
		churn_drop(c, s);
		s->churn_next = s->churn_period_start + period / 2;
	} else {
		churn_refill(c, s);
		s->churn_next = s->churn_period_start + period;
	}
	t = now_ns();
	if (s->churn_next < t)
		s->churn_next = t;
}

/* The interim report of --report-every, with where the memory is now. */
static void maybe_report(const struct cfg *c, struct state *s)
{
	if (!report_due(c->every, &s->next_report, now_ns()))
		return;
	placement_query(s->base, pages_of(c->size), 0, &s->res);
	s->running = 1;
	report(c, s);
	s->running = 0;
}

static void run(const struct cfg *c, struct state *s)
{
	uint64_t ps = (uint64_t)numa.page_size, deadline = 0, t;
	uint32_t *pages = NULL;

	s->nchunks = (c->size + CHUNK - 1) / CHUNK;
	/* Reserve address space only; pages come at first touch, under the
	 * policy bound below, so the timing of a chunk's first touch is its
	 * allocation latency (including any reclaim it has to wait for). */
	s->base = mmap(NULL, c->size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		usage_error("--size %llu: cannot reserve address space: %s",
			    (unsigned long long)c->size, strerror(errno));
	}
	if (!c->thp)
		madvise(s->base, c->size, MADV_NOHUGEPAGE);
	if (c->node >= 0 && numa.available) {
		struct bitmask *m = numa_allocate_nodemask();
		long r;

		numa_bitmask_setbit(m, (unsigned)c->node);
		r = mbind(s->base, c->size, MPOL_BIND, m->maskp, m->size + 1, 0);
		numa_free_nodemask(m);
		if (r < 0)
			usage_error("--node %d: cannot bind memory: %s%s", c->node,
				    strerror(errno),
				    errno == EINVAL ? " (node without memory?)" : "");
	}
	s->order = malloc(sizeof(*s->order) * s->nchunks);
	if (c->random)
		pages = malloc(sizeof(*pages) * (CHUNK / ps));
	if (!s->order || (c->random && !pages))
		usage_error("out of memory for the chunk tables");

	/* allocate: chunk i is due at t0 + ramp * i / nchunks */
	t = now_ns();
	s->t0 = t;
	s->next_report = t + (uint64_t)(c->every * 1e9);
	for (uint64_t i = 0; i < s->nchunks && !stop_signal; i++) {
		uint64_t due = t + (uint64_t)(c->ramp * 1e9 * (double)i /
					      (double)s->nchunks), a;

		if (c->ramp > 0 && sleep_until_ns(due))
			break;
		a = now_ns();
		touch_chunk(c, s, i, 1, NULL);
		hist_add(&s->alat, now_ns() - a);
		s->allocated++;
		s->alloc_ns = now_ns() - t;
		maybe_report(c, s);
	}

	/* touch passes */
	t = now_ns();
	if (c->duration_set)
		deadline = t + (uint64_t)(c->duration * 1e9);
	for (uint64_t pass = 0; !stop_signal && s->allocated == s->nchunks;
	     pass++) {
		if (c->duration_set ? now_ns() >= deadline : pass >= c->passes)
			break;
		if (c->random)
			shuffle(s->order, s->nchunks, &s->rng);
		for (uint64_t k = 0; k < s->nchunks && !stop_signal; k++) {
			uint64_t i = c->random ? s->order[k] : k, a = now_ns();

			touch_chunk(c, s, i, 1, pages);
			hist_add(&s->tlat, now_ns() - a);
			s->touches++;
			s->touch_ns = now_ns() - t;
			maybe_report(c, s);
			if (c->duration_set && now_ns() >= deadline)
				break;
		}
		if (!stop_signal && (!c->duration_set || now_ns() < deadline))
			s->passes_done++;
	}
	s->touch_ns = now_ns() - t;

	if (c->hold > 0) {
		uint64_t end = now_ns() + (uint64_t)(c->hold * 1e9);
		int churn = c->churn > 0 && s->allocated == s->nchunks;

		s->churn_next = now_ns();
		while (!stop_signal && now_ns() < end) {
			uint64_t until = end;

			if (churn && s->churn_next < until)
				until = s->churn_next;
			if (c->every > 0 && s->next_report < until)
				until = s->next_report;
			sleep_until_ns(until);
			if (churn && !stop_signal && now_ns() >= s->churn_next &&
			    now_ns() < end) {
				churn_step(c, s);
				churn = !s->error[0];
			}
			maybe_report(c, s);
		}
		/* however the hold ended, the memory is whole again before
		 * its placement is taken */
		if (s->churn_out)
			churn_refill(c, s);
	}

	/* where the memory is, before any of it is given back */
	placement_query(s->base, pages_of(c->size), 0, &s->res);
	s->placed = 1;

	if (c->release && !stop_signal) {
		t = now_ns();
		for (uint64_t i = 0; i < s->nchunks && !stop_signal; i++) {
			uint64_t due = t + (uint64_t)(c->ramp * 1e9 * (double)i /
						      (double)s->nchunks);

			if (c->ramp > 0 && sleep_until_ns(due))
				break;
			munmap(s->base + i * CHUNK, chunk_len(c, i));
			s->released++;
		}
		s->release_ns = now_ns() - t;
	}
	free(pages);
}

static double per_s(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e9 / (double)ns : 0;
}

static int report(const struct cfg *c, const struct state *s)
{
	struct json j;
	uint64_t abytes = s->allocated * CHUNK, tbytes = s->touches * CHUNK;

	if (abytes > c->size)
		abytes = c->size;
	if (tbytes > c->size * (s->passes_done + 1))
		tbytes = c->size * (s->passes_done + 1);
	report_begin(&j, "hog", 1, s->running, s->status, s->error);
	report_env(&j, c->node, c->node >= 0 && numa.available ? "bind" : "default",
		   s->cpu_bound);
	json_u64(&j, "size_bytes", c->size);
	json_u64(&j, "chunk_bytes", CHUNK);
	json_u64(&j, "page_bytes", (uint64_t)numa.page_size);
	json_str(&j, "touch", touch_names[c->random]);
	json_bool(&j, "thp", c->thp);
	json_num(&j, "ramp_s", c->ramp);
	json_num(&j, "hold_s", c->hold);
	json_bool(&j, "release", c->release);
	json_u64(&j, "churn_bytes_requested", c->churn);
	json_u64(&j, "churn_every_ms", c->churn_every_ms);
	json_u64(&j, "passes_requested", c->duration_set ? 0 : c->passes);
	json_num(&j, "duration_s_requested", c->duration);
	json_u64(&j, "chunks_allocated", s->allocated);
	json_u64(&j, "bytes_allocated", abytes);
	json_num(&j, "alloc_s", (double)s->alloc_ns / 1e9);
	json_num(&j, "alloc_bytes_per_s", per_s(abytes, s->alloc_ns));
	json_hist_us(&j, "alloc_lat", &s->alat);
	json_u64(&j, "passes_done", s->passes_done);
	json_u64(&j, "chunk_touches", s->touches);
	json_num(&j, "touch_s", (double)s->touch_ns / 1e9);
	json_num(&j, "touch_bytes_per_s", per_s(tbytes, s->touch_ns));
	json_hist_us(&j, "touch_lat", &s->tlat);
	json_u64(&j, "churn_chunks", s->churned);
	json_num(&j, "churn_s", (double)s->churn_ns / 1e9);
	json_hist_us(&j, "churn_lat", &s->clat);
	json_u64_array(&j, "resident_pages_node", s->res.counts, numa.nnodes);
	json_u64(&j, "nonresident_pages", s->res.absent);
	json_u64(&j, "resident_error_pages", s->res.other);
	json_u64(&j, "resident_sampled_pages", s->res.sampled);
	json_u64(&j, "resident_sample_stride", s->res.stride);
	json_u64(&j, "chunks_released", s->released);
	json_num(&j, "release_s", (double)s->release_ns / 1e9);
	json_num(&j, "elapsed_s", (double)(now_ns() - s->t0) / 1e9);
	return report_write(&j, c->report);
}

int main(int argc, char **argv)
{
	struct cfg c;
	struct state *s;
	int rc = 0;

	prog = "hog";
	numa_env_init();
	parse_args(argc, argv, &c);
	s = xcalloc(1, sizeof(*s));
	s->status = "complete";
	s->t0 = now_ns();
	s->rng = mix64(s->t0 ^ (uint64_t)getpid());
	s->res.counts = xcalloc((size_t)numa.nnodes, sizeof(uint64_t));
	s->cpu_bound = pin_to_node(c.node);
	install_stop_handlers();
	run(&c, s);
	if (c.report)
		rc = report(&c, s);
	if (s->error[0]) {
		fprintf(stderr, "%s: %s\n", prog, s->error);
		rc = 1;
	}
	if (s->base) {
		/* chunks already released are unmapped; munmap of a hole is a
		 * no-op, so unmapping the whole range is safe */
		munmap(s->base, c.size);
	}
	free(s->order);
	free(s->res.counts);
	free(s);
	return exit_status(rc);
}
