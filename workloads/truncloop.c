/* truncloop: the write() path below every dirty limit.  Rounds of buffered
 * write()s of --size bytes into --file, each round followed by
 * ftruncate(0).  Truncation drops the round's dirty page cache without any
 * IO, so every page of the next round is newly allocated (__GFP_WRITE, so
 * node_dirty_ok() is asked) and newly dirtied (nr_dirtied, so
 * balance_dirty_pages() is entered every ratelimit), while the dirty pages
 * never exceed one round.  With dirty limits far above one round nothing
 * throttles and nothing is written back: the time a round takes is the cost
 * of the write path itself, balance_dirty_pages_ratelimited() and
 * balance_dirty_pages() included.  Every round is timed (CLOCK_MONOTONIC),
 * its write()s and its ftruncate() apart, and so is every write().
 *
 * Report (JSON, one flat object; keys carry their unit):
 *   program, version, status (complete|interrupted|write_error), error,
 *   error_errno, signal, numa_available, nodes, node (-1: none), policy
 *   (bind|default), cpu_bound, file, size_bytes (one round), bs_bytes,
 *   page_bytes, warmup_rounds, rounds_requested, duration_s_requested,
 *   rounds (timed), writes, bytes_written, pages_written (timed rounds
 *   only), elapsed_s, write_s, truncate_s, pages_per_s, ns_per_page,
 *   write_ns_per_page, truncate_ns_per_page,
 *   round_ns_per_page_{min,p50,max}, round_ns_per_page_median (exact, where
 *   p50 is a histogram bucket's), round_ns_per_page_mean90 and _rounds (the
 *   mean of the fastest floor(0.9 x rounds) rounds, at least one: the loop's
 *   own cost without the rounds a flusher or a timer happened to land in;
 *   under ACCEL=icount a guest ns is instructions x 8), bw_bytes_per_s,
 *   write_lat_{p50,p90,p99,max,mean}_us, writes_ge_10ms.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BS (64ull << 20)

enum {
	OPT_HELP, OPT_FILE, OPT_SIZE, OPT_BS, OPT_ROUNDS, OPT_DURATION,
	OPT_WARMUP, OPT_NODE, OPT_REPORT,
};

static const struct opt opts[] = {
	{ "help", 0, OPT_HELP },
	{ "file", 1, OPT_FILE },
	{ "size", 1, OPT_SIZE },
	{ "bs", 1, OPT_BS },
	{ "rounds", 1, OPT_ROUNDS },
	{ "duration", 1, OPT_DURATION },
	{ "warmup", 1, OPT_WARMUP },
	{ "node", 1, OPT_NODE },
	{ "report", 1, OPT_REPORT },
	{ NULL, 0, 0 },
};

static void help(void)
{
	printf(
"Usage: truncloop --file PATH --size SIZE [--rounds N | --duration S] [options]\n"
"Rounds of buffered write()s of SIZE bytes to PATH (created or truncated),\n"
"each followed by ftruncate(PATH, 0): the page cache is dirtied anew every\n"
"round and dropped without IO, so the dirty pages never exceed SIZE.\n"
"Measures the write() path's cost per page.  SIZE accepts K, M, G, T\n"
"suffixes (powers of 1024).\n"
"\n"
"  --file PATH      file to write (required)\n"
"  --size SIZE      bytes per round, a multiple of --bs (required)\n"
"  --bs SIZE        bytes per write(), default 64K (1..64M)\n"
"  --rounds N       timed rounds (default 10)\n"
"  --duration S     instead of --rounds: timed rounds until S seconds have\n"
"                   passed (at least one)\n"
"  --warmup N       untimed rounds before them (default 1)\n"
"  --node N         run on node N's CPUs and bind the memory to N (MPOL_BIND),\n"
"                   page cache included; without it: no pinning, default policy\n"
"  --report FILE    JSON report, written atomically, also on SIGTERM/SIGINT\n"
"  --help           this text\n"
"\n"
"Exit: 0 done, 1 write or truncate error, 2 bad arguments or cannot start,\n"
"128+N after signal N (report still written).\n");
}

struct cfg {
	const char *file, *report;
	uint64_t size, bs, rounds, warmup;
	double duration;
	int node, rounds_set, duration_set;
};

static void parse_args(int argc, char **argv, struct cfg *c)
{
	const char *v;
	int id, i = 1, size_set = 0;

	memset(c, 0, sizeof(*c));
	c->bs = 64 << 10;
	c->rounds = 10;
	c->warmup = 1;
	c->node = -1;
	while ((id = opt_next(argc, argv, opts, &i, &v)) >= 0) {
		switch (id) {
		case OPT_HELP:
			help();
			exit(0);
		case OPT_FILE:
			if (!*v)
				usage_error("--file: empty path");
			c->file = v;
			break;
		case OPT_SIZE:
			c->size = parse_size("size", v);
			size_set = 1;
			break;
		case OPT_BS:
			c->bs = parse_size("bs", v);
			if (c->bs < 1 || c->bs > MAX_BS)
				usage_error("--bs %llu: want 1 to %llu",
					    (unsigned long long)c->bs,
					    (unsigned long long)MAX_BS);
			break;
		case OPT_ROUNDS:
			c->rounds = parse_count("rounds", v);
			if (!c->rounds)
				usage_error("--rounds must be at least 1");
			c->rounds_set = 1;
			break;
		case OPT_DURATION:
			c->duration = parse_seconds("duration", v);
			if (c->duration <= 0)
				usage_error("--duration must be more than 0 seconds");
			c->duration_set = 1;
			break;
		case OPT_WARMUP:
			c->warmup = parse_count("warmup", v);
			break;
		case OPT_NODE:
			c->node = parse_node("node", v);
			break;
		case OPT_REPORT:
			c->report = v;
			break;
		}
	}
	if (!c->file)
		usage_error("--file is required");
	require_size(size_set, c->size);
	if (c->size % c->bs)
		usage_error("--size %llu is not a multiple of --bs %llu",
			    (unsigned long long)c->size,
			    (unsigned long long)c->bs);
	if (c->rounds_set && c->duration_set)
		usage_error("--rounds and --duration exclude each other");
	if (c->report)
		report_path_check("report", c->report);
}

/* CPU and memory on the node; returns whether the CPUs were pinned. */
static int bind_node(int node)
{
	struct bitmask *nodes;
	int cpu_bound, r = 0;

	if (!numa.available || node < 0)
		return 0;
	cpu_bound = pin_to_node(node);
	nodes = numa_allocate_nodemask();
	numa_bitmask_setbit(nodes, (unsigned)node);
	if (set_mempolicy(MPOL_BIND, nodes->maskp, nodes->size + 1) < 0)
		r = errno;
	numa_free_nodemask(nodes);
	if (r)
		usage_error("--node %d: cannot bind memory: %s%s", node,
			    strerror(r),
			    r == EINVAL ? " (node without memory?)" : "");
	return cpu_bound;
}

