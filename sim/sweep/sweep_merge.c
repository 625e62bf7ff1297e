/*
 * `clustersim merge OUT`: a sweep's summary.csv, failed.csv and plots,
 * rebuilt from its run folders alone.
 *
 * OUT/manifest.json (written by every driver before its first run) holds
 * the axes and the runs in their fixed order; each complete run folder
 * (one with a manifest.json) holds summary.csv with its one row.  The
 * merged summary.csv has the columns label,policy,workload,seed, then one
 * per axis (its path; the value as written, a string as is), then the
 * metrics: the same bytes whichever driver, shard or order produced the
 * folders.  A run with OUT/<run>/error.txt and no manifest is listed in
 * failed.csv; one with neither is missing (a shard that has not run).
 *
 * For the plots, each metric is averaged over the seeds of each policy
 * at each point, with their min and max as a band, and drawn against each
 * axis as one series per policy and value of every other axis (one per
 * policy with one axis): OUT/plots/sweep.dat, one gnuplot data block per
 * axis and series, described for plots/sweep.gp by
 * OUT/plots/sweep_vars.gp.  An axis with one value has no row of its own
 * and no part in the series' titles (every run has that value): it is
 * named in the plot's title instead ("fixed"), unless every axis has one
 * value, when the first is drawn so that the plot has a row.
 *
 * Runs with tenants (docs/tenants.md) end their summary row with
 * OUT_TENANT_TAIL's cells: when some run has them the merged summary.csv
 * has those columns too (empty for the other runs), and OUT/projects.csv
 * gathers every run's projects.csv, each row led by its run's label,
 * policy, workload, seed and axis values.  Without tenants neither
 * changes.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/exp_json.h"
#include "report/out.h"
#include "report/report.h"
#include "report/band.h"
#include "report/stats.h"
#include "base/util.h"

/* Metrics drawn against each axis: name, axis title. */
static const char *const plot_metrics[][2] = {
	{ "wait_mean", "mean wait (s)" },
	{ "bsld_mean", "mean bounded slowdown (ratio)" },
	{ "utilization", "utilization" }, /* "utilization_gpu" on GPUs */
};
#define NPM ARRAY_SIZE(plot_metrics)

/* One run as the merge sees it. */
struct mrun {
	const char *label, *plabel, *policy, *workload, *dir;
	char *seed;            /* as text */
	size_t *point;         /* value index per axis */
	char *cells;           /* its metric cells (",..."), or NULL */
	bool tenants;          /* they end with OUT_TENANT_TAIL's */
	double m[NPM];         /* plotted metrics (NAN: none) */
};

/* A CSV field as summary.csv writes it. */
static void put_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Past n CSV fields of line (quotes understood): at the comma after the
 * n-th field, or NULL. */
static const char *skip_fields(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (i && *p++ != ',')
			return NULL;
		if (*p == '"') {
			for (p++; *p; p++) {
				if (*p == '"' && p[1] == '"')
					p++;
				else if (*p == '"')
					break;
			}
			if (!*p++)
				return NULL;
		} else {
			p += strcspn(p, ",\r\n");
		}
	}
	return *p == ',' ? p : NULL;
}

static char *read_text(const char *path)
{
	char *text = NULL;
	size_t len;
	return exp_read_text(path, 0, &text, &len, NULL, NULL) ? NULL : text;
}

