/* dirtier: buffered write()s to a file at a given rate ("a dd that can do
 * --bwlimit"), bound to a NUMA node with a chosen memory policy.  It times
 * every write() so balance_dirty_pages() pauses show from userspace, finds
 * where its page cache landed per node, and can reread and verify every
 * block.
 *
 * Block format (bs bytes, bs a multiple of 8), little-endian u64 words:
 *   0 magic "DPLABBLK"   1 file offset   2 sequence (offset / bs)
 *   3 seed of this run   4 bs            5 hash of the whole block with
 *   this word read as 0; words 6.. are mix64(seed ^ their file offset), so
 *   a page landing in the wrong place or the wrong file is caught too.
 *
 * What is durable: the writer counts blocks in intervals closed by an
 * fsync().  An interval whose fsync() (or one of whose write()s) failed is
 * a lost range; bytes_synced is the end of the last interval an fsync()
 * confirmed.  So [0, bytes_synced) less the lost ranges must survive a
 * crash, and [0, written_end_bytes) less the lost ranges must survive
 * anything short of one (an OOM kill of the writer included, once synced).
 * --from-report verifies exactly that from a report (an interim one too).
 *
 * Report (JSON, one flat object; keys carry their unit):
 *   program, version, status (complete|interrupted|write_error|
 *   verify_failed|running: an interim report of --report-every), error,
 *   error_errno (of the first error, 0: none), signal, numa_available, nodes, node (-1: none),
 *   policy, cpu_bound, file, size_bytes, bs_bytes, seed ("0x..." hex string),
 *   rate_bytes_per_s, burst_bytes, fsync (never|end|every=N), on_error
 *   (stop|continue), bytes_written, writes, written_end_bytes,
 *   bytes_synced, write_errors, fsync_errors, lost_ranges_bytes [start,
 *   end, start, end, ...], lost_ranges_merged,
 *   elapsed_s (first write to the end of the schedule), bw_bytes_per_s,
 *   write_lat_{p50,p90,p99,max,mean}_us,
 *   writes_ge_10ms, fsyncs, fsync_lat_{p50,p90,p99,max,mean}_us,
 *   pagecache_pages_node [per node], pagecache_nonresident_pages,
 *   pagecache_error_pages, pagecache_sampled_pages, pagecache_sample_stride,
 *   verify (none|after_write|only), verify_scope (none|file|written|synced),
 *   verify_source (the --from-report path), verify_missing, verify_seed_checked,
 *   verify_drop_caches, verify_blocks, verify_bytes,
 *   verify_bad_blocks, verify_first_bad_offset_bytes (-1: none),
 *   verify_excluded_blocks, verify_excluded_bad_blocks,
 *   verify_excluded_lost_bytes, verify_excluded_unsynced_bytes, verify_s,
 *   total_s.
 */
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC 0x4b4c4242414c5044ull	/* "DPLABBLK" */
#define HDR_WORDS 6
#define HASH_WORD 5
#define MIN_BS (HDR_WORDS * 8 + 16)
#define MAX_BS (256ull << 20)
#define MAX_LOST 64		/* lost ranges kept; more merge into the last */
#define MAX_REPORT (1 << 20)	/* --from-report: bytes read at most */

enum { P_BIND, P_PREFERRED, P_INTERLEAVE, P_DEFAULT };
static const char *const policy_names[] = {
	"bind", "preferred", "interleave", "default",
};
static const char *const on_error_names[] = { "stop", "continue" };

enum {
	OPT_HELP, OPT_FILE, OPT_SIZE, OPT_BS, OPT_RATE, OPT_BURST, OPT_FSYNC, OPT_NODE,
	OPT_POLICY, OPT_VERIFY, OPT_VERIFY_ONLY, OPT_NO_DROP, OPT_REPORT, OPT_LATLOG,
	OPT_EVERY, OPT_ON_ERROR, OPT_FROM_REPORT, OPT_SCOPE,
};

static const struct opt opts[] = {
	{ "help", 0, OPT_HELP },
	{ "file", 1, OPT_FILE },
	{ "size", 1, OPT_SIZE },
	{ "bs", 1, OPT_BS },
	{ "rate", 1, OPT_RATE },
	{ "burst", 1, OPT_BURST },
	{ "fsync", 1, OPT_FSYNC },
	{ "node", 1, OPT_NODE },
	{ "policy", 1, OPT_POLICY },
	{ "verify", 0, OPT_VERIFY },
	{ "verify-only", 0, OPT_VERIFY_ONLY },
	{ "no-drop-caches", 0, OPT_NO_DROP },
	{ "report", 1, OPT_REPORT },
	{ "latency-log", 1, OPT_LATLOG },
	{ "report-every", 1, OPT_EVERY },
	{ "on-error", 1, OPT_ON_ERROR },
	{ "from-report", 1, OPT_FROM_REPORT },
	{ "scope", 1, OPT_SCOPE },
	{ NULL, 0, 0 },
};