struct result {
	const char *status;
	char error[256];
	int err_errno, cpu_bound;
	uint64_t rounds, writes, bytes, pages, ge10ms;
	uint64_t t_start, t_end, write_ns, trunc_ns;
	struct hist wlat;	/* per write(), ns */
	struct hist round;	/* per timed round, ns per page x 1000 */
	uint64_t round_min;	/* the same, exact */
	uint64_t *round_ps;	/* every timed round's ps per page, for the */
	size_t nround_ps, round_ps_cap;	/* exact median and mean90 */
};

static void set_error(struct result *r, const char *what, int err)
{
	if (!strcmp(r->status, "complete")) {
		r->status = "write_error";
		r->err_errno = err;
		snprintf(r->error, sizeof(r->error), "%s: %s", what,
			 strerror(err));
	}
}

/* One round: write --size, then truncate to 0.  Returns 0, or -1 after an
 * error or a stop signal (the round is then not counted). */
static int round_once(const struct cfg *c, int fd, const char *buf,
		      struct result *r, int timed)
{
	uint64_t t0, t1, t2, w = 0, writes = 0, ge10 = 0;
	uint64_t page = (uint64_t)numa.page_size;

	t0 = now_ns();
	for (uint64_t off = 0; off < c->size; off += c->bs) {
		uint64_t tw = now_ns(), lat;
		const char *p = buf;
		size_t n = (size_t)c->bs;

		if (stop_signal)
			return -1;
		while (n) {
			ssize_t k = write(fd, p, n);

			if (k < 0 && errno == EINTR) {
				if (stop_signal)
					return -1;
				continue;
			}
			if (k <= 0) {
				set_error(r, "write", k < 0 ? errno : EIO);
				return -1;
			}
			p += k;
			n -= (size_t)k;
		}
		lat = now_ns() - tw;
		if (timed)
			hist_add(&r->wlat, lat);
		ge10 += lat >= 10000000ull;
		w += c->bs;
		writes++;
	}
	t1 = now_ns();
	/* the file position goes back too: the next round writes 0..size */
	if (ftruncate(fd, 0) < 0 || lseek(fd, 0, SEEK_SET) < 0) {
		set_error(r, "ftruncate", errno);
		return -1;
	}
	t2 = now_ns();
	if (timed) {
		uint64_t pages = (w + page - 1) / page;

		r->rounds++;
		r->writes += writes;
		r->bytes += w;
		r->pages += pages;
		r->ge10ms += ge10;
		r->write_ns += t1 - t0;
		r->trunc_ns += t2 - t1;
		t0 = (t2 - t0) * 1000 / (pages ? pages : 1);
		hist_add(&r->round, t0);
		if (r->nround_ps == r->round_ps_cap) {
			size_t cap = r->round_ps_cap ? 2 * r->round_ps_cap : 256;
			uint64_t *p = realloc(r->round_ps, cap * sizeof(*p));

			if (!p) {
				set_error(r, "round times", ENOMEM);
				return -1;
			}
			r->round_ps = p;
			r->round_ps_cap = cap;
		}
		r->round_ps[r->nround_ps++] = t0;
		if (!r->round_min || t0 < r->round_min)
			r->round_min = t0;
	}
	return 0;
}

