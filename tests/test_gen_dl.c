/*
 * Tests of the deep-learning generator: GPU jobs drawn by sim/workload/gen.c from
 * the "philly" preset (sim/workload/gen_dl.c, the fitted table sim/workload/gen_philly_fit.c)
 * and the experiment keys that select and override it (sim/exp/exp.c).
 *
 * Sampled statistics are checked against closed forms with a tolerance of
 * five standard errors of the statistic (computed in each test), so a
 * failure is a real mismatch, not noise; the seed is fixed, so the tests
 * are deterministic.  Where the Philly trace is present the generated
 * workload is also compared with the trace itself, read here with a plain
 * loop independent of the project's reader.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/exp.h"
#include "workload/gen_dl.h"
#include "base/util.h"
#include "workload/workload.h"

static void dl_gen(const struct gen_spec *g, uint64_t seed,
		   struct workload *w)
{
	struct sim_error err = { .msg = "" };
	cr_assert_eq(gen_workload(g, seed, NULL, w, &err), 0, "%s", err.msg);
}

/* The philly preset with n jobs. */
static void dl_preset(struct gen_spec *g, uint64_t n)
{
	memset(g, 0, sizeof(*g));
	gen_preset_apply(&gen_philly_fit, g);
	g->jobs = n;
}

static double dl_phi(double z)
{
	return 0.5 * erfc(-z / sqrt(2.0));
}

static int dl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Quantile q of the n sorted values x, as scripts/fit-philly.py takes it. */
static double dl_quantile(const double *x, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n);
	return x[i < n ? i : n - 1];
}

/* The fitted bucket holding gpus (the table's own ranges). */
static size_t dl_bucket(uint32_t gpus)
{
	const struct gen_fit *f = &gen_philly_fit;
	for (size_t b = 0; b < f->nbuckets; b++)
		if (gpus >= f->buckets[b].min_gpus &&
		    (!f->buckets[b].max_gpus || gpus <= f->buckets[b].max_gpus))
			return b;
	cr_assert_fail("no bucket for %u GPUs", gpus);
	return 0;
}

/* The table itself: what the fit read from the trace (82,247 jobs, the
 * counts of scripts/fit-philly.py --json), four disjoint buckets. */
Test(gen_dl, table)
{
	const struct gen_fit *f = &gen_philly_fit;
	uint64_t sum = 0, bsum = 0;
	cr_assert_eq(f->jobs, 82247);
	for (size_t i = 0; i < f->nsizes; i++)
		sum += f->sizes[i].jobs;
	cr_assert_eq(sum, 82247);
	cr_assert_eq(f->sizes[0].gpus, 1);
	cr_assert_eq(f->sizes[0].jobs, 76627);
	cr_assert_eq(f->nbuckets, 4);
	for (size_t b = 0; b < f->nbuckets; b++)
		bsum += f->buckets[b].jobs;
	cr_assert_eq(bsum, 82247);
	/* every observed size is in exactly one bucket, with its jobs */
	uint64_t inb[GEN_FIT_MAX_BUCKETS] = { 0 };
	for (size_t i = 0; i < f->nsizes; i++)
		inb[dl_bucket(f->sizes[i].gpus)] += f->sizes[i].jobs;
	for (size_t b = 0; b < f->nbuckets; b++)
		cr_assert_eq(inb[b], f->buckets[b].jobs);
	/* the trace spans 2017-09-04 10:30:41 .. 2017-12-22 08:02:11:
	 * 9,408,690 s over 82,246 gaps */
	cr_assert_float_eq(f->interarrival_mean, 9408690.0 / 82246, 1e-9);
}

/* 200,000 draws: each GPU count's frequency within 5 binomial sigmas of
 * the table's probability; every GPU job takes gpus x 4 CPUs, no class,
 * and its run time (up to a whole second) as estimate. */
