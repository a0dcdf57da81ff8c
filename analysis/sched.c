/*
 * Where a --task's time went, from sched:sched_switch: on a CPU; runnable but waiting
 * (switched out in state R, preempted or yielding); blocked (D: I/O, and the killable
 * sleeps of balance_dirty_pages() pauses); sleeping (S, I); stopped (T, t, P).  And,
 * for the waits, who ran on the CPU it was switched out of until it ran again.
 *
 * Why: a writer's throughput moves with its CPU share as much as with the series.  On
 * 8node-tiny the unbound dirtier shares node 0's CPU with the hog and spends about half
 * its life runnable but waiting (docs/matrix/README.md); without this the report cannot
 * tell that from a throttle.
 *
 * Each process of a task name counts from its first switch in the trace (from the time
 * its CPU switched to it, when the trace shows that) until it exits (switched out as
 * X or Z) or the trace ends, so on_cpu + runnable + blocked + sleeping + stopped = span.
 * Metrics: sched.switches, sched.task.COMM.{instances, <times and shares>, preempted_by,
 * by_start.N} with N = 1, 2, ... the processes of that name in the order they first ran.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "dpanalyze.h"

#define MAX_INSTANCES 64	/* processes followed across every --task name */
#define MAX_CPUS 256
#define MAX_RUNNERS 12		/* names kept in preempted_by; the rest add to "other" */
#define NAME_LEN 16

/* The report states of include/trace/events/sched.h's __trace_sched_switch_state() */
#define STATE_REPORT_MASK 0xff	/* below TASK_REPORT_MAX (0x100: "+", preempted) */
#define STATE_S 0x01
#define STATE_D 0x02
#define STATE_EXITED 0x30	/* EXIT_DEAD, EXIT_ZOMBIE */
#define STATE_I 0x80		/* TASK_REPORT_IDLE */

enum wait { ON_CPU, RUNNABLE, BLOCKED, SLEEPING, STOPPED, NWAIT };
static const char *const wait_name[NWAIT] = { "on_cpu", "runnable", "blocked", "sleeping",
					       "stopped" };

struct runner_time {
	char name[NAME_LEN];
	double s;
};

struct runners {
	struct runner_time r[MAX_RUNNERS];
	int n;
	double other;
};

struct instance {
	int pid, task;		/* task: index into ctx->tasks */
	int exited;
	enum wait state;	/* since `since` */
	int cpu;		/* the CPU it was switched in on while ON_CPU, or -1 */
	double since;
	double s[NWAIT];
	int wait_cpu;		/* switched out runnable there; -1 otherwise */
	double wait_from;
	struct runners preempted_by;
};

struct cpu_now {
	int known;
	int pid;
	char name[NAME_LEN];	/* folded, as preempted_by names it */
	double since;
	unsigned long long waiting;	/* instances switched out runnable on this CPU */
};

struct sched {
	struct analysis_context *ctx;
	struct tep_event *sched_switch;
	struct tep_format_field *prev_comm, *prev_pid, *prev_state, *next_comm, *next_pid;
	unsigned long switches;
	struct instance inst[MAX_INSTANCES];
	int ninst, instances_dropped;
	struct cpu_now cpu[MAX_CPUS];
};

/*
 * A runner's name as preempted_by shows it: a kernel thread's instance goes
 * ("kworker/0:1H" -> "kworker", "kswapd0" -> "kswapd", "jbd2/vda-8" -> "jbd2"),
 * the idle task is "idle", a user task keeps its comm.
 */
static void fold_name(const char *comm, int pid, char out[NAME_LEN])
{
	static const char *const kthreads[] = { "kworker", "kswapd", "ksoftirqd", "migration",
						 "rcu_", "cpuhp", "kcompactd", "jbd2", "xfs" };
	size_t n;

	if (pid == 0) {
		strcpy(out, "idle");
		return;
	}
	for (size_t i = 0; i < sizeof(kthreads) / sizeof(kthreads[0]); i++) {
		if (!strncmp(comm, kthreads[i], strlen(kthreads[i]))) {
			/* "kworker/0:1" and "jbd2/vda-8" up to the slash, "kswapd0" without its digits */
			n = strcspn(comm, "/");
			if (!comm[n])
				while (n > 0 && isdigit((unsigned char)comm[n - 1]))
					n--;
			if (n >= NAME_LEN)
				n = NAME_LEN - 1;
			memcpy(out, comm, n);
			out[n] = 0;
			return;
		}
	}
	snprintf(out, NAME_LEN, "%s", comm[0] ? comm : "?");
}

static void runners_add(struct runners *rs, const char *name, double s)
{
	if (s <= 0)
		return;
	for (int i = 0; i < rs->n; i++) {
		if (!strcmp(rs->r[i].name, name)) {
			rs->r[i].s += s;
			return;
		}
	}
	if (rs->n == MAX_RUNNERS) {
		rs->other += s;
		return;
	}
	snprintf(rs->r[rs->n].name, NAME_LEN, "%s", name);
	rs->r[rs->n++].s = s;
}

