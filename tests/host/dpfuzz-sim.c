/* dpfuzz-sim: an LD_PRELOAD stand-in for the dirty pressure debugfs files,
 * so tests/host/workloads.t can run dpfuzz without the series' kernel.
 *
 * Files named dirty_pressure* under $DPSIM_DIR (which must exist as plain
 * files, for dpfuzz's stat()) are served from memory with the semantics of
 * patch 4 as documented: a write is taken only at position 0, whole, as a
 * decimal number in range or a mode name with at most one trailing newline
 * (no sign, no NUL), and then advances the position; a write to a
 * read-only file fails with EINVAL (root on debugfs); a buffer that cannot
 * be read gives EFAULT; pwrite() fails with ESPIPE (seq_file), and reads
 * after the first continue in what it saw (seq_file).  Two nodes: node 0's
 * "kswapd" sleeps, so its pressure recovers at dirty_pressure_recovery steps
 * per second from the time of the last write; node 1's is awake and stays.
 * Mode node shows the average weighted 1:3.
 *
 * $DPSIM_BUGS (comma-separated) plants one fault each, for the tests that
 * dpfuzz finds it:
 *   plus      a leading '+' is accepted (kstrtouint does this)
 *   nul       the value ends at the first NUL (kstrtouint and sysfs_streq)
 *   wrap      numbers are taken modulo 2^32
 *   offset    the file position is ignored (split writes accepted)
 *   ignore    valid writes return success but change nothing
 *   mode      an invalid write to dirty_pressure_mode sets it to global
 *   efault    an unreadable buffer fails with EINVAL instead of EFAULT
 *   decay     a rejected dirty_pressure write lowers node 1 by one
 *   ro        writes to the read-only files are "accepted"
 *   racy      a pressure write sets one node, sleeps 20 ms, sets the other
 *   eacces    read-only files refuse to open for writing (EACCES), as for
 *             a user without CAP_DAC_OVERRIDE (not a fault)
 *
 * $DPSIM_LAG_MS (not a fault): a write's stamp lags CLOCK_MONOTONIC by
 * that much, as jiffies do in a guest whose timekeeping vCPU is late
 * with its tick (TCG on a busy host), so recovery runs ahead of the time
 * dpfuzz measured by the lag times the rate.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PMAX 1024
#define MAXFD 4096

enum { F_PRESSURE, F_NODE, F_MODE, F_RECOVERY, F_NODES, NF };
static const char *const names[NF] = {
	"dirty_pressure", "dirty_pressure_node", "dirty_pressure_mode",
	"dirty_pressure_recovery", "dirty_pressure_nodes",
};
static const char *const modes[3] = { "off", "global", "node" };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* snap: what a read at position 0 saw; later reads continue in it, as in
 * seq_file, so a value changed by another thread between two read() calls
 * cannot tear ("1\n" then the "\n" of "10\n") */
static struct { int used, file, acc, snaplen; long pos; char snap[64]; } fds[MAXFD];
static struct { long base, cur; double stamp; } node[2];
static int mode = 1, inited;
static long recovery = 1;
static double lag_s;	/* $DPSIM_LAG_MS, in seconds */
static char dir[4096];
static char bugs[256];

static int (*real_open)(const char *, int, ...);
static int (*real_close)(int);
static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);

