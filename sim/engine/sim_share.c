/*
 * GPU sharing and migration (Gandiva's packing, time-slicing and
 * migration): two jobs on one placement, each at a share of its speed
 * alone, and a running job moved to fewer nodes.
 *
 * A pair shares GPUs, not CPUs.  It has an owner (the job whose GPUs
 * the cluster's books hold) and a guest, whose placement names the same
 * GPUs and CPUs of its own beside them (cluster_alloc_beside).  When
 * either stops, it gives back its own CPUs only, and the other keeps the
 * GPUs and runs alone again: the books never count a GPU twice, and each
 * running job holds the CPUs it asked for.
 */
#include "engine/sim_impl.h"

#include <math.h>

#include "base/util.h"
#include "speed/jobclass.h"

/* A running job stops (it ends, or is preempted): its fabric flow goes,
 * and its resources go back to the cluster - but, when it shares its
 * GPUs, only its CPUs: the GPUs stay with the other job of the pair,
 * which runs alone again. */
void sim_leave_resources(struct sim *s, struct job *j)
{
	struct job *q = partner_of(s, j);
	placelog_close(s, j);
	sim_tenant_stop(s, j);
	if (s->speed && j->gpus)
		speed_job_ended(s->speed, j);
	if (q) {
		struct progress *pq = &s->prog[q->idx];
		sim_prog_sync(s, q);
		if (s->prog[j->idx].owner)
			pq->owner = true;
		pq->partner = 0;
		pq->factor = 1.0;
		sim_set_weight(s, q, 1.0);
		s->prog[j->idx].partner = 0;
		s->prog[j->idx].owner = false;
		s->npairs--;
		cluster_release_cpus(s->cluster, &s->plc[j->idx]);
	} else {
		cluster_release(s->cluster, &s->plc[j->idx]);
	}
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	placement_release(&s->plc[j->idx]);
	if (s->speed && j->gpus)
		sim_update_rates(s);
	if (q)
		sim_apply_rate(s, q);
}


/* Could pending job cj join running job chost's GPUs now: the same GPU
 * count, a GPU type it may use, a host nobody shares, and its own CPUs
 * free beside those GPUs?  (Job pointers already checked.) */
static bool can_share(const struct sim *s, const struct job *cj,
		      const struct job *chost)
{
	return cj->state == JOB_PENDING && chost->state == JOB_RUNNING &&
	       cj->gpus && cj->gpus == chost->gpus &&
	       (!cj->gpu_type || cj->gpu_type == chost->gpu_type_used) &&
	       !partner_of(s, chost) &&
	       cluster_fits_beside(s->cluster, cj, &s->plc[chost->idx]);
}

bool sim_job_can_share(const struct sim *s, const struct job *job,
		       const struct job *host)
{
	return check_job(s, job, "sim_job_can_share") &&
	       check_job(s, host, "sim_job_can_share") &&
	       can_share(s, job, host);
}

int sim_job_start_shared(struct sim *s, const struct job *cj,
			 const struct job *chost, double factor,
			 double host_factor)
{
	if (!own_job(s, cj) || !own_job(s, chost) || !s->in_schedule ||
	    !can_share(s, cj, chost) || !(factor > 0 && factor <= 1) ||
	    !(host_factor > 0 && host_factor <= 1)) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx], *h = &s->jobs[chost->idx];
	sim_ensure_prog(s);
	sim_draw_class(s, j);
	/* The guest's placement: the host's GPUs and CPUs of its own, which
	 * it keeps with the GPUs when the host goes first. */
	int rc = cluster_alloc_beside(s->cluster, j, &s->plc[h->idx],
				      &s->plc[j->idx]);
	SIM_ASSERT(rc == 0);
	sim_begin_run(s, j);
	struct progress *pj = &s->prog[j->idx], *ph = &s->prog[h->idx];
	sim_prog_sync(s, h);
	pj->partner = h->idx + 1;
	ph->partner = j->idx + 1;
	pj->owner = false;
	ph->owner = true;
	pj->factor = factor;
	ph->factor = host_factor;
	sim_set_weight(s, j, 0.5);
	sim_set_weight(s, h, 0.5);
	s->npairs++;
	s->counters.shared_starts++;
	if (s->speed) {
		sim_speed_started(s, j);
		sim_note_service(s, j);
		sim_update_rates(s);
	}
	sim_apply_rate(s, j);
	sim_apply_rate(s, h);
	sim_notify(s, s->ops->job_started, j);
	return 0;
}


