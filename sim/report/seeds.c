/*
 * The runs of a results folder grouped over their seeds (seeds.h): the
 * summary's metrics and the CDF files of each label's runs reduced to
 * one curve with a band, so that a plot of several seeds has one curve
 * per policy (or sweep point) instead of one per seed.
 */
#include "report/seeds.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "report/band.h"
#include "report/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

size_t seeds_cdf_band(const struct seeds_cdf *s, size_t ns, double *x,
		      double *pooled, double *lo, double *hi)
{
	size_t m = 0, total = 0;
	for (size_t k = 0; k < ns; k++) {
		if (!s[k].njobs)
			continue;
		memcpy(x + m, s[k].v, s[k].n * sizeof(*x));
		m += s[k].n;
		total += s[k].njobs;
	}
	qsort(x, m, sizeof(*x), cmp_double);
	size_t u = 0;
	for (size_t i = 0; i < m; i++)
		if (!u || x[i] != x[u - 1])
			x[u++] = x[i];
	size_t *at = xcalloc(ns + 1, sizeof(*at)); /* points <= x, per seed */
	for (size_t i = 0; i < u; i++) {
		double sum = 0, l = INFINITY, h = -INFINITY;
		for (size_t k = 0; k < ns; k++) {
			if (!s[k].njobs)
				continue;
			while (at[k] < s[k].n && s[k].v[at[k]] <= x[i])
				at[k]++;
			double f = at[k] ? s[k].f[at[k] - 1] : 0;
			sum += f * (double)s[k].njobs;
			l = fmin(l, f);
			h = fmax(h, f);
		}
		pooled[i] = sum / (double)total;
		lo[i] = l;
		hi[i] = h;
	}
	free(at);
	return u;
}

void seeds_cdf_release(struct seeds_cdf *c)
{
	free(c->v);
	free(c->f);
	memset(c, 0, sizeof(*c));
}

int seeds_cdf_read(const char *path, struct seeds_cdf *c,
		   struct sim_error *err)
{
	memset(c, 0, sizeof(*c));
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : err_setc(err, -SIM_EIO,
			"%s: cannot read: %s", path, strerror(errno));
	char line[256];
	size_t cap = 0, lineno = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof(line), f)) {
		double v, fr;
		unsigned long long rank;
		if (lineno++ == 0)
			continue; /* the header */
		if (sscanf(line, "%lf,%llu,%lf", &v, &rank, &fr) != 3) {
			rc = err_set(err, "%s:%zu: not a CDF point", path,
				     lineno);
			break;
		}
		if (c->n == cap) {
			cap = cap ? 2 * cap : 256;
			c->v = xrealloc(c->v, cap * sizeof(*c->v));
			c->f = xrealloc(c->f, cap * sizeof(*c->f));
		}
		c->v[c->n] = v;
		c->f[c->n++] = fr;
		c->njobs = (size_t)rank;
	}
	fclose(f);
	if (rc)
		seeds_cdf_release(c);
	return rc;
}

/* Writes the band of every label's runs for one cdf_KIND.csv. */
static int write_cdf(const char *outdir, const char *kind,
		     const char *const *runs, const size_t *group,
		     size_t nruns, size_t ngroups, struct sim_error *err)
{
	struct seeds_cdf *c = xcalloc(nruns + 1, sizeof(*c));
	struct afile af;
	int rc = 0;
	size_t npts = 0;
	for (size_t i = 0; i < nruns && !rc; i++) {
		char *p = xasprintf("%s/%s/cdf_%s.csv", outdir, runs[i], kind);
		rc = seeds_cdf_read(p, &c[i], err);
		npts += c[i].n;
		free(p);
	}
	char *name = xasprintf("seeds_cdf_%s.dat", kind);
	char *dir = path_join(outdir, "plots");
	if (!rc)
		rc = afile_open_in(&af, dir, name, err);
	if (rc)
		goto out;
	fprintf(af.f, "# value pooled min max: cdf_%s.csv of each label's "
		"seeds, all their jobs together (pooled) and the least and "
		"greatest seed; one block per label\n", kind);
	double *x = xmalloc((npts + 1) * 4 * sizeof(*x));
	struct seeds_cdf *g = xcalloc(nruns + 1, sizeof(*g));
	for (size_t k = 0; k < ngroups; k++) {
		size_t ns = 0;
		for (size_t i = 0; i < nruns; i++)
			if (group[i] == k)
				g[ns++] = c[i];
		double *pl = x + npts + 1, *lo = pl + npts + 1;
		double *hi = lo + npts + 1;
		size_t m = seeds_cdf_band(g, ns, x, pl, lo, hi);
		/* A label with no value still has its block, so that the
		 * next ones keep their index (gnuplot takes blank lines
		 * in a row as one separator). */
		if (!m)
			fputs("NaN NaN NaN NaN\n", af.f);
		for (size_t i = 0; i < m; i++) {
			band_put_double(af.f, x[i], " ");
			fprintf(af.f, "%.9g %.9g %.9g\n", pl[i], lo[i], hi[i]);
		}
		fputs("\n\n", af.f);
	}
	free(g);
	free(x);
	rc = afile_commit(&af, err);
out:
	for (size_t i = 0; i < nruns; i++)
		seeds_cdf_release(&c[i]);
	free(c);
	free(dir);
	free(name);
	return rc;
}

