/*
 * fairshare: Slurm-style fair share by decayed past usage.
 *
 * What it does: each user (or group) has a usage, the resource-seconds
 * its jobs have held - GPU-seconds for a job with GPUs (a fractional-GPU
 * job counts its share of one GPU), CPU-seconds otherwise - where a
 * second of use t seconds ago counts 2^(-t / half_life).  At each
 * scheduling point the pending jobs are taken in order of their owner's
 * usage now (lowest first; ties by submit time, then job id) and started
 * while they fit.  With backfill a job that does not fit is skipped and
 * the next one tried; without, the first that does not fit stops the pass
 * (strict priority order, like FCFS).  No reservations: a large job of a
 * light user can be passed over for as long as smaller jobs fit.
 *
 * Usage is kept exactly, per owner, as a decayed accumulator U at time t0
 * and the rate r (units its running jobs hold).  The rate only changes
 * when one of its jobs starts (here) or ends (job_finished), and then the
 * owner is first brought to now: with x = 2^(-(now - t0) / h),
 *     U(now) = U(t0) x + r h / ln 2 (1 - x),
 * the integral of r 2^(-(now - s) / h) ds over [t0, now].  The result does
 * not depend on how often it is brought up to date.
 *
 * Source: the Slurm multifactor priority plugin's fair-share factor with
 * PriorityDecayHalfLife (slurm.schedmd.com/priority_multifactor.html),
 * reduced to its usage term: no shares, no other factors.
 *
 * Parameters:
 *   by           "user" (default) or "group": whose usage is counted.
 *   half_life_s  half-life of past usage in seconds (default 604800, 7 d).
 *   backfill     true (default): skip a job that does not fit and try the
 *                next; false: stop at the first that does not fit.
 *
 * Example (4 CPUs, half-life 100 s): user 1 ran a 4-CPU job over [0, 100).
 * At 200 user 1 and user 2 each submit a 4-CPU job, user 1's with the
 * lower id.  User 1's usage at 200 is 4 x 100/ln 2 x (2^-1 - 2^-2) =
 * 144.3 CPU-s, user 2's is 0: user 2's job starts first, at 200, user 1's
 * when it ends.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

/* One user (or group). */
struct fs_owner {
	int32_t key;     /* user or group id; -1 = unknown */
	double usage;    /* decayed resource-seconds as of at */
	sim_time_t at;   /* when usage was last brought up to date */
	uint64_t rate;   /* thousandths of a unit its running jobs hold */
};

/* A pending job with its owner's usage now, to sort by. */
struct fs_cand {
	const struct job *job;
	double usage;
};

struct fairshare {
	bool by_group;           /* key is job->group, not job->user */
	bool backfill;           /* skip jobs that do not fit */
	double half_life;        /* in seconds, > 0 */
	struct fs_owner *own;    /* every owner seen, sorted by key */
	size_t nown, owncap;
	struct fs_cand *cand;    /* scratch: the pending queue */
	size_t candcap;
};

static int fs_init(struct sim *sim, void **state, struct sim_error *err)
{
	const char *by = sim_param_str(sim, "by");
	double h = sim_param_double(sim, "half_life_s");
	struct fairshare *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	*state = f;
	f->backfill = sim_param_bool(sim, "backfill");
	f->half_life = h;
	if (strcmp(by, "group") == 0) {
		f->by_group = true;
	} else if (strcmp(by, "user") != 0) {
		snprintf(err->msg, sizeof(err->msg),
			 "by must be 'user' or 'group', got '%s'", by);
		return -1;
	}
	if (!(h > 0) || !isfinite(h)) {
		snprintf(err->msg, sizeof(err->msg),
			 "half_life_s must be a positive number of seconds, "
			 "got '%g'", h);
		return -1;
	}
	return 0;
}

static void fs_fini(struct sim *sim, void *state)
{
	struct fairshare *f = state;
	if (f) {
		free(f->own);
		free(f->cand);
	}
	free(f);
}

/*
 * The owner of a job, with its usage brought up to now; NULL when out of
 * memory.  Inserting may move the records: the pointer is good until the
 * next call.
 */
