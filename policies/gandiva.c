/*
 * gandiva: greedy GPU scheduling that oversubscribes GPUs - packing or
 * time-slicing two jobs on one set of GPUs - and migrates jobs to
 * consolidate them and to give shared jobs GPUs of their own (Gandiva).
 *
 * What it does, at every scheduling point:
 *  1. Grow: when jobs have ended, each job that shares its GPUs moves to
 *     free GPUs if some fit it (oldest first): it runs alone again.
 *  2. Start: waiting jobs start in arrival order wherever they fit (a job
 *     that does not fit does not block those behind it).
 *  3. Consolidate: when jobs have ended, each running job spread over
 *     several nodes moves to free GPUs on fewer nodes if there are some.
 *  4. Oversubscribe: a waiting job that still does not fit joins a running
 *     job of the same GPU count whose GPUs nobody shares, where its own
 *     CPUs are free beside them (pairs share GPUs, not CPUs).  Of the first
 *     `window` such hosts, it takes the one where the pair goes fastest:
 *     packed (both running at once) at the speeds Gavel measured for that
 *     pair of models on that GPU type, when that beats time-slicing and
 *     packing is on; else time-sliced, each getting half the time less
 *     the suspend/resume cost of every quantum:
 *         f = (1 - suspend_s / quantum_s) / 2.
 * Moves (1, 3) checkpoint and restore: they cost the experiment's restore
 * overhead and lose nothing.  At most two jobs share a set of GPUs.
 *
 * Time-slicing is modelled in the fluid limit - both jobs progress at
 * once at half speed, less the switching cost - rather than by an event
 * per quantum: with quanta of a minute against jobs of hours the two are
 * the same to within one quantum per job, and the fluid model costs no
 * events.  Gandiva learns how well jobs pack by trying (introspection);
 * here the measured pair speeds are known up front, so it packs only
 * pairs that gain and never has to unpack.
 *
 * Cost per schedule call: at most one walk of the queue per step, which
 * ends once no job left to pass could start (the policy counts its
 * waiting jobs by GPU count: none of no GPUs or of at most the free GPUs
 * is left) or join a host (none of a GPU count that has hosts).  A GPU job
 * asking for more GPUs than are free, or of a demand that already failed
 * in the step (resources are only taken within a step), is passed over
 * without a fit test; the hosts are filed by GPU count, so a waiting job
 * looks only at hosts it could join, and a demand no host could take is
 * not tried again in the step.  The choices are those of the plain walk.
 *
 * Source: Xiao et al., "Gandiva: Introspective Cluster Scheduling for
 * Deep Learning", OSDI 2018 (sections 3 and 4: suspend-resume and
 * time-slicing, packing, migration, grow-shrink); pair speeds from
 * Narayanan et al., "Heterogeneity-Aware Cluster Scheduling Policies for
 * Deep Learning Workloads" (Gavel), OSDI 2020, artifact measurements.
 *
 * Parameters:
 *   packing    pack pairs whose measured speeds beat time-slicing
 *              (default true)
 *   timeslice  time-slice a waiting job onto a busy job's GPUs (default
 *              true); with both off, oversubscription is off
 *   quantum_s  time-slicing quantum, seconds (default 60)
 *   suspend_s  suspend + resume cost per quantum, seconds (default 1)
 *   migrate    grow and consolidate by migration (default true)
 *   window     hosts considered for each waiting job (default 16)
 *   (and "placement", as every policy)
 *
 * Example (one node, one GPU, time-slicing, quantum 60 s, suspend 0 s):
 * A (0 s, 100 s) starts at 0; B (10 s, 100 s) arrives, does not fit and
 * shares A's GPU at half speed each.  At 10 A has done 10 s of work; both
 * then progress at 0.5: A ends at 10 + 90 / 0.5 = 190, when B (90 s of
 * work done) runs alone and ends at 200.  FCFS: 100 and 200 - sharing
 * gives B a start at once, for a later end of A.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* The hosts of one GPU count: their places in the host list, ascending. */
