/*
 * Lookups through an experiment's overlay of the job-class tables
 * (jobclass_override.h): an overridden figure wins, anything else comes
 * from the const default tables of jobclass.c.
 */
#include "speed/jobclass_override.h"

#include <math.h>
#include <stdlib.h>

void jobclass_overrides_release(struct jobclass_overrides *o)
{
	if (!o)
		return;
	free(o->v);
	o->v = NULL;
	o->n = 0;
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
	const struct jobclass_override *ov = jobclass_override_find(o, cls);
	if (ov && gpu >= 0 && gpu < JOBCLASS_NGPU && !isnan(ov->thr[gpu]))
		return ov->thr[gpu];
	return jobclass_throughput(cls, gpu, 1, true);
}

uint64_t jobclass_grad_bytes_ovr(const struct jobclass_overrides *o,
				 unsigned cls)
{
	const struct jobclass_override *ov = jobclass_override_find(o, cls);
	if (ov && ov->grad_bytes >= 0)
		return (uint64_t)ov->grad_bytes;
	return jobclass_grad_bytes(cls);
}
