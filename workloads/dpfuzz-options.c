/* dpfuzz: --help, the options and the paths of the five files. */
#include "dpfuzz.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct config cfg;
char file_path[NFILES][4096];

const char *const class_name[NCLASSES] = {
	"valid", "out_of_range", "negative", "plus_sign", "huge",
	"non_numeric", "trailing_garbage", "nul_byte", "empty", "oversize",
	"bad_buffer", "partial", "concurrent", "read_only",
};
const char *const class_help[NCLASSES] = {
	"",
	"above the maximum (and 0 for recovery); unknown names for the mode",
	"a minus sign: -0, -1, values that wrap to a valid one",
	"a plus sign before a valid value (\"+512\")",
	"2^32+x (wraps to a valid x in 32 bits), 2^64 and beyond, 10^k",
	"letters, hex, floats, other scripts' digits, symbols, binary",
	"a valid value with characters before or after it",
	"a NUL byte after, before or inside a valid value",
	"a zero-length write, or only a newline",
	"16 bytes or more (the kernel's buffer), up to 64 KiB",
	"a buffer the kernel cannot read: NULL, unmapped, crossing into a "
	"guard page, a kernel address (EFAULT)",
	"split writes, pwrite/lseek/read before write, a second write on "
	"one descriptor",
	"--threads writers at once, a reader checking meanwhile",
	"well-formed values written to the read-only files",
};

/* class c selected, and meant for file f */
int class_applies(int f, int c)
{
	if (!(cfg.classes & (1u << c)))
		return 0;
	if (c == CLASS_READ_ONLY)
		return !file_writable(f);
	return c != CLASS_VALID;
}

static void help(void)
{
	printf(
"Usage: dpfuzz [options]\n"
"Invalid (and some valid) writes to the dirty pressure debugfs files; after\n"
"each, all five files are read back and checked against what may change.\n"
"\n"
"  --dir DIR         the files' directory (default /sys/kernel/debug/vm)\n"
"  --count N         invalid writes per file, at least (default 1000)\n"
"  --valid-every N   a valid write after every N invalid ones (default 20)\n"
"  --threads N       concurrent writers (default 4, 1..%d)\n"
"  --classes LIST    comma-separated classes to run (default: all)\n"
"  --seed N          random seed (default: from the clock; in the report)\n"
"  --max-findings N  print at most N findings on stderr (default 20)\n"
"  --report FILE     JSON report, written atomically, also on SIGTERM/SIGINT\n"
"  --help            this text\n"
"\n"
"Classes of invalid writes:\n", MAXTHREADS);
	for (int c = 1; c < NCLASSES; c++)
		printf("  %-17s %s\n", class_name[c], class_help[c]);
	printf(
"\n"
"The state is restored (mode, recovery, pressure) at the end.\n"
"Exit: 0 all rejected and unchanged, valid writes took effect; 1 a finding\n"
"or an I/O error; 2 bad arguments or cannot start; 128+N after signal N.\n");
}

enum {
	OPT_HELP, OPT_DIR, OPT_COUNT, OPT_VALID, OPT_THREADS, OPT_CLASSES,
	OPT_SEED, OPT_MAXF, OPT_REPORT,
};

static const struct opt opts[] = {
	{ "help", 0, OPT_HELP },
	{ "dir", 1, OPT_DIR },
	{ "count", 1, OPT_COUNT },
	{ "valid-every", 1, OPT_VALID },
	{ "threads", 1, OPT_THREADS },
	{ "classes", 1, OPT_CLASSES },
	{ "seed", 1, OPT_SEED },
	{ "max-findings", 1, OPT_MAXF },
	{ "report", 1, OPT_REPORT },
	{ NULL, 0, 0 },
};

/* "huge,nul_byte": a bit per class */
static unsigned parse_classes(const char *v)
{
	unsigned mask = 0;
	const char *p = v;

	if (!*v)
		usage_error("--classes: empty list");
	while (*p) {
		size_t n = strcspn(p, ",");
		int c;

		for (c = 1; c < NCLASSES; c++)
			if (strlen(class_name[c]) == n &&
			    !strncmp(class_name[c], p, n))
				break;
		if (c == NCLASSES)
			usage_error("--classes: unknown class '%.*s' (see --help)",
				    (int)n, p);
		mask |= 1u << c;
		p += n;
		if (*p == ',' && !*++p)
			usage_error("--classes: empty class name in '%s'", v);
	}
	return mask;
}

static void set_option(int id, const char *v)
{
	uint64_t n;

	switch (id) {
	case OPT_HELP:
		help();
		exit(0);
	case OPT_DIR:
		if (!*v)
			usage_error("--dir: empty path");
		cfg.dir = v;
		break;
	case OPT_COUNT:
		cfg.count = parse_count("count", v);
		if (cfg.count < 1 || cfg.count > 10000000)
			usage_error("--count %s: want 1..10000000", v);
		break;
	case OPT_VALID:
		cfg.valid_every = parse_count("valid-every", v);
		if (cfg.valid_every < 1)
			usage_error("--valid-every must be at least 1");
		break;
	case OPT_THREADS:
		n = parse_count("threads", v);
		if (n < 1 || n > MAXTHREADS)
			usage_error("--threads %s: want 1..%d", v, MAXTHREADS);
		cfg.threads = (int)n;
		break;
	case OPT_CLASSES:
		cfg.classes = parse_classes(v);
		break;
	case OPT_SEED:
		cfg.seed = parse_count("seed", v);
		cfg.seed_set = 1;
		break;
	case OPT_MAXF:
		cfg.max_findings = parse_count("max-findings", v);
		break;
	case OPT_REPORT:
		if (!*v)
			usage_error("--report: empty path");
		cfg.report = v;
		break;
	}
}

/* the five files' paths, each of which must exist */
static void set_file_paths(void)
{
	for (int f = 0; f < NFILES; f++) {
		struct stat sb;

		if ((size_t)snprintf(file_path[f], sizeof(file_path[f]), "%s/%s",
				     cfg.dir, file_name[f]) >= sizeof(file_path[f]))
			usage_error("--dir: path too long");
		if (stat(file_path[f], &sb) < 0)
			usage_error("--dir %s: no %s: %s (debugfs mounted, dirty pressure kernel?)",
				    cfg.dir, file_name[f], strerror(errno));
	}
}

void parse_args(int argc, char **argv)
{
	const char *v;
	int id, i = 1;

	cfg.dir = "/sys/kernel/debug/vm";
	cfg.count = 1000;
	cfg.valid_every = 20;
	cfg.threads = 4;
	cfg.max_findings = 20;
	cfg.classes = ((1u << NCLASSES) - 1) & ~1u;
	while ((id = opt_next(argc, argv, opts, &i, &v)) >= 0)
		set_option(id, v);
	set_file_paths();
	if (cfg.report)
		report_path_check("report", cfg.report);
}
