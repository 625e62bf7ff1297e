/*
 * The GPU policies that keep their orders incrementally (srtf's ranked
 * waiting jobs, its running jobs re-sorted from their last order) make
 * the same decisions as the plain forms they replaced: srtf against a
 * reference that sorts every job at every call (sim_rank_by with the
 * same key), job by job, on random workloads over CPUs and over GPUs,
 * with estimates that differ from the run times; gittins_cont, which
 * brings up to date and ranks only the running jobs a waiting job could
 * pass (lower bounds on their indices, a heap of their next crossings),
 * against its own plain form ("incremental": false, every job ranked at
 * every call), with learned and given distributions, restore overheads
 * and CPU jobs among the GPU ones.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"

/* srtf's key, for the reference. */
static double ref_remaining(struct sim *sim, void *state, const struct job *j)
{
	(void)state;
	double left = (double)j->estimate - sim_job_work_done(sim, j);
	return left > 0 ? left : 0;
}

static void ref_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (sim_queue_len(sim))
		sim_rank_by(sim, ref_remaining);
}

static const struct policy_ops ref_srtf = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "ref_srtf",
	.summary = "srtf by a full sort at every call",
	.schedule = ref_schedule,
};

/* Every job's start, end and preemptions agree. */
static void expect_same(const struct sim *a, const struct sim *b)
{
	size_t na, nb;
	const struct job *ja = sim_jobs(a, &na), *jb = sim_jobs(b, &nb);
	cr_assert_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		cr_expect_eq(ja[i].start, jb[i].start, "job %lld",
			     (long long)ja[i].id);
		cr_expect_eq(ja[i].end, jb[i].end, "job %lld",
			     (long long)ja[i].id);
		cr_expect_eq(ja[i].preemptions, jb[i].preemptions);
	}
}

/* Estimates from half to three times the run time, so that remaining
 * times cross. */
static void skew_estimates(struct workload *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		j->estimate = j->run / 2 + (sim_time_t)(i * 7919 % 5) * j->run / 2;
		if (j->estimate < 1)
			j->estimate = 1;
	}
}

Test(gpu_policy_speed, srtf_matches_a_full_sort_on_cpus)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct workload w;
		struct cluster_spec c;
		tl_random_workload(&w, 400, 8, seed);
		skew_estimates(&w);
		tl_cluster(&c, 4, 8);
		struct sim *a = tl_run("srtf", &w, &c);
		struct sim *b = tl_run_ops(&ref_srtf, &w, &c);
		expect_same(a, b);
		cr_expect_gt(sim_counters(a)->preemptions, 0);
		sim_free(a);
		sim_free(b);
		workload_release(&w);
		cluster_spec_release(&c);
	}
}

Test(gpu_policy_speed, srtf_matches_a_full_sort_on_gpus)
{
	struct workload w;
	struct cluster_spec c;
	tl_random_workload(&w, 400, 8, 5);
	skew_estimates(&w);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = w.jobs[i].cpus;
		w.jobs[i].cpus = 0;
	}
	tl_gpu_cluster(&c, 4, 4, NULL, 0);
	struct sim *a = tl_run("srtf", &w, &c);
	struct sim *b = tl_run_ops(&ref_srtf, &w, &c);
	expect_same(a, b);
	cr_expect_gt(sim_counters(a)->preemptions, 0);
	sim_free(a);
	sim_free(b);
	workload_release(&w);
	cluster_spec_release(&c);
}

static struct param_value pv_of(const char *key, enum param_value_type type,
				const char *str, double num, bool b)
{
	return (struct param_value){ .key = (char *)key,
				     .json_path = (char *)"$.p", .type = type,
				     .str = (char *)str, .num = num, .b = b };
}

/* gittins_cont both ways on one workload and cluster; the runs must
 * preempt (else nothing is compared).  Returns the preemptions. */
