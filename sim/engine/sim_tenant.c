/*
 * The tenants' books (docs/tenants.md): for a cluster with departments
 * and projects, what each one's running jobs hold now, in milli-GPUs (a
 * fractional job its gpu_milli), moved by every start and stop whatever
 * the policy; the GPU-time each held within its quota (guaranteed) and
 * above it (borrowed), as integrals of min(used, quota) and the rest
 * over time; the reclaims (a job preempted while its project held more
 * than its quota: it lost borrowed GPUs) and the work they lost; and the
 * log of every change, for the plot of each project's GPUs over time.
 *
 * They are shared engine machinery rather than the quota policy's: the
 * metrics need them for every policy that runs on a cluster with
 * tenants (a shared-pool FIFO run says how much each project borrowed
 * too), and the quota policy reads them through sim_tenant().
 *
 * Each job's project is bound once, here, from the field the experiment
 * names (cluster_tenants_bind; the runner has already refused a job of
 * no project, so one left unbound here is counted nowhere).  Jobs drawn
 * interactive (workload.interactive_fraction) are drawn from the run's
 * seed and the job's index alone: the same jobs for a seed, whatever the
 * policy.
 */
#include "engine/sim_impl.h"

#include <string.h>

#include "base/splitmix.h"
#include "base/util.h"

const struct tenant_books *sim_tenant_books(const struct sim *s)
{
	return s->tenants;
}

/* Jobs drawn interactive: a uniform draw per job below the fraction;
 * never a job larger than its project's quota (an interactive job runs
 * within quota only: it could never start). */
static void draw_kinds(struct sim *s, const struct tenant_books *b)
{
	double f = s->cfg.interactive_fraction;
	if (!(f > 0))
		return;
	for (size_t i = 0; i < s->njobs; i++) {
		int32_t t = b->job_tenant[i];
		if (t < 0 || sim_job_milli(s, &s->jobs[i]) > b->pub[t].quota)
			continue;
		uint64_t z = splitmix64_stream(s->cfg.seed ^ UINT64_C(0x7e4a),
					       i);
		if ((double)(z >> 11) * 0x1.0p-53 < f)
			s->jobs[i].flags |= JOB_INTERACTIVE;
	}
}

void sim_tenant_init(struct sim *s)
{
	const struct cluster_spec *cs = s->cfg.cluster;
	if (!cs || !cs->ntenants)
		return;
	struct tenant_books *b = xcalloc(1, sizeof(*b));
	size_t n = cs->ntenants;
	b->n = n;
	b->spec = cs->tenants;
	b->job_tenant = xmalloc((s->njobs ? s->njobs : 1) *
				sizeof(*b->job_tenant));
	for (size_t i = 0; i < s->njobs; i++)
		b->job_tenant[i] = -1;
	struct sim_error e;
	const struct workload *w = s->cfg.workload;
	(void)cluster_tenants_bind(cs, (enum tenant_from)s->cfg.project_from,
				   s->jobs, s->njobs, w->groups, w->ngroups,
				   "", b->job_tenant, &e);
	b->gpu_s_guaranteed = xcalloc(n, sizeof(double));
	b->gpu_s_borrowed = xcalloc(n, sizeof(double));
	b->reclaims = xcalloc(n, sizeof(uint64_t));
	b->reclaim_lost_gpu_s = xcalloc(n, sizeof(double));
	b->last = xcalloc(n, sizeof(sim_time_t));
	b->lost_seen = xcalloc(s->njobs ? s->njobs : 1, sizeof(double));
	b->pub = xcalloc(n, sizeof(*b->pub));
	for (size_t t = 0; t < n; t++) {
		const struct tenant_spec *sp = &cs->tenants[t];
		b->pub[t] = (struct sim_tenant){
			.name = sp->name, .parent = sp->parent,
			.quota = sp->quota, .borrow_limit = sp->borrow_limit,
			.lend_limit = sp->lend_limit, .weight = sp->weight,
		};
	}
	s->tenants = b;
	draw_kinds(s, b);
}

