/* dpfuzz: malformed writes to the dirty pressure debugfs files.
 *
 * The contract (patch 4's changelog, Documentation/admin-guide/mm/
 * dirty-pressure.rst): a write must be one write() at offset 0 of a decimal
 * number in range (dirty_pressure 0..1024, dirty_pressure_recovery 1..1024)
 * or a mode name (dirty_pressure_mode: off, global, node), optionally
 * followed by one newline.  Anything else - a sign, hex, trailing
 * characters, an out-of-range value, a second write on the same open file -
 * fails with EINVAL and changes nothing.  dirty_pressure_node and
 * dirty_pressure_nodes are read-only.
 *
 * For each of the five files dpfuzz makes at least --count writes that the
 * contract calls invalid, spread evenly over classes (see class_help below),
 * and after every one reads all five files back and compares them with a
 * model of what the state may be.  Between them it makes valid writes that
 * move the state (a new pressure, mode or recovery rate), each checked to
 * have taken effect, so a kernel that ignored every write would fail too.
 *
 * What counts as rejected: EINVAL, except EFAULT for a buffer the kernel
 * cannot read (bad_buffer), ESPIPE also for pwrite() (the VFS refuses it
 * on a seq_file before the file's write method runs), and for the
 * read-only files any of EINVAL (debugfs: no write method), EACCES or
 * EPERM (open refused).
 *
 * Partial writes.  The kernel (dp_copy_write) takes a write only at file
 * position 0 and then advances the position by its length, so:
 *   - a value split over two write() calls on one descriptor: the first
 *     piece is judged on its own (a valid number or name takes effect, as
 *     the kernel cannot know more follows); every later write on that
 *     descriptor is at position > 0 and must fail with EINVAL, changing
 *     nothing.  A piece that failed did not move the position, so the next
 *     piece is again judged on its own at position 0;
 *   - pwrite() at an offset > 0 (ESPIPE from the VFS is as good as
 *     EINVAL), lseek() then write(), read() then write() and a second
 *     complete write on one descriptor must fail.
 * dpfuzz tracks the position the kernel sees and asks the same oracle for
 * every write, so no piece is counted valid or invalid by accident.
 *
 * State that moves by itself.  Reclaim that meets dirty pages lowers a
 * node's pressure (fast_down, and dirty_pressure_node names the node);
 * while a node's kswapd sleeps the pressure rises by dirty_pressure_recovery
 * steps per second (slow_up).  A quiet guest has no reclaim, so fast_down
 * does not happen (a scenario checks that in the trace); slow_up does, and
 * the model allows exactly it: after a write of P at time t, every node's
 * value must stay within [P, P + R * (now - t + 0.02 s) + 1] (R the highest
 * rate in force since, 0.02 s two jiffies at HZ=100) and never fall, and
 * dirty_pressure (the lowest node, or their weighted average in mode node)
 * within the same band.  Mode, recovery, the node list and
 * dirty_pressure_node must not change at all.  A write of 1024 is stable.
 *
 * Concurrent writers: --threads threads make invalid writes to one file at
 * once while a reader thread checks the state continuously; and the same
 * number of threads race valid writes of distinct values, after which the
 * state must be one of them (every node the same one).
 *
 * Report (JSON, one flat object): program, status (complete|interrupted),
 * error, signal, seed, dir, count, threads, classes, initial_mode,
 * initial_mode_code (0 off, 1 global, 2 node), initial_pressure,
 * initial_recovery, initial_node, nodes, elapsed_s, findings, first_finding,
 * io_errors, resyncs, reader_checks, pressure_writes_taken (write()s to
 * dirty_pressure that succeeded, set-up and restore included: one trace
 * event each), and counts
 *   <file>_<class>_<stat>
 * file: pressure, node, mode, recovery, nodes, and "all" summed over files;
 * class: one of the classes, "valid", "invalid" (all invalid classes) and
 * for "all" also per class; stat: tried, rejected, accepted_bad,
 * wrong_errno, state_changed, and for valid: tried, valid_ok, valid_failed.
 *
 * Exit: 0 every invalid write rejected with the right error and no state
 * change, every valid write took effect; 1 otherwise (or a file could not
 * be read); 2 bad arguments or cannot start; 128+N after signal N (report
 * written, state restored).
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define VERSION "1"
#define PMAX 1024			/* DIRTY_PRESSURE_MAX */
#define SLACK_S 0.02			/* two jiffies at HZ=100 */
#define MAXNODES 1024
#define WCAP (1u << 16)			/* largest write buffer */
#define MAXTHREADS 64

enum { F_PRESSURE, F_NODE, F_MODE, F_RECOVERY, F_NODES, NF };
static const char *const file_name[NF] = {
	"dirty_pressure", "dirty_pressure_node", "dirty_pressure_mode",
	"dirty_pressure_recovery", "dirty_pressure_nodes",
};
static const char *const file_key[NF] = {
	"pressure", "node", "mode", "recovery", "nodes",
};

static int writable(int f)
{
	return f == F_PRESSURE || f == F_MODE || f == F_RECOVERY;
}

static int numeric(int f)
{
	return f != F_MODE;
}

enum {
	C_VALID,
	C_OUT_OF_RANGE, C_NEGATIVE, C_PLUS_SIGN, C_HUGE, C_NON_NUMERIC,
	C_TRAILING, C_NUL, C_EMPTY, C_OVERSIZE, C_BAD_BUFFER, C_PARTIAL,
	C_CONCURRENT, C_READ_ONLY, NC
};
static const char *const class_name[NC] = {
	"valid", "out_of_range", "negative", "plus_sign", "huge",
	"non_numeric", "trailing_garbage", "nul_byte", "empty", "oversize",
	"bad_buffer", "partial", "concurrent", "read_only",
};
static const char *const class_help[NC] = {
	"",
	"above the maximum (and 0 for recovery); unknown names for the mode",
	"a minus sign: -0, -1, values that wrap to a valid one",
	"a plus sign before a valid value (\"+512\")",
	"2^32+x (wraps to a valid x in 32 bits), 2^64 and beyond, 10^k",
	"letters, hex, floats, other scripts' digits, symbols, binary",
	"a valid value with characters before or after it",
	"a NUL byte after, before or inside a valid value",
	"a zero-length write, or only a newline",
	"16 bytes or more (the kernel's buffer), up to 64 KiB",
	"a buffer the kernel cannot read: NULL, unmapped, crossing into a "
	"guard page, a kernel address (EFAULT)",
	"split writes, pwrite/lseek/read before write, a second write on "
	"one descriptor",
	"--threads writers at once, a reader checking meanwhile",
	"well-formed values written to the read-only files",
};

static const char *const mode_names[3] = { "off", "global", "node" };

/* ---- counts ---- */
struct st {
	uint64_t tried, rejected, accepted_bad, wrong_errno, state_changed,
		 valid_ok;
};

/* per thread: its random state, write buffer and counts */
struct ctx {
	uint64_t rng;
	char *b;		/* WCAP + 64 bytes */
	size_t len;
	const void *ptr;	/* what write() gets: b or a bad address */
	int pw;			/* the write being judged is a pwrite() */
	struct st st[NF][NC];
	uint64_t resyncs;
};

/* ---- configuration and shared state ---- */
static struct {
	const char *dir, *report;
	uint64_t count, valid_every, seed, max_findings;
	int threads, seed_set;
	unsigned classes;	/* bit per class */
} cfg;