Test(gen_dl, gpu_frequencies)
{
	const struct gen_fit *f = &gen_philly_fit;
	const size_t n = 200000;
	struct gen_spec g;
	struct workload w;
	uint64_t cnt[GEN_FIT_MAX_SIZES] = { 0 };

	dl_preset(&g, n);
	dl_gen(&g, 7, &w);
	cr_assert_eq(w.n, n);
	for (size_t k = 0; k < n; k++) {
		const struct job *j = &w.jobs[k];
		size_t i = 0;
		while (i < f->nsizes && f->sizes[i].gpus != j->gpus)
			i++;
		cr_assert_lt(i, f->nsizes, "drew %u GPUs", j->gpus);
		cnt[i]++;
		cr_assert_eq(j->cpus, 4 * j->gpus);
		cr_assert_eq(j->job_class, JOB_CLASS_NONE);
		/* factor 1: the run time rounded up to a second */
		cr_assert_eq(j->estimate,
			     (j->run + SIM_SEC - 1) / SIM_SEC * SIM_SEC);
		cr_assert_geq(j->run, SIM_SEC);
	}
	for (size_t i = 0; i < f->nsizes; i++) {
		double p = (double)f->sizes[i].jobs / f->jobs;
		double sd = sqrt((double)n * p * (1 - p));
		cr_assert_leq(fabs((double)cnt[i] - (double)n * p), 5 * sd,
			      "%u GPUs: %lu drawn, %g expected",
			      f->sizes[i].gpus, (unsigned long)cnt[i], n * p);
	}
	workload_release(&w);
	gen_spec_release(&g);
}

/*
 * Per bucket, the single lognormal fit (mu, sigma) used on its own: the
 * sample median of ln(run) is mu (a lognormal's median is exp(mu)), its
 * standard error sigma sqrt(pi/2n); the sample mean of ln(run) is that of
 * a normal clamped below at 0 (run times under 1 s become 1 s):
 * mu Phi(mu/sigma) + sigma phi(mu/sigma), standard error <= sigma/sqrt(n);
 * and for the 1-GPU bucket (clamped mass 3e-4) the sample sd is sigma
 * within 5 sigma/sqrt(2n) plus 0.01 for the clamp.
 */
Test(gen_dl, lognormal_per_bucket)
{
	const struct gen_fit *f = &gen_philly_fit;
	const size_t n = 200000;
	struct gen_spec g;
	struct workload w;

	dl_preset(&g, n);
	for (size_t b = 0; b < g.nbuckets; b++) {
		struct gen_fit_bucket one = f->buckets[b];
		one.mixture = false;
		gen_fit_bucket_dist(&one, &g.runtime_by_gpus[b].runtime);
		cr_assert_eq(g.runtime_by_gpus[b].runtime.kind, DIST_LOGNORMAL);
	}
	dl_gen(&g, 11, &w);
	double *ly = xcalloc(n, sizeof(double));
	for (size_t b = 0; b < f->nbuckets; b++) {
		const struct gen_fit_bucket *fb = &f->buckets[b];
		size_t m = 0;
		double sum = 0, sq = 0;
		for (size_t k = 0; k < n; k++) {
			if (dl_bucket(w.jobs[k].gpus) != b)
				continue;
			ly[m] = log((double)w.jobs[k].run / SIM_SEC);
			sum += ly[m];
			m++;
		}
		cr_assert_gt(m, 500, "bucket %zu: %zu jobs", b, m);
		qsort(ly, m, sizeof(double), dl_cmp);
		double mu = fb->mu, s = fb->sigma;
		double med = m % 2 ? ly[m / 2] : (ly[m / 2 - 1] + ly[m / 2]) / 2;
		cr_assert_leq(fabs(med - mu), 5 * s * sqrt(M_PI / 2 / m),
			      "bucket %zu: median of ln run %g, mu %g", b, med,
			      mu);
		double z = mu / s;
		double want = mu * dl_phi(z) + s * exp(-z * z / 2) /
			      sqrt(2 * M_PI);
		double mean = sum / m;
		cr_assert_leq(fabs(mean - want), 5 * s / sqrt(m),
			      "bucket %zu: mean of ln run %g, want %g", b, mean,
			      want);
		if (b == 0) {
			for (size_t i = 0; i < m; i++)
				sq += (ly[i] - mean) * (ly[i] - mean);
			double sd = sqrt(sq / m);
			cr_assert_leq(fabs(sd - s), 5 * s / sqrt(2.0 * m) + 0.01,
				      "sd of ln run %g, sigma %g", sd, s);
		}
	}
	free(ly);
	workload_release(&w);
	gen_spec_release(&g);
}

/*
 * The preset as shipped: every bucket a two-lognormal mixture.  The mean
 * of ln(run) is p mu1 + (1-p) mu2 (clamping is negligible: the lowest
 * component sits 3.5 sigma above 0), within 5 standard errors; the
 * median of ln(run) is the root of the mixture's CDF = 1/2, found here by
 * bisection, within 5 standard errors of a sample median, 1/(2 f sqrt n)
 * with f the mixture's density there.
 */