/* Reads a complete run's metric cells; false when it is not complete. */
static bool read_cells(const char *outdir, struct mrun *r, int gpu_col)
{
	char *m = xasprintf("%s/%s/manifest.json", outdir, r->dir);
	char *s = xasprintf("%s/%s/summary.csv", outdir, r->dir);
	char *text = access(m, R_OK) == 0 ? read_text(s) : NULL;
	const char *row = text ? strchr(text, '\n') : NULL;
	const char *p = row ? skip_fields(row + 1, 4) : NULL;
	if (p) {
		size_t n = strcspn(p, "\r\n"), t = strlen(OUT_TENANT_TAIL);
		size_t h = (size_t)(row - text) - (row > text && row[-1] == '\r');
		r->cells = xasprintf("%.*s", (int)n, p);
		r->tenants = h >= t && !strncmp(text + h - t, OUT_TENANT_TAIL, t);
	}
	free(text);
	free(s);
	free(m);
	if (!r->cells)
		return false;
	/* The plotted metrics, by column. */
	for (size_t k = 0; k < NPM; k++)
		r->m[k] = NAN;
	const char *c = r->cells;
	for (int i = 0; i < M_NMETRICS && c && *c == ','; i++) {
		c++;
		for (size_t k = 0; k < NPM; k++) {
			bool want = strcmp(metric_defs[i].name,
					   plot_metrics[k][0]) == 0;
			if (k == 2 && gpu_col >= 0)
				want = i == gpu_col;
			if (want && *c && *c != ',')
				r->m[k] = strtod(c, NULL);
		}
		c = strchr(c, ',');
	}
	return true;
}

/* The run list of a sweep manifest. */
static int read_manifest(const char *outdir, cJSON **root,
			 const cJSON **axes, struct mrun **runs, size_t *n,
			 struct sim_error *err)
{
	char *path = path_join(outdir, "manifest.json");
	char *text = read_text(path);
	int rc = 0;
	*root = text ? cJSON_Parse(text) : NULL;
	*axes = cJSON_GetObjectItemCaseSensitive(*root, "sweep");
	const cJSON *rl = cJSON_GetObjectItemCaseSensitive(*root, "runs");
	if (!cJSON_IsArray(*axes) || !cJSON_IsArray(rl)) {
		rc = err_set(err, "%s: not a sweep results folder (%s)",
			     outdir, text ? "its manifest.json is not a "
			     "sweep's" : "no readable manifest.json");
		goto out;
	}
	size_t naxes = (size_t)cJSON_GetArraySize(*axes);
	*n = (size_t)cJSON_GetArraySize(rl);
	*runs = xcalloc(*n + 1, sizeof(**runs));
	size_t i = 0;
	for (const cJSON *it = rl->child; it; it = it->next, i++) {
		struct mrun *r = &(*runs)[i];
		const char **s[] = { &r->label, &r->plabel, &r->policy,
				     &r->workload, &r->dir };
		static const char *const keys[] = { "label", "policy_label",
						    "policy", "workload",
						    "dir" };
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
			*s[k] = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(it, keys[k]));
			if (!*s[k])
				rc = -SIM_EINPUT;
		}
		const cJSON *seed = cJSON_GetObjectItemCaseSensitive(it,
								     "seed");
		r->seed = cJSON_IsNumber(seed) || cJSON_IsString(seed) ?
			  sweep_value_text(seed) : NULL;
		if (!r->seed)
			rc = -SIM_EINPUT;
		const cJSON *pt = cJSON_GetObjectItemCaseSensitive(it, "point");
		r->point = xcalloc(naxes + 1, sizeof(*r->point));
		if (!cJSON_IsArray(pt) ||
		    (size_t)cJSON_GetArraySize(pt) != naxes)
			rc = -SIM_EINPUT;
		for (size_t a = 0; a < naxes && !rc; a++) {
			const cJSON *v = cJSON_GetArrayItem(pt, (int)a);
			const cJSON *vals = cJSON_GetObjectItemCaseSensitive(
				cJSON_GetArrayItem(*axes, (int)a), "values");
			if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
			    v->valuedouble >= cJSON_GetArraySize(vals))
				rc = -SIM_EINPUT;
			else
				r->point[a] = (size_t)v->valuedouble;
		}
		if (rc) {
			rc = err_set(err, "%s: $.runs[%zu]: not a run of a "
				     "sweep manifest", path, i);
			goto out;
		}
	}
out:
	free(text);
	free(path);
	return rc;
}

