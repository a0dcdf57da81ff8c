// Drawing half of the dirty_pressure KernelShark plugin.  Node N's pressure is drawn in its own
// row, the task row of pid DP_ROW_PID(N) that dpsession puts in the session (see
// dirty_pressure.h); the CPU and real task rows are left alone.
//
// In a row: the pressure as a step curve on a log scale, y = log2(1 + p) / log2(1025) of the
// row's height (0 at the bottom, 1 a tenth up, 15 at 40 %, 127 at 70 %, 1024 at the top), so
// a fall to 0 and a recovery of a few steps both show; the area under the curve is red
// below 256, amber below 768, green above, and the rest of the row a paler shade of the same
// (a pressure of 0 tints the whole row red); the value is printed where it turns (the bottom
// of each fall, the top before it) and at both ends.  A fast_down is a red tick
// hanging from the top of the row, a slow_up a short green tick above the curve.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dirty_pressure.h"
#include "KsCmakeDef.hpp"
#include "KsPlotTools.hpp"
#include "KsPlugins.hpp"

using namespace KsPlot;

static const Color curve_col(30, 30, 30);
static const Color fast_col(214, 39, 40);	/* fast_down: tests/host/analysis.t counts it */
static const Color slow_col(44, 160, 44);	/* slow_up: likewise */
static const Color text_col(0, 0, 0);

/* fill by level (< 256 red, < 768 amber, else green): the area under the curve, and a
 * paler shade of the same over the rest of the row, so a pressure of 0 still tints it */
static const Color &fill_of(int v, bool area)
{
	static const Color low(240, 150, 150), mid(246, 200, 120), high(170, 222, 170);
	static const Color low_bg(252, 226, 226), mid_bg(253, 240, 214), high_bg(232, 246, 232);

	if (area)
		return v < 256 ? low : v < 768 ? mid : high;
	return v < 256 ? low_bg : v < 768 ? mid_bg : high_bg;
}

/* Text at a point (x, baseline y).  The font needs the GL context, which only draw() is
 * sure to have, so it is loaded there, once. */
class DpText : public PlotObject {
public:
	DpText(const std::string &t, int x, int y) : _t(t), _x(x), _y(y) { _color = text_col; }

private:
	void _draw(const Color &col, float) const override
	{
		static ksplot_font font;
		static bool tried;

		if (!ksplot_font_is_loaded(&font)) {
			if (tried)
				return;
			tried = true;
			if (!ksplot_init_font(&font, 11, TT_FONT_FILE))
				return;
		}
		ksplot_print_text(&font, col.color_c_ptr(), _x, _y, _t.c_str());
	}

	std::string _t;
	int _x, _y;
};

/* shapes in drawing order; handed to KernelShark's forward list back to front */
struct Shapes {
	std::vector<PlotObject *> v;

	void line(int x0, int y0, int x1, int y1, const Color &c, float w)
	{
		Line *l = new Line(Point(x0, y0), Point(x1, y1));

		l->_color = c;
		l->_size = w;
		v.push_back(l);
	}
	void rect(int x0, int y0, int x1, int y1, const Color &c)
	{
		Rectangle *r = new Rectangle();

		r->setPoint(0, x0, y0);
		r->setPoint(1, x1, y0);
		r->setPoint(2, x1, y1);
		r->setPoint(3, x0, y1);
		r->setFill(true);
		r->_color = c;
		v.push_back(r);
	}
	void hand_over(PlotObjList *list)
	{
		for (auto it = v.rbegin(); it != v.rend(); ++it)
			list->push_front(*it);
		v.clear();
	}
};

static bool for_node(int field_nid, int nid)
{
	return field_nid == nid || field_nid == DP_ALL_NODES;
}