static void help(void)
{
	printf(
"Usage: dirtier --file PATH --size SIZE [options]\n"
"       dirtier --file PATH --verify-only [--bs SIZE] [--size SIZE] [...]\n"
"       dirtier --from-report REPORT [--scope written|synced] [...]\n"
"Buffered write()s of checksummed blocks to PATH (created or truncated),\n"
"timing every write().  SIZE accepts K, M, G, T suffixes (powers of 1024).\n"
"\n"
"  --file PATH         file to write (required)\n"
"  --size SIZE         bytes to write, a multiple of --bs (required)\n"
"  --bs SIZE           bytes per write(), default 64K (64..256M, multiple of 8)\n"
"  --rate SIZE         bytes per second, 0 = unlimited (default); paced by\n"
"                      sleeping to a token-bucket schedule\n"
"  --burst SIZE        token bucket depth, default one block: time lost in a\n"
"                      long pause is not made up beyond this\n"
"  --fsync MODE        never (default) | end | every=N (after every N writes)\n"
"  --on-error MODE     stop (default) | continue: after a failed write() or\n"
"                      fsync(), count it, mark the unsynced interval lost and\n"
"                      go on with the next block (exit is still 1)\n"
"  --node N            run on node N's CPUs; memory per --policy (default bind)\n"
"  --policy P          bind | preferred | interleave | default; bind and\n"
"                      preferred need --node; interleave spans all nodes\n"
"  --verify            after writing: fsync, drop the file's cache (fadvise\n"
"                      DONTNEED, and drop_caches if permitted), reread and\n"
"                      check every block; a bad block makes the exit 1\n"
"  --verify-only       verify an existing file only (bs from its first block\n"
"                      unless --bs is given; size from the file unless --size)\n"
"  --from-report R     verify what the writer of report R (final or interim)\n"
"                      wrote: its file (or --file), bs and seed, the blocks\n"
"                      in --scope less its lost ranges; the rest is reread\n"
"                      and counted as excluded.  A missing file is all bad\n"
"  --scope S           written (default): [0, written_end_bytes); synced:\n"
"                      [0, bytes_synced), what an fsync() confirmed\n"
"  --no-drop-caches    never write /proc/sys/vm/drop_caches (on a shared host)\n"
"  --report FILE       JSON report, written atomically, also on SIGTERM/SIGINT\n"
"  --report-every S    also rewrite it every S seconds while writing (status\n"
"                      \"running\", no page cache placement yet)\n"
"  --latency-log FILE  one line per write(): \"t_ns latency_ns\" from the start\n"
"  --help              this text\n"
"\n"
"Exit: 0 done, 1 write error or bad blocks, 2 bad arguments or cannot start,\n"
"128+N after signal N (report still written).\n");
}

struct cfg {
	const char *file, *report, *latlog, *from_report;
	double every;
	uint64_t size, bs, rate, burst, fsync_every;
	int size_set, bs_set, burst_set, fsync_mode, node, policy, policy_set;
	int verify, verify_only, no_drop, on_error_continue, scope, scope_set;
};
enum { SC_NONE, SC_FILE, SC_WRITTEN, SC_SYNCED };
static const char *const scope_names[] = { "none", "file", "written", "synced" };
enum { FS_NEVER, FS_END, FS_EVERY };
static const char *const fsync_names[] = { "never", "end", "every" };