struct gandiva_bucket {
	uint32_t gpus;        /* the hosts' GPU count */
	uint32_t *pos;        /* places in gandiva.hosts, ascending */
	size_t n, cap;
};

/* A GPU demand that failed in this step: every waiting job with the same
 * demand fails too until resources come back (a step only takes). */
struct gandiva_miss {
	uint32_t gpus, cpus;  /* the demand */
	uint16_t gpu_type;    /* its type constraint */
	int32_t group;        /* its virtual cluster's group */
};

/* Demands remembered per step; past this many, the rest are tested. */
#define GANDIVA_MISSES 32

/* The demands that failed in one step. */
struct gandiva_misses {
	struct gandiva_miss m[GANDIVA_MISSES];
	size_t n;
};

struct gandiva {
	bool packing, timeslice, migrate;
	double ts_factor;     /* each job's speed when time-sliced */
	size_t window;        /* hosts considered per waiting job */
	bool ended;           /* jobs ended since the last call */
	const struct job **hosts; /* scratch: running jobs nobody shares */
	size_t nhosts, cap;
	struct gandiva_bucket *bk; /* hosts by GPU count (a job joins only a
				      host of its own count) */
	size_t nbk, bkcap;
	struct gandiva_misses nofit;  /* demands that fit nowhere now */
	struct gandiva_misses nohost; /* demands no host can take now */
	uint64_t *cnt;        /* by GPU count k: cnt[2k] waiting jobs of k
				 GPUs, cnt[2k + 1] those a walk has yet to
				 pass (scratch) */
	size_t ncnt;          /* entries of cnt */
	uint64_t gpu_waiting; /* waiting jobs with GPUs (kept with cnt) */
	bool lost;            /* out of memory for cnt: walk the whole queue */
};

#define WAITING(g, k) ((g)->cnt[2 * (size_t)(k)])
#define LEFT(g, k) ((g)->cnt[2 * (size_t)(k) + 1])

static int gandiva_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct gandiva *g = calloc(1, sizeof(*g));
	if (!g)
		return -1;
	*state = g;
	g->packing = sim_param_bool(sim, "packing");
	g->timeslice = sim_param_bool(sim, "timeslice");
	g->migrate = sim_param_bool(sim, "migrate");
	double q = sim_param_double(sim, "quantum_s");
	double su = sim_param_double(sim, "suspend_s");
	int64_t w = sim_param_int(sim, "window");
	if (!(q > 0) || !isfinite(q) || !(su >= 0) || !(su < q)) {
		snprintf(err->msg, sizeof(err->msg),
			 "quantum_s must be positive and suspend_s in "
			 "[0, quantum_s), got '%g' and '%g'", q, su);
		return -1;
	}
	if (w < 1) {
		snprintf(err->msg, sizeof(err->msg),
			 "window must be at least 1, got '%lld'", (long long)w);
		return -1;
	}
	g->ts_factor = (1 - su / q) / 2;
	g->window = (size_t)w;
	return 0;
}

static void gandiva_fini(struct sim *sim, void *state)
{
	struct gandiva *g = state;
	if (g) {
		free(g->hosts);
		for (size_t b = 0; b < g->nbk; b++)
			free(g->bk[b].pos);
		free(g->bk);
		free(g->cnt);
	}
	free(g);
}

static void gandiva_finished(struct sim *sim, void *state,
			     const struct job *job)
{
	((struct gandiva *)state)->ended = true;
}

/* Counts a job into (d = 1) or out of (d = -1) the waiting jobs. */
static void count_waiting(struct gandiva *g, const struct job *j, int d)
{
	size_t want = 2 * ((size_t)j->gpus + 1), had = g->ncnt;
	if (g->lost)
		return;
	if (want > had) {
		if (!clustersim_grow(&g->cnt, &g->ncnt, want, sizeof(*g->cnt))) {
			g->lost = true;
			return;
		}
		memset(g->cnt + had, 0, (g->ncnt - had) * sizeof(*g->cnt));
	}
	WAITING(g, j->gpus) += (uint64_t)(int64_t)d;
	if (j->gpus)
		g->gpu_waiting += (uint64_t)(int64_t)d;
}

