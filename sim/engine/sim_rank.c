/*
 * The steps many policies share, kept in the engine so that no policy
 * copies them: the preemptive allocation of a ranking (sim_apply_ranking,
 * for las, gittins, srtf, ...), starting the head of the queue
 * (sim_start_head, FCFS's step), and the free-resource profile that
 * backfilling plans with (sim_profile).  Each knows about virtual
 * clusters, where a VC's GPUs are its own and the pool is shared.
 */
#include "engine/sim_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
/*
 * On a cluster with virtual clusters (cluster.h): which ranked jobs keep
 * or get their GPUs, counted per VC.  Units in play per VC (the last
 * slot: the shared pool) are its free GPUs plus what the listed running
 * jobs hold there; a job takes from its own VC first, then from the
 * pool.
 */
static void rank_keep_vcs(struct sim *s, const struct job *const *ranked,
			  size_t n, bool pin, bool *keep)
{
	const struct cluster *c = s->cluster;
	uint32_t nvc = cluster_vc_count(c);
	uint64_t *units = xcalloc(nvc + 1, sizeof(*units));
	for (uint32_t v = 0; v <= nvc; v++)
		units[v] = cluster_vc_free_gpus(c, v < nvc ? (int)v : -1);
	for (size_t k = 0; k < n; k++) {
		const struct placement *p = &s->plc[ranked[k]->idx];
		if (ranked[k]->state != JOB_RUNNING || is_guest(s, ranked[k]))
			continue;
		for (uint32_t i = 0; i < p->n; i++) {
			int v = cluster_node_vc(c, p->slots[i].node);
			units[v < 0 ? nvc : (uint32_t)v] +=
				(uint64_t)p->slots[i].gpus * p->slots[i].count;
		}
	}
	/* With pin, the jobs min_run_s protects first, then the others. */
	for (int pass = pin ? 0 : 1; pass < 2; pass++) {
		for (size_t k = 0; k < n; k++) {
			if (pin && is_pinned(s, ranked[k]) != !pass)
				continue;
			int v = cluster_job_vc(c, ranked[k]);
			uint64_t d = ranked[k]->gpus, own = v < 0 ? 0 : units[v];
			if (d > own + units[nvc] && pass)
				continue;
			if (d > own + units[nvc])
				d = own + units[nvc]; /* kept all the same */
			if (v >= 0)
				units[v] -= d < own ? d : own;
			units[nvc] -= d < own ? 0 : d - own;
			keep[k] = true;
		}
	}
	free(units);
}

/* Which ranked jobs keep or get their units: greedily in list order;
 * with pin, the running jobs min_run_s protects keep theirs first. */
static void rank_keep(struct sim *s, const struct job *const *ranked,
		      size_t n, bool pin, bool *keep)
{
	memset(keep, 0, (n ? n : 1) * sizeof(*keep));
	if (cluster_vc_count(s->cluster)) {
		rank_keep_vcs(s, ranked, n, pin, keep);
		return;
	}
	/* Units in play: free now plus what the listed running jobs hold. */
	uint64_t units = units_free(s->cluster);
	for (size_t k = 0; k < n; k++)
		if (ranked[k]->state == JOB_RUNNING &&
		    !is_guest(s, ranked[k]))
			units += units_demand(s->cluster, ranked[k]);
	for (int pass = pin ? 0 : 1; pass < 2; pass++) {
		for (size_t k = 0; k < n; k++) {
			if (pin && is_pinned(s, ranked[k]) != !pass)
				continue;
			uint64_t d = units_demand(s->cluster, ranked[k]);
			if (d <= units || !pass) {
				units -= d <= units ? d : units;
				keep[k] = true;
			}
		}
	}
}

/* When a job min_run_s protects may be preempted. */
static sim_time_t pin_end(const struct sim *s, const struct job *j)
{
	return (s->prog ? s->prog[j->idx].started : j->start) + s->min_run;
}

/* Wakes the policy at t, when a protection it met ends (once for each
 * such time). */