static void parse_args(int argc, char **argv, struct cfg *c)
{
	const char *v;
	int id, i = 1;

	memset(c, 0, sizeof(*c));
	c->bs = 64 << 10;
	c->node = -1;
	while ((id = opt_next(argc, argv, opts, &i, &v)) >= 0) {
		switch (id) {
		case OPT_HELP:
			help();
			exit(0);
		case OPT_FILE:
			if (!*v)
				usage_error("--file: empty path");
			c->file = v;
			break;
		case OPT_SIZE:
			c->size = parse_size("size", v);
			c->size_set = 1;
			break;
		case OPT_BS:
			c->bs = parse_size("bs", v);
			c->bs_set = 1;
			break;
		case OPT_RATE:
			c->rate = parse_size("rate", v);
			break;
		case OPT_BURST:
			c->burst = parse_size("burst", v);
			c->burst_set = 1;
			break;
		case OPT_FSYNC:
			if (!strcmp(v, "never")) {
				c->fsync_mode = FS_NEVER;
			} else if (!strcmp(v, "end")) {
				c->fsync_mode = FS_END;
			} else if (!strncmp(v, "every=", 6)) {
				c->fsync_mode = FS_EVERY;
				c->fsync_every = parse_count("fsync every", v + 6);
				if (!c->fsync_every)
					usage_error("--fsync every=0: N must be at least 1");
			} else {
				usage_error("--fsync: bad mode '%s' (want never, end or every=N)", v);
			}
			break;
		case OPT_NODE:
			c->node = parse_node("node", v);
			break;
		case OPT_POLICY:
			c->policy = parse_choice("policy", "policy", v, policy_names, 4);
			c->policy_set = 1;
			break;
		case OPT_VERIFY:
			c->verify = 1;
			break;
		case OPT_VERIFY_ONLY:
			c->verify_only = 1;
			break;
		case OPT_NO_DROP:
			c->no_drop = 1;
			break;
		case OPT_REPORT:
			c->report = v;
			break;
		case OPT_LATLOG:
			c->latlog = v;
			break;
		case OPT_EVERY:
			c->every = parse_report_every(v);
			break;
		case OPT_ON_ERROR:
			c->on_error_continue = parse_choice("on-error", "mode", v,
							    on_error_names, 2);
			break;
		case OPT_FROM_REPORT:
			if (!*v)
				usage_error("--from-report: empty path");
			c->from_report = v;
			c->verify_only = 1;
			break;
		case OPT_SCOPE:
			/* written or synced */
			c->scope = SC_WRITTEN + parse_choice("scope", "scope", v,
							     scope_names + SC_WRITTEN, 2);
			c->scope_set = 1;
			break;
		}
	}
	if (c->scope_set && !c->from_report)
		usage_error("--scope needs --from-report");
	if (c->from_report) {
		if (c->size_set || c->bs_set)
			usage_error("--from-report takes --size and --bs from the report");
		if (!c->scope_set)
			c->scope = SC_WRITTEN;
	} else if (!c->file) {
		usage_error("--file is required");
	}
	if (c->bs_set && (c->bs < MIN_BS || c->bs > MAX_BS || c->bs % 8))
		usage_error("--bs %llu: want a multiple of 8 from %d to %llu",
			    (unsigned long long)c->bs, MIN_BS,
			    (unsigned long long)MAX_BS);
	if (!c->verify_only) {
		require_size(c->size_set, c->size);
		if (c->size % c->bs)
			usage_error("--size %llu is not a multiple of --bs %llu",
				    (unsigned long long)c->size,
				    (unsigned long long)c->bs);
	}
	if (!c->policy_set)
		c->policy = c->node >= 0 ? P_BIND : P_DEFAULT;
	if ((c->policy == P_BIND || c->policy == P_PREFERRED) && c->node < 0)
		usage_error("--policy %s needs --node", policy_names[c->policy]);
	if (!c->burst_set)
		c->burst = c->bs;
	if (c->burst < c->bs)
		usage_error("--burst %llu is smaller than --bs %llu",
			    (unsigned long long)c->burst,
			    (unsigned long long)c->bs);
	if (c->every > 0 && !c->report)
		usage_error("--report-every needs --report");
	if (c->report)
		report_path_check("report", c->report);
}

/* Applies CPU and memory binding; returns whether the CPUs were pinned. */
static int apply_binding(const struct cfg *c)
{
	struct bitmask *nodes;
	int cpu_bound, mode, r = 0;

	if (!numa.available)
		return 0;
	cpu_bound = pin_to_node(c->node);
	nodes = numa_allocate_nodemask();
	switch (c->policy) {
	case P_BIND:
	case P_PREFERRED:
		mode = c->policy == P_BIND ? MPOL_BIND : MPOL_PREFERRED;
		numa_bitmask_setbit(nodes, (unsigned)c->node);
		break;
	case P_INTERLEAVE:
		mode = MPOL_INTERLEAVE;
		copy_bitmask_to_bitmask(numa_all_nodes_ptr, nodes);
		break;
	default:
		mode = MPOL_DEFAULT;
		break;
	}
	if (set_mempolicy(mode, mode == MPOL_DEFAULT ? NULL : nodes->maskp,
			  mode == MPOL_DEFAULT ? 0 : nodes->size + 1) < 0)
		r = -errno;
	numa_free_nodemask(nodes);
	if (r < 0)
		usage_error("--policy %s%s: cannot set memory policy: %s%s",
			    policy_names[c->policy], c->node >= 0 ? " on that node" : "",
			    strerror(-r),
			    r == -EINVAL ? " (node without memory?)" : "");
	return cpu_bound;
}

static inline uint64_t rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static uint64_t block_hash(const uint64_t *w, uint64_t nwords)
{
	uint64_t h = 0x6a09e667f3bcc908ull ^ nwords;

	/* each step is a bijection of the state, so any single changed word
	 * changes the result; the rotation spreads high-bit changes */
	for (uint64_t i = 0; i < nwords; i++)
		h = rotl((h ^ (i == HASH_WORD ? 0 : w[i])) *
			 0x9e3779b97f4a7c15ull, 29);
	return mix64(h);
}