/* The summary's rows grouped by label, as libcsv hands them over. */
struct seeds_sum {
	const char *const *labels; /* the groups' labels */
	size_t ngroups;
	struct band *b;            /* [group * M_NMETRICS + metric] */
	size_t *seeds;             /* runs per group */
	int *colm;                 /* metric of each column, -1: none */
	size_t ncols, colcap;      /* columns of the header */
	int label_col;             /* column of "label", -1 until seen */
	size_t field, row;         /* where the parser is */
	size_t cur;                /* the row's group, ngroups: none */
	double v[M_NMETRICS];      /* the row's metrics (NaN: empty) */
};

static void sum_field(void *data, size_t len, void *priv)
{
	struct seeds_sum *s = priv;
	char *t = xmalloc(len + 1);
	memcpy(t, data, len);
	t[len] = '\0';
	if (s->row == 0) {
		xgrow(&s->colm, &s->colcap, s->field + 1, sizeof(*s->colm));
		s->colm[s->field] = -1;
		for (int m = 0; m < M_NMETRICS; m++)
			if (strcmp(t, metric_defs[m].name) == 0)
				s->colm[s->field] = m;
		if (strcmp(t, "label") == 0)
			s->label_col = (int)s->field;
		s->ncols = s->field + 1;
	} else if ((int)s->field == s->label_col) {
		for (s->cur = 0; s->cur < s->ngroups &&
		     strcmp(s->labels[s->cur], t); s->cur++)
			;
	} else if (s->field < s->ncols && s->colm[s->field] >= 0 && len) {
		char *end;
		double v = strtod(t, &end);
		s->v[s->colm[s->field]] = *end ? NAN : v;
	}
	free(t);
	s->field++;
}

static void sum_row(int c, void *priv)
{
	struct seeds_sum *s = priv;
	(void)c;
	if (s->row > 0 && s->cur < s->ngroups) {
		s->seeds[s->cur]++;
		for (int m = 0; m < M_NMETRICS; m++)
			if (!isnan(s->v[m]))
				band_add(&s->b[s->cur * M_NMETRICS + m],
					 s->v[m]);
	}
	for (int m = 0; m < M_NMETRICS; m++)
		s->v[m] = NAN;
	s->cur = s->ngroups;
	s->field = 0;
	s->row++;
}

/* Reads OUT/summary.csv into s. */
static int read_summary(const char *outdir, struct seeds_sum *s,
			struct sim_error *err)
{
	char *path = path_join(outdir, "summary.csv");
	char buf[8192];
	size_t n;
	int rc = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		rc = err_setc(err, -SIM_EIO, "%s: cannot read: %s", path,
			      strerror(errno));
		free(path);
		return rc;
	}
	struct csv_parser p;
	csv_init(&p, CSV_APPEND_NULL);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && !rc)
		if (csv_parse(&p, buf, n, sum_field, sum_row, s) != n)
			rc = err_set(err, "%s: %s", path,
				     csv_strerror(csv_error(&p)));
	if (!rc)
		csv_fini(&p, sum_field, sum_row, s);
	csv_free(&p);
	fclose(f);
	free(path);
	return rc;
}

/* A CSV field, quoted where it holds a comma, quote or line end. */
static void put_field(FILE *f, const char *t)
{
	if (!strpbrk(t, ",\"\r\n")) {
		fputs(t, f);
		return;
	}
	fputc('"', f);
	for (; *t; t++) {
		if (*t == '"')
			fputc('"', f);
		fputc(*t, f);
	}
	fputc('"', f);
}

/* OUT/plots/seeds_summary.csv (seeds.h). */
static int write_summary(const char *outdir, const char *const *labels,
			 size_t ngroups, struct sim_error *err)
{
	struct seeds_sum s = { .labels = labels, .ngroups = ngroups,
			       .label_col = -1, .cur = ngroups };
	s.b = xcalloc(ngroups * M_NMETRICS + 1, sizeof(*s.b));
	s.seeds = xcalloc(ngroups + 1, sizeof(*s.seeds));
	for (int m = 0; m < M_NMETRICS; m++)
		s.v[m] = NAN;
	struct afile af;
	char *dir = path_join(outdir, "plots");
	int rc = read_summary(outdir, &s, err);
	if (!rc)
		rc = afile_open_in(&af, dir, "seeds_summary.csv", err);
	if (rc)
		goto out;
	fputs("label,seeds", af.f);
	for (int m = 0; m < M_NMETRICS; m++)
		fprintf(af.f, ",%s_mean,%s_min,%s_max", metric_defs[m].name,
			metric_defs[m].name, metric_defs[m].name);
	fputc('\n', af.f);
	for (size_t k = 0; k < ngroups; k++) {
		put_field(af.f, labels[k]);
		fprintf(af.f, ",%zu", s.seeds[k]);
		for (int m = 0; m < M_NMETRICS; m++)
			band_put(af.f, &s.b[k * M_NMETRICS + m]);
		fputc('\n', af.f);
	}
	rc = afile_commit(&af, err);
out:
	free(dir);
	free(s.colm);
	free(s.seeds);
	free(s.b);
	return rc;
}

int seeds_write(const char *outdir, const char *const *runs,
		const size_t *group, size_t nruns, const char *const *labels,
		size_t ngroups, struct sim_error *err)
{
	static const char *const kinds[] = { "wait", "response",
					     "placement_slowdown" };
	int rc = write_summary(outdir, labels, ngroups, err);
	for (size_t k = 0; k < ARRAY_SIZE(kinds) && !rc; k++)
		rc = write_cdf(outdir, kinds[k], runs, group, nruns, ngroups,
			       err);
	return rc;
}
