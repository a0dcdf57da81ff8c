/* dpfuzz: the state the five files show, and the model of what they may
 * show (see "State that moves by itself" at the top of dpfuzz.c). */
#include "dpfuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* file f's whole content, NUL-terminated; 0 or -errno */
static int read_whole_file(int f, char *buf, size_t size)
{
	size_t o = 0;
	int fd = open(file_path[f], O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (o + 1 < size) {
		ssize_t n = read(fd, buf + o, size - 1 - o);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		o += (size_t)n;
	}
	buf[o] = '\0';
	close(fd);
	return 0;
}

/* a whole line "<integer>\n" */
static int parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || end == s || strcmp(end, "\n") != 0 ? -1 : 0;
}

/* a whole line "<mode name>\n": 0 with s->mode set, else non-zero */
static int parse_mode(const char *buf, struct state *s)
{
	s->mode = -1;
	for (int i = 0; i < 3; i++) {
		size_t n = strlen(mode_names[i]);

		if (!strncmp(buf, mode_names[i], n) && !strcmp(buf + n, "\n"))
			s->mode = i;
	}
	return s->mode < 0;
}

/* lines "<nid> <pressure>\n", at least one: 0, else non-zero */
static int parse_nodes(const char *buf, struct state *s)
{
	const char *p = buf;
	char *end;
	int e = 0;

	s->nn = 0;
	while (*p && !e) {
		long a, b;

		errno = 0;
		a = strtol(p, &end, 10);
		e = errno || end == p || *end != ' ';
		if (e)
			break;
		p = end + 1;
		b = strtol(p, &end, 10);
		e = errno || end == p || *end != '\n' || s->nn == MAXNODES;
		if (e)
			break;
		p = end + 1;
		s->nid[s->nn] = (int)a;
		s->val[s->nn++] = b;
	}
	return e || s->nn == 0;
}

static int parse_file(int f, const char *buf, struct state *s)
{
	switch (f) {
	case FILE_PRESSURE:
		return parse_long(buf, &s->pressure);
	case FILE_NODE:
		return parse_long(buf, &s->node);
	case FILE_RECOVERY:
		return parse_long(buf, &s->recovery);
	case FILE_MODE:
		return parse_mode(buf, s);
	default:
		return parse_nodes(buf, s);
	}
}

/* all five files: 0, or -1 with why filled */
int read_state(struct state *s, char *why, size_t wsize)
{
	static __thread char buf[16384];
	int e;

	for (int f = 0; f < NFILES; f++) {
		if ((e = read_whole_file(f, buf, sizeof(buf)))) {
			snprintf(why, wsize, "cannot read %s: %s", file_path[f],
				 strerror(-e));
			return -1;
		}
		if (parse_file(f, buf, s)) {
			char r[64];

			render_write(buf, strlen(buf), buf, r, sizeof(r));
			snprintf(why, wsize, "cannot parse %s: %s", file_path[f], r);
			return -1;
		}
	}
	return 0;
}

/* the highest pressure the model allows at now */
long band_high(const struct model *m, uint64_t now)
{
	double dt = (double)(now - m->t_p) / 1e9 + SLACK_S;
	double hi = (double)m->p + (double)m->rate_max * dt + 1;

	return hi >= PMAX ? PMAX : (long)hi;
}

/* mode, recovery, dirty_pressure_node and the node list: exactly */
static int settings_mismatch(const struct model *m, const struct state *s,
			     char *why, size_t wsize)
{
	if (s->mode != m->mode) {
		snprintf(why, wsize, "mode is %s, want %s",
			 s->mode < 0 ? "unreadable" : mode_names[s->mode],
			 mode_names[m->mode]);
		return 1;
	}
	if (s->recovery != m->recovery) {
		snprintf(why, wsize, "recovery is %ld, want %ld", s->recovery,
			 m->recovery);
		return 1;
	}
	if (s->node != m->node) {
		snprintf(why, wsize, "dirty_pressure_node is %ld, want %ld",
			 s->node, m->node);
		return 1;
	}
	if (s->nn != m->nn) {
		snprintf(why, wsize, "%d nodes listed, want %d", s->nn, m->nn);
		return 1;
	}
	return 0;
}

/* Is s what m allows at now?  0, or 1 with why.  Updates the per-node
 * values last seen (only one thread checks at a time). */
int model_mismatch(struct model *m, const struct state *s, uint64_t now,
		   char *why, size_t wsize)
{
	long hi = band_high(m, now);

	if (settings_mismatch(m, s, why, wsize))
		return 1;
	for (int i = 0; i < s->nn; i++) {
		if (s->nid[i] != m->nid[i]) {
			snprintf(why, wsize, "node list changed at %d", i);
			return 1;
		}
		if (s->val[i] < m->last[i] || s->val[i] > hi) {
			snprintf(why, wsize,
				 "node %d pressure %ld, want %ld..%ld (written %ld)",
				 s->nid[i], s->val[i], m->last[i], hi, m->p);
			return 1;
		}
	}
	if (s->pressure < m->p || s->pressure > hi) {
		snprintf(why, wsize, "pressure %ld, want %ld..%ld", s->pressure,
			 m->p, hi);
		return 1;
	}
	for (int i = 0; i < s->nn; i++)
		m->last[i] = s->val[i];
	return 0;
}

/* pressure p written at t: every node set to it */
void model_set_pressure(struct model *m, long p, uint64_t t)
{
	m->p = p;
	m->t_p = t;
	m->rate_max = m->recovery;
	for (int i = 0; i < m->nn; i++)
		m->last[i] = p;
}

void model_set_recovery(struct model *m, long rate)
{
	m->recovery = rate;
	if (rate > m->rate_max)
		m->rate_max = rate;
}

/*
 * Which of n racing valid writes of vals[] to file f (made from t0 on) the
 * state s shows at now: m set to it and its index, or -1 with why.  For the
 * pressure the highest value the state fits wins: a node's value is its
 * last write plus recovery, never below it, and with the slack a band
 * from a lower racer can reach a higher one's value (271 fitted a state of
 * 783 at 1024 steps/s), after which the real winner's recovery read as a
 * finding a jiffy later.  Mode and recovery are matched exactly.
 */
int racer_pick(struct model *m, int f, const long *vals, int n, uint64_t t0,
	       uint64_t now, const struct state *s, char *why, size_t wsize)
{
	struct model best = *m;
	int hit = -1;

	for (int i = 0; i < n; i++) {
		struct model t = *m;

		if (f == FILE_PRESSURE)
			/* any racing write may have been the last on a node */
			model_set_pressure(&t, vals[i], t0);
		else if (f == FILE_MODE)
			t.mode = (int)vals[i];
		else
			model_set_recovery(&t, vals[i]);
		if (model_mismatch(&t, s, now, why, wsize))
			continue;
		if (hit < 0 || (f == FILE_PRESSURE && vals[i] > vals[hit])) {
			best = t;
			hit = i;
		}
	}
	if (hit >= 0)
		*m = best;
	return hit;
}
