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

/* The most an interactive job j of tenant t can hold within quota: its
 * project's quota or, with quotas per GPU type, that of the type it
 * requires, else of its project's largest type quota. */
static uint64_t interactive_cap(const struct tenant_books *b, int32_t t,
				const struct job *j)
{
	if (!b->ntypes)
		return b->pub[t].quota;
	const uint64_t *q = b->type_quota + (size_t)t * b->ntypes;
	if (j->gpu_type)
		return j->gpu_type <= b->ntypes ? q[j->gpu_type - 1] : 0;
	uint64_t most = 0;
	for (size_t y = 0; y < b->ntypes; y++)
		most = q[y] > most ? q[y] : most;
	return most;
}

/* Jobs drawn interactive: a uniform draw per job below the fraction;
 * never a job larger than it can hold within quota (an interactive job
 * runs within quota only: it could never start). */
static void draw_kinds(struct sim *s, const struct tenant_books *b)
{
	double f = s->cfg.interactive_fraction;
	if (!(f > 0))
		return;
	for (size_t i = 0; i < s->njobs; i++) {
		int32_t t = b->job_tenant[i];
		if (t < 0 || sim_job_milli(s, &s->jobs[i]) >
			     interactive_cap(b, t, &s->jobs[i]))
			continue;
		uint64_t z = splitmix64_stream(s->cfg.seed ^ UINT64_C(0x7e4a),
					       i);
		if ((double)(z >> 11) * 0x1.0p-53 < f)
			s->jobs[i].flags |= JOB_INTERACTIVE;
	}
}

/* Per-type books, when the tenants' amounts are per GPU type: each
 * tenant's entries put at the cluster's type indices (a type it does not
 * name: quota 0, no limits). */
