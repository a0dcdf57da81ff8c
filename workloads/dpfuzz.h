/* dpfuzz: what its parts share.  The contract, the model and the report are
 * described at the top of dpfuzz.c; the parts:
 *
 *   dpfuzz.c             the driver: main(), one file's quota of classes,
 *                        the valid writes between them
 *   dpfuzz-options.c     --help, the options, the file paths
 *   dpfuzz-buffer.c      the write buffer, random numbers, findings
 *   dpfuzz-contract.c    the oracle: is a write valid, is an errno right
 *   dpfuzz-state.c       reading the five files, the model, checking them
 *   dpfuzz-write.c       writing and judging one write, resync, verify
 *   dpfuzz-values.c      valid values, a valid write, class read_only
 *   dpfuzz-numbers.c     classes out_of_range, negative, plus_sign, huge
 *   dpfuzz-syntax.c      classes non_numeric, trailing_garbage, nul_byte,
 *                        empty
 *   dpfuzz-size.c        classes oversize, bad_buffer
 *   dpfuzz-generate.c    one invalid write of a given class (the dispatch)
 *   dpfuzz-partial.c     class partial
 *   dpfuzz-concurrent.c  class concurrent, and the race of valid writes
 *   dpfuzz-report.c      the JSON report and the exit verdict
 *
 * Conventions: f is a file (FILE_*), c a class (CLASS_*), x the calling
 * thread's fuzzer, m the model of the state. */
#ifndef DPLAB_DPFUZZ_H
#define DPLAB_DPFUZZ_H

#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define VERSION "1"
#define PMAX 1024			/* DIRTY_PRESSURE_MAX */
/*
 * How far the kernel's recovery clock (jiffies) may run ahead of the
 * CLOCK_MONOTONIC interval dpfuzz measures around a write and a read.  A
 * write is stamped with the jiffies of that moment, and in a guest whose
 * timekeeping vCPU is late with its tick they lag the clocksource:
 * under TCG on a busy host 12 reads in one run were 1 to 70 steps above a
 * band that allowed 20 ms, and a CI rehearsal's read (2026-12-06) was 1
 * step above one that allowed 250 ms: its jiffies ran 256 ms ahead.  Half
 * a second is 125 ticks at the lab's HZ=250.
 */
#define SLACK_S 0.5
#define MAXNODES 1024
#define WCAP (1u << 16)			/* largest write buffer */
#define MAXTHREADS 64
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the five files ---- */
enum {
	FILE_PRESSURE, FILE_NODE, FILE_MODE, FILE_RECOVERY, FILE_NODES,
	NFILES
};
extern const char *const file_name[NFILES];	/* dirty_pressure... */
extern const char *const file_key[NFILES];	/* in report keys */
extern const char *const mode_names[3];		/* off, global, node */
int file_writable(int f);
int file_numeric(int f);

/* ---- the classes of writes ---- */
enum {
	CLASS_VALID,
	CLASS_OUT_OF_RANGE, CLASS_NEGATIVE, CLASS_PLUS_SIGN, CLASS_HUGE,
	CLASS_NON_NUMERIC, CLASS_TRAILING, CLASS_NUL, CLASS_EMPTY,
	CLASS_OVERSIZE, CLASS_BAD_BUFFER, CLASS_PARTIAL, CLASS_CONCURRENT,
	CLASS_READ_ONLY, NCLASSES
};
extern const char *const class_name[NCLASSES];
extern const char *const class_help[NCLASSES];

/* ---- counts of one class of writes to one file ---- */
struct counts {
	uint64_t tried, rejected, accepted_bad, wrong_errno, state_changed,
		 valid_ok;
};

/* per thread: its random state, write buffer and counts */
struct fuzzer {
	uint64_t rng;
	char *buf;		/* WCAP + 64 bytes */
	size_t len;
	const void *ptr;	/* what write() gets: buf or a bad address */
	int is_pwrite;		/* the write being judged is a pwrite() */
	struct counts counts[NFILES][NCLASSES];
	uint64_t resyncs;
};

/* ---- configuration and shared state ---- */
struct config {
	const char *dir, *report;
	uint64_t count, valid_every, seed, max_findings;
	int threads, seed_set;
	unsigned classes;	/* bit per class */
};
extern struct config cfg;
extern char file_path[NFILES][4096];
extern char *guard_page;	/* a readable page followed by a PROT_NONE one */
extern long page_size;
extern pthread_mutex_t finding_lock;
extern uint64_t findings, io_errors, reader_checks;
extern char first_finding[512];
extern atomic_ulong pressure_writes_taken;

/* ---- dpfuzz-options.c ---- */
void parse_args(int argc, char **argv);
int class_applies(int f, int c);	/* selected, and meant for f */

