// Drawing half of the dirty_pressure KernelShark plugin.  On every CPU row it draws each
// node's pressure as a step line on a fixed 0..1024 scale (bottom of the row = 0, top =
// 1024), one colour per node; a fast_down is a red tick across the row, a slow_up a short
// green tick on the line.
#include <algorithm>
#include <vector>

#include "dirty_pressure.h"
#include "KsPlotTools.hpp"
#include "KsPlugins.hpp"

using namespace KsPlot;

static const Color node_colours[] = {
	Color(0, 0, 0), Color(31, 119, 180), Color(148, 103, 189), Color(255, 127, 14),
	Color(23, 190, 207), Color(140, 86, 75), Color(227, 119, 194), Color(127, 127, 127),
};

static void add_line(KsCppArgV *argv, int x0, int y0, int x1, int y1, const Color &c, float w)
{
	Line *l = new Line(Point(x0, y0), Point(x1, y1));

	l->_color = c;
	l->_size = w;
	argv->_shapes->push_front(l);
}

extern "C" void draw_dirty_pressure(kshark_cpp_argv *argv_c, int sd, int val, int draw_action)
{
	KsCppArgV *argv = KS_ARGV_TO_CPP(argv_c);
	plugin_dp_context *ctx = __get_context(sd);
	kshark_trace_histo *histo = argv->_histo;
	Graph *graph = argv->_graph;
	int nbins, h, base;

	(void)val;
	if (!(draw_action & KSHARK_CPU_DRAW) || !ctx || !ctx->data || ctx->data->size == 0)
		return;
	if (!ctx->sorted) {
		kshark_data_container_sort(ctx->data);
		ctx->sorted = 1;
	}
	nbins = std::min<int>(graph->size(), histo->n_bins);
	if (nbins < 2)
		return;
	h = graph->height() - 2;
	base = graph->bin(0)._val.y() - 1;
	auto y_of = [&](int v) { return base - h * std::min(v, 1024) / 1024; };

	for (int nid = 0; nid < ctx->n_nodes; nid++) {
		const Color &col = node_colours[nid % (sizeof(node_colours) / sizeof(node_colours[0]))];
		ssize_t i = 0, n = ctx->data->size;
		kshark_data_field_int64 **d = ctx->data->data;
		int cur = -1, prev_x = -1, prev_y = -1;

		/* the value before the node's first change is that event's `old` */
		for (ssize_t k = 0; k < n; k++)
			if (DP_NID(d[k]->field) == nid) {
				cur = DP_OLD(d[k]->field);
				break;
			}
		if (cur < 0)
			continue;
		/* skip changes before the visible range */
		int64_t t0 = ksmodel_bin_ts(histo, 0);
		for (; i < n && d[i]->entry->ts < t0; i++)
			if (DP_NID(d[i]->field) == nid)
				cur = DP_NEW(d[i]->field);
		for (int b = 0; b < nbins; b++) {
			int64_t tend = ksmodel_bin_ts(histo, b + 1);
			int x = graph->bin(b)._val.x(), fast = 0, slow = 0;

			for (; i < n && d[i]->entry->ts < tend; i++) {
				if (DP_NID(d[i]->field) != nid)
					continue;
				cur = DP_NEW(d[i]->field);
				fast |= DP_REASON(d[i]->field) == DP_FAST_DOWN;
				slow |= DP_REASON(d[i]->field) == DP_SLOW_UP;
			}
			int y = y_of(cur);
			if (prev_x >= 0) {
				add_line(argv, prev_x, prev_y, x, prev_y, col, 2);
				if (y != prev_y)
					add_line(argv, x, prev_y, x, y, col, 2);
			}
			if (fast)
				add_line(argv, x, base, x, base - h, Color(214, 39, 40), 1);
			if (slow)
				add_line(argv, x, y - 3, x, y + 3, Color(44, 160, 44), 2);
			prev_x = x;
			prev_y = y;
		}
	}
}