Test(gen_dl, mixture_per_bucket)
{
	const struct gen_fit *f = &gen_philly_fit;
	const size_t n = 200000;
	struct gen_spec g;
	struct workload w;

	dl_preset(&g, n);
	dl_gen(&g, 13, &w);
	double *ly = xcalloc(n, sizeof(double));
	for (size_t b = 0; b < f->nbuckets; b++) {
		const double *x = f->buckets[b].mix;
		double p = x[0], m1 = x[1], s1 = x[2], m2 = x[3], s2 = x[4];
		size_t m = 0;
		double sum = 0;
		cr_assert(f->buckets[b].mixture);
		cr_assert_eq(g.runtime_by_gpus[b].runtime.kind, DIST_LOGNORMAL2);
		for (size_t k = 0; k < n; k++) {
			if (dl_bucket(w.jobs[k].gpus) != b)
				continue;
			ly[m] = log((double)w.jobs[k].run / SIM_SEC);
			sum += ly[m++];
		}
		qsort(ly, m, sizeof(double), dl_cmp);
		double lo = -50, hi = 50;
		for (int it = 0; it < 200; it++) {
			double mid = (lo + hi) / 2;
			double F = p * dl_phi((mid - m1) / s1) +
				   (1 - p) * dl_phi((mid - m2) / s2);
			if (F < 0.5)
				lo = mid;
			else
				hi = mid;
		}
		double z1 = (lo - m1) / s1, z2 = (lo - m2) / s2;
		double dens = (p * exp(-z1 * z1 / 2) / s1 +
			       (1 - p) * exp(-z2 * z2 / 2) / s2) / sqrt(2 * M_PI);
		double med = ly[m / 2];
		cr_assert_leq(fabs(med - lo), 5 / (2 * dens * sqrt(m)),
			      "bucket %zu: median of ln run %g, want %g", b,
			      med, lo);
		double want = p * m1 + (1 - p) * m2;
		double var = p * (s1 * s1 + m1 * m1) +
			     (1 - p) * (s2 * s2 + m2 * m2) - want * want;
		cr_assert_leq(fabs(sum / m - want), 5 * sqrt(var / m),
			      "bucket %zu: mean of ln run %g, want %g", b,
			      sum / m, want);
	}
	free(ly);
	workload_release(&w);
	gen_spec_release(&g);
}

/* Poisson arrivals: the mean gap over 200,000 jobs is the table's mean
 * within 5 standard errors (an exponential's sd is its mean). */
Test(gen_dl, interarrival_mean)
{
	const size_t n = 200000;
	const double mean = gen_philly_fit.interarrival_mean;
	struct gen_spec g;
	struct workload w;

	dl_preset(&g, n);
	cr_assert_eq(g.interarrival.kind, DIST_EXPONENTIAL);
	dl_gen(&g, 3, &w);
	double got = (double)(w.jobs[n - 1].submit - w.jobs[0].submit) /
		     SIM_SEC / (double)(n - 1);
	cr_assert_leq(fabs(got - mean), 5 * mean / sqrt((double)(n - 1)),
		      "mean gap %g, want %g", got, mean);
	workload_release(&w);
	gen_spec_release(&g);
}

/* Same seed, same jobs; another seed, other jobs. */
Test(gen_dl, reproducible)
{
	struct gen_spec g;
	struct workload a, b, c;
	size_t same = 0;

	dl_preset(&g, 5000);
	dl_gen(&g, 1, &a);
	dl_gen(&g, 1, &b);
	dl_gen(&g, 2, &c);
	cr_assert_eq(a.n, 5000);
	for (size_t k = 0; k < a.n; k++) {
		const struct job *x = &a.jobs[k], *y = &b.jobs[k];
		cr_assert_eq(x->id, y->id);
		cr_assert_eq(x->submit, y->submit);
		cr_assert_eq(x->run, y->run);
		cr_assert_eq(x->gpus, y->gpus);
		cr_assert_eq(x->cpus, y->cpus);
		cr_assert_eq(x->estimate, y->estimate);
		cr_assert_eq(x->user, y->user);
		same += x->run == c.jobs[k].run;
	}
	/* run times in microseconds from continuous draws: a coincidence
	 * is all but impossible */
	cr_assert_lt(same, 10, "%zu equal run times across seeds", same);
	workload_release(&a);
	workload_release(&b);
	workload_release(&c);
	gen_spec_release(&g);
}

