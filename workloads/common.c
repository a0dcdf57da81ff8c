/* Shared helpers for the dplab workloads; see common.h. */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const char *prog = "workload";
volatile sig_atomic_t stop_signal;
struct numa_env numa;

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p)
		usage_error("out of memory");
	return p;
}

int exit_status(int rc)
{
	return stop_signal ? 128 + stop_signal : rc;
}

/* libnuma calls these on failures and by default prints its own lines; we
 * check return values ourselves and keep stderr to our one line. */
void numa_error(char *where)
{
	(void)where;
}

void numa_warn(int num, char *fmt, ...)
{
	(void)num;
	(void)fmt;
}

int opt_next(int argc, char **argv, const struct opt *opts, int *idx,
	     const char **val)
{
	const char *a, *eq;
	size_t len;

	if (*idx >= argc)
		return -1;
	a = argv[(*idx)++];
	if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
		if (!strcmp(a, "-h"))
			a = "--help";
		else
			usage_error("unexpected argument '%s' (see --help)", a);
	}
	a += 2;
	eq = strchr(a, '=');
	len = eq ? (size_t)(eq - a) : strlen(a);
	for (const struct opt *o = opts; o->name; o++) {
		if (strlen(o->name) != len || strncmp(o->name, a, len) != 0)
			continue;
		if (!o->has_arg) {
			if (eq)
				usage_error("--%s takes no value", o->name);
			*val = NULL;
		} else if (eq) {
			*val = eq + 1;
		} else if (*idx < argc) {
			*val = argv[(*idx)++];
		} else {
			usage_error("--%s needs a value", o->name);
		}
		return o->id;
	}
	usage_error("unknown option '--%.*s' (see --help)", (int)len, a);
}

uint64_t parse_size(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	errno = 0;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		goto bad;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (*end)
		goto bad;
	if (shift && v > (UINT64_MAX >> shift))
		usage_error("--%s: size '%s' too large", opt, s);
	return (uint64_t)v << shift;
bad:
	usage_error("--%s: bad size '%s' (want an integer with optional K, M, G or T suffix)",
		    opt, s);
}

uint64_t parse_count(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		goto bad;
	return v;
bad:
	usage_error("--%s: bad number '%s' (want a non-negative integer)",
		    opt, s);
}

double parse_seconds(const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		goto bad;
	v = strtod(s, &end);
	/* a day is far beyond any lab run and keeps ns arithmetic exact */
	if (errno || end == s || *end || !isfinite(v) || v > 86400)
		goto bad;
	return v;
bad:
	usage_error("--%s: bad duration '%s' (want seconds, 0..86400)", opt, s);
}

int parse_node(const char *opt, const char *s)
{
	uint64_t n = parse_count(opt, s);

	if (n >= (uint64_t)numa.nnodes ||
	    (numa.available && !numa_bitmask_isbitset(numa_nodes_ptr, n)))
		usage_error("--%s %s: no such node (nodes 0..%d%s)", opt, s,
			    numa.nnodes - 1,
			    numa.available ? "" : ", no NUMA");
	return (int)n;
}

int parse_choice(const char *opt, const char *what, const char *s,
		 const char *const *names, int n)
{
	char want[256] = "";
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		if (!strcmp(s, names[i]))
			return i;
		len += (size_t)snprintf(want + len, sizeof(want) - len, "%s%s",
					i == 0 ? "" : i == n - 1 ? " or " : ", ",
					names[i]);
		if (len >= sizeof(want))
			len = sizeof(want) - 1;
	}
	usage_error("--%s: bad %s '%s' (want %s)", opt, what, s, want);
}

double parse_report_every(const char *s)
{
	double v = parse_seconds("report-every", s);

	if (v <= 0)
		usage_error("--report-every must be more than 0 seconds");
	return v;
}

void require_size(int set, uint64_t size)
{
	if (!set)
		usage_error("--size is required");
	if (!size)
		usage_error("--size must be greater than 0");
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int sleep_until_ns(uint64_t t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / 1000000000ull),
		.tv_nsec = (long)(t_ns % 1000000000ull),
	};

	while (!stop_signal) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
					NULL);
		if (r == 0)
			return 0;
		if (r != EINTR)
			return 0;
	}
	return 1;
}

static void on_stop(int sig)
{
	stop_signal = sig;
}

