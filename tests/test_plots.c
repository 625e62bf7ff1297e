/*
 * Tests of the gnuplot scripts in plots/: each script is run on small
 * hand-written data with gnuplot's `set table`, which writes the points of
 * every curve as text instead of drawing them, and the points are checked
 * (a CDF rises to 1, is monotone, has the right steps), and the CDF
 * files those plots draw (sim/report/cdf.c) against hand-worked cases.  Skipped, saying
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
#include "report/cdf.h"
#include "report/out.h"
#include "report/seeds.h"

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

/* Skips the test unless gnuplot and the plots folder are here. */
static char *pt_script(const char *name, char **dir)
{
	if (system("gnuplot --version >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
	char cwd[PATH_MAX];
	cr_assert(getcwd(cwd, sizeof(cwd)));
	char *p = xasprintf("%s/plots/%s", cwd, name);
	*dir = xasprintf("%s/plots", cwd);
	if (access(p, R_OK) != 0)
		cr_skip_test("no plots folder in the current directory");
	return p;
}

/* Runs plots/NAME on outdir's runs with `set table`, reads the points. */
static void pt_run(const char *name, const char *outdir, const char *runs,
		   struct pt_table *t)
{
	char *dir;
	char *script = pt_script(name, &dir);
	char *table = xasprintf("%s/table.txt", outdir);
	char *cmd = xasprintf(
		"gnuplot -e \"outdir='%s'; runs='%s'; labels='%s'; "
		"term='png'; out='%s/x.png'; plotdir='%s'; "
		"experiment='test'; set table '%s'\" '%s' "
		">'%s/gnuplot.log' 2>&1",
		outdir, runs, runs, outdir, dir, table, script, outdir);
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
		/* x may be formatted for the axis ("10^{2}"): NaN then. */
		char xs[128];
		double x, y;
		if (line[0] == '#' || sscanf(line, "%127s %lf", xs, &y) != 2)
			continue;
		char *end;
		x = strtod(xs, &end);
		if (*end)
			x = NAN;
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
	free(dir);
}

/* Curve c rises monotonically (in x and y) from >= 0 to exactly 1. */
static void pt_expect_cdf(const struct pt_table *t, int c)
{
	double lx = -INFINITY, ly = 0, last = -1;
	int n = 0;
	for (int i = 0; i < t->n; i++) {
		if (t->curve[i] != c)
			continue;
		if (!isnan(t->x[i]))
			cr_expect_geq(t->x[i], lx, "curve %d: x goes back at %g",
				      c, t->x[i]);
		cr_expect_geq(t->y[i], ly - 1e-12, "curve %d: y falls at %g",
			      c, t->x[i]);
		lx = isnan(t->x[i]) ? lx : t->x[i];
		ly = t->y[i];
		last = t->y[i];
		n++;
	}
	cr_expect_gt(n, 0, "curve %d has no point", c);
	cr_expect(fabs(last - 1) < 1e-9, "curve %d ends at %g, not 1", c,
		  last);
}

static void pt_rmtree(char *d)
{
	nftw(d, pt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(d);
}

/* A run of n jobs: job i (from 0) of id i + 1 submitted at 0, started at
 * wait[i] s (never when < 0), ended 10 s later, of gpus[i] GPUs with
 * placement slowdown ps[i]. */
static void pt_result(struct run_result *r, struct job *j, size_t n,
		      const double *wait, const uint32_t *gpus,
		      const double *ps)
{
	memset(r, 0, sizeof(*r));
	r->label = "easy";
	r->policy = "easy";
	r->workload = "mixed";
	r->seed = 1;
	for (size_t i = 0; i < n; i++) {
		memset(&j[i], 0, sizeof(j[i]));
		j[i].id = (int64_t)i + 1;
		j[i].idx = (uint32_t)i;
		j[i].submit = 0;
		j[i].cpus = 1;
		j[i].user = j[i].group = -1;
		j[i].gpus = gpus[i];
		bool ran = wait[i] >= 0;
		j[i].start = ran ? (sim_time_t)(wait[i] * SIM_SEC) :
				   SIM_TIME_NONE;
		j[i].end = ran ? j[i].start + 10 * SIM_SEC : SIM_TIME_NONE;
		j[i].queued = ran ? j[i].start - j[i].submit : 0;
		j[i].state = ran ? JOB_FINISHED : JOB_REJECTED;
		j[i].placement_slowdown = ps[i];
	}
	r->jobs = j;
	r->njobs = n;
	static const struct sample samples[] = {
		{ .t = 0, .busy_cpus = 1, .util = 0.5, .running = 1,
		  .gpu_util_avg = NAN },
		{ .t = 10000000, .util = 0, .util_avg = 0.5, .queued = 2,
		  .gpu_util_avg = NAN },
	};
	r->samples = samples;
	r->nsamples = 2;
}

/* A mixed workload: single-GPU jobs (no value) between multi-GPU jobs,
 * which used to split the curve into pieces that never cumulated. */
Test(plots, placement_slowdown_cdf_rises_to_1_on_a_mixed_workload)
{
	static const double wait[] = { 0, 1, 2, 3, 4, 5, -1 };
	static const uint32_t gpus[] = { 1, 2, 1, 4, 1, 8, 2 };
	static const double ps[] = { 1, 1.5, 1, 2, 1, 1.25, 0 };
	struct job j[7];
	struct run_result r;
	struct sim_error err = { "" };
	pt_result(&r, j, 7, wait, gpus, ps);
	char *d = pt_tmpdir();
	cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0, "%s",
		     err.msg);
	struct pt_table *t = calloc(1, sizeof(*t));
	pt_run("placement_slowdown.gp", d, "easy-s1", t);
	cr_assert_eq(t->curves, 1);
	pt_expect_cdf(t, 0);
	/* The steps: 1/3 at 1.25, 2/3 at 1.5, 1 at 2. */
	cr_assert_eq(t->n, 3);
	static const double wx[] = { 1.25, 1.5, 2 };
	for (int i = 0; i < t->n; i++) {
		cr_expect(fabs(t->x[i] - wx[i]) < 1e-9, "x %g", t->x[i]);
		cr_expect(fabs(t->y[i] - (i + 1) / 3.0) < 1e-5, "y(%g) = %g",
			  t->x[i], t->y[i]);
	}
	free(t);
	pt_rmtree(d);
}

/* The wait CDF of 5,000 jobs is drawn from at most CDF_POINTS + 1 points
 * and still rises to 1. */
Test(plots, wait_cdf_is_drawn_from_few_points_and_rises_to_1)
{
	enum { N = 5000 };
	double *wait = calloc(N, sizeof(*wait)), *ps = calloc(N, sizeof(*ps));
	uint32_t *gpus = calloc(N, sizeof(*gpus));
	struct job *j = calloc(N, sizeof(*j));
	for (size_t i = 0; i < N; i++)
		wait[i] = (double)((i * 7919) % 3001);
	struct run_result r;
	struct sim_error err = { "" };
	pt_result(&r, j, N, wait, gpus, ps);
	char *d = pt_tmpdir();
	cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0, "%s",
		     err.msg);
	struct pt_table *t = calloc(1, sizeof(*t));
	pt_run("wait_cdf.gp", d, "easy-s1", t);
	cr_assert_eq(t->curves, 1);
	cr_expect_leq(t->n, CDF_POINTS + 1);
	cr_expect_gt(t->n, CDF_POINTS / 2);
	pt_expect_cdf(t, 0);
	free(t);
	free(j);
	free(gpus);
	free(ps);
	free(wait);
	pt_rmtree(d);
}

/* Hand-worked: 10 sorted values, 4 levels.  Ranks 1, 3, 5, 8, 10
 * (1 and ceil(i 10 / 4)), each moved to the last of its ties: 1 -> 2
 * (two zeros), 5 -> 6 (three twos); rank r then is the number of values
 * at or below v[r - 1]. */
Test(plots, cdf_ranks_hand_worked)
{
	static const double v[] = { 0, 0, 1, 2, 2, 2, 5, 7, 9, 9 };
	size_t ranks[5];
	size_t m = cdf_ranks(v, 10, 4, ranks);
	static const size_t want[] = { 2, 3, 6, 8, 10 };
	cr_assert_eq(m, 5);
	for (size_t i = 0; i < m; i++)
		cr_expect_eq(ranks[i], want[i], "rank %zu: %zu", i, ranks[i]);
	/* Fewer values than levels: every distinct value, once. */
	static const double w[] = { 3, 4, 4 };
	size_t r2[2001];
	m = cdf_ranks(w, 3, 2000, r2);
	cr_assert_eq(m, 2);
	cr_expect_eq(r2[0], 1);
	cr_expect_eq(r2[1], 3);
	cr_expect_eq(cdf_ranks(w, 0, 2000, r2), 0);
}

/* The bytes of a CDF file: value (seconds), rank, fraction. */
Test(plots, cdf_file_bytes)
{
	static const double wait[] = { 2.5, 0, -1, 1 };
	static const uint32_t gpus[] = { 0, 0, 0, 0 };
	static const double ps[] = { 0, 0, 0, 0 };
	struct job j[4];
	struct run_result r;
	struct sim_error err = { "" };
	pt_result(&r, j, 4, wait, gpus, ps);
	char *d = pt_tmpdir();
	cr_assert_eq(out_write_run(d, &r, 10 * SIM_SEC, &err), 0, "%s",
		     err.msg);
	char *p = xasprintf("%s/easy-s1/cdf_wait.csv", d);
	FILE *f = fopen(p, "r");
	cr_assert(f);
	char buf[256] = "";
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	cr_expect_str_eq(buf, "value,rank,fraction\n0,1,0.333333333\n"
			      "1,2,0.666666667\n2.5,3,1\n");
	free(p);
	p = xasprintf("%s/easy-s1/cdf_placement_slowdown.csv", d);
	f = fopen(p, "r");
	cr_assert(f);
	len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	cr_expect_str_eq(buf, "value,rank,fraction\n");
	free(p);
	pt_rmtree(d);
}

/* The wait CDF is jobs.csv's wait: the time queued in all, so a job
 * preempted after a start at 0 s that then queued 4 s more counts 4 s,
 * not its first wait of 0 s. */
Test(plots, wait_cdf_counts_the_waits_after_a_preemption)
{
	static const double wait[] = { 2.5, 0, 1 };
	static const uint32_t gpus[] = { 0, 0, 0 };
	static const double ps[] = { 0, 0, 0 };
	struct job j[3];
	struct run_result r;
	struct sim_error err = { "" };
	pt_result(&r, j, 3, wait, gpus, ps);
	j[1].queued = 4 * SIM_SEC;
	j[1].preemptions = 1;
	j[1].end += 4 * SIM_SEC;
	char *d = pt_tmpdir();
	cr_assert_eq(out_write_run(d, &r, 14 * SIM_SEC, &err), 0, "%s",
		     err.msg);
	char *p = xasprintf("%s/easy-s1/cdf_wait.csv", d);
	FILE *f = fopen(p, "r");
	cr_assert(f);
	char buf[256] = "";
	size_t len = fread(buf, 1, sizeof(buf) - 1, f);
	buf[len] = 0;
	fclose(f);
	cr_expect_str_eq(buf, "value,rank,fraction\n1,1,0.333333333\n"
			      "2.5,2,0.666666667\n4,3,1\n");
	free(p);
	pt_rmtree(d);
}

/* plots/lib/style.gp gives 24 line types that differ in colour or dash
 * type, so a sweep of 12 or 18 curves repeats no look. */
Test(plots, style_has_24_distinct_line_types)
{
	char *dir;
	char *script = pt_script("lib/style.gp", &dir);
	char *cmd = xasprintf("gnuplot -e \"load '%s'; show linetype\" 2>&1",
			      script);
	FILE *f = popen(cmd, "r");
	cr_assert(f);
	char seen[24][64] = { { 0 } };
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		int lt;
		char colour[16];
		int dt;
		if (sscanf(line, " linetype %d, linecolor rgb \"%15[^\"]\" "
			   "linewidth %*f dashtype %d", &lt, colour, &dt) != 3)
			continue;
		cr_assert(lt >= 1 && lt <= 24, "linetype %d", lt);
		snprintf(seen[lt - 1], sizeof(seen[0]), "%s/%d", colour, dt);
		n++;
	}
	pclose(f);
	cr_assert_eq(n, 24, "%d line types set", n);
	for (int i = 0; i < 24; i++)
		for (int j = 0; j < i; j++)
			cr_expect_str_neq(seen[i], seen[j], "types %d and %d",
					  j + 1, i + 1);
	free(cmd);
	free(script);
	free(dir);
}

