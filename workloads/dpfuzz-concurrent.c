/* dpfuzz: class concurrent - --threads writers of invalid writes to one
 * file at once while a reader checks the state continuously - and the race
 * of --threads valid writes of distinct values, after which the state must
 * be one of them. */
#include "dpfuzz.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* what the concurrent writers pick from */
static const int single_write_classes[] = {
	CLASS_OUT_OF_RANGE, CLASS_NEGATIVE, CLASS_PLUS_SIGN, CLASS_HUGE,
	CLASS_NON_NUMERIC, CLASS_TRAILING, CLASS_NUL, CLASS_EMPTY,
	CLASS_OVERSIZE, CLASS_BAD_BUFFER, CLASS_READ_ONLY,
};

struct worker {
	pthread_t tid;
	struct fuzzer x;
	struct model *m;
	int f, k;
	pthread_barrier_t *bar;
	atomic_int *done;
	long val;		/* race: the value written */
	ssize_t n;		/* race: what write() returned */
	int e;
};

/* k invalid writes of the classes that apply to f, none checked */
static void *invalid_writer(void *arg)
{
	struct worker *w = arg;
	int cl[ARRAY_LEN(single_write_classes)], ncl = 0;

	for (size_t i = 0; i < ARRAY_LEN(single_write_classes); i++)
		if (class_applies(w->f, single_write_classes[i]))
			cl[ncl++] = single_write_classes[i];
	pthread_barrier_wait(w->bar);
	for (int i = 0; i < w->k && ncl && !stop_signal; i++) {
		int c = cl[rand_below(&w->x, (uint64_t)ncl)], fd;
		ssize_t n;

		gen_invalid(&w->x, w->f, c, w->m);
		fd = open_for_write(&w->x, w->m, w->f, CLASS_CONCURRENT, O_WRONLY, 0);
		if (fd < 0)
			continue;
		n = write_counted(w->f, fd, w->x.ptr, w->x.len, -1);
		judge(&w->x, w->m, w->f, CLASS_CONCURRENT, 0, 0, n,
		      n < 0 ? errno : 0, 0);
		close(fd);
	}
	return NULL;
}

/* the state checked against the model until *done, or a finding */
static void *state_reader(void *arg)
{
	struct worker *w = arg;
	struct state s;
	char why[256];

	pthread_barrier_wait(w->bar);
	while (!atomic_load(w->done)) {
		if (read_state(&s, why, sizeof(why))) {
			io_error("%s", why);
			break;
		}
		pthread_mutex_lock(&finding_lock);
		reader_checks++;
		pthread_mutex_unlock(&finding_lock);
		if (model_mismatch(w->m, &s, now_ns(), why, sizeof(why))) {
			w->x.counts[w->f][CLASS_CONCURRENT].state_changed++;
			finding(w->f, CLASS_CONCURRENT, NULL,
				"seen by the reader: %s", why);
			break;
		}
	}
	return NULL;
}

/* --threads writers of invalid writes to f, a reader checking meanwhile;
 * the state must be what it was */
void fuzz_concurrent(struct fuzzer *x, struct model *m, int f)
{
	struct worker w[MAXTHREADS + 1];
	pthread_barrier_t bar;
	atomic_int done = 0;
	int nt = cfg.threads, started = 0;

	pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
	for (int i = 0; i <= nt; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		if (fuzzer_init(&w[i].x, rand64(&x->rng))) {
			io_error("out of memory");
			break;
		}
		w[i].m = m;
		w[i].f = f;
		w[i].k = 8;
		w[i].bar = &bar;
		w[i].done = &done;
		if (pthread_create(&w[i].tid, NULL,
				   i < nt ? invalid_writer : state_reader, &w[i])) {
			free(w[i].x.buf);
			io_error("cannot start a thread");
			break;
		}
		started++;
	}
	if (started != nt + 1) {
		/* the barrier would never open: cannot happen short of
		 * resource exhaustion, give up loudly */
		fprintf(stderr, "%s: cannot start %d threads\n", prog, nt + 1);
		exit(1);
	}
	for (int i = 0; i < nt; i++)
		pthread_join(w[i].tid, NULL);
	atomic_store(&done, 1);
	pthread_join(w[nt].tid, NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i <= nt; i++) {
		fuzzer_merge(x, &w[i].x);
		free(w[i].x.buf);
	}
	/* the state after all of them */
	buf_clear(x);
	verify(x, m, f, CLASS_CONCURRENT, "after the concurrent writers");
}

