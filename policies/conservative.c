/*
 * conservative: conservative backfilling.
 *
 * What it does: every waiting job gets a reservation, at the earliest
 * time its request is free for its whole estimate given the running jobs
 * and every other reservation; a job whose reservation is now starts now.
 * So a job may start early only if it delays no other job's reservation,
 * and once made a reservation never moves later: the policy promises each
 * job its start (sim_job_promise), and the engine holds it to that.
 *
 * replan = "compress" (the default, the classic algorithm): at each
 * scheduling point the promises are put back into the profile; then each
 * promised job in queue order gives its reservation back and takes the
 * earliest one open now, which is never later than the old (it still
 * fits there): when jobs end before their estimates the schedule is
 * compressed.  Then each new job, in queue order, is reserved at the
 * earliest time free of all of them.  Jobs that end and jobs that arrive
 * at the same time (with "schedule_on": "timestamp"): the ends' room is
 * given out to the promised jobs first, then to the new ones.
 *
 * compress_on = "end" (with compress): the promised jobs are moved only
 * at a pass that follows a job's end, once, in queue order, as pyss's
 * ConservativeScheduler does (new_events_on_job_termination; 44a2423);
 * at other passes they keep their promises, so a slot that a job moved
 * earlier left behind goes to a job ahead of it only at the next end.
 * Nor is a job whose promise is due now moved (pyss skips a job whose
 * start is not after now): with "schedule_on": "event" it waits for the
 * other ends of this time instead of being pushed later.  The default
 * "pass" compresses at every pass.
 *
 * Quiet passes (compress, compress_on = "pass", no VCs): a pass that
 * moved no promised job (none started before its promise, none took a
 * new time, none had missed its promise) leaves each at the earliest
 * time the others allow.  Until a job ends the profile only loses room
 * (new reservations; time passing), so the next pass would move none
 * of them again: if no promise is due by then, it places only the new
 * jobs, in the profile the last pass left (sim_profile_kept, which the
 * engine refuses when a running job is past its estimate).  The same
 * outputs, without a rebuild and a re-plan of every promise.  Other
 * passes (after an end) compress in full, but in the profile the last
 * pass left too, with the ended jobs' room given back by the engine,
 * when every promise in it is still to come and is this policy's (a
 * hash of them says so): no rebuild that puts every promise back.  A
 * long queue still costs a profile_earlier per promise at each end
 * (docs/design.md), though the promises of one demand share one walk
 * of the profile's steps (the runs of room it keeps per demand).
 *
 * compress = "movable" (the default) or "all": which promised jobs a
 * compression re-plans.  A job can move only if its request is free at
 * some time before its promise for long enough (profile_earlier, a
 * query that neither gives back nor takes room); "movable" re-plans
 * only those, "all" gives back and re-plans every one, as before.  The
 * schedules are the same (tests/test_conservative_movable.c); a job
 * that is skipped would have been reserved at its promise again.
 *
 * replan = "scratch": every reservation is made again from scratch, in
 * queue order, against the jobs ahead only.  This is NOT conservative: a
 * job moved into a gap can push a job behind it later than it was
 * promised (on normalised KTH-SP2, thousands of times).  Kept because
 * earlier results of clustersim used it.
 *
 * On a cluster partitioned into virtual clusters the profile plans each
 * job against its VC and the shared pool (policy.h).  The scratch
 * variant's first step is sim_start_head only without VCs: per-VC queues
 * would start a job of one VC on pool GPUs reserved for an earlier job of
 * another.  On a cluster with GPUs the profile counts GPUs, not the CPUs a
 * job needs too: a job whose reservation is now but whose CPUs do not fit
 * keeps it and waits; its promise is then measured from now.
 *
 * Source: Mu'alem and Feitelson, IEEE TPDS 2001 (section 2, compression
 * when a job ends early); Feitelson and Weil, "Utilization and
 * predictability in scheduling the IBM SP2 with backfilling", IPPS 1998;
 * pyss's conservative scheduler (re-insertion in submit order at each
 * termination).
 *
 * Parameters: replan ("compress" or "scratch"), compress_on ("pass" or
 * "end"), compress ("movable" or "all").
 *
 * Example (10 CPUs, estimates exact): A runs on 6 CPUs until 100.  Queue:
 * B 8 CPUs for 50 s, C 4 CPUs for 200 s, D 2 CPUs for 20 s.  B is reserved
 * at 100 (until 150).  C fits now but would overlap B (4 + 8 > 10): its
 * earliest slot is 150.  D fits now and until 20 with B and C: starts now.
 * Where the two differ (tests/test_conservative.c): A (2 CPUs, estimate
 * 100) ends at 10, 90 s early; C (10 CPUs) was promised 100 and D (8 CPUs
 * for 40 s) 50, in the gap before A's expected end.  Compress moves C to
 * 90, after D; scratch plans C first, at 50, and pushes D to 150.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* The policy's state. */
