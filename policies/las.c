/*
 * las: least attained service, discretised in queues, preemptive (the
 * Tiresias 2D-LAS scheduler).
 *
 * What it does: a job's attained service is the resource-time it has
 * received (GPU-seconds; CPU-seconds for a job without GPUs: the "2D" of
 * Tiresias, time x width), not counting the time it spent restoring
 * checkpoints (sim_job_service: with a restore longer than a queue's
 * quantum, a resumed job would be demoted before doing any work).
 * Thresholds T1 < T2 < ... split jobs into queues: queue 0 holds jobs
 * with service below T1, queue k those between T_k and T_k+1.  Lower
 * queues go first; the ranking goes to the engine's preemptive allocation
 * (sim_rank_apply), so a new job preempts jobs that have already had much
 * service.
 *
 * Each scheduling point is the loop of Tiresias' scheduler, in its order
 * (las_schedule): demote the running jobs that crossed a threshold,
 * promote the starved waiting ones, rank the queues, let the engine
 * allocate, then put each queue's running jobs ahead of its waiting ones.
 * The engine says which jobs it started and preempted (las_started,
 * las_preempted), which is when a job's wait for promotion starts and
 * stops counting.
 *
 * Order inside a queue, as Tiresias keeps it: a job joins the end of a
 * queue when it arrives (queue 0), is demoted (the moment its service
 * crosses a threshold: the policy asks to be woken then) or is promoted;
 * after every scheduling point the running jobs of each queue move ahead
 * of its waiting ones, both keeping their order.  So a waiting job never
 * preempts a running job of its own queue, a preempted job waits at the
 * head of its queue's waiting jobs, and a job demoted into a queue comes
 * behind the jobs that already wait there.
 *
 * Starvation promotion (promote_knob K > 0), the rule of Tiresias's
 * simulator: a job keeps E, the time it has run since it was last
 * promoted (since it arrived, before that), and P, the time it has
 * waited since then while E > 0.  A waiting job in queue 1 or below with
 * P >= K x E is promoted: E and P restart from 0 (its service counts
 * from 0 again for queueing, so it is in queue 0), and it joins the end
 * of queue 0.  Both E and P add up over every run and wait since the
 * promotion, not just the last: a job in queue k has run at least
 * T_k / width since, so it waits at least K x T_k / width before its
 * next promotion.  Once started, a promoted job is not preempted before
 * it is demoted again (it runs ahead of the waiting jobs of queue 0).
 * (Measuring only the last run, as this policy did before, let a job cut
 * short after a moment be promoted at once and preempt others, which
 * thrashed on loaded clusters.)
 *
 * gittins (the same queues, demotion and promotion; Tiresias' discretised
 * 2D-Gittins index): inside each queue jobs go by their Gittins index,
 * highest first (ties: submit order), instead of FIFO.  With a the
 * service a job has had since its last promotion, S the service of a
 * job, from the distribution of finished jobs (or given samples), and
 * delta a quantum (default: the first threshold):
 *
 *   G(a) = P(S - a <= delta | S > a) / E[min(S - a, delta) | S > a]
 *
 * on the empirical distribution; a job past every sample gets 0 (last
 * in its queue), and with no samples every index is equal (FIFO by
 * submit).  As in Tiresias' simulator, the index is looked at when the
 * policy runs (arrivals, ends, demotions, promotions): no wake-up of its
 * own.  A queue's running jobs keep their place ahead of its waiting
 * ones, as in las (a waiting job never preempts a running one of its
 * own queue); its waiting and just demoted jobs are merged by
 * (index, submit), each list sorted.  So the index decides which job of
 * a queue starts or resumes next, and whether a job demoted into a queue
 * keeps running against the jobs that wait there.  With in_queue_preempt
 * the running jobs are sorted with the others, as Tiresias' simulator
 * sorts a whole queue: then a waiting job of higher index preempts a
 * running one of its own queue, and a job that never ran (G(0)) one that
 * outlived every sample (0).
 *
 * Source: Gu et al., "Tiresias: A GPU Cluster Manager for Distributed Deep
 * Learning", NSDI 2019, section 4.1 (discretised 2D-LAS, starvation
 * promotion with PROMOTE_KNOB) and 4.2 (2D-Gittins); the rules above as
 * their simulator applies them (github.com/SymbioticLab/Tiresias at
 * 959f9b0, simulator/run_sim.py: dlas_sim_jobs with executed_time,
 * last_pending_time, solve_starvation; for dlas-gpu-gittins,
 * get_gittins_index, cal_r_gittins_index and the per-queue sort by
 * (rank, submit); simulator/jobs.py: gittins_delta = the first queue
 * limit).  Their index sums the samples where E wants S - a; this one
 * is the paper's formula.
 *
 * Parameters:
 *   thresholds_s   queue thresholds in resource-seconds, comma-separated
 *                  and increasing (default "3600": two queues)
 *   promote_knob   K above; 0 turns promotion off (default 0)
 *   min_run_s      a job that (re)starts is not preempted again before
 *                  it has run this long (the engine keeps it, policy.h);
 *                  the cure for a preemption livelock (default 0: off)
 *   in_queue_preempt  las: rank each queue in submit order, its running
 *                  and waiting jobs together, so a waiting job preempts
 *                  a later one of its queue (default false), as the
 *                  Pollux artifact's Tiresias keeps its queues
 *                  (petuum/adaptdl osdi21-artifact, simulator/
 *                  tiresias.py: one list per queue in arrival order)
 *   (and "placement", as every policy)
 * gittins also takes:
 *   delta_s        the quantum delta, resource-seconds (default 0: the
 *                  first threshold; 3600 with none)
 *   distribution_s service samples, resource-seconds, comma-separated;
 *                  "" (default) = learn from finished jobs
 *   window         finished jobs the learned distribution keeps, the
 *                  latest (default 1000)
 *   in_queue_preempt  sort a queue's running jobs with its waiting ones
 *                  (default false)
 *
 * Cost: each queue keeps its running and waiting jobs in order as they
 * come and go (lists linked through the engine's per-job slots, so the
 * policy allocates nothing), and a scheduling point hands the engine the
 * running jobs and the waiting ones only down to where the cluster's
 * units run out (sim_rank_full) - those further down could not start.
 * On the whole Philly summary that is a few dozen waiting jobs per point
 * instead of the ~1,000 that wait.  With promotion on, a point also
 * looks at every waiting job below queue 0 (its promotion time is kept).
 * gittins keeps its learned samples sorted as jobs finish (a binary
 * search and a move of the window, not a sort of it at every point that
 * follows an end: that sort was 58% of gittins' time on Philly).  The
 * running jobs ahead of every waiting one are counted by the engine, not
 * listed (sim_rank_begin_with), and an engine heap of the times before
 * which each running job crosses no threshold leaves only those near
 * their crossing to be looked at for demotions and the wake-up.
 *
 * Example (one GPU, threshold 100 GPU-s): A (0 s, 300 s) runs in queue 0
 * and is demoted to queue 1 at 100.  B (50 s, 500 s), waiting in queue 0,
 * then preempts it and runs 100..200, when it too is demoted, behind A.
 * A resumes at 200 and ends at 400; B ends at 800.  SRTF would have let A
 * finish at 300.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

#define LAS_MAXQ 16

/* Jobs in order: their slots, linked. */
struct las_list {
	struct las_job *head, *tail;
};