static void fill_block(uint64_t *w, uint64_t bs, uint64_t off, uint64_t seed)
{
	uint64_t n = bs / 8;

	w[0] = MAGIC;
	w[1] = off;
	w[2] = off / bs;
	w[3] = seed;
	w[4] = bs;
	for (uint64_t i = HDR_WORDS; i < n; i++)
		w[i] = mix64(seed ^ (off + i * 8));
	w[HASH_WORD] = block_hash(w, n);
}

/* seed_known: the block must also carry this run's seed (a block left by an
 * earlier run of the same file at the same offset is not this run's) */
static int block_ok(const uint64_t *w, uint64_t bs, uint64_t off,
		    uint64_t seed, int seed_known)
{
	return w[0] == MAGIC && w[1] == off && w[2] == off / bs &&
	       (!seed_known || w[3] == seed) &&
	       w[4] == bs && w[HASH_WORD] == block_hash(w, bs / 8);
}

struct result {
	const char *status;
	char error[256];
	int err_errno;
	uint64_t bytes, writes, ge10ms, t_start, t_end, t_total0;
	uint64_t seed, written_end, synced, write_errors, fsync_errors;
	uint64_t lost[2 * MAX_LOST], lost_merged;
	int nlost;
	struct hist wlat, flat;
	struct placement pc;
	int placed, cpu_bound, running;
	/* verify */
	int verified, dropped, vmissing, vseed;
	uint64_t vblocks, vbad, vtime, vbs, vsize, vbytes;
	uint64_t vexcl, vexcl_bad, vexcl_lost, vexcl_unsynced;
	int64_t vfirst_bad;
};

/* The first error is the one reported; later ones are only counted. */
static void set_error(struct result *r, const char *status, const char *what,
		      int err)
{
	if (!strcmp(r->status, "complete")) {
		r->status = status;
		r->err_errno = err;
		snprintf(r->error, sizeof(r->error), "%s: %s", what,
			 strerror(err));
	}
}

/* Marks [start, end) lost: no fsync() confirmed it.  Adjacent ranges merge;
 * beyond MAX_LOST the last one grows (it then covers good intervals too,
 * which only makes verification check less, never claim more). */
static void lost_add(struct result *r, uint64_t start, uint64_t end)
{
	if (start >= end)
		return;
	if (r->nlost && r->lost[2 * r->nlost - 1] >= start) {
		if (end > r->lost[2 * r->nlost - 1])
			r->lost[2 * r->nlost - 1] = end;
		return;
	}
	if (r->nlost == MAX_LOST) {
		r->lost[2 * r->nlost - 1] = end;
		r->lost_merged++;
		return;
	}
	r->lost[2 * r->nlost] = start;
	r->lost[2 * r->nlost + 1] = end;
	r->nlost++;
}

static int lost_overlaps(const uint64_t *lost, int nlost, uint64_t start,
			 uint64_t end)
{
	for (int i = 0; i < nlost; i++)
		if (lost[2 * i] < end && start < lost[2 * i + 1])
			return 1;
	return 0;
}

