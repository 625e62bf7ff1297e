/*
 * sim_rank_full(): a list is full once the units it has left are fewer
 * than any waiting job asks for, not only when none are left, so that a
 * policy stops walking waiting jobs that sim_rank_add would leave out
 * anyway.  Checked by hand on one node (a job of 3 GPUs runs, 1 GPU is
 * free, every waiting job wants 2: full before any waiting job is
 * added), and against the same ranking that adds every waiting job
 * whatever sim_rank_full says: the same decisions, job by job, on
 * random workloads.
 */
#include <criterion/criterion.h>

#include "testlib.h"

/* What the hand-worked case saw, per schedule call. */
struct seen {
	int calls;      /* schedule calls so far */
	bool full[8];   /* sim_rank_full after the running jobs */
	size_t qlen[8]; /* waiting jobs then */
	int early;      /* calls full with units still free */
};

static struct seen seen;

/* FIFO ranking: the running jobs, then the waiting ones in queue order;
 * with stop, the waiting ones only while the list is not full. */
static void fifo_rank(struct sim *sim, bool stop, bool record)
{
	size_t nr = sim_running_len(sim), nq = sim_queue_len(sim);
	if (!nq)
		return;
	sim_rank_begin(sim);
	for (size_t i = 0; i < nr; i++)
		sim_rank_add(sim, sim_running_at(sim, i));
	if (record && seen.calls < 8) {
		seen.full[seen.calls] = sim_rank_full(sim);
		seen.qlen[seen.calls] = nq;
	}
	if (record) {
		seen.early += sim_rank_full(sim) && sim_free_units(sim) > 0;
		seen.calls++;
	}
	for (size_t i = 0; i < nq && !(stop && sim_rank_full(sim)); i++)
		sim_rank_add(sim, sim_queue_at(sim, i));
	sim_rank_apply(sim);
}

static void stop_schedule(struct sim *sim, void *state)
{
	(void)state;
	fifo_rank(sim, true, true);
}

static void all_schedule(struct sim *sim, void *state)
{
	(void)state;
	fifo_rank(sim, false, false);
}

static const struct policy_ops stop_fifo = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "stop_fifo",
	.summary = "FIFO ranking that stops when the list is full",
	.schedule = stop_schedule,
};

static const struct policy_ops all_fifo = {
	.abi = CLUSTERSIM_ABI_VERSION,
	.size = sizeof(struct policy_ops),
	.name = "all_fifo",
	.summary = "FIFO ranking that lists every waiting job",
	.schedule = all_schedule,
};

Test(rank_full, when_no_waiting_job_fits_the_units_left)
{
	/* One node of 4 GPUs.  At 0 job 1 (3 GPUs) starts: the list is not
	 * full before it (4 units, it asks 3).  At 10 jobs 2 and 3 (2 GPUs
	 * each) arrive: after job 1, 1 unit is left, fewer than either
	 * asks, so the list is full with 2 waiting jobs.  At 100 job 1
	 * ends: 4 units, not full; jobs 2 and 3 start. */
	const struct tjob t[] = {
		{ 1, 0, 100, -1, 3 },
		{ 2, 10, 50, -1, 2 },
		{ 3, 10, 50, -1, 2 },
	};
	const uint32_t gpus[] = { 3, 2, 2 };
	struct workload w;
	struct cluster_spec c;
	tl_workload(&w, t, 3);
	for (size_t i = 0; i < w.n; i++) {
		w.jobs[i].gpus = gpus[w.jobs[i].id - 1];
		w.jobs[i].cpus = 0;
	}
	tl_gpu_cluster(&c, 1, 4, NULL, 0);
	seen = (struct seen){ 0 };
	struct sim *s = tl_run_ops(&stop_fifo, &w, &c);
	cr_assert_eq(seen.calls, 3);
	cr_expect(!seen.full[0]);
	cr_expect(seen.full[1]);
	cr_expect_eq(seen.qlen[1], 2);
	cr_expect(!seen.full[2]);
	cr_expect_eq(tl_start(s, 2), 100);
	cr_expect_eq(tl_start(s, 3), 100);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

Test(rank_full, stopping_there_changes_no_decision)
{
	int fulls = 0;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct workload w;
		struct cluster_spec c;
		tl_random_workload(&w, 300, 8, seed);
		for (size_t i = 0; i < w.n; i++) {
			w.jobs[i].gpus = w.jobs[i].cpus;
			w.jobs[i].cpus = 0;
		}
		tl_gpu_cluster(&c, 4, 4, NULL, 0);
		seen = (struct seen){ 0 };
		struct sim *a = tl_run_ops(&stop_fifo, &w, &c);
		struct sim *b = tl_run_ops(&all_fifo, &w, &c);
		fulls += seen.early;
		size_t na, nb;
		const struct job *ja = sim_jobs(a, &na), *jb = sim_jobs(b, &nb);
		cr_assert_eq(na, nb);
		for (size_t i = 0; i < na; i++) {
			cr_expect_eq(ja[i].start, jb[i].start, "job %lld",
				     (long long)ja[i].id);
			cr_expect_eq(ja[i].end, jb[i].end, "job %lld",
				     (long long)ja[i].id);
		}
		cr_expect_eq(sim_counters(a)->bad_calls, 0);
		sim_free(a);
		sim_free(b);
		workload_release(&w);
		cluster_spec_release(&c);
	}
	cr_expect_gt(fulls, 0); /* full with units free: the case was met */
}
