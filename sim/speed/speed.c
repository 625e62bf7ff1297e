/*
 * The speed model of running GPU jobs: GPU type from the throughput table
 * (jobclass.c), communication from the fabric (net.c).  speed.h states the
 * model; this file keeps, per node group, the table's index of its GPU
 * type, and hands the fabric each GPU job's nodes as it starts and ends.
 */
#include "speed/speed_impl.h"

#include <math.h>
#include <stdlib.h>

#include "speed/jobclass.h"
#include "speed/goodput.h"
#include "base/splitmix.h"
#include "base/util.h"


/* Under rule "none": class cls has a figure on every typed GPU group. */
static int check_class(const struct cluster_spec *spec,
		       const struct jobclass_overrides *thr, unsigned cls,
		       const char *prefix, struct sim_error *err)
{
	for (size_t g = 0; g < spec->ngroups; g++) {
		const char *t = spec->groups[g].gpu_type;
		int gi = t ? jobclass_ovr_gpu_lookup(thr, t, NULL) : -1;
		if (gi < 0 || !spec->groups[g].gpus ||
		    !isnan(jobclass_thr1(thr, cls, gi)))
			continue;
		return err_set(err, "%s$.derive_throughputs: job class '%s' "
			       "has no throughput on gpu type '%s' "
			       "($.cluster.nodes[%zu]) and \"none\" derives "
			       "none: give it in \"throughputs\", or derive "
			       "it with \"fp32_membw\" or \"fp32\"", prefix,
			       jobclass_get(cls)->name, t, g);
	}
	return 0;
}

/* The figures check of speed_check (rule "none"). */
static int check_figures(const struct cluster_spec *spec,
			 const struct jobclass_overrides *thr,
			 const struct job *jobs, size_t n, bool draw,
			 const char *prefix, struct sim_error *err)
{
	bool drawn = draw && !jobs;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const struct job *j = &jobs[i];
		if (!speed_job_has_class(j))
			continue;
		if (j->job_class == JOB_CLASS_NONE)
			drawn = drawn || draw;
		else
			rc = check_class(spec, thr, j->job_class, prefix, err);
	}
	for (unsigned c = 1; drawn && !rc && c <= JOBCLASS_NGAVEL; c++)
		rc = check_class(spec, thr, c, prefix, err);
	return rc;
}

int speed_check(const struct cluster_spec *spec,
		const struct jobclass_overrides *thr, const struct job *jobs,
		size_t n, bool draw, const char *prefix,
		struct sim_error *err)
{
	for (size_t g = 0; g < spec->ngroups; g++) {
		const char *t = spec->groups[g].gpu_type;
		struct sim_error e;
		if (t && jobclass_ovr_gpu_lookup(thr, t, &e) < 0)
			return err_set(err, "%s$.cluster.nodes[%zu].gpu_type: %s "
				       "(neither a built-in type nor one of "
				       "\"gpu_types\": docs/gpu-models.md)",
				       prefix, g, e.msg);
	}
	if (thr && thr->derive == JOBCLASS_DERIVE_NONE)
		return check_figures(spec, thr, jobs, n, draw, prefix, err);
	return 0;
}

struct speed *speed_new(const struct cluster_spec *spec,
			const struct net_spec *net, int ref,
			const struct jobclass_overrides *thr)
{
	struct speed *sp = xcalloc(1, sizeof(*sp));
	uint32_t n = 0;
	sp->ref = ref;
	sp->thr = thr;
	sp->ngroups = spec->ngroups;
	sp->gstart = xmalloc((spec->ngroups + 1) * sizeof(*sp->gstart));
	sp->gtype = xmalloc(spec->ngroups * sizeof(*sp->gtype));
	sp->ggpus = xmalloc((spec->ngroups ? spec->ngroups : 1) *
			    sizeof(*sp->ggpus));
	for (size_t g = 0; g < spec->ngroups; g++) {
		const char *t = spec->groups[g].gpu_type;
		sp->gstart[g] = n;
		sp->ggpus[g] = spec->groups[g].gpus;
		sp->gtype[g] = t ? jobclass_ovr_gpu_lookup(thr, t, NULL) : ref;
		SIM_ASSERT(sp->gtype[g] >= 0); /* speed_check passed */
		n += spec->groups[g].count;
	}
	sp->gstart[spec->ngroups] = n;
	struct net_spec ns = *net;
	ns.rack_nodes = spec->rack_nodes ? spec->rack_nodes : n;
	sp->net = net_new(&ns, n);
	sp->nvlink_Bps = ns.nvlink_gBps * 1e9;
	return sp;
}

