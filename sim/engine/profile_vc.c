/*
 * The free-resource profile on a cluster partitioned into virtual clusters
 * (docs/philly.md): what backfilling plans with when a job may use only
 * its own VC and the shared pool.
 *
 * The model.  P = VCs + 1 partitions (the last is the shared pool), and
 * one step function of free GPUs per partition over shared step times:
 * step i holds f[i][v] free GPUs of partition v during [t[i], t[i+1]).
 * A running job gives its GPUs back, at its expected end, to the
 * partitions its placement holds them in (read from the placement, node
 * by node).  A job of VC v may take GPUs of v and of the pool; a job of no
 * VC, of the pool only.
 *
 * The placement is not the profile's to choose: sim_job_start() places a
 * job of VC v anywhere in v and the pool, by the cluster's strategy, so
 * its split (a GPUs of v, d - a of the pool) is any that the free GPUs
 * allow.  To promise nothing that a placement could break, a job of VC v
 * with demand d that would start at t is planned for every such split:
 * with A = min(d, free of v at t) and B = min(d, free of the pool at t)
 * (the most it could take of each), it fits during [t, t + duration) when
 * A + B >= d (it fits at t) and v keeps A free and the pool keeps B free
 * at every step of the interval; a reservation takes A of v and B of the
 * pool for the interval (the "envelope" of its possible splits).
 *
 * What is exact and what is conservative:
 * - Running jobs: exact (their GPUs come back where they are).
 * - A job that can use one partition only (a pool job, or any job on a
 *   cluster without a pool, like experiments/philly-vc.json): A or B is
 *   0, the rule is the single-pool rule on its partition, exact.
 * - A started job: profile_reserve(job, now, ...) of a job that is
 *   running takes exactly the GPUs it holds, partition by partition.
 * - A job of a VC with a pool that is not started: conservative.  Its
 *   fit asks A + B - d more GPUs than it takes (none when one partition
 *   alone cannot hold it), and its reservation takes them too.  In
 *   exchange no split the placement may pick breaks a reservation made
 *   before, nor one made after it against its envelope.  A fixed split
 *   (own VC first, the rest from the pool) would be exact only if the
 *   placement took the own VC first, which no strategy promises; a
 *   split that changes over time (the per-instant flow bound, sum over
 *   VCs of the overflow into the pool) is not what a placed job can do.
 * - GPU types are not partitions here (as in the single-pool profile).
 * Before any reservation, each partition's steps never decrease, so for
 * one job (EASY's head) the envelope rule is exact too: A and B are what
 * is free at t, and they stay free.
 *
 * Built eagerly (each running job folded in at build, P values a step):
 * the single-pool profile (profile.c), which is benchmarked, stays as it
 * was; this one is used only on clusters with VCs.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/profile_vc.h"
#include "base/util.h"

struct pprof {
	sim_time_t *t;       /* step start times, ascending, t[0] = now */
	int64_t *f;          /* free GPUs: f[i * np + v], step i, part v */
	size_t n, cap;       /* steps, allocated steps */
	uint32_t np;         /* partitions: VCs + 1, the pool last */
	uint64_t *capv;      /* GPUs of each partition */
	int64_t *hold;       /* scratch: a job's GPUs by partition */
	const struct cluster *cluster; /* for VCs of jobs and nodes */
	const struct placement *plc;   /* running jobs' placements */
	sim_time_t now;
	/* Reservations since the build, for pprof_release: what each took
	 * of every partition (np values each, in held). */
	const struct job **rjob;       /* their jobs */
	sim_time_t *rt;                /* their starts */
	int64_t *held;                 /* rjob[k] took held[k * np + v] */
	size_t nres, rescap;           /* reservations, room */
	size_t rnext;                  /* where the next search starts */
	/* The split each waiting job was last reserved with, kept from
	 * build to build (by job index): a promise put back at the same
	 * time takes the same split, not one drawn from what is free now. */
	sim_time_t *kt;                /* when; SIM_TIME_NONE = none */
	int64_t *ka, *kb;              /* of its VC, of the pool */
	size_t kcap;                   /* entries */
};