static int task_of(const struct sched *sc, const char *comm)
{
	for (int i = 0; i < sc->ctx->ntasks; i++)
		if (!strcmp(sc->ctx->tasks[i], comm))
			return i;
	return -1;
}

/* The followed process with this pid, created (from `from`) when comm is a --task name. */
static struct instance *instance_of(struct sched *sc, int pid, const char *comm, double from)
{
	struct instance *in;
	int task;

	if (pid <= 0)
		return NULL;
	/* the latest process of that pid; once it exited, the pid is a new process's */
	for (int i = sc->ninst - 1; i >= 0; i--) {
		if (sc->inst[i].pid != pid)
			continue;
		if (!sc->inst[i].exited)
			return &sc->inst[i];
		break;
	}
	task = task_of(sc, comm);
	if (task < 0)
		return NULL;
	if (sc->ninst == MAX_INSTANCES) {
		sc->instances_dropped++;
		return NULL;
	}
	in = &sc->inst[sc->ninst++];
	memset(in, 0, sizeof(*in));
	in->pid = pid;
	in->task = task;
	in->state = ON_CPU;
	in->since = from;
	in->cpu = -1;
	in->wait_cpu = -1;
	return in;
}

static void enter(struct instance *in, enum wait state, double t)
{
	in->s[in->state] += t - in->since;
	in->state = state;
	in->since = t;
}

/* What ran on cpu from the later of its switch-in and in's switch-out until t. */
static void credit_one(struct sched *sc, int cpu, struct instance *in, double t)
{
	const struct cpu_now *c = &sc->cpu[cpu];

	if (c->known)
		runners_add(&in->preempted_by, c->name,
			    t - (in->wait_from > c->since ? in->wait_from : c->since));
}

/* cpu switches at t: its runner until now goes to every instance waiting there. */
static void credit_waiters(struct sched *sc, int cpu, double t)
{
	for (int i = 0; i < sc->ninst; i++)
		if (sc->cpu[cpu].waiting & (1ULL << i))
			credit_one(sc, cpu, &sc->inst[i], t);
}

static enum wait wait_of(long long state)
{
	state &= STATE_REPORT_MASK;
	if (!state)
		return RUNNABLE;
	if (state & STATE_D)
		return BLOCKED;
	if (state & (STATE_S | STATE_I))
		return SLEEPING;
	return STOPPED;
}

static void on_sched_switch(void *analysis, const struct tep_record *r, double t, int pid)
{
	struct sched *sc = analysis;
	char prev_comm[NAME_LEN], next_comm[NAME_LEN];
	long long prev_pid, next_pid, prev_state;
	struct instance *prev, *next;
	struct cpu_now *c;
	int cpu = r->cpu;

	(void)pid;
	if (read_field(sc->prev_pid, r, &prev_pid) || read_field(sc->next_pid, r, &next_pid) ||
	    read_field(sc->prev_state, r, &prev_state))
		return;
	if (cpu < 0 || cpu >= MAX_CPUS)
		return;
	read_string_field(sc->prev_comm, r, prev_comm, sizeof(prev_comm));
	read_string_field(sc->next_comm, r, next_comm, sizeof(next_comm));
	sc->switches++;
	c = &sc->cpu[cpu];
	credit_waiters(sc, cpu, t);

	/* a process first seen leaving a CPU has been on it since the CPU switched to it */
	prev = instance_of(sc, (int)prev_pid, prev_comm,
			   c->known && c->pid == prev_pid ? c->since : t);
	/*
	 * Already switched in on another CPU: this is the late record of its
	 * switch out here, ordered after the other CPU's by a timestamp equal
	 * to it or by per-CPU trace clocks.  It never waited.
	 */
	if (prev && prev->state == ON_CPU && prev->cpu >= 0 && prev->cpu != cpu)
		prev = NULL;
	if (prev) {
		enum wait w = wait_of(prev_state);

		prev->cpu = -1;
		if (prev_state & STATE_EXITED) {
			enter(prev, ON_CPU, t);
			prev->exited = 1;
		} else {
			enter(prev, w, t);
			if (w == RUNNABLE) {
				prev->wait_cpu = cpu;
				prev->wait_from = t;
				c->waiting |= 1ULL << (prev - sc->inst);
			}
		}
	}
	next = instance_of(sc, (int)next_pid, next_comm, t);
	if (next) {
		if (next->wait_cpu >= 0) {
			/* it waited on another CPU: what ran there until now */
			if (next->wait_cpu != cpu)
				credit_one(sc, next->wait_cpu, next, t);
			sc->cpu[next->wait_cpu].waiting &= ~(1ULL << (next - sc->inst));
			next->wait_cpu = -1;
		}
		enter(next, ON_CPU, t);
		next->cpu = cpu;
	}
	c->known = 1;
	c->pid = (int)next_pid;
	c->since = t;
	fold_name(next_comm, (int)next_pid, c->name);
}