/* one valid write of w->val, at the barrier */
static void *valid_racer(void *arg)
{
	struct worker *w = arg;
	char t[32];
	int fd;

	if (w->f == FILE_MODE)
		snprintf(t, sizeof(t), "%s\n", mode_names[w->val]);
	else
		snprintf(t, sizeof(t), "%ld\n", w->val);
	fd = open(file_path[w->f], O_WRONLY | O_CLOEXEC);
	pthread_barrier_wait(w->bar);
	w->n = fd < 0 ? -1 : write_counted(w->f, fd, t, strlen(t), -1);
	w->e = w->n < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	else
		w->e = EBADF;
	return NULL;
}

/* the nt racers' values: distinct, pressures spaced so that the bands stay
 * apart */
static void racer_values(struct fuzzer *x, struct worker *w, int nt, int f,
			 pthread_barrier_t *bar)
{
	for (int i = 0; i < nt; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].f = f;
		w[i].bar = bar;
		if (f == FILE_MODE)
			w[i].val = i;
		else if (f == FILE_RECOVERY)
			w[i].val = 1 + i;
		else
			w[i].val = (long)(i * (PMAX / nt) + rand_below(x, 16));
	}
}

/* the racers run; the time just before they write */
static uint64_t run_racers(struct worker *w, int nt, pthread_barrier_t *bar)
{
	uint64_t t0;

	for (int i = 0; i < nt; i++)
		if (pthread_create(&w[i].tid, NULL, valid_racer, &w[i])) {
			fprintf(stderr, "%s: cannot start a thread\n", prog);
			exit(1);
		}
	t0 = now_ns();
	pthread_barrier_wait(bar);
	for (int i = 0; i < nt; i++)
		pthread_join(w[i].tid, NULL);
	pthread_barrier_destroy(bar);
	return t0;
}

/* --threads valid writes of distinct values to f at once: afterwards the
 * state must be one of them, on every node the same one */
void race_valid_writes(struct fuzzer *x, struct model *m, int f)
{
	struct worker w[MAXTHREADS];
	pthread_barrier_t bar;
	int nt = cfg.threads < 2 ? 2 : cfg.threads, ok = 1, hit = -1;
	struct counts *s = &x->counts[f][CLASS_VALID];
	struct state st;
	char why[256] = "";
	uint64_t t0;

	if (f == FILE_MODE && nt > 3)
		nt = 3;
	pthread_barrier_init(&bar, NULL, (unsigned)nt + 1);
	racer_values(x, w, nt, f, &bar);
	t0 = run_racers(w, nt, &bar);
	s->tried += (uint64_t)nt;
	for (int i = 0; i < nt; i++)
		if (w[i].n < 0) {
			ok = 0;
			snprintf(why, sizeof(why), "racing write of %ld failed: %s",
				 w[i].val, strerror(w[i].e));
		}
	if (ok && read_state(&st, why, sizeof(why))) {
		io_error("%s", why);
		return;
	}
	if (ok) {
		long vals[MAXTHREADS];

		for (int i = 0; i < nt; i++)
			vals[i] = w[i].val;
		hit = racer_pick(m, f, vals, nt, t0, now_ns(), &st, why, sizeof(why));
	}
	if (ok && hit >= 0) {
		s->valid_ok += (uint64_t)nt;
		return;
	}
	s->state_changed++;
	buf_clear(x);
	finding(f, CLASS_VALID, NULL,
		"after %d racing valid writes the state is none of them (%s)",
		nt, why);
	if (f == FILE_PRESSURE)
		model_set_pressure(m, w[0].val, t0);
	resync(x, m);
}
