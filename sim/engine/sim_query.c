/*
 * What the engine answers without changing anything: a run's results, the
 * policy's read-only views of time, queue, running set and cluster, its
 * parameters, and the GPU types of a heterogeneous cluster - plus
 * sim_job_start_on, a start narrowed to one GPU type.
 */
#include "engine/sim_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/util.h"
#include "speed/jobclass.h"

const struct job *sim_jobs(const struct sim *s, size_t *n)
{
	*n = s->njobs;
	return s->jobs;
}

const struct sample *sim_samples(const struct sim *s, size_t *n)
{
	*n = s->nsamples;
	return s->samples;
}

void bad_query(const struct sim *s, const char *fmt, ...)
{
	struct sim *m = (struct sim *)s;
	m->counters.bad_calls++;
	if (m->bad_first[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->bad_first, sizeof(m->bad_first), fmt, ap);
	va_end(ap);
}

const char *sim_bad_call_first(const struct sim *s)
{
	return s->bad_first[0] ? s->bad_first : NULL;
}

const struct run_counters *sim_counters(const struct sim *s)
{
	return &s->counters;
}

uint64_t sim_capacity_cpus(const struct sim *s)
{
	return s->capacity_cpus;
}

const struct cluster *sim_cluster(const struct sim *s)
{
	return s->cluster;
}

uint64_t sim_capacity_gpus(const struct sim *s)
{
	return cluster_total_gpus(s->cluster);
}

uint64_t sim_capacity_nodes(const struct sim *s)
{
	return cluster_nodes(s->cluster);
}

/* ---- Calls a policy makes -------------------------------------------- */

sim_time_t sim_now(const struct sim *s)
{
	return s->now;
}

uint64_t sim_seed(const struct sim *s)
{
	return s->cfg.seed;
}

size_t sim_queue_len(const struct sim *s)
{
	return s->qlen;
}

size_t sim_job_count(const struct sim *s)
{
	return s->njobs;
}

const struct job *sim_queue_at(const struct sim *s, size_t i)
{
	if (i >= s->qlen) {
		bad_query(s, "called sim_queue_at(%zu) past the queue's %zu jobs", i,
			  s->qlen);
		return NULL;
	}
	return &s->jobs[s->queue[s->qhead + i]];
}

size_t sim_running_len(const struct sim *s)
{
	return s->nrun;
}

const struct job *sim_running_at(const struct sim *s, size_t i)
{
	if (i >= s->nrun) {
		bad_query(s, "called sim_running_at(%zu) past the %zu running jobs",
			  i, (size_t)s->nrun);
		return NULL;
	}
	return &s->jobs[s->running[i].idx];
}

sim_time_t sim_expected_end(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_expected_end"))
		return SIM_TIME_MAX;
	sim_time_t e = planned_end(s, j);
	return e > s->now ? e : s->now + 1;
}


uint64_t sim_free_units(const struct sim *s)
{
	return units_free(s->cluster);
}

uint64_t sim_demand(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_demand"))
		return 0;
	return units_demand(s->cluster, j);
}

bool sim_job_fits(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_fits"))
		return false;
	return cluster_fits(s->cluster, j);
}


/* The parameter a policy reads: declared, of that type; else NULL and a
 * bad call (the reader gets 0, false or NULL). */
/* The parameter name, declared with type (or, for a string, as a
 * file: its path is a string too). */
static const struct pval *param(const struct sim *s, const char *name,
				enum policy_param_type type)
{
	for (size_t i = 0; name && i < s->cfg.nparams; i++) {
		const struct pval *p = &s->cfg.params[i];
		if (strcmp(p->name, name) == 0) {
			if (p->type == type || (type == PARAM_STRING &&
						p->type == PARAM_FILE))
				return p;
			break;
		}
	}
	bad_query(s, "read parameter '%s', which it does not declare with "
		  "that type", name ? name : "(null)");
	return NULL;
}

int64_t sim_param_int(const struct sim *s, const char *name)
{
	const struct pval *p = param(s, name, PARAM_INT);
	return p ? p->i : 0;
}

double sim_param_double(const struct sim *s, const char *name)
{
	const struct pval *p = param(s, name, PARAM_DOUBLE);
	return p ? p->d : 0;
}

bool sim_param_bool(const struct sim *s, const char *name)
{
	const struct pval *p = param(s, name, PARAM_BOOL);
	return p && p->b;
}

const char *sim_param_str(const struct sim *s, const char *name)
{
	const struct pval *p = param(s, name, PARAM_STRING);
	return p ? p->s : NULL;
}

const char *sim_param_file(const struct sim *s, const char *name, size_t *len)
{
	const struct pval *p = param(s, name, PARAM_FILE);
	if (len)
		*len = p && p->data ? p->len : 0;
	return p ? p->data : NULL;
}


unsigned sim_vc_count(const struct sim *s)
{
	return cluster_vc_count(s->cluster);
}

int sim_job_vc(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_vc"))
		return -1;
	return cluster_job_vc(s->cluster, j);
}

/* ---- GPU types (policy.h): heterogeneity-aware policies --------------- */

unsigned sim_gpu_types(const struct sim *s)
{
	return cluster_gpu_type_count(s->cluster);
}

const char *sim_gpu_type_name(const struct sim *s, unsigned t)
{
	return t < sim_gpu_types(s) ? cluster_gpu_type_name(s->cluster, t)
				    : NULL;
}

uint64_t sim_gpu_type_capacity(const struct sim *s, unsigned t)
{
	return t < sim_gpu_types(s) ? cluster_gpu_type_total(s->cluster, t)
				    : 0;
}

uint64_t sim_gpu_type_free(const struct sim *s, unsigned t)
{
	return t < sim_gpu_types(s) ? cluster_gpu_type_free(s->cluster, t) : 0;
}

double sim_job_type_rate(const struct sim *s, const struct job *j,
			 unsigned t)
{
	if (!check_job(s, j, "sim_job_type_rate") || t >= sim_gpu_types(s))
		return 0;
	if (!s->speed || !j->gpus)
		return 1.0;
	int gpu = jobclass_ovr_gpu_lookup(s->cfg.speed->thr,
					  cluster_gpu_type_name(s->cluster, t),
					  NULL);
	if (j->llm && s->cfg.workload->nllm) /* its step-time speed */
		return speed_llm_type_rate(s->speed, j, gpu >= 0 ? gpu :
					   s->cfg.speed->ref_gpu);
	unsigned cls = j->job_class;
	if (cls == JOB_CLASS_NONE && s->cfg.speed->draw_classes &&
	    speed_job_has_class(j))
		cls = speed_draw_class(s->cfg.seed, j->idx); /* as at start */
	/* with the experiment's throughput overrides, as speed_rate */
	return speed_class_rate(cls, gpu, s->cfg.speed->ref_gpu,
				s->cfg.speed->thr);
}

bool sim_job_fits_on(const struct sim *s, const struct job *j, unsigned t)
{
	if (!check_job(s, j, "sim_job_fits_on") || !j->gpus || t >= sim_gpu_types(s) ||
	    (j->gpu_type && j->gpu_type != t + 1))
		return false;
	struct job only = *j;
	only.gpu_type = (uint16_t)(t + 1);
	return cluster_fits(s->cluster, &only);
}

int sim_job_start_on(struct sim *s, const struct job *cj, unsigned t)
{
	if (!own_job(s, cj) || cj->state != JOB_PENDING || !cj->gpus ||
	    t >= sim_gpu_types(s) || (cj->gpu_type && cj->gpu_type != t + 1)) {
		s->counters.bad_calls++;
		return -SIM_ESTATE;
	}
	/* The constraint narrowed to t for the placement, then restored. */
	struct job *j = &s->jobs[cj->idx];
	uint16_t own = j->gpu_type;
	j->gpu_type = (uint16_t)(t + 1);
	int rc = sim_job_start(s, j);
	j->gpu_type = own;
	return rc;
}

/* The GPU count answer of sim_job_fits_after (victims of type t, or
 * all when t < 0). */
static bool fits_by_count(const struct sim *s, const struct job *j,
			  const struct job *const *vict, size_t n, int t)
{
	uint64_t got = t < 0 ? cluster_free_gpus(s->cluster) * 1000
			     : sim_gpu_type_free(s, (unsigned)t) * 1000;
	for (size_t i = 0; i < n; i++)
		if (t < 0 || vict[i]->gpu_type_used == (uint16_t)(t + 1))
			got += sim_job_milli(s, vict[i]);
	return got >= sim_job_milli(s, j);
}

bool sim_job_fits_after(struct sim *s, const struct job *j,
			const struct job *const *vict, size_t n, int t)
{
	if (!check_job(s, j, "sim_job_fits_after") ||
	    j->state != JOB_PENDING || (t >= 0 &&
	    ((unsigned)t >= sim_gpu_types(s) ||
	    (j->gpu_type && j->gpu_type != t + 1))))
		return false;
	bool exact = true;
	for (size_t i = 0; i < n; i++) {
		if (!own_job(s, vict[i]) || vict[i]->state != JOB_RUNNING) {
			s->counters.bad_calls++;
			return false;
		}
		exact = exact && !partner_of(s, vict[i]) &&
			cluster_retakable(&s->plc[vict[i]->idx]);
	}
	if (!exact)
		return fits_by_count(s, j, vict, n, t);
	for (size_t i = 0; i < n; i++)
		cluster_release(s->cluster, &s->plc[vict[i]->idx]);
	struct job only = *j; /* a fractional job has no type to narrow */
	if (t >= 0 && j->gpus)
		only.gpu_type = (uint16_t)(t + 1);
	bool fits = cluster_fits(s->cluster, &only);
	for (size_t i = n; i-- > 0;)
		cluster_retake(s->cluster, &s->plc[vict[i]->idx]);
	return fits;
}