struct pprof *pprof_new(void)
{
	return xcalloc(1, sizeof(struct pprof));
}

void pprof_free(struct pprof *pp)
{
	if (!pp)
		return;
	free(pp->t);
	free(pp->f);
	free(pp->capv);
	free(pp->hold);
	free(pp->rjob);
	free(pp->rt);
	free(pp->held);
	free(pp->kt);
	free(pp->ka);
	free(pp->kb);
	free(pp);
}

static void grow_steps(struct pprof *pp, size_t want)
{
	if (want <= pp->cap)
		return;
	size_t cap = want < 2 * pp->cap ? 2 * pp->cap : want;
	pp->t = xrealloc(pp->t, cap * sizeof(*pp->t));
	pp->f = xrealloc(pp->f, cap * pp->np * sizeof(*pp->f));
	pp->cap = cap;
}

static int64_t *row(const struct pprof *pp, size_t i)
{
	return &pp->f[i * pp->np];
}

/* The partition of a job's own VC: np - 1 (the pool) for none. */
static uint32_t own_part(const struct pprof *pp, const struct job *j)
{
	int v = cluster_job_vc(pp->cluster, j);
	return v < 0 ? pp->np - 1 : (uint32_t)v;
}

/* The GPUs a running job holds, by partition, into pp->hold. */
static void holdings(struct pprof *pp, const struct job *j)
{
	const struct placement *pl = &pp->plc[j->idx];
	memset(pp->hold, 0, pp->np * sizeof(*pp->hold));
	for (uint32_t i = 0; i < pl->n; i++) {
		int v = cluster_node_vc(pp->cluster, pl->slots[i].node);
		pp->hold[v < 0 ? pp->np - 1 : (uint32_t)v] +=
			(int64_t)pl->slots[i].gpus * pl->slots[i].count;
	}
}

/* Makes t the start of a step (t >= t[0]); returns that step. */
static size_t split_at(struct pprof *pp, sim_time_t t);

void pprof_build(struct pprof *pp, const struct cluster *c, sim_time_t now,
		 const struct job *jobs, const struct run_entry *running,
		 size_t n, const struct placement *plc)
{
	uint32_t np = cluster_vc_count(c) + 1;
	if (np != pp->np) {
		free(pp->capv);
		free(pp->hold);
		free(pp->f);
		free(pp->t);
		pp->t = NULL;
		pp->f = NULL;
		pp->cap = 0;
		pp->np = np;
		pp->capv = xcalloc(np, sizeof(*pp->capv));
		pp->hold = xcalloc(np, sizeof(*pp->hold));
		free(pp->held);
		pp->held = NULL;
		free(pp->rjob);
		pp->rjob = NULL;
		free(pp->rt);
		pp->rt = NULL;
		pp->rescap = 0;
	}
	pp->nres = pp->rnext = 0;
	pp->cluster = c;
	pp->plc = plc;
	pp->now = now;
	grow_steps(pp, 1);
	pp->t[0] = now;
	pp->n = 1;
	for (uint32_t v = 0; v < np; v++) {
		int idx = v + 1 < np ? (int)v : -1;
		pp->capv[v] = cluster_vc_gpus(c, idx);
		row(pp, 0)[v] = (int64_t)cluster_vc_free_gpus(c, idx);
	}
	/* Sorted by expected end, clamped to now + 1 (profile.c). */
	for (size_t k = 0; k < n; k++) {
		const struct job *j = &jobs[running[k].idx];
		sim_time_t e = running[k].end > now ? running[k].end : now + 1;
		if (e != pp->t[pp->n - 1]) {
			grow_steps(pp, pp->n + 1);
			pp->t[pp->n] = e;
			memcpy(row(pp, pp->n), row(pp, pp->n - 1),
			       np * sizeof(*pp->f));
			pp->n++;
		}
		holdings(pp, j);
		for (uint32_t v = 0; v < np; v++)
			row(pp, pp->n - 1)[v] += pp->hold[v];
	}
}