static struct fs_owner *fs_owner(struct sim *sim, struct fairshare *f,
				 const struct job *j)
{
	int32_t key = f->by_group ? j->group : j->user;
	sim_time_t now = sim_now(sim);
	size_t lo = 0, hi = f->nown;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (f->own[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == f->nown || f->own[lo].key != key) {
		if (!clustersim_grow(&f->own, &f->owncap, f->nown + 1,
			     sizeof(*f->own)))
			return NULL;
		memmove(&f->own[lo + 1], &f->own[lo],
			(f->nown - lo) * sizeof(*f->own));
		f->nown++;
		f->own[lo] = (struct fs_owner){ .key = key, .at = now };
	}
	struct fs_owner *o = &f->own[lo];
	if (now > o->at) {
		/* x = 2^(-dt/h); 1 - x by expm1, exact for short steps. */
		double k = (double)(now - o->at) / (double)SIM_SEC /
			   f->half_life * log(2.0);
		double x = exp(-k), gain = -expm1(-k);
		o->usage = o->usage * x + (double)o->rate / 1000.0 *
			   f->half_life / log(2.0) * gain;
		o->at = now;
	}
	return o;
}

/* Thousandths of a unit a job holds: GPUs when it has any, else CPUs. */
static uint64_t fs_rate(const struct job *j)
{
	if (j->gpus)
		return (uint64_t)j->gpus * 1000;
	if (j->gpu_milli)
		return j->gpu_milli;
	return (uint64_t)j->cpus * 1000;
}

static void fs_finished(struct sim *sim, void *state, const struct job *j)
{
	struct fs_owner *o = fs_owner(sim, state, j);
	uint64_t r = fs_rate(j);
	if (o) /* (a job started while out of memory was not counted) */
		o->rate = o->rate > r ? o->rate - r : 0;
}

static int fs_by_usage(const void *pa, const void *pb)
{
	const struct fs_cand *a = pa, *b = pb;
	if (a->usage != b->usage)
		return a->usage < b->usage ? -1 : 1;
	if (a->job->submit != b->job->submit)
		return a->job->submit < b->job->submit ? -1 : 1;
	return (a->job->id > b->job->id) - (a->job->id < b->job->id);
}

static void fs_schedule(struct sim *sim, void *state)
{
	struct fairshare *f = state;
	size_t n = sim_queue_len(sim);
	if (n == 0)
		return;
	if (!clustersim_grow(&f->cand, &f->candcap, n, sizeof(*f->cand)))
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		const struct job *j = sim_queue_at(sim, i);
		struct fs_owner *o = fs_owner(sim, f, j);
		if (!o)
			goto nomem;
		f->cand[i] = (struct fs_cand){ .job = j, .usage = o->usage };
	}
	/* Starting a job changes its owner's rate, not its usage now: the
	 * order holds for the whole pass. */
	qsort(f->cand, n, sizeof(*f->cand), fs_by_usage);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = f->cand[i].job;
		if (sim_job_fits(sim, j) && sim_job_start(sim, j) == 0) {
			/* Known owner, already up to date: cannot fail. */
			struct fs_owner *o = fs_owner(sim, f, j);
			if (o)
				o->rate += fs_rate(j);
		} else if (!f->backfill) {
			break;
		}
	}
	return;
nomem:
	sim_start_head(sim); /* out of memory: at least keep going */
}

static const struct policy_param fs_params[] = {
	{ "by", PARAM_STRING, "user",
	  "whose usage is counted: \"user\" or \"group\"" },
	{ "half_life_s", PARAM_DOUBLE, "604800",
	  "half-life of past usage, in seconds" },
	{ "backfill", PARAM_BOOL, "true",
	  "skip a job that does not fit and try the next (false: stop)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(fairshare,
	.summary = "fair share: jobs of the user with the least decayed past "
		   "usage (GPU- or CPU-seconds) go first",
	.params = fs_params,
	.init = fs_init,
	.fini = fs_fini,
	.job_finished = fs_finished,
	.schedule = fs_schedule);