static void run(const struct cfg *c, struct result *r)
{
	char *buf;
	int fd;

	/* allocated after binding, so the buffer obeys the policy too */
	if (posix_memalign((void **)&buf, 4096, (size_t)c->bs))
		usage_error("out of memory for a %llu byte block",
			    (unsigned long long)c->bs);
	memset(buf, 0x5a, (size_t)c->bs);
	fd = open(c->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		usage_error("--file %s: cannot create: %s", c->file,
			    strerror(errno));
	for (uint64_t k = 0; k < c->warmup && !stop_signal; k++)
		if (round_once(c, fd, buf, r, 0))
			goto out;
	r->t_start = now_ns();
	for (uint64_t k = 0; !stop_signal; k++) {
		if (c->duration_set) {
			if (k && now_ns() - r->t_start >= (uint64_t)(c->duration * 1e9))
				break;
		} else if (k >= c->rounds) {
			break;
		}
		if (round_once(c, fd, buf, r, 1))
			break;
	}
out:
	r->t_end = now_ns();
	if (!r->t_start)
		r->t_start = r->t_end;
	close(fd);
	free(buf);
}

static double per(double x, double n)
{
	return n > 0 ? x / n : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The exact median of the rounds (ns per page) and the mean of the fastest
 * floor(0.9 n) of them, at least one; *kept says how many.  Sorts r's
 * rounds in place. */
static void round_stats(struct result *r, double *median, double *mean90,
			uint64_t *kept)
{
	size_t n = r->nround_ps, k = n * 9 / 10;
	double sum = 0;

	*median = *mean90 = 0;
	*kept = 0;
	if (!n)
		return;
	qsort(r->round_ps, n, sizeof(*r->round_ps), cmp_u64);
	*median = n % 2 ? (double)r->round_ps[n / 2]
			: ((double)r->round_ps[n / 2 - 1] + (double)r->round_ps[n / 2]) / 2;
	*median /= 1000;
	if (!k)
		k = 1;
	for (size_t i = 0; i < k; i++)
		sum += (double)r->round_ps[i];
	*mean90 = sum / (double)k / 1000;
	*kept = k;
}

static int report(const struct cfg *c, struct result *r)
{
	struct json j;
	double el = (double)(r->t_end - r->t_start), pages = (double)r->pages;
	double median, mean90;
	uint64_t kept;

	report_begin(&j, "truncloop", 1, 0, r->status, r->error);
	json_i64(&j, "error_errno", r->err_errno);
	report_env(&j, c->node, c->node >= 0 && numa.available ? "bind" : "default",
		   r->cpu_bound);
	json_str(&j, "file", c->file);
	json_u64(&j, "size_bytes", c->size);
	json_u64(&j, "bs_bytes", c->bs);
	json_u64(&j, "page_bytes", (uint64_t)numa.page_size);
	json_u64(&j, "warmup_rounds", c->warmup);
	json_u64(&j, "rounds_requested", c->duration_set ? 0 : c->rounds);
	json_num(&j, "duration_s_requested", c->duration);
	json_u64(&j, "rounds", r->rounds);
	json_u64(&j, "writes", r->writes);
	json_u64(&j, "bytes_written", r->bytes);
	json_u64(&j, "pages_written", r->pages);
	json_num(&j, "elapsed_s", el / 1e9);
	json_num(&j, "write_s", (double)r->write_ns / 1e9);
	json_num(&j, "truncate_s", (double)r->trunc_ns / 1e9);
	json_num(&j, "pages_per_s", per(pages * 1e9, (double)(r->write_ns + r->trunc_ns)));
	json_num(&j, "ns_per_page", per((double)(r->write_ns + r->trunc_ns), pages));
	json_num(&j, "write_ns_per_page", per((double)r->write_ns, pages));
	json_num(&j, "truncate_ns_per_page", per((double)r->trunc_ns, pages));
	json_num(&j, "round_ns_per_page_min", (double)r->round_min / 1000);
	json_num(&j, "round_ns_per_page_p50", (double)hist_pct(&r->round, 50) / 1000);
	json_num(&j, "round_ns_per_page_max", (double)r->round.max / 1000);
	round_stats(r, &median, &mean90, &kept);
	json_num(&j, "round_ns_per_page_median", median);
	json_num(&j, "round_ns_per_page_mean90", mean90);
	json_u64(&j, "round_ns_per_page_mean90_rounds", kept);
	json_num(&j, "bw_bytes_per_s", per((double)r->bytes * 1e9, (double)(r->write_ns + r->trunc_ns)));
	json_hist_us(&j, "write_lat", &r->wlat);
	json_u64(&j, "writes_ge_10ms", r->ge10ms);
	return report_write(&j, c->report);
}

int main(int argc, char **argv)
{
	struct cfg c;
	struct result *r;
	int rc;

	prog = "truncloop";
	numa_env_init();
	parse_args(argc, argv, &c);
	r = xcalloc(1, sizeof(*r));
	r->status = "complete";
	r->cpu_bound = bind_node(c.node);
	install_stop_handlers();
	run(&c, r);
	rc = strcmp(r->status, "complete") ? 1 : 0;
	if (rc)
		fprintf(stderr, "truncloop: %s\n", r->error);
	if (c.report && report(&c, r))
		rc = 1;
	free(r->round_ps);
	free(r);
	return exit_status(rc);
}
