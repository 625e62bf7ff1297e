/*
 * Conformance: every registered policy (so a new policy file is tested
 * with no edit here) on small random workloads, with the invariant checker
 * on.  Checked independently of the engine: every job ends, no job starts
 * before its submit; a job never preempted runs exactly its run time and
 * the CPUs such jobs use never exceed the cluster (a sweep over start/end
 * points); a preempted job's service adds up to its work (no checkpoint
 * loss or restore cost here); the service of all jobs equals the CPU time
 * the engine integrated; and a rerun gives identical records.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "policy/registry.h"
#include "testlib.h"

struct point {
	sim_time_t t;
	int64_t delta; /* +cpus at a start, -cpus at an end */
};

static int by_time_ends_first(const void *pa, const void *pb)
{
	const struct point *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->delta > b->delta) - (a->delta < b->delta);
}

static void check_run(const char *name, const struct sim *s, uint64_t cap)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	struct point *pts = calloc(2 * n, sizeof(*pts));
	size_t np = 0;
	double service = 0; /* CPU-seconds held by all jobs */
	for (size_t i = 0; i < n; i++) {
		if (j[i].state == JOB_REJECTED) {
			cr_assert_gt(j[i].cpus, cap);
			continue;
		}
		cr_assert(j[i].state == JOB_FINISHED,
			  "%s: job %lld did not finish (state %d)", name,
			  (long long)j[i].id, j[i].state);
		cr_assert_geq(j[i].start, j[i].submit, "%s: job %lld", name,
			      (long long)j[i].id);
		service += j[i].attained;
		if (j[i].preemptions) {
			/* Its runs add up to its work: CPU-seconds held =
			 * run x cpus. */
			cr_assert_float_eq(j[i].attained,
					   (double)j[i].run / SIM_SEC *
						   j[i].cpus,
					   1e-6, "%s: job %lld", name,
					   (long long)j[i].id);
			cr_assert_geq(j[i].end - j[i].start, j[i].run);
			continue;
		}
		cr_assert_eq(j[i].end - j[i].start, j[i].run);
		pts[np++] = (struct point){ j[i].start, (int64_t)j[i].cpus };
		pts[np++] = (struct point){ j[i].end, -(int64_t)j[i].cpus };
	}
	cr_assert_float_eq(service, sim_counters(s)->busy_area,
			   1e-6 * (1 + service), "%s: service %f, busy %f",
			   name, service, sim_counters(s)->busy_area);
	qsort(pts, np, sizeof(*pts), by_time_ends_first);
	int64_t used = 0;
	for (size_t i = 0; i < np; i++) {
		used += pts[i].delta;
		cr_assert_leq(used, (int64_t)cap, "%s: %lld CPUs in use at %lld",
			      name, (long long)used, (long long)pts[i].t);
	}
	free(pts);
}

Test(conformance, every_policy_on_random_workloads)
{
	struct { size_t jobs; uint32_t max_cpus, nodes, cpus; uint64_t seed; }
	cases[] = {
		{ 400, 8, 4, 2, 1 },   /* small jobs, tight cluster */
		{ 400, 64, 8, 8, 2 },  /* jobs up to the whole cluster */
		{ 300, 80, 8, 8, 3 },  /* some jobs larger: rejected */
		{ 500, 1, 1, 1, 4 },   /* one CPU */
	};
	for (size_t p = 0; policy_builtin[p]; p++) {
		const struct policy_ops *ops = policy_builtin[p];
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			struct workload w;
			struct cluster_spec c;
			tl_random_workload(&w, cases[k].jobs, cases[k].max_cpus,
					   cases[k].seed);
			tl_cluster(&c, cases[k].nodes, cases[k].cpus);
			struct sim *a = tl_run_ops(ops, &w, &c);
			struct sim *b = tl_run_ops(ops, &w, &c);
			check_run(ops->name, a,
				  (uint64_t)cases[k].nodes * cases[k].cpus);
			size_t na, nb;
			const struct job *ja = sim_jobs(a, &na);
			const struct job *jb = sim_jobs(b, &nb);
			cr_assert_eq(na, nb);
			cr_assert_eq(memcmp(ja, jb, na * sizeof(*ja)), 0,
				     "%s: a rerun differs", ops->name);
			sim_free(a);
			sim_free(b);
			workload_release(&w);
			cluster_spec_release(&c);
		}
	}
}