static void pt_put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	cr_assert(f, "cannot write %s", p);
	fputs(text, f);
	fclose(f);
	free(p);
}

/* The convergence plot draws ga and sa, then the lower bound and greedy's
 * score of summary.csv as horizontal lines. */
Test(plots, convergence_draws_the_bound_and_greedy)
{
	char *dir;
	char *script = pt_script("search/convergence.gp", &dir);
	char *d = pt_tmpdir();
	pt_put(d, "summary.csv",
	       "method,objective,score,lower_bound,gap_to_bound,evals,"
	       "wall_s,reproducible,backend,note\n"
	       "greedy,twct,900,400,0.5,2,0,yes,host,\"\"\n"
	       "ga,twct,600,400,0.3,100,1,yes,cpu,\"\"\n");
	pt_put(d, "convergence.csv", "method,evals,wall_s,best\n"
	       "ga,1,0,900\nga,10,0.1,700\nga,100,1,600\n");
	char *cmd = xasprintf(
		"cd '%s' && gnuplot -e \"data='%s/convergence.csv'; "
		"out='%s/c.png'; objective='twct'; plotdir='%s'; "
		"set table '%s/t.txt'\" '%s' >'%s/log' 2>&1",
		d, d, d, dir, d, script, d);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	char *tp = xasprintf("%s/t.txt", d);
	FILE *f = fopen(tp, "r");
	cr_assert(f);
	char line[512], title[128] = "";
	bool lb = false, gr = false;
	while (fgets(line, sizeof(line), f)) {
		double y;
		if (sscanf(line, "# Curve title: \"%127[^\"]\"", title) == 1)
			continue;
		/* x is printed as the axis labels it, "10^{0}". */
		if (line[0] == '#' || sscanf(line, "%*s %lf", &y) != 1)
			continue;
		if (strcmp(title, "lower bound") == 0) {
			cr_expect_eq(y, 400);
			lb = true;
		} else if (strcmp(title, "greedy") == 0) {
			cr_expect_eq(y, 900);
			gr = true;
		}
	}
	fclose(f);
	cr_expect(lb, "no lower bound line");
	cr_expect(gr, "no greedy line");
	free(tp);
	free(cmd);
	free(script);
	free(dir);
	pt_rmtree(d);
}