/* A CPU-only spec draws no GPU count (gpus constant 0): its jobs are the
 * jobs of the same spec with the draw order of before, checked against a
 * second generator run with the GPU distribution a constant 0 explicitly
 * and another with constant 0.4 (rounds to 0, still no draw). */
Test(gen_dl, cpu_only_unchanged)
{
	struct gen_spec g;
	struct workload a, b;

	memset(&g, 0, sizeof(g));
	g.jobs = 2000;
	g.interarrival.kind = DIST_EXPONENTIAL;
	g.interarrival.p[0] = 30;
	g.runtime.kind = DIST_LOGNORMAL;
	g.runtime.p[0] = 6;
	g.runtime.p[1] = 1;
	g.cpus.kind = DIST_POW2;
	g.cpus.p[0] = 1;
	g.cpus.p[1] = 64;
	g.estimate_factor.kind = DIST_CONSTANT;
	g.estimate_factor.p[0] = 1;
	g.users = 3;
	g.cpus_per_gpu = 4;
	dl_gen(&g, 5, &a);
	g.gpus.p[0] = 0.4;
	dl_gen(&g, 5, &b);
	for (size_t k = 0; k < a.n; k++) {
		cr_assert_eq(a.jobs[k].gpus, 0);
		cr_assert_eq(b.jobs[k].gpus, 0);
		cr_assert_eq(a.jobs[k].run, b.jobs[k].run);
		cr_assert_eq(a.jobs[k].cpus, b.jobs[k].cpus);
	}
	workload_release(&a);
	workload_release(&b);
}

static const char *dl_doc(const char *generate)
{
	static char buf[2048];
	snprintf(buf, sizeof(buf),
		 "{\"cluster\": {\"nodes\": [{\"count\": 2, \"cpus\": 32, "
		 "\"gpus\": 8, \"gpu_type\": \"p100\"}]}, \"policies\": "
		 "[\"fcfs\"], \"workload\": {\"generate\": %s}}", generate);
	return buf;
}

static void dl_parse(const char *generate, struct experiment *e)
{
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(dl_doc(generate), "p.json", e, &err), 0, "%s",
		     err.msg);
}

static void dl_parse_err(const char *generate, const char *msg)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(dl_doc(generate), "p.json", &e, &err),
		     -SIM_EINPUT, "accepted %s", generate);
	cr_assert_str_eq(err.msg, msg);
}