/* The policy's state (allocated by the engine). */
struct las {
	double t[LAS_MAXQ]; /* thresholds, resource-seconds */
	size_t nt;
	double knob;        /* promotion knob; 0 = off */
	struct las_list run[LAS_MAXQ];  /* running jobs of each queue */
	struct las_list wait[LAS_MAXQ]; /* its waiting jobs, behind them */
	struct las_list tail[LAS_MAXQ]; /* jobs demoted into it at this
					   point, behind its waiting ones */
	/* While the engine applies a ranking, what it did to each queue: */
	struct las_list started[LAS_MAXQ]; /* waiting jobs it started */
	struct las_list cut[LAS_MAXQ];  /* running jobs it preempted */
	struct las_list cut_tail[LAS_MAXQ]; /* demoted jobs it preempted */
	struct las_list moved;          /* jobs promoted at this point */
	struct las_job *jobs;           /* the engine's slots, by job idx */
	bool gittins;      /* order inside a queue by Gittins index */
	bool sort_running; /* its running jobs too (in_queue_preempt) */
	double delta;      /* its quantum, resource-seconds */
	const double *smp; /* samples in use, sorted: the given ones, or
			      the learned window's (kept sorted by it) */
	double *suffix;    /* suffix[i] = sum of smp[i..] */
	size_t ns;
	struct sim_window *learned; /* learned samples; NULL = given */
	size_t window;
	bool stale;        /* smp changed since suffix was made */
	uint32_t version;  /* bumped when smp changes: a job's cached index
			      of an older version is recomputed */
	const struct job **inplay; /* the running jobs a waiting one may
				      pass, for sim_rank_begin_with */
	size_t ninplay, inplay_cap;
	struct sim_heap *cross; /* running jobs below the last queue, by a
				   time before which they cross no threshold */
	double slack_max;  /* the largest slack of those times, us */
};