struct cons {
	bool compress;      /* replan = "compress" */
	bool on_end;        /* compress_on = "end" */
	bool movable;       /* compress = "movable": skip the promised jobs
	                       that profile_earlier says cannot move */
	bool ended;         /* a job ended since the last pass */
	sim_time_t kept;    /* the first promise this pass kept by its
	                       split (VCs only; SIM_TIME_MAX = none) */
	sim_time_t armed;   /* the wake-up set for such a promise */
	/* A quiet pass (compress_on = "pass", no VCs): it moved no promise
	 * and missed none.  Until a job ends, the next pass would move none
	 * either (top of file), so it only places the jobs that came since,
	 * in the profile the last one left (sim_profile_kept). */
	bool quiet;         /* the last pass was quiet */
	sim_time_t soonest; /* the earliest promise it left */
	/* The profile the last pass left holds the running jobs and every
	 * promise, and nothing else: no VCs, no job reserved nowhere. */
	bool whole;
	uint64_t sum;       /* a hash of the waiting jobs' promises, as
	                       this policy made them: another's change
	                       (a wrapper's) means the profile is not whole */
	size_t qlen;        /* the queue's length after it */
	uint32_t last;      /* the idx of its last job then */
};

/* One job's term of the hash of promises. */
static uint64_t term(const struct job *j, sim_time_t t)
{
	uint64_t x = ((uint64_t)j->idx * 2 + 1) * 0x9e3779b97f4a7c15ull;
	x ^= (uint64_t)t;
	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	return x ^ x >> 29;
}

/* sim_job_start and sim_job_promise, keeping the hash of promises. */
static int start(struct sim *sim, struct cons *c, const struct job *j)
{
	sim_time_t was = sim_job_promised(sim, j);
	int rc = sim_job_start(sim, j);
	if (rc == 0 && was != SIM_TIME_NONE)
		c->sum ^= term(j, was);
	return rc;
}

static void promise(struct sim *sim, struct cons *c, const struct job *j,
		    sim_time_t t)
{
	sim_time_t was = sim_job_promised(sim, j);
	if (sim_job_promise(sim, j, t) != 0)
		return;
	if (was != SIM_TIME_NONE)
		c->sum ^= term(j, was);
	c->sum ^= term(j, t);
}

/* What a pass plans: a job that can start now starts; others keep
 * their reservation, promised.  Returns true when the job started (it
 * left the queue). */
static bool plan(struct sim *sim, struct cons *c, struct profile *p,
		 const struct job *j, sim_time_t promised, sim_time_t *at)
{
	sim_time_t now = sim_now(sim);
	sim_time_t t = profile_earliest(p, j, j->estimate);
	/* With VCs a reservation takes the envelope of its possible splits
	 * of VC and pool GPUs (policy.h), which grows with what is free:
	 * asked afresh the old time may not fit, though the split it was
	 * made with still does.  Without VCs t > promised cannot happen,
	 * and the engine would report it.  A promise kept so may be at a
	 * time no event marks (without VCs each is at the expected end of
	 * a running job or of another promise): the policy wakes itself
	 * then. */
	*at = t;
	if (t == SIM_TIME_MAX)
		c->whole = false;
	if (promised != SIM_TIME_NONE && t > promised && sim_vc_count(sim)) {
		/* A promise kept so that is due now starts now when the
		 * job fits: its split is one the envelope allowed for.
		 * (Kept unstarted, it would wait for an event that may
		 * never come: no wake-up is set for now.) */
		if (promised == now && sim_job_fits(sim, j) &&
		    start(sim, c, j) == 0) {
			profile_reserve(p, j, now, j->estimate);
			return true;
		}
		*at = promised;
		profile_reserve_again(p, j, promised, j->estimate);
		if (promised < c->kept)
			c->kept = promised;
		return false;
	}
	/* The profile counts GPUs on a cluster with GPUs, not the CPUs a
	 * job may need too: the start is asked only when the job fits. */
	if (t == now && sim_job_fits(sim, j) && start(sim, c, j) == 0) {
		profile_reserve(p, j, now, j->estimate);
		return true;
	}
	profile_reserve(p, j, t, j->estimate);
	if (t != SIM_TIME_MAX)
		promise(sim, c, j, t);
	return false;
}

/* The job's promise if it is now or still to come; SIM_TIME_NONE if it
 * has none, or if its time has passed without a start (a running job past
 * its estimate held the room, or on a cluster with GPUs its CPUs did not
 * fit): such a job is planned again, but not before the promises to
 * come, which it must not push. */