/* A preset fills every key; each key given alongside replaces its own. */
Test(gen_dl, preset_and_overrides)
{
	const struct gen_fit *f = &gen_philly_fit;
	struct experiment e;
	const struct gen_spec *g = &e.workload.gen;

	dl_parse("{\"preset\": \"philly\"}", &e);
	cr_assert_str_eq(g->preset, "philly");
	cr_assert_eq(g->jobs, 82247);
	cr_assert_eq(g->interarrival.kind, DIST_EXPONENTIAL);
	cr_assert_eq(g->interarrival.p[0], f->interarrival_mean);
	cr_assert_eq(g->gpus.kind, DIST_DISCRETE);
	cr_assert_eq(g->gpus.nvalues, 10);
	cr_assert_eq(g->gpus.values[9], 128);
	cr_assert_eq(g->gpus.weights[9], 3);
	cr_assert_eq(g->nbuckets, 4);
	cr_assert_eq(g->runtime_by_gpus[1].min_gpus, 2);
	cr_assert_eq(g->runtime_by_gpus[1].max_gpus, 4);
	cr_assert_eq(g->runtime_by_gpus[3].max_gpus, 0);
	cr_assert_eq(g->runtime_by_gpus[2].runtime.p[3], f->buckets[2].mix[3]);
	cr_assert_eq(g->cpus_per_gpu, 4);
	cr_assert_eq(g->estimate_factor.p[0], 1);
	exp_release(&e);

	/* load: a constant gap of 60 s, then load_scale 2 halves it */
	struct sim_error err = { .msg = "" };
	struct workload w;
	char *t = xasprintf(
		"{\"cluster\": {\"nodes\": [{\"count\": 2, \"cpus\": 32, "
		"\"gpus\": 8}]}, \"policies\": [\"fcfs\"], \"workload\": "
		"{\"generate\": {\"preset\": \"philly\", \"jobs\": 10, "
		"\"interarrival\": {\"dist\": \"constant\", \"value\": 60}, "
		"\"cpus_per_gpu\": 2}, \"load_scale\": 2}}");
	cr_assert_eq(exp_parse(t, "p.json", &e, &err), 0, "%s", err.msg);
	free(t);
	cr_assert_eq(g->jobs, 10);
	cr_assert_eq(g->interarrival.kind, DIST_CONSTANT);
	cr_assert_eq(g->nbuckets, 4); /* untouched */
	cr_assert_eq(g->gpus.kind, DIST_DISCRETE);
	cr_assert_eq(gen_workload(g, 1, &e.workload.opts, &w, &err), 0, "%s",
		     err.msg);
	for (size_t k = 0; k < w.n; k++) {
		cr_assert_eq(w.jobs[k].submit, (sim_time_t)k * 30 * SIM_SEC);
		cr_assert_eq(w.jobs[k].cpus, 2 * w.jobs[k].gpus);
	}
	workload_release(&w);
	exp_release(&e);

	/* a runtime of its own drops the preset's buckets ... */
	dl_parse("{\"preset\": \"philly\", \"runtime\": {\"dist\": "
		 "\"constant\", \"value\": 5}}", &e);
	cr_assert_eq(g->nbuckets, 0);
	cr_assert_eq(g->runtime.kind, DIST_CONSTANT);
	cr_assert_eq(g->gpus.nvalues, 10);
	exp_release(&e);
	/* ... unless buckets are given too */
	dl_parse("{\"preset\": \"philly\", \"runtime\": {\"dist\": "
		 "\"constant\", \"value\": 5}, \"runtime_by_gpus\": [{\"min\": "
		 "2, \"runtime\": {\"dist\": \"constant\", \"value\": 7}}]}",
		 &e);
	cr_assert_eq(g->nbuckets, 1);
	cr_assert_eq(g->runtime_by_gpus[0].min_gpus, 2);
	cr_assert_eq(g->runtime_by_gpus[0].max_gpus, 0);
	cr_assert_eq(gen_workload(g, 1, NULL, &w, &err), 0, "%s", err.msg);
	for (size_t k = 0; k < 1000; k++)
		cr_assert_eq(w.jobs[k].run,
			     (w.jobs[k].gpus >= 2 ? 7 : 5) * SIM_SEC);
	workload_release(&w);
	exp_release(&e);

	/* the gpus distribution overrides too: all 8-GPU jobs */
	dl_parse("{\"preset\": \"philly\", \"jobs\": 3, \"gpus\": {\"dist\": "
		 "\"constant\", \"value\": 8}}", &e);
	cr_assert_eq(gen_workload(g, 1, NULL, &w, &err), 0, "%s", err.msg);
	for (size_t k = 0; k < w.n; k++)
		cr_assert_eq(w.jobs[k].gpus, 8);
	workload_release(&w);
	exp_release(&e);

	/* no preset: gpus without cpus is enough (cpus default 1) */
	dl_parse("{\"jobs\": 2, \"interarrival\": {\"dist\": \"constant\", "
		 "\"value\": 1}, \"runtime\": {\"dist\": \"constant\", "
		 "\"value\": 9}, \"gpus\": {\"dist\": \"constant\", \"value\": "
		 "2}}", &e);
	cr_assert_null(g->preset);
	cr_assert_eq(g->cpus.kind, DIST_CONSTANT);
	cr_assert_eq(g->cpus.p[0], 1);
	cr_assert_eq(g->cpus_per_gpu, 4);
	exp_release(&e);
}

/* The resolved configuration (the manifest's) loads back to the same
 * jobs. */
Test(gen_dl, resolved_round_trip)
{
	struct experiment e, r;
	struct sim_error err = { .msg = "" };
	struct workload a, b;

	dl_parse("{\"preset\": \"philly\", \"jobs\": 500, \"cpus_per_gpu\": 3}",
		 &e);
	cr_assert_not_null(e.resolved_json);
	cr_assert_eq(exp_parse(e.resolved_json, "r.json", &r, &err), 0,
		     "%s\n%s", err.msg, e.resolved_json);
	cr_assert_str_eq(r.workload.gen.preset, "philly");
	cr_assert_eq(gen_workload(&e.workload.gen, 4, NULL, &a, &err), 0);
	cr_assert_eq(gen_workload(&r.workload.gen, 4, NULL, &b, &err), 0);
	cr_assert_eq(a.n, b.n);
	for (size_t k = 0; k < a.n; k++) {
		cr_assert_eq(a.jobs[k].submit, b.jobs[k].submit);
		cr_assert_eq(a.jobs[k].run, b.jobs[k].run);
		cr_assert_eq(a.jobs[k].gpus, b.jobs[k].gpus);
		cr_assert_eq(a.jobs[k].cpus, 3 * b.jobs[k].gpus);
	}
	workload_release(&a);
	workload_release(&b);
	exp_release(&e);
	exp_release(&r);
}