/* The first columns' names: label,policy,workload,seed and the axes. */
static void put_lead_header(FILE *f, const cJSON *axes)
{
	fputs("label,policy,workload,seed", f);
	for (const cJSON *a = axes->child; a; a = a->next) {
		fputc(',', f);
		put_field(f, cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(a, "axis")));
	}
}

/* A run's first cells: its label, policy, workload, seed, axis values. */
static void put_lead(FILE *f, const cJSON *axes, const struct mrun *r)
{
	put_field(f, r->label);
	fputc(',', f);
	put_field(f, r->policy);
	fputc(',', f);
	put_field(f, r->workload);
	fprintf(f, ",%s", r->seed);
	size_t a = 0;
	for (const cJSON *ax = axes->child; ax; ax = ax->next, a++) {
		const cJSON *vals = cJSON_GetObjectItemCaseSensitive(ax,
								     "values");
		char *t = sweep_value_text(cJSON_GetArrayItem(vals,
							      (int)r->point[a]));
		fputc(',', f);
		put_field(f, t);
		free(t);
	}
}

/* Does some complete run have tenants? */
static bool any_tenants(const struct mrun *runs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (runs[k].cells && runs[k].tenants)
			return true;
	return false;
}

static int write_summary(const char *outdir, const cJSON *axes,
			 const struct mrun *runs, size_t n,
			 struct sim_error *err)
{
	struct afile af;
	int rc = afile_open_in(&af, outdir, "summary.csv", err);
	if (rc)
		return rc;
	bool tenants = any_tenants(runs, n);
	put_lead_header(af.f, axes);
	for (int i = 0; i < M_NMETRICS; i++)
		fprintf(af.f, ",%s", metric_defs[i].name);
	fputs(tenants ? OUT_SUMMARY_TAIL OUT_TENANT_TAIL "\n"
		      : OUT_SUMMARY_TAIL "\n", af.f);
	for (size_t k = 0; k < n; k++) {
		const struct mrun *r = &runs[k];
		if (!r->cells)
			continue;
		put_lead(af.f, axes, r);
		fputs(r->cells, af.f);
		if (tenants && !r->tenants)
			fputs(",,", af.f); /* OUT_TENANT_TAIL's, empty */
		fputc('\n', af.f);
	}
	return afile_commit(&af, err);
}

/* OUT/projects.csv: every run's projects.csv rows, each led by its run's
 * first cells; the columns are the first run's (removed when no run has
 * tenants). */
static int write_projects(const char *outdir, const cJSON *axes,
			  const struct mrun *runs, size_t n,
			  struct sim_error *err)
{
	char *path = path_join(outdir, "projects.csv");
	struct afile af;
	int rc = 0;
	if (!any_tenants(runs, n)) {
		unlink(path);
		goto out;
	}
	rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	bool header = false;
	for (size_t k = 0; k < n; k++) {
		if (!runs[k].cells || !runs[k].tenants)
			continue;
		char *pp = xasprintf("%s/%s/projects.csv", outdir, runs[k].dir);
		char *text = read_text(pp);
		free(pp);
		char *line = text, *next;
		for (bool first = true; line && *line; line = next, first = false) {
			size_t len = strcspn(line, "\r\n");
			next = line + len + strspn(line + len, "\r\n");
			if (first && !header) {
				put_lead_header(af.f, axes);
				fprintf(af.f, ",%.*s\n", (int)len, line);
				header = true;
			}
			if (first)
				continue;
			put_lead(af.f, axes, &runs[k]);
			fprintf(af.f, ",%.*s\n", (int)len, line);
		}
		free(text);
	}
	rc = afile_commit(&af, err);
out:
	free(path);
	return rc;
}

/* failed.csv: label,seed,dir,error for runs with an error.txt (removed
 * when there are none). */
