/* dpfuzz: making one write and judging it against the contract and the
 * model; the plain writes of set-up, resync and restore. */
#include "dpfuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* every write() and pwrite() goes through write_counted(): the
 * dirty_pressure writes the kernel took are counted, as each emits one
 * dirty_pressure trace event (nid -1, reason write) that a test can count */
atomic_ulong pressure_writes_taken;

/* pwrite() at off when off >= 0, else write() */
ssize_t write_counted(int f, int fd, const void *p, size_t n, long off)
{
	ssize_t r = off >= 0 ? pwrite(fd, p, n, off) : write(fd, p, n);

	if (r > 0 && f == FILE_PRESSURE)
		atomic_fetch_add(&pressure_writes_taken, 1);
	return r;
}

/* ---- plain writes for set-up, resync and restore: 0 or an errno ---- */
int write_plain(int f, const char *s)
{
	int fd = open(file_path[f], O_WRONLY | O_CLOEXEC), e = 0;
	size_t n = strlen(s);

	if (fd < 0)
		return errno;
	if (write_counted(f, fd, s, n, -1) != (ssize_t)n)
		e = errno ? errno : EIO;
	close(fd);
	return e;
}

int write_plain_long(int f, long v)
{
	char t[32];

	snprintf(t, sizeof(t), "%ld\n", v);
	return write_plain(f, t);
}

/* Back to a known state after a finding: the mode and rate the model says,
 * and a fresh pressure write. */
void resync(struct fuzzer *x, struct model *m)
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
	if ((e = write_plain(FILE_MODE, mode_names[m->mode])) ||
	    (e = write_plain_long(FILE_RECOVERY, m->recovery))) {
		io_error("resync: cannot restore mode/recovery: %s", strerror(e));
		return;
	}
	t = now_ns();
	if ((e = write_plain_long(FILE_PRESSURE, m->p)))
		io_error("resync: cannot write dirty_pressure: %s", strerror(e));
	model_set_pressure(m, m->p, t);
}

/* read all five files and check them; a finding and a resync if off */
void verify(struct fuzzer *x, struct model *m, int f, int c, const char *when)
{
	struct state s;
	char why[256];

	if (read_state(&s, why, sizeof(why))) {
		io_error("%s", why);
		return;
	}
	if (model_mismatch(m, &s, now_ns(), why, sizeof(why))) {
		x->counts[f][c].state_changed++;
		finding(f, c, x, "%s: %s", when, why);
		resync(x, m);
	}
}

/* a write the oracle calls valid, of val, made at t0 (n, e: what write()
 * returned and its errno): it must have taken effect */
static void judge_valid(struct fuzzer *x, struct model *m, int f, long val,
			uint64_t t0, ssize_t n, int e, int check_state)
{
	struct counts *s = &x->counts[f][CLASS_VALID];
	char why[256];
	struct state now;

	s->tried++;
	if (n != (ssize_t)x->len) {
		s->rejected++;
		finding(f, CLASS_VALID, x, "valid write %s",
			n < 0 ? strerror(e) : "short");
		resync(x, m);
		return;
	}
	if (f == FILE_PRESSURE)
		model_set_pressure(m, val, t0);
	else if (f == FILE_MODE)
		m->mode = (int)val;
	else
		model_set_recovery(m, val);
	if (!check_state)
		return;
	if (read_state(&now, why, sizeof(why))) {
		io_error("%s", why);
		return;
	}
	if (model_mismatch(m, &now, now_ns(), why, sizeof(why))) {
		s->state_changed++;
		finding(f, CLASS_VALID, x, "valid write did not take effect: %s",
			why);
		resync(x, m);
	} else {
		s->valid_ok++;
	}
}

/* Count one write of x's buffer to f at kernel position at (n, e: what
 * write() returned and its errno).  Returns 1 when the oracle called it
 * valid, so the caller knows what the position becomes. */
int judge(struct fuzzer *x, struct model *m, int f, int c, long at,
	  uint64_t t0, ssize_t n, int e, int check_state)
{
	long val;
	struct counts *s;
	int bad_buffer = x->ptr != x->buf;

	if (at == 0 && !bad_buffer && contract_valid(f, x->buf, x->len, &val)) {
		judge_valid(x, m, f, val, t0, n, e, check_state);
		return 1;
	}
	s = &x->counts[f][c];
	s->tried++;
	if (n >= 0) {
		s->accepted_bad++;
		finding(f, c, x, "accepted (returned %zd)", n);
	} else if (errno_rejects(f, bad_buffer, x->is_pwrite, e)) {
		s->rejected++;
	} else {
		s->wrong_errno++;
		finding(f, c, x, "failed with %s, want %s", strerror(e),
			!file_writable(f) ? "EINVAL, EACCES or EPERM" :
			bad_buffer ? "EFAULT" :
			x->is_pwrite ? "EINVAL or ESPIPE" : "EINVAL");
	}
	if (check_state)
		verify(x, m, f, c, n >= 0 ? "after it" : "after rejecting it");
	return 0;
}

/* open f for writing: the descriptor, or -1 after counting a read-only
 * file's refusal (c) or an I/O error */
int open_for_write(struct fuzzer *x, struct model *m, int f, int c, int flags,
		   int check_state)
{
	int fd = open(file_path[f], flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (!file_writable(f) && (errno == EACCES || errno == EPERM)) {
		x->counts[f][c].tried++;
		x->counts[f][c].rejected++;
		if (check_state)
			verify(x, m, f, c, "after refusing to open it");
	} else {
		io_error("cannot open %s for writing: %s", file_path[f],
			 strerror(errno));
	}
	return -1;
}

/* write x's buffer on a fresh descriptor */
void write_fresh(struct fuzzer *x, struct model *m, int f, int c,
		 int check_state)
{
	int fd = open_for_write(x, m, f, c, O_WRONLY, check_state);
	uint64_t t0;
	ssize_t n;

	if (fd < 0)
		return;
	t0 = now_ns();
	n = write_counted(f, fd, x->ptr, x->len, -1);
	judge(x, m, f, c, 0, t0, n, n < 0 ? errno : 0, check_state);
	close(fd);
}