void speed_free(struct speed *sp)
{
	if (!sp)
		return;
	net_free(sp->net);
	free(sp->gstart);
	free(sp->gtype);
	free(sp->ggpus);
	free(sp->lp);
	free(sp->scratch);
	free(sp->nodes);
	free(sp->gpus);
	free(sp);
}

/* The table GPU type of a node (groups are few: a linear scan). */
int speed_node_type(const struct speed *sp, uint32_t node)
{
	size_t g = 0;
	while (node >= sp->gstart[g + 1])
		g++;
	return sp->gtype[g];
}

bool speed_job_has_class(const struct job *j)
{
	return j->gpus && !j->goodput_app && !j->llm;
}

unsigned speed_draw_class(uint64_t seed, uint32_t idx)
{
	return 1 + (unsigned)(splitmix64_stream(seed, idx) % JOBCLASS_NGAVEL);
}

void speed_job_started(struct speed *sp, const struct job *j,
		       const struct placement *p)
{
	size_t k = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];
		for (uint32_t m = 0; m < s->count && s->gpus; m++) {
			if (k == sp->cap) {
				size_t cap = sp->cap;
				xgrow(&sp->nodes, &cap, k + 1, sizeof(*sp->nodes));
				cap = sp->cap;
				xgrow(&sp->gpus, &cap, k + 1, sizeof(*sp->gpus));
				sp->cap = cap;
			}
			sp->nodes[k] = s->node + m;
			sp->gpus[k++] = s->gpus;
		}
	}
	struct sim_error err;
	if (k && net_job_add(sp->net, j->idx, sp->nodes, sp->gpus,
			     (uint32_t)k, &err) != 0)
		SIM_BUG("fabric refused job %lld: %s", (long long)j->id,
			err.msg);
}

void speed_job_ended(struct speed *sp, const struct job *j)
{
	struct sim_error err;
	if (net_job_remove(sp->net, j->idx, &err) != 0)
		SIM_BUG("fabric lost job %lld: %s", (long long)j->id, err.msg);
}

size_t speed_changed(struct speed *sp, const int64_t **changed)
{
	return net_rates(sp->net, changed);
}

/* Seconds per iteration on one GPU of table type gpu (the experiment's
 * override, else the table's), or NaN when there is no positive figure. */
static double step_seconds(const struct speed *sp, unsigned cls, int gpu)
{
	double thr = jobclass_thr1(sp->thr, cls, gpu);
	return thr > 0 ? 1.0 / thr : NAN;
}

/*
 * The parts of a running job's rate (speed.h): t_ref, t_gpu, a and a_ref,
 * in seconds per step.  False when
 * the job runs at rate 1 whatever its placement (no class, no reference
 * figure, no GPUs).
 */
static bool rate_parts(struct speed *sp, const struct job *j,
		       const struct placement *p, bool alone, double *t_ref_out,
		       double *t_gpu_out, double *a_out, double *a_ref_out)
{
	if (j->job_class == JOB_CLASS_NONE)
		return false;
	double t_ref = step_seconds(sp, j->job_class, sp->ref);
	if (!(t_ref > 0))
		return false; /* no reference figure: no model for this class */
	/* The slowest GPU the job holds sets its pace; a type the table
	 * has no figure for counts as the reference type. */
	double t_gpu = 0, t = 0;
	uint32_t p_gpus = 0;
	int type = -2; /* the type t is for: none yet */
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];
		if (!s->gpus)
			continue;
		p_gpus += s->count * s->gpus;
		for (uint32_t m = 0; m < s->count; m++) {
			/* Nodes of one type in a row: one look-up. */
			int ty = speed_node_type(sp, s->node + m);
			if (ty != type) {
				type = ty;
				t = step_seconds(sp, j->job_class, ty);
				if (!(t > 0))
					t = t_ref;
			}
			if (t > t_gpu)
				t_gpu = t;
		}
	}
	if (p_gpus == 0)
		return false;
	double bytes = (double)jobclass_grad_bytes_ovr(sp->thr, j->job_class);
	double a = 0, a_ref = 0;
	if (bytes > 0 && p_gpus > 1) {
		a = alone ? net_job_allreduce_alone(sp->net, j->idx, bytes)
			  : net_job_allreduce_seconds(sp->net, j->idx, bytes);
		a_ref = net_allreduce_seconds(p_gpus, bytes, sp->nvlink_Bps, 0);
		SIM_ASSERT(a >= 0);
	}
	*t_ref_out = t_ref;
	*t_gpu_out = t_gpu;
	*a_out = a;
	*a_ref_out = a_ref;
	return true;
}