/* The band of two seeds' CDFs, by hand: seed A has 2 jobs, at 1 and 3;
 * seed B 4 jobs, one at 2 and three at 4 (its points (2, 1/4), (4, 1)).
 * On the union 1, 2, 3, 4: A's CDF is 1/2, 1/2, 1, 1 and B's 0, 1/4,
 * 1/4, 1, so the pooled CDF (6 jobs) is 1/6, 2/6, 3/6, 1. */
Test(plots, seeds_cdf_band_hand_worked)
{
	double va[] = { 1, 3 }, fa[] = { 0.5, 1 };
	double vb[] = { 2, 4 }, fb[] = { 0.25, 1 };
	struct seeds_cdf s[3] = {
		{ va, fa, 2, 2 }, { NULL, NULL, 0, 0 }, { vb, fb, 2, 4 } };
	double x[4], pl[4], lo[4], hi[4];
	size_t m = seeds_cdf_band(s, 3, x, pl, lo, hi);
	static const double ex[] = { 1, 2, 3, 4 };
	static const double epl[] = { 1 / 6., 2 / 6., 3 / 6., 1 };
	static const double elo[] = { 0, 0.25, 0.25, 1 };
	static const double ehi[] = { 0.5, 0.5, 1, 1 };
	cr_assert_eq(m, 4);
	for (size_t i = 0; i < m; i++) {
		cr_expect_eq(x[i], ex[i]);
		cr_expect_float_eq(pl[i], epl[i], 1e-12, "pooled at %g", x[i]);
		cr_expect_eq(lo[i], elo[i], "min at %g", x[i]);
		cr_expect_eq(hi[i], ehi[i], "max at %g", x[i]);
	}
}