static sim_time_t to_come(struct sim *sim, const struct job *j)
{
	sim_time_t t = sim_job_promised(sim, j);
	return t != SIM_TIME_NONE && t >= sim_now(sim) ? t : SIM_TIME_NONE;
}

/* Under compress_on = "end", a job whose promise is now is started
 * when it fits, in the room its reservation holds, without asking the
 * profile again (which, with "schedule_on": "event", still counts a job
 * ending at this time that is not applied yet); else it keeps its
 * promise.  Returns true when the job started. */
static bool due_now(struct sim *sim, struct cons *c, struct profile *p,
		    const struct job *j)
{
	sim_time_t now = sim_now(sim);
	if (!sim_job_fits(sim, j))
		return false;
	profile_release(p, j, now, j->estimate);
	if (start(sim, c, j) == 0) {
		profile_reserve(p, j, now, j->estimate);
		return true;
	}
	profile_reserve_again(p, j, now, j->estimate);
	return false;
}

/* Plans the jobs without a promise, in queue order from position from
 * (the new jobs, and any that fit nowhere yet), noting what a quiet
 * pass needs. */
static void place_new(struct sim *sim, struct cons *c, struct profile *p,
		      size_t from)
{
	for (size_t i = from; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		sim_time_t at;
		if (sim_job_promised(sim, j) != SIM_TIME_NONE) {
			i++;
			continue;
		}
		if (plan(sim, c, p, j, SIM_TIME_NONE, &at))
			continue; /* j left the queue: i names the next */
		if (at == SIM_TIME_MAX)
			c->quiet = false; /* unpromised, so not at the tail */
		else if (at < c->soonest)
			c->soonest = at;
		i++;
	}
	size_t n = sim_queue_len(sim);
	c->qlen = n;
	c->last = n ? sim_queue_at(sim, n - 1)->idx : 0;
}

/* Moves the promised jobs, in queue order (compress_on = "pass", no
 * VCs at all, or after an end), noting whether one moved or missed. */
static void compress_promised(struct sim *sim, struct cons *c,
			      struct profile *p, bool all)
{
	sim_time_t now = sim_now(sim);
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		sim_time_t t = to_come(sim, j), at;
		if (t != SIM_TIME_NONE && c->on_end && (t == now || !all)) {
			if (t == now && due_now(sim, c, p, j))
				continue; /* j left the queue */
			i++;
			continue;
		}
		if (t != SIM_TIME_NONE && c->movable && t > now &&
		    !profile_earlier(p, j, t, j->estimate)) {
			/* plan() would take t again */
			if (t < c->soonest)
				c->soonest = t;
			i++;
			continue;
		}
		if (t != SIM_TIME_NONE) {
			profile_release(p, j, t, j->estimate);
		} else if (sim_job_promised(sim, j) == SIM_TIME_NONE) {
			i++;
			continue;
		} else {
			c->quiet = false; /* missed: planned again */
		}
		if (plan(sim, c, p, j, t, &at)) {
			if (t != now)
				c->quiet = false; /* started before its promise */
			continue;
		}
		if (at != t)
			c->quiet = false;
		else if (at < c->soonest)
			c->soonest = at;
		i++;
	}
}

/* Can this pass keep the last one's profile and promises (above)? */
static struct profile *kept_profile(struct sim *sim, const struct cons *c)
{
	size_t n = sim_queue_len(sim);
	if (!c->quiet || c->ended || c->soonest <= sim_now(sim) ||
	    n < c->qlen || (c->qlen && sim_queue_at(sim, c->qlen - 1)->idx !=
				       c->last))
		return NULL;
	return sim_profile_kept(sim);
}

/* The profile the last pass left, with the room of the jobs that
 * ended since given back (sim_profile_kept): the promises in it are
 * what a build would put back, unless one has passed unstarted or was
 * not made by this policy (the hash differs). */
static struct profile *whole_profile(struct sim *sim, const struct cons *c)
{
	if (!c->whole)
		return NULL;
	uint64_t sum = 0;
	for (size_t i = 0; i < sim_queue_len(sim); i++) {
		const struct job *j = sim_queue_at(sim, i);
		sim_time_t t = sim_job_promised(sim, j);
		if (t != SIM_TIME_NONE && t < sim_now(sim))
			return NULL;
		if (t != SIM_TIME_NONE)
			sum ^= term(j, t);
	}
	return sum == c->sum ? sim_profile_kept(sim) : NULL;
}