static char path[NF][4096];
static char *guard;		/* a readable page followed by a PROT_NONE one */
static long page;
static pthread_mutex_t find_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t findings, io_errors, reader_checks;
static char first_finding[512];

/* ---- small helpers ---- */
static uint64_t rnd(struct ctx *x, uint64_t n)
{
	return n ? rand64(&x->rng) % n : 0;
}

static void wclear(struct ctx *x)
{
	x->len = 0;
	x->ptr = x->b;
}

static void wapp(struct ctx *x, const void *s, size_t n)
{
	if (x->len + n > WCAP)
		n = WCAP - x->len;
	memcpy(x->b + x->len, s, n);
	x->len += n;
}

static void wstr(struct ctx *x, const char *s)
{
	wapp(x, s, strlen(s));
}

static void wfmt(struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void wfmt(struct ctx *x, const char *fmt, ...)
{
	char t[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	if (n > 0)
		wapp(x, t, (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

static void maybe_nl(struct ctx *x)
{
	if (rnd(x, 2))
		wstr(x, "\n");
}

/* printable rendering of a write for a finding */
static void render(const char *b, size_t len, const void *ptr, char *out,
		   size_t size)
{
	size_t o = 0;

	if (ptr != b) {
		snprintf(out, size, "(%zu bytes at %p)", len, ptr);
		return;
	}
	out[o++] = '"';
	for (size_t i = 0; i < len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)b[i];

		if (i == 40) {
			o += (size_t)snprintf(out + o, size - o, "...");
			break;
		}
		if (c == '\n')
			o += (size_t)snprintf(out + o, size - o, "\\n");
		else if (c == '"' || c == '\\')
			o += (size_t)snprintf(out + o, size - o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	snprintf(out + o, size - o, "\" (%zu bytes)", len);
}

static void finding(int f, int c, const struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void finding(int f, int c, const struct ctx *x, const char *fmt, ...)
{
	char what[256], w[200], line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (x)
		render(x->b, x->len, x->ptr, w, sizeof(w));
	else
		snprintf(w, sizeof(w), "-");
	snprintf(line, sizeof(line), "%s %s: write %s: %s", file_name[f],
		 class_name[c], w, what);
	pthread_mutex_lock(&find_lock);
	if (!findings)
		snprintf(first_finding, sizeof(first_finding), "%s", line);
	if (findings++ < cfg.max_findings)
		fprintf(stderr, "%s: %s\n", prog, line);
	pthread_mutex_unlock(&find_lock);
}

static void io_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void io_error(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&find_lock);
	if (io_errors++ < cfg.max_findings) {
		fprintf(stderr, "%s: ", prog);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	pthread_mutex_unlock(&find_lock);
}

/* ---- the contract: is this write valid at position 0? ---- */
static int oracle(int f, const char *b, size_t len, long *val)
{
	size_t n = len;

	if (!writable(f) || len == 0 || len > 15 || memchr(b, '\0', len))
		return 0;
	if (b[n - 1] == '\n')
		n--;
	if (n == 0)
		return 0;
	if (f == F_MODE) {
		for (int i = 0; i < 3; i++)
			if (strlen(mode_names[i]) == n &&
			    !memcmp(b, mode_names[i], n)) {
				*val = i;
				return 1;
			}
		return 0;
	}
	long v = 0;

	for (size_t i = 0; i < n; i++) {
		if (b[i] < '0' || b[i] > '9')
			return 0;
		v = v * 10 + (b[i] - '0');	/* n <= 14 digits: no overflow */
	}
	if (v > PMAX || (f == F_RECOVERY && v < 1))
		return 0;
	*val = v;
	return 1;
}

/* the errors that count as rejecting a write; badbuf: the kernel cannot
 * read the buffer; pw: a pwrite(), which the VFS refuses with ESPIPE
 * before the file sees it (seq_open() clears FMODE_PWRITE) */
static int errno_ok(int f, int badbuf, int pw, int e)
{
	if (pw && e == ESPIPE)
		return 1;
	if (writable(f))
		return badbuf ? e == EFAULT : e == EINVAL;
	return e == EINVAL || e == EACCES || e == EPERM ||
	       (badbuf && e == EFAULT);
}

/* ---- state and its model ---- */
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

static int read_file(int f, char *buf, size_t size)
{
	size_t o = 0;
	int fd = open(path[f], O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (o + 1 < size) {
		ssize_t n = read(fd, buf + o, size - 1 - o);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		o += (size_t)n;
	}
	buf[o] = '\0';
	close(fd);
	return 0;
}

/* a whole line "<integer>\n" */
static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || strcmp(end, "\n") != 0 ? -1 : 0;
}

/* 0, or -1 with why filled */
static int read_state(struct state *s, char *why, size_t wsize)
{
	static __thread char buf[16384];
	int e;

	for (int f = 0; f < NF; f++) {
		if ((e = read_file(f, buf, sizeof(buf)))) {
			snprintf(why, wsize, "cannot read %s: %s", path[f],
				 strerror(-e));
			return -1;
		}
		switch (f) {
		case F_PRESSURE:
			e = parse_long(buf, &s->pressure);
			break;
		case F_NODE:
			e = parse_long(buf, &s->node);
			break;
		case F_RECOVERY:
			e = parse_long(buf, &s->recovery);
			break;
		case F_MODE:
			s->mode = -1;
			for (int i = 0; i < 3; i++) {
				size_t n = strlen(mode_names[i]);

				if (!strncmp(buf, mode_names[i], n) &&
				    !strcmp(buf + n, "\n"))
					s->mode = i;
			}
			e = s->mode < 0;
			break;
		case F_NODES: {
			char *p = buf, *end;

			s->nn = 0;
			e = 0;
			while (*p && !e) {
				long a, b;

				errno = 0;
				a = strtol(p, &end, 10);
				e = errno || end == p || *end != ' ';
				if (e)
					break;
				p = end + 1;
				b = strtol(p, &end, 10);
				e = errno || end == p || *end != '\n' ||
				    s->nn == MAXNODES;
				if (e)
					break;
				p = end + 1;
				s->nid[s->nn] = (int)a;
				s->val[s->nn++] = b;
			}
			e = e || s->nn == 0;
			break;
		}
		}
		if (e) {
			char r[64];

			render(buf, strlen(buf), buf, r, sizeof(r));
			snprintf(why, wsize, "cannot parse %s: %s", path[f], r);
			return -1;
		}
	}
	return 0;
}

static long band_hi(const struct model *m, uint64_t now)
{
	double dt = (double)(now - m->t_p) / 1e9 + SLACK_S;
	double hi = (double)m->p + (double)m->rate_max * dt + 1;

	return hi >= PMAX ? PMAX : (long)hi;
}

/* Is s what m allows at now?  0, or 1 with why.  Updates the per-node
 * values last seen (only one thread checks at a time). */
static int check(struct model *m, const struct state *s, uint64_t now,
		 char *why, size_t wsize)
{
	long hi = band_hi(m, now);

	if (s->mode != m->mode) {
		snprintf(why, wsize, "mode is %s, want %s",
			 s->mode < 0 ? "unreadable" : mode_names[s->mode],
			 mode_names[m->mode]);
		return 1;
	}
	if (s->recovery != m->recovery) {
		snprintf(why, wsize, "recovery is %ld, want %ld", s->recovery,
			 m->recovery);
		return 1;
	}
	if (s->node != m->node) {
		snprintf(why, wsize, "dirty_pressure_node is %ld, want %ld",
			 s->node, m->node);
		return 1;
	}
	if (s->nn != m->nn) {
		snprintf(why, wsize, "%d nodes listed, want %d", s->nn, m->nn);
		return 1;
	}
	for (int i = 0; i < s->nn; i++) {
		if (s->nid[i] != m->nid[i]) {
			snprintf(why, wsize, "node list changed at %d", i);
			return 1;
		}
		if (s->val[i] < m->last[i] || s->val[i] > hi) {
			snprintf(why, wsize,
				 "node %d pressure %ld, want %ld..%ld (written %ld)",
				 s->nid[i], s->val[i], m->last[i], hi, m->p);
			return 1;
		}
	}
	if (s->pressure < m->p || s->pressure > hi) {
		snprintf(why, wsize, "pressure %ld, want %ld..%ld", s->pressure,
			 m->p, hi);
		return 1;
	}
	for (int i = 0; i < s->nn; i++)
		m->last[i] = s->val[i];
	return 0;
}

static void model_pressure(struct model *m, long p, uint64_t t)
{
	m->p = p;
	m->t_p = t;
	m->rate_max = m->recovery;
	for (int i = 0; i < m->nn; i++)
		m->last[i] = p;
}

/* every write() and pwrite() goes through here: the dirty_pressure
 * writes the kernel took are counted, as each emits one dirty_pressure
 * trace event (nid -1, reason write) that a test can count */
static atomic_ulong pressure_taken;

static ssize_t wr(int f, int fd, const void *p, size_t n, long off)
{
	ssize_t r = off >= 0 ? pwrite(fd, p, n, off) : write(fd, p, n);

	if (r > 0 && f == F_PRESSURE)
		atomic_fetch_add(&pressure_taken, 1);
	return r;
}

/* ---- plain writes for set-up, resync and restore ---- */
static int put(int f, const char *s)
{
	int fd = open(path[f], O_WRONLY | O_CLOEXEC), e = 0;
	size_t n = strlen(s);

	if (fd < 0)
		return errno;
	if (wr(f, fd, s, n, -1) != (ssize_t)n)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

static int put_long(int f, long v)
{
	char t[32];

	snprintf(t, sizeof(t), "%ld\n", v);
	return put(f, t);
}

/* Back to a known state after a finding: the mode and rate the model says,
 * and a fresh pressure write. */
static void resync(struct ctx *x, struct model *m)
{
	struct state s;
	char why[256];
	uint64_t t;
	int e;

	x->resyncs++;
	if (read_state(&s, why, sizeof(why)) == 0) {
		m->node = s.node;
		m->nn = s.nn;
		memcpy(m->nid, s.nid, sizeof(s.nid[0]) * (size_t)s.nn);
	}
	if ((e = put(F_MODE, mode_names[m->mode])) ||
	    (e = put_long(F_RECOVERY, m->recovery))) {
		io_error("resync: cannot restore mode/recovery: %s", strerror(e));
		return;
	}
	t = now_ns();
	if ((e = put_long(F_PRESSURE, m->p)))
		io_error("resync: cannot write dirty_pressure: %s", strerror(e));
	model_pressure(m, m->p, t);
}

/* read all five files and check them; a finding and a resync if off */
static void verify(struct ctx *x, struct model *m, int f, int c,
		   const char *when)
{
	struct state s;
	char why[256];

	if (read_state(&s, why, sizeof(why))) {
		io_error("%s", why);
		return;
	}
	if (check(m, &s, now_ns(), why, sizeof(why))) {
		x->st[f][c].state_changed++;
		finding(f, c, x, "%s: %s", when, why);
		resync(x, m);
	}
}

/* ---- generators ---- */
static long pick_valid(struct ctx *x, int f, const struct model *m)
{
	long v, lo = f == F_RECOVERY ? 1 : 0, cur_hi;

	if (f == F_MODE) {
		v = (m->mode + 1 + (long)rnd(x, 2)) % 3;
		return v;
	}
	if (f == F_RECOVERY) {
		do {
			/* mostly slow rates: a fast one widens the band */
			switch (rnd(x, 4)) {
			case 0: v = 1; break;
			case 1: v = PMAX; break;
			default: v = 1 + (long)rnd(x, 32); break;
			}
		} while (v == m->recovery && rnd(x, 16));
		if (v == m->recovery)
			v = m->recovery == 1 ? 2 : 1;
		return v;
	}
	/* pressure: a value whose band does not contain the current one, so
	 * a write that was ignored shows */
	cur_hi = band_hi(m, now_ns());
	for (int i = 0; i < 32; i++) {
		switch (rnd(x, 8)) {
		case 0: v = 0; break;
		case 1: v = PMAX; break;
		default: v = lo + (long)rnd(x, PMAX + 1); break;
		}
		if (v > cur_hi || v + 64 + m->recovery < m->p)
			return v;
	}
	return m->p > PMAX / 2 ? 0 : PMAX;
}

/* a value valid for f (pressure's range for the read-only files) */
static long any_valid(struct ctx *x, int f)
{
	if (f == F_RECOVERY)
		return 1 + (long)rnd(x, PMAX);
	return (long)rnd(x, PMAX + 1);
}

/* a valid value for the wrapping classes, preferably one the state does
 * not already have (so a write that wrongly took effect shows) */
static long wrap_target(struct ctx *x, int f, const struct model *m)
{
	long v = any_valid(x, f);

	for (int i = 0; i < 8; i++) {
		if (f == F_PRESSURE && (v < m->p || v > band_hi(m, now_ns()) + 8))
			break;
		if (f != F_PRESSURE && v != m->recovery)
			break;
		v = any_valid(x, f);
	}
	return v;
}

static void put_wellformed(struct ctx *x, int f, const struct model *m)
{
	if (f == F_MODE)
		wstr(x, mode_names[pick_valid(x, f, m)]);
	else if (f == F_NODES)
		wfmt(x, "%d %ld", m->nid[rnd(x, (uint64_t)m->nn)], any_valid(x, f));
	else if (f == F_NODE)
		wfmt(x, "%ld", (long)rnd(x, 3) - 1);
	else
		wfmt(x, "%ld", writable(f) ? pick_valid(x, f, m) : any_valid(x, f));
}

static const char *const mode_unknown[] = {
	"o", "of", "offf", "0ff", "g", "glob", "globa", "globall", "globe",
	"n", "no", "nod", "nodes", "nodee", "OFF", "Off", "Global", "GLOBAL",
	"Node", "NODE", "oFF", "on", "none", "default", "auto", "true",
	"false", "0", "1", "2", "3", "mode", "numa", "local", "all",
	"global_", "node0", "off1", "\xc3\xb6""ff", "gl\xc3\xb6""bal",
};
static const char *const non_numeric[] = {
	"abc", "x", "0x200", "0X1f", "0x", "0b101", "0o17", "1e3", "1E2",
	"1.5", "512.0", ".5", "5.", "NaN", "nan", "inf", "one", "global",
	"off", "node", "true", "\t", " ", "\r\n", "\r", "-", "+", "--1",
	"++1", "+-1", "-+1", "\xd9\xa3", "\xef\xbc\x95\xef\xbc\x91\xef\xbc\x92",
	"\xc2\xbd", "0,5", "1_000", "1'000", "$1", "#1", "\\n", "%d", "(1)",
	"[1]", "1/2", "\xff", "\x80\x81", "\x1b[0m", "I", "V", "l", "O",
};
static const char *const junk_after[] = {
	" ", "  ", "x", "\n\n", "\r", "\r\n", "\t", "\n0", "\n\n0", " 1",
	"abc", "\nx", "k", "K", "M", "%", ".", ".0", ",", ";", "\v", "\f",
	"-", "+", "\n ", " \n", "\x7f", "\xff", "e2", "/", "=1",
};
static const char *const junk_before[] = {
	" ", "\n", "\t", "\r", "x", "0x", "=", "\v", "\f", "  ", "\xef\xbb\xbf",
};

static void value_str(struct ctx *x, int f, const struct model *m, char *t,
		      size_t size)
{
	if (f == F_MODE)
		snprintf(t, size, "%s", mode_names[rnd(x, 3)]);
	else
		snprintf(t, size, "%ld", f == F_PRESSURE || f == F_RECOVERY ?
			 wrap_target(x, f, m) : any_valid(x, f));
}

/* Fill x's buffer with one write of class c for file f. */
static void gen(struct ctx *x, int f, int c, const struct model *m)
{
	long hi = PMAX, v;
	char t[64];
	size_t k;

	wclear(x);
	switch (c) {
	case C_OUT_OF_RANGE:
		if (!numeric(f)) {
			if (rnd(x, 4)) {
				wstr(x, mode_unknown[rnd(x, sizeof(mode_unknown) /
							 sizeof(mode_unknown[0]))]);
			} else {
				k = 1 + rnd(x, 12);
				for (size_t i = 0; i < k; i++)
					wfmt(x, "%c", (char)('a' + rnd(x, 26)));
				/* a random word that happens to be a name */
				if (oracle(F_MODE, x->b, x->len, &v))
					wstr(x, "z");
			}
			maybe_nl(x);
			break;
		}
		switch (rnd(x, 5)) {
		case 0: v = hi + 1 + (long)rnd(x, 100); break;
		case 1: v = hi + 1 + (long)rnd(x, 1000000000); break;
		case 2: v = f == F_RECOVERY ? 0 : hi + 1; break;
		case 3: v = (long)(2147483646 + rnd(x, 3)); break;
		default: v = (long)(4294967294u + rnd(x, 2)); break;
		}
		wfmt(x, "%ld", v);
		maybe_nl(x);
		break;
	case C_NEGATIVE:
		if (!numeric(f) && rnd(x, 2)) {
			wfmt(x, "-%s", mode_names[rnd(x, 3)]);
		} else {
			switch (rnd(x, 7)) {
			case 0: wstr(x, "-0"); break;
			case 1: wstr(x, "-1"); break;
			case 2: wfmt(x, "-%ld", any_valid(x, F_RECOVERY)); break;
			case 3: wfmt(x, "-%llu", (unsigned long long)rnd(x, 1ull << 31)); break;
			case 4: wstr(x, "-2147483648"); break;
			case 5: wstr(x, "-4294967295"); break;
			default:	/* -(2^32 - v): v in 32-bit arithmetic */
				wfmt(x, "-%llu", 4294967296ull -
				     (unsigned long long)wrap_target(x, f, m));
				break;
			}
		}
		maybe_nl(x);
		break;
	case C_PLUS_SIGN:
		switch (rnd(x, 8)) {
		case 0: wstr(x, "++1"); break;
		case 1: wstr(x, "+-1"); break;
		default:
			value_str(x, f, m, t, sizeof(t));
			wfmt(x, "+%s", t);
			break;
		}
		maybe_nl(x);
		break;
	case C_HUGE: {
		static const char *const big[] = {
			"18446744073709551616", "18446744073709551617",
			"18446744073709552640", "18446744073709551615",
			"9223372036854775808", "9223372036854775807",
			"99999999999999999999",
			"340282366920938463463374607431768211456",
		};
		unsigned long long w = (unsigned long long)(f == F_MODE ?
			(long)rnd(x, 3) : wrap_target(x, f, m));

		switch (rnd(x, 5)) {
		case 0: wfmt(x, "%llu", (1ull << 32) + w); break;
		case 1: wfmt(x, "%llu", (1ull << 32) * (1 + rnd(x, 65535)) + w); break;
		case 2: wstr(x, big[rnd(x, sizeof(big) / sizeof(big[0]))]); break;
		case 3:
			k = 16 + rnd(x, 25);
			wfmt(x, "%c", (char)('1' + rnd(x, 9)));
			for (size_t i = 1; i < k; i++)
				wfmt(x, "%c", (char)('0' + rnd(x, 10)));
			break;
		default: {
			unsigned long long p = 10000000000ull;

			for (uint64_t i = rnd(x, 5); i; i--)
				p *= 10;
			wfmt(x, "%llu", p + w);
			break;
		}
		}
		maybe_nl(x);
		break;
	}
	case C_NON_NUMERIC:
		if (rnd(x, 3)) {
			const char *s = non_numeric[rnd(x, sizeof(non_numeric) /
							sizeof(non_numeric[0]))];

			/* the mode names are valid for the mode file */
			if (f == F_MODE && oracle(F_MODE, s, strlen(s), &v))
				s = "0x1";
			wstr(x, s);
		} else {
			/* bytes that are neither digits nor letters, so no
			 * number and no mode name, nor NUL (class nul_byte) */
			k = 1 + rnd(x, 15);
			for (size_t i = 0; i < k; i++) {
				char ch;

				do
					ch = (char)(1 + rnd(x, 255));
				while ((ch >= '0' && ch <= '9') ||
				       (ch >= 'a' && ch <= 'z') ||
				       (ch >= 'A' && ch <= 'Z'));
				wapp(x, &ch, 1);
			}
		}
		break;
	case C_TRAILING:
		value_str(x, f, m, t, sizeof(t));
		switch (rnd(x, 4)) {
		case 0:
			wstr(x, junk_before[rnd(x, sizeof(junk_before) /
						sizeof(junk_before[0]))]);
			wstr(x, t);
			maybe_nl(x);
			break;
		case 1:
			wstr(x, t);
			wstr(x, "\n");
			wstr(x, t);
			break;
		case 2:	/* a space inside */
			if (strlen(t) > 1) {
				k = 1 + rnd(x, strlen(t) - 1);
				wapp(x, t, k);
				wstr(x, rnd(x, 2) ? " " : "\n");
				wstr(x, t + k);
				break;
			}
			/* fall through */
		default:
			wstr(x, t);
			wstr(x, junk_after[rnd(x, sizeof(junk_after) /
					       sizeof(junk_after[0]))]);
			break;
		}
		break;
	case C_NUL:
		value_str(x, f, m, t, sizeof(t));
		switch (rnd(x, 6)) {
		case 0: wstr(x, t); wapp(x, "\0", 1); break;
		case 1: wstr(x, t); wapp(x, "\n\0", 2); break;
		case 2:
			wstr(x, t);
			wapp(x, "\0", 1);
			wstr(x, non_numeric[rnd(x, 20)]);
			break;
		case 3: wapp(x, "\0", 1); wstr(x, t); maybe_nl(x); break;
		case 4:
			k = strlen(t) > 1 ? 1 + rnd(x, strlen(t) - 1) : 1;
			wapp(x, t, k);
			wapp(x, "\0", 1);
			wstr(x, t + k);
			break;
		default: wapp(x, rnd(x, 2) ? "\0" : "\0\n", rnd(x, 2) + 1); break;
		}
		break;
	case C_EMPTY:
		if (rnd(x, 3))
			break;		/* zero bytes */
		wstr(x, "\n");
		break;
	case C_OVERSIZE:
		value_str(x, f, m, t, sizeof(t));
		switch (rnd(x, 6)) {
		case 0:	/* a value padded with spaces to 16..64 bytes */
			wstr(x, t);
			k = 16 + rnd(x, 49);
			while (x->len < k)
				wstr(x, " ");
			break;
		case 1:
			k = 16 + rnd(x, 100);
			while (x->len < k)
				wstr(x, "\n");
			break;
		case 2:	/* a value followed by NULs: a parser that stopped at
			 * its buffer's end would see a valid value */
			wstr(x, t);
			wstr(x, "\n");
			k = 16 + rnd(x, WCAP - 16);
			memset(x->b + x->len, 0, k - x->len);
			x->len = k;
			break;
		case 3:	/* the value repeated */
			while (x->len < 16)
				wstr(x, t);
			break;
		case 4:
			k = 16 + rnd(x, WCAP - 16);
			for (size_t i = 0; i < k; i++)
				x->b[i] = (char)rnd(x, 256);
			x->len = k;
			break;
		default:	/* the value, then 4 KiB of digits */
			wstr(x, t);
			k = x->len + 4096;
			while (x->len < k)
				wstr(x, "5");
			break;
		}
		break;
	case C_BAD_BUFFER:
		k = 1 + rnd(x, 15);
		x->len = k;
		switch (rnd(x, 4)) {
		case 0: x->ptr = NULL; break;
		case 1: x->ptr = guard + page; break;	/* PROT_NONE */
		case 2:	/* a valid value's first bytes, the rest unmapped */
			value_str(x, f, m, t, sizeof(t));
			v = (long)strlen(t);
			v = v > 1 ? v - 1 : 1;
			memcpy(guard + page - v, t, (size_t)v);
			x->ptr = guard + page - v;
			x->len = (size_t)v + 1 + rnd(x, (uint64_t)(15 - v));
			break;
		default: x->ptr = (void *)(uintptr_t)-4096; break;
		}
		break;
	case C_READ_ONLY:
		put_wellformed(x, f, m);
		maybe_nl(x);
		break;
	}
	/* never hand a valid write to an invalid class (cannot happen with
	 * the generators above; cheap to make sure) */
	if (x->ptr == x->b && oracle(f, x->b, x->len, &v))
		wstr(x, "\x01");
}

/* ---- judging one write ---- */
/* Count one write of x's buffer to f at kernel position at (n, e: what
 * write() returned and its errno).  Returns 1 when the oracle called it
 * valid, so the caller knows what the position becomes. */
static int judge(struct ctx *x, struct model *m, int f, int c, long at,
		 uint64_t t0, ssize_t n, int e, int check_state)
{
	long val;
	struct st *s;
	char why[256];
	struct state now;

	if (at == 0 && x->ptr == x->b && oracle(f, x->b, x->len, &val)) {
		s = &x->st[f][C_VALID];
		s->tried++;
		if (n != (ssize_t)x->len) {
			s->rejected++;
			finding(f, C_VALID, x, "valid write %s",
				n < 0 ? strerror(e) : "short");
			resync(x, m);
			return 1;
		}
		if (f == F_PRESSURE)
			model_pressure(m, val, t0);
		else if (f == F_MODE)
			m->mode = (int)val;
		else {
			m->recovery = val;
			if (val > m->rate_max)
				m->rate_max = val;
		}
		if (!check_state)
			return 1;
		if (read_state(&now, why, sizeof(why))) {
			io_error("%s", why);
			return 1;
		}
		if (check(m, &now, now_ns(), why, sizeof(why))) {
			s->state_changed++;
			finding(f, C_VALID, x, "valid write did not take effect: %s",
				why);
			resync(x, m);
		} else {
			s->valid_ok++;
		}
		return 1;
	}
	s = &x->st[f][c];
	s->tried++;
	if (n >= 0) {
		s->accepted_bad++;
		finding(f, c, x, "accepted (returned %zd)", n);
	} else if (errno_ok(f, x->ptr != x->b, x->pw, e)) {
		s->rejected++;
	} else {
		s->wrong_errno++;
		finding(f, c, x, "failed with %s, want %s", strerror(e),
			!writable(f) ? "EINVAL, EACCES or EPERM" :
			x->ptr != x->b ? "EFAULT" : x->pw ? "EINVAL or ESPIPE" : "EINVAL");
	}
	if (check_state)
		verify(x, m, f, c, n >= 0 ? "after it" : "after rejecting it");
	return 0;
}

/* open f for writing: the descriptor, or -1 after counting a read-only
 * file's refusal (c) or an I/O error */
static int open_w(struct ctx *x, struct model *m, int f, int c, int flags,
		  int check_state)
{
	int fd = open(path[f], flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (!writable(f) && (errno == EACCES || errno == EPERM)) {
		x->st[f][c].tried++;
		x->st[f][c].rejected++;
		if (check_state)
			verify(x, m, f, c, "after refusing to open it");
	} else {
		io_error("cannot open %s for writing: %s", path[f], strerror(errno));
	}
	return -1;
}

/* write x's buffer on a fresh descriptor */
static void single(struct ctx *x, struct model *m, int f, int c,
		   int check_state)
{
	int fd = open_w(x, m, f, c, O_WRONLY, check_state);
	uint64_t t0;
	ssize_t n;

	if (fd < 0)
		return;
	t0 = now_ns();
	n = wr(f, fd, x->ptr, x->len, -1);
	judge(x, m, f, c, 0, t0, n, n < 0 ? errno : 0, check_state);
	close(fd);
}

/* a write on fd at the kernel position *pos (pwrite at off when >= 0) */
static void on_fd(struct ctx *x, struct model *m, int f, int fd, long *pos,
		  long off)
{
	long at = off >= 0 ? off : *pos;
	uint64_t t0 = now_ns();
	ssize_t n = wr(f, fd, x->ptr, x->len, off);
	int e = n < 0 ? errno : 0;

	x->pw = off >= 0;
	judge(x, m, f, C_PARTIAL, at, t0, n, e, 1);
	x->pw = 0;
	/* the kernel advances the position by what it took, valid or not */
	if (n > 0 && off < 0)
		*pos += n;
}

static void partial(struct ctx *x, struct model *m, int f)
{
	int how = (int)rnd(x, 5), fd;
	long pos = 0, off = -1;
	char s[64], tmp[16];
	size_t k;

	wclear(x);
	put_wellformed(x, f, m);
	maybe_nl(x);
	if (x->len < 2)
		wstr(x, "\n");
	memcpy(s, x->b, x->len);
	s[x->len] = '\0';
	fd = open_w(x, m, f, C_PARTIAL, how == 2 || how == 3 ? O_RDWR : O_WRONLY, 1);
	if (fd < 0)
		return;
	switch (how) {
	case 0:	/* split in two write()s */
		k = 1 + rnd(x, strlen(s) - 1);
		wclear(x);
		wapp(x, s, k);
		on_fd(x, m, f, fd, &pos, -1);
		wclear(x);
		wstr(x, s + k);
		break;
	case 1:	/* pwrite() at an offset */
		off = 1 + (long)rnd(x, 16);
		break;
	case 2: {	/* read(), then write() */
		ssize_t n = read(fd, tmp, 1 + rnd(x, sizeof(tmp) - 1));

		if (n <= 0) {
			io_error("cannot read %s: %s", path[f],
				 n < 0 ? strerror(errno) : "empty");
			close(fd);
			return;
		}
		pos = n;
		break;
	}
	case 3: {	/* lseek(), then write() */
		off_t o = 1 + (off_t)rnd(x, 3);

		if (lseek(fd, o, SEEK_SET) != o) {
			io_error("cannot seek %s: %s", path[f], strerror(errno));
			close(fd);
			return;
		}
		pos = (long)o;
		break;
	}
	default:	/* two complete writes on one descriptor */
		on_fd(x, m, f, fd, &pos, -1);
		wclear(x);
		put_wellformed(x, f, m);
		maybe_nl(x);
		break;
	}
	on_fd(x, m, f, fd, &pos, off);
	close(fd);
}

/* ---- concurrency ---- */
static const int single_classes[] = {
	C_OUT_OF_RANGE, C_NEGATIVE, C_PLUS_SIGN, C_HUGE, C_NON_NUMERIC,
	C_TRAILING, C_NUL, C_EMPTY, C_OVERSIZE, C_BAD_BUFFER, C_READ_ONLY,
};

struct worker {
	pthread_t tid;
	struct ctx x;
	struct model *m;
	int f, k;
	pthread_barrier_t *bar;
	atomic_int *done;
	long val;		/* race: the value written */
	ssize_t n;		/* race: what write() returned */
	int e;
};

static int applies(int f, int c)
{
	if (!(cfg.classes & (1u << c)))
		return 0;
	if (c == C_READ_ONLY)
		return !writable(f);
	return c != C_VALID;
}

static void *writer(void *arg)
{
	struct worker *w = arg;
	int cl[sizeof(single_classes) / sizeof(single_classes[0])], ncl = 0;

	for (size_t i = 0; i < sizeof(single_classes) / sizeof(single_classes[0]); i++)
		if (applies(w->f, single_classes[i]))
			cl[ncl++] = single_classes[i];
	pthread_barrier_wait(w->bar);
	for (int i = 0; i < w->k && ncl && !stop_signal; i++) {
		int c = cl[rnd(&w->x, (uint64_t)ncl)], fd;
		ssize_t n;

		gen(&w->x, w->f, c, w->m);
		fd = open_w(&w->x, w->m, w->f, C_CONCURRENT, O_WRONLY, 0);
		if (fd < 0)
			continue;
		n = wr(w->f, fd, w->x.ptr, w->x.len, -1);
		judge(&w->x, w->m, w->f, C_CONCURRENT, 0, 0, n, n < 0 ? errno : 0, 0);
		close(fd);
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct worker *w = arg;
	struct state s;
	char why[256];

	pthread_barrier_wait(w->bar);
	while (!atomic_load(w->done)) {
		if (read_state(&s, why, sizeof(why))) {
			io_error("%s", why);
			break;
		}
		pthread_mutex_lock(&find_lock);
		reader_checks++;
		pthread_mutex_unlock(&find_lock);
		if (check(w->m, &s, now_ns(), why, sizeof(why))) {
			w->x.st[w->f][C_CONCURRENT].state_changed++;
			finding(w->f, C_CONCURRENT, NULL, "seen by the reader: %s", why);
			break;
		}
	}
	return NULL;
}

static void *racer(void *arg)
{
	struct worker *w = arg;
	char t[32];
	int fd;

	if (w->f == F_MODE)
		snprintf(t, sizeof(t), "%s\n", mode_names[w->val]);
	else
		snprintf(t, sizeof(t), "%ld\n", w->val);
	fd = open(path[w->f], O_WRONLY | O_CLOEXEC);
	pthread_barrier_wait(w->bar);
	w->n = fd < 0 ? -1 : wr(w->f, fd, t, strlen(t), -1);
	w->e = w->n < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	else
		w->e = EBADF;
	return NULL;
}

static void add(struct st *a, const struct st *b)
{
	a->tried += b->tried;
	a->rejected += b->rejected;
	a->accepted_bad += b->accepted_bad;
	a->wrong_errno += b->wrong_errno;
	a->state_changed += b->state_changed;
	a->valid_ok += b->valid_ok;
}

static void merge(struct ctx *to, const struct ctx *from)
{
	for (int f = 0; f < NF; f++)
		for (int c = 0; c < NC; c++)
			add(&to->st[f][c], &from->st[f][c]);
	to->resyncs += from->resyncs;
}

static int ctx_init(struct ctx *x, uint64_t seed)
{
	memset(x, 0, sizeof(*x));
	x->rng = seed;
	x->b = malloc(WCAP + 64);
	x->ptr = x->b;
	return x->b ? 0 : -1;
}

/* --threads writers of invalid writes to f, a reader checking meanwhile;
 * the state must be what it was */
static void concurrent(struct ctx *x, struct model *m, int f)
{
	struct worker w[MAXTHREADS + 1];
	pthread_barrier_t bar;
	atomic_int done = 0;
	int nt = cfg.threads, started = 0;

	pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
	for (int i = 0; i <= nt; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		if (ctx_init(&w[i].x, rand64(&x->rng))) {
			io_error("out of memory");
			break;
		}
		w[i].m = m;
		w[i].f = f;
		w[i].k = 8;
		w[i].bar = &bar;
		w[i].done = &done;
		if (pthread_create(&w[i].tid, NULL, i < nt ? writer : reader, &w[i])) {
			free(w[i].x.b);
			io_error("cannot start a thread");
			break;
		}
		started++;
	}
	if (started != nt + 1) {
		/* the barrier would never open: cannot happen short of
		 * resource exhaustion, give up loudly */
		fprintf(stderr, "%s: cannot start %d threads\n", prog, nt + 1);
		exit(1);
	}
	for (int i = 0; i < nt; i++)
		pthread_join(w[i].tid, NULL);
	atomic_store(&done, 1);
	pthread_join(w[nt].tid, NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i <= nt; i++) {
		merge(x, &w[i].x);
		free(w[i].x.b);
	}
	/* the state after all of them */
	wclear(x);
	verify(x, m, f, C_CONCURRENT, "after the concurrent writers");
}

/* --threads valid writes of distinct values to f at once: afterwards the
 * state must be one of them, on every node the same one */
static void race(struct ctx *x, struct model *m, int f)
{
	struct worker w[MAXTHREADS];
	pthread_barrier_t bar;
	int nt = cfg.threads < 2 ? 2 : cfg.threads, ok = 1, hit = -1;
	struct st *s = &x->st[f][C_VALID];
	struct state st;
	char why[256] = "";
	uint64_t t0;

	if (f == F_MODE && nt > 3)
		nt = 3;
	pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
	for (int i = 0; i < nt; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].f = f;
		w[i].bar = &bar;
		if (f == F_MODE)
			w[i].val = i;
		else if (f == F_RECOVERY)
			w[i].val = 1 + i;
		else	/* spaced so that the bands stay apart */
			w[i].val = (long)(i * (PMAX / nt) + rnd(x, 16));
	}
	for (int i = 0; i < nt; i++)
		if (pthread_create(&w[i].tid, NULL, racer, &w[i])) {
			fprintf(stderr, "%s: cannot start a thread\n", prog);
			exit(1);
		}
	/* recovery: the slowest rate in force makes the bands narrow */
	t0 = now_ns();
	pthread_barrier_wait(&bar);
	for (int i = 0; i < nt; i++)
		pthread_join(w[i].tid, NULL);
	pthread_barrier_destroy(&bar);
	s->tried += (uint64_t)nt;
	for (int i = 0; i < nt; i++)
		if (w[i].n < 0) {
			ok = 0;
			snprintf(why, sizeof(why), "racing write of %ld failed: %s",
				 w[i].val, strerror(w[i].e));
		}
	if (ok && read_state(&st, why, sizeof(why))) {
		io_error("%s", why);
		return;
	}
	for (int i = 0; ok && i < nt && hit < 0; i++) {
		struct model t = *m;

		if (f == F_PRESSURE) {
			model_pressure(&t, w[i].val, t0);
			/* any racing write may have been the last on a node */
		} else if (f == F_MODE) {
			t.mode = (int)w[i].val;
		} else {
			t.recovery = w[i].val;
			if (t.recovery > t.rate_max)
				t.rate_max = t.recovery;
		}
		if (!check(&t, &st, now_ns(), why, sizeof(why))) {
			hit = i;
			*m = t;
		}
	}
	if (ok && hit >= 0) {
		s->valid_ok += (uint64_t)nt;
		return;
	}
	s->state_changed++;
	wclear(x);
	finding(f, C_VALID, NULL, "after %d racing valid writes the state is none of them (%s)",
		nt, why);
	if (f == F_PRESSURE)
		model_pressure(m, w[0].val, t0);
	resync(x, m);
}

/* ---- the run ---- */
static void valid_write(struct ctx *x, struct model *m, int f)
{
	long v = pick_valid(x, f, m);

	wclear(x);
	if (f == F_MODE)
		wstr(x, mode_names[v]);
	else
		wfmt(x, "%ld", v);
	maybe_nl(x);
	single(x, m, f, C_VALID, 1);
}

static uint64_t invalid_tried(const struct ctx *x, int f, int c)
{
	return x->st[f][c].tried;
}

static void fuzz_file(struct ctx *x, struct model *m, int f)
{
	int cl[NC], ncl = 0;
	uint64_t quota, since_valid = 0, bases = 0;

	for (int c = 1; c < NC; c++)
		if (applies(f, c))
			cl[ncl++] = c;
	if (!ncl)
		return;
	quota = (cfg.count + (uint64_t)ncl - 1) / (uint64_t)ncl;
	for (int more = 1; more && !stop_signal && io_errors < 100;) {
		more = 0;
		for (int i = 0; i < ncl && !stop_signal; i++) {
			int c = cl[i];
			uint64_t before = invalid_tried(x, f, c);

			if (before >= quota)
				continue;
			more = 1;
			if (c == C_PARTIAL)
				partial(x, m, f);
			else if (c == C_CONCURRENT)
				concurrent(x, m, f);
			else {
				gen(x, f, c, m);
				single(x, m, f, c, 1);
			}
			since_valid += invalid_tried(x, f, c) - before;
			if (since_valid < cfg.valid_every)
				continue;
			/* a new base: the file itself when writable, and
			 * every few times another one, so each file is fuzzed
			 * in every mode and at several rates */
			since_valid = 0;
			bases++;
			if (writable(f))
				valid_write(x, m, f);
			if (!writable(f) || bases % 4 == 0) {
				static const int wf[] = { F_PRESSURE, F_MODE, F_RECOVERY };

				valid_write(x, m, wf[rnd(x, 3)]);
			}
			if (writable(f) && bases % 16 == 1 &&
			    (cfg.classes & (1u << C_CONCURRENT)))
				race(x, m, f);
		}
	}
}

static void help(void)
{
	printf(
"Usage: dpfuzz [options]\n"
"Invalid (and some valid) writes to the dirty pressure debugfs files; after\n"
"each, all five files are read back and checked against what may change.\n"
"\n"
"  --dir DIR         the files' directory (default /sys/kernel/debug/vm)\n"
"  --count N         invalid writes per file, at least (default 1000)\n"
"  --valid-every N   a valid write after every N invalid ones (default 20)\n"
"  --threads N       concurrent writers (default 4, 1..%d)\n"
"  --classes LIST    comma-separated classes to run (default: all)\n"
"  --seed N          random seed (default: from the clock; in the report)\n"
"  --max-findings N  print at most N findings on stderr (default 20)\n"
"  --report FILE     JSON report, written atomically, also on SIGTERM/SIGINT\n"
"  --help            this text\n"
"\n"
"Classes of invalid writes:\n", MAXTHREADS);
	for (int c = 1; c < NC; c++)
		printf("  %-17s %s\n", class_name[c], class_help[c]);
	printf(
"\n"
"The state is restored (mode, recovery, pressure) at the end.\n"
"Exit: 0 all rejected and unchanged, valid writes took effect; 1 a finding\n"
"or an I/O error; 2 bad arguments or cannot start; 128+N after signal N.\n");
}

enum {
	OPT_HELP, OPT_DIR, OPT_COUNT, OPT_VALID, OPT_THREADS, OPT_CLASSES,
	OPT_SEED, OPT_MAXF, OPT_REPORT,
};

static const struct opt opts[] = {
	{ "help", 0, OPT_HELP },
	{ "dir", 1, OPT_DIR },
	{ "count", 1, OPT_COUNT },
	{ "valid-every", 1, OPT_VALID },
	{ "threads", 1, OPT_THREADS },
	{ "classes", 1, OPT_CLASSES },
	{ "seed", 1, OPT_SEED },
	{ "max-findings", 1, OPT_MAXF },
	{ "report", 1, OPT_REPORT },
	{ NULL, 0, 0 },
};

static unsigned parse_classes(const char *v)
{
	unsigned mask = 0;
	const char *p = v;

	if (!*v)
		usage_error("--classes: empty list");
	while (*p) {
		size_t n = strcspn(p, ",");
		int c;

		for (c = 1; c < NC; c++)
			if (strlen(class_name[c]) == n &&
			    !strncmp(class_name[c], p, n))
				break;
		if (c == NC)
			usage_error("--classes: unknown class '%.*s' (see --help)",
				    (int)n, p);
		mask |= 1u << c;
		p += n;
		if (*p == ',' && !*++p)
			usage_error("--classes: empty class name in '%s'", v);
	}
	return mask;
}

static void parse_args(int argc, char **argv)
{
	const char *v;
	int id, i = 1;
	uint64_t n;

	cfg.dir = "/sys/kernel/debug/vm";
	cfg.count = 1000;
	cfg.valid_every = 20;
	cfg.threads = 4;
	cfg.max_findings = 20;
	cfg.classes = ((1u << NC) - 1) & ~1u;
	while ((id = opt_next(argc, argv, opts, &i, &v)) >= 0) {
		switch (id) {
		case OPT_HELP:
			help();
			exit(0);
		case OPT_DIR:
			if (!*v)
				usage_error("--dir: empty path");
			cfg.dir = v;
			break;
		case OPT_COUNT:
			cfg.count = parse_count("count", v);
			if (cfg.count < 1 || cfg.count > 10000000)
				usage_error("--count %s: want 1..10000000", v);
			break;
		case OPT_VALID:
			cfg.valid_every = parse_count("valid-every", v);
			if (cfg.valid_every < 1)
				usage_error("--valid-every must be at least 1");
			break;
		case OPT_THREADS:
			n = parse_count("threads", v);
			if (n < 1 || n > MAXTHREADS)
				usage_error("--threads %s: want 1..%d", v, MAXTHREADS);
			cfg.threads = (int)n;
			break;
		case OPT_CLASSES:
			cfg.classes = parse_classes(v);
			break;
		case OPT_SEED:
			cfg.seed = parse_count("seed", v);
			cfg.seed_set = 1;
			break;
		case OPT_MAXF:
			cfg.max_findings = parse_count("max-findings", v);
			break;
		case OPT_REPORT:
			if (!*v)
				usage_error("--report: empty path");
			cfg.report = v;
			break;
		}
	}
	for (int f = 0; f < NF; f++) {
		struct stat sb;

		if ((size_t)snprintf(path[f], sizeof(path[f]), "%s/%s", cfg.dir,
				     file_name[f]) >= sizeof(path[f]))
			usage_error("--dir: path too long");
		if (stat(path[f], &sb) < 0)
			usage_error("--dir %s: no %s: %s (debugfs mounted, dirty pressure kernel?)",
				    cfg.dir, file_name[f], strerror(errno));
	}
	if (cfg.report)
		report_path_check("report", cfg.report);
}

static void put_st(struct json *j, const char *fk, const char *ck,
		   const struct st *s, int valid)
{
	char key[96];

#define K(stat) (snprintf(key, sizeof(key), "%s_%s_%s", fk, ck, stat), key)
	json_u64(j, K("tried"), s->tried);
	if (valid) {
		json_u64(j, K("valid_ok"), s->valid_ok);
		json_u64(j, K("valid_failed"), s->tried - s->valid_ok);
		return;
	}
	json_u64(j, K("rejected"), s->rejected);
	json_u64(j, K("accepted_bad"), s->accepted_bad);
	json_u64(j, K("wrong_errno"), s->wrong_errno);
	json_u64(j, K("state_changed"), s->state_changed);
#undef K
}

struct run {
	const struct ctx *x;
	struct state init;
	uint64_t t0, t1;
	const char *status;
	int sig;
	char error[256];
};

static int write_report(const struct run *r)
{
	struct json j;
	struct st all[NC], file_inv[NF], all_inv;
	char cls[256] = "";

	memset(all, 0, sizeof(all));
	memset(file_inv, 0, sizeof(file_inv));
	memset(&all_inv, 0, sizeof(all_inv));
	for (int c = 1; c < NC; c++)
		if (cfg.classes & (1u << c))
			snprintf(cls + strlen(cls), sizeof(cls) - strlen(cls), "%s%s",
				 *cls ? "," : "", class_name[c]);
	json_begin(&j);
	json_str(&j, "program", "dpfuzz");
	json_str(&j, "version", VERSION);
	json_str(&j, "status", r->status);
	json_str(&j, "error", r->error);
	json_u64(&j, "signal", (uint64_t)r->sig);
	json_u64(&j, "seed", cfg.seed);
	json_str(&j, "dir", cfg.dir);
	json_u64(&j, "count", cfg.count);
	json_u64(&j, "valid_every", cfg.valid_every);
	json_u64(&j, "threads", (uint64_t)cfg.threads);
	json_str(&j, "classes", cls);
	json_str(&j, "initial_mode", r->init.mode >= 0 ? mode_names[r->init.mode] : "?");
	json_i64(&j, "initial_mode_code", r->init.mode);
	json_i64(&j, "initial_pressure", r->init.pressure);
	json_i64(&j, "initial_recovery", r->init.recovery);
	json_i64(&j, "initial_node", r->init.node);
	json_u64(&j, "nodes", (uint64_t)r->init.nn);
	json_num(&j, "elapsed_s", (double)(r->t1 - r->t0) / 1e9);
	json_u64(&j, "findings", findings);
	json_str(&j, "first_finding", first_finding);
	json_u64(&j, "io_errors", io_errors);
	json_u64(&j, "resyncs", r->x->resyncs);
	json_u64(&j, "reader_checks", reader_checks);
	json_u64(&j, "pressure_writes_taken", atomic_load(&pressure_taken));
	for (int f = 0; f < NF; f++) {
		for (int c = 0; c < NC; c++) {
			const struct st *s = &r->x->st[f][c];

			add(&all[c], s);
			if (c != C_VALID) {
				add(&file_inv[f], s);
				add(&all_inv, s);
			}
			if (c == C_VALID ? writable(f) : applies(f, c))
				put_st(&j, file_key[f], class_name[c], s, c == C_VALID);
		}
		put_st(&j, file_key[f], "invalid", &file_inv[f], 0);
	}
	for (int c = 0; c < NC; c++)
		put_st(&j, "all", class_name[c], &all[c], c == C_VALID);
	put_st(&j, "all", "invalid", &all_inv, 0);
	return json_write(&j, cfg.report);
}

static int clean(const struct ctx *x)
{
	if (findings || io_errors)
		return 0;
	for (int f = 0; f < NF; f++)
		for (int c = 0; c < NC; c++) {
			const struct st *s = &x->st[f][c];

			if (s->accepted_bad || s->wrong_errno || s->state_changed ||
			    (c == C_VALID && s->valid_ok != s->tried))
				return 0;
		}
	return 1;
}

int main(int argc, char **argv)
{
	static struct ctx x;
	static struct model m;
	struct run r;
	char why[256];
	int e;

	prog = "dpfuzz";
	parse_args(argc, argv);
	if (!cfg.seed_set)
		cfg.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	page = sysconf(_SC_PAGESIZE);
	guard = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard == MAP_FAILED || mprotect(guard + page, (size_t)page, PROT_NONE))
		usage_error("cannot map a guard page: %s", strerror(errno));
	if (ctx_init(&x, cfg.seed))
		usage_error("out of memory");
	memset(&r, 0, sizeof(r));
	r.x = &x;
	if (read_state(&r.init, why, sizeof(why)))
		usage_error("%s", why);
	install_stop_handlers();
	r.t0 = now_ns();

	/* the model: what was read, then a known pressure */
	m.mode = r.init.mode;
	m.recovery = r.init.recovery;
	m.rate_max = r.init.recovery;
	m.node = r.init.node;
	m.nn = r.init.nn;
	memcpy(m.nid, r.init.nid, sizeof(m.nid[0]) * (size_t)m.nn);
	model_pressure(&m, r.init.pressure, now_ns());
	wclear(&x);
	wstr(&x, "1024\n");
	single(&x, &m, F_PRESSURE, C_VALID, 1);

	for (int f = 0; f < NF && !stop_signal; f++)
		fuzz_file(&x, &m, f);

	/* leave it as found */
	if ((e = put(F_MODE, mode_names[r.init.mode])) ||
	    (e = put_long(F_RECOVERY, r.init.recovery)) ||
	    (e = put_long(F_PRESSURE, r.init.pressure)))
		io_error("cannot restore the initial state: %s", strerror(e));
	r.t1 = now_ns();
	r.status = stop_signal ? "interrupted" : "complete";
	r.sig = stop_signal;
	if (io_errors)
		snprintf(r.error, sizeof(r.error), "%llu I/O errors",
			 (unsigned long long)io_errors);
	if (cfg.report && (e = write_report(&r)))
		fprintf(stderr, "%s: --report %s: %s\n", prog, cfg.report,
			strerror(-e));
	free(x.b);
	munmap(guard, (size_t)page * 2);
	return exit_status(clean(&x) ? 0 : 1);
}
