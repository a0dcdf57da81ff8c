/* dpanalyze: TSV time series, one row per event: time_s cpu pid <numeric fields>. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include "dpanalyze.h"

int field_is_numeric(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/* slot MAXNODE: DIR/tsv/<event>.tsv, else DIR/tsv/<event>.node<slot>.tsv */
static FILE *tsv_open(const char *outdir, struct event_type *et, int slot)
{
	char path[4096];
	FILE *f;

	if (slot == MAXNODE)
		snprintf(path, sizeof(path), "%s/tsv/%s.tsv", outdir, et->event->name);
	else
		snprintf(path, sizeof(path), "%s/tsv/%s.node%d.tsv", outdir, et->event->name, slot);
	f = fopen(path, "w");
	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	/* big buffers: a 100 MB trace writes a million rows */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	fputs("time_s\tcpu\tpid", f);
	for (int i = 0; i < et->nfields; i++)
		fprintf(f, "\t%s", et->fields[i]->name);
	fputc('\n', f);
	return f;
}

/* printf("%lld") and "%.9f" dominate a large trace's run time; this does not. */
static char *put_int(char *p, long long v)
{
	char digits[24];
	int n = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	if (v < 0)
		*p++ = '-';
	do {
		digits[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n)
		*p++ = digits[--n];
	return p;
}

void tsv_row(const char *outdir, unsigned long long t0, struct event_type *et,
	     const struct tep_record *r, int pid)
{
	char line[4096], *p = line;
	unsigned long long since = r->ts >= t0 ? r->ts - t0 : 0;
	unsigned long long ns = since % 1000000000ULL;
	int slot = MAXNODE;
	long long v;

	if (et->nid) {
		if (read_field(et->nid, r, &v) || v < 0 || v >= MAXNODE)
			return; /* counted in events_with_bad_nid by the analysis where it matters */
		slot = (int)v;
	}
	if (!et->tsv[slot])
		et->tsv[slot] = tsv_open(outdir, et, slot);
	p = put_int(p, (long long)(since / 1000000000ULL));
	*p++ = '.';
	for (unsigned long long div = 100000000ULL; div; div /= 10)
		*p++ = (char)('0' + (ns / div) % 10);
	*p++ = '\t';
	p = put_int(p, r->cpu);
	*p++ = '\t';
	p = put_int(p, pid);
	for (int i = 0; i < et->nfields && p - line < (long)sizeof(line) - 32; i++) {
		*p++ = '\t';
		if (read_field(et->fields[i], r, &v))
			*p++ = '-';
		else
			p = put_int(p, v);
	}
	*p++ = '\n';
	fwrite(line, 1, (size_t)(p - line), et->tsv[slot]);
}

int tsv_close(struct event_type *et)
{
	int rc = 0;

	for (int k = 0; k <= MAXNODE; k++) {
		if (et->tsv[k] && fclose(et->tsv[k]))
			rc = -1;
		et->tsv[k] = NULL;
	}
	return rc;
}