static int full_write(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int timed_fsync(int fd, struct result *r)
{
	uint64_t t0 = now_ns();
	int e = fsync(fd) < 0 ? -errno : 0;

	hist_add(&r->flat, now_ns() - t0);
	return e;
}

static uint64_t *alloc_block(uint64_t bs)
{
	void *p;

	/* allocated after binding, so the buffer obeys the policy too */
	if (posix_memalign(&p, 4096, bs))
		usage_error("out of memory for a %llu byte block",
			    (unsigned long long)bs);
	return p;
}

static int report(const struct cfg *c, const struct result *r);

static void write_file(const struct cfg *c, FILE *latlog, struct result *r)
{
	uint64_t nblocks = c->size / c->bs, seed, *buf = alloc_block(c->bs);
	uint64_t next_report, mark = 0;	/* start of the unsynced interval */
	double slot = 0, tau = 0, tat;
	int fd, e, stopped = 0;

	/* readable too: the placement query maps the file */
	fd = open(c->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		usage_error("--file %s: cannot create: %s", c->file,
			    strerror(errno));
	seed = mix64(now_ns() ^ ((uint64_t)getpid() << 32));
	r->seed = seed;
	if (c->rate) {
		slot = (double)c->bs * 1e9 / (double)c->rate;
		tau = (double)(c->burst - c->bs) * 1e9 / (double)c->rate;
	}
	r->t_start = now_ns();
	tat = (double)r->t_start;
	next_report = r->t_start + (uint64_t)(c->every * 1e9);
	for (uint64_t k = 0; k < nblocks && !stop_signal; k++) {
		uint64_t off = k * c->bs, t0, lat;

		if (c->rate) {
			/* GCRA form of a token bucket: block k may start once
			 * the schedule (tat) is within the burst tolerance */
			double now = (double)now_ns();

			if (now < tat - tau) {
				if (sleep_until_ns((uint64_t)(tat - tau)))
					break;
				now = tat - tau;
			}
			tat = (now > tat ? now : tat) + slot;
		}
		fill_block(buf, c->bs, off, seed);
		t0 = now_ns();
		e = full_write(fd, buf, c->bs);
		lat = now_ns() - t0;
		/* a failed block may be partly written: it ends the interval */
		r->written_end = off + c->bs;
		if (e) {
			set_error(r, "write_error", "write", -e);
			r->write_errors++;
			lost_add(r, mark, r->written_end);
			mark = r->written_end;
			if (!c->on_error_continue ||
			    lseek(fd, (off_t)r->written_end, SEEK_SET) < 0) {
				stopped = 1;
				break;
			}
			continue;
		}
		hist_add(&r->wlat, lat);
		r->ge10ms += lat >= 10000000ull;
		r->writes++;
		r->bytes += c->bs;
		if (latlog)
			fprintf(latlog, "%llu %llu\n",
				(unsigned long long)(t0 - r->t_start),
				(unsigned long long)lat);
		if (c->fsync_mode == FS_EVERY && (k + 1) % c->fsync_every == 0) {
			if ((e = timed_fsync(fd, r))) {
				set_error(r, "write_error", "fsync", -e);
				r->fsync_errors++;
				lost_add(r, mark, r->written_end);
				if (!c->on_error_continue)
					stopped = 1;
			} else {
				r->synced = r->written_end;
			}
			mark = r->written_end;
			if (stopped)
				break;
		}
		/* t_end is the end of the interim report's elapsed_s */
		if (c->every > 0 &&
		    report_due(c->every, &next_report, (r->t_end = now_ns()))) {
			r->running = 1;
			report(c, r);
			r->running = 0;
		}
	}
	/* the last block owns its slot: finishing the schedule makes the
	 * achieved rate equal --rate when nothing throttled us (less what the
	 * bucket held at the start, as with any token bucket) */
	if (c->rate && !stop_signal && !stopped &&
	    tat - tau > (double)now_ns())
		sleep_until_ns((uint64_t)(tat - tau));
	r->t_end = now_ns();

	if (r->bytes && placement_query_fd(fd, r->bytes, &r->pc) == 0)
		r->placed = 1;
	if (!stopped && (c->fsync_mode == FS_END || c->verify) &&
	    mark < r->written_end) {
		if ((e = timed_fsync(fd, r))) {
			set_error(r, "write_error", "fsync", -e);
			r->fsync_errors++;
			lost_add(r, mark, r->written_end);
		} else {
			r->synced = r->written_end;
		}
		mark = r->written_end;
	}
	if (close(fd) < 0) {
		/* close() reporting an error means the unsynced tail may be
		 * gone; synced intervals stay as fsync() said */
		set_error(r, "write_error", "close", errno);
		r->fsync_errors++;
		lost_add(r, mark, r->written_end);
	}
	free(buf);
}

/* What to reread: [0, end) in blocks of bs; blocks inside [0, scope_end)
 * and outside the lost ranges are checked, the rest are read and counted
 * as excluded (unsynced or lost).  from_report: a file that cannot be
 * opened is data lost, not bad input. */
struct vplan {
	const char *file;
	uint64_t bs, end, scope_end, seed;
	int seed_known, from_report, scope;
	const uint64_t *lost;
	int nlost;
	char *owned;		/* file name buffer to free */
};

static void verify_file(const struct cfg *c, struct vplan *p, struct result *r)
{
	uint64_t bs = p->bs, t0 = now_ns(), hdr[HDR_WORDS], *buf;
	struct stat st;
	int fd, dc;

	fd = open(p->file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, &st) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && !p->from_report)
		usage_error("--file %s: cannot open: %s", p->file,
			    strerror(errno));
	if (fd < 0) {
		set_error(r, "verify_failed", "open", errno);
		r->vmissing = 1;
	}
	if (p->scope == SC_FILE) {
		p->end = c->size_set ? c->size : (uint64_t)st.st_size;
		p->scope_end = p->end;
		if (!c->bs_set) {
			/* trust the first header only for its block size; a
			 * bad first block is still counted bad below */
			if (pread(fd, hdr, sizeof(hdr), 0) == sizeof(hdr) &&
			    hdr[0] == MAGIC && hdr[4] >= MIN_BS &&
			    hdr[4] <= MAX_BS && hdr[4] % 8 == 0)
				bs = hdr[4];
		}
	}
	r->vbs = bs;
	r->vsize = p->end;
	r->vseed = p->seed_known;
	buf = alloc_block(bs);
	if (fd >= 0) {
		/* a reread must come from the disk, not the cache we just
		 * wrote */
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		if (!c->no_drop) {
			dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
			if (dc >= 0) {
				r->dropped = write(dc, "1\n", 2) == 2;
				close(dc);
			}
		}
	}
	r->vfirst_bad = -1;
	for (uint64_t off = 0; off < p->end && !stop_signal; off += bs) {
		uint64_t want = p->end - off < bs ? p->end - off : bs, got = 0;
		int bad, lost = lost_overlaps(p->lost, p->nlost, off, off + want);

		while (fd >= 0 && got < want) {
			ssize_t n = pread(fd, (char *)buf + got, want - got,
					  (off_t)(off + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (uint64_t)n;
		}
		bad = got != bs || !block_ok(buf, bs, off, p->seed, p->seed_known);
		if (lost || off + want > p->scope_end) {
			r->vexcl++;
			r->vexcl_bad += bad;
			if (lost)
				r->vexcl_lost += want;
			else
				r->vexcl_unsynced += want;
			continue;
		}
		r->vblocks++;
		r->vbytes += want;
		if (bad) {
			r->vbad++;
			if (r->vfirst_bad < 0)
				r->vfirst_bad = (int64_t)off;
		}
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	r->verified = 1;
	r->vtime = now_ns() - t0;
	if (r->vbad && !strcmp(r->status, "complete"))
		r->status = "verify_failed";
}

/* ---- --from-report: the writer's own report format (json_* in
 * common.c: one flat object, strings escaped), not JSON in general ---- */

static char *slurp(const char *path)
{
	char *buf = malloc(MAX_REPORT + 1);
	size_t n = 0;
	int fd;

	if (!buf)
		usage_error("out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		free(buf);
		usage_error("--from-report %s: cannot open: %s", path, strerror(e));
	}
	while (n < MAX_REPORT) {
		ssize_t k = read(fd, buf + n, MAX_REPORT - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	if (n == MAX_REPORT || strlen(buf) != n) {
		free(buf);
		usage_error("--from-report %s: not a dirtier report (too large or binary)",
			    path);
	}
	return buf;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* The value of top-level key, or NULL: "key" preceded by '{' or ',' and
 * followed by ':' (inside a string a quote is escaped, so never matches). */
static const char *jfind(const char *buf, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = strchr(buf, '"'); p; p = strchr(p + 1, '"')) {
		const char *q = p;

		if (strncmp(p + 1, key, kl) || p[kl + 1] != '"')
			continue;
		while (q > buf && strchr(" \n\t\r", q[-1]))
			q--;
		if (q == buf || (q[-1] != '{' && q[-1] != ','))
			continue;
		q = skip_ws(p + kl + 2);
		if (*q == ':')
			return skip_ws(q + 1);
	}
	return NULL;
}

static const char *rpath;	/* for error lines */

static _Noreturn void bad_report(const char *key, const char *what)
{
	usage_error("--from-report %s: %s '%s'", rpath, what, key);
}

static uint64_t jget_u64(const char *buf, const char *key)
{
	const char *v = jfind(buf, key);
	char *end;
	unsigned long long x;

	if (!v)
		bad_report(key, "no key");
	errno = 0;
	x = strtoull(v, &end, 10);
	if (*v < '0' || *v > '9' || errno || end == v || (*end && !strchr(",\n} ", *end)))
		bad_report(key, "not a non-negative integer:");
	return x;
}

/* A string value, unescaped (\" \\ and \u00XX as json_str writes them). */
static char *jget_str(const char *buf, const char *key)
{
	const char *v = jfind(buf, key);
	char *out, *o;

	if (!v || *v != '"')
		bad_report(key, v ? "not a string:" : "no key");
	out = o = malloc(strlen(v) + 1);
	if (!out)
		usage_error("out of memory");
	for (v++; *v != '"'; v++) {
		if (!*v || (unsigned char)*v < 0x20)
			goto bad;
		if (*v != '\\') {
			*o++ = *v;
			continue;
		}
		v++;
		if (*v == '"' || *v == '\\' || *v == '/') {
			*o++ = *v;
		} else if (!strncmp(v, "u00", 3) && isxdigit((unsigned char)v[3]) &&
			   isxdigit((unsigned char)v[4])) {
			char hex[3] = { v[3], v[4], '\0' };
			unsigned long x = strtoul(hex, NULL, 16);

			if (!x)
				goto bad;
			*o++ = (char)x;
			v += 4;
		} else {
			goto bad;
		}
	}
	*o = '\0';
	return out;
bad:
	free(out);
	bad_report(key, "bad string");
}

/* [a, b, ...] of at most max integers; returns the count. */
static int jget_u64_array(const char *buf, const char *key, uint64_t *a, int max)
{
	const char *v = jfind(buf, key);
	int n = 0;

	if (!v || *v != '[')
		bad_report(key, v ? "not an array:" : "no key");
	v = skip_ws(v + 1);
	while (*v != ']') {
		char *end;

		errno = 0;
		if (n == max || *v < '0' || *v > '9')
			bad_report(key, n == max ? "too many values in" : "bad array");
		a[n++] = strtoull(v, &end, 10);
		if (errno)
			bad_report(key, "bad array");
		v = skip_ws(end);
		if (*v == ',')
			v = skip_ws(v + 1);
		else if (*v != ']')
			bad_report(key, "bad array");
	}
	return n;
}

/* Reads a writer's report into a plan; any doubt is bad input (exit 2). */
static void plan_from_report(const struct cfg *c, struct vplan *p,
			     uint64_t *lost)
{
	char *buf, *s;
	uint64_t written, synced;
	int n;

	rpath = c->from_report;
	buf = slurp(c->from_report);
	s = jget_str(buf, "program");
	if (strcmp(s, "dirtier")) {
		free(s);
		free(buf);
		usage_error("--from-report %s: not a dirtier report", rpath);
	}
	free(s);
	if (jget_u64(buf, "version") < 2) {
		free(buf);
		usage_error("--from-report %s: report version 1 has no seed or bytes_synced",
			    rpath);
	}
	s = jget_str(buf, "verify");
	if (!strcmp(s, "only")) {
		free(s);
		free(buf);
		usage_error("--from-report %s: a verify report, not a writer's", rpath);
	}
	free(s);
	p->owned = jget_str(buf, "file");
	p->file = c->file ? c->file : p->owned;
	p->bs = jget_u64(buf, "bs_bytes");
	if (p->bs < MIN_BS || p->bs > MAX_BS || p->bs % 8)
		bad_report("bs_bytes", "out of range:");
	s = jget_str(buf, "seed");
	if (strncmp(s, "0x", 2) || strlen(s) != 18 ||
	    strspn(s + 2, "0123456789abcdef") != 16) {
		free(s);
		bad_report("seed", "not 0x and 16 hex digits:");
	}
	p->seed = strtoull(s + 2, NULL, 16);
	p->seed_known = 1;
	free(s);
	written = jget_u64(buf, "written_end_bytes");
	synced = jget_u64(buf, "bytes_synced");
	if (written % p->bs || synced % p->bs || synced > written)
		bad_report("bytes_synced", "inconsistent with written_end_bytes and bs_bytes:");
	n = jget_u64_array(buf, "lost_ranges_bytes", lost, 2 * MAX_LOST);
	if (n % 2)
		bad_report("lost_ranges_bytes", "odd length of");
	for (int i = 0; i < n; i += 2)
		if (lost[i] >= lost[i + 1] || lost[i + 1] > written ||
		    (i && lost[i] < lost[i - 1]))
			bad_report("lost_ranges_bytes", "unordered or out of range:");
	p->lost = lost;
	p->nlost = n / 2;
	p->end = written;
	p->scope = c->scope;
	p->scope_end = c->scope == SC_SYNCED ? synced : written;
	p->from_report = 1;
	free(buf);
}

static int vscope;		/* the scope verify_file() ran with */
static const char *vfile;	/* and the file (--from-report) */

static int report(const struct cfg *c, const struct result *r)
{
	char seed[24];
	struct json j;
	double el = (double)(r->t_end - r->t_start) / 1e9;
	uint64_t zero = 0;

	report_begin(&j, "dirtier", 2, r->running, r->status, r->error);
	json_i64(&j, "error_errno", r->err_errno);
	report_env(&j, c->node, policy_names[c->policy], r->cpu_bound);
	json_str(&j, "file", c->file ? c->file : vfile ? vfile : "");
	json_u64(&j, "size_bytes", c->verify_only ? r->vsize : c->size);
	json_u64(&j, "bs_bytes", r->verified ? r->vbs : c->bs);
	snprintf(seed, sizeof(seed), "0x%016llx", (unsigned long long)r->seed);
	json_str(&j, "seed", seed);
	json_u64(&j, "rate_bytes_per_s", c->rate);
	json_u64(&j, "burst_bytes", c->burst);
	if (c->fsync_mode == FS_EVERY) {
		char fs[40];

		snprintf(fs, sizeof(fs), "every=%llu",
			 (unsigned long long)c->fsync_every);
		json_str(&j, "fsync", fs);
	} else {
		json_str(&j, "fsync", fsync_names[c->fsync_mode]);
	}
	json_str(&j, "on_error", on_error_names[c->on_error_continue]);
	json_u64(&j, "bytes_written", r->bytes);
	json_u64(&j, "writes", r->writes);
	json_u64(&j, "written_end_bytes", r->written_end);
	json_u64(&j, "bytes_synced", r->synced);
	json_u64(&j, "write_errors", r->write_errors);
	json_u64(&j, "fsync_errors", r->fsync_errors);
	json_u64_array(&j, "lost_ranges_bytes", r->lost, 2 * r->nlost);
	json_u64(&j, "lost_ranges_merged", r->lost_merged);
	json_num(&j, "elapsed_s", el);
	json_num(&j, "bw_bytes_per_s", el > 0 ? (double)r->bytes / el : 0);
	json_hist_us(&j, "write_lat", &r->wlat);
	json_u64(&j, "writes_ge_10ms", r->ge10ms);
	json_u64(&j, "fsyncs", r->flat.n);
	json_hist_us(&j, "fsync_lat", &r->flat);
	if (r->placed) {
		json_u64_array(&j, "pagecache_pages_node", r->pc.counts,
			       numa.nnodes);
	} else {
		uint64_t *none = calloc((size_t)numa.nnodes, sizeof(*none));

		json_u64_array(&j, "pagecache_pages_node", none ? none : &zero,
			       none ? numa.nnodes : 1);
		free(none);
	}
	json_u64(&j, "pagecache_nonresident_pages", r->pc.absent);
	json_u64(&j, "pagecache_error_pages", r->pc.other);
	json_u64(&j, "pagecache_sampled_pages", r->pc.sampled);
	json_u64(&j, "pagecache_sample_stride", r->pc.stride);
	json_str(&j, "verify", c->verify_only ? "only" :
		 c->verify ? "after_write" : "none");
	json_str(&j, "verify_scope", scope_names[r->verified ? vscope : SC_NONE]);
	json_str(&j, "verify_source", c->from_report ? c->from_report : "");
	json_bool(&j, "verify_missing", r->vmissing);
	json_bool(&j, "verify_seed_checked", r->vseed);
	json_bool(&j, "verify_drop_caches", r->dropped);
	json_u64(&j, "verify_blocks", r->vblocks);
	json_u64(&j, "verify_bytes", r->vbytes);
	json_u64(&j, "verify_bad_blocks", r->vbad);
	json_i64(&j, "verify_first_bad_offset_bytes", r->verified ? r->vfirst_bad : -1);
	json_u64(&j, "verify_excluded_blocks", r->vexcl);
	json_u64(&j, "verify_excluded_bad_blocks", r->vexcl_bad);
	json_u64(&j, "verify_excluded_lost_bytes", r->vexcl_lost);
	json_u64(&j, "verify_excluded_unsynced_bytes", r->vexcl_unsynced);
	json_num(&j, "verify_s", (double)r->vtime / 1e9);
	json_num(&j, "total_s", (double)(now_ns() - r->t_total0) / 1e9);
	return report_write(&j, c->report);
}

int main(int argc, char **argv)
{
	struct cfg c;
	struct result *r;
	struct vplan plan = { 0 };
	uint64_t lost[2 * MAX_LOST];
	FILE *latlog = NULL;
	int rc = 0;

	prog = "dirtier";
	numa_env_init();
	parse_args(argc, argv, &c);
	r = xcalloc(1, sizeof(*r));
	r->status = "complete";
	r->t_total0 = now_ns();
	r->pc.counts = xcalloc((size_t)numa.nnodes, sizeof(uint64_t));
	r->cpu_bound = apply_binding(&c);
	if (c.latlog && !(latlog = fopen(c.latlog, "w")))
		usage_error("--latency-log %s: cannot create: %s", c.latlog,
			    strerror(errno));
	/* few, large flushes: the log often lives on the guest's 9p share,
	 * and each flush is time between two timed write()s */
	if (latlog)
		setvbuf(latlog, NULL, _IOFBF, 1 << 20);
	install_stop_handlers();

	if (c.from_report)
		plan_from_report(&c, &plan, lost);
	if (!c.verify_only)
		write_file(&c, latlog, r);
	else
		r->t_start = r->t_end = now_ns();
	if (latlog && fclose(latlog) != 0) {
		fprintf(stderr, "dirtier: --latency-log %s: cannot write: %s\n",
			c.latlog, strerror(errno));
		rc = 1;
	}
	if (c.verify && !c.verify_only && !stop_signal &&
	    !strcmp(r->status, "complete")) {
		/* what this run wrote, with its seed */
		plan = (struct vplan){ .file = c.file, .bs = c.bs,
				       .end = r->written_end,
				       .scope_end = r->written_end,
				       .seed = r->seed, .seed_known = 1,
				       .scope = SC_WRITTEN };
		vscope = SC_WRITTEN;
		verify_file(&c, &plan, r);
	} else if (c.verify_only && !stop_signal) {
		if (!c.from_report)
			plan = (struct vplan){ .file = c.file, .bs = c.bs,
					       .scope = SC_FILE };
		vscope = plan.scope;
		vfile = plan.file;
		verify_file(&c, &plan, r);
	}
	if (c.report)
		rc |= report(&c, r);
	if (r->vbad) {
		fprintf(stderr, "dirtier: verify: %llu bad blocks of %llu, first at offset %lld\n",
			(unsigned long long)r->vbad,
			(unsigned long long)r->vblocks,
			(long long)r->vfirst_bad);
		rc = 1;
	} else if (strcmp(r->status, "complete")) {
		fprintf(stderr, "dirtier: %s\n", r->error);
		rc = 1;
	}
	free(plan.owned);
	free(r->pc.counts);
	free(r);
	return exit_status(rc);
}