static int write_failed(const char *outdir, const struct mrun *runs,
			size_t n, size_t *nfailed, size_t *nmissing,
			struct sim_error *err)
{
	char *path = path_join(outdir, "failed.csv");
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	fputs("label,seed,dir,error\n", af.f);
	for (size_t k = 0; k < n; k++) {
		const struct mrun *r = &runs[k];
		if (r->cells)
			continue;
		char *ep = xasprintf("%s/%s/error.txt", outdir, r->dir);
		char *msg = read_text(ep);
		free(ep);
		if (!msg) {
			(*nmissing)++;
			continue;
		}
		(*nfailed)++;
		msg[strcspn(msg, "\r\n")] = '\0';
		put_field(af.f, r->label);
		fprintf(af.f, ",%s,", r->seed);
		put_field(af.f, r->dir);
		fputc(',', af.f);
		put_field(af.f, msg);
		fputc('\n', af.f);
		free(msg);
	}
	if (*nfailed) {
		rc = afile_commit(&af, err);
	} else {
		afile_abort(&af);
		unlink(path);
	}
out:
	free(path);
	return rc;
}

/* Are all the values of sweep axis ax numbers? */
static bool axis_numeric(const cJSON *ax)
{
	const cJSON *vals = cJSON_GetObjectItemCaseSensitive(ax, "values");
	bool numeric = true;
	for (const cJSON *v = vals->child; v; v = v->next)
		numeric &= cJSON_IsNumber(v);
	return numeric;
}

/* Is axis ax drawn as a row (more than one value, or the first axis when
 * none has more)? */
static bool axis_drawn(const cJSON *axes, const cJSON *ax)
{
	const cJSON *x = axes->child;
	for (; x; x = x->next)
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
			x, "values")) > 1)
			break;
	if (!x)
		return ax == axes->child;
	return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
		ax, "values")) > 1;
}

/* Mean, min and max of each plotted metric over the runs (seeds) of
 * policy pol at value vi of axis a and, on every other axis b, at value
 * at[b] ("? ? ?" where none has it); lo and hi keep the least and greatest
 * value of each metric written. */
static void write_point(FILE *f, const struct mrun *runs, size_t n,
			size_t naxes, size_t a, size_t vi, const size_t *at,
			const char *pol, double *lo, double *hi)
{
	for (size_t m = 0; m < NPM; m++) {
		struct band b = { 0 };
		for (size_t k = 0; k < n; k++) {
			const struct mrun *r = &runs[k];
			bool here = r->cells && r->point[a] == vi &&
				    !strcmp(r->plabel, pol) && !isnan(r->m[m]);
			for (size_t x = 0; x < naxes && here; x++)
				here = x == a || r->point[x] == at[x];
			if (here)
				band_add(&b, r->m[m]);
		}
		if (b.n) {
			fprintf(f, " %.9g %.9g %.9g", b.sum / (double)b.n,
				b.lo, b.hi);
			lo[m] = fmin(lo[m], b.lo);
			hi[m] = fmax(hi[m], b.hi);
		} else {
			fputs(" ? ? ?", f);
		}
	}
}

/*
 * NAME = 'W1 W2 ...' in a script that gnuplot loads: the axes' names
 * (axes given) or the words w[0..n), each word inside one gnuplot
 * single-quoted literal, so that nothing in them (they come from a
 * manifest that may have been edited) is run.  A word with a control
 * character is refused.
 */
static int put_words(FILE *f, const char *name, const cJSON *axes,
		     const char *const *w, size_t n, struct sim_error *err)
{
	char *all = NULL;
	size_t len = 0, cap = 0;
	const cJSON *ax = axes ? axes->child : NULL;
	for (size_t i = 0; axes ? ax != NULL : i < n; i++) {
		if (axes && !axis_drawn(axes, ax)) {
			ax = ax->next;
			continue;
		}
		const char *word = axes ? cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(ax, "name")) : w[i];
		word = word ? word : "";
		xgrow(&all, &cap, len + strlen(word) + 2, 1);
		len += (size_t)sprintf(all + len, "%s%s", len ? " " : "",
				       word);
		if (axes)
			ax = ax->next;
	}
	fprintf(f, "%s = ", name);
	int rc = plot_put_literal(f, all ? all : "");
	fputc('\n', f);
	free(all);
	if (rc)
		return err_set(err, "sweep plot: a name in '%s' holds a control "
			       "character", name);
	return 0;
}