/* What the policy remembers of a job: its slot. */
struct las_job {
	struct las_job *prev, *next; /* in its queue's list */
	const struct job *job;
	double base;        /* service at its last promotion (not counted
			       for the queue) */
	sim_time_t waited;  /* P: time waited since its last promotion
			       while it had run since, up to `stopped` */
	sim_time_t stopped; /* when it last went back to waiting */
	sim_time_t due;     /* while waiting: when it is promoted */
	sim_time_t key;     /* when it was demoted or promoted */
	double gi;          /* gittins: its index at this point ... */
	double gi_a;        /* ... for this service ... */
	uint32_t gi_version; /* ... and samples' version (0 = none) */
	uint8_t q;          /* its queue */
	bool demoted;       /* in its queue's tail at this point */
};

static struct las_job *slot(const struct las *l, const struct job *j)
{
	return &l->jobs[j->idx];
}

static void list_push(struct las_list *ls, struct las_job *s)
{
	CLUSTERSIM_LIST_PUSH(ls, s);
}

static void list_remove(struct las_list *ls, struct las_job *s)
{
	CLUSTERSIM_LIST_REMOVE(ls, s);
}

/* Appends b to a; b is left empty. */
static void list_join(struct las_list *a, struct las_list *b)
{
	if (!b->head)
		return;
	if (a->tail) {
		a->tail->next = b->head;
		b->head->prev = a->tail;
	} else {
		a->head = b->head;
	}
	a->tail = b->tail;
	b->head = b->tail = NULL;
}

/* Puts s in ls in order of (key, job index): Tiresias visits its jobs in
 * arrival order.  From the back: the lists are short. */
static void list_insert_by_key(struct las_list *ls, struct las_job *s)
{
	struct las_job *o = ls->tail;
	while (o && !(o->key < s->key ||
		      (o->key == s->key && o->job->idx < s->job->idx)))
		o = o->prev;
	CLUSTERSIM_LIST_INSERT_AFTER(ls, o, s);
}

static int las_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct las *l = *state;
	l->jobs = sim_job_states(sim);
	l->cross = sim_heap_new(sim, false);
	const char *s = sim_param_str(sim, "thresholds_s");
	char *end;
	for (const char *p = s; *p;) {
		double v = strtod(p, &end);
		if (end == p || !(v > 0) || !isfinite(v) || l->nt == LAS_MAXQ - 1 ||
		    (l->nt && v <= l->t[l->nt - 1]) || (*end && *end != ',')) {
			snprintf(err->msg, sizeof(err->msg),
				 "thresholds_s must be increasing positive "
				 "numbers separated by commas (at most %d), "
				 "got '%s'", LAS_MAXQ - 1, s);
			return -1;
		}
		l->t[l->nt++] = v;
		p = *end ? end + 1 : end;
	}
	l->sort_running = sim_param_bool(sim, "in_queue_preempt");
	l->knob = sim_param_double(sim, "promote_knob");
	if (!(l->knob >= 0) || !isfinite(l->knob)) {
		snprintf(err->msg, sizeof(err->msg),
			 "promote_knob must be >= 0, got '%g'", l->knob);
		return -1;
	}
	return 0;
}

