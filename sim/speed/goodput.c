/*
 * The goodput model of Pollux-style jobs (goodput.h): the artifact's
 * applications, read as its simulator reads them (petuum/adaptdl,
 * osdi21-artifact, simulator/applications.py and simulator.py at
 * de25dcc: get_throughput, get_grad_stats, get_progress,
 * update_local_bsz, Job.step).
 *
 * Throughput: a placement the application measured (placements.csv: up
 * to 4 nodes, as GPUs per node in their smallest rotation) is
 * interpolated linearly in the atomic batch size, as its interp1d.  Any
 * other placement is read from the measurements by (nodes, replicas):
 * the mean of the measured placements of those nodes and replicas (its
 * groupby mean) and scalability.csv (6, 8, 12, 16 nodes).  The artifact
 * interpolates those with scipy's LinearNDInterpolator over a Delaunay
 * triangulation in (nodes, replicas, batch); here, where the point
 * (nodes, replicas) is measured, linearly in the batch size, else
 * linearly in the replicas between the two measured neighbours with
 * the same nodes, else in the nodes with the same replicas, else the
 * nearest measured point.  The two agree at the measured points.
 *
 * Efficiency: sqr and var interpolated linearly in the total batch size
 * between the two validated sizes around it; progress at the end of
 * epoch e is the smallest over the validated sizes (get_progress).
 */
#include "speed/goodput.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "speed/goodput_impl.h"
#include "base/util.h"

static const struct goodput_app *const apps[] = {
	&goodput_app_bert, &goodput_app_cifar10, &goodput_app_deepspeech2,
	&goodput_app_imagenet, &goodput_app_ncf, &goodput_app_yolov3,
};

/* Distinct batch sizes one (nodes, replicas) point has: few. */
#define MAX_LBSZ 64

unsigned goodput_app_count(void)
{
	return (unsigned)ARRAY_SIZE(apps);
}

static const struct goodput_app *app_get(unsigned app)
{
	SIM_ASSERT(app >= 1 && app <= ARRAY_SIZE(apps));
	return apps[app - 1];
}

const char *goodput_app_name(unsigned app)
{
	return app >= 1 && app <= ARRAY_SIZE(apps) ? apps[app - 1]->name : NULL;
}

int goodput_app_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(apps); i++)
		if (strcmp(apps[i]->name, name) == 0)
			return (int)i + 1;
	return -1;
}

static uint32_t min_local(const struct goodput_app *a)
{
	uint32_t m = UINT32_MAX;
	for (size_t i = 0; i < a->nplace; i++)
		if (a->place[i].lbsz < m)
			m = a->place[i].lbsz;
	return m;
}

static uint32_t max_local(const struct goodput_app *a)
{
	if (a->max_local_bsz)
		return a->max_local_bsz;
	uint32_t m = 0;
	for (size_t i = 0; i < a->nplace; i++)
		if (a->place[i].lbsz > m)
			m = a->place[i].lbsz;
	return m;
}

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
	return (a + b - 1) / b;
}

int goodput_batch(unsigned app, uint32_t batch, uint32_t replicas,
		  struct goodput_batch *out, struct sim_error *err)
{
	const struct goodput_app *a = app_get(app);
	uint32_t init = a->bsz[0], max = a->bsz[a->nbsz - 1];
	if (replicas == 0 || batch < init || batch > max)
		return err_set(err, "batch size '%u' of %s on %u GPUs is "
			       "outside its measured %u .. %u", batch,
			       a->name, replicas, init, max);
	uint32_t local = ceil_div(batch, replicas);
	uint32_t accum = ceil_div(local, max_local(a)) - 1;
	if (replicas == 1 && batch > init && accum < 1)
		accum = 1;
	uint32_t atomic = ceil_div(local, accum + 1);
	uint32_t cap = max / (replicas * (accum + 1));
	if (atomic > cap)
		atomic = cap;
	if (atomic < min_local(a))
		return err_set(err, "batch size '%u' of %s on %u GPUs gives "
			       "%u examples per GPU, below its measured %u",
			       batch, a->name, replicas, atomic, min_local(a));
	out->atomic = atomic;
	out->accum = accum;
	out->total = replicas * atomic * (accum + 1);
	return 0;
}

