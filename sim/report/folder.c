/*
 * A results folder's kind and its plots redrawn from its files
 * (report.h): `clustersim plot DIR` on any folder that a command wrote.
 *
 * The kind is read from the summary file each command writes:
 * fill_summary.csv (fill), replay_summary.csv (replay), summary.csv with
 * a "method" column (optimize) or a "label" column (run; sweep when the
 * manifest has the sweep's axes).  Each kind is redrawn as its command
 * draws it: run and sweep by plot_results(), fill and replay by
 * band_plot() once per pod list (the lists and the labels, in their
 * order, from the summary's rows), optimize by the convergence plot.
 */
#include "report/report.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/input.h"
#include "base/util.h"
#include "report/band.h"
#include "report/out.h"
#include "report/report_impl.h"

#define TABLE_MAX_BYTES (256u << 20) /* a summary file, at most */

static const char *const kind_names[REPORT_NKINDS] = {
	[REPORT_NONE] = "",
	[REPORT_RUN] = "run",
	[REPORT_SWEEP] = "sweep",
	[REPORT_FILL] = "fill",
	[REPORT_REPLAY] = "replay",
	[REPORT_OPTIMIZE] = "optimize",
};
static_assert(ARRAY_SIZE(kind_names) == REPORT_NKINDS, "a name per kind");

const char *report_kind_name(enum report_kind k)
{
	return k < REPORT_NKINDS ? kind_names[k] : "";
}

/* ---- the table reader ------------------------------------------------- */

/* libcsv's callbacks fill a table. */
struct table_fill {
	struct report_table *t;
	size_t max_rows;  /* rows kept */
	size_t col_cap;   /* allocated cells of the current row */
	bool row_open;    /* a row has cells not yet ended */
};

static void table_field(void *data, size_t len, void *priv)
{
	struct table_fill *tf = priv;
	struct report_table *t = tf->t;
	if (t->total >= tf->max_rows)
		return;
	if (!tf->row_open) {
		xgrow(&t->cell, &t->cap, t->nrows + 1, sizeof(*t->cell));
		t->ncols = xrealloc(t->ncols, t->cap * sizeof(*t->ncols));
		t->cell[t->nrows] = NULL;
		t->ncols[t->nrows] = 0;
		tf->col_cap = 0;
		tf->row_open = true;
	}
	size_t *nc = &t->ncols[t->nrows];
	xgrow(&t->cell[t->nrows], &tf->col_cap, *nc + 1, sizeof(char *));
	char *s = xmalloc(len + 1);
	memcpy(s, data, len);
	s[len] = '\0';
	t->cell[t->nrows][(*nc)++] = s;
}

static void table_row(int c, void *priv)
{
	struct table_fill *tf = priv;
	(void)c;
	if (tf->row_open) {
		tf->t->nrows++;
		tf->row_open = false;
	}
	tf->t->total++;
}

int report_table_read(const char *path, size_t max_rows,
		      struct report_table *t, struct sim_error *err)
{
	struct input_opts io = { .max_bytes = TABLE_MAX_BYTES };
	struct csv_parser p;
	struct table_fill tf = { .t = t, .max_rows = max_rows };
	char *text = NULL;
	size_t len = 0;
	memset(t, 0, sizeof(*t));
	int rc = input_slurp(path, &io, &text, &len, NULL, err);
	if (rc)
		return rc;
	csv_init(&p, CSV_APPEND_NULL);
	if (csv_parse(&p, text, len, table_field, table_row, &tf) != len)
		rc = err_setc(err, -SIM_EINPUT, "%s: %s", path,
			      csv_strerror(csv_error(&p)));
	else
		csv_fini(&p, table_field, table_row, &tf);
	csv_free(&p);
	free(text);
	if (tf.row_open)
		t->nrows++;
	if (rc)
		report_table_release(t);
	return rc;
}

int report_table_col(const struct report_table *t, const char *name)
{
	for (size_t c = 0; t->nrows && c < t->ncols[0]; c++)
		if (strcmp(t->cell[0][c], name) == 0)
			return (int)c;
	return -1;
}

void report_table_release(struct report_table *t)
{
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols[r]; c++)
			free(t->cell[r][c]);
		free(t->cell[r]);
	}
	free(t->cell);
	free(t->ncols);
	memset(t, 0, sizeof(*t));
}

