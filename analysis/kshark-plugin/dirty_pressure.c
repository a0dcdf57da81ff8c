/* Data half of the dirty_pressure KernelShark plugin: collect every writeback:dirty_pressure
 * event of the stream into a data container while KernelShark loads the trace. */
#define _GNU_SOURCE /* ssize_t in libkshark.h under -std=c11 */
#include <stdio.h>
#include <stdlib.h>

#include "dirty_pressure.h"
#include "libkshark-tepdata.h"
#include <event-parse.h>

static void dp_free_context(struct plugin_dp_context *ctx)
{
	if (ctx)
		kshark_free_data_container(ctx->data);
}

KS_DEFINE_PLUGIN_CONTEXT(struct plugin_dp_context, dp_free_context);

static void dp_get_fields(struct kshark_data_stream *stream, void *rec,
			  struct kshark_entry *entry)
{
	struct plugin_dp_context *ctx = __get_context(stream->stream_id);
	int64_t nid, old, nw, reason;

	if (!ctx)
		return;
	if (kshark_read_record_field_int(stream, rec, "nid", &nid) ||
	    kshark_read_record_field_int(stream, rec, "old", &old) ||
	    kshark_read_record_field_int(stream, rec, "new", &nw) ||
	    kshark_read_record_field_int(stream, rec, "reason", &reason))
		return;
	/* a debugfs write (nid -1) sets every node */
	if (nid == -1)
		nid = DP_ALL_NODES;
	/* values outside the documented ranges would not fit the packing: drop them */
	else if (nid < 0 || nid >= DP_MAX_NODES)
		return;
	if (old < 0 || old > 0xffff || nw < 0 || nw > 0xffff || reason < 0 || reason > 0xff)
		return;
	kshark_data_container_append(ctx->data, entry, DP_PACK(nid, old, nw, reason));
	if (nid != DP_ALL_NODES && nid + 1 > ctx->n_nodes)
		ctx->n_nodes = (int)nid + 1;
	ctx->sorted = 0;
}

int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_dp_context *ctx = __init(stream->stream_id);

	if (!ctx)
		goto fail;
	ctx->event_id = kshark_find_event_id(stream, "writeback/dirty_pressure");
	if (ctx->event_id < 0) {
		/* a stock kernel's trace: nothing to draw, and not an error */
		fprintf(stderr, "dirty_pressure plugin: no writeback/dirty_pressure in %s\n",
			stream->file);
		goto fail;
	}
	ctx->data = kshark_init_data_container();
	if (!ctx->data)
		goto fail;
	/* label the node rows: a task row's label is its comm, "-", its pid */
	if (kshark_is_tep(stream) && kshark_get_tep(stream)) {
		char comm[32];

		for (int nid = 0; nid < DP_MAX_NODES; nid++) {
			snprintf(comm, sizeof(comm), "node%d pressure", nid);
			tep_register_comm(kshark_get_tep(stream), comm, DP_ROW_PID(nid));
		}
	}
	kshark_register_event_handler(stream, ctx->event_id, dp_get_fields);
	kshark_register_draw_handler(stream, draw_dirty_pressure);
	return 1;
fail:
	__close(stream->stream_id);
	return 0;
}

int KSHARK_PLOT_PLUGIN_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_dp_context *ctx = __get_context(stream->stream_id);
	int ret = 0;

	if (ctx) {
		kshark_unregister_event_handler(stream, ctx->event_id, dp_get_fields);
		kshark_unregister_draw_handler(stream, draw_dirty_pressure);
		ret = 1;
	}
	__close(stream->stream_id);
	return ret;
}
