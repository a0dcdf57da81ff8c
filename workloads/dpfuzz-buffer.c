/* dpfuzz: random numbers, the write buffer each thread fills, and the two
 * kinds of trouble it reports (findings and I/O errors). */
#include "dpfuzz.h"

#include <stdlib.h>
#include <string.h>

pthread_mutex_t finding_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t findings, io_errors, reader_checks;
char first_finding[512];

uint64_t rand_below(struct fuzzer *x, uint64_t n)
{
	return n ? rand64(&x->rng) % n : 0;
}

void buf_clear(struct fuzzer *x)
{
	x->len = 0;
	x->ptr = x->buf;
}

void buf_append(struct fuzzer *x, const void *s, size_t n)
{
	if (x->len + n > WCAP)
		n = WCAP - x->len;
	memcpy(x->buf + x->len, s, n);
	x->len += n;
}

void buf_puts(struct fuzzer *x, const char *s)
{
	buf_append(x, s, strlen(s));
}

void buf_printf(struct fuzzer *x, const char *fmt, ...)
{
	char t[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(t, sizeof(t), fmt, ap);
	va_end(ap);
	if (n > 0)
		buf_append(x, t, (size_t)n < sizeof(t) ? (size_t)n : sizeof(t) - 1);
}

void buf_maybe_newline(struct fuzzer *x)
{
	if (rand_below(x, 2))
		buf_puts(x, "\n");
}

/* printable rendering of a write for a finding */
void render_write(const char *b, size_t len, const void *ptr, char *out,
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

void finding(int f, int c, const struct fuzzer *x, const char *fmt, ...)
{
	char what[256], w[200], line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (x)
		render_write(x->buf, x->len, x->ptr, w, sizeof(w));
	else
		snprintf(w, sizeof(w), "-");
	snprintf(line, sizeof(line), "%s %s: write %s: %s", file_name[f],
		 class_name[c], w, what);
	pthread_mutex_lock(&finding_lock);
	if (!findings)
		snprintf(first_finding, sizeof(first_finding), "%s", line);
	if (findings++ < cfg.max_findings)
		fprintf(stderr, "%s: %s\n", prog, line);
	pthread_mutex_unlock(&finding_lock);
}

void io_error(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&finding_lock);
	if (io_errors++ < cfg.max_findings) {
		fprintf(stderr, "%s: ", prog);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	pthread_mutex_unlock(&finding_lock);
}

int fuzzer_init(struct fuzzer *x, uint64_t seed)
{
	memset(x, 0, sizeof(*x));
	x->rng = seed;
	x->buf = malloc(WCAP + 64);
	x->ptr = x->buf;
	return x->buf ? 0 : -1;
}

void counts_add(struct counts *a, const struct counts *b)
{
	a->tried += b->tried;
	a->rejected += b->rejected;
	a->accepted_bad += b->accepted_bad;
	a->wrong_errno += b->wrong_errno;
	a->state_changed += b->state_changed;
	a->valid_ok += b->valid_ok;
}

void fuzzer_merge(struct fuzzer *to, const struct fuzzer *from)
{
	for (int f = 0; f < NFILES; f++)
		for (int c = 0; c < NCLASSES; c++)
			counts_add(&to->counts[f][c], &from->counts[f][c]);
	to->resyncs += from->resyncs;
}
