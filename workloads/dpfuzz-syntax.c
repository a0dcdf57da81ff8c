/* dpfuzz: the classes of malformed text - non_numeric, trailing_garbage,
 * nul_byte and empty. */
#include "dpfuzz.h"

#include <string.h>

const char *const non_numeric[] = {
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

/* class non_numeric: letters, hex, floats, other scripts' digits, symbols,
 * binary */
void gen_non_numeric(struct fuzzer *x, int f, const struct model *m)
{
	long v;
	size_t k;

	(void)m;
	if (rand_below(x, 3)) {
		const char *s = non_numeric[rand_below(x, ARRAY_LEN(non_numeric))];

		/* the mode names are valid for the mode file */
		if (f == FILE_MODE && contract_valid(FILE_MODE, s, strlen(s), &v))
			s = "0x1";
		buf_puts(x, s);
		return;
	}
	/* bytes that are neither digits nor letters, so no number and no
	 * mode name, nor NUL (class nul_byte) */
	k = 1 + rand_below(x, 15);
	for (size_t i = 0; i < k; i++) {
		char ch;

		do
			ch = (char)(1 + rand_below(x, 255));
		while ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
		       (ch >= 'A' && ch <= 'Z'));
		buf_append(x, &ch, 1);
	}
}

/* class trailing_garbage: a valid value with characters before or after
 * it, a second value after a newline, a space or newline inside */
void gen_trailing(struct fuzzer *x, int f, const struct model *m)
{
	char t[64];
	size_t k;

	valid_value_text(x, f, m, t, sizeof(t));
	switch (rand_below(x, 4)) {
	case 0:
		buf_puts(x, junk_before[rand_below(x, ARRAY_LEN(junk_before))]);
		buf_puts(x, t);
		buf_maybe_newline(x);
		return;
	case 1:
		buf_puts(x, t);
		buf_puts(x, "\n");
		buf_puts(x, t);
		return;
	case 2:	/* a space inside */
		if (strlen(t) > 1) {
			k = 1 + rand_below(x, strlen(t) - 1);
			buf_append(x, t, k);
			buf_puts(x, rand_below(x, 2) ? " " : "\n");
			buf_puts(x, t + k);
			return;
		}
		/* fall through */
	default:
		buf_puts(x, t);
		buf_puts(x, junk_after[rand_below(x, ARRAY_LEN(junk_after))]);
		return;
	}
}

/* class nul_byte: a NUL after, before or inside a valid value */
void gen_nul(struct fuzzer *x, int f, const struct model *m)
{
	char t[64];
	size_t k;

	valid_value_text(x, f, m, t, sizeof(t));
	switch (rand_below(x, 6)) {
	case 0: buf_puts(x, t); buf_append(x, "\0", 1); break;
	case 1: buf_puts(x, t); buf_append(x, "\n\0", 2); break;
	case 2:
		buf_puts(x, t);
		buf_append(x, "\0", 1);
		buf_puts(x, non_numeric[rand_below(x, 20)]);
		break;
	case 3: buf_append(x, "\0", 1); buf_puts(x, t); buf_maybe_newline(x); break;
	case 4:
		k = strlen(t) > 1 ? 1 + rand_below(x, strlen(t) - 1) : 1;
		buf_append(x, t, k);
		buf_append(x, "\0", 1);
		buf_puts(x, t + k);
		break;
	default: {
		/* drawn in this order: the length, then which bytes (as
		 * gcc evaluated the arguments of the call this was) */
		size_t n = rand_below(x, 2) + 1;

		buf_append(x, rand_below(x, 2) ? "\0" : "\0\n", n);
		break;
	}
	}
}

/* class empty: a zero-length write, or only a newline */
void gen_empty(struct fuzzer *x, int f, const struct model *m)
{
	(void)f;
	(void)m;
	if (rand_below(x, 3))
		return;		/* zero bytes */
	buf_puts(x, "\n");
}
