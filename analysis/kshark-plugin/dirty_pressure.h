/* KernelShark plugin: each NUMA node's dirty pressure (writeback:dirty_pressure) in a plot row
 * of its own, with fast_down and slow_up marked.  The data half is C (dirty_pressure.c);
 * drawing is C++ (DirtyPressure.cpp) because in libkshark 2.2.1 only the C++ argument
 * vector (KsCppArgV) carries the graph geometry, as in KernelShark's own plugins.
 *
 * KernelShark 2.2.1 has CPU rows, task rows and combos, no plugin-defined rows.  A node's
 * row is therefore a task row of a pid no task can have, DP_ROW_PID(nid) (Linux pids are
 * below PID_MAX_LIMIT, 4194304 on 64-bit): the session (dpsession) lists those pids as
 * "TaskPlots", the plugin names them "nodeN pressure" (the row label reads
 * "node0 pressure-4194304") and draws node N's pressure on that row and on no other. */
#ifndef DPLAB_KS_DIRTY_PRESSURE_H
#define DPLAB_KS_DIRTY_PRESSURE_H

#include "libkshark.h"
#include "libkshark-plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DP_MAX_NODES 64

/* the task row that carries node nid's pressure, and back */
#define DP_ROW_PID_BASE	4194304
#define DP_ROW_PID(nid)	(DP_ROW_PID_BASE + (nid))
#define DP_ROW_NID(pid)	((pid) >= DP_ROW_PID_BASE && (pid) < DP_ROW_PID_BASE + DP_MAX_NODES ? \
			 (pid) - DP_ROW_PID_BASE : -1)
/* a debugfs write (nid -1) sets every memory node */
#define DP_ALL_NODES	0xffff

/* One int64 per event: new | old << 16 | reason << 32 | nid << 40. */
#define DP_PACK(nid, old, new, reason) \
	((int64_t)(new) | (int64_t)(old) << 16 | (int64_t)(reason) << 32 | (int64_t)(nid) << 40)
#define DP_NEW(f)	((int)((f) & 0xffff))
#define DP_OLD(f)	((int)(((f) >> 16) & 0xffff))
#define DP_REASON(f)	((int)(((f) >> 32) & 0xff))
#define DP_NID(f)	((int)(((f) >> 40) & 0xffff))

enum { DP_FAST_DOWN = 0, DP_SLOW_UP = 1, DP_WRITE = 2, DP_RESET = 3 };

struct plugin_dp_context {
	int event_id;
	struct kshark_data_container *data;
	int n_nodes;	/* highest nid seen + 1 */
	int sorted;
};

struct plugin_dp_context *__get_context(int sd);

void draw_dirty_pressure(struct kshark_cpp_argv *argv, int sd, int val, int draw_action);

#ifdef __cplusplus
}
#endif

#endif