void sim_tenant_release(struct sim *s)
{
	struct tenant_books *b = s->tenants;
	if (!b)
		return;
	free(b->job_tenant);
	free(b->gpu_s_guaranteed);
	free(b->gpu_s_borrowed);
	free(b->reclaims);
	free(b->reclaim_lost_gpu_s);
	free(b->log);
	free(b->pub);
	free(b->last);
	free(b->lost_seen);
	free(b);
	s->tenants = NULL;
}

uint64_t sim_job_milli(const struct sim *s, const struct job *j)
{
	(void)s;
	return j->gpus ? (uint64_t)j->gpus * 1000 : j->gpu_milli;
}

/* Tenant t's integrals brought up to now, then its holding moved by
 * delta (signed), logged. */
static void move(struct sim *s, struct tenant_books *b, uint32_t t,
		 int64_t delta)
{
	struct sim_tenant *p = &b->pub[t];
	double dt = (double)(s->now - b->last[t]) / SIM_SEC;
	uint64_t g = p->used < p->quota ? p->used : p->quota;
	b->gpu_s_guaranteed[t] += (double)g / 1000 * dt;
	b->gpu_s_borrowed[t] += (double)(p->used - g) / 1000 * dt;
	b->last[t] = s->now;
	p->used = (uint64_t)((int64_t)p->used + delta);
	if (b->nlog && b->log[b->nlog - 1].t == s->now &&
	    b->log[b->nlog - 1].tenant == t) {
		b->log[b->nlog - 1].used = p->used;
		return;
	}
	if (b->nlog == b->logcap) {
		b->logcap = b->logcap ? 2 * b->logcap : 1024;
		b->log = xrealloc(b->log, b->logcap * sizeof(*b->log));
	}
	b->log[b->nlog++] = (struct tenant_step){ s->now, t, p->used };
}

void sim_tenant_start(struct sim *s, const struct job *j)
{
	struct tenant_books *b = s->tenants;
	int32_t t = b ? b->job_tenant[j->idx] : -1;
	uint64_t d = sim_job_milli(s, j);
	if (t < 0 || !d)
		return;
	move(s, b, (uint32_t)t, (int64_t)d);
	if (b->pub[t].parent >= 0)
		move(s, b, (uint32_t)b->pub[t].parent, (int64_t)d);
}

/* A job that stops while still marked running is being preempted
 * (sim_job_preempt); one that ends is already finished or killed. */
void sim_tenant_stop(struct sim *s, const struct job *j)
{
	struct tenant_books *b = s->tenants;
	int32_t t = b ? b->job_tenant[j->idx] : -1;
	uint64_t d = sim_job_milli(s, j);
	if (t < 0 || !d)
		return;
	if (j->state == JOB_RUNNING && b->pub[t].used > b->pub[t].quota) {
		b->reclaims[t]++;
		b->reclaim_lost_gpu_s[t] += (j->lost_work -
					     b->lost_seen[j->idx]) *
					    (double)d / 1000;
	}
	b->lost_seen[j->idx] = j->lost_work;
	move(s, b, (uint32_t)t, -(int64_t)d);
	if (b->pub[t].parent >= 0)
		move(s, b, (uint32_t)b->pub[t].parent, -(int64_t)d);
}

/* ---- The policies' calls (policy.h) ---------------------------------- */

unsigned sim_tenant_count(const struct sim *s)
{
	return s->tenants ? (unsigned)s->tenants->n : 0;
}

const struct sim_tenant *sim_tenant(const struct sim *s, unsigned t)
{
	if (!s->tenants || t >= s->tenants->n)
		return NULL;
	return &s->tenants->pub[t];
}

int sim_job_tenant(const struct sim *s, const struct job *j)
{
	if (!s->tenants || !check_job(s, j, "sim_job_tenant"))
		return -1;
	return s->tenants->job_tenant[j->idx];
}

double sim_job_unsaved(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_unsaved") || j->state != JOB_RUNNING)
		return 0;
	double done = prog_work(s, j);
	double iv = (double)s->cfg.checkpoint_interval;
	double kept = iv > 0 ? floor(done / iv) * iv : done;
	if (s->resume && kept < s->resume[j->idx].kept)
		kept = s->resume[j->idx].kept;
	return done > kept ? done - kept : 0;
}
