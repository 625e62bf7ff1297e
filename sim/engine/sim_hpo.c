/*
 * Hyperparameter searches in the engine: the stop decisions of
 * successive halving at each rung (workload/hpo.h has the searches and
 * the learning curves).
 *
 * A trial's end event doubles as its rung event: while a trial runs, its
 * job's work (run) is the work up to its next rung, so the engine's
 * usual end event fires when the trial gets there, at whatever rate and
 * through whatever preemptions it ran.  sim_hpo_at_end() then looks at
 * what the trial reports there (its drawn loss at that rung) and either
 *   - stops it: the job ends there, finished, its remaining epochs
 *     dropped (jobs.csv: stopped_at), or
 *   - promotes it: its work grows to the next rung (the last: max_epochs)
 *     and a new end event is set from its rate; it keeps its resources.
 * Its service (the time its work takes alone) grows with its work.
 *
 * The rules (Li et al., "A system for massively parallel hyperparameter
 * tuning", MLSys 2020):
 *   asha, hyperband: asynchronous.  A trial that reaches rung k is
 *     ranked (by loss, then trial index) among every trial of its search
 *     and bracket that has reported at rung k so far, itself included;
 *     with n of them, it continues when its rank is at most ceil(n /
 *     eta), else it stops.  This is the stopping form of ASHA that Ray
 *     Tune's ASHAScheduler runs (a trial is decided when it reports,
 *     never paused for a later promotion), chosen because a cluster
 *     scheduler sees a trial as one job: a paused trial would hold its
 *     place in no queue.  Rounding up lets the first trial at a rung go
 *     on, as Ray's cutoff does (it has none with no earlier result);
 *     in the limit 1/eta of a rung's trials continue.
 * Synchronous successive halving is not modelled: its trials pause at a
 * rung until the whole rung has reported, and a paused trial would need
 * a job state that neither runs nor waits in the queue (holding its GPUs
 * instead deadlocks a cluster smaller than the rung).
 */
#include "engine/sim_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "workload/hpo.h"

/* What reported at one rung of one bracket of one search: the rung's
 * results so far, as ASHA ranks a new report among them. */
struct hpo_rec {
	double *loss;      /* reports, sorted by (loss, trial) */
	uint32_t *trial;   /* their trials (global index) */
	size_t n, cap;
};

/* The engine's state of the searches. */
struct hpo_run {
	const struct hpo_set *set;
	struct hpo_outcome *out; /* per trial */
	struct hpo_rec *rec;     /* per (search, bracket, rung) */
	sim_time_t epoch;        /* work of one epoch, microseconds */
};

/* The record of rung k of trial t's search and bracket. */
static struct hpo_rec *rec_of(struct hpo_run *h, const struct hpo_trial *t,
			      uint32_t k)
{
	uint32_t nr = h->set->nrungs;
	return &h->rec[((size_t)t->search * (nr + 1) + t->bracket) * nr + k];
}

/* Work up to global rung k (k = nrungs: the whole trial). */
static sim_time_t rung_work(const struct hpo_run *h, uint32_t k)
{
	return h->epoch * (sim_time_t)h->set->rungs[k];
}

void sim_hpo_init(struct sim *s)
{
	const struct hpo_set *set = s->cfg.workload->hpo;
	if (!set)
		return;
	struct hpo_run *h = xcalloc(1, sizeof(*h));
	uint32_t nr = set->nrungs;
	h->set = set;
	h->epoch = (sim_time_t)ceil(set->spec.epoch_s * SIM_SEC);
	h->out = xcalloc(set->ntrials ? set->ntrials : 1, sizeof(*h->out));
	h->rec = xcalloc((size_t)set->nsearches * (nr + 1) * (nr ? nr : 1),
			 sizeof(*h->rec));
	for (size_t i = 0; i < s->njobs; i++) {
		struct job *j = &s->jobs[i];
		const struct hpo_trial *t = hpo_trial_of(set, j);
		if (!t)
			continue;
		h->out[t - set->trials].job = (uint32_t)i + 1;
		h->out[t - set->trials].next = t->bracket;
		j->run = rung_work(h, t->bracket);
	}
	s->hpo = h;
}

