/*
 * Slurm-style partitions and QOS in a run (docs/tenants.md, "Partitions
 * and QOS"): each job's partition and QOS, bound once from the trace
 * field the experiment names (cluster_slurm_bind; the runner has already
 * refused a job of no partition), the policies' views of both, and the
 * time limit at submit.
 *
 * The time limit: Slurm refuses at submit a job whose time limit is
 * above its partition's MaxTime (EnforcePartLimits, the default since
 * 2016), so here a job whose estimate (its time limit) is above its
 * partition's max_time is rejected at submit, counted per partition.
 * It is the engine's rather than a policy's, so that every policy's
 * run refuses the same jobs.  A job larger than its partition is
 * rejected at submit too, as one larger than the cluster is (Slurm
 * refuses it: "Requested node configuration is not available").
 */
#include "engine/sim_impl.h"

#include <string.h>

#include "base/util.h"

const struct slurm_books *sim_slurm_books(const struct sim *s)
{
	return s->slurm;
}

void sim_slurm_init(struct sim *s)
{
	const struct cluster_spec *cs = s->cfg.cluster;
	if (!cs || (!cs->nparts && !cs->nqos))
		return;
	struct slurm_books *b = xcalloc(1, sizeof(*b));
	size_t n = s->njobs ? s->njobs : 1;
	const struct workload *w = s->cfg.workload;
	struct sim_error e;
	b->spec = cs;
	b->job_part = xmalloc(n * sizeof(*b->job_part));
	b->job_qos = xmalloc(n * sizeof(*b->job_qos));
	for (size_t i = 0; i < n; i++)
		b->job_part[i] = b->job_qos[i] = -1;
	if (cluster_slurm_bind(cs, s->jobs, s->njobs, w ? w->qp : NULL,
			       NULL, NULL,
			       w ? w->groups : NULL, w ? w->ngroups : 0, "",
			       b->job_part, b->job_qos, &e))
		for (size_t i = 0; i < n; i++) /* the runner refused it */
			b->job_part[i] = b->job_qos[i] = -1;
	b->rejected_max_time = xcalloc(cs->nparts + 1, sizeof(uint64_t));
	b->parts = xcalloc(cs->nparts + 1, sizeof(*b->parts));
	/* A job is placed on its partition's nodes alone. */
	cluster_bind_parts(s->cluster, cs, b->job_part, s->njobs);
	for (size_t p = 0; p < cs->nparts; p++) {
		const struct part_spec *ps = &cs->parts[p];
		b->parts[p] = (struct sim_partition){
			.name = ps->name,
			.units = cluster_spec_part_units(cs, p),
			.max_time = ps->max_time,
			.priority_tier = ps->priority_tier,
			.priority_job_factor = ps->priority_job_factor,
			.preempt_requeue = ps->preempt_requeue,
		};
	}
	b->qos = xcalloc(cs->nqos + 1, sizeof(*b->qos));
	for (size_t q = 0; q < cs->nqos; q++) {
		const struct qos_spec *qs = &cs->qos[q];
		b->qos[q] = (struct sim_qos){
			.name = qs->name,
			.priority = qs->priority,
			.usage_factor = qs->usage_factor,
			.max_jobs_per_user = qs->max_jobs_per_user,
			.max_jobs_per_group = qs->max_jobs_per_group,
			.max_units_per_user = qs->max_units_per_user,
			.preempt = qs->preempt,
		};
	}
	s->slurm = b;
}

void sim_slurm_release(struct sim *s)
{
	struct slurm_books *b = s->slurm;
	for (unsigned p = 0; p < s->npprof; p++)
		profile_free(s->pprof[p]);
	free(s->pprof);
	free(s->ppsrc);
	free(s->ppheld);
	s->pprof = NULL;
	s->ppsrc = NULL;
	s->ppheld = NULL;
	s->npprof = 0;
	if (!b)
		return;
	free(b->job_part);
	free(b->job_qos);
	free(b->rejected_max_time);
	free(b->parts);
	free(b->qos);
	free(b);
	s->slurm = NULL;
}

bool sim_slurm_over_time(const struct sim *s, const struct job *j)
{
	int32_t p = s->slurm && j->idx < s->njobs ? s->slurm->job_part[j->idx]
						  : -1;
	return p >= 0 && s->slurm->parts[p].max_time &&
	       j->estimate > s->slurm->parts[p].max_time;
}

bool sim_slurm_refuse(struct sim *s, const struct job *j)
{
	int32_t p = s->slurm->job_part[j->idx];
	if (p >= 0 && sim_demand(s, j) > s->slurm->parts[p].units)
		return true; /* larger than its partition: can never fit */
	if (!sim_slurm_over_time(s, j))
		return false;
	s->slurm->rejected_max_time[p]++;
	s->counters.rejected_max_time++;
	return true;
}