/* ---- the kind ---------------------------------------------------------- */

struct cJSON *report_read_json(const char *path)
{
	struct input_opts io = { .max_bytes = TABLE_MAX_BYTES };
	struct sim_error err;
	char *text = NULL;
	size_t len;
	if (access(path, R_OK) != 0 ||
	    input_slurp(path, &io, &text, &len, NULL, &err))
		return NULL;
	cJSON *root = cJSON_ParseWithLength(text, len);
	free(text);
	return root;
}

bool report_has(const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	bool ok = access(p, R_OK) == 0;
	free(p);
	return ok;
}

enum report_kind report_kind_of(const char *dir)
{
	if (report_has(dir, "fill_summary.csv"))
		return REPORT_FILL;
	if (report_has(dir, "replay_summary.csv"))
		return REPORT_REPLAY;
	char *p = path_join(dir, "summary.csv");
	struct report_table t;
	struct sim_error err;
	enum report_kind k = REPORT_NONE;
	if (access(p, R_OK) == 0 && report_table_read(p, 1, &t, &err) == 0) {
		if (report_table_col(&t, "method") >= 0)
			k = REPORT_OPTIMIZE;
		else if (report_table_col(&t, "label") >= 0)
			k = REPORT_RUN;
		report_table_release(&t);
	}
	free(p);
	if (k == REPORT_RUN) {
		char *m = path_join(dir, "manifest.json");
		cJSON *root = report_read_json(m);
		if (cJSON_GetObjectItemCaseSensitive(root, "sweep"))
			k = REPORT_SWEEP;
		cJSON_Delete(root);
		free(m);
	}
	return k;
}

/* ---- redrawing ---------------------------------------------------------- */

/* Appends s to the list v (n of them) unless it is there already. */
static void add_unique(char ***v, size_t *n, size_t *cap, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i], s) == 0)
			return;
	xgrow(v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A replay's window for its time axis, as its run gave it (window_s:
 * last arrival - first, from the list's first row of the summary);
 * nothing for a fill summary, which has no such columns. */
static void replay_window(const struct report_table *t, int pc,
			  const char *list, struct plot_defs *x)
{
	int fc = report_table_col(t, "first_arrival_s");
	int lc = report_table_col(t, "last_arrival_s");
	for (size_t r = 1; r < t->nrows && fc >= 0 && lc >= 0; r++) {
		if (t->ncols[r] <= (size_t)fc || t->ncols[r] <= (size_t)lc ||
		    strcmp(t->cell[r][pc], list) != 0)
			continue;
		sim_time_t a, b;
		char w[32];
		if (parse_seconds(t->cell[r][fc], &a) == 0 &&
		    parse_seconds(t->cell[r][lc], &b) == 0 && b >= a) {
			fmt_time(w, b - a);
			plot_def(x, "window_s", w);
		}
		return;
	}
}

/* A fill or replay folder: band_plot() for each pod list of the
 * summary, with the labels in the order of its rows. */
static int redraw_bands(const char *dir, const char *mode,
			struct sim_error *err)
{
	char *name = xasprintf("%s_summary.csv", mode);
	char *path = path_join(dir, name);
	struct report_table t;
	char **labels = NULL, **lists = NULL;
	size_t nl = 0, nlab = 0, cl = 0, clab = 0;
	int rc = report_table_read(path, SIZE_MAX, &t, err);
	free(name);
	if (rc)
		goto out;
	int lc = report_table_col(&t, "label");
	int pc = report_table_col(&t, "pods_list");
	if (lc < 0 || pc < 0) {
		rc = err_setc(err, -SIM_EINPUT, "%s: no 'label' and "
			      "'pods_list' columns", path);
		goto out_table;
	}
	for (size_t r = 1; r < t.nrows; r++) {
		if (t.ncols[r] <= (size_t)lc || t.ncols[r] <= (size_t)pc)
			continue;
		add_unique(&labels, &nlab, &clab, t.cell[r][lc]);
		add_unique(&lists, &nl, &cl, t.cell[r][pc]);
	}
	char *ename = report_experiment_name(dir);
	for (size_t i = 0; i < nl && !rc; i++) {
		struct plot_defs x = { 0 };
		plot_def(&x, "experiment", ename);
		replay_window(&t, pc, lists[i], &x);
		rc = band_plot(dir, &x, mode, lists[i],
			       (const char *const *)labels, nlab, err);
		plot_defs_release(&x);
	}
	free(ename);
out_table:
	report_table_release(&t);
out:
	free_list(labels, nlab);
	free_list(lists, nl);
	free(path);
	return rc;
}

int report_plot_convergence(const char *dir, const char *objective,
			    const char *experiment, struct sim_error *err)
{
	static const char *const terms[] = { "png", "svg" };
	char *pdir = plot_scripts_dir();
	char *script = xasprintf("%s/search/convergence.gp", pdir);
	char *log = path_join(dir, "gnuplot.log");
	char *data = path_join(dir, "convergence.csv");
	int rc = 0;
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		rc = err_setc(err, -SIM_EIO, "%s: cannot write: %s", log,
			      strerror(errno));
	/* PNG and SVG in one gnuplot. */
	struct plot_defs d[ARRAY_SIZE(terms)] = { { 0 }, { 0 } };
	for (size_t t = 0; t < ARRAY_SIZE(terms); t++) {
		char *out = xasprintf("%s/convergence.%s", dir, terms[t]);
		plot_def(&d[t], "data", data);
		plot_def(&d[t], "term", terms[t]);
		plot_def(&d[t], "out", out);
		plot_def(&d[t], "objective", objective);
		plot_def(&d[t], "experiment", experiment);
		plot_def(&d[t], "plotdir", pdir);
		free(out);
	}
	if (!rc)
		rc = plot_gnuplot(&d[0], &d[1], script, fd, log, err);
	for (size_t t = 0; t < ARRAY_SIZE(terms); t++)
		plot_defs_release(&d[t]);
	if (fd >= 0)
		close(fd);
	free(data);
	free(log);
	free(script);
	free(pdir);
	return rc;
}

char *report_experiment_name(const char *dir)
{
	char *m = path_join(dir, "manifest.json");
	cJSON *root = report_read_json(m);
	free(m);
	const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(root, "config");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(cfg, "name");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "experiment");
	char *name = NULL;
	if (cJSON_IsString(n) && *n->valuestring)
		name = xstrdup(n->valuestring);
	else if (cJSON_IsString(e)) {
		const char *b = path_basename(e->valuestring);
		size_t k = strlen(b);
		if (str_ends_with(b, ".json"))
			k -= 5;
		name = xasprintf("%.*s", (int)k, b);
	}
	cJSON_Delete(root);
	return name ? name : xstrdup("");
}