/* Linear interpolation of (x[i], y[i]) at v, x rising; clamped. */
static double interp(const double *x, const double *y, size_t n, double v)
{
	if (v <= x[0])
		return y[0];
	for (size_t i = 1; i < n; i++)
		if (v <= x[i])
			return y[i - 1] + (y[i] - y[i - 1]) * (v - x[i - 1]) /
					  (x[i] - x[i - 1]);
	return y[n - 1];
}

/* A curve over the batch size: the mean step and sync time of the
 * measurements at each distinct batch size, rising. */
struct curve {
	size_t n;
	double x[MAX_LBSZ], step[MAX_LBSZ], sync[MAX_LBSZ], cnt[MAX_LBSZ];
};

static void curve_add(struct curve *c, uint32_t lbsz, double step,
		      double sync)
{
	size_t i = 0;
	while (i < c->n && c->x[i] < lbsz)
		i++;
	if (i == c->n || c->x[i] != lbsz) {
		SIM_ASSERT(c->n < MAX_LBSZ);
		size_t k = c->n - i;
		memmove(&c->x[i + 1], &c->x[i], k * sizeof(double));
		memmove(&c->step[i + 1], &c->step[i], k * sizeof(double));
		memmove(&c->sync[i + 1], &c->sync[i], k * sizeof(double));
		memmove(&c->cnt[i + 1], &c->cnt[i], k * sizeof(double));
		c->x[i] = lbsz;
		c->step[i] = c->sync[i] = c->cnt[i] = 0;
		c->n++;
	}
	c->step[i] += step;
	c->sync[i] += sync;
	c->cnt[i] += 1;
}

static bool curve_at(struct curve *c, double lbsz, double *step,
		     double *sync)
{
	if (!c->n)
		return false;
	for (size_t i = 0; i < c->n; i++) {
		c->step[i] /= c->cnt[i];
		c->sync[i] /= c->cnt[i];
		c->cnt[i] = 1;
	}
	*step = interp(c->x, c->step, c->n, lbsz);
	*sync = interp(c->x, c->sync, c->n, lbsz);
	return true;
}

static uint32_t digits_nodes(uint32_t id)
{
	uint32_t n = 0;
	for (; id; id /= 10)
		n++;
	return n;
}

static uint32_t digits_sum(uint32_t id)
{
	uint32_t s = 0;
	for (; id; id /= 10)
		s += id % 10;
	return s;
}

/* The (nodes, replicas) point at batch lbsz, from both tables. */
static bool point_at(const struct goodput_app *a, uint32_t nodes,
		     uint32_t replicas, double lbsz, double *step,
		     double *sync)
{
	struct curve c = { 0 };
	for (size_t i = 0; i < a->nplace; i++) {
		const struct goodput_point *p = &a->place[i];
		if (digits_nodes(p->placement) == nodes &&
		    digits_sum(p->placement) == replicas)
			curve_add(&c, p->lbsz, p->step, p->sync);
	}
	for (size_t i = 0; i < a->nscal; i++) {
		const struct goodput_scal *p = &a->scal[i];
		if (p->nodes == nodes && p->replicas == replicas)
			curve_add(&c, p->lbsz, p->step, p->sync);
	}
	return curve_at(&c, lbsz, step, sync);
}

/* Which (nodes, replicas) points either table measures, for nodes up
 * to 16 and replicas up to 16 x 4. */
#define MAX_NODES 16
#define MAX_REPL (MAX_NODES * GOODPUT_NODE_GPUS)
struct known {
	bool at[MAX_NODES + 1][MAX_REPL + 1];
};

static void known_points(const struct goodput_app *a, struct known *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < a->nplace; i++) {
		uint32_t n = digits_nodes(a->place[i].placement);
		uint32_t r = digits_sum(a->place[i].placement);
		if (n <= MAX_NODES && r <= MAX_REPL)
			k->at[n][r] = true;
	}
	for (size_t i = 0; i < a->nscal; i++)
		if (a->scal[i].nodes <= MAX_NODES &&
		    a->scal[i].replicas <= MAX_REPL)
			k->at[a->scal[i].nodes][a->scal[i].replicas] = true;
}