extern "C" void draw_dirty_pressure(kshark_cpp_argv *argv_c, int sd, int val, int draw_action)
{
	KsCppArgV *argv = KS_ARGV_TO_CPP(argv_c);
	plugin_dp_context *ctx = __get_context(sd);
	kshark_trace_histo *histo = argv->_histo;
	Graph *graph = argv->_graph;
	int nid = DP_ROW_NID(val);

	if (!(draw_action & KSHARK_TASK_DRAW) || nid < 0 || !ctx || !ctx->data || !graph)
		return;
	if (!ctx->sorted) {
		kshark_data_container_sort(ctx->data);
		ctx->sorted = 1;
	}
	int nbins = std::min<int>(graph->size(), histo->n_bins);
	if (nbins < 2)
		return;

	int base = graph->base() - 1, h = graph->height() - 3, top = base - h;
	auto y_of = [&](int v) {
		return base - (int)std::lround(h * std::log2(1.0 + std::min(std::max(v, 0), 1024)) /
					       std::log2(1025.0));
	};
	kshark_data_field_int64 **d = ctx->data->data;
	ssize_t n = ctx->data->size, i = 0;
	int64_t t0 = ksmodel_bin_ts(histo, 0);
	int cur = -1, known = 0;

	/* the value before the node's first change in the trace is that change's `old` */
	for (ssize_t k = 0; k < n; k++)
		if (for_node(DP_NID(d[k]->field), nid)) {
			cur = DP_OLD(d[k]->field);
			known = 1;
			break;
		}
	/* no change traced: the value the kernel starts from, drawn as such */
	if (cur < 0)
		cur = 1024;
	for (; i < n && d[i]->entry->ts < t0; i++)
		if (for_node(DP_NID(d[i]->field), nid))
			cur = DP_NEW(d[i]->field);

	/* per bin: the value at its end and the lowest within it, and what moved it */
	std::vector<int> end(nbins), low(nbins), xs(nbins);
	std::vector<char> fast(nbins), slow(nbins);
	for (int b = 0; b < nbins; b++) {
		int64_t tend = ksmodel_bin_ts(histo, b + 1);
		int lo = cur;

		for (; i < n && d[i]->entry->ts < tend; i++) {
			if (!for_node(DP_NID(d[i]->field), nid))
				continue;
			cur = DP_NEW(d[i]->field);
			lo = std::min(lo, cur);
			fast[b] |= DP_REASON(d[i]->field) == DP_FAST_DOWN;
			slow[b] |= DP_REASON(d[i]->field) == DP_SLOW_UP;
		}
		end[b] = cur;
		low[b] = lo;
		xs[b] = graph->bin(b)._val.x();
	}

	Shapes s;
	/* the fill: one rectangle per run of bins with the same value */
	for (int b = 0; b < nbins;) {
		int e = b;

		while (e + 1 < nbins && end[e + 1] == end[b] && low[e + 1] == end[b])
			e++;
		int x1 = e + 1 < nbins ? xs[e + 1] : xs[e] + 1;
		s.rect(xs[b], top, x1, base, fill_of(end[b], false));
		s.rect(xs[b], y_of(end[b]), x1, base, fill_of(end[b], true));
		b = e + 1;
	}
	/* the step curve, through each bin's lowest value so a fall and rise within one bin shows */
	int py = y_of(end[0]);
	for (int b = 1; b < nbins; b++) {
		int yl = y_of(low[b]), ye = y_of(end[b]);

		s.line(xs[b - 1], py, xs[b], py, curve_col, 2);
		if (yl != py || ye != py) {
			s.line(xs[b], std::min(py, ye), xs[b], yl, curve_col, 2);
		}
		py = ye;
	}
	s.line(xs[nbins - 1], py, xs[nbins - 1] + 1, py, curve_col, 2);
	for (int b = 0; b < nbins; b++) {
		if (fast[b])
			s.line(xs[b], top, xs[b], top + 6, fast_col, 2);
		if (slow[b])
			s.line(xs[b], y_of(end[b]) - 2, xs[b], y_of(end[b]) - 6, slow_col, 2);
	}

	/* values where the curve turns (the top before each fall, left of it; the bottom after
	 * it, right of it) and at both ends; where they would overlap, the ends and the bottoms
	 * win */
	struct Cand { int b, v, prio; bool left; };
	std::vector<Cand> cands;
	cands.push_back({0, end[0], 3, false});
	cands.push_back({nbins - 1, end[nbins - 1], 3, true});
	for (int b = 1; b < nbins; b++) {
		bool falls = low[b] < end[b - 1];

		if (!falls)
			continue;
		if (!(b > 1 && low[b - 1] < end[b - 2]))
			cands.push_back({b, end[b - 1], 1, true});
		if (!(b + 1 < nbins && low[b + 1] < end[b]))
			cands.push_back({b, low[b], 2, false});
	}
	std::stable_sort(cands.begin(), cands.end(),
			 [](const Cand &a, const Cand &c) { return a.prio > c.prio; });
	const int cw = 7, gap = 6;	/* about a character of the 11 px font, and a margin */
	std::vector<std::pair<int, int>> placed;
	for (const Cand &c : cands) {
		std::string t = std::to_string(c.v);
		if (!known && c.b == 0)
			t += " (no change traced)";
		int w = cw * (int)t.size();
		int x = c.left ? xs[c.b] - 3 - w : xs[c.b] + 3;
		x = std::max(xs[0] + 2, std::min(x, xs[nbins - 1] - w));
		bool clash = false;
		for (auto &p : placed)
			clash |= x < p.second + gap && p.first < x + w + gap;
		if (clash)
			continue;
		placed.push_back({x, x + w});
		int y = y_of(c.v);
		/* above the curve when it fits, else just below it */
		int ty = y - 3 - 11 >= top ? y - 3 : std::min(y + 13, base - 1);
		s.v.push_back(new DpText(t, x, ty));
	}
	s.hand_over(argv->_shapes);
}
