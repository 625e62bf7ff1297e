/*
 * The fill experiment of Weng et al., "Beware of Fragmentation" (USENIX
 * ATC 2023, section 6.2): how much of a GPU-sharing cluster a placement
 * policy can fill before fragmentation stops it.
 *
 * The arrivals are every pod of the list plus pods drawn uniformly with
 * replacement from it until their GPU demand in all reaches target x the
 * cluster's GPU capacity, shuffled (Fisher-Yates); both use one splitmix64
 * stream from the seed, and the random score plugin another, so a seed
 * gives one run.  Each pod is placed at once on the node the score plugin
 * chooses (frag_choose) or fails; none leaves.  Each time the arrived GPU
 * demand first reaches another whole percent of the capacity, after
 * placing the pod that reached it, the run records the GPU share
 * allocated and the cluster's fragmentation.
 */
#include "fill/fill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster.h"
#include "base/util.h"

int fill_run(struct frag_cluster *c, const struct score_pod *pods, size_t n,
	     const struct score_ops *score, double target, uint64_t seed,
	     struct fill_result *res)
{
	memset(res, 0, sizeof(*res));
	uint64_t cap = c->gpu_capacity, demand = 0;
	for (size_t i = 0; i < n; i++)
		demand += score_pod_gpu_milli(&pods[i]);
	if (cap == 0 || demand == 0 || !(target > 0))
		return -1;
	/* Arrivals: the list, then draws until the demand reaches the
	 * target. */
	uint64_t rng = seed ^ 0x66696c6c5f617272ull; /* "fill_arr" */
	double want = target * (double)cap;
	size_t len = n, acap = n + n / 2 + 1;
	uint32_t *order = xmalloc(acap * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	while ((double)demand < want) {
		uint32_t k = (uint32_t)(place_rng_next(&rng) % n);
		xgrow(&order, &acap, len + 1, sizeof(*order));
		order[len++] = k;
		demand += score_pod_gpu_milli(&pods[k]);
	}
	for (size_t i = len; i > 1; i--) {
		size_t j = (size_t)(place_rng_next(&rng) % i);
		uint32_t t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}

	uint32_t steps = (uint32_t)floor(target * 100 + 1e-9);
	res->points = xcalloc(steps ? steps : 1, sizeof(*res->points));
	frag_cluster_reset(c);
	struct score_ctx ctx;
	frag_ctx_init(&ctx, c, seed ^ 0x66696c6c5f72616eull);
	uint64_t arrived = 0, allocated = 0;
	uint32_t next = 1;
	for (size_t i = 0; i < len; i++) {
		const struct score_pod *p = &pods[order[i]];
		int gpu = -1;
		long nd = frag_choose(&ctx, score, p, &gpu);
		uint32_t d = score_pod_gpu_milli(p);
		arrived += d;
		res->pods++;
		if (nd >= 0) {
			frag_place(c, (size_t)nd, p, gpu);
			allocated += d;
		} else {
			res->failed++;
			res->failed_gpu += p->gpus > 0;
		}
		while (next <= steps && arrived * 100 >= (uint64_t)next * cap) {
			res->points[res->npoints++] = (struct fill_point){
				.pct = next,
				.arrived = arrived,
				.allocated = allocated,
				.frag = frag_cluster_frag(c),
				.pods = res->pods,
				.failed = res->failed,
			};
			next++;
		}
	}
	res->allocated = allocated;
	frag_ctx_release(&ctx);
	free(order);
	return 0;
}

uint32_t fill_kinds_share_gpu(struct score_pod *pods, size_t n)
{
	/* Key: 0 = share-gpu, g = g whole GPUs. */
	uint32_t of[SCORE_MAX_GPUS + 1], nk = 0;
	for (size_t i = 0; i < ARRAY_SIZE(of); i++)
		of[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		struct score_pod *p = &pods[i];
		if (p->gpus == 0) {
			p->kind = 0;
			continue;
		}
		uint32_t key = score_pod_is_share(p) ? 0
			       : p->gpus <= SCORE_MAX_GPUS ? p->gpus
							   : SCORE_MAX_GPUS;
		if (of[key] == UINT32_MAX)
			of[key] = nk++;
		p->kind = of[key];
	}
	return nk;
}

void fill_result_release(struct fill_result *res)
{
	if (!res)
		return;
	free(res->points);
	memset(res, 0, sizeof(*res));
}
