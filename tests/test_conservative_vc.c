/*
 * Conservative backfilling on a GPU cluster partitioned into virtual
 * clusters (policies/conservative.c over sim/engine/profile_vc.c): on
 * random workloads every job must end.  A job that fits its VC and the
 * pool can always start once the cluster is idle, so a run that stops
 * with jobs still waiting (and none running, nothing left to come) lost
 * a wake-up or a start: a reservation kept at a time no event marks.
 * The same workloads on the same cluster without VCs, and with EASY,
 * are run as a control.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "base/util.h"
#include "engine/sim.h"
#include "testlib.h"

/* VC A (2 nodes), VC B (1 node), and a shared pool of 1 node, each of
 * 4 GPUs and 8 CPUs; vcs false: the same nodes, all shared. */
static void cv_spec(struct cluster_spec *s, bool vcs)
{
	static const char *const vc[] = { "A", "B", NULL };
	static const uint32_t count[] = { 2, 1, 1 };
	memset(s, 0, sizeof(*s));
	s->groups = xcalloc(3, sizeof(*s->groups));
	s->ngroups = 3;
	for (size_t i = 0; i < 3; i++) {
		s->groups[i].name = xasprintf("g%zu", i);
		s->groups[i].count = count[i];
		s->groups[i].cpus = 8;
		s->groups[i].gpus = 4;
		s->groups[i].gpu_type = xstrdup("p100");
		s->groups[i].vc = vcs && vc[i] ? xstrdup(vc[i]) : NULL;
	}
}

/* A random workload of GPU jobs (1-8 GPUs, 1 CPU each), each of VC A,
 * VC B or none, from tl_random_workload's times and estimates. */
static void cv_workload(struct workload *w, size_t n, uint64_t seed)
{
	tl_random_workload(w, n, 8, seed);
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t r = (uint32_t)(x >> 33);
		j->gpus = j->cpus;
		j->cpus = 1;
		j->group = (int32_t)(r % 3) - 1; /* -1: no VC */
		/* A pool job fits in 4 GPUs, a job of B in 8 */
		if (j->group == -1 && j->gpus > 4)
			j->gpus = 1 + r / 3 % 4;
	}
	w->groups = xcalloc(2, sizeof(*w->groups));
	w->groups[0] = xstrdup("A");
	w->groups[1] = xstrdup("B");
	w->ngroups = 2;
}

extern const struct policy_ops clustersim_policy_conservative;
extern const struct policy_ops clustersim_policy_easy;

/* Runs the policy (the checker off: jobs past their estimates break
 * promises whatever the policy does); returns how many jobs did
 * not end (neither finished nor rejected), and the engine's message
 * when it stopped with some waiting. */
static size_t unended(const struct policy_ops *ops, const struct workload *w,
		      const struct cluster_spec *c, struct sim_error *err)
{
	struct pval *params;
	size_t np, n, left = 0;
	cr_assert_eq(policy_params_resolve(ops, NULL, 0, "", &params, &np,
					   err), 0, "%s", err->msg);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = ops, .params = params,
		.nparams = np, .seed = 1,
	};
	struct sim *s = sim_new(&cfg);
	err->msg[0] = '\0';
	int rc = sim_run(s, err);
	const struct job *jobs = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].state != JOB_FINISHED &&
		    jobs[i].state != JOB_REJECTED)
			left++;
	cr_assert(rc == 0 || left, "%s", err->msg);
	sim_free(s);
	free(params);
	return left;
}

Test(conservative_vc, every_job_ends)
{
	const struct policy_ops *cons = &clustersim_policy_conservative;
	size_t bad = 0, first = 0;
	struct sim_error err, why = { { 0 } };
	for (uint64_t seed = 1; seed <= 400; seed++) {
		struct workload w;
		struct cluster_spec c, flat;
		cv_workload(&w, 80, seed);
		cv_spec(&c, true);
		cv_spec(&flat, false);
		if (unended(cons, &w, &c, &err) && !bad++) {
			first = (size_t)seed;
			why = err;
		}
		/* the controls */
		cr_assert_eq(unended(cons, &w, &flat, &err), 0,
			     "seed %llu without VCs: %s",
			     (unsigned long long)seed, err.msg);
		cr_assert_eq(unended(&clustersim_policy_easy, &w, &c, &err), 0,
			     "seed %llu under easy: %s",
			     (unsigned long long)seed, err.msg);
		workload_release(&w);
		cluster_spec_release(&c);
		cluster_spec_release(&flat);
	}
	cr_assert_eq(bad, 0, "%zu of 400 workloads left jobs waiting (first: "
		     "seed %zu: %s)", bad, first, why.msg);
}