void sim_hpo_release(struct sim *s)
{
	struct hpo_run *h = s->hpo;
	if (!h)
		return;
	size_t nr = h->set->nrungs;
	size_t n = (size_t)h->set->nsearches * (nr + 1) * nr;
	for (size_t i = 0; i < n; i++) {
		free(h->rec[i].loss);
		free(h->rec[i].trial);
	}
	free(h->rec);
	free(h->out);
	free(h);
	s->hpo = NULL;
}

/* Adds trial i's report to r in (loss, trial) order; returns its rank
 * (1 = best). */
static size_t rec_add(struct hpo_rec *r, double loss, uint32_t i)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 8;
		r->loss = xrealloc(r->loss, r->cap * sizeof(*r->loss));
		r->trial = xrealloc(r->trial, r->cap * sizeof(*r->trial));
	}
	size_t at = r->n;
	while (at > 0 && (r->loss[at - 1] > loss ||
			  (r->loss[at - 1] == loss && r->trial[at - 1] > i))) {
		r->loss[at] = r->loss[at - 1];
		r->trial[at] = r->trial[at - 1];
		at--;
	}
	r->loss[at] = loss;
	r->trial[at] = i;
	r->n++;
	return at + 1;
}

/* A promoted trial goes on to its next rung: its work grows and a new
 * end event is set from its rate. */
static void promote(struct sim *s, struct hpo_run *h, struct job *j,
		    struct hpo_outcome *o)
{
	sim_time_t old = j->run, next = rung_work(h, o->next);
	j->run = next;
	j->service = j->service == old
		? next
		: (sim_time_t)ceil((double)j->service * ((double)next / old));
	/* Its progress from here on counts from the rung's work exactly
	 * (the end event came at the microsecond rounded up). */
	sim_ensure_prog(s);
	struct progress *p = &s->prog[j->idx];
	sim_prog_sync(s, j);
	p->done = (double)old;
	sim_time_t from = p->hold > s->now ? p->hold : s->now;
	s->end_ev[j->idx] = evq_push(&s->q, sim_time_after(s, from,
				     (double)(next - old) / p->rate, j),
				     EV_END, j->idx);
}

bool sim_hpo_at_end(struct sim *s, struct job *j)
{
	struct hpo_run *h = s->hpo;
	const struct hpo_trial *t = hpo_trial_of(h->set, j);
	if (!t)
		return false;
	uint32_t i = (uint32_t)(t - h->set->trials), nr = h->set->nrungs;
	struct hpo_outcome *o = &h->out[i];
	uint32_t k = o->next;
	if (k >= nr) {
		o->completed = true; /* max_epochs: it ends */
		o->reported = nr + 1;
		o->loss = t->loss[nr];
		return false;
	}
	struct hpo_rec *r = rec_of(h, t, k);
	o->reported = k + 1;
	o->loss = t->loss[k];
	size_t rank = rec_add(r, t->loss[k], i);
	if (rank > (r->n + h->set->spec.eta - 1) / h->set->spec.eta) {
		o->stopped = true;
		return false;
	}
	o->rungs++;
	o->next = k + 1;
	promote(s, h, j, o);
	return true;
}

int sim_job_rung(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_rung") || !s->hpo)
		return -1;
	const struct hpo_trial *t = hpo_trial_of(s->hpo->set, j);
	return t ? (int)s->hpo->out[t - s->hpo->set->trials].rungs : -1;
}

const struct hpo_outcome *sim_hpo_outcomes(const struct sim *s, size_t *n)
{
	*n = s->hpo ? s->hpo->set->ntrials : 0;
	return s->hpo ? s->hpo->out : NULL;
}