static uint64_t gittins_both(struct workload *w, const struct cluster_spec *c,
			     const char *dist, double window, double points,
			     double restore_s)
{
	struct param_value pv[] = {
		pv_of("distribution_s", PV_STRING, dist, 0, false),
		pv_of("window", PV_NUMBER, NULL, window, false),
		pv_of("points", PV_NUMBER, NULL, points, false),
		pv_of("incremental", PV_BOOL, NULL, 0, false),
	};
	struct sim_config cfg = {
		.workload = w, .cluster = c,
		.restore_overhead = (sim_time_t)(restore_s * SIM_SEC),
	};
	struct sim *a = tl_run_cfg("gittins_cont", pv, 3, &cfg);
	struct sim *b = tl_run_cfg("gittins_cont", pv, 4, &cfg);
	expect_same(a, b);
	cr_expect_eq(sim_counters(a)->schedule_calls,
		     sim_counters(b)->schedule_calls);
	cr_expect_eq(sim_counters(a)->bad_calls, 0);
	uint64_t n = sim_counters(a)->preemptions;
	cr_expect_eq(n, sim_counters(b)->preemptions);
	sim_free(a);
	sim_free(b);
	return n;
}

Test(gpu_policy_speed, gittins_cont_matches_its_plain_form)
{
	static const struct {
		const char *dist;
		double window, points, restore_s;
	} cases[] = {
		{ "", 1000, 32, 0 },  /* learned, every sample kept */
		{ "", 20, 8, 30 },    /* a small window that keeps changing */
		{ "", 50, 4, 5 },
		{ "30,30,200,900,2000", 1000, 32, 10 }, /* given, runs of equal */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct workload w;
			struct cluster_spec c;
			tl_random_workload(&w, 500, 8, seed + 10 * k);
			skew_estimates(&w);
			/* GPU jobs, and every fifth one on CPUs only. */
			for (size_t i = 0; i < w.n; i++) {
				if (i % 5 == 2)
					continue;
				w.jobs[i].gpus = 1 + w.jobs[i].cpus % 4;
				w.jobs[i].cpus = 1;
			}
			tl_gpu_cluster(&c, 4, 4, NULL, 2);
			uint64_t n = gittins_both(&w, &c, cases[k].dist,
						  cases[k].window,
						  cases[k].points,
						  cases[k].restore_s);
			cr_expect_gt(n, 0, "case %zu seed %llu", k,
				     (unsigned long long)seed);
			workload_release(&w);
			cluster_spec_release(&c);
		}
	}
}

/* gittins_cont carrying indices and keys over distribution changes
 * ("reuse") against recomputing them all: the same decisions, job by
 * job, with learned distributions that keep changing (small windows and
 * many points, so that most changes leave a tail of samples alone) and
 * restore overheads, incremental and plain. */
Test(gpu_policy_speed, gittins_cont_reuse_matches_recomputing)
{
	static const struct {
		double window, points, restore_s;
		bool incremental;
	} cases[] = {
		{ 1000, 32, 0, true },
		{ 40, 16, 30, true },
		{ 200, 64, 5, true },
		{ 40, 16, 10, false },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct workload w;
			struct cluster_spec c;
			tl_random_workload(&w, 500, 8, seed + 100 * k);
			skew_estimates(&w);
			for (size_t i = 0; i < w.n; i++) {
				if (i % 5 == 2)
					continue;
				w.jobs[i].gpus = 1 + w.jobs[i].cpus % 4;
				w.jobs[i].cpus = 1;
			}
			tl_gpu_cluster(&c, 4, 4, NULL, 2);
			struct param_value pv[] = {
				pv_of("window", PV_NUMBER, NULL,
				      cases[k].window, false),
				pv_of("points", PV_NUMBER, NULL,
				      cases[k].points, false),
				pv_of("incremental", PV_BOOL, NULL, 0,
				      cases[k].incremental),
				pv_of("reuse", PV_BOOL, NULL, 0, false),
			};
			struct sim_config cfg = {
				.workload = &w, .cluster = &c,
				.restore_overhead = (sim_time_t)(
					cases[k].restore_s * SIM_SEC),
			};
			struct sim *a = tl_run_cfg("gittins_cont", pv, 3, &cfg);
			struct sim *b = tl_run_cfg("gittins_cont", pv, 4, &cfg);
			expect_same(a, b);
			cr_expect_eq(sim_counters(a)->schedule_calls,
				     sim_counters(b)->schedule_calls);
			cr_expect_eq(sim_counters(a)->bad_calls, 0);
			cr_expect_gt(sim_counters(a)->preemptions, 0,
				     "case %zu", k);
			sim_free(a);
			sim_free(b);
			workload_release(&w);
			cluster_spec_release(&c);
		}
	}
}