static void gandiva_submitted(struct sim *sim, void *state,
			      const struct job *job)
{
	count_waiting(state, job, 1);
}

static void gandiva_started(struct sim *sim, void *state,
			    const struct job *job)
{
	count_waiting(state, job, -1);
}

static void gandiva_preempted(struct sim *sim, void *state,
			      const struct job *job)
{
	count_waiting(state, job, 1);
}

/* The GPU counts walks keep track of (0: none, the whole queue is
 * walked), each count's waiting jobs copied to its yet-to-pass ones. */
static size_t walk_begin(struct gandiva *g)
{
	size_t ng = g->lost ? 0 : g->ncnt / 2;
	for (size_t k = 0; k < ng; k++)
		LEFT(g, k) = WAITING(g, k);
	return ng;
}

/* Moves running jobs (those matching `shared`) to better places. */
static void move_running(struct sim *sim, bool shared)
{
	/* A move needs free GPUs (and a move only takes them): none free,
	 * nothing moves, and the running jobs need no look. */
	if (!sim_free_units(sim))
		return;
	/* A move changes the running order: collect first. */
	size_t n = sim_running_len(sim), k = 0;
	const struct job **list = malloc((n ? n : 1) * sizeof(*list));
	if (!list)
		return;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = sim_running_at(sim, i);
		if (!j->gpus)
			continue;
		if (shared ? sim_job_partner(sim, j) != NULL
			   : !sim_job_partner(sim, j) && j->nodes_used > 1)
			list[k++] = j;
	}
	for (size_t i = 0; i < k && sim_free_units(sim); i++)
		if (!shared || sim_job_partner(sim, list[i]))
			sim_job_migrate(sim, list[i]);
	free(list);
}

/* Is j's GPU demand one that failed in this step? */
static bool missed(const struct gandiva_misses *ms, const struct job *j)
{
	for (size_t i = 0; i < ms->n; i++) {
		const struct gandiva_miss *m = &ms->m[i];
		if (m->gpus == j->gpus && m->cpus == j->cpus &&
		    m->gpu_type == j->gpu_type && m->group == j->group)
			return true;
	}
	return false;
}

static void note_miss(struct gandiva_misses *ms, const struct job *j)
{
	if (ms->n < GANDIVA_MISSES)
		ms->m[ms->n++] = (struct gandiva_miss){
			.gpus = j->gpus, .cpus = j->cpus,
			.gpu_type = j->gpu_type, .group = j->group };
}

/*
 * Could waiting job j start now?  Within a step resources are only
 * taken, so a GPU job wanting more GPUs than are free cannot, and one
 * whose demand (GPUs, CPUs, GPU type, group: all the fit test reads)
 * failed earlier in the step fails again: both are answered without the
 * fit test, the same answer for less work.
 */
static bool fits_now(struct sim *sim, struct gandiva_misses *nofit,
		     const struct job *j)
{
	if (!j->gpus)
		return sim_job_fits(sim, j);
	if (j->gpus > sim_free_units(sim) || missed(nofit, j))
		return false;
	if (sim_job_fits(sim, j))
		return true;
	note_miss(nofit, j);
	return false;
}

/* The bucket of hosts of gpus GPUs, or NULL. */
static struct gandiva_bucket *bucket_of(struct gandiva *g, uint32_t gpus)
{
	for (size_t b = 0; b < g->nbk; b++)
		if (g->bk[b].gpus == gpus)
			return &g->bk[b];
	return NULL;
}

