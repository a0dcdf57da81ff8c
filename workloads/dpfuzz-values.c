/* dpfuzz: valid values - for the valid writes that move the state, as the
 * core that the invalid classes wrap, and written whole to the read-only
 * files (class read_only). */
#include "dpfuzz.h"

/* a recovery rate other than the current one, mostly a slow one (a fast
 * rate widens the band) */
static long pick_new_recovery(struct fuzzer *x, const struct model *m)
{
	long v;

	do {
		switch (rand_below(x, 4)) {
		case 0: v = 1; break;
		case 1: v = PMAX; break;
		default: v = 1 + (long)rand_below(x, 32); break;
		}
	} while (v == m->recovery && rand_below(x, 16));
	if (v == m->recovery)
		v = m->recovery == 1 ? 2 : 1;
	return v;
}

/* a pressure whose band does not contain the current one, so a write that
 * was ignored shows */
static long pick_new_pressure(struct fuzzer *x, const struct model *m)
{
	long v, cur_hi = band_high(m, now_ns());

	for (int i = 0; i < 32; i++) {
		switch (rand_below(x, 8)) {
		case 0: v = 0; break;
		case 1: v = PMAX; break;
		default: v = (long)rand_below(x, PMAX + 1); break;
		}
		if (v > cur_hi || v + 64 + m->recovery < m->p)
			return v;
	}
	return m->p > PMAX / 2 ? 0 : PMAX;
}

/* a valid value for writable f that changes the state (the mode's index
 * for dirty_pressure_mode) */
long pick_new_value(struct fuzzer *x, int f, const struct model *m)
{
	if (f == FILE_MODE)
		return (m->mode + 1 + (long)rand_below(x, 2)) % 3;
	if (f == FILE_RECOVERY)
		return pick_new_recovery(x, m);
	return pick_new_pressure(x, m);
}

/* a value valid for f (pressure's range for the read-only files) */
long any_valid_value(struct fuzzer *x, int f)
{
	if (f == FILE_RECOVERY)
		return 1 + (long)rand_below(x, PMAX);
	return (long)rand_below(x, PMAX + 1);
}

/* a valid value for the wrapping classes, preferably one the state does
 * not already have (so a write that wrongly took effect shows) */
long wrap_target(struct fuzzer *x, int f, const struct model *m)
{
	long v = any_valid_value(x, f);

	for (int i = 0; i < 8; i++) {
		if (f == FILE_PRESSURE &&
		    (v < m->p || v > band_high(m, now_ns()) + 8))
			break;
		if (f != FILE_PRESSURE && v != m->recovery)
			break;
		v = any_valid_value(x, f);
	}
	return v;
}

/* a valid value for f as text: a mode name, or a number */
void valid_value_text(struct fuzzer *x, int f, const struct model *m, char *t,
		      size_t size)
{
	if (f == FILE_MODE)
		snprintf(t, size, "%s", mode_names[rand_below(x, 3)]);
	else
		snprintf(t, size, "%ld", f == FILE_PRESSURE || f == FILE_RECOVERY ?
			 wrap_target(x, f, m) : any_valid_value(x, f));
}

/* "<nid> <pressure>" as dirty_pressure_nodes shows it */
static void gen_node_line(struct fuzzer *x, int f, const struct model *m)
{
	/* drawn in this order: the pressure, then the node (as gcc evaluated
	 * the arguments of the call this was) */
	long pressure = any_valid_value(x, f);
	int nid = m->nid[rand_below(x, (uint64_t)m->nn)];

	buf_printf(x, "%d %ld", nid, pressure);
}

/* append a well-formed value for f, without a newline: one that changes
 * the state for a writable file; for the read-only ones what they show
 * (a node id, "<nid> <pressure>") */
void gen_wellformed(struct fuzzer *x, int f, const struct model *m)
{
	if (f == FILE_MODE)
		buf_puts(x, mode_names[pick_new_value(x, f, m)]);
	else if (f == FILE_NODES)
		gen_node_line(x, f, m);
	else if (f == FILE_NODE)
		buf_printf(x, "%ld", (long)rand_below(x, 3) - 1);
	else
		buf_printf(x, "%ld", file_writable(f) ? pick_new_value(x, f, m) :
			   any_valid_value(x, f));
}

/* class read_only: a well-formed value for a read-only file */
void gen_read_only(struct fuzzer *x, int f, const struct model *m)
{
	gen_wellformed(x, f, m);
	buf_maybe_newline(x);
}

/* a valid write that moves the state, checked to have taken effect */
void valid_write(struct fuzzer *x, struct model *m, int f)
{
	long v = pick_new_value(x, f, m);

	buf_clear(x);
	if (f == FILE_MODE)
		buf_puts(x, mode_names[v]);
	else
		buf_printf(x, "%ld", v);
	buf_maybe_newline(x);
	write_fresh(x, m, f, CLASS_VALID, 1);
}
