/* Unit test of dpfuzz's racer_pick() (workloads/dpfuzz-state.c, compiled in
 * here with stand-ins for the globals it does not use): after racing valid
 * writes of the pressure, the winner is the highest value the state fits.
 * The case is a CI rehearsal's (2026-12-06, 40-badinput, mode node): racers
 * wrote 271, 6, 514 and 783 at 1024 steps/s, the state showed 783, the
 * first fitting racer (271: 783 is inside its band by the 0.5 s slack) was
 * taken, and a jiffy later the real winner's recovery (787) was reported
 * as an invalid write that changed the state.  Exit 0 when it passes. */
#include "../../workloads/dpfuzz-state.c"

#include <stdio.h>

char file_path[NFILES][4096];
const char *const mode_names[3] = { "off", "global", "node" };

void render_write(const char *b, size_t len, const void *ptr, char *out,
		  size_t osize)
{
	(void)b; (void)len; (void)ptr;
	snprintf(out, osize, "?");
}

static void state_at(struct state *s, long v)
{
	s->pressure = v;
	s->node = -1;
	s->recovery = 1024;
	s->mode = 2;
	s->nn = 2;
	for (int i = 0; i < 2; i++) {
		s->nid[i] = i;
		s->val[i] = v;
	}
}

int main(void)
{
	static struct model m;
	static struct state s;
	const long vals[] = { 271, 6, 514, 783 };
	const uint64_t t0 = 10000000000ull, ms = 1000000ull;
	char why[256] = "";
	int hit;

	m.p = 1024;
	m.t_p = t0 - 1000 * ms;
	m.recovery = m.rate_max = 1024;
	m.mode = 2;
	m.node = -1;
	m.nn = 2;
	for (int i = 0; i < 2; i++) {
		m.nid[i] = i;
		m.last[i] = 1024;
	}
	state_at(&s, 783);
	hit = racer_pick(&m, FILE_PRESSURE, vals, 4, t0, t0 + ms / 5, &s,
			 why, sizeof(why));
	if (hit != 3 || m.p != 783) {
		printf("FAIL: racer_pick_highest: picked %d (p %ld), want 3 (783)\n",
		       hit, m.p);
		return 1;
	}
	/* a jiffy later the winner has recovered 4 steps: no finding */
	state_at(&s, 787);
	if (model_mismatch(&m, &s, t0 + 2 * ms / 5, why, sizeof(why))) {
		printf("FAIL: racer_pick_then_recovery: %s\n", why);
		return 1;
	}
	/* a state none of them explains is still none of them */
	m.p = 1024;
	m.t_p = t0 - 1000 * ms;
	for (int i = 0; i < 2; i++)
		m.last[i] = 1024;
	state_at(&s, 3);
	hit = racer_pick(&m, FILE_PRESSURE, vals, 4, t0, t0 + ms / 5, &s,
			 why, sizeof(why));
	if (hit != -1) {
		printf("FAIL: racer_pick_none: picked %d for a state of 3\n", hit);
		return 1;
	}
	printf("PASS\n");
	return 0;
}
