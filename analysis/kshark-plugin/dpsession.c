/*
 * dpsession: write a KernelShark 2.2.1 session (kshark.config.session) for a run's trace.dat:
 * the trace loaded, only writeback and vmscan events shown, every CPU plotted, and, with the
 * dirty_pressure plugin attached, one row per memory node under the CPU rows on which the
 * plugin draws that node's pressure (the task row of pid DP_ROW_PID(nid): dirty_pressure.h).
 *
 * The memory nodes: --nodes LIST, else the run's guest-topology.txt beside the trace (nodes
 * with memtotal_kb > 0), else the nodes the trace's writeback:dirty_pressure events name.
 *
 * The session is built with libkshark's own exporters (kshark_export_all_dstreams,
 * kshark_export_all_plugins, kshark_export_model), so KernelShark reads back exactly what
 * it would have written itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libkshark.h"
#include "libkshark-model.h"
#include "libkshark-plugin.h"
#include "libkshark-tepdata.h"

#include "dirty_pressure.h"

/* libkshark-plot.h defines this for the GUI; the JSON document is a json_object */
#define KS_JSON_CAST(d) ((json_object *)(d))

static const char *prog = "dpsession";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s TRACE.dat --out SESSION.json [--plugin PLUGIN.so] [--nodes LIST]\n"
		"\n"
		"Writes a KernelShark session for TRACE.dat: writeback and vmscan events shown,\n"
		"all CPUs plotted, and (with --plugin) the dirty_pressure plugin attached with\n"
		"one pressure row per memory node under the CPU rows.  The memory nodes: --nodes\n"
		"(e.g. 0,1), else guest-topology.txt beside TRACE.dat (memtotal_kb > 0), else the\n"
		"nodes the trace's writeback:dirty_pressure events name.\n"
		"Open it with: kernelshark -s SESSION.json\n"
		"Exit: 0 written, 2 bad input (one line on stderr says what).\n", prog);
}

static int die2(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s%s\n", prog, arg ? arg : "", arg ? ": " : "", what);
	exit(2);
}

static struct kshark_config_doc *json_doc(json_object *j)
{
	struct kshark_config_doc *d = kshark_config_alloc(KS_CONFIG_JSON);

	if (!d)
		die2("out of memory", NULL);
	d->conf_doc = j;
	return d;
}

static json_object *int_pair(int a, int b)
{
	json_object *arr = json_object_new_array();

	json_object_array_add(arr, json_object_new_int(a));
	json_object_array_add(arr, json_object_new_int(b));
	return arr;
}

/* "0,1,3" -> mask; 0 when malformed */
static int parse_nodes(const char *list, uint64_t *mask)
{
	const char *p = list;

	*mask = 0;
	while (*p) {
		char *e;
		long v = strtol(p, &e, 10);

		if (e == p || v < 0 || v >= DP_MAX_NODES || (*e && *e != ','))
			return 0;
		*mask |= 1ULL << v;
		p = *e ? e + 1 : e;
	}
	return *mask != 0;
}

/* the run's guest-topology.txt ("node N cpulist=.. memtotal_kb=K ..."): nodes with K > 0 */
static uint64_t topology_nodes(const char *trace)
{
	char path[PATH_MAX], line[512];
	const char *slash = strrchr(trace, '/');
	uint64_t mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%.*s/guest-topology.txt", (int)(slash - trace), trace);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *m = strstr(line, "memtotal_kb=");
		int nid;

		if (sscanf(line, "node %d ", &nid) == 1 && m && nid >= 0 && nid < DP_MAX_NODES &&
		    strtoll(m + 12, NULL, 10) > 0)
			mask |= 1ULL << nid;
	}
	fclose(f);
	return mask;
}

