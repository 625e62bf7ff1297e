/*
 * The replay mode of the openb experiments (fill_replay.h has the model):
 * pods arrive at their creation time, run for (deletion - creation) from
 * the moment they are placed, and leave; placement is the score plugin's
 * (frag_choose), a pod that fits nowhere waits in a FIFO queue.
 *
 * The loop runs on the engine's event queue (evq.h): departures are
 * EV_END events and arrivals EV_SUBMIT ones, so departures at a time come
 * before arrivals at it; only the next arrival is queued (the list is
 * sorted by creation time once).  All departures of one time are applied
 * before the queue is retried.
 *
 * The retry pass is cheap: when it runs, every pod in the queue fitted
 * nowhere at its last try, and since then nodes have only lost resources
 * except those freed by these departures, so a pod is offered to the
 * score plugin only when it fits one of the freed nodes.  This changes
 * nothing but the cost: a pod that fits no node draws nothing from the
 * random plugin either.
 */
#include "fill/fill_replay.h"

#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/evq.h"

/* One arrival: when, and which pod. */
struct replay_arrival {
	sim_time_t t;  /* creation time, us */
	uint32_t pod;  /* position in the list */
};

/* State of one replay. */
struct replay {
	struct frag_cluster *c;
	const struct score_pod *pods;
	size_t n;
	const struct score_ops *score; /* the score plugin */
	struct score_ctx ctx;         /* its run */
	struct replay_result *res;
	struct evq q;                 /* departures and the next arrival */
	struct replay_arrival *arr;   /* arrivals by (time, position) */
	size_t next_arr;              /* next arrival to queue */
	uint32_t *pending;            /* the FIFO queue, head first */
	size_t npending;
	size_t *freed;                /* nodes freed since the last retry */
	size_t nfreed;
	bool *is_freed;               /* node -> in freed[] */
	sim_time_t now;               /* current time */
	uint64_t allocated;           /* GPU share allocated, thousandths */
	uint32_t running;             /* pods placed and not left */
	uint32_t arrived;             /* pods arrived */
	sim_time_t next_sample;       /* next timeline sample time */
	bool sampling;                /* false once next_sample overflowed */
	sim_time_t step;              /* timeline step */
	size_t scap;                  /* samples allocated */
	double alloc_area, frag_area; /* integrals over the window */
	struct sim_error *err;
};

static int arrival_cmp(const void *pa, const void *pb)
{
	const struct replay_arrival *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->pod < b->pod ? -1 : a->pod > b->pod;
}

static int double_cmp(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;
	return a < b ? -1 : a > b;
}

int replay_check_pods(const char *path, const struct score_pod *pods,
		      size_t n, struct sim_error *err)
{
	size_t missing = 0, first = 0;
	for (size_t i = n; i-- > 0;)
		if (pods[i].created < 0) {
			missing++;
			first = i;
		}
	if (missing == 0)
		return 0;
	if (missing == n)
		return err_setc(err, -SIM_EINPUT, "%s: no pod has a "
				"creation_time: a replay needs arrival times "
				"(a list without them, such as multigpu50, is "
				"for \"mode\": \"fill\" only)", path);
	return err_setc(err, -SIM_EINPUT, "%s: pod %zu (0-based position in "
			"the list) has no creation_time: a replay needs one "
			"for every pod", path, first);
}

/* Queues the next arrival, if any. */
static void push_arrival(struct replay *r)
{
	if (r->next_arr < r->n) {
		evq_push(&r->q, r->arr[r->next_arr].t, EV_SUBMIT,
			 (uint32_t)r->next_arr);
		r->next_arr++;
	}
}

/* Tries to place pod i now; true when placed. */
static int try_place(struct replay *r, uint32_t i, bool *placed)
{
	const struct score_pod *p = &r->pods[i];
	struct replay_pod *rp = &r->res->pods[i];
	int gpu = -1;
	*placed = false;
	long nd = frag_choose(&r->ctx, r->score, p, &gpu);
	if (nd < 0)
		return 0;
	sim_time_t run = -1;
	if (p->deleted >= 0) {
		run = (p->deleted - p->created) * SIM_SEC;
		if (r->now > SIM_TIME_MAX - run)
			return err_setc(r->err, -SIM_EINPUT, "pod %u would "
					"leave past the end of the clock", i);
	}
	rp->gpus = frag_place(r->c, (size_t)nd, p, gpu);
	rp->node = (int32_t)nd;
	rp->start = r->now;
	r->allocated += score_pod_gpu_milli(p);
	r->running++;
	r->res->placed++;
	if (r->now > rp->arrival)
		r->res->waited++;
	if (run >= 0)
		evq_push(&r->q, r->now + run, EV_END, i);
	*placed = true;
	return 0;
}