static void compress_schedule(struct sim *sim, struct cons *c)
{
	struct profile *p = kept_profile(sim, c);
	if (p) { /* nothing to move: the new jobs only */
		place_new(sim, c, p, c->qlen);
		return;
	}
	p = whole_profile(sim, c);
	if (!p) { /* a build, and every promise put back */
		p = sim_profile(sim);
		c->sum = 0;
		for (size_t i = 0; i < sim_queue_len(sim); i++) {
			const struct job *j = sim_queue_at(sim, i);
			sim_time_t t = to_come(sim, j);
			if (t != SIM_TIME_NONE)
				profile_reserve_again(p, j, t, j->estimate);
			if (sim_job_promised(sim, j) != SIM_TIME_NONE)
				c->sum ^= term(j, sim_job_promised(sim, j));
		}
	}
	c->kept = SIM_TIME_MAX;
	c->whole = !sim_vc_count(sim);
	/* In queue order, each promised job moves as early as the others'
	 * promises let it; then the new jobs.  Under compress_on = "end",
	 * after a pass with no end only the promises that are due now (or
	 * passed) are planned: the others keep theirs; and a promise due
	 * now starts in its own room or waits there (due_now). */
	bool all = !c->on_end || c->ended;
	c->ended = false;
	c->quiet = !c->on_end && !sim_vc_count(sim);
	c->soonest = SIM_TIME_MAX;
	compress_promised(sim, c, p, all);
	place_new(sim, c, p, 0);
	if (c->kept != SIM_TIME_MAX && c->kept > sim_now(sim) &&
	    c->kept != c->armed &&
	    sim_wakeup_at(sim, c->kept) == 0)
		c->armed = c->kept;
}

static int conservative_init(struct sim *sim, void **state,
			     struct sim_error *err)
{
	const char *replan = sim_param_str(sim, "replan");
	const char *on = sim_param_str(sim, "compress_on");
	const char *which = sim_param_str(sim, "compress");
	struct cons *c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	*state = c;
	c->armed = SIM_TIME_NONE;
	if (strcmp(replan, "compress") == 0) {
		c->compress = true;
	} else if (strcmp(replan, "scratch") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "replan must be 'compress' or 'scratch', got '%s'",
			 replan);
		return -1;
	}
	if (strcmp(on, "end") == 0) {
		c->on_end = true;
	} else if (strcmp(on, "pass") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "compress_on must be 'pass' or 'end', got '%s'", on);
		return -1;
	}
	if (strcmp(which, "movable") == 0) {
		c->movable = true;
	} else if (strcmp(which, "all") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "compress must be 'movable' or 'all', got '%s'", which);
		return -1;
	}
	return 0;
}

static void conservative_finished(struct sim *sim, void *state,
				  const struct job *job)
{
	struct cons *c = state;
	c->ended = true;
}

static void conservative_fini(struct sim *sim, void *state)
{
	free(state);
}

static void conservative_schedule(struct sim *sim, void *state)
{
	struct cons *c = state;
	if (c->compress) {
		compress_schedule(sim, c);
		return;
	}
	if (!sim_vc_count(sim)) {
		sim_start_head(sim);
		if (sim_queue_len(sim) < 2)
			return;
	}
	sim_time_t now = sim_now(sim);
	struct profile *p = sim_profile(sim);
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		sim_time_t t = profile_earliest(p, j, j->estimate);
		/* The profile counts GPUs on a cluster with GPUs, not the
		 * CPUs a job may need too: the start is asked only when
		 * the job fits. */
		if (t == now && sim_job_fits(sim, j) &&
		    sim_job_start(sim, j) == 0) {
			profile_reserve(p, j, now, j->estimate);
			continue; /* j left the queue: i names the next */
		}
		profile_reserve(p, j, t, j->estimate);
		i++;
	}
}

static const struct policy_param conservative_params[] = {
	{ "replan", PARAM_STRING, "compress",
	  "\"compress\": reservations only move earlier (classic); "
	  "\"scratch\": re-planned in queue order, not conservative" },
	{ "compress_on", PARAM_STRING, "pass",
	  "replan = compress: \"pass\": compress at every scheduling "
	  "pass; \"end\": only at passes after a job ended (pyss)" },
	{ "compress", PARAM_STRING, "movable",
	  "replan = compress: \"movable\": re-plan only the promised jobs "
	  "that could move earlier; \"all\": re-plan every one (the same "
	  "schedule, slower)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(conservative,
	.summary = "conservative backfilling: every waiting job has a "
		   "reservation, never moved later; a job starts early only "
		   "if it delays none",
	.params = conservative_params,
	.init = conservative_init,
	.fini = conservative_fini,
	.job_finished = conservative_finished,
	.schedule = conservative_schedule);