/* The engine's heap against a plain array of keys: random sets, moves
 * and removals, both tie orders; after each step the least and the jobs
 * up to a random limit agree with a scan of the array. */
Test(gpu_policy_speed, sim_heap_matches_a_scan)
{
	struct workload w;
	struct cluster_spec c;
	tl_random_workload(&w, 300, 4, 1);
	tl_cluster(&c, 2, 4);
	struct sim *s = tl_run("fcfs", &w, &c);
	enum { N = 300 };
	for (int down = 0; down < 2; down++) {
		struct sim_heap *h = sim_heap_new(s, down);
		double key[N];
		bool in[N] = { false };
		uint64_t x = 12345 + (uint64_t)down;
		for (int step = 0; step < 20000; step++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			uint32_t j = (uint32_t)(x >> 33) % N;
			/* Few distinct keys, so that ties are common. */
			double k = (double)((x >> 20) % 17);
			if ((x >> 12) % 4 == 0) {
				sim_heap_remove(h, j);
				in[j] = false;
			} else {
				sim_heap_set(h, j, k);
				key[j] = k;
				in[j] = true;
			}
			if (step == 15000)
				sim_heap_clear(h), memset(in, 0, sizeof(in));
			/* The least by scan: lowest key, ties by index. */
			int best = -1;
			size_t len = 0;
			for (int i = 0; i < N; i++) {
				if (!in[i])
					continue;
				len++;
				if (best < 0 || key[i] < key[best] ||
				    (key[i] == key[best] && (down ? i > best
								  : i < best)))
					best = i;
			}
			cr_assert_eq(sim_heap_len(h), len);
			uint32_t top;
			double tk;
			cr_assert_eq(sim_heap_top(h, &top, &tk), best >= 0);
			if (best >= 0)
				cr_assert_eq(top, (uint32_t)best, "step %d", step);
			/* Up to (lim, lj): key below, or equal and not past lj. */
			double lim = (double)((x >> 40) % 17);
			uint32_t lj = (uint32_t)(x >> 50) % N;
			size_t n;
			const uint32_t *a = sim_heap_upto(h, lim, lj, &n);
			bool got[N] = { false };
			for (size_t i = 0; i < n; i++) {
				cr_assert(in[a[i]] && !got[a[i]]);
				got[a[i]] = true;
			}
			for (int i = 0; i < N; i++) {
				bool want = in[i] &&
					    (key[i] < lim ||
					     (key[i] == lim &&
					      (down ? (uint32_t)i >= lj
						    : (uint32_t)i <= lj)));
				cr_assert_eq(got[i], want, "step %d job %d",
					     step, i);
			}
		}
	}
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/* srtf's ranking handed to the engine without the running jobs that
 * rank ahead of every waiting one (sim_rank_begin_with): the same
 * decisions as the full list (ref_srtf). */
/* srtf's order, for qsort_r: shorter remaining time, then job index. */
static int by_key_of(const void *pa, const void *pb, void *sim)
{
	const struct job *a = *(const struct job *const *)pa;
	const struct job *b = *(const struct job *const *)pb;
	double ka = ref_remaining(sim, NULL, a);
	double kb = ref_remaining(sim, NULL, b);
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static void some_schedule(struct sim *sim, void *state)
{
	(void)state;
	size_t nr = sim_running_len(sim), nq = sim_queue_len(sim);
	if (!nq)
		return;
	const struct job **all = calloc(nr + nq, sizeof(*all));
	cr_assert_not_null(all);
	for (size_t i = 0; i < nr; i++)
		all[i] = sim_running_at(sim, i);
	for (size_t i = 0; i < nq; i++)
		all[nr + i] = sim_queue_at(sim, i);
	qsort_r(all, nr + nq, sizeof(*all), by_key_of, sim);
	/* The running jobs before the first waiting one are left out. */
	size_t first = 0;
	while (all[first]->state == JOB_RUNNING)
		first++;
	size_t n = 0;
	const struct job **in = calloc(nr + 1, sizeof(*in));
	cr_assert_not_null(in);
	for (size_t i = first; i < nr + nq; i++)
		if (all[i]->state == JOB_RUNNING)
			in[n++] = all[i];
	cr_assert(sim_rank_begin_with(sim, in, n));
	for (size_t i = first; i < nr + nq; i++)
		sim_rank_add(sim, all[i]);
	sim_rank_apply(sim);
	free(in);
	free(all);
}

static const struct policy_ops some_srtf = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "some_srtf",
	.summary = "srtf listing only the running jobs a waiting one passes",
	.schedule = some_schedule,
};

Test(gpu_policy_speed, rank_begin_with_matches_the_whole_list)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct workload w;
		struct cluster_spec c;
		tl_random_workload(&w, 400, 8, seed);
		skew_estimates(&w);
		for (size_t i = 0; i < w.n; i++) {
			w.jobs[i].gpus = w.jobs[i].cpus;
			w.jobs[i].cpus = 0;
		}
		tl_gpu_cluster(&c, 4, 4, NULL, 0);
		struct sim *a = tl_run_ops(&some_srtf, &w, &c);
		struct sim *b = tl_run_ops(&ref_srtf, &w, &c);
		expect_same(a, b);
		cr_expect_gt(sim_counters(a)->preemptions, 0);
		cr_expect_eq(sim_counters(a)->bad_calls, 0);
		sim_free(a);
		sim_free(b);
		workload_release(&w);
		cluster_spec_release(&c);
	}
}