/* Does pod i fit one of the nodes freed since the last retry? */
static bool fits_freed(const struct replay *r, uint32_t i)
{
	for (size_t k = 0; k < r->nfreed; k++)
		if (frag_fits(r->c, r->freed[k], &r->pods[i]))
			return true;
	return false;
}

/* The pending queue, head to tail: place what fits, keep the rest in
 * order. */
static int retry_pending(struct replay *r)
{
	size_t j = 0;
	int rc = 0;
	for (size_t k = 0; k < r->npending; k++) {
		uint32_t i = r->pending[k];
		bool placed = false;
		if (!rc && fits_freed(r, i))
			rc = try_place(r, i, &placed);
		if (!placed)
			r->pending[j++] = i;
	}
	r->npending = j;
	for (size_t k = 0; k < r->nfreed; k++)
		r->is_freed[r->freed[k]] = false;
	r->nfreed = 0;
	return rc;
}

static void depart(struct replay *r, uint32_t i)
{
	const struct score_pod *p = &r->pods[i];
	struct replay_pod *rp = &r->res->pods[i];
	size_t nd = (size_t)rp->node;
	frag_unplace(r->c, nd, p, rp->gpus);
	rp->end = r->now;
	r->allocated -= score_pod_gpu_milli(p);
	r->running--;
	if (!r->is_freed[nd]) {
		r->is_freed[nd] = true;
		r->freed[r->nfreed++] = nd;
	}
}

/*
 * Time moves from r->now to t (> now; SIM_TIME_MAX at the end): the
 * state after every event at r->now holds over [now, t).  Adds it to the
 * window's integrals, records the end state at the last arrival, and
 * takes the samples due before t.
 */
static int advance(struct replay *r, sim_time_t t)
{
	struct replay_result *res = r->res;
	double F = frag_cluster_frag(r->c);
	if (r->now < res->t_last) {
		double dt = (double)((t < res->t_last ? t : res->t_last) -
				     r->now);
		r->alloc_area += (double)r->allocated * dt;
		r->frag_area += F * dt;
	}
	if (r->now == res->t_last) {
		res->alloc_end = r->allocated;
		res->frag_end = F;
		res->pending_end = (uint32_t)r->npending;
	}
	while (r->sampling && r->next_sample < t) {
		if (r->next_sample > res->t_last && !r->npending) {
			r->sampling = false; /* the drain: nothing waits */
			break;
		}
		if (res->nsamples == REPLAY_MAX_SAMPLES) {
			char s[32];
			fmt_time(s, r->step);
			return err_setc(r->err, -SIM_EINPUT, "a timeline step "
					"of '%s' s makes more than %u samples: "
					"give a larger step", s,
					REPLAY_MAX_SAMPLES);
		}
		xgrow(&res->samples, &r->scap, res->nsamples + 1,
		      sizeof(*res->samples));
		res->samples[res->nsamples++] = (struct replay_sample){
			.t = r->next_sample,
			.allocated = r->allocated,
			.frag = F,
			.running = r->running,
			.pending = (uint32_t)r->npending,
			.arrived = r->arrived,
		};
		if (r->next_sample > SIM_TIME_MAX - r->step)
			r->sampling = false;
		else
			r->next_sample += r->step;
	}
	r->now = t;
	return 0;
}

/* Wait statistics of the placed pods. */
static void wait_stats(struct replay *r)
{
	struct replay_result *res = r->res;
	double *w = xmalloc((res->placed ? res->placed : 1) * sizeof(*w));
	size_t k = 0;
	double sum = 0;
	for (size_t i = 0; i < r->n; i++) {
		if (res->pods[i].node < 0)
			continue;
		w[k] = (double)(res->pods[i].start - res->pods[i].arrival) /
		       SIM_SEC;
		sum += w[k++];
	}
	if (k) {
		qsort(w, k, sizeof(*w), double_cmp);
		res->wait_mean = sum / (double)k;
		res->wait_p99 = gsl_stats_quantile_from_sorted_data(w, 1, k,
								   0.99);
		res->wait_max = w[k - 1];
	}
	free(w);
}