/* The step that holds time t (t >= t[0]). */
static size_t step_at(const struct pprof *pp, sim_time_t t)
{
	size_t lo = 0, hi = pp->n; /* t[lo] <= t < t[hi] */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (pp->t[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static size_t split_at(struct pprof *pp, sim_time_t t)
{
	size_t k = step_at(pp, t), np = pp->np;
	if (pp->t[k] == t)
		return k;
	grow_steps(pp, pp->n + 1);
	memmove(&pp->t[k + 2], &pp->t[k + 1], (pp->n - k - 1) * sizeof(*pp->t));
	memmove(row(pp, k + 2), row(pp, k + 1),
		(pp->n - k - 1) * np * sizeof(*pp->f));
	pp->t[k + 1] = t;
	memcpy(row(pp, k + 1), row(pp, k), np * sizeof(*pp->f));
	pp->n++;
	return k + 1;
}

static sim_time_t end_of(sim_time_t t, sim_time_t d)
{
	return d > SIM_TIME_MAX - t ? SIM_TIME_MAX : t + d;
}

static uint64_t min_u(uint64_t a, int64_t b)
{
	return b <= 0 ? 0 : (uint64_t)b < a ? (uint64_t)b : a;
}

/* What a job would take of its own VC (*a) and of the pool (*b) when it
 * starts in step i: the envelope of its splits (top of file). */
static void envelope(const struct pprof *pp, const struct job *j, size_t i,
		     uint32_t v, int64_t *a, int64_t *b)
{
	uint64_t d = units_demand(pp->cluster, j);
	uint32_t pool = pp->np - 1;
	if (v == pool) {
		*a = 0;
		*b = (int64_t)d;
		return;
	}
	*a = (int64_t)min_u(d, row(pp, i)[v]);
	*b = (int64_t)min_u(d, row(pp, i)[pool]);
}

/*
 * Does the job fit during [t[i]..end) when it starts in step i?  Returns
 * the first step of the interval that is short, or n when it fits.
 */
static size_t first_short(const struct pprof *pp, const struct job *j,
			  size_t i, sim_time_t end)
{
	uint32_t v = own_part(pp, j), pool = pp->np - 1;
	int64_t a, b;
	envelope(pp, j, i, v, &a, &b);
	if ((uint64_t)(a + b) < units_demand(pp->cluster, j))
		return i;
	for (size_t k = i; k < pp->n && (k == i || pp->t[k] < end); k++)
		if ((a && row(pp, k)[v] < a) || (b && row(pp, k)[pool] < b))
			return k;
	return pp->n;
}

uint64_t pprof_free_at(struct pprof *pp, sim_time_t t)
{
	SIM_ASSERT(t >= pp->t[0]);
	const int64_t *f = row(pp, step_at(pp, t));
	int64_t s = 0;
	for (uint32_t v = 0; v < pp->np; v++)
		s += f[v] > 0 ? f[v] : 0;
	return (uint64_t)s;
}

bool pprof_fits(struct pprof *pp, const struct job *job, sim_time_t t,
		sim_time_t duration)
{
	SIM_ASSERT(t >= pp->t[0]);
	size_t i = step_at(pp, t);
	return first_short(pp, job, i, end_of(t, duration)) == pp->n;
}

sim_time_t pprof_earliest(struct pprof *pp, const struct job *job,
			  sim_time_t duration)
{
	uint32_t v = own_part(pp, job), pool = pp->np - 1;
	uint64_t d = units_demand(pp->cluster, job);
	if (d > pp->capv[pool] + (v == pool ? 0 : pp->capv[v]))
		return SIM_TIME_MAX;
	for (size_t i = 0; i < pp->n;) {
		size_t k = first_short(pp, job, i,
				       end_of(pp->t[i], duration));
		if (k == pp->n)
			return pp->t[i];
		/* A step short even of the whole demand fails every start up
		 * to it; otherwise only this start is known to fail. */
		const int64_t *f = row(pp, k);
		int64_t all = f[pool] > 0 ? f[pool] : 0;
		if (v != pool && f[v] > 0)
			all += f[v];
		i = (uint64_t)all < d ? k + 1 : i + 1;
	}
	return SIM_TIME_MAX; /* only when reservations overfill forever */
}

/* Remembers the split a waiting job was reserved with at t. */
static void keep_split(struct pprof *pp, const struct job *job, sim_time_t t,
		       int64_t a, int64_t b)
{
	if (job->idx >= pp->kcap) {
		size_t cap = pp->kcap, want = (size_t)job->idx + 1;
		xgrow(&pp->kt, &cap, want, sizeof(*pp->kt));
		size_t c2 = pp->kcap;
		xgrow(&pp->ka, &c2, want, sizeof(*pp->ka));
		c2 = pp->kcap;
		xgrow(&pp->kb, &c2, want, sizeof(*pp->kb));
		for (size_t k = pp->kcap; k < cap; k++)
			pp->kt[k] = SIM_TIME_NONE;
		pp->kcap = cap;
	}
	pp->kt[job->idx] = t;
	pp->ka[job->idx] = a;
	pp->kb[job->idx] = b;
}

void pprof_reserve(struct pprof *pp, const struct job *job, sim_time_t t,
		   sim_time_t duration)
{
	pprof_reserve_kept(pp, job, t, duration, false);
}

void pprof_reserve_kept(struct pprof *pp, const struct job *job,
			sim_time_t t, sim_time_t duration, bool again)
{
	SIM_ASSERT(t >= pp->t[0] && duration >= 0);
	if (duration == 0)
		return;
	uint32_t v = own_part(pp, job), pool = pp->np - 1;
	sim_time_t end = end_of(t, duration);
	size_t i = split_at(pp, t);
	if (end != SIM_TIME_MAX)
		split_at(pp, end);
	if (job->state == JOB_RUNNING && t == pp->now) {
		holdings(pp, job); /* started now: exactly what it holds */
	} else {
		int64_t a, b;
		if (again && job->idx < pp->kcap && pp->kt[job->idx] == t) {
			a = pp->ka[job->idx];
			b = pp->kb[job->idx];
		} else {
			envelope(pp, job, i, v, &a, &b);
			keep_split(pp, job, t, a, b);
		}
		memset(pp->hold, 0, pp->np * sizeof(*pp->hold));
		pp->hold[v] += a;
		pp->hold[pool] += b;
	}
	for (; i < pp->n && pp->t[i] < end; i++)
		for (uint32_t k = 0; k < pp->np; k++)
			row(pp, i)[k] -= pp->hold[k];
	if (pp->nres == pp->rescap) {
		size_t cap = pp->rescap;
		xgrow(&pp->rjob, &cap, pp->nres + 1, sizeof(*pp->rjob));
		cap = pp->rescap;
		xgrow(&pp->rt, &cap, pp->nres + 1, sizeof(*pp->rt));
		pp->held = xrealloc(pp->held,
				    cap * pp->np * sizeof(*pp->held));
		pp->rescap = cap;
	}
	pp->rjob[pp->nres] = job;
	pp->rt[pp->nres] = t;
	memcpy(&pp->held[pp->nres * pp->np], pp->hold,
	       pp->np * sizeof(*pp->held));
	pp->nres++;
}

/* The reservation of job at t, searched from where the last one was
 * found (a compression releases in the order it reserved); nres if
 * there is none. */
static size_t find_res(struct pprof *pp, const struct job *job,
		       sim_time_t t)
{
	for (size_t n = 0, k = pp->rnext; n < pp->nres; n++, k++) {
		if (k == pp->nres)
			k = 0;
		if (pp->rjob[k] == job && pp->rt[k] == t) {
			pp->rnext = k + 1 < pp->nres ? k + 1 : 0;
			return k;
		}
	}
	return pp->nres;
}

void pprof_release(struct pprof *pp, const struct job *job, sim_time_t t,
		   sim_time_t duration)
{
	size_t k = duration > 0 ? find_res(pp, job, t) : pp->nres;
	SIM_ASSERT(duration == 0 || k < pp->nres);
	if (k == pp->nres)
		return;
	const int64_t *h = &pp->held[k * pp->np];
	sim_time_t end = end_of(t, duration);
	for (size_t i = step_at(pp, t); i < pp->n && pp->t[i] < end; i++)
		for (uint32_t v = 0; v < pp->np; v++)
			row(pp, i)[v] += h[v];
	pp->rjob[k] = NULL; /* given back: never found again */
}
