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
 * Report (JSON, one flat object; keys carry their unit):
 *   program, version, status (complete|interrupted|write_error|
 *   verify_failed|running: an interim report of --report-every), error, signal, numa_available, nodes, node (-1: none),
 *   policy, cpu_bound, file, size_bytes, bs_bytes, rate_bytes_per_s,
 *   burst_bytes, fsync (never|end|every=N), bytes_written, writes,
 *   elapsed_s (first write to the end of the schedule), bw_bytes_per_s,
 *   write_lat_{p50,p90,p99,max,mean}_us,
 *   writes_ge_10ms, fsyncs, fsync_lat_{p50,p90,p99,max,mean}_us,
 *   pagecache_pages_node [per node], pagecache_nonresident_pages,
 *   pagecache_error_pages, pagecache_sampled_pages, pagecache_sample_stride,
 *   verify (none|after_write|only), verify_drop_caches, verify_blocks,
 *   verify_bad_blocks, verify_first_bad_offset_bytes (-1: none), verify_s,
 *   total_s.
 */
#include "common.h"

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

enum { P_DEFAULT, P_BIND, P_PREFERRED, P_INTERLEAVE };
static const char *const policy_names[] = {
	"default", "bind", "preferred", "interleave",
};

enum {
	OPT_HELP, OPT_FILE, OPT_SIZE, OPT_BS, OPT_RATE, OPT_BURST, OPT_FSYNC, OPT_NODE,
	OPT_POLICY, OPT_VERIFY, OPT_VERIFY_ONLY, OPT_NO_DROP, OPT_REPORT, OPT_LATLOG,
	OPT_EVERY,
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
	{ NULL, 0, 0 },
};