/* the nodes the trace's dirty_pressure events name */
static uint64_t event_nodes(struct kshark_entry **rows, ssize_t n, int event_id)
{
	uint64_t mask = 0;
	int64_t nid;

	for (ssize_t i = 0; event_id >= 0 && i < n; i++)
		if (rows[i]->event_id == event_id &&
		    kshark_read_event_field_int(rows[i], "nid", &nid) == 0 &&
		    nid >= 0 && nid < DP_MAX_NODES)
			mask |= 1ULL << nid;
	return mask;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "plugin", required_argument, NULL, 'p' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *plugin = NULL, *nodes = NULL;
	uint64_t node_mask = 0;
	char trace[PATH_MAX], plugin_abs[PATH_MAX];
	struct kshark_context *ctx = NULL;
	struct kshark_data_stream *stream;
	struct kshark_plugin_list *pl = NULL;
	struct kshark_config_doc *session, *streams, *markers;
	struct kshark_entry **rows = NULL;
	struct kshark_trace_histo histo;
	json_object *jstreams, *jmarks, *jm;
	ssize_t n;
	int *ids, sd, opt, shown = 0;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":o:p:n:h", lo, NULL)) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 'p': plugin = optarg; break;
		case 'n': nodes = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':': die2("needs an argument (see --help)", argv[optind - 1]);
		/* fallthrough */
		default: die2("unknown option (see --help)", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		die2("exactly one TRACE.dat argument expected (see --help)", NULL);
	if (!out)
		die2("--out SESSION.json is required (see --help)", NULL);
	if (nodes && !parse_nodes(nodes, &node_mask))
		die2("--nodes wants node numbers 0..63 separated by commas", nodes);
	/* KernelShark resolves paths against its own working directory: store absolute ones */
	if (!realpath(argv[optind], trace))
		die2(strerror(errno), argv[optind]);
	if (plugin && !realpath(plugin, plugin_abs))
		die2(strerror(errno), plugin);
	if (!kshark_tep_check_data(trace))
		die2("not a trace-cmd trace.dat", trace);
	if (!kshark_instance(&ctx))
		die2("cannot create a KernelShark context", NULL);
	if (plugin) {
		pl = kshark_register_plugin(ctx, "dirty_pressure", plugin_abs);
		if (!pl || !pl->process_interface)
			die2("not a KernelShark plotting plugin", plugin_abs);
	}
	sd = kshark_open(ctx, trace);
	if (sd < 0)
		die2("KernelShark cannot open it", trace);
	stream = kshark_get_data_stream(ctx, sd);
	if (pl)
		kshark_register_plugin_to_stream(stream, pl->process_interface, true);

	/* show only writeback and vmscan events */
	ids = kshark_get_all_event_ids(stream);
	for (int i = 0; ids && i < stream->n_events; i++) {
		char *name = kshark_event_from_id(sd, ids[i]);

		if (name && (!strncmp(name, "writeback/", 10) || !strncmp(name, "vmscan/", 7))) {
			kshark_filter_add_id(ctx, sd, KS_SHOW_EVENT_FILTER, ids[i]);
			shown++;
		}
		free(name);
	}
	free(ids);
	if (!shown)
		die2("no writeback or vmscan events in this trace", trace);

	/* the filters apply to both the graph and the list, as the GUI sets by default */
	ctx->filter_mask = KS_TEXT_VIEW_FILTER_MASK | KS_GRAPH_VIEW_FILTER_MASK | KS_EVENT_VIEW_FILTER_MASK;
	session = kshark_session_config_new(KS_CONFIG_JSON);
	if (!session || !kshark_export_all_dstreams(ctx, &session))
		die2("cannot export the data stream", trace);

	n = kshark_load_entries(ctx, sd, &rows);
	if (n <= 0)
		die2("KernelShark loaded no entries", trace);
	/* the memory nodes, each one pressure row (only with the plugin, which draws them) */
	if (!node_mask)
		node_mask = topology_nodes(trace);
	if (!node_mask)
		node_mask = event_nodes(rows, n, kshark_find_event_id(stream, "writeback/dirty_pressure"));
	/* rows only where the plugin has something to draw (a stock kernel's trace: nothing) */
	if (!pl || kshark_find_event_id(stream, "writeback/dirty_pressure") < 0)
		node_mask = 0;

	/* every CPU plotted, then the node rows: the "CPUPlots" and "TaskPlots" lists live
	 * inside the stream's own entry */
	streams = kshark_config_alloc(KS_CONFIG_JSON);
	if (!kshark_config_doc_get(session, "data streams", streams))
		die2("exported session lacks data streams", NULL);
	jstreams = KS_JSON_CAST(streams->conf_doc);
	for (size_t i = 0; i < json_object_array_length(jstreams); i++) {
		json_object *js = json_object_array_get_idx(jstreams, i), *cpus = json_object_new_array();
		json_object *tasks = json_object_new_array();

		for (int c = 0; c < stream->n_cpus; c++)
			json_object_array_add(cpus, json_object_new_int(c));
		for (int nid = 0; nid < DP_MAX_NODES; nid++)
			if (node_mask & 1ULL << nid)
				json_object_array_add(tasks, json_object_new_int(DP_ROW_PID(nid)));
		json_object_object_add(js, "CPUPlots", cpus);
		json_object_object_add(js, "TaskPlots", tasks);
	}
	free(streams);

	if (pl)
		kshark_config_doc_add(session, "User Plugins",
				      kshark_export_all_plugins(ctx, KS_CONFIG_JSON));

	/* the model: the whole trace in view */
	ksmodel_init(&histo);
	ksmodel_set_bining(&histo, 1024, rows[0]->ts, rows[n - 1]->ts + 1);
	ksmodel_fill(&histo, rows, (size_t)n);
	kshark_config_doc_add(session, "Model", kshark_export_model(&histo, KS_CONFIG_JSON));
	ksmodel_clear(&histo);
	for (ssize_t i = 0; i < n; i++)
		free(rows[i]);
	free(rows);

	markers = kshark_config_new("kshark.config.markers", KS_CONFIG_JSON);
	jmarks = KS_JSON_CAST(markers->conf_doc);
	jm = json_object_new_object();
	json_object_object_add(jm, "isSet", json_object_new_boolean(0));
	json_object_object_add(jmarks, "markA", jm);
	jm = json_object_new_object();
	json_object_object_add(jm, "isSet", json_object_new_boolean(0));
	json_object_object_add(jmarks, "markB", jm);
	json_object_object_add(jmarks, "Active", json_object_new_string("A"));
	kshark_config_doc_add(session, "Markers", markers);
	kshark_config_doc_add(session, "MainWindow", json_doc(int_pair(1280, 780)));
	/* the graph pane gets the height of its rows (about 54 px each, 110 for the axis and
	 * margins) up to 560 of the window's 780, the event list the rest */
	{
		int rows = stream->n_cpus + __builtin_popcountll(node_mask);
		int graph = rows * 54 + 110 < 560 ? rows * 54 + 110 : 560;

		kshark_config_doc_add(session, "Splitter", json_doc(int_pair(graph, 660 - graph)));
	}
	kshark_config_doc_add(session, "ViewTop", json_doc(json_object_new_int64(0)));
	kshark_config_doc_add(session, "ColorScheme", json_doc(json_object_new_double(0.75)));
	kshark_config_doc_add(session, "ComboPlots", json_doc(json_object_new_array()));

	if (!kshark_save_config_file(out, session))
		die2("cannot write", out);
	kshark_free_config_doc(session);
	kshark_free(ctx);
	return 0;
}