#define DL_GP "p.json: $.workload.generate"
#define DL_C1 "{\"dist\": \"constant\", \"value\": 1}"

Test(gen_dl, bad_keys)
{
	dl_parse_err("{\"preset\": \"phily\"}",
		     DL_GP ".preset: unknown value 'phily' (expected "
		     "'philly')");
	dl_parse_err("{\"preset\": 3}",
		     DL_GP ".preset: expected a string, got number");
	dl_parse_err("{\"preset\": \"philly\", \"gpu\": " DL_C1 "}",
		     DL_GP ": unknown key 'gpu' (did you mean 'gpus'?)");
	dl_parse_err("{\"preset\": \"philly\", \"cpus_per_gpu\": -1}",
		     DL_GP ".cpus_per_gpu: must be >= 0, got "
		     "'-1'");
	dl_parse_err("{\"preset\": \"philly\", \"runtime_by_gpus\": {}}",
		     DL_GP ".runtime_by_gpus: expected an array of objects, "
		     "got object");
	dl_parse_err("{\"preset\": \"philly\", \"runtime_by_gpus\": "
		     "[{\"min\": 1}]}",
		     DL_GP ".runtime_by_gpus[0]: missing key 'runtime'");
	dl_parse_err("{\"preset\": \"philly\", \"runtime_by_gpus\": "
		     "[{\"min\": 0, \"runtime\": " DL_C1 "}]}",
		     DL_GP ".runtime_by_gpus[0].min: must be > 0, got '0'");
	dl_parse_err("{\"preset\": \"philly\", \"runtime_by_gpus\": "
		     "[{\"min\": 4, \"max\": 2, \"runtime\": " DL_C1 "}]}",
		     DL_GP ".runtime_by_gpus[0].max: must not be less than min "
		     "'4', got '2'");
	dl_parse_err("{\"preset\": \"philly\", \"runtime_by_gpus\": "
		     "[{\"min\": 1, \"max\": 4, \"runtime\": " DL_C1 "}, "
		     "{\"min\": 3, \"runtime\": " DL_C1 "}]}",
		     DL_GP ".runtime_by_gpus[1]: overlaps bucket 0 ('3' GPUs "
		     "are in both)");
	dl_parse_err("{\"preset\": \"philly\", \"runtime_by_gpus\": "
		     "[{\"min\": 1, \"runtim\": " DL_C1 "}]}",
		     DL_GP ".runtime_by_gpus[0]: unknown key 'runtim' (did you "
		     "mean 'runtime'?)");
	dl_parse_err("{\"preset\": \"philly\", \"gpus\": {\"dist\": "
		     "\"lognormal2\", \"p\": 1.5, \"mu1\": 0, \"sigma1\": 1, "
		     "\"mu2\": 0, \"sigma2\": 1}}",
		     DL_GP ".gpus.p: must be between 0 and 1, got '1.5'");
	dl_parse_err("{\"preset\": \"philly\", \"runtime\": {\"dist\": "
		     "\"lognormal2\", \"p\": 0.5, \"mu1\": 0, \"sigma1\": -1, "
		     "\"mu2\": 0, \"sigma2\": 1}}",
		     DL_GP ".runtime.sigma1: must not be negative, got '-1'");
	/* without a preset the CPU spec's keys are required */
	dl_parse_err("{\"jobs\": 1, \"interarrival\": " DL_C1 ", \"cpus\": "
		     DL_C1 "}", DL_GP ": missing key 'runtime'");
	dl_parse_err("{\"jobs\": 1, \"interarrival\": " DL_C1 ", \"runtime\": "
		     DL_C1 "}", DL_GP ": missing key 'cpus'");
}

/* The trace's own figures, by a plain pass over the CSV: jobs with
 * duration > 0 and GPUs >= 1, their GPU counts and durations. */
struct dl_trace {
	size_t n;        /* jobs */
	double *dur;     /* durations, seconds */
	uint32_t *gpus;  /* GPU counts */
};