static void help(void)
{
	printf(
"Usage: dirtier --file PATH --size SIZE [options]\n"
"       dirtier --file PATH --verify-only [--bs SIZE] [--size SIZE] [...]\n"
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
"  --node N            run on node N's CPUs; memory per --policy (default bind)\n"
"  --policy P          bind | preferred | interleave | default; bind and\n"
"                      preferred need --node; interleave spans all nodes\n"
"  --verify            after writing: fsync, drop the file's cache (fadvise\n"
"                      DONTNEED, and drop_caches if permitted), reread and\n"
"                      check every block; a bad block makes the exit 1\n"
"  --verify-only       verify an existing file only (bs from its first block\n"
"                      unless --bs is given; size from the file unless --size)\n"
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
	const char *file, *report, *latlog;
	double every;
	uint64_t size, bs, rate, burst, fsync_every;
	int size_set, bs_set, burst_set, fsync_mode, node, policy, policy_set;
	int verify, verify_only, no_drop;
};
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
			c->policy = -1;
			for (int p = 0; p < 4; p++)
				if (!strcmp(v, policy_names[p]))
					c->policy = p;
			if (c->policy < 0)
				usage_error("--policy: bad policy '%s' (want bind, preferred, interleave or default)", v);
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
			c->every = parse_seconds("report-every", v);
			if (c->every <= 0)
				usage_error("--report-every must be more than 0 seconds");
			break;
		}
	}
	if (!c->file)
		usage_error("--file is required");
	if (c->bs_set && (c->bs < MIN_BS || c->bs > MAX_BS || c->bs % 8))
		usage_error("--bs %llu: want a multiple of 8 from %d to %llu",
			    (unsigned long long)c->bs, MIN_BS,
			    (unsigned long long)MAX_BS);
	if (!c->verify_only) {
		if (!c->size_set)
			usage_error("--size is required");
		if (!c->size)
			usage_error("--size must be greater than 0");
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
	struct bitmask *cpus, *nodes;
	int cpu_bound = 0, mode, r = 0;

	if (!numa.available)
		return 0;
	if (c->node >= 0) {
		/* a memory-only node has no CPUs to run on: bind memory only */
		cpus = numa_allocate_cpumask();
		if (numa_node_to_cpus(c->node, cpus) == 0 &&
		    numa_bitmask_weight(cpus) > 0) {
			r = bind_cpus(c->node);
			if (r < 0)
				usage_error("--node %d: cannot run on its CPUs: %s",
					    c->node, strerror(-r));
			cpu_bound = 1;
		}
		numa_free_cpumask(cpus);
	}
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

static int block_ok(const uint64_t *w, uint64_t bs, uint64_t off)
{
	return w[0] == MAGIC && w[1] == off && w[2] == off / bs &&
	       w[4] == bs && w[HASH_WORD] == block_hash(w, bs / 8);
}

struct result {
	const char *status;
	char error[256];
	uint64_t bytes, writes, ge10ms, t_start, t_end, t_total0;
	struct hist wlat, flat;
	struct placement pc;
	int placed, cpu_bound, running;
	/* verify */
	int verified, dropped;
	uint64_t vblocks, vbad, vtime, vbs, vsize;
	int64_t vfirst_bad;
};

static void set_error(struct result *r, const char *status, const char *what,
		      int err)
{
	r->status = status;
	snprintf(r->error, sizeof(r->error), "%s: %s", what, strerror(err));
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
	uint64_t next_report;
	double slot = 0, tau = 0, tat;
	int fd, e;

	/* readable too: the placement query maps the file */
	fd = open(c->file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		usage_error("--file %s: cannot create: %s", c->file,
			    strerror(errno));
	seed = mix64(now_ns() ^ ((uint64_t)getpid() << 32));
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
		if (e) {
			set_error(r, "write_error", "write", -e);
			break;
		}
		hist_add(&r->wlat, lat);
		r->ge10ms += lat >= 10000000ull;
		r->writes++;
		r->bytes += c->bs;
		if (latlog)
			fprintf(latlog, "%llu %llu\n",
				(unsigned long long)(t0 - r->t_start),
				(unsigned long long)lat);
		if (c->fsync_mode == FS_EVERY && r->writes % c->fsync_every == 0 &&
		    (e = timed_fsync(fd, r))) {
			set_error(r, "write_error", "fsync", -e);
			break;
		}
		if (c->every > 0 && (r->t_end = now_ns()) >= next_report) {
			next_report = r->t_end + (uint64_t)(c->every * 1e9);
			r->running = 1;
			report(c, r);
			r->running = 0;
		}
	}
	/* the last block owns its slot: finishing the schedule makes the
	 * achieved rate equal --rate when nothing throttled us (less what the
	 * bucket held at the start, as with any token bucket) */
	if (c->rate && !stop_signal && !strcmp(r->status, "complete") &&
	    tat - tau > (double)now_ns())
		sleep_until_ns((uint64_t)(tat - tau));
	r->t_end = now_ns();

	if (r->bytes) {
		void *map = mmap(NULL, r->bytes, PROT_READ, MAP_SHARED, fd, 0);

		if (map != MAP_FAILED) {
			placement_query(map, (r->bytes + (uint64_t)numa.page_size - 1) /
					(uint64_t)numa.page_size, 1, &r->pc);
			r->placed = 1;
			munmap(map, r->bytes);
		}
	}
	if (!strcmp(r->status, "complete") &&
	    (c->fsync_mode == FS_END || c->verify) && (e = timed_fsync(fd, r)))
		set_error(r, "write_error", "fsync", -e);
	if (close(fd) < 0 && !strcmp(r->status, "complete"))
		set_error(r, "write_error", "close", errno);
	free(buf);
}

static void verify_file(const struct cfg *c, struct result *r)
{
	uint64_t size, bs = c->bs, t0 = now_ns(), hdr[HDR_WORDS], *buf;
	struct stat st;
	int fd, dc;

	fd = open(c->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		usage_error("--file %s: cannot open: %s", c->file,
			    strerror(errno));
	size = c->size_set ? c->size : (uint64_t)st.st_size;
	if (c->verify_only && !c->bs_set) {
		/* trust the first header only for its block size; a bad
		 * first block is still counted bad below */
		if (pread(fd, hdr, sizeof(hdr), 0) == sizeof(hdr) &&
		    hdr[0] == MAGIC && hdr[4] >= MIN_BS && hdr[4] <= MAX_BS &&
		    hdr[4] % 8 == 0)
			bs = hdr[4];
	}
	r->vbs = bs;
	r->vsize = size;
	buf = alloc_block(bs);
	/* a reread must come from the disk, not the cache we just wrote */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (!c->no_drop) {
		dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
		if (dc >= 0) {
			r->dropped = write(dc, "1\n", 2) == 2;
			close(dc);
		}
	}
	r->vfirst_bad = -1;
	for (uint64_t off = 0; off < size && !stop_signal; off += bs) {
		uint64_t want = size - off < bs ? size - off : bs, got = 0;

		while (got < want) {
			ssize_t n = pread(fd, (char *)buf + got, want - got,
					  (off_t)(off + got));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (uint64_t)n;
		}
		r->vblocks++;
		if (got != bs || !block_ok(buf, bs, off)) {
			r->vbad++;
			if (r->vfirst_bad < 0)
				r->vfirst_bad = (int64_t)off;
		}
	}
	close(fd);
	free(buf);
	r->verified = 1;
	r->vtime = now_ns() - t0;
	if (r->vbad && !strcmp(r->status, "complete"))
		r->status = "verify_failed";
}

static int report(const struct cfg *c, const struct result *r)
{
	struct json j;
	double el = (double)(r->t_end - r->t_start) / 1e9;
	uint64_t zero = 0;
	int e;

	json_begin(&j);
	json_str(&j, "program", "dirtier");
	json_u64(&j, "version", 1);
	json_str(&j, "status", r->running ? "running" :
		 stop_signal ? "interrupted" : r->status);
	json_str(&j, "error", r->error);
	json_i64(&j, "signal", stop_signal);
	json_bool(&j, "numa_available", numa.available);
	json_i64(&j, "nodes", numa.nnodes);
	json_i64(&j, "node", c->node);
	json_str(&j, "policy", policy_names[c->policy]);
	json_bool(&j, "cpu_bound", r->cpu_bound);
	json_str(&j, "file", c->file);
	json_u64(&j, "size_bytes", c->verify_only ? r->vsize : c->size);
	json_u64(&j, "bs_bytes", r->verified ? r->vbs : c->bs);
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
	json_u64(&j, "bytes_written", r->bytes);
	json_u64(&j, "writes", r->writes);
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
	json_bool(&j, "verify_drop_caches", r->dropped);
	json_u64(&j, "verify_blocks", r->vblocks);
	json_u64(&j, "verify_bad_blocks", r->vbad);
	json_i64(&j, "verify_first_bad_offset_bytes", r->verified ? r->vfirst_bad : -1);
	json_num(&j, "verify_s", (double)r->vtime / 1e9);
	json_num(&j, "total_s", (double)(now_ns() - r->t_total0) / 1e9);
	e = json_write(&j, c->report);
	if (e) {
		fprintf(stderr, "dirtier: --report %s: cannot write: %s\n",
			c->report, strerror(-e));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cfg c;
	struct result *r;
	FILE *latlog = NULL;
	int rc = 0;

	prog = "dirtier";
	numa_env_init();
	parse_args(argc, argv, &c);
	r = calloc(1, sizeof(*r));
	if (!r)
		usage_error("out of memory");
	r->status = "complete";
	r->t_total0 = now_ns();
	r->pc.counts = calloc((size_t)numa.nnodes, sizeof(uint64_t));
	if (!r->pc.counts)
		usage_error("out of memory");
	r->cpu_bound = apply_binding(&c);
	if (c.latlog && !(latlog = fopen(c.latlog, "w")))
		usage_error("--latency-log %s: cannot create: %s", c.latlog,
			    strerror(errno));
	/* few, large flushes: the log often lives on the guest's 9p share,
	 * and each flush is time between two timed write()s */
	if (latlog)
		setvbuf(latlog, NULL, _IOFBF, 1 << 20);
	install_stop_handlers();

	if (!c.verify_only)
		write_file(&c, latlog, r);
	else
		r->t_start = r->t_end = now_ns();
	if (latlog && fclose(latlog) != 0) {
		fprintf(stderr, "dirtier: --latency-log %s: cannot write: %s\n",
			c.latlog, strerror(errno));
		rc = 1;
	}
	if ((c.verify || c.verify_only) && !stop_signal &&
	    !strcmp(r->status, "complete"))
		verify_file(&c, r);
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
	free(r->pc.counts);
	free(r);
	if (stop_signal)
		return 128 + stop_signal;
	return rc;
}
