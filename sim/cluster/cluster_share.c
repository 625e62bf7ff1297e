/*
 * CPUs beside shared GPUs (Gandiva's packing and time-slicing, which the
 * engine runs in engine/sim_share.c): a job that joins another's GPUs
 * shares the GPUs only.  It holds CPUs of its own on the nodes of those
 * GPUs, split over them by the rule of whole-GPU placement (cluster.h),
 * so that whichever job of the pair is left holds exactly what it asked
 * for, and no CPU is in use twice.
 *
 * Why a file of its own: the placement strategies choose GPUs; this
 * books CPUs on GPUs already chosen, a different step.
 */
#include "cluster/cluster_impl.h"

/* The CPUs job j takes on slot i of gpus' placement: its share of the
 * GPUs up to that slot, less what the earlier slots took (*done GPUs and
 * *prev CPUs so far, advanced). */
static uint32_t share_cpus(const struct job *j, const struct place_slot *sl,
			   uint64_t *done, uint64_t *prev)
{
	*done += sl->gpus;
	uint64_t upto = (uint64_t)j->cpus * *done / j->gpus;
	uint32_t n = (uint32_t)(upto - *prev);
	*prev = upto;
	return n;
}

/* Is gpus a GPU placement of exactly j's GPU count? */
static bool share_matches(const struct job *j, const struct placement *gpus)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < gpus->n; i++) {
		if (gpus->slots[i].count != 1)
			return false;
		n += gpus->slots[i].gpus;
	}
	return j->gpus && n == j->gpus;
}

bool cluster_fits_beside(const struct cluster *c, const struct job *j,
			 const struct placement *gpus)
{
	uint64_t done = 0, prev = 0;
	if (!share_matches(j, gpus))
		return false;
	for (uint32_t i = 0; i < gpus->n; i++) {
		const struct place_slot *sl = &gpus->slots[i];
		if (sl->node >= c->n ||
		    share_cpus(j, sl, &done, &prev) > cl_node_free(c, sl->node))
			return false;
	}
	return true;
}

int cluster_alloc_beside(struct cluster *c, const struct job *j,
			 const struct placement *gpus, struct placement *out)
{
	uint64_t done = 0, prev = 0;
	if (!cluster_fits_beside(c, j, gpus))
		return -SIM_ESTATE;
	out->n = 0;
	cl_reserve(out, gpus->n);
	for (uint32_t i = 0; i < gpus->n; i++) {
		struct place_slot sl = gpus->slots[i];
		sl.cpus = share_cpus(j, &sl, &done, &prev);
		cl_take_cpus(c, sl.node, sl.cpus);
		out->slots[out->n++] = sl;
	}
	return 0;
}

void cluster_release_cpus(struct cluster *c, const struct placement *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		struct place_slot sl = p->slots[i];
		struct placement one = { .slots = &sl, .n = 1, .cap = 1 };
		sl.gpus = 0;
		sl.gpu_mask = 0;
		if (sl.cpus)
			cluster_release(c, &one);
	}
}