/*
 * gittins_cont reads a waiting job's service once and keeps it while the
 * job waits.  The premise, checked against the engine: a preempted job's
 * service (sim_job_service) stays, to the bit, what it was when it was
 * preempted, whatever happens meanwhile (other jobs start, restore and
 * end; time passes).  A least-service-first policy with a wake-up every
 * 3 s and a 5 s restore on each restart makes the preemptions; each call
 * compares every waiting job that ran before with its value at its
 * preemption.
 */
#define WATCH_JOBS 60
struct watch {
	double svc[WATCH_JOBS]; /* service when last preempted */
	bool waiting[WATCH_JOBS]; /* preempted and not started since */
};
static size_t watch_checks, watch_diffs;

static double watch_key(struct sim *sim, void *state, const struct job *j)
{
	(void)state;
	return sim_job_service(sim, j);
}

static void watch_schedule(struct sim *sim, void *state)
{
	struct watch *w = state;
	for (size_t i = 0; i < sim_queue_len(sim); i++) {
		const struct job *j = sim_queue_at(sim, i);
		if (!w->waiting[j->idx])
			continue;
		watch_checks++;
		watch_diffs += sim_job_service(sim, j) != w->svc[j->idx];
	}
	if (sim_queue_len(sim))
		sim_rank_by(sim, watch_key);
	sim_wakeup_at(sim, sim_now(sim) + 3 * SIM_SEC);
}

static void watch_started(struct sim *sim, void *state, const struct job *j)
{
	((struct watch *)state)->waiting[j->idx] = false;
}

static void watch_preempted(struct sim *sim, void *state, const struct job *j)
{
	struct watch *w = state;
	w->svc[j->idx] = sim_job_service(sim, j);
	w->waiting[j->idx] = true;
}

static const struct policy_ops watch_ops = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "watch_service",
	.summary = "least service first, checking waiting jobs' service",
	.state_size = sizeof(struct watch),
	.schedule = watch_schedule,
	.job_started = watch_started,
	.job_preempted = watch_preempted,
};

Test(gpu_policy_speed, waiting_service_does_not_change)
{
	struct workload w;
	struct cluster_spec c;
	tl_random_workload(&w, WATCH_JOBS, 4, 7);
	tl_cluster(&c, 2, 4);
	struct sim_config cfg = { .workload = &w, .cluster = &c,
				  .restore_overhead = 5 * SIM_SEC,
				  .policy = &watch_ops, .seed = 1,
				  .check = true };
	struct sim_error err;
	watch_checks = watch_diffs = 0;
	struct sim *s = sim_new(&cfg);
	cr_assert_eq(sim_run(s, &err), 0, "%s", err.msg);
	cr_assert(sim_counters(s)->preemptions > 10, "preemptions %llu",
		  (unsigned long long)sim_counters(s)->preemptions);
	cr_expect(watch_checks > 100, "checks %zu", watch_checks);
	cr_expect_eq(watch_diffs, 0, "%zu of %zu differ", watch_diffs,
		     watch_checks);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}