/* Two seeds of one label: plot_results writes the label's bars over its
 * seeds (mean, min, max) and one CDF curve for it, whose legend names the
 * seeds' count; the wait CDF drawn is the pooled one, rising to 1. */
Test(plots, several_seeds_draw_one_curve_per_label)
{
	char *dir;
	free(pt_script("wait_cdf.gp", &dir));
	setenv("CLUSTERSIM_PLOTS", dir, 1);
	static const double wait[2][3] = { { 0, 10, 20 }, { 30, 40, 50 } };
	static const uint32_t gpus[] = { 0, 0, 0 };
	static const double ps[] = { 0, 0, 0 };
	struct job j[2][3];
	struct run_result r[2];
	struct sim_error err = { "" };
	char *d = pt_tmpdir();
	for (int i = 0; i < 2; i++) {
		pt_result(&r[i], j[i], 3, wait[i], gpus, ps);
		r[i].seed = (uint64_t)i + 1;
		r[i].metrics.v[M_WAIT_MEAN] = 10 + 30 * i;
		r[i].metrics.set[M_WAIT_MEAN] = true;
		r[i].metrics.v[M_BSLD_MEAN] = 1;
		r[i].metrics.set[M_BSLD_MEAN] = true;
		cr_assert_eq(out_write_run(d, &r[i], 10 * SIM_SEC, &err), 0);
	}
	cr_assert_eq(out_write_summary(d, r, 2, &err), 0, "%s", err.msg);
	cr_assert_eq(plot_results(d, &err), 0, "%s", err.msg);
	/* Bars: mean 25, min 10, max 40. */
	char *p = xasprintf("%s/plots/seeds_summary.csv", d);
	FILE *f = fopen(p, "r");
	cr_assert(f, "no seeds_summary.csv");
	char line[8192];
	cr_assert(fgets(line, sizeof(line), f));
	cr_expect(strstr(line, "label,seeds,"), "%s", line);
	cr_expect(strstr(line, ",wait_mean_mean,wait_mean_min,wait_mean_max"));
	cr_assert(fgets(line, sizeof(line), f));
	cr_expect(strncmp(line, "easy,2,", 7) == 0, "%s", line);
	cr_expect(strstr(line, ",25,10,40,"), "%s", line);
	fclose(f);
	free(p);
	/* One curve, named with its seeds. */
	p = xasprintf("%s/plots/wait_cdf.svg", d);
	f = fopen(p, "r");
	cr_assert(f);
	static char svg[1 << 20];
	size_t len = fread(svg, 1, sizeof(svg) - 1, f);
	svg[len] = 0;
	fclose(f);
	cr_expect(strstr(svg, "easy (2 seeds)"), "no legend for the label");
	cr_expect(!strstr(svg, "easy-s1"), "a curve per seed");
	free(p);
	/* The pooled CDF: 1/6 at wait 0 ... 1 at 50. */
	p = xasprintf("%s/plots/seeds_cdf_wait.dat", d);
	f = fopen(p, "r");
	cr_assert(f);
	double v, pl, lo, hi, last = 0;
	int n = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lf %lf %lf %lf", &v, &pl, &lo, &hi) == 4) {
			if (n++ == 0) {
				cr_expect_eq(v, 0);
				cr_expect_float_eq(pl, 1 / 6., 1e-9);
				cr_expect_float_eq(hi, 1 / 3., 1e-9);
				cr_expect_eq(lo, 0);
			}
			last = pl;
		}
	fclose(f);
	cr_expect_eq(n, 6);
	cr_expect_float_eq(last, 1, 1e-9);
	free(p);
	free(dir);
	pt_rmtree(d);
}

