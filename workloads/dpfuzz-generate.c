/* dpfuzz: one invalid write of a given class, by the class's generator. */
#include "dpfuzz.h"

typedef void generator(struct fuzzer *x, int f, const struct model *m);

/* the classes made of one write; partial and concurrent are sequences of
 * writes (dpfuzz-partial.c, dpfuzz-concurrent.c) */
static generator *const generators[NCLASSES] = {
	[CLASS_OUT_OF_RANGE] = gen_out_of_range,
	[CLASS_NEGATIVE] = gen_negative,
	[CLASS_PLUS_SIGN] = gen_plus_sign,
	[CLASS_HUGE] = gen_huge,
	[CLASS_NON_NUMERIC] = gen_non_numeric,
	[CLASS_TRAILING] = gen_trailing,
	[CLASS_NUL] = gen_nul,
	[CLASS_EMPTY] = gen_empty,
	[CLASS_OVERSIZE] = gen_oversize,
	[CLASS_BAD_BUFFER] = gen_bad_buffer,
	[CLASS_READ_ONLY] = gen_read_only,
};

/* Fill x's buffer with one write of class c for file f. */
void gen_invalid(struct fuzzer *x, int f, int c, const struct model *m)
{
	long v;

	buf_clear(x);
	if (generators[c])
		generators[c](x, f, m);
	/* never hand a valid write to an invalid class (cannot happen with
	 * the generators; cheap to make sure) */
	if (x->ptr == x->buf && contract_valid(f, x->buf, x->len, &v))
		buf_puts(x, "\x01");
}