/* Files host list place p (host j) in its GPU count's bucket. */
static bool bucket_add(struct gandiva *g, const struct job *j, uint32_t p)
{
	struct gandiva_bucket *b = bucket_of(g, j->gpus);
	if (!b) {
		if (!clustersim_grow(&g->bk, &g->bkcap, g->nbk + 1,
				     sizeof(*g->bk)))
			return false;
		b = &g->bk[g->nbk++];
		*b = (struct gandiva_bucket){ .gpus = j->gpus };
	}
	if (!clustersim_grow(&b->pos, &b->cap, b->n + 1, sizeof(*b->pos)))
		return false;
	b->pos[b->n++] = p;
	return true;
}

/* Running GPU jobs whose GPUs nobody shares, in the running order, and
 * their places by GPU count (none when out of memory: no sharing). */
static void collect_hosts(struct sim *sim, struct gandiva *g)
{
	size_t n = sim_running_len(sim);
	g->nhosts = 0;
	for (size_t b = 0; b < g->nbk; b++)
		g->bk[b].n = 0;
	if (!clustersim_grow(&g->hosts, &g->cap, n, sizeof(*g->hosts)))
		return;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = sim_running_at(sim, i);
		if (!j->gpus || sim_job_partner(sim, j))
			continue;
		if (!bucket_add(g, j, (uint32_t)g->nhosts)) {
			g->nhosts = 0;
			return;
		}
		g->hosts[g->nhosts++] = j;
	}
}

/* Takes the host at place at of bucket b out of the list as the list
 * always did it: the last host moves into its place, so that the order
 * the window walks stays what it was. */
static void take_host(struct gandiva *g, struct gandiva_bucket *b, size_t at)
{
	uint32_t p = b->pos[at], last = (uint32_t)--g->nhosts;
	memmove(&b->pos[at], &b->pos[at + 1], (b->n - at - 1) * sizeof(*b->pos));
	b->n--;
	if (p == last)
		return;
	const struct job *m = g->hosts[last];
	struct gandiva_bucket *mb = bucket_of(g, m->gpus);
	size_t k = --mb->n; /* last is the largest place: its bucket's end */
	while (k > 0 && mb->pos[k - 1] > p)
		k--;
	memmove(&mb->pos[k + 1], &mb->pos[k], (mb->n - k) * sizeof(*mb->pos));
	mb->pos[k] = p;
	mb->n++;
	g->hosts[p] = m;
}

/* The host of j's GPU count where j's pair goes fastest, of the first
 * `window` that can take it: its place in bucket b (SIZE_MAX: none) and
 * the two speeds. */
static size_t pick_host(struct sim *sim, struct gandiva *g,
			const struct gandiva_bucket *b, const struct job *j,
			double *bf, double *bh)
{
	size_t best = SIZE_MAX, seen = 0;
	for (size_t k = 0; k < b->n && seen < g->window; k++) {
		const struct job *h = g->hosts[b->pos[k]];
		if (!sim_job_can_share(sim, j, h))
			continue;
		seen++;
		double f = g->timeslice ? g->ts_factor : 0, fh = f;
		if (g->packing) {
			double x = sim_coloc_speed(sim, j, h);
			double y = sim_coloc_speed(sim, h, j);
			if (x > 0 && y > 0 && x + y > f + fh) {
				f = x;
				fh = y;
			}
		}
		if (f > 0 && fh > 0 && (best == SIZE_MAX || f + fh > *bf + *bh)) {
			best = k;
			*bf = f;
			*bh = fh;
		}
	}
	if (!seen) /* no host takes this demand until resources come back */
		note_miss(&g->nohost, j);
	return best;
}

/* Waiting jobs yet to pass that some host could take: those of the GPU
 * counts that have hosts. */
static uint64_t host_wanted(struct gandiva *g, size_t ng)
{
	uint64_t want = 0;
	for (size_t b = 0; b < g->nbk; b++)
		if (g->bk[b].n && g->bk[b].gpus < ng)
			want += LEFT(g, g->bk[b].gpus);
	return want;
}

/* Puts waiting jobs that do not fit onto busy GPUs; the walk ends once
 * no job left to pass has a host of its GPU count. */