void install_stop_handlers(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a sleeping workload must wake up and report */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

/* ---- histogram ---- */

static int hist_index(uint64_t v)
{
	int m, shift;

	if (v < 2 * HIST_SUB)
		return (int)v;
	m = 63 - __builtin_clzll(v);
	shift = m - 6;		/* leaves the top 7 bits: 64..127 */
	return shift * HIST_SUB + (int)(v >> shift);
}

/* Highest value that falls in bucket i. */
static uint64_t hist_high(int i)
{
	int shift;
	uint64_t top;

	if (i < 2 * HIST_SUB)
		return (uint64_t)i;
	shift = i / HIST_SUB - 1;
	top = HIST_SUB + (uint64_t)(i % HIST_SUB);
	return ((top + 1) << shift) - 1;
}

void hist_add(struct hist *h, uint64_t v)
{
	h->count[hist_index(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

uint64_t hist_pct(const struct hist *h, double pct)
{
	uint64_t rank, seen = 0;

	if (!h->n)
		return 0;
	rank = (uint64_t)ceil(pct / 100.0 * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (int i = 0; i < HIST_N; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			uint64_t v = hist_high(i);
			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}

/* ---- NUMA ---- */

void numa_env_init(void)
{
	numa.page_size = sysconf(_SC_PAGESIZE);
	numa.available = numa_available() >= 0;
	numa.nnodes = numa.available ? numa_max_node() + 1 : 1;
}

int pin_to_node(int node)
{
	struct bitmask *cpus;
	int pinned = 0;

	if (!numa.available || node < 0)
		return 0;	/* one node: nothing to pin to */
	/* a memory-only node has no CPUs to run on: bind memory only */
	cpus = numa_allocate_cpumask();
	if (numa_node_to_cpus(node, cpus) == 0 &&
	    numa_bitmask_weight(cpus) > 0) {
		if (numa_run_on_node(node) < 0)
			usage_error("--node %d: cannot run on its CPUs: %s",
				    node, strerror(errno));
		pinned = 1;
	}
	numa_free_cpumask(cpus);
	return pinned;
}

uint64_t pages_of(uint64_t bytes)
{
	uint64_t ps = (uint64_t)numa.page_size;

	return (bytes + ps - 1) / ps;
}

#define QUERY_MAX (1u << 20)	/* pages queried at most; beyond: sample */
#define QUERY_CHUNK 1024u

/* mincore() for page i of a group at base: one call for the whole span when
 * it works, page by page when the span has holes. */
static int resident(char *base, uint64_t i, const unsigned char *vec,
		    int bulk_ok)
{
	unsigned char v;
	char *a = base + i * (uint64_t)numa.page_size;

	if (bulk_ok)
		return vec[i] & 1;
	if (mincore(a, (size_t)numa.page_size, &v) < 0)
		return -1;
	return v & 1;
}

/* The samples of one group: pages 0, stride, 2 * stride, ... of the span
 * pages at base.  vec (group_span() bytes at most) is mincore()'s. */
static void query_group(char *base, uint64_t span, int is_file,
			unsigned char *vec, struct placement *p)
{
	void *pages[QUERY_CHUNK];
	int status[QUERY_CHUNK];
	uint64_t i, ps = (uint64_t)numa.page_size;
	unsigned k = 0;
	int bulk_ok;

	/* one mincore() per group: a syscall per page is slow under TCG for
	 * a file of a few GiB */
	bulk_ok = vec && mincore(base, (size_t)(span * ps), vec) == 0;
	/* the group is QUERY_CHUNK samples, resident or not: vec covers
	 * exactly that span */
	for (i = 0; i < span; i += p->stride) {
		char *a = base + i * ps;
		int r = resident(base, i, vec, bulk_ok);

		p->sampled++;
		if (r < 0) {
			p->other++;
			continue;
		}
		if (!r) {
			p->absent++;
			continue;
		}
		/* map a cached page into our page tables without reading
		 * anything from disk: move_pages() only sees mapped pages */
		if (is_file)
			(void)*(volatile char *)a;
		pages[k++] = a;
	}
	if (!k)
		return;
	if (!numa.available ||
	    numa_move_pages(0, k, pages, NULL, status, 0) < 0) {
		/* no NUMA: everything resident is on node 0 */
		p->counts[0] += k;
		return;
	}
	for (unsigned j = 0; j < k; j++) {
		if (status[j] >= 0 && status[j] < numa.nnodes)
			p->counts[status[j]]++;
		else if (status[j] == -ENOENT)
			p->absent++;
		else
			p->other++;
	}
}

static unsigned char *placement_start(uint64_t npages, struct placement *p)
{
	memset(p->counts, 0, sizeof(*p->counts) * (size_t)numa.nnodes);
	p->absent = p->other = p->sampled = 0;
	p->stride = npages > QUERY_MAX ? (npages + QUERY_MAX - 1) / QUERY_MAX
				       : 1;
	return malloc(QUERY_CHUNK * p->stride);
}

/* Pages in the group that starts at page first: QUERY_CHUNK samples */
static uint64_t group_span(const struct placement *p, uint64_t npages,
			   uint64_t first)
{
	uint64_t span = QUERY_CHUNK * p->stride;

	return span < npages - first ? span : npages - first;
}

void placement_query(void *base, uint64_t npages, int is_file,
		     struct placement *p)
{
	unsigned char *vec = placement_start(npages, p);
	uint64_t first, span, ps = (uint64_t)numa.page_size;

	for (first = 0; first < npages; first += span) {
		span = group_span(p, npages, first);
		query_group((char *)base + first * ps, span, is_file, vec, p);
	}
	free(vec);
}

int placement_query_fd(int fd, uint64_t bytes, struct placement *p)
{
	uint64_t npages = pages_of(bytes), first, span;
	uint64_t ps = (uint64_t)numa.page_size;
	unsigned char *vec = placement_start(npages, p);
	int ret = 0;

	for (first = 0; first < npages; first += span) {
		void *map;

		span = group_span(p, npages, first);
		map = mmap(NULL, (size_t)(span * ps), PROT_READ, MAP_SHARED, fd,
			   (off_t)(first * ps));
		if (map == MAP_FAILED) {
			ret = -errno;
			break;
		}
		query_group(map, span, 1, vec, p);
		munmap(map, (size_t)(span * ps));
	}
	free(vec);
	return ret;
}

/* ---- JSON ---- */

void json_begin(struct json *j)
{
	j->buf = NULL;
	j->len = 0;
	j->f = open_memstream(&j->buf, &j->len);
	if (!j->f) {
		fprintf(stderr, "%s: out of memory for the report\n", prog);
		exit(1);
	}
	fputc('{', j->f);
	j->first = 1;
}

static void json_key(struct json *j, const char *key)
{
	fprintf(j->f, "%s\n  \"%s\": ", j->first ? "" : ",", key);
	j->first = 0;
}

void json_str(struct json *j, const char *key, const char *val)
{
	json_key(j, key);
	fputc('"', j->f);
	for (const unsigned char *s = (const unsigned char *)val; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(j->f, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(j->f, "\\u%04x", *s);
		else
			fputc(*s, j->f);
	}
	fputc('"', j->f);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_num(struct json *j, const char *key, double v)
{
	json_key(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.3f", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, int v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_u64_array(struct json *j, const char *key, const uint64_t *v,
		    int n)
{
	json_key(j, key);
	fputc('[', j->f);
	for (int i = 0; i < n; i++)
		fprintf(j->f, "%s%llu", i ? ", " : "", (unsigned long long)v[i]);
	fputc(']', j->f);
}

void json_hist_us(struct json *j, const char *prefix, const struct hist *h)
{
	static const struct { const char *suffix; double pct; } p[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 },
	};
	char key[96];

	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		snprintf(key, sizeof(key), "%s_%s_us", prefix, p[i].suffix);
		json_num(j, key, (double)hist_pct(h, p[i].pct) / 1e3);
	}
	snprintf(key, sizeof(key), "%s_max_us", prefix);
	json_num(j, key, (double)h->max / 1e3);
	snprintf(key, sizeof(key), "%s_mean_us", prefix);
	json_num(j, key, h->n ? (double)h->sum / (double)h->n / 1e3 : 0.0);
}

static char *tmp_name(const char *path)
{
	size_t n = strlen(path) + 32;
	char *t = malloc(n);

	if (t)
		snprintf(t, n, "%s.tmp.%ld", path, (long)getpid());
	return t;
}

int json_write(struct json *j, const char *path)
{
	char *tmp;
	int fd, err = 0;
	size_t off = 0;

	fputs("\n}\n", j->f);
	fclose(j->f);
	j->f = NULL;
	tmp = tmp_name(path);
	if (!tmp) {
		free(j->buf);
		return -ENOMEM;
	}
	/* rename() makes the report appear whole or not at all, so a reader
	 * polling for it (or a run cut short) never sees half a file */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	while (off < j->len) {
		ssize_t w = write(fd, j->buf + off, j->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			err = -errno;
			break;
		}
		off += (size_t)w;
	}
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	free(j->buf);
	j->buf = NULL;
	return err;
}

void report_begin(struct json *j, const char *program, uint64_t version,
		  int running, const char *status, const char *error)
{
	json_begin(j);
	json_str(j, "program", program);
	json_u64(j, "version", version);
	json_str(j, "status", running ? "running" :
		 stop_signal ? "interrupted" : status);
	json_str(j, "error", error);
}

void report_env(struct json *j, int node, const char *policy, int cpu_bound)
{
	json_i64(j, "signal", stop_signal);
	json_bool(j, "numa_available", numa.available);
	json_i64(j, "nodes", numa.nnodes);
	json_i64(j, "node", node);
	json_str(j, "policy", policy);
	json_bool(j, "cpu_bound", cpu_bound);
}

int report_write(struct json *j, const char *path)
{
	int e = json_write(j, path);

	if (e) {
		fprintf(stderr, "%s: --report %s: cannot write: %s\n", prog,
			path, strerror(-e));
		return 1;
	}
	return 0;
}

int report_due(double every, uint64_t *next, uint64_t now)
{
	if (every <= 0 || now < *next)
		return 0;
	*next = now + (uint64_t)(every * 1e9);
	return 1;
}

void report_path_check(const char *opt, const char *path)
{
	char *tmp = tmp_name(path);
	int fd;

	if (!tmp)
		usage_error("out of memory");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		int e = errno;

		free(tmp);
		usage_error("--%s %s: cannot create: %s", opt, path,
			    strerror(e));
	}
	close(fd);
	unlink(tmp);
	free(tmp);
}

/* ---- block content ---- */

uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

uint64_t rand64(uint64_t *state)
{
	*state += 0x9e3779b97f4a7c15ull;
	return mix64(*state);
}
