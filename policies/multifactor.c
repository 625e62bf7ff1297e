/*
 * multifactor: Slurm's priority/multifactor with its backfill scheduler's
 * limits, over the partitions and QOS of the experiment.
 *
 * What it does: at every scheduling point each waiting job gets Slurm's
 * integer priority, the weighted sum of five factors (age, job size,
 * partition, QOS, fair-share; include/clustersim/multifactor.h has the
 * formulas and cites the plugin), and the jobs are ordered by their
 * partition's priority_tier, then priority, then submit time and id.
 * Then, as Slurm's two schedulers:
 *
 * 1. Main: jobs start in that order while they can be placed on free
 *    nodes of their partition (sim_job_fits); the first job of a partition that does not
 *    fit blocks the later jobs of that partition (Slurm's main scheduler
 *    stops looking at a partition once a job there cannot start).  A job
 *    held back by a QOS limit (max_jobs_per_user, max_jobs_per_group,
 *    max_units_per_user, counted over running jobs of that QOS) is
 *    skipped and blocks nobody.
 *    A job whose QOS may preempt others (its `preempt` list) that does
 *    not fit first preempts running jobs of those QOS in its partition,
 *    newest first, as few as make room; they wait again (requeued).
 *    Failing that, by partition tier (Slurm's preempt/partition_prio):
 *    running jobs of lower-tier partitions whose `preempt` is "requeue"
 *    that hold nodes of its partition, the same way.
 * 2. Backfill: the jobs are walked again in order, at most bf_max_job_test
 *    of them and at most bf_max_job_user per user (0: no limit).  Each
 *    gets the earliest time its partition's free-unit profile (the
 *    engine's, sim_partition_profiles; the running
 *    jobs until their expected ends, rounded up to bf_resolution_s) has
 *    room for it for its estimate.  At now: it starts.  Otherwise, within
 *    bf_window_s of now: a reservation, for the first such job of each
 *    partition (bf_reserve "easy", the default) or for each ("all", which
 *    is what Slurm's sched/backfill does); a job later than the window is
 *    neither started nor reserved.  A job started now never delays a
 *    reservation, since it must fit the profile around them.
 *
 * Fair-share, classic (fairshare "classic", the default): the accounts
 * are the cluster's tenants' projects when it has tenants (shares: their
 * weights), else the users (one share each, among the users seen so
 * far).  A running job charges its units times its QOS's usage_factor
 * per second to its account; usage decays continuously with half-life
 * half_life_s.  Fair Tree (fairshare "fair_tree"): the same usage goes
 * to the job's user association in the tree root -> departments ->
 * projects -> users (tenants' weights as shares, 1 per user), or root ->
 * users without tenants; the engine's sim_ftree ranks the users and the
 * factor is rank / user associations (include/clustersim/multifactor.h).  Slurm decays every
 * PriorityCalcPeriod (5 minutes); continuous decay is its limit.
 * Priorities are recomputed at every scheduling point, where Slurm
 * recomputes every PriorityCalcPeriod.
 *
 * Partitions are node sets, which may overlap (docs/tenants.md): the
 * engine places a job on its partition's nodes alone, and a partition's
 * profile holds what running jobs hold on its nodes, whoever's they are.
 * Without partitions the cluster is one partition.  All weights 0 (the defaults, as Slurm's)
 * order by submit time alone: FCFS with Slurm's backfill.
 *
 * Parameters (defaults as Slurm's): weight_age, weight_size,
 * weight_partition, weight_qos, weight_fairshare (PriorityWeight*, 0);
 * max_age_s (PriorityMaxAge, 7 days); half_life_s (PriorityDecayHalfLife,
 * 7 days); favor_small (PriorityFavorSmall, false); fairshare (classic
 * or fair_tree: PriorityFlags NO_FAIR_TREE or not); bf_window_s,
 * bf_resolution_s, bf_max_job_test, bf_max_job_user (the backfill
 * limits above); bf_reserve ("easy" or "all").
 *
 * Example (tests/test_multifactor.c): weight_age 1000, weight_size 1000,
 * max_age_s 3000.  A job that has waited 1000 s (age factor 1/3) and asks
 * a quarter of the cluster (size factor 0.25) has priority
 * 1000/3 + 250 = 583.33, truncated to 583; a job with every factor 0 has
 * 1, Slurm's floor.  With weight_size alone the larger of two waiting
 * jobs goes first although submitted later.
 *
 * Sources: Slurm's priority/multifactor and sched/backfill plugins and
 * their pages (slurm.schedmd.com/priority_multifactor.html,
 * sched_config.html: bf_window, bf_resolution, bf_max_job_test,
 * bf_max_job_user); Slurm's partition_mgr (PriorityTier orders jobs
 * before priority).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/multifactor.h"
#include "clustersim/policy.h"

/* A pending job and its sort key. */
struct mf_cand {
	const struct job *j;
	uint32_t tier, prio;
};