/* An optimize folder: the objective from summary.csv, the experiment's
 * name from the manifest. */
static int redraw_optimize(const char *dir, struct sim_error *err)
{
	char *path = path_join(dir, "summary.csv");
	struct report_table t;
	int rc = report_table_read(path, 2, &t, err);
	free(path);
	if (rc)
		return rc;
	int oc = report_table_col(&t, "objective");
	const char *obj = oc >= 0 && t.nrows > 1 &&
			  t.ncols[1] > (size_t)oc ? t.cell[1][oc] : "score";
	char *name = report_experiment_name(dir);
	rc = report_plot_convergence(dir, obj, name, err);
	free(name);
	report_table_release(&t);
	return rc;
}

int report_redraw(const char *dir, enum report_kind k, struct sim_error *err)
{
	if (k != REPORT_NONE && !plot_gnuplot_found())
		return err_setc(err, 1, "gnuplot not found: plots skipped "
				      "(results are intact)");
	switch (k) {
	case REPORT_RUN:
	case REPORT_SWEEP:
		return plot_results(dir, err);
	case REPORT_FILL:
		return redraw_bands(dir, "fill", err);
	case REPORT_REPLAY:
		return redraw_bands(dir, "replay", err);
	case REPORT_OPTIMIZE:
		return redraw_optimize(dir, err);
	default:
		return err_setc(err, -SIM_EINPUT, "%s: not a results folder",
				dir);
	}
}

const char *report_plots_note(bool no_plots)
{
	if (no_plots)
		return "The plots were not drawn (--no-plots): `clustersim "
		       "plot DIR` draws them and rewrites this page.";
	if (!plot_gnuplot_found())
		return "gnuplot not found: the plots were skipped (the "
		       "results are intact); install gnuplot and run "
		       "`clustersim plot DIR`.";
	return NULL;
}
