/*
 * Tests of the gnuplot scripts in plots/: each script is run on small
 * hand-written data with gnuplot's `set table`, which writes the points of
 * every curve as text instead of drawing them, and the points are checked
 * (a CDF rises to 1, is monotone, has the right steps).  Skipped, saying
 * so, where gnuplot is not installed.
 */
#include <criterion/criterion.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define PT_MAX 4096 /* points read back from one table */

/* The points of the curves of one table, in order. */
struct pt_table {
	double x[PT_MAX];    /* x of each point */
	double y[PT_MAX];    /* y of each point */
	int curve[PT_MAX];   /* index of the curve the point belongs to */
	int n;               /* number of points */
	int curves;          /* number of curves */
};

static int pt_rm_one(const char *p, const struct stat *st, int flag,
		     struct FTW *ftw)
{
	return remove(p);
}

static char *pt_tmpdir(void)
{
	char *d = xstrdup("/tmp/clustersim-plots-XXXXXX");
	cr_assert(mkdtemp(d), "mkdtemp");
	return d;
}

static void pt_write(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	cr_assert(f, "cannot write %s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* Skips the test unless gnuplot and the plots folder are here. */
static char *pt_script(const char *name)
{
	if (system("gnuplot --version >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
	char cwd[PATH_MAX];
	cr_assert(getcwd(cwd, sizeof(cwd)));
	char *p = xasprintf("%s/plots/%s", cwd, name);
	if (access(p, R_OK) != 0)
		cr_skip_test("no plots folder in the current directory");
	return p;
}

/* Runs plots/NAME on outdir's runs with `set table`, reads the points. */
static void pt_run(const char *name, const char *outdir, const char *runs,
		   struct pt_table *t)
{
	char *script = pt_script(name);
	char *table = xasprintf("%s/table.txt", outdir);
	char *cmd = xasprintf(
		"gnuplot -e \"outdir='%s'; runs='%s'; labels='%s'; "
		"term='png'; out='%s/x.png'; set table '%s'\" '%s' "
		">'%s/gnuplot.log' 2>&1",
		outdir, runs, runs, outdir, table, script, outdir);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	FILE *f = fopen(table, "r");
	cr_assert(f, "no table written");
	char line[512];
	t->n = 0;
	t->curves = 0;
	while (fgets(line, sizeof(line), f)) {
		int ci, cn;
		if (sscanf(line, "# Curve %d of %d", &ci, &cn) == 2) {
			t->curves++;
			continue;
		}
		double x, y;
		if (line[0] == '#' || sscanf(line, "%lf %lf", &x, &y) != 2)
			continue;
		cr_assert_lt(t->n, PT_MAX);
		t->x[t->n] = x;
		t->y[t->n] = y;
		t->curve[t->n] = t->curves - 1;
		t->n++;
	}
	fclose(f);
	free(cmd);
	free(table);
	free(script);
}

/* Curve c rises monotonically (in x and y) from >= 0 to exactly 1. */
static void pt_expect_cdf(const struct pt_table *t, int c)
{
	double lx = -INFINITY, ly = 0, last = -1;
	int n = 0;
	for (int i = 0; i < t->n; i++) {
		if (t->curve[i] != c)
			continue;
		cr_expect_geq(t->x[i], lx, "curve %d: x goes back at %g", c,
			      t->x[i]);
		cr_expect_geq(t->y[i], ly - 1e-12, "curve %d: y falls at %g",
			      c, t->x[i]);
		lx = t->x[i];
		ly = t->y[i];
		last = t->y[i];
		n++;
	}
	cr_expect_gt(n, 0, "curve %d has no point", c);
	cr_expect(fabs(last - 1) < 1e-9, "curve %d ends at %g, not 1", c,
		  last);
}

/* A mixed workload: single-GPU jobs (no value) between multi-GPU jobs,
 * which used to split the curve into pieces that never cumulated. */
Test(plots, placement_slowdown_cdf_rises_to_1_on_a_mixed_workload)
{
	char *d = pt_tmpdir();
	char *r = xasprintf("%s/easy", d);
	cr_assert_eq(mkdir(r, 0755), 0);
	pt_write(r, "jobs.csv",
		 "id,gpus,placement_slowdown\n"
		 "1,1,\n2,2,1.5\n3,1,1\n4,4,2\n5,1,\n6,8,1.25\n7,0,\n");
	struct pt_table *t = calloc(1, sizeof(*t));
	pt_run("placement_slowdown.gp", d, "easy", t);
	cr_assert_eq(t->curves, 1);
	pt_expect_cdf(t, 0);
	/* The steps: 1/3 at 1.25, 2/3 at 1.5, 1 at 2. */
	for (int i = 0; i < t->n; i++) {
		double want = t->x[i] < 1.25 ? 0 : t->x[i] < 1.5 ? 1 / 3.0 :
			      t->x[i] < 2 ? 2 / 3.0 : 1;
		cr_expect(fabs(t->y[i] - want) < 1e-5, "y(%g) = %g, want %g",
			  t->x[i], t->y[i], want);
	}
	free(t);
	free(r);
	nftw(d, pt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}