/* ---- dpfuzz-buffer.c: random numbers, the write buffer, findings ---- */
uint64_t rand_below(struct fuzzer *x, uint64_t n);	/* 0..n-1; 0 if n 0 */
void buf_clear(struct fuzzer *x);
void buf_append(struct fuzzer *x, const void *s, size_t n);
void buf_puts(struct fuzzer *x, const char *s);
void buf_printf(struct fuzzer *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_maybe_newline(struct fuzzer *x);	/* "\n" one time in two */
void render_write(const char *b, size_t len, const void *ptr, char *out,
		  size_t size);
void finding(int f, int c, const struct fuzzer *x, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void io_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fuzzer_init(struct fuzzer *x, uint64_t seed);
void counts_add(struct counts *a, const struct counts *b);
void fuzzer_merge(struct fuzzer *to, const struct fuzzer *from);

/* ---- dpfuzz-contract.c ---- */
int contract_valid(int f, const char *b, size_t len, long *val);
int errno_rejects(int f, int bad_buffer, int is_pwrite, int e);

/* ---- dpfuzz-state.c: what the files say, and what they may say ---- */
struct state {
	long pressure, node, recovery;
	int mode;
	int nn;
	int nid[MAXNODES];
	long val[MAXNODES];
};

struct model {
	long p;			/* pressure last written: every node set to it */
	uint64_t t_p;		/* CLOCK_MONOTONIC just before that write */
	long rate_max;		/* highest recovery rate in force since */
	long recovery;
	int mode;
	long node;		/* dirty_pressure_node: only reclaim moves it */
	int nn;
	int nid[MAXNODES];
	long last[MAXNODES];	/* value last seen: recovery only rises */
};

int read_state(struct state *s, char *why, size_t wsize);
long band_high(const struct model *m, uint64_t now);
int model_mismatch(struct model *m, const struct state *s, uint64_t now,
		   char *why, size_t wsize);
int racer_pick(struct model *m, int f, const long *vals, int n, uint64_t t0,
	       uint64_t now, const struct state *s, char *why, size_t wsize);
void model_set_pressure(struct model *m, long p, uint64_t t);
void model_set_recovery(struct model *m, long rate);

/* ---- dpfuzz-write.c ---- */
ssize_t write_counted(int f, int fd, const void *p, size_t n, long off);
int write_plain(int f, const char *s);
int write_plain_long(int f, long v);
void resync(struct fuzzer *x, struct model *m);
void verify(struct fuzzer *x, struct model *m, int f, int c,
	    const char *when);
int judge(struct fuzzer *x, struct model *m, int f, int c, long at,
	  uint64_t t0, ssize_t n, int e, int check_state);
int open_for_write(struct fuzzer *x, struct model *m, int f, int c,
		   int flags, int check_state);
void write_fresh(struct fuzzer *x, struct model *m, int f, int c,
		 int check_state);

/* ---- dpfuzz-values.c ---- */
long pick_new_value(struct fuzzer *x, int f, const struct model *m);
long any_valid_value(struct fuzzer *x, int f);
long wrap_target(struct fuzzer *x, int f, const struct model *m);
void valid_value_text(struct fuzzer *x, int f, const struct model *m,
		      char *t, size_t size);
void gen_wellformed(struct fuzzer *x, int f, const struct model *m);
void gen_read_only(struct fuzzer *x, int f, const struct model *m);
void valid_write(struct fuzzer *x, struct model *m, int f);

/* ---- the generators of invalid writes: fill x's buffer ---- */
/* dpfuzz-numbers.c */
void gen_out_of_range(struct fuzzer *x, int f, const struct model *m);
void gen_negative(struct fuzzer *x, int f, const struct model *m);
void gen_plus_sign(struct fuzzer *x, int f, const struct model *m);
void gen_huge(struct fuzzer *x, int f, const struct model *m);
/* dpfuzz-syntax.c */
extern const char *const non_numeric[];
void gen_non_numeric(struct fuzzer *x, int f, const struct model *m);
void gen_trailing(struct fuzzer *x, int f, const struct model *m);
void gen_nul(struct fuzzer *x, int f, const struct model *m);
void gen_empty(struct fuzzer *x, int f, const struct model *m);
/* dpfuzz-size.c */
void gen_oversize(struct fuzzer *x, int f, const struct model *m);
void gen_bad_buffer(struct fuzzer *x, int f, const struct model *m);
/* dpfuzz-generate.c: one write of class c (not partial, not concurrent) */
void gen_invalid(struct fuzzer *x, int f, int c, const struct model *m);

/* ---- dpfuzz-partial.c, dpfuzz-concurrent.c ---- */
void fuzz_partial(struct fuzzer *x, struct model *m, int f);
void fuzz_concurrent(struct fuzzer *x, struct model *m, int f);
void race_valid_writes(struct fuzzer *x, struct model *m, int f);

/* ---- dpfuzz-report.c ---- */
struct run {
	const struct fuzzer *x;
	struct state init;
	uint64_t t0, t1;
	const char *status;
	int sig;
	char error[256];
};
int write_report(const struct run *r);
int run_clean(const struct fuzzer *x);

#endif
