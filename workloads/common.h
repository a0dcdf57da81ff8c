/* Shared helpers for the dplab workloads (dirtier, hog, dpfuzz): option
 * parsing with one-line errors, size/duration/choice parsing, a
 * constant-memory latency histogram, NUMA binding and placement queries,
 * atomic JSON reports with a common head, SIGTERM/SIGINT handling and the
 * exit status after them.  See README.md in this directory. */
#ifndef DPLAB_COMMON_H
#define DPLAB_COMMON_H

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Name used as the prefix of every error line ("dirtier: ..."). */
extern const char *prog;

/* Bad input: one line "<prog>: <msg>" on stderr, exit 2. */
_Noreturn void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* calloc() that cannot fail: "out of memory" is a usage error (exit 2). */
void *xcalloc(size_t n, size_t size);

/* Exit status of a workload: 128 + N after stop signal N, else rc. */
int exit_status(int rc);

/* ---- options: only "--name value", "--name=value" and flags ---- */
struct opt {
	const char *name;	/* without the leading "--" */
	int has_arg;
	int id;
};

/* Iterates over argv; returns the id of the next option (value in *val, NULL
 * for flags) or -1 at the end.  Unknown options, stray arguments and missing
 * or superfluous values are usage errors. */
int opt_next(int argc, char **argv, const struct opt *opts, int *idx,
	     const char **val);

/* Parsers for option values; on bad input they call usage_error() naming
 * the option. */
uint64_t parse_size(const char *opt, const char *s);   /* 4096, 64K, 1G */
uint64_t parse_count(const char *opt, const char *s);  /* plain integer */
double parse_seconds(const char *opt, const char *s);  /* 2, 0.5 */
int parse_node(const char *opt, const char *s);       /* checks range */
/* One of n words: returns the index of s in names, else a usage error
 * "--opt: bad <what> 's' (want names[0], ... or names[n-1])". */
int parse_choice(const char *opt, const char *what, const char *s,
		 const char *const *names, int n);
/* --report-every S: seconds, more than 0. */
double parse_report_every(const char *s);
/* --size: given (set) and not 0. */
void require_size(int set, uint64_t size);

/* ---- time ---- */
uint64_t now_ns(void);		/* CLOCK_MONOTONIC */
/* Sleeps until the CLOCK_MONOTONIC time t_ns; returns early (non-zero)
 * when a stop signal arrives. */
int sleep_until_ns(uint64_t t_ns);

/* ---- stop signals ---- */
extern volatile sig_atomic_t stop_signal;	/* 0 or the signal number */
void install_stop_handlers(void);

/* ---- latency histogram: log-linear buckets, 64 per power of two, so a
 * percentile is within 1.6% of the true value whatever the run length;
 * memory stays constant (a dirtier may run for hours inside a guest that
 * is short of memory on purpose). ---- */
#define HIST_SUB 64
#define HIST_N (59 * HIST_SUB)
struct hist {
	uint64_t count[HIST_N];
	uint64_t n, max, sum;
};
void hist_add(struct hist *h, uint64_t v);
uint64_t hist_pct(const struct hist *h, double pct);	/* 0 if empty */

/* ---- NUMA ---- */
struct numa_env {
	int available;		/* numa_available() >= 0 */
	int nnodes;		/* highest node id + 1 (1 without NUMA) */
	long page_size;
};
extern struct numa_env numa;
void numa_env_init(void);
/* Runs this task on node's CPUs; returns whether it was pinned: not
 * without NUMA, without a node (node < 0), or for a memory-only node (no
 * CPUs to run on: its memory is bound only).  Failing: usage error. */
int pin_to_node(int node);
/* Pages that bytes span (rounded up). */
uint64_t pages_of(uint64_t bytes);

/* Where pages of [base, base + npages pages) are: counts[node] (nnodes
 * entries) for resident pages, *absent for pages not resident (-ENOENT),
 * *other for other errors.  With file mappings, only pages mincore() calls
 * resident are touched (so they get mapped and move_pages can see them);
 * others are counted absent without being read in.  Large ranges are
 * sampled with *stride (1 = every page). */
struct placement {
	uint64_t *counts;	/* nnodes */
	uint64_t absent, other, sampled, stride;
};
void placement_query(void *base, uint64_t npages, int is_file,
		     struct placement *p);
/* The same for the first bytes of the file open at fd, mapped one group of
 * samples at a time (at most QUERY_CHUNK * stride pages, 4 MiB unsampled):
 * a whole file mapped and touched at once keeps its cached pages referenced,
 * so reclaim on their node skips them (FOLIOREF_KEEP) and scans on into the
 * dirty ones.  0, or -errno of the mmap() that failed (counts so far kept). */
int placement_query_fd(int fd, uint64_t bytes, struct placement *p);

/* ---- JSON report, flat; written to <path>.tmp.<pid> then renamed ---- */
struct json {
	char *buf;
	size_t len;
	FILE *f;
	int first;
};
void json_begin(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_num(struct json *j, const char *key, double v);  /* 3 decimals */
void json_bool(struct json *j, const char *key, int v);
void json_u64_array(struct json *j, const char *key, const uint64_t *v,
		    int n);
/* Latency percentiles of h as <prefix>_p50_us, _p90_us, _p99_us, _max_us,
 * _mean_us. */
void json_hist_us(struct json *j, const char *prefix, const struct hist *h);
/* Finishes the object and writes it atomically; returns 0 or -errno. */
int json_write(struct json *j, const char *path);

/* The head of a workload report: json_begin(), then program, version,
 * status ("running" for an interim report, "interrupted" after a stop
 * signal, else status) and error. */
void report_begin(struct json *j, const char *program, uint64_t version,
		  int running, const char *status, const char *error);
/* Where it ran: signal, numa_available, nodes, node, policy, cpu_bound. */
void report_env(struct json *j, int node, const char *policy, int cpu_bound);
/* json_write(); on failure one line "<prog>: --report PATH: cannot write:
 * ..." on stderr and returns 1, else 0. */
int report_write(struct json *j, const char *path);
/* Whether an interim report of --report-every is due at now; if so, the
 * next one is due every seconds later. */
int report_due(double every, uint64_t *next, uint64_t now);
/* Fails early (usage error) when path cannot be created. */
void report_path_check(const char *opt, const char *path);

/* ---- block content shared by writer and verifier ---- */
uint64_t mix64(uint64_t x);	/* splitmix64 finaliser */
uint64_t rand64(uint64_t *state);

#endif