unsigned sim_partition_count(const struct sim *sim)
{
	return sim->slurm ? (unsigned)sim->slurm->spec->nparts : 0;
}

const struct sim_partition *sim_partition(const struct sim *sim, unsigned p)
{
	return p < sim_partition_count(sim) ? &sim->slurm->parts[p] : NULL;
}

int sim_job_partition(const struct sim *sim, const struct job *job)
{
	if (!sim->slurm || !job || job->idx >= sim->njobs)
		return -1;
	return sim->slurm->job_part[job->idx];
}

unsigned sim_qos_count(const struct sim *sim)
{
	return sim->slurm ? (unsigned)sim->slurm->spec->nqos : 0;
}

const struct sim_qos *sim_qos(const struct sim *sim, unsigned q)
{
	return q < sim_qos_count(sim) ? &sim->slurm->qos[q] : NULL;
}

int sim_job_qos(const struct sim *sim, const struct job *job)
{
	if (!sim->slurm || !job || job->idx >= sim->njobs)
		return -1;
	return sim->slurm->job_qos[job->idx];
}

/* ---- one free-resource profile per partition -------------------------- */

/* t rounded up to a multiple of r after now (t itself when r <= 0 or
 * t <= now). */
static sim_time_t round_after(sim_time_t now, sim_time_t t, sim_time_t r)
{
	if (r <= 0 || t <= now)
		return t;
	sim_time_t k = (t - now + r - 1) / r;
	return k > (SIM_TIME_MAX - now) / r ? SIM_TIME_MAX : now + k * r;
}

uint64_t sim_partition_free(const struct sim *s, unsigned p)
{
	return p < sim_partition_count(s) ? cluster_part_free(s->cluster, p)
					  : 0;
}

/* The units running job j holds in partition p (all of its demand when
 * the run has no partitions). */
static uint64_t held_in(const struct sim *s, const struct job *j,
			unsigned p)
{
	if (!sim_partition_count(s))
		return units_demand(s->cluster, j);
	/* A job of a partition is placed on its nodes alone: all of its
	 * units there, none in a partition that shares no node with it. */
	int jp = s->slurm->job_part[j->idx];
	if (jp >= 0 && (unsigned)jp == p)
		return units_demand(s->cluster, j);
	if (jp >= 0 && !cluster_parts_overlap(s->cluster, (uint32_t)jp, p))
		return 0;
	return cluster_placement_units_in(s->cluster, &s->plc[j->idx], p);
}

uint64_t sim_job_units_in(const struct sim *s, const struct job *j,
			  unsigned p)
{
	if (!j || j->idx >= s->njobs || j != &s->jobs[j->idx] ||
	    j->state != JOB_RUNNING || p >= sim_partition_count(s))
		return 0;
	return held_in(s, j, p);
}

unsigned sim_partition_profiles(struct sim *s, sim_time_t resolution)
{
	unsigned np = sim_partition_count(s), n = np ? np : 1;
	if (s->npprof < n) {
		s->pprof = xrealloc(s->pprof, n * sizeof(*s->pprof));
		while (s->npprof < n)
			s->pprof[s->npprof++] = profile_new();
	}
	xgrow(&s->ppsrc, &s->ppcap, s->nrun ? s->nrun : 1, sizeof(*s->ppsrc));
	xgrow(&s->ppheld, &s->pphcap, s->nrun ? s->nrun : 1,
	      sizeof(*s->ppheld));
	for (unsigned p = 0; p < n; p++) {
		/* The running set is sorted by its planned ends, so the
		 * rounded expected ends keep its order.  A job on nodes
		 * that partitions share counts in each of them. */
		size_t k = 0;
		uint64_t held = 0;
		for (size_t i = 0; i < s->nrun; i++) {
			const struct job *j = &s->jobs[s->running[i].idx];
			uint64_t u = held_in(s, j, p);
			if (!u)
				continue;
			held += u;
			s->ppheld[k] = u;
			s->ppsrc[k++] = (struct run_entry){
				round_after(s->now, sim_expected_end(s, j),
					    resolution),
				j->idx };
		}
		uint64_t cap = np ? cluster_part_total(s->cluster, p)
				  : units_capacity(s->cluster);
		int64_t fr = np ? (int64_t)cluster_part_free(s->cluster, p)
				: (int64_t)cap - (int64_t)held;
		profile_build_units(s->pprof[p], s->cluster, s->now, s->jobs,
				    s->ppsrc, s->ppheld, k, fr, cap);
	}
	return n;
}

struct profile *sim_partition_profile(struct sim *s, unsigned p)
{
	if (p >= s->npprof) {
		s->counters.bad_calls++;
		return NULL;
	}
	return s->pprof[p];
}