static bool dl_read_trace(struct dl_trace *t)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *path = xasprintf("%s/gpu/philly.csv",
			       dir ? dir : "../shared/traces");
	FILE *fp = fopen(path, "r");
	char line[512];
	size_t cap = 0;
	free(path);
	memset(t, 0, sizeof(*t));
	if (!fp)
		return false;
	if (!fgets(line, sizeof(line), fp)) { /* the header */
		fclose(fp);
		return false;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *c = strchr(line, ','), *end;
		if (!c)
			continue;
		double d = strtod(c + 1, &end);
		if (*end != ',')
			continue;
		long g = strtol(end + 1, &end, 10);
		if (*end != ',' || !(d > 0) || g < 1)
			continue;
		if (t->n == cap) {
			cap = cap ? 2 * cap : 1024;
			t->dur = realloc(t->dur, cap * sizeof(double));
			t->gpus = realloc(t->gpus, cap * sizeof(uint32_t));
			cr_assert(t->dur && t->gpus);
		}
		t->dur[t->n] = d;
		t->gpus[t->n++] = (uint32_t)g;
	}
	fclose(fp);
	return t->n > 0;
}

/* p25, p50, p90 of the durations of jobs in bucket b (all if b < 0). */
static void dl_quartiles(const double *dur, const uint32_t *gpus, size_t n,
			 int b, double q[3])
{
	double *x = xcalloc(n, sizeof(double));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (b < 0 || dl_bucket(gpus[i]) == (size_t)b)
			x[m++] = dur[i];
	qsort(x, m, sizeof(double), dl_cmp);
	q[0] = dl_quantile(x, m, 0.25);
	q[1] = dl_quantile(x, m, 0.5);
	q[2] = dl_quantile(x, m, 0.9);
	free(x);
}

/* The jobs of bucket b (all if b < 0), and the share of them that run
 * less than x seconds into *below. */
static size_t dl_count_below(const double *dur, const uint32_t *gpus,
			     size_t n, int b, double x, double *below)
{
	size_t m = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		if (b < 0 || dl_bucket(gpus[i]) == (size_t)b) {
			m++;
			k += dur[i] < x;
		}
	*below = m ? (double)k / m : 0;
	return m;
}

/*
 * Against the trace: a generated workload of the trace's size (seed 1)
 * has each GPU count's frequency within 5 binomial sigmas of the trace's,
 * and duration quantiles p25/p50/p90 within a factor 1.5 of the trace's
 * over all jobs, and per GPU bucket within a factor 2 where the bucket
 * has 1,000 jobs or more, 3 for the 289 jobs above 8 GPUs.  The
 * mixture's own quantiles are within 1.33 of the trace's; the rest is
 * sampling noise: a p25 of 289 draws has a standard error of
 * sqrt(0.25 x 0.75 / 289) / f = 0.28 in ln seconds (f = 0.09, the
 * mixture's density of ln run there), in both the trace and the sample,
 * so their ratio has 0.4: four of those are a factor e^1.6 = 5, and
 * 3 is 2.75 standard errors.  Where a quantile falls between a
 * mixture's two modes the density there is small and the quantile's
 * value moves far on little probability (the 2-4 GPU median: f = 0.016
 * in ln seconds, a standard error of 0.5 over 3,688 draws), so a
 * quantile also passes when the share of generated jobs below the
 * trace's quantile is within 5 binomial sigmas (of the trace's count
 * and of the sample's) of the quantile's level.
 */