/* Resource width of a job: GPUs, or CPUs for a job without GPUs. */
static double width(const struct job *j)
{
	return j->gpus ? j->gpus : j->cpus;
}

static size_t queue_of(const struct las *l, double service)
{
	size_t q = 0;
	while (q < l->nt && service >= l->t[q])
		q++;
	return q;
}

/* Service counted for the queue: since the last promotion. */
static double served(struct sim *sim, const struct las *l,
		     const struct job *j)
{
	return sim_job_service(sim, j) - slot(l, j)->base;
}

/*
 * Keys a running job by when it may cross its queue's threshold: now plus
 * the service left to it at its full width (its service grows no faster;
 * slower while it restores), less a slack for the rounding of services,
 * so that no later call finds it across earlier, nor times the crossing
 * earlier (wake).  A job in the last queue, or of no width, never
 * crosses: it leaves the heap.
 */
static void key_crossing(struct sim *sim, struct las *l, struct las_job *s)
{
	const struct job *j = s->job;
	if (s->q >= l->nt || !(width(j) > 0)) {
		sim_heap_remove(l->cross, j->idx);
		return;
	}
	double got = served(sim, l, j);
	double slack = 4 + (l->t[s->q] + fabs(got)) / width(j) * 1e-6;
	if (slack > l->slack_max)
		l->slack_max = slack;
	sim_heap_set(l->cross, j->idx,
		     (double)sim_now(sim) +
			     (l->t[s->q] - got) / width(j) * 1e6 - slack);
}

/* When a job that stops now is promoted: when P reaches K x E. */
static sim_time_t promote_at(struct sim *sim, const struct las *l,
			     const struct job *j, sim_time_t now)
{
	const struct las_job *lj = slot(l, j);
	double e = served(sim, l, j);
	if (!(l->knob > 0) || lj->q == 0 || !(e > 0) || !(width(j) > 0))
		return SIM_TIME_MAX;
	double need = ceil(l->knob * e / width(j) * 1e6);
	if (!(need < 9e18))
		return SIM_TIME_MAX;
	sim_time_t left = (sim_time_t)need - lj->waited;
	return now + (left > 0 ? left : 0);
}

/* A job the engine just queued: it joins the end of queue 0. */
static void las_submitted(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	s->job = j;
	s->due = SIM_TIME_MAX;
	list_push(&l->wait[0], s);
}

static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return (a > b) - (a < b);
}

/* A running job ended: it leaves its queue (and, for gittins learning,
 * its service joins the samples, the oldest leaving past `window`). */
static void las_finished(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	list_remove(&l->run[s->q], s);
	sim_heap_remove(l->cross, j->idx);
	if (!l->learned)
		return;
	sim_window_add(l->learned, sim_job_service(sim, j));
	l->smp = sim_window_sorted(l->learned, &l->ns);
	l->stale = true;
}

/* The ranking started a waiting job: its wait since it last stopped
 * counts toward promotion once it has run since the last one. */
static void las_started(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	if (served(sim, l, j) > 0)
		s->waited += sim_now(sim) - s->stopped;
	s->due = SIM_TIME_MAX;
	list_remove(&l->wait[s->q], s);
	list_push(&l->started[s->q], s);
	key_crossing(sim, l, s);
}

/* The ranking preempted a running job: it waits, due for promotion when
 * it has waited K times what it ran since the last one. */
static void las_preempted(struct sim *sim, void *state, const struct job *j)
{
	struct las *l = state;
	struct las_job *s = slot(l, j);
	sim_time_t now = sim_now(sim);
	sim_heap_remove(l->cross, j->idx);
	s->stopped = now;
	s->due = promote_at(sim, l, j, now);
	if (s->demoted) {
		list_remove(&l->tail[s->q], s);
		list_push(&l->cut_tail[s->q], s);
	} else {
		list_remove(&l->run[s->q], s);
		list_push(&l->cut[s->q], s);
	}
}

/* Appends j to the running jobs in play (or, for demote, the jobs to
 * look at): the policy cannot rank without the room, so running out of
 * memory stops the run, as it does in the engine's own tables. */
static void inplay_push(struct las *l, const struct job *j)
{
	if (!clustersim_grow(&l->inplay, &l->inplay_cap, l->ninplay + 1,
			     sizeof(*l->inplay)))
		abort();
	l->inplay[l->ninplay++] = j;
}