/* fixed = 'name=value ...': the axes that are not drawn (one value each),
 * for the plot's title; '' when every axis is drawn. */
static int put_fixed(FILE *f, const cJSON *axes, struct sim_error *err)
{
	char *all = xstrdup("");
	for (const cJSON *ax = axes->child; ax; ax = ax->next) {
		if (axis_drawn(axes, ax))
			continue;
		const char *name = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(ax, "name"));
		char *v = sweep_value_text(cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(ax, "values"), 0));
		char *u = xasprintf("%s%s%s=%s", all, *all ? ", " : "",
				    name ? name : "", v);
		free(v);
		free(all);
		all = u;
	}
	fputs("fixed = ", f);
	int rc = plot_put_literal(f, all);
	fputc('\n', f);
	free(all);
	if (rc)
		return err_set(err, "sweep plot: a one-valued axis holds a "
			       "control character");
	return 0;
}

/*
 * sweep_vars.gp: naxes (the axes drawn), npol, axis_names, policies, axis_numeric,
 * metric_titles as before, and nser (series per axis drawn), stitles
 * (every series' title, in block order), fixed (the one-valued axes)
 * and metric_log (1 where a metric's
 * values are all above 0 and span more than a decade: drawn on a log
 * axis).
 */
static int write_vars(FILE *f, const cJSON *axes, const char *const *pols,
		      size_t npol, const char *const *titles, size_t nt,
		      const size_t *nser, const double *lo, const double *hi,
		      bool gpu, struct sim_error *err)
{
	int ndrawn = 0;
	for (const cJSON *ax = axes->child; ax; ax = ax->next)
		ndrawn += axis_drawn(axes, ax);
	fprintf(f, "naxes = %d\nnpol = %zu\n", ndrawn, npol);
	int rc = put_words(f, "axis_names", axes, NULL, 0, err);
	if (!rc)
		rc = put_words(f, "policies", NULL, pols, npol, err);
	if (!rc)
		rc = put_words(f, "stitles", NULL, titles, nt, err);
	if (!rc)
		rc = put_fixed(f, axes, err);
	if (rc)
		return rc;
	const char *sep = "";
	fputs("axis_numeric = \"", f);
	for (const cJSON *ax = axes->child; ax; ax = ax->next)
		if (axis_drawn(axes, ax)) {
			fprintf(f, "%s%d", sep, axis_numeric(ax));
			sep = " ";
		}
	fputs("\"\nnser = \"", f);
	sep = "";
	int a = 0;
	for (const cJSON *ax = axes->child; ax; ax = ax->next, a++)
		if (axis_drawn(axes, ax)) {
			fprintf(f, "%s%zu", sep, nser[a]);
			sep = " ";
		}
	fputs("\"\nmetric_log = \"", f);
	for (size_t m = 0; m < NPM; m++)
		fprintf(f, "%s%d", m ? " " : "", m < 2 && lo[m] > 0 &&
			hi[m] > 10 * lo[m]);
	fprintf(f, "\"\nmetric_titles = \"'%s' '%s' '%s'\"\n",
		plot_metrics[0][1], plot_metrics[1][1],
		gpu ? "GPU utilization (fraction)" :
		      "CPU utilization (fraction)");
	return 0;
}

/* The words of a series' title: the policy, then "+name=value" for each
 * axis but a (at its value at[x]), blanks and quotes made '_'. */