/* A replay's pending pods: policy b's run stops sampling at 10 s (no pod
 * waits after the last arrival), a's goes on to 20 s.  The plot draws b
 * on at 0 to 20 s, so both curves span the same time. */
Test(plots, replay_pending_curves_span_the_same_time)
{
	char *dir;
	char *script = pt_script("fill/replay_pending.gp", &dir);
	char *d = pt_tmpdir();
	char *data = xasprintf("%s/replay-l.csv", d);
	FILE *f = fopen(data, "w");
	cr_assert(f);
	fputs("time_s,a_pending_mean,a_pending_min,a_pending_max,"
	      "b_pending_mean,b_pending_min,b_pending_max\n"
	      "0,0,0,0,0,0,0\n5,3,3,3,2,2,2\n10,2,2,2,0,0,0\n"
	      "15,1,1,1,,,\n20,0,0,0,,,\n", f);
	fclose(f);
	char *table = xasprintf("%s/t.txt", d);
	char *cmd = xasprintf(
		"gnuplot -e \"data='%s'; labels='a b'; term='png'; "
		"out='%s/x.png'; list='l'; plotdir='%s'; window_s='5'; "
		"set table '%s'\" '%s' >'%s/log' 2>&1",
		data, d, dir, table, script, d);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	/* Curves: a's band, b's band, a's mean, b's mean. */
	f = fopen(table, "r");
	cr_assert(f);
	char line[512];
	int curve = 0, rows = 0;
	double last_x = -1, last_y = -1;
	while (fgets(line, sizeof(line), f)) {
		int ci, cn;
		double x, y;
		if (sscanf(line, "# Curve %d of %d", &ci, &cn) == 2)
			curve = ci + 1;
		else if (curve == 4 && sscanf(line, "%lf %lf", &x, &y) == 2) {
			rows++;
			last_x = x;
			last_y = y;
		}
	}
	fclose(f);
	cr_expect_eq(rows, 5, "b's mean curve has %d points", rows);
	cr_expect_eq(last_x, 20);
	cr_expect_eq(last_y, 0);
	free(cmd);
	free(table);
	free(data);
	free(script);
	free(dir);
	pt_rmtree(d);
}

