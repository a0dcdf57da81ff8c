/* dpfuzz: malformed writes to the dirty pressure debugfs files.
 *
 * The contract (patch 4's changelog, Documentation/admin-guide/mm/
 * dirty-pressure.rst): a write must be one write() at offset 0 of a decimal
 * number in range (dirty_pressure 0..1024, dirty_pressure_recovery 1..1024)
 * or a mode name (dirty_pressure_mode: off, global, node), optionally
 * followed by one newline.  Anything else - a sign, hex, trailing
 * characters, an out-of-range value, a second write on the same open file -
 * fails with EINVAL and changes nothing.  dirty_pressure_node and
 * dirty_pressure_nodes are read-only.
 *
 * For each of the five files dpfuzz makes at least --count writes that the
 * contract calls invalid, spread evenly over classes (class_help in
 * dpfuzz-options.c; one generator each, dpfuzz.h lists the files), and
 * after every one reads all five files back and compares them with a
 * model of what the state may be.  Between them it makes valid writes that
 * move the state (a new pressure, mode or recovery rate), each checked to
 * have taken effect, so a kernel that ignored every write would fail too.
 *
 * What counts as rejected: EINVAL, except EFAULT for a buffer the kernel
 * cannot read (bad_buffer), ESPIPE also for pwrite() (the VFS refuses it
 * on a seq_file before the file's write method runs), and for the
 * read-only files any of EINVAL (debugfs: no write method), EACCES or
 * EPERM (open refused).
 *
 * Partial writes.  The kernel (dp_copy_write) takes a write only at file
 * position 0 and then advances the position by its length, so:
 *   - a value split over two write() calls on one descriptor: the first
 *     piece is judged on its own (a valid number or name takes effect, as
 *     the kernel cannot know more follows); every later write on that
 *     descriptor is at position > 0 and must fail with EINVAL, changing
 *     nothing.  A piece that failed did not move the position, so the next
 *     piece is again judged on its own at position 0;
 *   - pwrite() at an offset > 0 (ESPIPE from the VFS is as good as
 *     EINVAL), lseek() then write(), read() then write() and a second
 *     complete write on one descriptor must fail.
 * dpfuzz tracks the position the kernel sees and asks the same oracle for
 * every write, so no piece is counted valid or invalid by accident.
 *
 * State that moves by itself.  Reclaim that meets dirty pages lowers a
 * node's pressure (fast_down, and dirty_pressure_node names the node);
 * while a node's kswapd sleeps the pressure rises by dirty_pressure_recovery
 * steps per second (slow_up).  A quiet guest has no reclaim, so fast_down
 * does not happen (a scenario checks that in the trace); slow_up does, and
 * the model allows exactly it: after a write of P at time t, every node's
 * value must stay within [P, P + R * (now - t + 0.02 s) + 1] (R the highest
 * rate in force since, 0.02 s two jiffies at HZ=100) and never fall, and
 * dirty_pressure (the lowest node, or their weighted average in mode node)
 * within the same band.  Mode, recovery, the node list and
 * dirty_pressure_node must not change at all.  A write of 1024 is stable.
 *
 * Concurrent writers: --threads threads make invalid writes to one file at
 * once while a reader thread checks the state continuously; and the same
 * number of threads race valid writes of distinct values, after which the
 * state must be one of them (every node the same one).
 *
 * Report (JSON, one flat object): program, status (complete|interrupted),
 * error, signal, seed, dir, count, threads, classes, initial_mode,
 * initial_mode_code (0 off, 1 global, 2 node), initial_pressure,
 * initial_recovery, initial_node, nodes, elapsed_s, findings, first_finding,
 * io_errors, resyncs, reader_checks, pressure_writes_taken (write()s to
 * dirty_pressure that succeeded, set-up and restore included: one trace
 * event each), and counts
 *   <file>_<class>_<stat>
 * file: pressure, node, mode, recovery, nodes, and "all" summed over files;
 * class: one of the classes, "valid", "invalid" (all invalid classes) and
 * for "all" also per class; stat: tried, rejected, accepted_bad,
 * wrong_errno, state_changed, and for valid: tried, valid_ok, valid_failed.
 *
 * Exit: 0 every invalid write rejected with the right error and no state
 * change, every valid write took effect; 1 otherwise (or a file could not
 * be read); 2 bad arguments or cannot start; 128+N after signal N (report
 * written, state restored).
 */
#include "dpfuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char *guard_page;
long page_size;

/* one write (or sequence, for partial and concurrent) of class c to f */
static void fuzz_class(struct fuzzer *x, struct model *m, int f, int c)
{
	if (c == CLASS_PARTIAL)
		fuzz_partial(x, m, f);
	else if (c == CLASS_CONCURRENT)
		fuzz_concurrent(x, m, f);
	else {
		gen_invalid(x, f, c, m);
		write_fresh(x, m, f, c, 1);
	}
}

