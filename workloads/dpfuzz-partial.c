/* dpfuzz: class partial - writes that are not one whole write at position
 * 0 of a fresh descriptor: a value split over two write()s, pwrite() at an
 * offset, read() or lseek() before write(), two writes on one descriptor.
 * Each write is judged at the position the kernel sees (see "Partial
 * writes" at the top of dpfuzz.c). */
#include "dpfuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

enum {
	PARTIAL_SPLIT, PARTIAL_PWRITE, PARTIAL_READ_FIRST, PARTIAL_SEEK_FIRST,
	PARTIAL_TWO_WRITES, NPARTIAL
};

/* a write of x's buffer on fd at the kernel position *pos (pwrite() at off
 * when off >= 0) */
static void write_at_position(struct fuzzer *x, struct model *m, int f, int fd,
			      long *pos, long off)
{
	long at = off >= 0 ? off : *pos;
	uint64_t t0 = now_ns();
	ssize_t n = write_counted(f, fd, x->ptr, x->len, off);
	int e = n < 0 ? errno : 0;

	x->is_pwrite = off >= 0;
	judge(x, m, f, CLASS_PARTIAL, at, t0, n, e, 1);
	x->is_pwrite = 0;
	/* the kernel advances the position by what it took, valid or not */
	if (n > 0 && off < 0)
		*pos += n;
}

/* the first piece of s, then x's buffer holds the rest */
static void split_first_piece(struct fuzzer *x, struct model *m, int f, int fd,
			      long *pos, const char *s)
{
	size_t k = 1 + rand_below(x, strlen(s) - 1);

	buf_clear(x);
	buf_append(x, s, k);
	write_at_position(x, m, f, fd, pos, -1);
	buf_clear(x);
	buf_puts(x, s + k);
}

/* read() some bytes first: 0 with *pos after them, or -1 */
static int read_first(struct fuzzer *x, int f, int fd, long *pos)
{
	char tmp[16];
	ssize_t n = read(fd, tmp, 1 + rand_below(x, sizeof(tmp) - 1));

	if (n <= 0) {
		io_error("cannot read %s: %s", file_path[f],
			 n < 0 ? strerror(errno) : "empty");
		return -1;
	}
	*pos = n;
	return 0;
}

/* lseek() to 1..3 first: 0 with *pos there, or -1 */
static int seek_first(struct fuzzer *x, int f, int fd, long *pos)
{
	off_t o = 1 + (off_t)rand_below(x, 3);

	if (lseek(fd, o, SEEK_SET) != o) {
		io_error("cannot seek %s: %s", file_path[f], strerror(errno));
		return -1;
	}
	*pos = (long)o;
	return 0;
}

/* a whole well-formed write first, then x's buffer holds a second one */
static void first_of_two(struct fuzzer *x, struct model *m, int f, int fd,
			 long *pos)
{
	write_at_position(x, m, f, fd, pos, -1);
	buf_clear(x);
	gen_wellformed(x, f, m);
	buf_maybe_newline(x);
}

/* x's buffer: a well-formed value of at least two bytes, copied to s */
static void wellformed_text(struct fuzzer *x, int f, const struct model *m,
			    char *s)
{
	buf_clear(x);
	gen_wellformed(x, f, m);
	buf_maybe_newline(x);
	if (x->len < 2)
		buf_puts(x, "\n");
	memcpy(s, x->buf, x->len);
	s[x->len] = '\0';
}

void fuzz_partial(struct fuzzer *x, struct model *m, int f)
{
	int how = (int)rand_below(x, NPARTIAL), fd, e = 0;
	int rw = how == PARTIAL_READ_FIRST || how == PARTIAL_SEEK_FIRST;
	long pos = 0, off = -1;
	char s[64];

	wellformed_text(x, f, m, s);
	fd = open_for_write(x, m, f, CLASS_PARTIAL, rw ? O_RDWR : O_WRONLY, 1);
	if (fd < 0)
		return;
	switch (how) {
	case PARTIAL_SPLIT:
		split_first_piece(x, m, f, fd, &pos, s);
		break;
	case PARTIAL_PWRITE:
		off = 1 + (long)rand_below(x, 16);
		break;
	case PARTIAL_READ_FIRST:
		e = read_first(x, f, fd, &pos);
		break;
	case PARTIAL_SEEK_FIRST:
		e = seek_first(x, f, fd, &pos);
		break;
	default:
		first_of_two(x, m, f, fd, &pos);
		break;
	}
	if (!e)
		write_at_position(x, m, f, fd, &pos, off);
	close(fd);
}