static int bug(const char *b)
{
	size_t n = strlen(b);

	for (const char *p = bugs; (p = strstr(p, b)); p += n)
		if ((p == bugs || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return 1;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void init(void)
{
	const char *d = getenv("DPSIM_DIR"), *b = getenv("DPSIM_BUGS");
	const char *lag = getenv("DPSIM_LAG_MS");

	if (inited)
		return;
	real_open = dlsym(RTLD_NEXT, "open");
	real_close = dlsym(RTLD_NEXT, "close");
	real_read = dlsym(RTLD_NEXT, "read");
	real_write = dlsym(RTLD_NEXT, "write");
	snprintf(dir, sizeof(dir), "%s", d ? d : "");
	snprintf(bugs, sizeof(bugs), "%s", b ? b : "");
	lag_s = lag ? atof(lag) / 1000.0 : 0.0;
	for (int i = 0; i < 2; i++) {
		node[i].base = node[i].cur = PMAX;
		node[i].stamp = now();
	}
	inited = 1;
}

static int which(const char *path)
{
	size_t n = strlen(dir);

	if (!n || strncmp(path, dir, n) || path[n] != '/')
		return -1;
	for (int f = 0; f < NF; f++)
		if (!strcmp(path + n + 1, names[f]))
			return f;
	return -1;
}

static long value(int i)
{
	double v;

	if (i == 1)		/* kswapd awake: no recovery */
		return node[i].cur;
	v = (double)node[i].base + (double)recovery * (now() - node[i].stamp);
	if (v > PMAX)
		v = PMAX;
	if ((long)v > node[i].cur)
		node[i].cur = (long)v;
	return node[i].cur;
}

static long global(void)
{
	long a = value(0), b = value(1);

	if (mode == 2)
		return (a * 1 + b * 3) / 4;
	return a < b ? a : b;
}

static void set_node(int i, long v)
{
	node[i].base = node[i].cur = v;
	node[i].stamp = now() - lag_s;
}

static int content(int f, char *out, size_t size)
{
	switch (f) {
	case F_PRESSURE: return snprintf(out, size, "%ld\n", global());
	case F_NODE: return snprintf(out, size, "-1\n");
	case F_MODE: return snprintf(out, size, "%s\n", modes[mode]);
	case F_RECOVERY: return snprintf(out, size, "%ld\n", recovery);
	default: return snprintf(out, size, "0 %ld\n1 %ld\n", value(0), value(1));
	}
}

/* kstrtouint(s, 10) as documented (no sign), over exactly n bytes */
static int parse_uint(const char *s, size_t n, long *v)
{
	unsigned long long r = 0;
	size_t i = 0;

	if (bug("nul"))
		n = strnlen(s, n);
	if (bug("plus") && n && s[0] == '+')
		i++;
	if (i == n || s[i] < '0' || s[i] > '9')
		return -EINVAL;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		r = r * 10 + (unsigned long long)(s[i] - '0');
		if (r > 0xffffffffull) {
			if (!bug("wrap"))
				return -EINVAL;
			r &= 0xffffffffull;
		}
	}
	if (i < n && s[i] == '\n')
		i++;
	if (i != n)
		return -EINVAL;
	*v = (long)r;
	return 0;
}

static int parse_mode(const char *s, size_t n)
{
	if (bug("nul"))
		n = strnlen(s, n);
	if (n && s[n - 1] == '\n')
		n--;
	for (int i = 0; i < 3; i++)
		if (strlen(modes[i]) == n && !memcmp(s, modes[i], n))
			return i;
	return -EINVAL;
}

/* the kernel's write: dp_copy_write and the file's own checks */
static ssize_t sim_write(int fd, const void *ubuf, size_t count, long pos)
{
	int f = fds[fd].file, r;
	char buf[16];
	long v = 0;

	if (!(fds[fd].acc & 2))
		return -EBADF;
	if (f == F_NODE || f == F_NODES)
		return bug("ro") ? (ssize_t)count : -EINVAL;
	if ((uintptr_t)ubuf >= 0x800000000000ull)
		return bug("efault") ? -EINVAL : -EFAULT;	/* access_ok */
	if ((pos && !bug("offset")) || !count || count >= sizeof(buf))
		goto einval;
	{
		struct iovec l = { buf, count }, rm = { (void *)ubuf, count };

		if (process_vm_readv(getpid(), &l, 1, &rm, 1, 0) != (ssize_t)count)
			return bug("efault") ? -EINVAL : -EFAULT;
	}
	buf[count] = '\0';
	if (f == F_MODE) {
		if ((r = parse_mode(buf, count)) < 0)
			goto einval;
		if (!bug("ignore"))
			mode = r;
	} else {
		if (parse_uint(buf, count, &v) < 0 || v > PMAX ||
		    (f == F_RECOVERY && v < 1))
			goto einval;
		if (bug("ignore"))
			;
		else if (f == F_RECOVERY)
			recovery = v;
		else if (bug("racy")) {
			/* half the writers set node 0 first, half node 1:
			 * racing writes end up mixed */
			int first = (int)(v / 256) & 1;

			value(0);
			set_node(first, v);
			pthread_mutex_unlock(&lock);
			usleep(20000);
			pthread_mutex_lock(&lock);
			value(0);
			set_node(!first, v);
		} else {
			value(0);
			set_node(0, v);
			set_node(1, v);
		}
	}
	return (ssize_t)count;
einval:
	if (f == F_MODE && bug("mode"))
		mode = 1;
	if (f == F_PRESSURE && bug("decay") && node[1].cur > 0)
		node[1].cur--, node[1].base = node[1].cur;
	return -EINVAL;
}

static ssize_t sim_read(int fd, void *out, size_t count, long pos)
{
	int n;

	if (!(fds[fd].acc & 1))
		return -EBADF;
	if (pos == 0 || fds[fd].snaplen < 0) {
		n = content(fds[fd].file, fds[fd].snap, sizeof(fds[fd].snap));
		/* snprintf's length is what it would have written */
		fds[fd].snaplen = n < (int)sizeof(fds[fd].snap) ? n : (int)sizeof(fds[fd].snap) - 1;
	}
	n = fds[fd].snaplen;
	if (pos >= n)
		return 0;
	if (count > (size_t)(n - pos))
		count = (size_t)(n - pos);
	memcpy(out, fds[fd].snap + pos, count);
	return (ssize_t)count;
}

static int sim_open(const char *path, int flags, mode_t m, int *handled)
{
	int f, fd, acc;

	init();
	*handled = 0;
	if (!path || (f = which(path)) < 0)
		return real_open(path, flags, m);
	*handled = 1;
	acc = (flags & O_ACCMODE) == O_RDONLY ? 1 :
	      (flags & O_ACCMODE) == O_WRONLY ? 2 : 3;
	if ((acc & 2) && (f == F_NODE || f == F_NODES) && bug("eacces")) {
		errno = EACCES;
		return -1;
	}
	fd = real_open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
	if (fd < 0)
		return -1;
	if (fd >= MAXFD) {
		real_close(fd);
		errno = EMFILE;
		return -1;
	}
	pthread_mutex_lock(&lock);
	fds[fd].used = 1;
	fds[fd].file = f;
	fds[fd].acc = acc;
	fds[fd].pos = 0;
	fds[fd].snaplen = -1;
	pthread_mutex_unlock(&lock);
	return fd;
}

static int ours(int fd)
{
	init();
	return fd >= 0 && fd < MAXFD && fds[fd].used;
}

#define RET(expr) do { ssize_t r_ = (expr); pthread_mutex_unlock(&lock); \
	if (r_ < 0) { errno = (int)-r_; return -1; } return r_; } while (0)

int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t m = 0;
	int h;

	va_start(ap, flags);
	if (flags & O_CREAT)
		m = va_arg(ap, mode_t);
	va_end(ap);
	return sim_open(path, flags, m, &h);
}