static void oversubscribe(struct sim *sim, struct gandiva *g)
{
	if (!g->lost && !g->gpu_waiting)
		return; /* no waiting job could join a host */
	collect_hosts(sim, g);
	g->nofit.n = 0;
	g->nohost.n = 0;
	size_t ng = walk_begin(g);
	uint64_t want = ng ? host_wanted(g, ng) : 1;
	for (size_t i = 0; i < sim_queue_len(sim) && g->nhosts && want;) {
		const struct job *j = sim_queue_at(sim, i);
		struct gandiva_bucket *b = bucket_of(g, j->gpus);
		if (ng && j->gpus) {
			LEFT(g, j->gpus)--;
			want -= b && b->n;
		}
		if (!j->gpus || fits_now(sim, &g->nofit, j) ||
		    missed(&g->nohost, j)) {
			i++;
			continue;
		}
		double bf = 0, bh = 0;
		size_t best = b ? pick_host(sim, g, b, j, &bf, &bh) : SIZE_MAX;
		if (best == SIZE_MAX ||
		    sim_job_start_shared(sim, j, g->hosts[b->pos[best]], bf,
					 bh) != 0) {
			i++;
			continue;
		}
		/* The host is taken; j left the queue, so i stays. */
		take_host(g, b, best);
		if (ng && !b->n)
			want -= LEFT(g, b->gpus);
	}
}

/* Starts waiting jobs in arrival order wherever they fit; the walk ends
 * once no job left to pass could: none wants no GPUs or at most the
 * free ones. */
static void start_fitting(struct sim *sim, struct gandiva *g)
{
	g->nofit.n = 0;
	size_t ng = walk_begin(g);
	uint64_t free_now = sim_free_units(sim), cand = ng ? 0 : 1;
	for (size_t k = 0; k < ng && k <= free_now; k++)
		cand += LEFT(g, k);
	for (size_t i = 0; i < sim_queue_len(sim) && cand;) {
		const struct job *j = sim_queue_at(sim, i);
		if (ng) {
			LEFT(g, j->gpus)--;
			cand -= j->gpus <= free_now;
		}
		if (!fits_now(sim, &g->nofit, j) || sim_job_start(sim, j)) {
			i++;
			continue;
		}
		/* It left the queue: i is the next.  Fewer GPUs are free:
		 * the counts above them drop out. */
		uint64_t f = sim_free_units(sim);
		for (uint64_t k = f + 1; ng && k <= free_now && k < ng; k++)
			cand -= LEFT(g, k);
		free_now = f;
	}
}

static void gandiva_schedule(struct sim *sim, void *state)
{
	struct gandiva *g = state;
	bool ended = g->ended;
	g->ended = false;
	if (g->migrate && ended)
		move_running(sim, true);
	start_fitting(sim, g);
	if (g->migrate && ended)
		move_running(sim, false);
	if (g->packing || g->timeslice)
		oversubscribe(sim, g);
}

static const struct policy_param gandiva_params[] = {
	{ "packing", PARAM_BOOL, "true",
	  "pack pairs whose measured speeds beat time-slicing" },
	{ "timeslice", PARAM_BOOL, "true",
	  "time-slice waiting jobs onto busy GPUs" },
	{ "quantum_s", PARAM_DOUBLE, "60", "time-slicing quantum, seconds" },
	{ "suspend_s", PARAM_DOUBLE, "1",
	  "suspend + resume cost per quantum, seconds" },
	{ "migrate", PARAM_BOOL, "true",
	  "migrate to give shared jobs their own GPUs and to consolidate" },
	{ "window", PARAM_INT, "16", "hosts considered per waiting job" },
	{ NULL },
};

CLUSTERSIM_POLICY(gandiva,
	.summary = "Gandiva: greedy, packs or time-slices GPUs when full, "
		   "migrates to consolidate",
	.params = gandiva_params,
	.init = gandiva_init,
	.fini = gandiva_fini,
	.job_submitted = gandiva_submitted,
	.job_finished = gandiva_finished,
	.job_started = gandiva_started,
	.job_preempted = gandiva_preempted,
	.schedule = gandiva_schedule);
