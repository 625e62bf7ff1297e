/*
 * Tests of the workload generator (sim/workload/gen.c): determinism, the rules
 * that turn draws into jobs (rounding, minimums, clamps, estimates),
 * sample moments of each distribution against their closed forms, and
 * the parameter checks of dist_check.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workload/workload.h"

/* A spec with constant everything: run 100 s, 1 CPU, gap 10 s. */
static void gen_base(struct gen_spec *g, uint64_t jobs)
{
	memset(g, 0, sizeof(*g));
	g->jobs = jobs;
	g->interarrival.kind = DIST_CONSTANT;
	g->interarrival.p[0] = 10;
	g->runtime.kind = DIST_CONSTANT;
	g->runtime.p[0] = 100;
	g->cpus.kind = DIST_CONSTANT;
	g->cpus.p[0] = 1;
	g->estimate_factor.kind = DIST_CONSTANT;
	g->estimate_factor.p[0] = 1;
}

static void gen_ok(const struct gen_spec *g, uint64_t seed,
		   const struct trace_opts *o, struct workload *w)
{
	struct sim_error err;
	int rc = gen_workload(g, seed, o, w, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
}

Test(workload_gen, deterministic)
{
	struct gen_spec g;
	struct workload a, b, c;

	gen_base(&g, 5000);
	g.interarrival.kind = DIST_EXPONENTIAL;
	g.interarrival.p[0] = 30;
	g.runtime.kind = DIST_LOGNORMAL;
	g.runtime.p[0] = 6;
	g.runtime.p[1] = 1.5;
	g.cpus.kind = DIST_POW2;
	g.cpus.p[0] = 1;
	g.cpus.p[1] = 128;
	g.estimate_factor.kind = DIST_UNIFORM;
	g.estimate_factor.p[0] = 1;
	g.estimate_factor.p[1] = 4;
	g.users = 20;
	gen_ok(&g, 42, NULL, &a);
	gen_ok(&g, 42, NULL, &b);
	gen_ok(&g, 43, NULL, &c);
	cr_assert_eq(a.n, 5000);
	cr_assert_eq(b.n, 5000);
	size_t same = 0;
	for (size_t i = 0; i < a.n; i++) {
		cr_assert_eq(a.jobs[i].id, b.jobs[i].id);
		cr_assert_eq(a.jobs[i].submit, b.jobs[i].submit);
		cr_assert_eq(a.jobs[i].run, b.jobs[i].run);
		cr_assert_eq(a.jobs[i].estimate, b.jobs[i].estimate);
		cr_assert_eq(a.jobs[i].cpus, b.jobs[i].cpus);
		cr_assert_eq(a.jobs[i].user, b.jobs[i].user);
		same += a.jobs[i].run == c.jobs[i].run;
	}
	/* Another seed gives other jobs (lognormal runs rarely collide). */
	cr_assert_lt(same, 50);
	workload_release(&a);
	workload_release(&b);
	workload_release(&c);
}

Test(workload_gen, job_rules)
{
	struct gen_spec g;
	struct workload w;

	/* Constant spec: submits 0, 10, 20 s; ids 1..3; run 100 s;
	 * estimate ceil(100 * 1.5) = 150 s; 3 CPUs (2.6 rounds up); group
	 * unknown; users 0 -> -1. */
	gen_base(&g, 3);
	g.estimate_factor.p[0] = 1.5;
	g.cpus.p[0] = 2.6;
	gen_ok(&g, 1, NULL, &w);
	cr_assert_eq(w.n, 3);
	for (size_t i = 0; i < 3; i++) {
		const struct job *j = &w.jobs[i];
		cr_assert_eq(j->id, (int64_t)i + 1);
		cr_assert_eq(j->idx, i);
		cr_assert_eq(j->submit, (sim_time_t)(10 * i) * SIM_SEC);
		cr_assert_eq(j->run, 100 * SIM_SEC);
		cr_assert_eq(j->estimate, 150 * SIM_SEC);
		cr_assert_eq(j->flags, JOB_HAS_ESTIMATE);
		cr_assert_eq(j->cpus, 3);
		cr_assert_eq(j->gpus, 0);
		cr_assert_eq(j->user, -1);
		cr_assert_eq(j->group, -1);
		cr_assert_eq(j->state, JOB_FUTURE);
		cr_assert_eq(j->start, SIM_TIME_NONE);
	}
	cr_assert(w.has_estimates);
	workload_release(&w);

	/* Run 1.3 s, factor 1.5: estimate ceil(1.95) = 2 s.  Run 0.2 s is
	 * raised to 1 s; factor 0.5 counts as 1; CPUs 0.2 -> at least 1;
	 * CPUs 500 clamped to max_cpus 64. */
	gen_base(&g, 1);
	g.runtime.p[0] = 1.3;
	g.estimate_factor.p[0] = 1.5;
	gen_ok(&g, 1, NULL, &w);
	cr_assert_eq(w.jobs[0].run, 1300000);
	cr_assert_eq(w.jobs[0].estimate, 2 * SIM_SEC);
	workload_release(&w);

	gen_base(&g, 1);
	g.runtime.p[0] = 0.2;
	g.estimate_factor.p[0] = 0.5;
	g.cpus.p[0] = 0.2;
	gen_ok(&g, 1, NULL, &w);
	cr_assert_eq(w.jobs[0].run, SIM_SEC);
	cr_assert_eq(w.jobs[0].estimate, SIM_SEC);
	cr_assert_eq(w.jobs[0].cpus, 1);
	workload_release(&w);

	gen_base(&g, 1);
	g.cpus.p[0] = 500;
	g.max_cpus = 64;
	gen_ok(&g, 1, NULL, &w);
	cr_assert_eq(w.jobs[0].cpus, 64);
	workload_release(&w);
}

Test(workload_gen, options_apply)
{
	struct gen_spec g;
	struct workload w;
	struct trace_opts o;

	/* Gaps 10 s: submits 0..990 s.  Window [100, 500) = 40 jobs
	 * (submits 100..490), the first 5 kept, scale 2: 100, 105, ... */
	gen_base(&g, 100);
	trace_opts_default(&o);
	o.window_start = 100 * SIM_SEC;
	o.window_end = 500 * SIM_SEC;
	o.limit = 5;
	o.load_scale = 2;
	gen_ok(&g, 1, &o, &w);
	cr_assert_eq(w.n, 5);
	cr_assert_eq(w.report.outside_window, 60);
	cr_assert_eq(w.report.beyond_limit, 35);
	for (size_t i = 0; i < 5; i++) {
		cr_assert_eq(w.jobs[i].id, 11 + (int64_t)i);
		cr_assert_eq(w.jobs[i].submit,
			     (100 + 5 * (sim_time_t)i) * SIM_SEC);
	}
	workload_release(&w);
}

/* Mean gap of 100k exponential(10 s) interarrivals: the standard error
 * is 10 / sqrt(1e5) = 0.032, so 0.2 is over 6 of them. */
Test(workload_gen, exponential_mean)
{
	struct gen_spec g;
	struct workload w;
	const size_t n = 100001;

	gen_base(&g, n);
	g.interarrival.kind = DIST_EXPONENTIAL;
	g.interarrival.p[0] = 10;
	gen_ok(&g, 7, NULL, &w);
	double mean = (double)(w.jobs[n - 1].submit - w.jobs[0].submit) /
		      SIM_SEC / (double)(n - 1);
	cr_assert_float_eq(mean, 10.0, 0.2, "mean gap %g", mean);
	cr_assert_eq(w.jobs[0].submit, 0);
	workload_release(&w);
}

/* Mean run time of 100k draws, against the closed form. */
static double gen_mean_run(const struct dist *d, uint64_t seed)
{
	struct gen_spec g;
	struct workload w;
	double s = 0;

	gen_base(&g, 100000);
	g.runtime = *d;
	gen_ok(&g, seed, NULL, &w);
	for (size_t i = 0; i < w.n; i++)
		s += (double)w.jobs[i].run / SIM_SEC;
	s /= (double)w.n;
	workload_release(&w);
	return s;
}

Test(workload_gen, runtime_moments)
{
	struct dist d;
	double m;

	/* Gamma shape 2, scale 50: mean 100, sd sqrt(2) * 50 = 70.7, so
	 * the standard error is 0.22. */
	memset(&d, 0, sizeof(d));
	d.kind = DIST_GAMMA;
	d.p[0] = 2;
	d.p[1] = 50;
	m = gen_mean_run(&d, 1);
	cr_assert_float_eq(m, 100.0, 1.5, "gamma mean %g", m);

	/* Weibull shape 2, scale 100: mean 100 * Gamma(1.5) = 88.623, sd
	 * 46.3, standard error 0.15.  (Swapped parameters would give a
	 * mean near 2.) */
	d.kind = DIST_WEIBULL;
	d.p[0] = 2;
	d.p[1] = 100;
	m = gen_mean_run(&d, 2);
	cr_assert_float_eq(m, 88.623, 1.0, "weibull mean %g", m);

	/* Lognormal mu 5, sigma 0.5: mean exp(5 + 0.125) = 168.17, sd
	 * 89.6, standard error 0.28. */
	d.kind = DIST_LOGNORMAL;
	d.p[0] = 5;
	d.p[1] = 0.5;
	m = gen_mean_run(&d, 3);
	cr_assert_float_eq(m, 168.17, 2.0, "lognormal mean %g", m);

	/* Hyper-gamma: 0.3 of gamma(1, 10), 0.7 of gamma(1, 1000).  With
	 * runs raised to 1 s the first part has mean 10 + 1 - 10 (1 -
	 * e^-0.1) = 10.048; total 0.3 * 10.048 + 700 = 703.01, sd about
	 * 950, standard error 3. */
	d.kind = DIST_HYPERGAMMA;
	d.p[0] = 0.3;
	d.p[1] = 1;
	d.p[2] = 10;
	d.p[3] = 1;
	d.p[4] = 1000;
	m = gen_mean_run(&d, 4);
	cr_assert_float_eq(m, 703.0, 15.0, "hypergamma mean %g", m);

	/* Uniform [100, 300]: mean 200, standard error 0.18. */
	d.kind = DIST_UNIFORM;
	d.p[0] = 100;
	d.p[1] = 300;
	m = gen_mean_run(&d, 5);
	cr_assert_float_eq(m, 200.0, 1.5, "uniform mean %g", m);
}

Test(workload_gen, pow2_sizes)
{
	struct gen_spec g;
	struct workload w;
	size_t count[64] = { 0 };
	const size_t n = 60000;

	/* 2^k for k uniform in 1..6: each of 2..64 about n / 6 = 10000
	 * times (sd 91). */
	gen_base(&g, n);
	g.cpus.kind = DIST_POW2;
	g.cpus.p[0] = 2;
	g.cpus.p[1] = 64;
	gen_ok(&g, 9, NULL, &w);
	for (size_t i = 0; i < w.n; i++) {
		uint32_t c = w.jobs[i].cpus;
		cr_assert(c >= 2 && c <= 64 && (c & (c - 1)) == 0,
			  "cpus %u", c);
		count[__builtin_ctz(c)]++;
	}
	for (int k = 1; k <= 6; k++)
		cr_assert(count[k] > 9500 && count[k] < 10500, "2^%d: %zu", k,
			  count[k]);
	workload_release(&w);
}

Test(workload_gen, discrete_frequencies_and_users)
{
	struct gen_spec g;
	struct workload w;
	double values[] = { 1, 4, 16 }, weights[] = { 1, 2, 1 };
	size_t n1 = 0, n4 = 0, n16 = 0, users[5] = { 0 };
	const size_t n = 100000;

	/* Weights 1:2:1 -> 0.25, 0.5, 0.25 (sd of a frequency 0.0016). */
	gen_base(&g, n);
	g.cpus.kind = DIST_DISCRETE;
	g.cpus.values = values;
	g.cpus.weights = weights;
	g.cpus.nvalues = 3;
	g.users = 5;
	gen_ok(&g, 11, NULL, &w);
	for (size_t i = 0; i < w.n; i++) {
		uint32_t c = w.jobs[i].cpus;
		n1 += c == 1;
		n4 += c == 4;
		n16 += c == 16;
		cr_assert(w.jobs[i].user >= 0 && w.jobs[i].user < 5);
		users[w.jobs[i].user]++;
	}
	cr_assert_eq(n1 + n4 + n16, n);
	cr_assert_float_eq((double)n1 / n, 0.25, 0.01);
	cr_assert_float_eq((double)n4 / n, 0.50, 0.01);
	cr_assert_float_eq((double)n16 / n, 0.25, 0.01);
	/* Users uniform: 0.2 each (sd 0.0013). */
	for (int u = 0; u < 5; u++)
		cr_assert_float_eq((double)users[u] / n, 0.2, 0.01);
	workload_release(&w);
}

static void gen_check_err(const struct dist *d, const char *msg)
{
	struct sim_error err;
	cr_assert_eq(dist_check(d, "$.workload.runtime", &err), -SIM_EINPUT,
		     "no error for %s", msg);
	cr_assert_str_eq(err.msg, msg);
}

Test(workload_gen, dist_check_messages)
{
	struct dist d;
	struct sim_error err;
	double values[] = { 1, 2 }, neg[] = { 1, -1 }, zero[] = { 0, 0 };

	memset(&d, 0, sizeof(d));
	d.kind = DIST_EXPONENTIAL;
	d.p[0] = -1;
	gen_check_err(&d, "$.workload.runtime.mean: must be positive, got '-1'");
	d.p[0] = 5;
	cr_assert_eq(dist_check(&d, "$.x", &err), 0);

	d.kind = DIST_UNIFORM;
	d.p[0] = 5;
	d.p[1] = 1;
	gen_check_err(&d, "$.workload.runtime.max: must not be less than min "
			  "'5', got '1'");
	d.kind = DIST_LOGNORMAL;
	d.p[0] = 1;
	d.p[1] = -0.5;
	gen_check_err(&d, "$.workload.runtime.sigma: must not be negative, "
			  "got '-0.5'");
	d.p[0] = NAN;
	gen_check_err(&d, "$.workload.runtime.mu: must be a finite number, "
			  "got 'nan'");
	d.kind = DIST_WEIBULL;
	d.p[0] = 0;
	d.p[1] = 1;
	gen_check_err(&d, "$.workload.runtime.shape: must be positive, got '0'");
	d.kind = DIST_GAMMA;
	d.p[0] = 1;
	d.p[1] = -3;
	gen_check_err(&d, "$.workload.runtime.scale: must be positive, "
			  "got '-3'");
	d.kind = DIST_HYPERGAMMA;
	d.p[0] = 1.5;
	gen_check_err(&d, "$.workload.runtime.p: must be between 0 and 1, "
			  "got '1.5'");
	d.p[0] = 0.5;
	d.p[1] = d.p[2] = d.p[3] = 1;
	d.p[4] = 0;
	gen_check_err(&d, "$.workload.runtime.scale2: must be positive, "
			  "got '0'");
	d.kind = DIST_POW2;
	d.p[0] = 3;
	d.p[1] = 8;
	gen_check_err(&d, "$.workload.runtime.min: must be a power of two, "
			  "got '3'");
	d.p[0] = 16;
	gen_check_err(&d, "$.workload.runtime.max: must not be less than min "
			  "'16', got '8'");
	d.p[0] = 1;
	cr_assert_eq(dist_check(&d, "$.x", &err), 0);

	d.kind = DIST_DISCRETE;
	d.values = NULL;
	d.nvalues = 0;
	gen_check_err(&d, "$.workload.runtime.values: must not be empty");
	d.values = values;
	d.weights = neg;
	d.nvalues = 2;
	gen_check_err(&d, "$.workload.runtime.weights[1]: must not be "
			  "negative, got '-1'");
	d.weights = zero;
	gen_check_err(&d, "$.workload.runtime.weights: must have a positive "
			  "sum");

	d.kind = DIST_NKINDS;
	gen_check_err(&d, "$.workload.runtime: unknown distribution '10'");
}

Test(workload_gen, bad_spec_is_an_error)
{
	struct gen_spec g;
	struct workload w;
	struct sim_error err;

	gen_base(&g, 10);
	g.interarrival.kind = DIST_EXPONENTIAL;
	g.interarrival.p[0] = 0;
	cr_assert_eq(gen_workload(&g, 1, NULL, &w, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, "interarrival.mean: must be positive, "
				  "got '0'");
	cr_assert_eq(w.n, 0);
	cr_assert_null(w.jobs);
}

Test(workload_gen, spec_release)
{
	struct gen_spec g;

	gen_base(&g, 1);
	g.cpus.kind = DIST_DISCRETE;
	g.cpus.values = xcalloc(2, sizeof(double));
	g.cpus.weights = xcalloc(2, sizeof(double));
	g.cpus.nvalues = 2;
	gen_spec_release(&g);
	cr_assert_null(g.cpus.values);
	cr_assert_null(g.cpus.weights);
	gen_spec_release(&g);
	gen_spec_release(NULL);
}