/*
 * A Pollux-style job (goodput.h): its measured step time on p relative
 * to its packed reference placement.  The measurements include the
 * all-reduce on the artifact's testbed, so alone and ideal are the same.
 */
static double app_rate(struct speed *sp, const struct job *j,
		       const struct placement *p)
{
	struct goodput_batch b, ref;
	if (goodput_batch(j->goodput_app, j->batch, j->gpus, &b, NULL) != 0)
		return 1.0; /* the reader and sim_job_resize checked it */
	size_t k = 0;
	for (uint32_t i = 0; i < p->n; i++)
		for (uint32_t m = 0; m < p->slots[i].count; m++) {
			if (k == sp->cap) {
				size_t cap = sp->cap;
				xgrow(&sp->gpus, &cap, k + 1, sizeof(*sp->gpus));
				cap = sp->cap;
				xgrow(&sp->nodes, &cap, k + 1,
				      sizeof(*sp->nodes));
				sp->cap = cap;
			}
			sp->gpus[k++] = p->slots[i].gpus;
		}
	if (j->gpus == j->ref_gpus && j->batch == j->ref_batch)
		return goodput_rate(j->goodput_app, &b, j->gpus, sp->gpus, k);
	if (goodput_batch(j->goodput_app, j->ref_batch, j->ref_gpus, &ref,
			  NULL) != 0)
		return 1.0;
	return goodput_rate_adapted(j->goodput_app, &ref, j->ref_gpus, &b,
				    sp->gpus, k);
}

double speed_rate(struct speed *sp, const struct job *j,
		  const struct placement *p)
{
	double t_ref, t_gpu, a, a_ref;
	if (j->goodput_app)
		return app_rate(sp, j, p);
	if (j->llm && sp->llm)
		return speed_llm_rate(sp, j, SPEED_LLM_NOW);
	if (!rate_parts(sp, j, p, false, &t_ref, &t_gpu, &a, &a_ref))
		return 1.0;
	return (t_ref + a_ref) / (t_gpu + a);
}

double speed_rate_alone(struct speed *sp, const struct job *j,
			const struct placement *p)
{
	double t_ref, t_gpu, a, a_ref;
	if (j->goodput_app)
		return app_rate(sp, j, p);
	if (j->llm && sp->llm)
		return speed_llm_rate(sp, j, SPEED_LLM_ALONE);
	if (!rate_parts(sp, j, p, true, &t_ref, &t_gpu, &a, &a_ref))
		return 1.0;
	return (t_ref + a_ref) / (t_gpu + a);
}

double speed_rate_ideal(struct speed *sp, const struct job *j,
			const struct placement *p)
{
	double t_ref, t_gpu, a, a_ref;
	if (j->goodput_app)
		return app_rate(sp, j, p);
	if (j->llm && sp->llm)
		return speed_llm_rate(sp, j, SPEED_LLM_IDEAL);
	if (!rate_parts(sp, j, p, false, &t_ref, &t_gpu, &a, &a_ref))
		return 1.0;
	return (t_ref + a_ref) / (t_gpu + a_ref);
}

double speed_rate_pair(struct speed *sp, const struct job *j,
		       const struct placement *p, double *ideal)
{
	double t_ref, t_gpu, a, a_ref;
	if (j->goodput_app || (j->llm && sp->llm) ||
	    !rate_parts(sp, j, p, false, &t_ref, &t_gpu, &a, &a_ref)) {
		*ideal = speed_rate_ideal(sp, j, p);
		return speed_rate(sp, j, p);
	}
	*ideal = (t_ref + a_ref) / (t_gpu + a_ref);
	return (t_ref + a_ref) / (t_gpu + a);
}

double speed_class_rate(unsigned cls, int gpu, int ref,
			const struct jobclass_overrides *thr)
{
	if (cls == JOB_CLASS_NONE || gpu < 0 || ref < 0)
		return 1.0;
	double a = jobclass_thr1(thr, cls, gpu);
	double r = jobclass_thr1(thr, cls, ref);
	if (!(a > 0) || !(r > 0))
		return 1.0;
	double x = a / r;
	return isfinite(x) && x > 0 ? x : 1.0;
}