static void *sched_create(struct analysis_context *ctx)
{
	struct sched *sc = xmalloc(sizeof(*sc));
	struct tep_event *ev = find_event(ctx->tep, "sched", "sched_switch");

	memset(sc, 0, sizeof(*sc));
	sc->ctx = ctx;
	sc->sched_switch = ev;
	sc->prev_comm = find_field(ev, "prev_comm");
	sc->prev_pid = find_field(ev, "prev_pid");
	sc->prev_state = find_field(ev, "prev_state");
	sc->next_comm = find_field(ev, "next_comm");
	sc->next_pid = find_field(ev, "next_pid");
	if (ctx->ntasks)
		analysis_on_event(ctx, ev, on_sched_switch, sc);
	return sc;
}

static int by_time_desc(const void *a, const void *b)
{
	const struct runner_time *x = a, *y = b;

	return (x->s < y->s) - (x->s > y->s);
}

/* seconds in each state, their shares of the span, and who ran while it waited */
static void emit_times(json_object *o, const double s[NWAIT], struct runners *rs)
{
	char key[32];
	double span = 0;
	json_object *by;

	for (int w = 0; w < NWAIT; w++)
		span += s[w];
	json_set(o, "span_s", json_number(span));
	for (int w = 0; w < NWAIT; w++) {
		snprintf(key, sizeof(key), "%s_s", wait_name[w]);
		json_set(o, key, json_number(s[w]));
		snprintf(key, sizeof(key), "%s_share", wait_name[w]);
		json_set(o, key, span > 0 ? json_number(s[w] / span) : NULL);
	}
	qsort(rs->r, (size_t)rs->n, sizeof(rs->r[0]), by_time_desc);
	by = json_child(o, "preempted_by");
	for (int i = 0; i < rs->n; i++)
		json_set(by, rs->r[i].name, json_number(rs->r[i].s));
	if (rs->other > 0)
		json_set(by, "other", json_number(rs->other));
}

static void sched_emit(void *analysis, json_object *metrics, double duration)
{
	struct sched *sc = analysis;
	json_object *out, *tasks;
	char path[64];

	if (!sc->ctx->ntasks)
		return;
	if (!sc->sched_switch) {
		unmeasurable(metrics, "sched",
			     "no sched:sched_switch event in this trace (a scenario records it with "
			     "EVENTS=\"sched:sched_switch\")");
		return;
	}
	out = json_child(metrics, "sched");
	json_set(out, "switches", json_number((double)sc->switches));
	if (sc->instances_dropped)
		json_set(out, "instances_not_followed", json_number(sc->instances_dropped));
	/* the trace ends: close every open interval, and every wait, at its last event */
	for (int i = 0; i < sc->ninst; i++) {
		struct instance *in = &sc->inst[i];

		if (in->exited)
			continue;
		if (in->wait_cpu >= 0)
			credit_one(sc, in->wait_cpu, in, duration);
		enter(in, in->state, duration);
	}
	tasks = json_child(out, "task");
	for (int task = 0; task < sc->ctx->ntasks; task++) {
		const char *comm = sc->ctx->tasks[task];
		json_object *o = json_child(tasks, comm), *by_start = NULL;
		double sum[NWAIT] = { 0 };
		struct runners all = { .n = 0 };
		int n = 0;

		for (int i = 0; i < sc->ninst; i++) {
			struct instance *in = &sc->inst[i];
			json_object *one;
			char nth[16];

			if (in->task != task)
				continue;
			for (int w = 0; w < NWAIT; w++)
				sum[w] += in->s[w];
			for (int k = 0; k < in->preempted_by.n; k++)
				runners_add(&all, in->preempted_by.r[k].name, in->preempted_by.r[k].s);
			all.other += in->preempted_by.other;
			if (!by_start)
				by_start = json_child(o, "by_start");
			snprintf(nth, sizeof(nth), "%d", ++n);
			one = json_child(by_start, nth);
			json_set(one, "pid", json_number(in->pid));
			json_set(one, "exited", json_number(in->exited));
			emit_times(one, in->s, &in->preempted_by);
		}
		json_set(o, "instances", json_number(n));
		if (n) {
			emit_times(o, sum, &all);
		} else {
			snprintf(path, sizeof(path), "sched.task.%s.span_s", comm);
			unmeasurable(metrics, path, "no process of that name was switched in or out");
		}
	}
}

static void sched_destroy(void *analysis)
{
	free(analysis);
}

const struct analysis_ops sched_analysis = {
	.name = "sched",
	.create = sched_create,
	.emit = sched_emit,
	.destroy = sched_destroy,
};