Test(gen_dl, matches_trace)
{
	struct dl_trace t;
	if (!dl_read_trace(&t)) {
		cr_skip_test("gpu/philly.csv not found under "
			     "$CLUSTERSIM_TRACE_DIR (default ../shared/traces)");
		return;
	}
	const struct gen_fit *f = &gen_philly_fit;
	struct gen_spec g;
	struct workload w;

	cr_assert_eq(t.n, 82247);
	dl_preset(&g, t.n);
	dl_gen(&g, 1, &w);
	double *gd = xcalloc(w.n, sizeof(double));
	uint32_t *gg = xcalloc(w.n, sizeof(uint32_t));
	for (size_t k = 0; k < w.n; k++) {
		gd[k] = (double)w.jobs[k].run / SIM_SEC;
		gg[k] = w.jobs[k].gpus;
	}
	for (size_t i = 0; i < f->nsizes; i++) {
		size_t ct = 0, cg = 0;
		for (size_t k = 0; k < t.n; k++) {
			ct += t.gpus[k] == f->sizes[i].gpus;
			cg += gg[k] == f->sizes[i].gpus;
		}
		double p = (double)ct / t.n;
		cr_assert_leq(fabs((double)cg - (double)ct),
			      5 * sqrt(t.n * p * (1 - p)) + 1,
			      "%u GPUs: trace %zu, generated %zu",
			      f->sizes[i].gpus, ct, cg);
	}
	for (int b = -1; b < (int)f->nbuckets; b++) {
		double qt[3], qg[3];
		double fac = b < 0 ? 1.5 : f->buckets[b].jobs >= 1000 ? 2 : 3;
		dl_quartiles(t.dur, t.gpus, t.n, b, qt);
		dl_quartiles(gd, gg, w.n, b, qg);
		static const double level[3] = { 0.25, 0.5, 0.9 };
		for (int i = 0; i < 3; i++) {
			double below, q = level[i], dt;
			size_t mg = dl_count_below(gd, gg, w.n, b, qt[i],
						   &below);
			size_t mt = dl_count_below(t.dur, t.gpus, t.n, b,
						   qt[i], &dt);
			double tol = 5 * sqrt(q * (1 - q)) *
				     (1 / sqrt((double)mt) +
				      1 / sqrt((double)mg));
			bool near = qg[i] <= fac * qt[i] &&
				    qt[i] <= fac * qg[i];
			cr_assert(near || fabs(below - q) <= tol,
				  "bucket %d quantile %d: trace %g s, "
				  "generated %g s (%.3f of the generated jobs "
				  "below it, at most %.3f from %.2f)", b, i,
				  qt[i], qg[i], below, tol, q);
		}
	}
	free(gd);
	free(gg);
	free(t.dur);
	free(t.gpus);
	workload_release(&w);
	gen_spec_release(&g);
}

/*
 * experiments/philly-gen.json loads, and its offered load, worked out
 * from the closed form of each mixture's mean (p e^(mu1 + sigma1^2/2) +
 * (1-p) e^(mu2 + sigma2^2/2)) weighted by GPUs and their frequencies, is
 * 1.31x the trace's 42,811 GPU-seconds per job (3,521,082,502 / 82,247,
 * experiments/README.md), and 0.96 of the cluster's 512 GPUs.
 */
Test(gen_dl, shipped_experiment)
{
	const char *file = "experiments/philly-gen.json";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	if (access(file, R_OK) != 0)
		cr_skip_test("run from the repository root to check "
			     "experiments/");
	cr_assert_eq(exp_load(file, &e, &err), 0, "%s", err.msg);
	const struct gen_spec *g = &e.workload.gen;
	cr_assert_str_eq(g->preset, "philly");
	cr_assert_eq(g->jobs, 20000);
	cr_assert_eq(e.npolicies, 3);
	/* Measured without the first and last 1,000 jobs. */
	cr_assert_eq(e.measure.form, EXP_MEASURE_JOBS);
	cr_assert_eq(e.measure.skip_first, 1000);
	cr_assert_eq(e.measure.skip_last, 1000);
	double wsum = 0, gpu_s = 0, cap = 0;
	for (size_t i = 0; i < g->gpus.nvalues; i++)
		wsum += g->gpus.weights[i];
	for (size_t i = 0; i < g->gpus.nvalues; i++) {
		const struct gen_bucket *b = gen_bucket_find(
			g, (uint32_t)g->gpus.values[i]);
		cr_assert_not_null(b);
		const double *p = b->runtime.p;
		double mean = p[0] * exp(p[1] + p[2] * p[2] / 2) +
			      (1 - p[0]) * exp(p[3] + p[4] * p[4] / 2);
		gpu_s += g->gpus.weights[i] / wsum * g->gpus.values[i] * mean;
	}
	for (size_t i = 0; i < e.cluster.ngroups; i++)
		cap += (double)e.cluster.groups[i].count *
		       e.cluster.groups[i].gpus;
	cr_assert_eq(cap, 512);
	double ratio = gpu_s / (3521082502.0 / 82247);
	cr_assert(ratio > 1.30 && ratio < 1.32, "GPU-s ratio %g", ratio);
	double load = gpu_s / g->interarrival.p[0] / cap;
	cr_assert(load > 0.95 && load < 0.97, "offered load %g", load);
	exp_release(&e);
}