int replay_run(struct frag_cluster *c, const struct score_pod *pods,
	       size_t n, const struct score_ops *score, double load_scale,
	       sim_time_t step, uint64_t seed, struct replay_result *res,
	       struct sim_error *err)
{
	memset(res, 0, sizeof(*res));
	if (n == 0 || n > UINT32_MAX)
		return err_setc(err, -SIM_EINPUT, "no pod to replay");
	if (step <= 0)
		return err_setc(err, -SIM_EINPUT, "the timeline step must be "
				"positive");
	if (!(load_scale > 0) || load_scale > 1e9)
		return err_setc(err, -SIM_EINPUT, "the load scale must be in "
				"(0, 1e9]");
	int rc = replay_check_pods("pod list", pods, n, err);
	if (rc)
		return rc;
	struct replay r = {
		.c = c, .pods = pods, .n = n, .score = score, .res = res,
		.step = step, .sampling = true, .err = err,
	};
	frag_ctx_init(&r.ctx, c, seed ^ 0x72706c795f72616eull);
	evq_init(&r.q);
	r.arr = xmalloc(n * sizeof(*r.arr));
	for (size_t i = 0; i < n; i++) {
		sim_time_t t = pods[i].created * SIM_SEC;
		if (load_scale != 1) {
			double d = (double)t / load_scale;
			t = d < 9.2e18 ? llround(d) : SIM_TIME_MAX;
		}
		r.arr[i] = (struct replay_arrival){ .t = t,
						    .pod = (uint32_t)i };
	}
	qsort(r.arr, n, sizeof(*r.arr), arrival_cmp);
	r.pending = xmalloc(n * sizeof(*r.pending));
	r.freed = xmalloc((c->nnodes ? c->nnodes : 1) * sizeof(*r.freed));
	r.is_freed = xcalloc(c->nnodes ? c->nnodes : 1, sizeof(*r.is_freed));
	res->npods = n;
	res->pods = xmalloc(n * sizeof(*res->pods));
	for (size_t i = 0; i < n; i++)
		res->pods[i] = (struct replay_pod){ .start = SIM_TIME_NONE,
						    .end = SIM_TIME_NONE,
						    .node = -1 };
	for (size_t i = 0; i < n; i++)
		res->pods[r.arr[i].pod].arrival = r.arr[i].t;
	res->t_first = r.arr[0].t;
	res->t_last = r.arr[n - 1].t;
	r.now = r.next_sample = res->t_first;
	frag_cluster_reset(c);
	push_arrival(&r);

	sim_time_t t;
	enum ev_phase ph;
	while (!rc && evq_peek(&r.q, &t, &ph)) {
		if (t > r.now && (rc = advance(&r, t)))
			break;
		uint32_t i;
		if (ph == EV_END) {
			/* Every departure of this time, then one retry. */
			while (evq_peek(&r.q, &t, &ph) && t == r.now &&
			       ph == EV_END) {
				evq_pop(&r.q, &t, &ph, &i);
				depart(&r, i);
				res->events++;
			}
			rc = retry_pending(&r);
			continue;
		}
		evq_pop(&r.q, &t, &ph, &i);
		SIM_ASSERT(ph == EV_SUBMIT);
		uint32_t pod = r.arr[i].pod;
		bool placed;
		r.arrived++;
		res->events++;
		push_arrival(&r);
		rc = try_place(&r, pod, &placed);
		if (!rc && !placed)
			r.pending[r.npending++] = pod;
	}
	/* The last state: its samples and, at the last arrival, the end. */
	res->t_end = r.now;
	if (!rc)
		rc = advance(&r, r.now < SIM_TIME_MAX ? r.now + 1 : r.now);
	if (!rc) {
		res->never = r.npending;
		double len = (double)(res->t_last - res->t_first);
		res->alloc_avg = len > 0 ? r.alloc_area / len
					 : (double)res->alloc_end;
		res->frag_avg = len > 0 ? r.frag_area / len : res->frag_end;
		wait_stats(&r);
	} else {
		replay_result_release(res);
	}
	free(r.is_freed);
	free(r.freed);
	free(r.pending);
	free(r.arr);
	evq_release(&r.q);
	frag_ctx_release(&r.ctx);
	return rc;
}

void replay_result_release(struct replay_result *res)
{
	if (!res)
		return;
	free(res->pods);
	free(res->samples);
	memset(res, 0, sizeof(*res));
}