static void pin_wake(struct sim *s, sim_time_t t)
{
	if (s->pin_wake <= s->now || t < s->pin_wake) {
		evq_push(&s->q, t, EV_TIMER, 0);
		s->pin_wake = t;
	}
}

/*
 * min_run_s: a running job the ranking would preempt before it has run
 * that long keeps running instead (its units first, the rest in list
 * order), and the policy is woken when the first such job may be
 * preempted.
 */
static void rank_protect(struct sim *s, const struct job *const *ranked,
			 size_t n, bool *keep)
{
	sim_time_t wake = SIM_TIME_MAX;
	for (size_t k = 0; k < n; k++) {
		if (!keep[k] && is_pinned(s, ranked[k]) &&
		    pin_end(s, ranked[k]) < wake)
			wake = pin_end(s, ranked[k]);
	}
	if (wake == SIM_TIME_MAX)
		return;
	rank_keep(s, ranked, n, true, keep);
	pin_wake(s, wake);
}

size_t sim_apply_ranking(struct sim *s, const struct job *const *ranked,
			 size_t n)
{
	bool *keep = xcalloc(n ? n : 1, sizeof(*keep));
	rank_keep(s, ranked, n, false, keep);
	if (s->min_run)
		rank_protect(s, ranked, n, keep);
	/* Preempt first, so that the winners find their resources.  The
	 * fabric's rates are recomputed once, for the final set of jobs,
	 * not after every stop and start: nothing happens in between. */
	s->defer_rates = true;
	for (size_t k = 0; k < n; k++)
		if (!keep[k] && ranked[k]->state == JOB_RUNNING)
			sim_job_preempt(s, ranked[k]);
	size_t started = 0;
	for (size_t k = 0; k < n; k++)
		if (keep[k] && ranked[k]->state == JOB_PENDING &&
		    cluster_fits(s->cluster, ranked[k]) &&
		    sim_job_start(s, ranked[k]) == 0)
			started++;
	s->defer_rates = false;
	if (s->rates_due) {
		s->rates_due = false;
		sim_update_rates(s);
	}
	free(keep);
	return started;
}


void sim_rank_note_queue(struct sim *s, const struct job *j, bool in)
{
	if (in) {
		s->qzero += units_demand(s->cluster, j) == 0;
		sim_heap_set(s->qdemand, j->idx, (double)rank_demand(s, j));
	} else {
		s->qzero -= units_demand(s->cluster, j) == 0;
		sim_heap_remove(s->qdemand, j->idx);
	}
}

/* From the first ranking on, the queue counts its jobs of no units and
 * keeps its jobs by demand (sim_rank_full). */
static void count_queue(struct sim *s)
{
	if (s->count_zero)
		return;
	s->count_zero = true;
	s->qzero = 0;
	s->qdemand = sim_heap_new(s, false);
	for (size_t i = 0; i < s->qlen; i++)
		sim_rank_note_queue(s, sim_queue_at(s, i), true);
}

void sim_rank_begin(struct sim *s)
{
	if (!s->in_schedule) {
		s->counters.bad_calls++;
		return;
	}
	/* Units in play, as sim_apply_ranking counts them once every
	 * running job is listed: free now plus what the running jobs hold
	 * (a guest holds nothing of its own). */
	uint64_t units = units_free(s->cluster);
	for (size_t i = 0; i < s->nrun; i++) {
		const struct job *j = &s->jobs[s->running[i].idx];
		if (!s->npairs || !is_guest(s, j))
			units += rank_demand(s, j);
	}
	/* The jobs min_run_s protects keep their units whatever their
	 * place in the list (sim_apply_ranking): they are not in play, and
	 * the policy is woken when the first may be preempted. */
	sim_time_t wake = SIM_TIME_MAX;
	for (size_t i = 0; s->min_run && i < s->nrun; i++) {
		const struct job *j = &s->jobs[s->running[i].idx];
		uint64_t d = rank_demand(s, j);
		if (!is_pinned(s, j))
			continue;
		units -= d < units ? d : units;
		if (pin_end(s, j) < wake)
			wake = pin_end(s, j);
	}
	if (wake != SIM_TIME_MAX)
		pin_wake(s, wake);
	s->nrank = 0;
	s->rank_units = units;
	s->rank_pool = cluster_vc_count(s->cluster) == 0;
	count_queue(s);
}