/* Adds the jobs of a list to the running jobs in play. */
static void inplay_add(struct las *l, const struct las_list *ls)
{
	for (const struct las_job *s = ls->head; s; s = s->next)
		inplay_push(l, s->job);
}

/*
 * Demotes every running job whose service crossed a threshold since the
 * last point: to the tail of its new queue, in the order they crossed
 * (a total order: the order they are looked at does not matter).  Only
 * the jobs whose key has passed may have crossed.
 */
static void demote(struct sim *sim, struct las *l, sim_time_t now)
{
	size_t n;
	const uint32_t *a = sim_heap_upto(l->cross, (double)now, UINT32_MAX,
					  &n);
	l->ninplay = 0; /* the candidates, as the heap's array changes */
	for (size_t i = 0; i < n; i++)
		inplay_push(l, l->jobs[a[i]].job);
	for (size_t i = 0; i < l->ninplay; i++) {
		const struct job *j = l->inplay[i];
		struct las_job *s = slot(l, j);
		size_t q = s->q;
		double got = served(sim, l, j);
		size_t nq = queue_of(l, got);
		if (nq > q) {
			double late = (got - l->t[nq - 1]) / width(j) * 1e6;
			list_remove(&l->run[q], s);
			s->key = now - (sim_time_t)floor(late);
			s->q = (uint8_t)nq;
			s->demoted = true;
			list_insert_by_key(&l->tail[nq], s);
		}
		key_crossing(sim, l, s);
	}
}

/* Promotes the waiting jobs below queue 0 that are due: to the end of
 * queue 0, in the order they fell due, their service and waits counted
 * from zero again. */
static void promote(struct sim *sim, struct las *l, sim_time_t now)
{
	for (size_t q = 1; q <= l->nt; q++) {
		struct las_job *s = l->wait[q].head, *next;
		for (; s; s = next) {
			next = s->next;
			if (s->due > now)
				continue;
			list_remove(&l->wait[q], s);
			s->key = s->due;
			list_insert_by_key(&l->moved, s);
		}
	}
	for (struct las_job *s = l->moved.head; s; s = s->next) {
		s->base = sim_job_service(sim, s->job);
		s->waited = 0;
		s->stopped = now;
		s->due = SIM_TIME_MAX;
		s->q = 0;
	}
	list_join(&l->wait[0], &l->moved);
}

/* The suffix sums of the samples in use, when they changed (the given
 * samples are sorted once, by read_given; the learned ones are kept
 * sorted by the engine's window as they come, instead of sorting them at
 * each point, which was most of gittins' time with a window of a
 * thousand). */
static void prepare(struct las *l)
{
	if (!l->stale)
		return;
	l->suffix[l->ns] = 0;
	for (size_t i = l->ns; i-- > 0;)
		l->suffix[i] = l->suffix[i + 1] + l->smp[i];
	l->stale = false;
	l->version++;
}

