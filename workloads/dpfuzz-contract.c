/* dpfuzz: the contract (patch 4): which files take writes, and which writes
 * and errors are right.  See the top of dpfuzz.c. */
#include "dpfuzz.h"

#include <errno.h>
#include <string.h>

const char *const file_name[NFILES] = {
	"dirty_pressure", "dirty_pressure_node", "dirty_pressure_mode",
	"dirty_pressure_recovery", "dirty_pressure_nodes",
};
const char *const file_key[NFILES] = {
	"pressure", "node", "mode", "recovery", "nodes",
};
const char *const mode_names[3] = { "off", "global", "node" };

int file_writable(int f)
{
	return f == FILE_PRESSURE || f == FILE_MODE || f == FILE_RECOVERY;
}

int file_numeric(int f)
{
	return f != FILE_MODE;
}

/* Is this write valid at position 0?  1 with the value in *val (the mode's
 * index for dirty_pressure_mode), else 0. */
int contract_valid(int f, const char *b, size_t len, long *val)
{
	size_t n = len;

	if (!file_writable(f) || len == 0 || len > 15 || memchr(b, '\0', len))
		return 0;
	if (b[n - 1] == '\n')
		n--;
	if (n == 0)
		return 0;
	if (f == FILE_MODE) {
		for (int i = 0; i < 3; i++)
			if (strlen(mode_names[i]) == n &&
			    !memcmp(b, mode_names[i], n)) {
				*val = i;
				return 1;
			}
		return 0;
	}
	long v = 0;

	for (size_t i = 0; i < n; i++) {
		if (b[i] < '0' || b[i] > '9')
			return 0;
		v = v * 10 + (b[i] - '0');	/* n <= 14 digits: no overflow */
	}
	if (v > PMAX || (f == FILE_RECOVERY && v < 1))
		return 0;
	*val = v;
	return 1;
}

/* the errors that count as rejecting a write; bad_buffer: the kernel cannot
 * read the buffer; is_pwrite: a pwrite(), which the VFS refuses with ESPIPE
 * before the file sees it (seq_open() clears FMODE_PWRITE) */
int errno_rejects(int f, int bad_buffer, int is_pwrite, int e)
{
	if (is_pwrite && e == ESPIPE)
		return 1;
	if (file_writable(f))
		return bad_buffer ? e == EFAULT : e == EINVAL;
	return e == EINVAL || e == EACCES || e == EPERM ||
	       (bad_buffer && e == EFAULT);
}