static char *series_title(const cJSON *axes, size_t a, const size_t *at,
			  const char *pol)
{
	char *t = xstrdup(pol);
	size_t x = 0;
	for (const cJSON *ax = axes->child; ax; ax = ax->next, x++) {
		if (x == a || !axis_drawn(axes, ax))
			continue;
		const char *name = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(ax, "name"));
		char *v = sweep_value_text(cJSON_GetArrayItem(
			cJSON_GetObjectItemCaseSensitive(ax, "values"),
			(int)at[x]));
		char *u = xasprintf("%s+%s=%s", t, name ? name : "", v);
		free(v);
		free(t);
		t = u;
	}
	for (char *q = t; *q; q++)
		if (*q == ' ' || *q == '"' || *q == '\'')
			*q = '_';
	return t;
}

/* Steps at[] (the other axes' values, the last fastest) to the next
 * combination; false after the last. */
static bool next_combo(const cJSON *axes, size_t a, size_t *at)
{
	size_t naxes = (size_t)cJSON_GetArraySize(axes);
	for (size_t x = naxes; x-- > 0;) {
		if (x == a)
			continue;
		const cJSON *vals = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetArrayItem(axes, (int)x), "values");
		if (++at[x] < (size_t)cJSON_GetArraySize(vals))
			return true;
		at[x] = 0;
	}
	return false;
}

/*
 * The blocks of sweep.dat: for each axis, one per series (a policy and a
 * value of every other axis), its points along the axis.  The series'
 * titles are added to *titles (*nt of them) and their count per axis to
 * nser[]; lo and hi get each metric's range.
 */
static void write_blocks(FILE *f, const cJSON *axes, const struct mrun *runs,
			 size_t n, const char *const *pols, size_t npol,
			 char ***titles, size_t *nt, size_t *nser, double *lo,
			 double *hi)
{
	size_t naxes = (size_t)cJSON_GetArraySize(axes), a = 0, cap = 0;
	size_t *at = xcalloc(naxes + 1, sizeof(*at));
	for (const cJSON *ax = axes->child; ax; ax = ax->next, a++) {
		const cJSON *vals = cJSON_GetObjectItemCaseSensitive(ax,
								     "values");
		bool numeric = axis_numeric(ax);
		nser[a] = 0;
		if (!axis_drawn(axes, ax))
			continue;
		for (size_t p = 0; p < npol; p++) {
			memset(at, 0, naxes * sizeof(*at));
			do {
				xgrow(titles, &cap, *nt + 1, sizeof(**titles));
				(*titles)[(*nt)++] = series_title(axes, a, at,
								  pols[p]);
				nser[a]++;
				size_t vi = 0;
				for (const cJSON *v = vals->child; v;
				     v = v->next, vi++) {
					char *t = sweep_value_text(v);
					for (char *q = t; *q; q++)
						if (*q == ' ' || *q == '"')
							*q = '_';
					fprintf(f, "%.17g \"%s\"", numeric ?
						v->valuedouble :
						(double)(vi + 1), t);
					free(t);
					write_point(f, runs, n, naxes, a, vi,
						    at, pols[p], lo, hi);
					fputc('\n', f);
				}
				fputs("\n\n", f);
			} while (next_combo(axes, a, at));
		}
	}
	free(at);
}