/* Utilization as small multiples: runs easy-s1, easy-s2 and fcfs-s1 give
 * a panel of two curves (easy's seeds) and one of one (fcfs), each rising
 * to the sample's 0.5 at 10 s (time in seconds for a 10 s span; the
 * table prints x as each panel's axis does, so only the bottom one's). */
Test(plots, utilization_draws_one_panel_per_label)
{
	static const double wait[] = { 0, 1, 2 };
	static const uint32_t gpus[] = { 0, 0, 0 };
	static const double ps[] = { 0, 0, 0 };
	struct job j[3][3];
	struct run_result r[3];
	struct sim_error err = { "" };
	char *d = pt_tmpdir();
	for (int i = 0; i < 3; i++) {
		pt_result(&r[i], j[i], 3, wait, gpus, ps);
		r[i].label = i < 2 ? "easy" : "fcfs";
		r[i].seed = i < 2 ? (uint64_t)i + 1 : 1;
		cr_assert_eq(out_write_run(d, &r[i], 10 * SIM_SEC, &err), 0);
	}
	char *dir;
	char *script = pt_script("utilization.gp", &dir);
	char *table = xasprintf("%s/t.txt", d);
	char *cmd = xasprintf(
		"gnuplot -e \"outdir='%s'; runs='easy-s1 easy-s2 fcfs-s1'; "
		"labels='easy-s1 easy-s2 fcfs-s1'; groups='easy fcfs'; "
		"gseeds='2 1'; rungroup='1 1 2'; term='png'; out='%s/x.png'; "
		"plotdir='%s'; set table '%s'\" '%s' >'%s/log' 2>&1",
		d, d, dir, table, script, d);
	cr_assert_eq(system(cmd), 0, "%s failed", cmd);
	FILE *f = fopen(table, "r");
	cr_assert(f);
	char line[512];
	int panels = 0, curves[4] = { 0 }, at_half = 0;
	while (fgets(line, sizeof(line), f)) {
		int ci, cn;
		double x, y;
		if (sscanf(line, "# Curve %d of %d", &ci, &cn) == 2) {
			if (ci == 0)
				panels++;
			cr_assert_leq(panels, 4);
			curves[panels - 1] = cn;
		} else if (sscanf(line, "%lf %lf", &x, &y) == 2) {
			/* x as the panel's axis prints it: the bottom one's. */
			cr_expect(y >= 0 && y <= 1, "y %g", y);
			at_half += x == 10 && y == 0.5;
		} else if (sscanf(line, " %lf", &y) == 1) {
			/* An upper panel's x, printed without labels. */
			at_half += y == 0.5;
		}
	}
	fclose(f);
	cr_expect_eq(panels, 2);
	cr_expect_eq(curves[0], 2, "easy's panel has %d curves", curves[0]);
	cr_expect_eq(curves[1], 1, "fcfs's panel has %d curves", curves[1]);
	cr_expect_geq(at_half, 3, "not every curve reaches 0.5 at 10 s");
	free(cmd);
	free(table);
	free(script);
	free(dir);
	pt_rmtree(d);
}