/* Position of the first sample above v. */
static size_t above(const struct las *l, double v)
{
	size_t lo = 0, hi = l->ns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->smp[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * G(a) with quantum delta on the sorted samples s[0..n).  The samples
 * above a are s[k..n), those that end within delta more s[k..h): P =
 * (h - k) / (n - k), E = (sum(s[k..h)) - (h - k) a + (n - h) delta) /
 * (n - k), so G = (h - k) / (sum - (h - k) a + (n - h) delta).
 */
static double las_gittins_index(const struct las *l, double a)
{
	if (l->ns == 0)
		return 1.0;
	size_t k = above(l, a);
	size_t h = above(l, a + l->delta);
	if (h == k)
		return 0.0;
	double done = (double)(h - k);
	double spent = (l->suffix[k] - l->suffix[h]) - done * a +
		       (double)(l->ns - h) * l->delta;
	return spent > 0 ? done / spent : 0.0;
}

/* Ranking order of gittins inside a queue: index, then submit order (the
 * workload is in (submit, id) order, as job indices are). */
static bool g_ahead(const struct las_job *a, const struct las_job *b)
{
	return a->gi > b->gi || (a->gi == b->gi && a->job->idx < b->job->idx);
}

/* Computes the indices of a list's jobs and sorts it by them: an
 * insertion sort, for short lists that are nearly in order. */
static void g_sort(struct sim *sim, const struct las *l,
		   struct las_list *ls)
{
	for (struct las_job *s = ls->head; s; s = s->next) {
		if (!l->gittins) {
			s->gi = 0.0; /* las: submit order */
			continue;
		}
		/* A waiting job's service does not move: its index is kept
		 * until the samples change. */
		double a = served(sim, l, s->job);
		if (s->gi_version != l->version || s->gi_a != a) {
			s->gi = las_gittins_index(l, a);
			s->gi_a = a;
			s->gi_version = l->version;
		}
	}
	struct las_job *s = ls->head;
	while (s) {
		struct las_job *next = s->next, *o = s->prev;
		if (o && g_ahead(s, o)) {
			list_remove(ls, s);
			while (o->prev && g_ahead(s, o->prev))
				o = o->prev;
			s->prev = o->prev;
			s->next = o;
			if (o->prev)
				o->prev->next = s;
			else
				ls->head = s;
			o->prev = s;
		}
		s = next;
	}
}

/* The better of two list heads for gittins (either may be NULL). */
static struct las_job *g_best(struct las_job *a, struct las_job *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return g_ahead(b, a) ? b : a;
}

/*
 * Ranks queue by queue.  Inside one: its running jobs in their order (with
 * in_queue_preempt, merged with the others by index instead), then its
 * waiting and just demoted jobs merged by (index, submit), each list
 * sorted.  Waiting jobs only while one could still start.
 */
static void g_rank(struct sim *sim, struct las *l)
{
	prepare(l);
	sim_rank_begin(sim);
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_job *r = l->run[q].head;
		if (l->sort_running) {
			g_sort(sim, l, &l->run[q]);
			r = l->run[q].head;
		} else {
			for (; r; r = r->next)
				sim_rank_add(sim, r->job);
		}
		g_sort(sim, l, &l->wait[q]);
		g_sort(sim, l, &l->tail[q]);
		struct las_job *w = l->wait[q].head, *t = l->tail[q].head;
		for (;;) {
			struct las_job *b = g_best(r, t);
			if (w && !sim_rank_full(sim))
				b = g_best(b, w);
			if (!b)
				break;
			sim_rank_add(sim, b->job);
			if (b == r)
				r = r->next;
			else if (b == t)
				t = t->next;
			else
				w = w->next;
		}
	}
}

/*
 * Ranks the jobs queue by queue, each queue in its order (running,
 * waiting, just demoted).  Waiting jobs are listed only while one could
 * still start; every running job is listed, to be kept or preempted -
 * but for those ahead of every waiting job (the running jobs of the
 * queues up to the first that has a waiting job, and those just demoted
 * into the queues before it), which keep their units whatever their
 * order: the engine counts them without the list (sim_rank_begin_with).
 */
static void rank(struct sim *sim, struct las *l)
{
	size_t qw = 0;
	while (qw <= l->nt && !l->wait[qw].head)
		qw++;
	l->ninplay = 0;
	for (size_t q = qw; q <= l->nt; q++) {
		if (q > qw)
			inplay_add(l, &l->run[q]);
		inplay_add(l, &l->tail[q]);
	}
	if (sim_rank_begin_with(sim, l->inplay, l->ninplay)) {
		for (size_t q = qw; q <= l->nt; q++) {
			struct las_job *s;
			for (s = q > qw ? l->run[q].head : NULL; s; s = s->next)
				sim_rank_add(sim, s->job);
			for (s = l->wait[q].head; s && !sim_rank_full(sim);
			     s = s->next)
				sim_rank_add(sim, s->job);
			for (s = l->tail[q].head; s; s = s->next)
				sim_rank_add(sim, s->job);
		}
		return;
	}
	sim_rank_begin(sim);
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_job *s;
		for (s = l->run[q].head; s; s = s->next)
			sim_rank_add(sim, s->job);
		for (s = l->wait[q].head; s && !sim_rank_full(sim); s = s->next)
			sim_rank_add(sim, s->job);
		for (s = l->tail[q].head; s; s = s->next)
			sim_rank_add(sim, s->job);
	}
}

