/*
 * The engine's invariant checker (on in tests and with --check): after
 * every timestamp, no resource over-committed, each job in exactly one
 * state, the queue and the running set in order with their keys up to
 * date, the event queue a heap.  A broken invariant is a bug of the
 * engine or the cluster model, never of the input: it aborts with a
 * message.
 */
#include "engine/sim_impl.h"

#include "base/util.h"

/* ---- Invariants ----------------------------------------------------- */

void sim_check_invariants(struct sim *s)
{
	struct sim_error e;
	if (evq_check(&s->q) != 0)
		SIM_BUG("event queue is not a heap at t=%lld", (long long)s->now);
	if (cluster_check(s->cluster, &e) != 0)
		SIM_BUG("cluster: %s", e.msg);
	uint64_t busy = 0;
	for (size_t i = 0; i < s->nrun; i++) {
		const struct job *j = &s->jobs[s->running[i].idx];
		if (s->running[i].end != planned_end(s, j))
			SIM_BUG("running set key out of date");
		if (j->state != JOB_RUNNING)
			SIM_BUG("job %lld in the running set is in state %d",
				(long long)j->id, j->state);
		if (i && !run_before(s, &s->jobs[s->running[i - 1].idx], j))
			SIM_BUG("running set out of order");
		const struct job *q = partner_of(s, j);
		if (q && (partner_of(s, q) != j || q->state != JOB_RUNNING ||
			  s->prog[q->idx].owner == s->prog[j->idx].owner))
			SIM_BUG("job %lld's GPU sharing is not mutual",
				(long long)j->id);
		busy += j->cpus; /* each of a GPU-sharing pair its own */
	}
	if (!cluster_exclusive(s->cluster) && busy != s->busy_cpus)
		SIM_BUG("busy CPUs %llu, running jobs hold %llu",
			(unsigned long long)s->busy_cpus,
			(unsigned long long)busy);
	if (units_free(s->cluster) > units_capacity(s->cluster))
		SIM_BUG("more free units than capacity");
	uint64_t qcpus = 0;
	const uint32_t *q = s->queue ? s->queue + s->qhead : NULL;
	for (size_t i = 0; i < s->qlen; i++) {
		const struct job *j = &s->jobs[q[i]];
		if (j->state != JOB_PENDING)
			SIM_BUG("job %lld in the queue is in state %d",
				(long long)j->id, j->state);
		if (i && queue_cmp(s, &s->jobs[q[i - 1]], j) >= 0)
			SIM_BUG("pending queue out of order");
		qcpus += j->cpus;
	}
	if (qcpus != s->queued_cpus)
		SIM_BUG("queued CPUs do not add up");
	/* Every submitted job is in exactly one state. */
	if (s->next_submit != s->qlen + s->nrun + s->ended)
		SIM_BUG("%zu jobs submitted but %zu pending + %zu running + "
			"%zu ended", s->next_submit, s->qlen, s->nrun, s->ended);
}
