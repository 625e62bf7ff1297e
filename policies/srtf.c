/*
 * srtf: shortest remaining time first, preemptive.
 *
 * What it does: at every scheduling point where a job waits, it ranks
 * every job that is running or waiting by its remaining time - its
 * estimate minus the work it has done (or kept, after a preemption) -
 * shortest first, ties by submit time then id (sim_rank_by, the engine's
 * preemptive allocation): resources go down the ranking while they last,
 * running jobs that lose are preempted, waiting ones that win start.
 * Preemption keeps work up to the last checkpoint and costs a restore on
 * restart, as the experiment's "preemption" settles.
 * Cost per schedule call: the waiting jobs are kept ranked as they come
 * and go (a waiting job's remaining time does not change), the running
 * ones are sorted again from their last order at their keys of the
 * moment (by insertion: remaining times fall together, so the order
 * mostly holds), and the two lists are merged into the engine's ranking
 * (sim_rank_begin ... sim_rank_apply), waiting jobs only while one could
 * still start.  The same ranking as sorting everyone (sim_rank_by, which
 * the policy falls back on when out of memory), in about O(R + the jobs
 * listed) rather than O((R + Q) log(R + Q)) for R running and Q waiting.
 * Remaining time is by estimate, so with exact estimates (the GPU traces)
 * this is the clairvoyant SRTF that Tiresias and Gandiva compare against.
 *
 * Source: Schrage, "A proof of the optimality of the shortest remaining
 * processing time discipline", Operations Research 1968; as the
 * clairvoyant baseline of GPU-cluster schedulers, Gu et al., "Tiresias",
 * NSDI 2019, section 6.
 *
 * Parameters: none (and "placement", as every policy).
 *
 * Example (one GPU): A (0 s, 100 s) runs.  B (10 s, 20 s) arrives: A has
 * 90 s left, B 20 s: B preempts A and runs 10..30; A resumes at 30 and,
 * with no checkpoint loss or restore cost, ends at 120.
 */
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* The policy's slot for a job. */
struct srtf_job {
	double key;           /* waiting: the key it waits with */
	bool listed;          /* in srtf.run */
};

/* A job in a ranking: its key, the tie-break, the job. */
struct srtf_ent {
	double key;           /* remaining time, microseconds */
	uint32_t idx;         /* job->idx: submit order, the tie-break */
	const struct job *job;
};

/* The policy's state (allocated by the engine). */
struct srtf {
	struct srtf_ent *wait; /* waiting jobs, ranked */
	size_t nwait, wcap;
	struct srtf_ent *run;  /* running jobs in the last call's ranking,
				  then those started since (some may have
				  stopped: dropped at the next call) */
	size_t nrun, rcap;
	bool lost;             /* out of memory, or the waiting jobs lost
				  track of: rank with sim_rank_by */
	const struct job **in; /* the running jobs in play (behind the
				  best waiting job) */
	size_t incap;
};

/* Remaining time by estimate, microseconds: the ranking's key. */
static double remaining(struct sim *sim, void *state, const struct job *j)
{
	(void)state;
	double left = (double)j->estimate - sim_job_work_done(sim, j);
	return left > 0 ? left : 0;
}

/* The ranking's order: shorter first, then submit order (a total order,
 * the one sim_rank_by sorts by). */
static bool before(const struct srtf_ent *a, const struct srtf_ent *b)
{
	return a->key < b->key || (a->key == b->key && a->idx < b->idx);
}

/* Where e goes (or is) among the waiting jobs. */
static size_t wait_pos(const struct srtf *st, const struct srtf_ent *e)
{
	size_t lo = 0, hi = st->nwait;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(&st->wait[mid], e))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A job joins the waiting jobs, at the key it waits with: its remaining
 * time does not change while it waits. */
static void srtf_waits(struct sim *sim, void *state, const struct job *j)
{
	struct srtf *st = state;
	struct srtf_job *slot = sim_job_state(sim, j);
	if (st->lost || !slot ||
	    !clustersim_grow(&st->wait, &st->wcap, st->nwait + 1,
			     sizeof(*st->wait))) {
		st->lost = true;
		return;
	}
	struct srtf_ent e = { remaining(sim, state, j), j->idx, j };
	size_t i = wait_pos(st, &e);
	memmove(&st->wait[i + 1], &st->wait[i],
		(st->nwait - i) * sizeof(*st->wait));
	st->wait[i] = e;
	st->nwait++;
	slot->key = e.key;
}