static void init_types(struct sim *s, struct tenant_books *b)
{
	size_t n = b->n, ny = cluster_gpu_type_count(s->cluster);
	if (!n || !b->spec[0].per_type || !ny)
		return;
	b->ntypes = ny;
	const char **names = xcalloc(ny, sizeof(*names));
	for (size_t y = 0; y < ny; y++)
		names[y] = cluster_gpu_type_name(s->cluster, (uint32_t)y);
	b->type_name = names;
	b->type_quota = xcalloc(n * ny, sizeof(uint64_t));
	b->type_borrow = xcalloc(n * ny, sizeof(uint64_t));
	b->type_lend = xcalloc(n * ny, sizeof(uint64_t));
	b->type_used = xcalloc(n * ny, sizeof(uint64_t));
	b->type_gpu_s_guaranteed = xcalloc(n * ny, sizeof(double));
	b->type_gpu_s_borrowed = xcalloc(n * ny, sizeof(double));
	b->type_reclaims = xcalloc(n * ny, sizeof(uint64_t));
	b->job_type = xmalloc((s->njobs ? s->njobs : 1) * sizeof(int16_t));
	for (size_t t = 0; t < n; t++) {
		for (size_t y = 0; y < ny; y++) {
			const struct tenant_type *e =
				cluster_tenant_type(&b->spec[t], names[y]);
			b->type_quota[t * ny + y] = e ? e->quota : 0;
			b->type_borrow[t * ny + y] = e ? e->borrow_limit
						       : TENANT_NO_LIMIT;
			b->type_lend[t * ny + y] = e ? e->lend_limit
						     : TENANT_NO_LIMIT;
		}
		b->pub[t].type_quota = b->type_quota + t * ny;
		b->pub[t].type_borrow_limit = b->type_borrow + t * ny;
		b->pub[t].type_lend_limit = b->type_lend + t * ny;
		b->pub[t].type_used = b->type_used + t * ny;
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
	(void)workload_bind_tenants(w, cs, s->cfg.project_from, "",
				    b->job_tenant, &e);
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
	init_types(s, b);
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
	free((void *)b->type_name);
	free(b->type_quota);
	free(b->type_borrow);
	free(b->type_lend);
	free(b->type_used);
	free(b->type_gpu_s_guaranteed);
	free(b->type_gpu_s_borrowed);
	free(b->type_reclaims);
	free(b->job_type);
	free(b);
	s->tenants = NULL;
}

uint64_t sim_job_milli(const struct sim *s, const struct job *j)
{
	(void)s;
	return j->gpus ? (uint64_t)j->gpus * 1000 : j->gpu_milli;
}

/* Per-type integrals of tenant t over dt seconds, and its guaranteed
 * milli-GPUs now (the sum over types of min(used, quota)). */
static uint64_t type_integrals(struct tenant_books *b, uint32_t t, double dt)
{
	uint64_t g = 0;
	for (size_t y = 0; y < b->ntypes; y++) {
		size_t k = t * b->ntypes + y;
		uint64_t u = b->type_used[k], q = b->type_quota[k];
		uint64_t gy = u < q ? u : q;
		b->type_gpu_s_guaranteed[k] += (double)gy / 1000 * dt;
		b->type_gpu_s_borrowed[k] += (double)(u - gy) / 1000 * dt;
		g += gy;
	}
	return g;
}

/* Series t (a tenant, or past n a tenant's type: n + tenant * ntypes +
 * type) holds used from now on: logged, or the last step of the same
 * series at the same time overwritten. */
static void log_step(const struct sim *s, struct tenant_books *b, uint32_t t,
		     uint64_t used)
{
	for (size_t i = b->nlog; i-- > 0 && b->log[i].t == s->now;)
		if (b->log[i].tenant == t) {
			b->log[i].used = used;
			return;
		}
	if (b->nlog == b->logcap) {
		b->logcap = b->logcap ? 2 * b->logcap : 1024;
		b->log = xrealloc(b->log, b->logcap * sizeof(*b->log));
	}
	b->log[b->nlog++] = (struct tenant_step){ s->now, t, used };
}

/* Tenant t's integrals brought up to now, then its holding moved by
 * delta (signed), on GPU type ty (-1: none, or not per type), logged. */
static void move(struct sim *s, struct tenant_books *b, uint32_t t,
		 int64_t delta, int ty)
{
	struct sim_tenant *p = &b->pub[t];
	double dt = (double)(s->now - b->last[t]) / SIM_SEC;
	uint64_t g = p->used < p->quota ? p->used : p->quota;
	if (b->ntypes)
		g = type_integrals(b, t, dt);
	b->gpu_s_guaranteed[t] += (double)g / 1000 * dt;
	b->gpu_s_borrowed[t] += (double)(p->used - g) / 1000 * dt;
	b->last[t] = s->now;
	p->used = (uint64_t)((int64_t)p->used + delta);
	log_step(s, b, t, p->used);
	if (ty >= 0) {
		size_t k = t * b->ntypes + (size_t)ty;
		b->type_used[k] = (uint64_t)((int64_t)b->type_used[k] + delta);
		log_step(s, b, (uint32_t)(b->n + k), b->type_used[k]);
	}
}

/* The GPU type of a starting job's placement (its first node), -1 when
 * untyped or the books are not per type. */
static int placed_type(const struct sim *s, const struct tenant_books *b,
		       const struct job *j)
{
	const struct placement *plc = &s->plc[j->idx];
	if (!b->ntypes || !plc->n)
		return -1;
	return cluster_node_gpu_type(s->cluster, plc->slots[0].node);
}

void sim_tenant_start(struct sim *s, const struct job *j)
{
	struct tenant_books *b = s->tenants;
	int32_t t = b ? b->job_tenant[j->idx] : -1;
	uint64_t d = sim_job_milli(s, j);
	if (t < 0 || !d)
		return;
	int ty = placed_type(s, b, j);
	if (b->job_type)
		b->job_type[j->idx] = (int16_t)ty;
	move(s, b, (uint32_t)t, (int64_t)d, ty);
	if (b->pub[t].parent >= 0)
		move(s, b, (uint32_t)b->pub[t].parent, (int64_t)d, ty);
}

/* Does tenant t hold more than its quota (of type ty, per type)? */
static bool over_quota(const struct tenant_books *b, int32_t t, int ty)
{
	if (!b->ntypes)
		return b->pub[t].used > b->pub[t].quota;
	if (ty < 0) /* untyped GPUs: outside every quota */
		return true;
	size_t k = (size_t)t * b->ntypes + (size_t)ty;
	return b->type_used[k] > b->type_quota[k];
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
	int ty = b->job_type ? b->job_type[j->idx] : -1;
	if (j->state == JOB_RUNNING && over_quota(b, t, ty)) {
		b->reclaims[t]++;
		if (ty >= 0)
			b->type_reclaims[(size_t)t * b->ntypes + (size_t)ty]++;
		b->reclaim_lost_gpu_s[t] += (j->lost_work -
					     b->lost_seen[j->idx]) *
					    (double)d / 1000;
	}
	b->lost_seen[j->idx] = j->lost_work;
	move(s, b, (uint32_t)t, -(int64_t)d, ty);
	if (b->pub[t].parent >= 0)
		move(s, b, (uint32_t)b->pub[t].parent, -(int64_t)d, ty);
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

int sim_job_quota_type(const struct sim *s, const struct job *j)
{
	if (!s->tenants || !s->tenants->job_type ||
	    !check_job(s, j, "sim_job_quota_type") || j->state != JOB_RUNNING)
		return -1;
	return s->tenants->job_type[j->idx];
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