bool sim_rank_begin_with(struct sim *s, const struct job *const *inplay,
			 size_t n)
{
	if (!s->in_schedule) {
		s->counters.bad_calls++;
		return false;
	}
	/* Where a job's place among the running ones could matter (units
	 * counted per VC, protected jobs, shared GPUs), every running job
	 * must be listed: the caller ranks them all. */
	if (s->min_run || s->npairs || cluster_vc_count(s->cluster))
		return false;
	/* The running jobs left out come first and all keep their units
	 * (they fit: the units in play hold them), so what is left for the
	 * list is what is free plus what the listed running jobs hold -
	 * what sim_apply_ranking counts from the list itself. */
	uint64_t units = units_free(s->cluster);
	for (size_t i = 0; i < n; i++) {
		if (!own_job(s, inplay[i]) ||
		    inplay[i]->state != JOB_RUNNING) {
			s->counters.bad_calls++;
			continue;
		}
		units += rank_demand(s, inplay[i]);
	}
	s->nrank = 0;
	s->rank_units = units;
	s->rank_pool = true;
	count_queue(s);
	return true;
}

void sim_rank_add(struct sim *s, const struct job *j)
{
	if (!s->in_schedule || !own_job(s, j) ||
	    (j->state != JOB_RUNNING && j->state != JOB_PENDING)) {
		s->counters.bad_calls++;
		return;
	}
	/* The greedy step of sim_apply_ranking, counted as the list grows:
	 * with one pool, a waiting job it would not keep here could not
	 * start, and is left out. */
	uint64_t d = rank_demand(s, j);
	if (s->min_run && is_pinned(s, j))
		; /* its units were set apart by sim_rank_begin */
	else if (d <= s->rank_units)
		s->rank_units -= d;
	else if (s->rank_pool && j->state == JOB_PENDING)
		return;
	if (s->nrank == s->rankcap)
		xgrow(&s->rank, &s->rankcap, s->nrank + 1, sizeof(*s->rank));
	s->rank[s->nrank++] = j;
}

/* Full when the units left are fewer than any waiting job asks for
 * (none, with no waiting job that asks for none): sim_rank_add would
 * leave out every waiting job from here on. */
bool sim_rank_full(const struct sim *s)
{
	uint32_t j;
	double least;
	if (!s->rank_pool || s->qzero)
		return false;
	return s->rank_units == 0 ||
	       (sim_heap_top(s->qdemand, &j, &least) &&
		(double)s->rank_units < least);
}

size_t sim_rank_apply(struct sim *s)
{
	if (!s->in_schedule) {
		s->counters.bad_calls++;
		return 0;
	}
	size_t n = s->nrank;
	s->nrank = 0;
	return sim_apply_ranking(s, s->rank, n);
}

static int by_key(const void *pa, const void *pb)
{
	const struct rank_key *a = pa, *b = pb;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

size_t sim_rank_by(struct sim *s, sim_rank_key_fn key)
{
	if (!s->in_schedule) {
		s->counters.bad_calls++;
		return 0;
	}
	size_t n = s->nrun + s->qlen;
	xgrow(&s->rkeys, &s->rkcap, n ? n : 1, sizeof(*s->rkeys));
	xgrow(&s->rank, &s->rankcap, n ? n : 1, sizeof(*s->rank));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = i < s->nrun ? sim_running_at(s, i)
						  : sim_queue_at(s, i - s->nrun);
		s->rkeys[i] = (struct rank_key){ key(s, s->pstate, j), j->idx };
	}
	/* A total order (job index last, which follows submit order): any
	 * sort gives the same list. */
	qsort(s->rkeys, n, sizeof(*s->rkeys), by_key);
	for (size_t i = 0; i < n; i++)
		s->rank[i] = &s->jobs[s->rkeys[i].idx];
	s->nrank = 0;
	return sim_apply_ranking(s, s->rank, n);
}

