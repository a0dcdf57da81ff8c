/* Shared helpers for the dplab workloads (dirtier, hog): option parsing with
 * one-line errors, size/duration parsing, a constant-memory latency
 * histogram, NUMA binding and placement queries, atomic JSON reports and
 * SIGTERM/SIGINT handling.  See README.md in this directory. */
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
/* Pins the CPUs of this task to node; returns 0 or -errno. */
int bind_cpus(int node);

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
/* Fails early (usage error) when path cannot be created. */
void report_path_check(const char *opt, const char *path);

/* ---- block content shared by writer and verifier ---- */
uint64_t mix64(uint64_t x);	/* splitmix64 finaliser */
uint64_t rand64(uint64_t *state);

#endif