static bool point_known(const struct known *k, uint32_t nodes,
			uint32_t replicas)
{
	return nodes <= MAX_NODES && replicas <= MAX_REPL &&
	       k->at[nodes][replicas];
}

/* The measured neighbours of v along one axis (the other fixed): the
 * largest below and smallest above; 0 where there is none. */
static void neighbours(const struct known *kn, bool along_replicas,
		       uint32_t fixed, uint32_t v, uint32_t *lo, uint32_t *hi)
{
	*lo = *hi = 0;
	uint32_t top = along_replicas ? MAX_REPL : MAX_NODES;
	for (uint32_t k = 1; k <= top; k++) {
		bool known = along_replicas ? point_known(kn, fixed, k)
					    : point_known(kn, k, fixed);
		if (!known)
			continue;
		if (k < v)
			*lo = k;
		if (k > v && !*hi)
			*hi = k;
	}
}

/* Step and sync seconds of a placement no table lists (see top). */
static void unmeasured(const struct goodput_app *a, uint32_t nodes,
		       uint32_t replicas, double lbsz, double *step,
		       double *sync)
{
	if (nodes > MAX_NODES)
		nodes = MAX_NODES;
	if (point_at(a, nodes, replicas, lbsz, step, sync))
		return;
	struct known kn;
	known_points(a, &kn);
	for (int axis = 0; axis < 2; axis++) {
		bool along_r = axis == 0;
		uint32_t v = along_r ? replicas : nodes, lo, hi;
		neighbours(&kn, along_r, along_r ? nodes : replicas, v, &lo,
			   &hi);
		if (!lo || !hi)
			continue;
		double s0, y0, s1, y1;
		point_at(a, along_r ? nodes : lo, along_r ? lo : replicas, lbsz,
			 &s0, &y0);
		point_at(a, along_r ? nodes : hi, along_r ? hi : replicas, lbsz,
			 &s1, &y1);
		double f = (double)(v - lo) / (double)(hi - lo);
		*step = s0 + (s1 - s0) * f;
		*sync = y0 + (y1 - y0) * f;
		return;
	}
	/* The nearest measured point (nodes, then replicas, distance). */
	uint32_t bn = 1, br = 1, bd = UINT32_MAX;
	for (uint32_t n = 1; n <= MAX_NODES; n++)
		for (uint32_t r = n; r <= n * GOODPUT_NODE_GPUS; r++) {
			if (!point_known(&kn, n, r))
				continue;
			uint32_t d = (n > nodes ? n - nodes : nodes - n) +
				     (r > replicas ? r - replicas : replicas - r);
			if (d < bd) {
				bd = d;
				bn = n;
				br = r;
			}
		}
	point_at(a, bn, br, lbsz, step, sync);
}

/* The placement's id in the tables' form (smallest rotation as decimal
 * digits), or 0 when it cannot be one (a node of 10+ GPUs, 10+ nodes). */
static uint32_t placement_id(const uint32_t *gpus, size_t n)
{
	uint32_t v[9];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (!gpus[i])
			continue;
		if (k == 9 || gpus[i] > 9)
			return 0;
		v[k++] = gpus[i];
	}
	uint32_t best = 0;
	for (size_t r = 0; r < k; r++) {
		uint32_t id = 0;
		for (size_t i = 0; i < k; i++)
			id = id * 10 + v[(r + i) % k];
		if (!best || id < best)
			best = id;
	}
	return best;
}

double goodput_step_seconds(unsigned app, const uint32_t *gpus, size_t n,
			    const struct goodput_batch *b)
{
	const struct goodput_app *a = app_get(app);
	uint32_t id = placement_id(gpus, n);
	double step = NAN, sync = NAN;
	struct curve c = { 0 };
	for (size_t i = 0; id && i < a->nplace; i++)
		if (a->place[i].placement == id)
			curve_add(&c, a->place[i].lbsz, a->place[i].step,
				  a->place[i].sync);
	if (!curve_at(&c, b->atomic, &step, &sync)) {
		uint32_t nodes = 0, replicas = 0;
		for (size_t i = 0; i < n; i++)
			if (gpus[i]) {
				nodes++;
				replicas += gpus[i];
			}
		unmeasured(a, nodes, replicas, b->atomic, &step, &sync);
	}
	return step + (step - sync) * b->accum;
}