/* Writes plots/sweep.dat and plots/sweep_vars.gp (see the top). */
static int write_plot_data(const char *outdir, const cJSON *axes,
			   const struct mrun *runs, size_t n, bool gpu,
			   struct sim_error *err)
{
	char *dir = path_join(outdir, "plots");
	char *dpath = path_join(dir, "sweep.dat");
	char *vpath = path_join(dir, "sweep_vars.gp");
	const char **pols = xcalloc(n + 1, sizeof(*pols));
	size_t npol = 0, nt = 0, naxes = (size_t)cJSON_GetArraySize(axes);
	size_t *nser = xcalloc(naxes + 1, sizeof(*nser));
	char **titles = NULL;
	double lo[NPM], hi[NPM];
	struct afile af;
	int rc = mkdir_p(dir, err);
	if (rc)
		goto out;
	for (size_t k = 0; k < n; k++) {
		size_t p = 0;
		while (p < npol && strcmp(pols[p], runs[k].plabel))
			p++;
		if (p == npol)
			pols[npol++] = runs[k].plabel;
	}
	for (size_t m = 0; m < NPM; m++) {
		lo[m] = INFINITY;
		hi[m] = -INFINITY;
	}
	rc = afile_open(&af, dpath, err);
	if (rc)
		goto out;
	fprintf(af.f, "# x value_label then mean min max over the seeds of:");
	for (size_t m = 0; m < NPM; m++)
		fprintf(af.f, " %s", m == 2 && gpu ? "utilization_gpu"
						   : plot_metrics[m][0]);
	fputs("\n# one block per axis and series (a policy and a value of "
	      "each other axis), in this order\n", af.f);
	write_blocks(af.f, axes, runs, n, pols, npol, &titles, &nt, nser, lo,
		     hi);
	rc = afile_commit(&af, err);
	if (!rc)
		rc = afile_open(&af, vpath, err);
	if (rc)
		goto out;
	rc = write_vars(af.f, axes, pols, npol, (const char *const *)titles,
			nt, nser, lo, hi, gpu, err);
	if (rc)
		afile_abort(&af);
	else
		rc = afile_commit(&af, err);
out:
	for (size_t k = 0; k < nt; k++)
		free(titles[k]);
	free(titles);
	free(nser);
	free(pols);
	free(vpath);
	free(dpath);
	free(dir);
	return rc;
}

int sweep_merge(const char *outdir, bool no_plots, size_t *nfailed,
		size_t *nmissing, struct sim_error *warn,
		struct sim_error *err)
{
	warn->msg[0] = '\0';
	cJSON *root = NULL;
	const cJSON *axes = NULL;
	struct mrun *runs = NULL;
	size_t n = 0;
	int prc = 0;
	int rc = read_manifest(outdir, &root, &axes, &runs, &n, err);
	*nfailed = *nmissing = 0;
	if (rc)
		goto out;
	int gpu_col = -1;
	for (int i = 0; i < M_NMETRICS; i++)
		if (!strcmp(metric_defs[i].name, "utilization_gpu"))
			gpu_col = i;
	size_t complete = 0;
	for (size_t k = 0; k < n; k++)
		complete += read_cells(outdir, &runs[k], gpu_col);
	/* A GPU cluster: some run has a GPU utilization. */
	bool gpu = false;
	for (size_t k = 0; k < n; k++)
		gpu |= runs[k].cells && !isnan(runs[k].m[2]);
	if (!gpu) {
		for (size_t k = 0; k < n; k++) {
			free(runs[k].cells);
			runs[k].cells = NULL;
			read_cells(outdir, &runs[k], -1);
		}
	}
	rc = write_summary(outdir, axes, runs, n, err);
	if (!rc)
		rc = write_projects(outdir, axes, runs, n, err);
	if (!rc)
		rc = write_failed(outdir, runs, n, nfailed, nmissing, err);
	char *dat = xasprintf("%s/plots/sweep.dat", outdir);
	unlink(dat);
	free(dat);
	if (!rc && cJSON_GetArraySize(axes) > 0 && complete)
		rc = write_plot_data(outdir, axes, runs, n, gpu, err);
	if (!rc && !no_plots && complete) {
		prc = plot_results(outdir, warn);
		if (prc == 0)
			warn->msg[0] = '\0';
	}
	if (!rc) {
		struct sim_error rerr;
		int hrc = complete || no_plots ?
			  report_after_plots(outdir, REPORT_SWEEP, no_plots,
					     prc, warn->msg, &rerr) :
			  report_html(outdir, REPORT_SWEEP, false, "No run is "
				      "complete yet: no plots.", &rerr);
		if (hrc && !warn->msg[0])
			*warn = rerr;
	}
out:
	for (size_t k = 0; k < n; k++) {
		free(runs[k].cells);
		free(runs[k].point);
		free(runs[k].seed);
	}
	free(runs);
	cJSON_Delete(root);
	return rc;
}