/*
 * sim_start_head on a cluster with virtual clusters: each VC (and the
 * shared pool, for jobs of no VC) is its own FCFS queue, so a job that
 * waits for its VC blocks the later jobs of its VC only.
 */
static size_t start_head_vcs(struct sim *s)
{
	uint32_t nvc = cluster_vc_count(s->cluster), nblocked = 0;
	bool *blocked = xcalloc(nvc + 1, sizeof(*blocked));
	size_t started = 0, i = 0;
	while (i < s->qlen && nblocked <= nvc) {
		const struct job *j = sim_queue_at(s, i);
		int v = cluster_job_vc(s->cluster, j);
		uint32_t k = v < 0 ? nvc : (uint32_t)v;
		if (blocked[k]) {
			i++;
		} else if (!cluster_fits(s->cluster, j) ||
			   sim_job_start(s, j)) {
			blocked[k] = true;
			nblocked++;
			i++;
		} else {
			started++; /* it left the queue: i names the next */
		}
	}
	free(blocked);
	return started;
}

size_t sim_start_head(struct sim *s)
{
	size_t started = 0;
	if (cluster_vc_count(s->cluster))
		return start_head_vcs(s);
	while (s->qlen) {
		const struct job *head = sim_queue_at(s, 0);
		if (!cluster_fits(s->cluster, head) || sim_job_start(s, head))
			break;
		started++;
	}
	return started;
}


struct profile *sim_profile(struct sim *s)
{
	/* The running set is sorted by start + estimate; clamping to now + 1
	 * (for jobs past their estimate) keeps it sorted.  Of two jobs
	 * sharing GPUs, the resources come back when the second ends: the
	 * first is left out. */
	const struct run_entry *run = s->running;
	size_t n = s->nrun;
	if (s->npairs) {
		xgrow(&s->pscratch, &s->pscap, s->nrun, sizeof(*s->pscratch));
		n = 0;
		for (size_t i = 0; i < s->nrun; i++) {
			const struct job *j = &s->jobs[s->running[i].idx];
			const struct job *q = partner_of(s, j);
			if (q && run_before(s, j, q))
				continue;
			s->pscratch[n++] = s->running[i];
		}
		run = s->pscratch;
	}
	if (cluster_vc_count(s->cluster))
		profile_build_parts(s->profile, s->cluster, s->now, s->jobs,
				    run, n, s->plc);
	else
		profile_build(s->profile, s->cluster, s->now, s->jobs, run, n);
	s->ngone = 0;
	s->gone_lost = false;
	s->profile_keepable = !s->npairs && !cluster_vc_count(s->cluster);
	return s->profile;
}

/* The most jobs a kept profile takes out one by one; past it a rebuild
 * is as cheap. */
#define GONE_MAX 4096

void sim_note_gone(struct sim *s, const struct run_entry *e)
{
	if (!s->profile_keepable || s->gone_lost)
		return;
	if (s->ngone == GONE_MAX) {
		s->gone_lost = true;
		return;
	}
	xgrow(&s->gone, &s->gonecap, s->ngone + 1, sizeof(*s->gone));
	s->gone[s->ngone++] = *e;
}

void sim_refuse_kept_profile(struct sim *s)
{
	s->profile_refuse = true;
}

void sim_profile_walk_only(struct sim *s)
{
	profile_set_walk_only(s->profile, true);
}

struct profile *sim_profile_kept(struct sim *s)
{
	/* A build now would differ only by the jobs that left the running
	 * set, whose room is given back here, and the clamp of those past
	 * their estimate (the running set is sorted by expected end): the
	 * rest, the caller's reservations, are what it would put back. */
	if (s->profile_refuse || !s->profile_keepable || s->gone_lost ||
	    (s->nrun && s->running[0].end <= s->now))
		return NULL;
	profile_advance(s->profile, s->now);
	for (size_t i = 0; i < s->ngone; i++)
		profile_forget(s->profile, &s->gone[i]);
	s->ngone = 0;
	/* What is free now must be what the cluster says (a guard: the
	 * same unless a build now would differ after all). */
	if (profile_free_at(s->profile, s->now) != units_free(s->cluster))
		return NULL;
	return s->profile;
}