/* Open addressing from a 64-bit key (an account, a QOS and user, a QOS
 * and group) to a slot of the per-key arrays. */
struct mf_map {
	int64_t *key;
	uint32_t *val;
	size_t cap, n;
};

struct mf {
	struct mf_weights w;
	int64_t max_age_s;
	double half_life_s;
	bool favor_small;
	sim_time_t bf_window, bf_resolution;
	int64_t bf_max_job_test, bf_max_job_user;
	bool reserve_all;
	/* The cluster. */
	uint64_t nodes, cpus, gpus, cpn; /* cpn: CPUs per node, rounded */
	unsigned nparts;                 /* at least 1 */
	uint32_t max_pjf, max_qprio;
	bool tenants;
	/* Keyed counters: usage (accounts), running jobs and units (QOS
	 * limits). */
	struct mf_map map;
	double *usage, *rate, *share;
	uint64_t *jobs_run, *units_run;
	size_t kcap;
	double share_sum, usage_sum;
	sim_time_t last;                 /* usage brought to this time */
	/* Fair Tree (fairshare "fair_tree"): the association tree, and the
	 * account of each tenant (by tenant index); NULL when classic. */
	struct sim_ftree *ft;
	long *ft_acct;
	/* Scratch. */
	struct mf_cand *cand;
	size_t ccap;
	bool *blocked, *reserved;
};

