/*
 * Promised starts: the reservations a policy keeps from one scheduling
 * pass to the next.
 *
 * Backfilling that plans every waiting job (conservative backfilling)
 * promises each job a start: the job may be helped to start earlier,
 * never pushed later.  The free-resource profile (profile.c) is rebuilt
 * at every pass, so what was promised has to outlive it: the engine keeps
 * one time per job, which the policy reads (sim_job_promised) to re-insert
 * its reservations and to compress them, and writes (sim_job_promise)
 * after each placement.
 *
 * The engine holds the policy to its word.  A promise still to come that
 * moves later is broken: it is counted in the run's counters
 * (promises_broken), and under --check the run stops with an error naming
 * the job, both times and when.  A promise whose time came without a
 * start is missed, counted apart (promises_missed) and not an error: the
 * profile plans with estimates, so a running job past its estimate holds
 * room it promised away, and on a cluster with GPUs it counts GPUs, not
 * the CPUs a job needs too; neither is the policy's doing.  A started
 * job's promise is kept and forgotten; a job that is preempted comes back
 * without one.
 */
#include "engine/sim_impl.h"

#include <stdlib.h>

#include "base/util.h"

sim_time_t sim_job_promised(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_promised"))
		return SIM_TIME_NONE;
	return s->promise ? s->promise[j->idx] : SIM_TIME_NONE;
}

int sim_job_promise(struct sim *s, const struct job *j, sim_time_t t)
{
	if (!check_job(s, j, "sim_job_promise"))
		return -SIM_ESTATE;
	if (j->state != JOB_PENDING || t < s->now) {
		bad_query(s, "promised job %lld a start %s",
			  (long long)j->id, j->state != JOB_PENDING ?
			  "while it is not waiting" : "in the past");
		return -SIM_ESTATE;
	}
	if (!s->promise) {
		s->promise = xcalloc(s->njobs, sizeof(*s->promise));
		for (size_t i = 0; i < s->njobs; i++)
			s->promise[i] = SIM_TIME_NONE;
	}
	sim_time_t was = s->promise[j->idx];
	if (was == SIM_TIME_NONE || t <= was) {
		/* kept, or moved earlier */
	} else if (was <= s->now) {
		s->counters.promises_missed++;
	} else {
		s->counters.promises_broken++;
		if (!s->broke.job)
			s->broke = (struct promise_break){
				(int64_t)j->idx + 1, was, t, s->now };
	}
	s->promise[j->idx] = t;
	return 0;
}

int sim_promise_error(const struct sim *s, struct sim_error *err)
{
	const struct job *j = &s->jobs[s->broke.job - 1];
	char was[32], now_at[32], at[32];
	fmt_time(was, s->broke.was);
	fmt_time(now_at, s->broke.now_at);
	fmt_time(at, s->broke.at);
	return err_setc(err, -SIM_ESTATE, "policy '%s' broke a promise "
			"(--check): job %lld's promised start moved later, "
			"from %s s to %s s, at time %s s", s->ops->name,
			(long long)j->id, was, now_at, at);
}
