/* dpfuzz: the classes about the buffer rather than its text - oversize
 * (16 bytes, the kernel's buffer, up to 64 KiB) and bad_buffer (one the
 * kernel cannot read). */
#include "dpfuzz.h"

#include <string.h>

/* class oversize: 16 bytes or more */
void gen_oversize(struct fuzzer *x, int f, const struct model *m)
{
	char t[64];
	size_t k;

	valid_value_text(x, f, m, t, sizeof(t));
	switch (rand_below(x, 6)) {
	case 0:	/* a value padded with spaces to 16..64 bytes */
		buf_puts(x, t);
		k = 16 + rand_below(x, 49);
		while (x->len < k)
			buf_puts(x, " ");
		break;
	case 1:
		k = 16 + rand_below(x, 100);
		while (x->len < k)
			buf_puts(x, "\n");
		break;
	case 2:	/* a value followed by NULs: a parser that stopped at its
		 * buffer's end would see a valid value */
		buf_puts(x, t);
		buf_puts(x, "\n");
		k = 16 + rand_below(x, WCAP - 16);
		memset(x->buf + x->len, 0, k - x->len);
		x->len = k;
		break;
	case 3:	/* the value repeated */
		while (x->len < 16)
			buf_puts(x, t);
		break;
	case 4:
		k = 16 + rand_below(x, WCAP - 16);
		for (size_t i = 0; i < k; i++)
			x->buf[i] = (char)rand_below(x, 256);
		x->len = k;
		break;
	default:	/* the value, then 4 KiB of digits */
		buf_puts(x, t);
		k = x->len + 4096;
		while (x->len < k)
			buf_puts(x, "5");
		break;
	}
}

/* class bad_buffer: NULL, unmapped, a valid value's first bytes running
 * into the guard page, a kernel address (EFAULT) */
void gen_bad_buffer(struct fuzzer *x, int f, const struct model *m)
{
	char t[64];
	long v;

	x->len = 1 + rand_below(x, 15);
	switch (rand_below(x, 4)) {
	case 0: x->ptr = NULL; break;
	case 1: x->ptr = guard_page + page_size; break;	/* PROT_NONE */
	case 2:	/* a valid value's first bytes, the rest unmapped */
		valid_value_text(x, f, m, t, sizeof(t));
		v = (long)strlen(t);
		v = v > 1 ? v - 1 : 1;
		memcpy(guard_page + page_size - v, t, (size_t)v);
		x->ptr = guard_page + page_size - v;
		x->len = (size_t)v + 1 + rand_below(x, (uint64_t)(15 - v));
		break;
	default: x->ptr = (void *)(uintptr_t)-4096; break;
	}
}