static const struct policy_param mf_params[] = {
	{ "weight_age", PARAM_INT, "0", "PriorityWeightAge" },
	{ "weight_size", PARAM_INT, "0", "PriorityWeightJobSize" },
	{ "weight_partition", PARAM_INT, "0", "PriorityWeightPartition" },
	{ "weight_qos", PARAM_INT, "0", "PriorityWeightQOS" },
	{ "weight_fairshare", PARAM_INT, "0", "PriorityWeightFairshare" },
	{ "max_age_s", PARAM_DOUBLE, "604800",
	  "PriorityMaxAge: the wait at which the age factor reaches 1 (s)" },
	{ "half_life_s", PARAM_DOUBLE, "604800",
	  "PriorityDecayHalfLife of the fair-share usage (s); 0: no decay" },
	{ "favor_small", PARAM_BOOL, "false",
	  "PriorityFavorSmall: the size factor favours small jobs" },
	{ "bf_window_s", PARAM_DOUBLE, "86400",
	  "bf_window: how far ahead backfill plans (s)" },
	{ "bf_resolution_s", PARAM_DOUBLE, "60",
	  "bf_resolution: expected ends rounded up to this (s)" },
	{ "bf_max_job_test", PARAM_INT, "500",
	  "bf_max_job_test: jobs one backfill pass tests; 0: all" },
	{ "bf_max_job_user", PARAM_INT, "0",
	  "bf_max_job_user: jobs per user one pass tests; 0: no limit" },
	{ "fairshare", PARAM_STRING, "classic",
	  "the fair-share factor: classic (2^(-U/S) by account) or fair_tree "
	  "(Slurm's Fair Tree: rank of the user in the association tree)" },
	{ "bf_reserve", PARAM_STRING, "easy",
	  "reservations: easy (the first blocked job of each partition) or "
	  "all (every job tested, as Slurm's backfill)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

/* ---- keyed counters --------------------------------------------------- */

static uint64_t mf_hash(int64_t k)
{
	uint64_t z = (uint64_t)k + 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void *mf_grow(void *p, size_t n, size_t size)
{
	void *q = realloc(p, n * size);
	if (!q)
		abort();
	return q;
}

static void mf_map_grow(struct mf_map *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	int64_t *key = calloc(cap, sizeof(*key));
	uint32_t *val = calloc(cap, sizeof(*val));
	if (!key || !val)
		abort();
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->val[i])
			continue;
		size_t h = mf_hash(m->key[i]) & (cap - 1);
		while (val[h])
			h = (h + 1) & (cap - 1);
		key[h] = m->key[i];
		val[h] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
}

/* The slot of key k, made (zeroed) when new. */
static size_t mf_slot(struct mf *m, int64_t k)
{
	struct mf_map *mp = &m->map;
	if (2 * (mp->n + 1) > mp->cap)
		mf_map_grow(mp);
	size_t h = mf_hash(k) & (mp->cap - 1);
	while (mp->val[h] && mp->key[h] != k)
		h = (h + 1) & (mp->cap - 1);
	if (mp->val[h])
		return mp->val[h] - 1;
	mp->key[h] = k;
	mp->val[h] = (uint32_t)++mp->n;
	if (mp->n > m->kcap) {
		size_t cap = m->kcap ? 2 * m->kcap : 64;
		m->usage = mf_grow(m->usage, cap, sizeof(double));
		m->rate = mf_grow(m->rate, cap, sizeof(double));
		m->share = mf_grow(m->share, cap, sizeof(double));
		m->jobs_run = mf_grow(m->jobs_run, cap, sizeof(uint64_t));
		m->units_run = mf_grow(m->units_run, cap, sizeof(uint64_t));
		m->kcap = cap;
	}
	size_t s = mp->n - 1;
	m->usage[s] = m->rate[s] = m->share[s] = 0;
	m->jobs_run[s] = m->units_run[s] = 0;
	return s;
}

/* Keys: an account (0), a QOS's user (1) or group (2). */
static int64_t mf_key(int kind, int64_t q, int64_t id)
{
	return ((int64_t)kind << 60) ^ (q << 32) ^ (id & 0xffffffffll);
}

/* A job's account slot; a new account gets its shares. */
static size_t mf_account(struct sim *sim, struct mf *m, const struct job *j)
{
	int t = sim_job_tenant(sim, j);
	int64_t id = m->tenants ? t : j->user;
	size_t s = mf_slot(m, mf_key(0, 0, id));
	if (m->share[s] == 0) {
		const struct sim_tenant *st =
			m->tenants ? sim_tenant(sim, (unsigned)t) : NULL;
		m->share[s] = st ? st->weight : 1;
		m->share_sum += m->share[s];
	}
	return s;
}

/* ---- Fair Tree --------------------------------------------------------- */

/* The association tree: root -> departments -> projects -> users with
 * tenants (shares: the tenants' weights, 1 for a user), else root ->
 * users (1 share each). */
static void mf_ft_init(struct sim *sim, struct mf *m)
{
	m->ft = sim_ftree_new();
	unsigned nt = sim_tenant_count(sim);
	m->ft_acct = calloc(nt ? nt : 1, sizeof(long));
	if (!m->ft_acct)
		abort();
	for (unsigned t = 0; t < nt; t++) {
		const struct sim_tenant *st = sim_tenant(sim, t);
		long parent = st->parent >= 0 ? m->ft_acct[st->parent] : -1;
		m->ft_acct[t] = (long)sim_ftree_account(m->ft, parent,
							 st->weight);
	}
}

/* A job's user association: its user below its project (or the root),
 * made with one share when new. */
static size_t mf_ft_user(struct sim *sim, struct mf *m, const struct job *j)
{
	int t = m->tenants ? sim_job_tenant(sim, j) : -1;
	return sim_ftree_user(m->ft, t >= 0 ? m->ft_acct[t] : -1, j->user, 1);
}

/* Ranks the tree with the users of the n waiting jobs in it. */
static void mf_ft_rank(struct sim *sim, struct mf *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		mf_ft_user(sim, m, sim_queue_at(sim, i));
	sim_ftree_rank(m->ft);
}

/* ---- fair-share usage ------------------------------------------------- */

/* Brings every account's usage to now. */
static void mf_advance(struct sim *sim, struct mf *m)
{
	sim_time_t now = sim_now(sim);
	if (now <= m->last)
		return;
	double dt = (double)(now - m->last) / SIM_SEC;
	m->usage_sum = 0;
	for (size_t s = 0; s < m->map.n; s++) {
		m->usage[s] = mf_decay(m->usage[s], m->rate[s], dt,
				       m->half_life_s);
		m->usage_sum += m->usage[s];
	}
	if (m->ft)
		sim_ftree_advance(m->ft, dt, m->half_life_s);
	m->last = now;
}

static double mf_usage_factor(struct sim *sim, const struct job *j)
{
	int q = sim_job_qos(sim, j);
	return q >= 0 ? sim_qos(sim, (unsigned)q)->usage_factor : 1;
}

static unsigned mf_part(struct sim *sim, const struct job *j)
{
	int p = sim_job_partition(sim, j);
	return p >= 0 ? (unsigned)p : 0;
}

/* A job starts (+1) or stops (-1) holding its units. */
static void mf_hold(struct sim *sim, struct mf *m, const struct job *j,
		    int sign)
{
	mf_advance(sim, m);
	uint64_t d = sim_demand(sim, j);
	size_t a = mf_account(sim, m, j);
	m->rate[a] += sign * (double)d * mf_usage_factor(sim, j);
	if (sign < 0 && m->rate[a] < 1e-9)
		m->rate[a] = 0;
	if (m->ft)
		sim_ftree_add_rate(m->ft, mf_ft_user(sim, m, j),
				   sign * (double)d * mf_usage_factor(sim, j));
	int q = sim_job_qos(sim, j);
	if (q < 0)
		return;
	size_t u = mf_slot(m, mf_key(1, q, j->user));
	size_t g = mf_slot(m, mf_key(2, q, j->group));
	m->jobs_run[u] += sign > 0 ? 1 : -1;
	m->units_run[u] += sign > 0 ? d : -d;
	m->jobs_run[g] += sign > 0 ? 1 : -1;
}

static void mf_started(struct sim *sim, void *state, const struct job *j)
{
	mf_hold(sim, state, j, 1);
}

static void mf_stopped(struct sim *sim, void *state, const struct job *j)
{
	mf_hold(sim, state, j, -1);
}

/* May the job start under its QOS's limits? */
static bool mf_qos_ok(struct sim *sim, struct mf *m, const struct job *j)
{
	int q = sim_job_qos(sim, j);
	if (q < 0)
		return true;
	const struct sim_qos *qs = sim_qos(sim, (unsigned)q);
	size_t u = mf_slot(m, mf_key(1, q, j->user));
	size_t g = mf_slot(m, mf_key(2, q, j->group));
	return m->jobs_run[u] < qs->max_jobs_per_user &&
	       m->jobs_run[g] < qs->max_jobs_per_group &&
	       (qs->max_units_per_user == SIM_QOS_NO_LIMIT ||
		m->units_run[u] + sim_demand(sim, j) <= qs->max_units_per_user);
}

/* ---- the priority ----------------------------------------------------- */

static uint32_t mf_job_priority(struct sim *sim, struct mf *m,
				const struct job *j)
{
	struct mf_factors f = { 0, 0, 0, 0, 0 };
	sim_time_t now = sim_now(sim);
	f.age = mf_age_factor((now - j->submit) / SIM_SEC, m->max_age_s);
	uint64_t cpus = j->cpus, total = m->cpus;
	if (!cpus && j->gpus) { /* a GPU job: GPUs over the cluster's */
		cpus = j->gpus;
		total = m->gpus;
	}
	uint64_t mn = j->nodes ? j->nodes
		      : m->cpn && j->cpus ? (j->cpus + m->cpn - 1) / m->cpn : 1;
	f.size = mf_size_factor(mn, cpus, m->nodes, total, m->favor_small);
	int p = sim_job_partition(sim, j);
	if (p >= 0)
		f.partition = mf_norm(
			sim_partition(sim, (unsigned)p)->priority_job_factor,
			m->max_pjf);
	int q = sim_job_qos(sim, j);
	if (q >= 0)
		f.qos = mf_norm(sim_qos(sim, (unsigned)q)->priority,
				m->max_qprio);
	if (m->w.fairshare && m->ft) {
		f.fairshare = sim_ftree_factor(m->ft, mf_ft_user(sim, m, j));
	} else if (m->w.fairshare) {
		size_t a = mf_account(sim, m, j);
		double un = m->usage_sum > 0 ? m->usage[a] / m->usage_sum : 0;
		f.fairshare = mf_fairshare(un, m->share[a] / m->share_sum);
	}
	return mf_priority(&m->w, &f);
}

static int mf_cmp(const void *pa, const void *pb)
{
	const struct mf_cand *a = pa, *b = pb;
	if (a->tier != b->tier)
		return a->tier > b->tier ? -1 : 1;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	if (a->j->submit != b->j->submit)
		return a->j->submit < b->j->submit ? -1 : 1;
	return a->j->id < b->j->id ? -1 : a->j->id > b->j->id;
}

/* The waiting jobs, ranked; returns their count. */
static size_t mf_rank(struct sim *sim, struct mf *m)
{
	size_t n = sim_queue_len(sim);
	if (n > m->ccap) {
		m->ccap = 2 * n;
		m->cand = mf_grow(m->cand, m->ccap, sizeof(*m->cand));
	}
	if (m->ft && m->w.fairshare)
		mf_ft_rank(sim, m, n);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = sim_queue_at(sim, i);
		int p = sim_job_partition(sim, j);
		m->cand[i] = (struct mf_cand){
			.j = j,
			.tier = p >= 0 ? sim_partition(sim, (unsigned)p)
						 ->priority_tier : 0,
			.prio = mf_job_priority(sim, m, j),
		};
	}
	qsort(m->cand, n, sizeof(*m->cand), mf_cmp);
	return n;
}

/* ---- the passes ------------------------------------------------------- */

/* Rounds a time after now up to the resolution. */
static sim_time_t mf_round(const struct mf *m, sim_time_t now, sim_time_t t)
{
	sim_time_t r = m->bf_resolution;
	if (r <= 0 || t <= now)
		return t;
	return now + (t - now + r - 1) / r * r;
}

/* Placed on free nodes of its partition (the engine's rule). */
static bool mf_fits_part(struct sim *sim, const struct mf *m,
			 const struct job *j)
{
	(void)m;
	return sim_job_fits(sim, j);
}

/* Newest start first, then the larger id. */
static int mf_cmp_newest(const void *pa, const void *pb)
{
	const struct job *a = *(const struct job *const *)pa;
	const struct job *b = *(const struct job *const *)pb;
	if (a->start != b->start)
		return a->start > b->start ? -1 : 1;
	return a->id > b->id ? -1 : a->id < b->id;
}

/* May running job r be preempted for waiting job j of partition p:
 * by j's QOS (its preempt list names r's, both of partition p), or
 * by tier (r's partition has preempt "requeue" and a lower tier than
 * p, and r holds units on p's nodes)? */
static bool mf_victim(struct sim *sim, const struct job *j, unsigned p,
		      const struct job *r, bool by_tier)
{
	if (r->start >= sim_now(sim)) /* not one started at this time */
		return false;
	if (by_tier) {
		int rp = sim_job_partition(sim, r);
		const struct sim_partition *sp =
			rp >= 0 ? sim_partition(sim, (unsigned)rp) : NULL;
		return sp && sp->preempt_requeue &&
		       sp->priority_tier <
			       sim_partition(sim, p)->priority_tier &&
		       sim_job_units_in(sim, r, p) > 0;
	}
	int q = sim_job_qos(sim, j), rq = sim_job_qos(sim, r);
	return mf_part(sim, r) == p && rq >= 0 &&
	       (sim_qos(sim, (unsigned)q)->preempt >> rq & 1);
}

/*
 * Preemption, PreemptMode=REQUEUE: frees room on j's partition's nodes
 * by preempting running jobs, the newest first, as few as make j's units
 * fit; none when they would not be enough.  Either by QOS (Slurm's QOS
 * Preempt: jobs of the QOS that j's QOS may preempt, in its partition)
 * or by tier (Slurm's preempt/partition_prio: jobs of lower-tier
 * partitions with preempt "requeue" on nodes j's partition shares,
 * each freeing the units it holds there).  They wait again.  Returns
 * whether it preempted.
 */
static bool mf_preempt_for(struct sim *sim, const struct job *j, bool by_tier)
{
	int q = sim_job_qos(sim, j);
	unsigned np = sim_partition_count(sim), p = mf_part(sim, j);
	if (by_tier ? !np : q < 0 || !sim_qos(sim, (unsigned)q)->preempt)
		return false;
	size_t nr = sim_running_len(sim), nv = 0;
	const struct job **v = malloc((nr ? nr : 1) * sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < nr; i++) {
		const struct job *r = sim_running_at(sim, i);
		if (mf_victim(sim, j, p, r, by_tier))
			v[nv++] = r;
	}
	qsort(v, nv, sizeof(*v), mf_cmp_newest);
	uint64_t need = sim_demand(sim, j);
	uint64_t freed = np ? sim_partition_free(sim, p) : sim_free_units(sim);
	size_t k = 0;
	while (k < nv && freed < need) {
		const struct job *r = v[k++];
		freed += np ? sim_job_units_in(sim, r, p) : sim_demand(sim, r);
	}
	bool ok = freed >= need;
	for (size_t i = 0; ok && i < k; i++)
		sim_job_preempt(sim, v[i]);
	free(v);
	return ok && k > 0;
}

/* Slurm's main scheduler; a started job's entry becomes NULL. */
static void mf_main(struct sim *sim, struct mf *m, size_t n)
{
	memset(m->blocked, 0, m->nparts * sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = m->cand[i].j;
		unsigned p = mf_part(sim, j);
		if (m->blocked[p] || !mf_qos_ok(sim, m, j))
			continue;
		if ((mf_fits_part(sim, m, j) ||
		     (mf_preempt_for(sim, j, false) &&
		      mf_fits_part(sim, m, j)) ||
		     (mf_preempt_for(sim, j, true) &&
		      mf_fits_part(sim, m, j))) &&
		    !sim_job_start(sim, j))
			m->cand[i].j = NULL;
		else
			m->blocked[p] = true;
	}
}

/* A job just started in partition p also takes the units it holds on
 * the nodes of the partitions that share them, in their profiles. */
static void mf_taken_elsewhere(struct sim *sim, const struct job *j,
			       unsigned p, sim_time_t dur)
{
	for (unsigned q = 0; q < sim_partition_count(sim); q++) {
		uint64_t u = q != p ? sim_job_units_in(sim, j, q) : 0;
		if (u)
			profile_reserve_units(sim_partition_profile(sim, q), u,
					      sim_now(sim), dur);
	}
}

/* Slurm's backfill pass over the jobs the main pass left. */
static void mf_backfill(struct sim *sim, struct mf *m, size_t n)
{
	sim_time_t now = sim_now(sim);
	int64_t tested = 0;
	sim_partition_profiles(sim, m->bf_resolution);
	memset(m->reserved, 0, m->nparts * sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		const struct job *j = m->cand[i].j;
		if (!j || !mf_qos_ok(sim, m, j))
			continue;
		if (m->bf_max_job_test && tested >= m->bf_max_job_test)
			break;
		if (m->bf_max_job_user) {
			size_t u = mf_slot(m, mf_key(3, 0, j->user));
			if (m->units_run[u] >= (uint64_t)m->bf_max_job_user)
				continue; /* this pass's count per user */
			m->units_run[u]++;
		}
		tested++;
		unsigned p = mf_part(sim, j);
		struct profile *pf = sim_partition_profile(sim, p);
		sim_time_t dur = mf_round(m, now, now + j->estimate) - now;
		sim_time_t t = profile_earliest(pf, j, dur);
		if (t == now && sim_job_fits(sim, j) && !sim_job_start(sim, j)) {
			profile_reserve(pf, j, now, dur);
			mf_taken_elsewhere(sim, j, p, dur);
			continue;
		}
		if (t == SIM_TIME_MAX || t - now > m->bf_window ||
		    (!m->reserve_all && m->reserved[p]))
			continue;
		if (t == now) /* room in units, not in placement: wait */
			t = now + (m->bf_resolution > 0 ? m->bf_resolution : 1);
		profile_reserve(pf, j, t, dur);
		m->reserved[p] = true;
	}
	/* The per-pass user counts start again next pass. */
	if (m->bf_max_job_user)
		for (size_t i = 0; i < n; i++)
			if (m->cand[i].j)
				m->units_run[mf_slot(m, mf_key(3, 0,
						m->cand[i].j->user))] = 0;
}

static void mf_schedule(struct sim *sim, void *state)
{
	struct mf *m = state;
	mf_advance(sim, m);
	size_t n = mf_rank(sim, m);
	if (!n)
		return;
	mf_main(sim, m, n);
	bool any = false;
	for (unsigned p = 0; p < m->nparts; p++)
		any |= m->blocked[p];
	if (any)
		mf_backfill(sim, m, n);
}

/* ---- set-up ----------------------------------------------------------- */

static int mf_weight(struct sim *sim, const char *name, uint32_t *out,
		     struct sim_error *err)
{
	int64_t v = sim_param_int(sim, name);
	if (v < 0 || v > UINT32_MAX) {
		snprintf(err->msg, sizeof(err->msg), "%s must be in [0, "
			 "4294967295], got '%lld'", name, (long long)v);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int mf_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct mf *m = *state;
	if (mf_weight(sim, "weight_age", &m->w.age, err) ||
	    mf_weight(sim, "weight_size", &m->w.size, err) ||
	    mf_weight(sim, "weight_partition", &m->w.partition, err) ||
	    mf_weight(sim, "weight_qos", &m->w.qos, err) ||
	    mf_weight(sim, "weight_fairshare", &m->w.fairshare, err))
		return -1;
	double age = sim_param_double(sim, "max_age_s");
	double hl = sim_param_double(sim, "half_life_s");
	double win = sim_param_double(sim, "bf_window_s");
	double res = sim_param_double(sim, "bf_resolution_s");
	m->bf_max_job_test = sim_param_int(sim, "bf_max_job_test");
	m->bf_max_job_user = sim_param_int(sim, "bf_max_job_user");
	const char *rv = sim_param_str(sim, "bf_reserve");
	const char *fs = sim_param_str(sim, "fairshare");
	const char *bad = !(age >= 1 && age < 1e12) ? "max_age_s"
			  : !(hl >= 0 && hl < 1e12) ? "half_life_s"
			  : !(win >= 0 && win < 1e12) ? "bf_window_s"
			  : !(res >= 0 && res < 1e12) ? "bf_resolution_s"
			  : m->bf_max_job_test < 0 ? "bf_max_job_test"
			  : m->bf_max_job_user < 0 ? "bf_max_job_user" : NULL;
	if (bad) {
		snprintf(err->msg, sizeof(err->msg), "%s is out of range",
			 bad);
		return -1;
	}
	if (res > win) {
		snprintf(err->msg, sizeof(err->msg), "bf_resolution_s '%g' is "
			 "above bf_window_s '%g'", res, win);
		return -1;
	}
	if (strcmp(rv, "easy") && strcmp(rv, "all")) {
		snprintf(err->msg, sizeof(err->msg), "bf_reserve must be easy "
			 "or all, got '%s'", rv);
		return -1;
	}
	if (strcmp(fs, "classic") && strcmp(fs, "fair_tree")) {
		snprintf(err->msg, sizeof(err->msg), "fairshare must be classic "
			 "or fair_tree, got '%s'", fs);
		return -1;
	}
	m->reserve_all = !strcmp(rv, "all");
	m->max_age_s = (int64_t)age;
	m->half_life_s = hl;
	m->favor_small = sim_param_bool(sim, "favor_small");
	m->bf_window = (sim_time_t)(win * SIM_SEC);
	m->bf_resolution = (sim_time_t)(res * SIM_SEC);
	m->nodes = sim_capacity_nodes(sim);
	m->cpus = sim_capacity_cpus(sim);
	m->gpus = sim_capacity_gpus(sim);
	m->cpn = m->nodes ? m->cpus / m->nodes : 0;
	m->tenants = sim_tenant_count(sim) > 0;
	unsigned np = sim_partition_count(sim);
	m->nparts = np ? np : 1;
	m->blocked = calloc(m->nparts, sizeof(bool));
	m->reserved = calloc(m->nparts, sizeof(bool));
	if (!m->blocked || !m->reserved)
		abort();
	for (unsigned p = 0; p < np; p++) {
		const struct sim_partition *sp = sim_partition(sim, p);
		if (sp->priority_job_factor > m->max_pjf)
			m->max_pjf = sp->priority_job_factor;
	}
	for (unsigned q = 0; q < sim_qos_count(sim); q++)
		if (sim_qos(sim, q)->priority > m->max_qprio)
			m->max_qprio = sim_qos(sim, q)->priority;
	m->last = sim_now(sim);
	if (!strcmp(fs, "fair_tree"))
		mf_ft_init(sim, m);
	return 0;
}

static void mf_fini(struct sim *sim, void *state)
{
	struct mf *m = state;
	(void)sim;
	free(m->blocked);
	free(m->reserved);
	free(m->cand);
	free(m->map.key);
	free(m->map.val);
	free(m->usage);
	free(m->rate);
	free(m->share);
	free(m->jobs_run);
	free(m->units_run);
	sim_ftree_free(m->ft);
	free(m->ft_acct);
}

CLUSTERSIM_POLICY(multifactor,
	.summary = "Slurm's multifactor priority (age, size, partition, QOS, "
		   "fair-share) with its backfill limits, over partitions",
	.params = mf_params,
	.state_size = sizeof(struct mf),
	.init = mf_init,
	.fini = mf_fini,
	.job_started = mf_started,
	.job_finished = mf_stopped,
	.job_preempted = mf_stopped,
	.schedule = mf_schedule);