/* A started job leaves the waiting jobs and joins the running ones. */
static void srtf_started(struct sim *sim, void *state, const struct job *j)
{
	struct srtf *st = state;
	struct srtf_job *slot = sim_job_state(sim, j);
	if (st->lost || !slot)
		return;
	struct srtf_ent e = { slot->key, j->idx, j };
	size_t i = wait_pos(st, &e);
	if (i == st->nwait || st->wait[i].job != j ||
	    (!slot->listed && !clustersim_grow(&st->run, &st->rcap,
					       st->nrun + 1, sizeof(*st->run)))) {
		st->lost = true;
		return;
	}
	memmove(&st->wait[i], &st->wait[i + 1],
		(st->nwait - i - 1) * sizeof(*st->wait));
	st->nwait--;
	if (!slot->listed)
		st->run[st->nrun++] = e;
	slot->listed = true;
}

static void srtf_fini(struct sim *sim, void *state)
{
	struct srtf *st = state;
	free(st->wait);
	free(st->run);
	free(st->in);
}

/* The running jobs, ranked at their keys of now: the last ranking's
 * order, less the jobs that stopped, sorted again by insertion (it was
 * nearly in order: remaining times fall together).  False when the
 * list lost track of a running job. */
static bool rank_running(struct sim *sim, struct srtf *st)
{
	size_t k = 0;
	for (size_t i = 0; i < st->nrun; i++) {
		struct srtf_ent e = st->run[i];
		if (e.job->state != JOB_RUNNING) {
			((struct srtf_job *)sim_job_state(sim, e.job))->listed =
				false;
			continue;
		}
		e.key = remaining(sim, st, e.job);
		size_t at = k++;
		while (at > 0 && before(&e, &st->run[at - 1])) {
			st->run[at] = st->run[at - 1];
			at--;
		}
		st->run[at] = e;
	}
	st->nrun = k;
	return k == sim_running_len(sim);
}

static void srtf_schedule(struct sim *sim, void *state)
{
	struct srtf *st = state;
	if (sim_queue_len(sim) == 0)
		return; /* nobody waits: nothing to preempt for */
	if (st->lost || st->nwait != sim_queue_len(sim) ||
	    !rank_running(sim, st)) {
		st->lost = true;
		sim_rank_by(sim, remaining);
		return;
	}
	/* The two rankings merged: every running job (kept or preempted),
	 * waiting jobs only while one could still start.  The running jobs
	 * ahead of the best waiting one keep their units whatever their
	 * order: the engine counts them without the list. */
	size_t r = 0, w = 0, nrun = st->nrun;
	while (r < nrun && st->nwait && before(&st->run[r], &st->wait[0]))
		r++;
	if (!clustersim_grow(&st->in, &st->incap, nrun - r + 1,
			     sizeof(*st->in))) {
		st->lost = true;
		sim_rank_by(sim, remaining);
		return;
	}
	for (size_t i = r; i < nrun; i++)
		st->in[i - r] = st->run[i].job;
	if (!sim_rank_begin_with(sim, st->in, nrun - r)) {
		r = 0;
		sim_rank_begin(sim);
	}
	for (;;) {
		bool waiting = w < st->nwait && !sim_rank_full(sim);
		if (waiting && (r == nrun || before(&st->wait[w], &st->run[r])))
			sim_rank_add(sim, st->wait[w++].job);
		else if (r < nrun)
			sim_rank_add(sim, st->run[r++].job);
		else
			break;
	}
	sim_rank_apply(sim); /* srtf_started, srtf_waits */
}

CLUSTERSIM_POLICY(srtf,
	.summary = "shortest remaining time first (by estimate), preemptive",
	.state_size = sizeof(struct srtf),
	.job_state_size = sizeof(struct srtf_job),
	.fini = srtf_fini,
	.job_submitted = srtf_waits,
	.job_started = srtf_started,
	.job_preempted = srtf_waits,
	.schedule = srtf_schedule);