/*
 * After the allocation: the running jobs of each queue (those that ran,
 * those that started, those just demoted, in that order) go ahead of its
 * waiting ones (those preempted, those still waiting, those just demoted
 * and preempted).
 */
static void reorder(struct las *l)
{
	for (size_t q = 0; q <= l->nt; q++) {
		struct las_job *s;
		for (s = l->tail[q].head; s; s = s->next)
			s->demoted = false;
		for (s = l->cut_tail[q].head; s; s = s->next)
			s->demoted = false;
		list_join(&l->run[q], &l->started[q]);
		list_join(&l->run[q], &l->tail[q]);
		list_join(&l->cut[q], &l->wait[q]);
		list_join(&l->cut[q], &l->cut_tail[q]);
		l->wait[q] = l->cut[q];
		l->cut[q] = (struct las_list){ NULL, NULL };
	}
}

/* The first crossing of the running jobs whose keys are up to lim (each
 * key is before the job's crossing, however late it is looked at). */
static sim_time_t next_crossing(struct sim *sim, struct las *l, double lim,
				sim_time_t now)
{
	size_t n;
	const uint32_t *a = sim_heap_upto(l->cross, lim, UINT32_MAX, &n);
	sim_time_t next = SIM_TIME_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct las_job *s = &l->jobs[a[i]];
		const struct job *j = s->job;
		double got = served(sim, l, j);
		double dt = (l->t[s->q] - got) / width(j) * 1e6;
		if (!(dt < (double)(SIM_TIME_MAX - now) * 0.5))
			continue; /* a threshold the clock never reaches */
		sim_time_t t = now + (sim_time_t)ceil(dt > 1 ? dt : 1);
		if (t < next)
			next = t;
	}
	return next;
}

/* Wakes up when a running job crosses a threshold, or a waiting one is
 * due for promotion. */
static void wake(struct sim *sim, struct las *l, sim_time_t now)
{
	sim_time_t next = SIM_TIME_MAX;
	uint32_t first;
	double least;
	if (sim_heap_top(l->cross, &first, &least)) {
		double lim = least + 2 * l->slack_max;
		next = next_crossing(sim, l, lim, now);
		if (next != SIM_TIME_MAX && (double)next > lim) /* a guard */
			next = next_crossing(sim, l, (double)next, now);
	}
	for (size_t q = 1; l->knob > 0 && q <= l->nt; q++) {
		for (struct las_job *s = l->wait[q].head; s; s = s->next) {
			sim_time_t t = s->due <= now ? now + 1 : s->due;
			if (t < next)
				next = t;
		}
	}
	if (next != SIM_TIME_MAX)
		sim_wakeup_at(sim, next);
}

static void las_schedule(struct sim *sim, void *state)
{
	struct las *l = state;
	sim_time_t now = sim_now(sim);
	/* Nobody waits: the ranking would keep every running job, and a
	 * demotion matters only against a waiting job - whose arrival calls
	 * this again (and then the demotions are made in the order of when
	 * they happened). */
	if (sim_queue_len(sim) == 0)
		return;
	demote(sim, l, now);
	if (l->knob > 0)
		promote(sim, l, now);
	if (l->gittins || l->sort_running)
		g_rank(sim, l);
	else
		rank(sim, l);
	sim_rank_apply(sim); /* las_started, las_preempted: what it did */
	reorder(l);
	wake(sim, l, now);
}

/* Reads distribution_s into given (room: n samples), sorted; -1 on a
 * bad list. */
static int read_given(struct sim *sim, struct las *l, const char *s,
		      double *given, struct sim_error *err)
{
	for (const char *p = s; *p;) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !(v > 0) || !isfinite(v) ||
		    (*end && *end != ',')) {
			snprintf(err->msg, sizeof(err->msg),
				 "distribution_s must be positive numbers "
				 "separated by commas, got '%s'", s);
			return -1;
		}
		given[l->ns++] = v;
		p = *end ? end + 1 : end;
	}
	qsort(given, l->ns, sizeof(*given), cmp_double);
	return 0;
}

