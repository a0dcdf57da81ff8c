/* dpfuzz: the JSON report (keys described at the top of dpfuzz.c) and the
 * verdict of a run. */
#include "dpfuzz.h"

#include <string.h>

/* <fk>_<ck>_<stat> for each stat of s */
static void put_counts(struct json *j, const char *fk, const char *ck,
		       const struct counts *s, int valid)
{
	char key[96];

#define K(stat) (snprintf(key, sizeof(key), "%s_%s_%s", fk, ck, stat), key)
	json_u64(j, K("tried"), s->tried);
	if (valid) {
		json_u64(j, K("valid_ok"), s->valid_ok);
		json_u64(j, K("valid_failed"), s->tried - s->valid_ok);
		return;
	}
	json_u64(j, K("rejected"), s->rejected);
	json_u64(j, K("accepted_bad"), s->accepted_bad);
	json_u64(j, K("wrong_errno"), s->wrong_errno);
	json_u64(j, K("state_changed"), s->state_changed);
#undef K
}

/* program, run settings, initial state, totals */
static void put_head(struct json *j, const struct run *r)
{
	char cls[256] = "";

	for (int c = 1; c < NCLASSES; c++)
		if (cfg.classes & (1u << c))
			snprintf(cls + strlen(cls), sizeof(cls) - strlen(cls), "%s%s",
				 *cls ? "," : "", class_name[c]);
	json_str(j, "program", "dpfuzz");
	json_str(j, "version", VERSION);
	json_str(j, "status", r->status);
	json_str(j, "error", r->error);
	json_u64(j, "signal", (uint64_t)r->sig);
	json_u64(j, "seed", cfg.seed);
	json_str(j, "dir", cfg.dir);
	json_u64(j, "count", cfg.count);
	json_u64(j, "valid_every", cfg.valid_every);
	json_u64(j, "threads", (uint64_t)cfg.threads);
	json_str(j, "classes", cls);
	json_str(j, "initial_mode", r->init.mode >= 0 ? mode_names[r->init.mode] : "?");
	json_i64(j, "initial_mode_code", r->init.mode);
	json_i64(j, "initial_pressure", r->init.pressure);
	json_i64(j, "initial_recovery", r->init.recovery);
	json_i64(j, "initial_node", r->init.node);
	json_u64(j, "nodes", (uint64_t)r->init.nn);
	json_num(j, "elapsed_s", (double)(r->t1 - r->t0) / 1e9);
	json_u64(j, "findings", findings);
	json_str(j, "first_finding", first_finding);
	json_u64(j, "io_errors", io_errors);
	json_u64(j, "resyncs", r->x->resyncs);
	json_u64(j, "reader_checks", reader_checks);
	json_u64(j, "pressure_writes_taken", atomic_load(&pressure_writes_taken));
}

/* per file and class, per file all invalid, then summed over files */
static void put_all_counts(struct json *j, const struct fuzzer *x)
{
	struct counts all[NCLASSES], file_inv[NFILES], all_inv;

	memset(all, 0, sizeof(all));
	memset(file_inv, 0, sizeof(file_inv));
	memset(&all_inv, 0, sizeof(all_inv));
	for (int f = 0; f < NFILES; f++) {
		for (int c = 0; c < NCLASSES; c++) {
			const struct counts *s = &x->counts[f][c];

			counts_add(&all[c], s);
			if (c != CLASS_VALID) {
				counts_add(&file_inv[f], s);
				counts_add(&all_inv, s);
			}
			if (c == CLASS_VALID ? file_writable(f) : class_applies(f, c))
				put_counts(j, file_key[f], class_name[c], s,
					   c == CLASS_VALID);
		}
		put_counts(j, file_key[f], "invalid", &file_inv[f], 0);
	}
	for (int c = 0; c < NCLASSES; c++)
		put_counts(j, "all", class_name[c], &all[c], c == CLASS_VALID);
	put_counts(j, "all", "invalid", &all_inv, 0);
}

/* 0 or -errno */
int write_report(const struct run *r)
{
	struct json j;

	json_begin(&j);
	put_head(&j, r);
	put_all_counts(&j, r->x);
	return json_write(&j, cfg.report);
}

/* every invalid write rejected rightly without a state change, every
 * valid one taken, no I/O error */
int run_clean(const struct fuzzer *x)
{
	if (findings || io_errors)
		return 0;
	for (int f = 0; f < NFILES; f++)
		for (int c = 0; c < NCLASSES; c++) {
			const struct counts *s = &x->counts[f][c];

			if (s->accepted_bad || s->wrong_errno || s->state_changed ||
			    (c == CLASS_VALID && s->valid_ok != s->tried))
				return 0;
		}
	return 1;
}