/* A label with no multi-GPU job (b) still has its block in the band file
 * of the placement slowdown, one row of NaN, so that the label after it
 * (c) is drawn from its own block and not from b's place. */
Test(plots, seeds_band_keeps_a_block_for_a_label_without_values)
{
	static const double wait[] = { 0, 1, 2 };
	static const uint32_t multi[] = { 2, 2, 2 }, single[] = { 1, 1, 1 };
	static const double ps[] = { 1.5, 2, 3 };
	static const char *const lab[] = { "a", "a", "b", "b", "c", "c" };
	struct job j[6][3];
	struct run_result r[6];
	struct sim_error err = { "" };
	char *d = pt_tmpdir();
	for (int i = 0; i < 6; i++) {
		pt_result(&r[i], j[i], 3, wait, i / 2 == 1 ? single : multi,
			  ps);
		r[i].label = lab[i];
		r[i].seed = (uint64_t)(i % 2) + 1;
		cr_assert_eq(out_write_run(d, &r[i], 10 * SIM_SEC, &err), 0);
	}
	cr_assert_eq(out_write_summary(d, r, 6, &err), 0, "%s", err.msg);
	static const char *const runs[] = { "a-s1", "a-s2", "b-s1", "b-s2",
					    "c-s1", "c-s2" };
	static const size_t group[] = { 0, 0, 1, 1, 2, 2 };
	static const char *const labels[] = { "a", "b", "c" };
	char *pd = xasprintf("%s/plots", d);
	cr_assert_eq(mkdir(pd, 0777), 0);
	cr_assert_eq(seeds_write(d, runs, group, 6, labels, 3, &err), 0,
		     "%s", err.msg);
	char *p = xasprintf("%s/seeds_cdf_placement_slowdown.dat", pd);
	FILE *f = fopen(p, "r");
	cr_assert(f);
	char line[256];
	int block = 0, rows[3] = { 0 }, nan_rows = 0;
	bool blank = false;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (line[0] == '\n') {
			if (!blank)
				block++;
			blank = true;
			continue;
		}
		blank = false;
		cr_assert_lt(block, 3, "more than 3 blocks");
		rows[block]++;
		nan_rows += strncmp(line, "NaN NaN NaN NaN", 15) == 0;
	}
	fclose(f);
	cr_expect_eq(rows[0], 3, "a: %d rows", rows[0]);
	cr_expect_eq(rows[1], 1, "b: %d rows", rows[1]);
	cr_expect_eq(rows[2], 3, "c: %d rows", rows[2]);
	cr_expect_eq(nan_rows, 1);
	free(p);
	free(pd);
	pt_rmtree(d);
}