static int gittins_init(struct sim *sim, void **state, struct sim_error *err)
{
	if (las_init(sim, state, err) != 0)
		return -1;
	struct las *l = *state;
	l->gittins = true;
	l->sort_running = sim_param_bool(sim, "in_queue_preempt");
	l->delta = sim_param_double(sim, "delta_s");
	if (!(l->delta >= 0) || !isfinite(l->delta)) {
		snprintf(err->msg, sizeof(err->msg),
			 "delta_s must be >= 0, got '%g'", l->delta);
		return -1;
	}
	if (l->delta == 0)
		l->delta = l->nt ? l->t[0] : 3600;
	int64_t window = sim_param_int(sim, "window");
	if (window < 1 || window > 10000000) {
		snprintf(err->msg, sizeof(err->msg),
			 "window must be 1 .. 10000000, got '%lld'",
			 (long long)window);
		return -1;
	}
	const char *s = sim_param_str(sim, "distribution_s");
	size_t n = *s != '\0';
	for (const char *p = s; *p; p++)
		n += *p == ',';
	l->window = (size_t)window;
	size_t room = n ? n : l->window;
	l->suffix = sim_alloc(sim, room + 1, sizeof(*l->suffix));
	l->stale = true;
	if (!n) {
		l->learned = sim_window_new(sim, l->window);
		l->smp = sim_window_sorted(l->learned, &l->ns);
		return 0;
	}
	double *given = sim_alloc(sim, n, sizeof(*given));
	l->smp = given;
	return read_given(sim, l, s, given, err);
}

static void las_fini(struct sim *sim, void *state)
{
	struct las *l = state;
	free(l->inplay);
}

static const struct policy_param las_params[] = {
	{ "thresholds_s", PARAM_STRING, "3600",
	  "queue thresholds, resource-seconds, comma-separated" },
	{ "promote_knob", PARAM_DOUBLE, "0",
	  "promote a waiting job once it has waited this many times as long "
	  "as it ran since its last promotion; 0 = off" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ "in_queue_preempt", PARAM_BOOL, "false",
	  "a queue keeps submit order, running or not: a waiting job "
	  "preempts a later one of its own queue (the Pollux artifact's "
	  "Tiresias)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(las,
	.summary = "Tiresias discretised 2D-LAS: queues by attained "
		   "service, preemptive",
	.params = las_params,
	.state_size = sizeof(struct las),
	.job_state_size = sizeof(struct las_job),
	.init = las_init,
	.job_submitted = las_submitted,
	.job_finished = las_finished,
	.fini = las_fini,
	.job_started = las_started,
	.job_preempted = las_preempted,
	.schedule = las_schedule);

static const struct policy_param gittins_params[] = {
	{ "thresholds_s", PARAM_STRING, "3600",
	  "queue thresholds, resource-seconds, comma-separated" },
	{ "promote_knob", PARAM_DOUBLE, "0",
	  "promote a waiting job once it has waited this many times as long "
	  "as it ran since its last promotion; 0 = off" },
	{ "delta_s", PARAM_DOUBLE, "0",
	  "the Gittins quantum, resource-seconds; 0 = the first threshold" },
	{ "distribution_s", PARAM_STRING, "",
	  "service samples, resource-seconds, comma-separated; "
	  "empty = learn from finished jobs" },
	{ "window", PARAM_INT, "1000",
	  "finished jobs the learned distribution keeps" },
	{ "in_queue_preempt", PARAM_BOOL, "false",
	  "a waiting job of higher index preempts a running one of its own "
	  "queue, as Tiresias' simulator sorts them" },
	{ "min_run_s", PARAM_DOUBLE, "0",
	  "a job that (re)starts is not preempted before it has run this "
	  "long, seconds (the engine keeps it: policy.h)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(gittins,
	.summary = "Tiresias discretised 2D-Gittins: las' queues, each "
		   "ordered by Gittins index, preemptive",
	.params = gittins_params,
	.state_size = sizeof(struct las),
	.job_state_size = sizeof(struct las_job),
	.init = gittins_init,
	.job_submitted = las_submitted,
	.job_finished = las_finished,
	.fini = las_fini,
	.job_started = las_started,
	.job_preempted = las_preempted,
	.schedule = las_schedule);
