/*
 * Lookups through an experiment's overlay of the job-class tables
 * (jobclass_override.h): an overridden figure wins, then the const
 * default tables of jobclass.c, then the figure the experiment's rule
 * derives from the GPU types' data-sheet figures; and the experiment's
 * own GPU types after the built-in ones.
 */
#include "speed/jobclass_override.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

const char *const jobclass_derive_names[JOBCLASS_NDERIVE] = {
	[JOBCLASS_DERIVE_FP32_MEMBW] = "fp32_membw",
	[JOBCLASS_DERIVE_FP32] = "fp32",
	[JOBCLASS_DERIVE_NONE] = "none",
};

void jobclass_overrides_release(struct jobclass_overrides *o)
{
	if (!o)
		return;
	free(o->v);
	o->v = NULL;
	o->n = 0;
	for (size_t i = 0; i < o->ntypes; i++) {
		/* the experiment's own strings (const for the built-in rows) */
		free((char *)o->types[i].name);
		free((char *)o->types[i].model);
		free((char *)o->types[i].source);
	}
	free(o->types);
	o->types = NULL;
	o->ntypes = 0;
}

size_t jobclass_ovr_gpu_count(const struct jobclass_overrides *o)
{
	return JOBCLASS_NGPU + (o ? o->ntypes : 0);
}

const struct jobclass_gpu_info *
jobclass_ovr_gpu(const struct jobclass_overrides *o, int gpu)
{
	if (gpu < 0)
		return NULL;
	if (gpu < JOBCLASS_NGPU)
		return jobclass_gpu_at((size_t)gpu);
	if (o && (size_t)gpu - JOBCLASS_NGPU < o->ntypes)
		return &o->types[gpu - JOBCLASS_NGPU];
	return NULL;
}

int jobclass_ovr_gpu_lookup(const struct jobclass_overrides *o,
			    const char *name, struct sim_error *err)
{
	/* The experiment's own names first: its "h100-pcie" is not the
	 * built-in h100 that the suffix rule would make of it. */
	for (size_t i = 0; o && name && i < o->ntypes; i++)
		if (jobclass_same_name(name, o->types[i].name))
			return JOBCLASS_NGPU + (int)i;
	return jobclass_gpu_lookup(name, err);
}

double jobclass_derive_factor(enum jobclass_derive rule,
			      const struct jobclass_gpu_info *to,
			      const struct jobclass_gpu_info *from)
{
	if (!to || !from || !(to->fp32_tflops > 0) ||
	    !(from->fp32_tflops > 0))
		return NAN;
	double f = to->fp32_tflops / from->fp32_tflops;
	if (rule == JOBCLASS_DERIVE_FP32)
		return f;
	if (rule != JOBCLASS_DERIVE_FP32_MEMBW || !(to->memory_GBps > 0) ||
	    !(from->memory_GBps > 0))
		return NAN;
	return sqrt(f * (to->memory_GBps / from->memory_GBps));
}

/* The rule's distance between two types' figures. */
static double derive_distance(enum jobclass_derive rule,
			      const struct jobclass_gpu_info *a,
			      const struct jobclass_gpu_info *b)
{
	double f = log(a->fp32_tflops / b->fp32_tflops);
	if (rule == JOBCLASS_DERIVE_FP32)
		return fabs(f);
	double m = log(a->memory_GBps / b->memory_GBps);
	return sqrt(f * f + m * m);
}

/* A figure measured for cls on gpu: the override, or Gavel's table on its
 * three types; NaN when there is none. */
static double measured(const struct jobclass_overrides *o, unsigned cls,
		       int gpu, enum jobclass_figure *kind)
{
	const struct jobclass_override *ov = jobclass_override_find(o, cls);
	if (ov && gpu >= 0 && gpu < JOBCLASS_GPU_MAX && ov->thr[gpu] > 0) {
		*kind = JOBCLASS_FIG_OVERRIDE;
		return ov->thr[gpu];
	}
	*kind = JOBCLASS_FIG_MEASURED;
	return gpu < JOBCLASS_NGPU_GAVEL
		       ? jobclass_throughput(cls, gpu, 1, true) : NAN;
}

double jobclass_thr1_origin(const struct jobclass_overrides *o, unsigned cls,
			    int gpu, struct jobclass_origin *why)
{
	struct jobclass_origin w = { JOBCLASS_FIG_NONE, -1, NAN };
	enum jobclass_derive rule = o ? o->derive : JOBCLASS_DERIVE_FP32_MEMBW;
	const struct jobclass_gpu_info *to = jobclass_ovr_gpu(o, gpu);
	double v = NAN;
	if (!to || cls == JOB_CLASS_NONE)
		goto out;
	v = measured(o, cls, gpu, &w.kind);
	if (!isnan(v) || rule == JOBCLASS_DERIVE_NONE) {
		if (isnan(v))
			w.kind = JOBCLASS_FIG_NONE;
		goto out;
	}
	/* The nearest measured type with a positive figure: the candidates
	 * are the types that have one (few: a scan per pick). */
	size_t n = jobclass_ovr_gpu_count(o);
	double best = INFINITY;
	for (size_t s = 0; s < n && s < JOBCLASS_GPU_MAX; s++) {
		enum jobclass_figure k;
		const struct jobclass_gpu_info *from = jobclass_ovr_gpu(o,
									(int)s);
		double f = jobclass_derive_factor(rule, to, from);
		if ((int)s == gpu || isnan(f))
			continue;
		double d = derive_distance(rule, to, from);
		double t = d < best ? measured(o, cls, (int)s, &k) : NAN;
		if (t > 0) {
			best = d;
			w.source = (int)s;
			w.factor = f;
			v = t * f;
		}
	}
	w.kind = isnan(v) ? JOBCLASS_FIG_NONE : JOBCLASS_FIG_DERIVED;
out:
	if (why)
		*why = w;
	return v;
}

const struct jobclass_override *
jobclass_override_find(const struct jobclass_overrides *o, unsigned cls)
{
	if (!o)
		return NULL;
	/* Sorted by class: a binary search. */
	size_t lo = 0, hi = o->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->v[mid].cls < cls)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n && o->v[lo].cls == cls ? &o->v[lo] : NULL;
}

double jobclass_thr1(const struct jobclass_overrides *o, unsigned cls,
		     int gpu)
{
	return jobclass_thr1_origin(o, cls, gpu, NULL);
}

uint64_t jobclass_grad_bytes_ovr(const struct jobclass_overrides *o,
				 unsigned cls)
{
	const struct jobclass_override *ov = jobclass_override_find(o, cls);
	if (ov && ov->grad_bytes >= 0)
		return (uint64_t)ov->grad_bytes;
	return jobclass_grad_bytes(cls);
}