int open64(const char *path, int flags, ...)
	__attribute__((alias("open")));

int __open_2(const char *path, int flags)
{
	int h;

	return sim_open(path, flags, 0, &h);
}

int close(int fd)
{
	if (ours(fd)) {
		pthread_mutex_lock(&lock);
		fds[fd].used = 0;
		pthread_mutex_unlock(&lock);
	}
	return real_close(fd);
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t n;

	if (!ours(fd))
		return real_read(fd, buf, count);
	pthread_mutex_lock(&lock);
	n = sim_read(fd, buf, count, fds[fd].pos);
	if (n > 0)
		fds[fd].pos += n;
	RET(n);
}

ssize_t pread(int fd, void *buf, size_t count, off_t off)
{
	ssize_t (*rp)(int, void *, size_t, off_t) = dlsym(RTLD_NEXT, "pread");

	if (!ours(fd))
		return rp(fd, buf, count, off);
	pthread_mutex_lock(&lock);
	RET(sim_read(fd, buf, count, (long)off));
}

ssize_t write(int fd, const void *buf, size_t count)
{
	ssize_t n;

	if (!ours(fd))
		return real_write(fd, buf, count);
	pthread_mutex_lock(&lock);
	n = sim_write(fd, buf, count, fds[fd].pos);
	if (n > 0)
		fds[fd].pos += n;
	RET(n);
}

ssize_t pwrite(int fd, const void *buf, size_t count, off_t off)
{
	ssize_t (*rp)(int, const void *, size_t, off_t) = dlsym(RTLD_NEXT, "pwrite");

	if (!ours(fd))
		return rp(fd, buf, count, off);
	/* seq_open() clears FMODE_PWRITE: the VFS says ESPIPE; "offset"
	 * lets it through to the file, which then ignores the position */
	pthread_mutex_lock(&lock);
	RET(bug("offset") ? sim_write(fd, buf, count, (long)off) : -ESPIPE);
}

off_t lseek(int fd, off_t off, int whence)
{
	off_t (*rl)(int, off_t, int) = dlsym(RTLD_NEXT, "lseek");
	long p;

	if (!ours(fd))
		return rl(fd, off, whence);
	pthread_mutex_lock(&lock);
	p = whence == SEEK_SET ? (long)off :
	    whence == SEEK_CUR ? fds[fd].pos + (long)off : -1;
	if (p < 0)
		RET(-EINVAL);
	fds[fd].pos = p;
	RET(p);
}
