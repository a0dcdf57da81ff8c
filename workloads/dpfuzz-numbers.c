/* dpfuzz: the classes of numbers the contract refuses - out_of_range,
 * negative, plus_sign and huge (the ones that wrap to a valid value in 32
 * or 64 bits among them). */
#include "dpfuzz.h"

static const char *const mode_unknown[] = {
	"o", "of", "offf", "0ff", "g", "glob", "globa", "globall", "globe",
	"n", "no", "nod", "nodes", "nodee", "OFF", "Off", "Global", "GLOBAL",
	"Node", "NODE", "oFF", "on", "none", "default", "auto", "true",
	"false", "0", "1", "2", "3", "mode", "numa", "local", "all",
	"global_", "node0", "off1", "\xc3\xb6""ff", "gl\xc3\xb6""bal",
};

static const char *const huge_numbers[] = {
	"18446744073709551616", "18446744073709551617",
	"18446744073709552640", "18446744073709551615",
	"9223372036854775808", "9223372036854775807",
	"99999999999999999999",
	"340282366920938463463374607431768211456",
};

/* for dirty_pressure_mode: a name that is not a mode */
static void unknown_mode_name(struct fuzzer *x)
{
	long v;
	size_t k;

	if (rand_below(x, 4)) {
		buf_puts(x, mode_unknown[rand_below(x, ARRAY_LEN(mode_unknown))]);
		return;
	}
	k = 1 + rand_below(x, 12);
	for (size_t i = 0; i < k; i++)
		buf_printf(x, "%c", (char)('a' + rand_below(x, 26)));
	/* a random word that happens to be a name */
	if (contract_valid(FILE_MODE, x->buf, x->len, &v))
		buf_puts(x, "z");
}

/* class out_of_range: above the maximum (0 for recovery), unknown mode
 * names */
void gen_out_of_range(struct fuzzer *x, int f, const struct model *m)
{
	long v;

	(void)m;
	if (!file_numeric(f)) {
		unknown_mode_name(x);
		buf_maybe_newline(x);
		return;
	}
	switch (rand_below(x, 5)) {
	case 0: v = PMAX + 1 + (long)rand_below(x, 100); break;
	case 1: v = PMAX + 1 + (long)rand_below(x, 1000000000); break;
	case 2: v = f == FILE_RECOVERY ? 0 : PMAX + 1; break;
	case 3: v = (long)(2147483646 + rand_below(x, 3)); break;
	default: v = (long)(4294967294u + rand_below(x, 2)); break;
	}
	buf_printf(x, "%ld", v);
	buf_maybe_newline(x);
}

/* class negative: -0, -1, values that wrap to a valid one, negative mode
 * names */
void gen_negative(struct fuzzer *x, int f, const struct model *m)
{
	if (!file_numeric(f) && rand_below(x, 2)) {
		buf_printf(x, "-%s", mode_names[rand_below(x, 3)]);
		buf_maybe_newline(x);
		return;
	}
	switch (rand_below(x, 7)) {
	case 0: buf_puts(x, "-0"); break;
	case 1: buf_puts(x, "-1"); break;
	case 2: buf_printf(x, "-%ld", any_valid_value(x, FILE_RECOVERY)); break;
	case 3:
		buf_printf(x, "-%llu", (unsigned long long)rand_below(x, 1ull << 31));
		break;
	case 4: buf_puts(x, "-2147483648"); break;
	case 5: buf_puts(x, "-4294967295"); break;
	default:	/* -(2^32 - v): v in 32-bit arithmetic */
		buf_printf(x, "-%llu", 4294967296ull -
			   (unsigned long long)wrap_target(x, f, m));
		break;
	}
	buf_maybe_newline(x);
}

/* class plus_sign: "+" before a valid value, and "++1", "+-1" */
void gen_plus_sign(struct fuzzer *x, int f, const struct model *m)
{
	char t[64];

	switch (rand_below(x, 8)) {
	case 0: buf_puts(x, "++1"); break;
	case 1: buf_puts(x, "+-1"); break;
	default:
		valid_value_text(x, f, m, t, sizeof(t));
		buf_printf(x, "+%s", t);
		break;
	}
	buf_maybe_newline(x);
}

/* class huge: 2^32 + w, k * 2^32 + w, 2^64 and beyond, 16..40 random
 * digits, 10^k + w (w a valid value) */
void gen_huge(struct fuzzer *x, int f, const struct model *m)
{
	unsigned long long w = (unsigned long long)(f == FILE_MODE ?
		(long)rand_below(x, 3) : wrap_target(x, f, m));
	unsigned long long p = 10000000000ull;
	size_t k;

	switch (rand_below(x, 5)) {
	case 0: buf_printf(x, "%llu", (1ull << 32) + w); break;
	case 1:
		buf_printf(x, "%llu", (1ull << 32) * (1 + rand_below(x, 65535)) + w);
		break;
	case 2:
		buf_puts(x, huge_numbers[rand_below(x, ARRAY_LEN(huge_numbers))]);
		break;
	case 3:
		k = 16 + rand_below(x, 25);
		buf_printf(x, "%c", (char)('1' + rand_below(x, 9)));
		for (size_t i = 1; i < k; i++)
			buf_printf(x, "%c", (char)('0' + rand_below(x, 10)));
		break;
	default:
		for (uint64_t i = rand_below(x, 5); i; i--)
			p *= 10;
		buf_printf(x, "%llu", p + w);
		break;
	}
	buf_maybe_newline(x);
}