/* Gradient statistics of total batch `total` in epoch e, interpolated
 * between the validated sizes around it. */
static void grad_stats(const struct goodput_app *a, double total,
		       unsigned e, double *sqr, double *var)
{
	size_t lo = 0, hi = a->nbsz - 1;
	for (size_t i = 0; i < a->nbsz; i++) {
		if (a->bsz[i] <= total)
			lo = i;
		if (a->bsz[i] >= total) {
			hi = i;
			break;
		}
	}
	const struct goodput_epoch *l = &a->epochs[lo * a->max_epochs + e];
	const struct goodput_epoch *u = &a->epochs[hi * a->max_epochs + e];
	if (lo == hi || a->bsz[hi] == a->bsz[lo]) {
		*sqr = l->grad_sqr;
		*var = l->grad_var;
		return;
	}
	double f = (total - a->bsz[lo]) / (double)(a->bsz[hi] - a->bsz[lo]);
	*sqr = l->grad_sqr + (u->grad_sqr - l->grad_sqr) * f;
	*var = l->grad_var + (u->grad_var - l->grad_var) * f;
}

double goodput_gain(unsigned app, double total, unsigned epoch)
{
	const struct goodput_app *a = app_get(app);
	SIM_ASSERT(epoch < a->max_epochs);
	double sqr, var, scale = total / a->bsz[0];
	grad_stats(a, total, epoch, &sqr, &var);
	return (var + sqr) / (var / scale + sqr);
}

/* Progress at the end of epoch e (0-based): the smallest of the
 * validated sizes'. */
static double progress_end(const struct goodput_app *a, unsigned e)
{
	double m = INFINITY;
	for (size_t i = 0; i < a->nbsz; i++)
		m = fmin(m, a->epochs[i * a->max_epochs + e].progress);
	return m;
}

double goodput_target_steps(unsigned app, double total)
{
	const struct goodput_app *a = app_get(app);
	double steps = 0, prev = 0;
	for (unsigned e = 0; e < a->max_epochs; e++) {
		double next = progress_end(a, e);
		steps += (next - prev) / goodput_gain(app, total, e);
		prev = next;
	}
	return steps;
}

/* The reference placement: replicas packed into full nodes. */
static size_t packed(uint32_t replicas, uint32_t *gpus, size_t cap)
{
	size_t n = 0;
	while (replicas && n < cap) {
		gpus[n] = replicas < GOODPUT_NODE_GPUS ? replicas
						       : GOODPUT_NODE_GPUS;
		replicas -= gpus[n++];
	}
	return n;
}

#define MAX_REF_NODES 64

double goodput_work_seconds(unsigned app, const struct goodput_batch *b,
			    uint32_t replicas)
{
	uint32_t g[MAX_REF_NODES];
	size_t n = packed(replicas, g, MAX_REF_NODES);
	return goodput_target_steps(app, b->total) *
	       goodput_step_seconds(app, g, n, b);
}

double goodput_rate(unsigned app, const struct goodput_batch *b,
		    uint32_t replicas, const uint32_t *gpus, size_t n)
{
	uint32_t g[MAX_REF_NODES];
	size_t k = packed(replicas, g, MAX_REF_NODES);
	double ref = goodput_step_seconds(app, g, k, b);
	double t = goodput_step_seconds(app, gpus, n, b);
	return t > 0 && ref > 0 ? ref / t : 1.0;
}

double goodput_rate_adapted(unsigned app, const struct goodput_batch *ref,
			    uint32_t ref_gpus, const struct goodput_batch *cur,
			    const uint32_t *gpus, size_t n)
{
	double t = goodput_target_steps(app, cur->total) *
		   goodput_step_seconds(app, gpus, n, cur);
	double w = goodput_work_seconds(app, ref, ref_gpus);
	return t > 0 && w > 0 ? w / t : 1.0;
}

uint32_t goodput_max_gpus(unsigned app, uint32_t batch)
{
	const struct goodput_app *a = app_get(app);
	uint32_t m = batch / min_local(a);
	if (a->max_gpus && a->max_gpus < m)
		m = a->max_gpus;
	return m;
}