const struct job *sim_job_partner(const struct sim *s, const struct job *j)
{
	return check_job(s, j, "sim_job_partner") && j->state == JOB_RUNNING
		       ? partner_of(s, j)
		       : NULL;
}

/* Nodes a placement spans. */
static uint32_t placement_nodes(const struct placement *p)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->n; i++)
		n += p->slots[i].count;
	return n;
}

int sim_job_migrate(struct sim *s, const struct job *cj)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !s->in_schedule ||
	    !cj->gpus) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	struct job *j = &s->jobs[cj->idx];
	struct job *q = partner_of(s, j);
	struct placement to = { 0 };
	if (!cluster_fits(s->cluster, j) ||
	    cluster_alloc_gpus(s->cluster, j, PLACE_CONSOLIDATE, &s->rng,
			       &to) != 0) {
		placement_release(&to);
		return 0;
	}
	if (!q && placement_nodes(&to) >= placement_nodes(&s->plc[j->idx])) {
		cluster_release(s->cluster, &to); /* an exact undo */
		placement_release(&to);
		return 0;
	}
	sim_ensure_prog(s);
	struct progress *p = &s->prog[j->idx];
	/* It checkpoints where it is (nothing lost) and restores there. */
	sim_prog_sync(s, j);
	/* Service up to now was work, not restoring: count it first. */
	sim_set_weight(s, j, p->weight);
	p->hold = sim_time_after(s, s->now, (double)sim_restore_cost(s, j), j);
	if (s->speed)
		speed_job_ended(s->speed, j);
	if (q) {
		/* It leaves the pair: both run alone from now on, the other
		 * on the GPUs they shared. */
		struct progress *pq = &s->prog[q->idx];
		sim_prog_sync(s, q);
		pq->owner = true;
		pq->partner = p->partner = 0;
		pq->factor = p->factor = 1.0;
		p->owner = false;
		sim_set_weight(s, q, 1.0);
		sim_set_weight(s, j, 1.0);
		s->npairs--;
		cluster_release_cpus(s->cluster, &s->plc[j->idx]);
	} else {
		cluster_release(s->cluster, &s->plc[j->idx]);
	}
	placelog_close(s, j);
	placement_release(&s->plc[j->idx]);
	s->plc[j->idx] = to;
	placelog_open(s, j);
	sim_note_placement(s, j);
	s->busy_cpus = s->capacity_cpus - cluster_free_cpus(s->cluster);
	s->busy_gpus = s->capacity_gpus - cluster_free_gpus(s->cluster);
	s->counters.migrations++;
	j->restarts++;
	if (s->speed) {
		sim_speed_started(s, j);
		sim_update_rates(s);
	}
	sim_apply_rate(s, j);
	if (q)
		sim_apply_rate(s, q);
	return 1;
}

double sim_coloc_speed(const struct sim *s, const struct job *a,
		       const struct job *b)
{
	if (!check_job(s, a, "sim_coloc_speed") ||
	    !check_job(s, b, "sim_coloc_speed"))
		return NAN;
	const struct job *host = b->state == JOB_RUNNING ? b : a;
	if (host->state != JOB_RUNNING || !host->gpu_type_used)
		return NAN;
	const char *type = cluster_gpu_type_name(s->cluster,
						 host->gpu_type_used - 1u);
	int g = type ? jobclass_gpu_lookup(type, NULL) : -1;
	if (g < 0)
		return NAN;
	unsigned ca = a->job_class, cb = b->job_class;
	if (s->speed && s->cfg.speed->draw_classes) {
		/* A pending job's class is drawn when it starts. */
		if (ca == JOB_CLASS_NONE && speed_job_has_class(a))
			ca = speed_draw_class(s->cfg.seed, a->idx);
		if (cb == JOB_CLASS_NONE && speed_job_has_class(b))
			cb = speed_draw_class(s->cfg.seed, b->idx);
	}
	return jobclass_coloc_speed(ca, cb, g, a->gpus);
}