/* A new base after --valid-every invalid writes: a valid write to the file
 * itself when writable, and every few times to another one, so each file
 * is fuzzed in every mode and at several rates; now and then a race. */
static void new_base(struct fuzzer *x, struct model *m, int f, uint64_t bases)
{
	static const int writable_files[] = {
		FILE_PRESSURE, FILE_MODE, FILE_RECOVERY,
	};

	if (file_writable(f))
		valid_write(x, m, f);
	if (!file_writable(f) || bases % 4 == 0)
		valid_write(x, m, writable_files[rand_below(x, 3)]);
	if (file_writable(f) && bases % 16 == 1 &&
	    (cfg.classes & (1u << CLASS_CONCURRENT)))
		race_valid_writes(x, m, f);
}

/* --count invalid writes to f, spread evenly over the classes that apply
 * (round robin until each has its quota), valid ones between them */
static void fuzz_file(struct fuzzer *x, struct model *m, int f)
{
	int cl[NCLASSES], ncl = 0;
	uint64_t quota, since_valid = 0, bases = 0;

	for (int c = 1; c < NCLASSES; c++)
		if (class_applies(f, c))
			cl[ncl++] = c;
	if (!ncl)
		return;
	quota = (cfg.count + (uint64_t)ncl - 1) / (uint64_t)ncl;
	for (int more = 1; more && !stop_signal && io_errors < 100;) {
		more = 0;
		for (int i = 0; i < ncl && !stop_signal; i++) {
			int c = cl[i];
			uint64_t before = x->counts[f][c].tried;

			if (before >= quota)
				continue;
			more = 1;
			fuzz_class(x, m, f, c);
			since_valid += x->counts[f][c].tried - before;
			if (since_valid < cfg.valid_every)
				continue;
			since_valid = 0;
			new_base(x, m, f, ++bases);
		}
	}
}

/* the model: what was read, then a known pressure (1024, stable) */
static void start_model(struct fuzzer *x, struct model *m,
			const struct state *init)
{
	m->mode = init->mode;
	m->recovery = init->recovery;
	m->rate_max = init->recovery;
	m->node = init->node;
	m->nn = init->nn;
	memcpy(m->nid, init->nid, sizeof(m->nid[0]) * (size_t)m->nn);
	model_set_pressure(m, init->pressure, now_ns());
	buf_clear(x);
	buf_puts(x, "1024\n");
	write_fresh(x, m, FILE_PRESSURE, CLASS_VALID, 1);
}

/* leave the files as found */
static void restore(const struct state *init)
{
	int e;

	if ((e = write_plain(FILE_MODE, mode_names[init->mode])) ||
	    (e = write_plain_long(FILE_RECOVERY, init->recovery)) ||
	    (e = write_plain_long(FILE_PRESSURE, init->pressure)))
		io_error("cannot restore the initial state: %s", strerror(e));
}

/* a readable page followed by a PROT_NONE one, for class bad_buffer */
static void map_guard_page(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	guard_page = mmap(NULL, (size_t)page_size * 2, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (guard_page == MAP_FAILED ||
	    mprotect(guard_page + page_size, (size_t)page_size, PROT_NONE))
		usage_error("cannot map a guard page: %s", strerror(errno));
}

int main(int argc, char **argv)
{
	static struct fuzzer x;
	static struct model m;
	struct run r;
	char why[256];
	int e;

	prog = "dpfuzz";
	parse_args(argc, argv);
	if (!cfg.seed_set)
		cfg.seed = now_ns() ^ ((uint64_t)getpid() << 32);
	map_guard_page();
	if (fuzzer_init(&x, cfg.seed))
		usage_error("out of memory");
	memset(&r, 0, sizeof(r));
	r.x = &x;
	if (read_state(&r.init, why, sizeof(why)))
		usage_error("%s", why);
	install_stop_handlers();
	r.t0 = now_ns();
	start_model(&x, &m, &r.init);
	for (int f = 0; f < NFILES && !stop_signal; f++)
		fuzz_file(&x, &m, f);
	restore(&r.init);
	r.t1 = now_ns();
	r.status = stop_signal ? "interrupted" : "complete";
	r.sig = stop_signal;
	if (io_errors)
		snprintf(r.error, sizeof(r.error), "%llu I/O errors",
			 (unsigned long long)io_errors);
	if (cfg.report && (e = write_report(&r)))
		fprintf(stderr, "%s: --report %s: %s\n", prog, cfg.report,
			strerror(-e));
	free(x.buf);
	munmap(guard_page, (size_t)page_size * 2);
	return exit_status(run_clean(&x) ? 0 : 1);
}
