/*
 * GPU sharing and fragmentation (frag.h): node state, the filters, placing
 * and unplacing a pod, and the fragmentation measure of Weng et al.
 * (USENIX ATC 2023, section 3) against a target workload, both as a
 * double (what the outputs report) and as an exact integer in the
 * shapes' weights (what fgd compares).  The placement step the score
 * plugins share is in score.c.
 *
 * Speed: F_n is needed for every candidate node and GPU of every pod under
 * fgd.  The target workload is grouped by the GPU part of its shapes (the
 * openb lists have about 25 such groups for about 90 shapes), and each
 * group keeps the cumulative probability of its shapes by CPU demand, so
 * "which shapes does the free CPU admit" is one binary search shared by
 * all groups.
 */
#include "fill/frag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* ---- cluster ------------------------------------------------------------ */

void frag_cluster_init(struct frag_cluster *c)
{
	memset(c, 0, sizeof(*c));
}

void frag_cluster_release(struct frag_cluster *c)
{
	if (!c)
		return;
	free(c->nodes);
	free(c->frag);
	free(c->fragw);
	free(c->kind_pods);
	for (uint32_t i = 0; i < c->nmodels; i++)
		free(c->models[i]);
	memset(c, 0, sizeof(*c));
}

int frag_model_index(struct frag_cluster *c, const char *name)
{
	if (!name)
		name = "";
	for (uint32_t i = 0; i < c->nmodels; i++)
		if (!strcmp(c->models[i], name))
			return (int)i;
	if (c->nmodels == FRAG_MAX_MODELS)
		return -1;
	c->models[c->nmodels] = xstrdup(name);
	return (int)c->nmodels++;
}

int frag_cluster_add_node(struct frag_cluster *c, uint32_t cpu, uint32_t mem,
			  uint32_t ngpus, uint32_t model)
{
	if (ngpus > FRAG_MAX_GPUS)
		return -1;
	/* Grow by doubling: capacity is the next power of two >= n. */
	size_t n = c->nnodes;
	if ((n & (n - 1)) == 0) {
		size_t cap = n ? 2 * n : 1;
		c->nodes = xrealloc(c->nodes, cap * sizeof(*c->nodes));
		c->frag = xrealloc(c->frag, cap * sizeof(*c->frag));
		c->fragw = xrealloc(c->fragw, cap * sizeof(*c->fragw));
	}
	struct score_node *nd = &c->nodes[n];
	memset(nd, 0, sizeof(*nd));
	nd->cpu_cap = nd->cpu_free = cpu;
	nd->mem_cap = nd->mem_free = mem;
	nd->ngpus = ngpus;
	nd->model = model;
	for (uint32_t g = 0; g < ngpus; g++)
		nd->gpu_free[g] = FRAG_MILLI;
	nd->gpu_total = ngpus * FRAG_MILLI;
	nd->gpu_whole = ngpus;
	c->frag[n] = 0;
	c->fragw[n] = 0;
	c->nnodes++;
	c->gpu_capacity += (uint64_t)ngpus * FRAG_MILLI;
	if (cpu > c->max_cpu)
		c->max_cpu = cpu;
	if (ngpus > c->max_gpus)
		c->max_gpus = ngpus;
	return 0;
}

/* Node n's F_n, in both forms, after a change of its state. */
static void node_refrag(struct frag_cluster *c, size_t n)
{
	const struct score_node *nd = &c->nodes[n];
	if (!c->dist) {
		c->frag[n] = 0;
		c->fragw[n] = 0;
		return;
	}
	c->frag[n] = frag_node_frag(c->dist, nd->model, nd->cpu_free,
				    nd->ngpus, nd->gpu_free);
	c->fragw[n] = frag_node_fragw(c->dist, nd->model, nd->cpu_free,
				      nd->ngpus, nd->gpu_free);
}

void frag_cluster_ready(struct frag_cluster *c, uint32_t nkinds,
			const struct frag_dist *dist)
{
	c->nkinds = nkinds;
	c->dist = dist;
	free(c->kind_pods);
	c->kind_pods = xcalloc(c->nnodes * (nkinds ? nkinds : 1),
			       sizeof(*c->kind_pods));
	frag_cluster_reset(c);
}

void frag_cluster_reset(struct frag_cluster *c)
{
	for (size_t n = 0; n < c->nnodes; n++) {
		struct score_node *nd = &c->nodes[n];
		nd->cpu_free = nd->cpu_cap;
		nd->mem_free = nd->mem_cap;
		for (uint32_t g = 0; g < nd->ngpus; g++)
			nd->gpu_free[g] = FRAG_MILLI;
		nd->gpu_total = nd->ngpus * FRAG_MILLI;
		nd->gpu_whole = nd->ngpus;
		nd->gpu_pods = 0;
		nd->nkinds = 0;
		node_refrag(c, n);
	}
	if (c->kind_pods)
		memset(c->kind_pods, 0, c->nnodes * (c->nkinds ? c->nkinds : 1) *
					       sizeof(*c->kind_pods));
}

/* ---- filters, placement ------------------------------------------------- */

bool frag_fits(const struct frag_cluster *c, size_t n,
	       const struct score_pod *pod)
{
	const struct score_node *nd = &c->nodes[n];
	if (pod->cpu > nd->cpu_free || pod->mem > nd->mem_free)
		return false;
	if (pod->gpus == 0)
		return true;
	if (pod->models && !(pod->models & (1u << nd->model)))
		return false;
	if (pod->milli < FRAG_MILLI)
		return nd->gpu_total >= pod->milli &&
		       score_gpus_with(nd, pod->milli) > 0;
	return nd->gpu_whole >= pod->gpus;
}

uint32_t frag_place(struct frag_cluster *c, size_t n,
		    const struct score_pod *pod, int gpu)
{
	struct score_node *nd = &c->nodes[n];
	uint32_t mask = 0;
	SIM_ASSERT(pod->cpu <= nd->cpu_free && pod->mem <= nd->mem_free);
	nd->cpu_free -= pod->cpu;
	nd->mem_free -= pod->mem;
	if (pod->gpus > 0 && pod->milli < FRAG_MILLI) {
		SIM_ASSERT(gpu >= 0 && (uint32_t)gpu < nd->ngpus);
		SIM_ASSERT(nd->gpu_free[gpu] >= pod->milli);
		if (nd->gpu_free[gpu] == FRAG_MILLI)
			nd->gpu_whole--;
		nd->gpu_free[gpu] = (uint16_t)(nd->gpu_free[gpu] - pod->milli);
		nd->gpu_total -= pod->milli;
		mask = 1u << gpu;
	} else if (pod->gpus > 0) {
		uint32_t left = pod->gpus;
		for (uint32_t g = 0; g < nd->ngpus && left; g++) {
			if (nd->gpu_free[g] == FRAG_MILLI) {
				nd->gpu_free[g] = 0;
				mask |= 1u << g;
				left--;
			}
		}
		SIM_ASSERT(left == 0);
		nd->gpu_whole -= pod->gpus;
		nd->gpu_total -= pod->gpus * FRAG_MILLI;
	}
	if (pod->gpus > 0) {
		nd->gpu_pods++;
		if (c->kind_pods && pod->kind < c->nkinds &&
		    c->kind_pods[n * c->nkinds + pod->kind]++ == 0)
			nd->nkinds++;
	}
	node_refrag(c, n);
	return mask;
}

void frag_unplace(struct frag_cluster *c, size_t n,
		  const struct score_pod *pod, uint32_t gpus)
{
	struct score_node *nd = &c->nodes[n];
	SIM_ASSERT(nd->cpu_free + (uint64_t)pod->cpu <= nd->cpu_cap &&
		   nd->mem_free + (uint64_t)pod->mem <= nd->mem_cap);
	nd->cpu_free += pod->cpu;
	nd->mem_free += pod->mem;
	for (uint32_t g = 0; g < nd->ngpus; g++) {
		if (!(gpus & (1u << g)))
			continue;
		SIM_ASSERT(nd->gpu_free[g] + pod->milli <= FRAG_MILLI);
		nd->gpu_free[g] = (uint16_t)(nd->gpu_free[g] + pod->milli);
		nd->gpu_total += pod->milli;
		if (nd->gpu_free[g] == FRAG_MILLI)
			nd->gpu_whole++;
	}
	if (pod->gpus > 0) {
		SIM_ASSERT(nd->gpu_pods > 0);
		nd->gpu_pods--;
		if (c->kind_pods && pod->kind < c->nkinds) {
			uint16_t *k = &c->kind_pods[n * c->nkinds + pod->kind];
			SIM_ASSERT(*k > 0);
			if (--*k == 0)
				nd->nkinds--;
		}
	}
	node_refrag(c, n);
}

/* ---- fragmentation ------------------------------------------------------ */

static int cmp_shape(const void *pa, const void *pb)
{
	const struct frag_shape *a = pa, *b = pb;
	if (a->gpus != b->gpus)
		return a->gpus < b->gpus ? -1 : 1;
	if (a->milli != b->milli)
		return a->milli < b->milli ? -1 : 1;
	if (a->models != b->models)
		return a->models < b->models ? -1 : 1;
	if (a->cpu != b->cpu)
		return a->cpu < b->cpu ? -1 : 1;
	return 0;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

/* Number of entries of the ascending v[0..n) that are <= x. */
static size_t count_le(const uint32_t *v, size_t n, uint32_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int frag_dist_from_shapes(struct frag_dist *d, const struct frag_shape *s,
			  size_t n)
{
	memset(d, 0, sizeof(*d));
	if (n == 0)
		return -1;
	d->shapes = xmalloc(n * sizeof(*d->shapes));
	memcpy(d->shapes, s, n * sizeof(*s));
	d->nshapes = n;
	qsort(d->shapes, n, sizeof(*d->shapes), cmp_shape);
	d->cpus = xmalloc(n * sizeof(*d->cpus));
	for (size_t i = 0; i < n; i++)
		d->cpus[i] = d->shapes[i].cpu;
	qsort(d->cpus, n, sizeof(*d->cpus), cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || d->cpus[k - 1] != d->cpus[i])
			d->cpus[k++] = d->cpus[i];
	d->ncpus = k;
	d->groups = xcalloc(n, sizeof(*d->groups));
	for (size_t i = 0; i < n; i++) {
		const struct frag_shape *sh = &d->shapes[i];
		uint64_t w = sh->w ? sh->w
				   : (uint64_t)llround(sh->p * FRAG_WEIGHT_ONE);
		d->w_total += w;
		if (sh->gpus == 0 || sh->milli == 0) {
			d->p_nogpu += sh->p;
			d->w_nogpu += w;
			continue;
		}
		struct frag_group *g = d->ngroups ? &d->groups[d->ngroups - 1]
						  : NULL;
		if (!g || g->gpus != sh->gpus || g->milli != sh->milli ||
		    g->models != sh->models) {
			g = &d->groups[d->ngroups++];
			g->gpus = sh->gpus;
			g->milli = sh->milli;
			g->models = sh->models;
			g->cum = xcalloc(d->ncpus + 1, sizeof(*g->cum));
			g->wcum = xcalloc(d->ncpus + 1, sizeof(*g->wcum));
		}
		/* Shapes of a group arrive by ascending CPU: add p to the
		 * cumulative entries from its CPU on. */
		size_t at = count_le(d->cpus, d->ncpus, sh->cpu);
		for (size_t j = at; j <= d->ncpus; j++) {
			g->cum[j] += sh->p;
			g->wcum[j] += w;
		}
	}
	return 0;
}

int frag_dist_build(struct frag_dist *d, const struct score_pod *pods,
		    size_t n)
{
	memset(d, 0, sizeof(*d));
	if (n == 0)
		return -1;
	struct frag_shape *s = xmalloc(n * sizeof(*s));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (pods[i].gpus > 0 && pods[i].milli > 0)
			s[m++] = (struct frag_shape){
				.cpu = pods[i].cpu,
				.gpus = pods[i].gpus,
				.milli = pods[i].milli,
				.models = pods[i].models,
			};
	if (m == 0) {
		free(s);
		return -1;
	}
	qsort(s, m, sizeof(*s), cmp_shape);
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		if (k && cmp_shape(&s[k - 1], &s[i]) == 0) {
			s[k - 1].p += 1;
		} else {
			s[k] = s[i];
			s[k++].p = 1;
		}
	}
	for (size_t i = 0; i < k; i++) {
		s[i].w = (uint64_t)s[i].p;
		s[i].p /= (double)m;
	}
	int rc = frag_dist_from_shapes(d, s, k);
	free(s);
	return rc;
}

void frag_dist_release(struct frag_dist *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->ngroups; i++) {
		free(d->groups[i].cum);
		free(d->groups[i].wcum);
	}
	free(d->groups);
	free(d->shapes);
	free(d->cpus);
	memset(d, 0, sizeof(*d));
}

/* Free shares of a node, descending (insertion sort: at most 16); their
 * sum. */
static uint32_t sort_free(uint32_t ngpus, const uint16_t *gpu_free,
			  uint16_t *s)
{
	uint32_t total = 0;
	for (uint32_t i = 0; i < ngpus; i++) {
		uint16_t v = gpu_free[i];
		uint32_t j = i;
		total += v;
		while (j > 0 && s[j - 1] < v) {
			s[j] = s[j - 1];
			j--;
		}
		s[j] = v;
	}
	return total;
}

/*
 * The GPU share of a node that the pods of group g, which its CPU lets
 * fit, could not use: all of it (total) when the group's GPU model or
 * count does not fit, else the GPUs with less free (s, sorted down)
 * than the group's per-GPU demand.
 */
static uint32_t group_left(const struct frag_group *g, uint32_t model,
			   uint32_t ngpus, const uint16_t *s, uint32_t total)
{
	bool ok = (!g->models || (g->models & (1u << model))) &&
		  g->gpus <= ngpus && s[g->gpus - 1] >= g->milli;
	if (!ok)
		return total;
	uint32_t small = 0;
	for (uint32_t j = ngpus; j > 0 && s[j - 1] < g->milli; j--)
		small += s[j - 1];
	return small;
}

double frag_node_frag(const struct frag_dist *d, uint32_t model,
		      uint32_t cpu_free, uint32_t ngpus,
		      const uint16_t *gpu_free)
{
	uint16_t s[FRAG_MAX_GPUS];
	uint32_t total = sort_free(ngpus, gpu_free, s);
	if (total == 0)
		return 0;
	double T = total;
	size_t at = count_le(d->cpus, d->ncpus, cpu_free);
	/* CPU-only shapes can use none of the GPUs. */
	double F = d->p_nogpu * T;
	for (size_t i = 0; i < d->ngroups; i++) {
		const struct frag_group *g = &d->groups[i];
		double p_cpu = g->cum[at];
		F += (g->cum[d->ncpus] - p_cpu) * T;
		if (p_cpu == 0)
			continue;
		F += p_cpu * (double)group_left(g, model, ngpus, s, total);
	}
	return F;
}

int64_t frag_node_fragw(const struct frag_dist *d, uint32_t model,
			uint32_t cpu_free, uint32_t ngpus,
			const uint16_t *gpu_free)
{
	uint16_t s[FRAG_MAX_GPUS];
	uint32_t total = sort_free(ngpus, gpu_free, s);
	if (total == 0)
		return 0;
	uint64_t T = total;
	size_t at = count_le(d->cpus, d->ncpus, cpu_free);
	/* As frag_node_frag(), in weights. */
	uint64_t F = d->w_nogpu * T;
	for (size_t i = 0; i < d->ngroups; i++) {
		const struct frag_group *g = &d->groups[i];
		uint64_t w_cpu = g->wcum[at];
		F += (g->wcum[d->ncpus] - w_cpu) * T;
		if (w_cpu == 0)
			continue;
		F += w_cpu * group_left(g, model, ngpus, s, total);
	}
	return (int64_t)F;
}

double frag_node_frag_plain(const struct frag_dist *d, uint32_t model,
			    uint32_t cpu_free, uint32_t ngpus,
			    const uint16_t *gpu_free)
{
	double F = 0;
	uint32_t T = 0;
	for (uint32_t g = 0; g < ngpus; g++)
		T += gpu_free[g];
	for (size_t i = 0; i < d->nshapes; i++) {
		const struct frag_shape *m = &d->shapes[i];
		uint32_t room = 0, small = 0;
		for (uint32_t g = 0; g < ngpus; g++) {
			if (gpu_free[g] >= m->milli)
				room++;
			else
				small += gpu_free[g];
		}
		bool runs = m->gpus > 0 && m->milli > 0 &&
			    m->cpu <= cpu_free &&
			    (!m->models || (m->models & (1u << model))) &&
			    room >= m->gpus;
		F += m->p * (runs ? small : T);
	}
	return F;
}

double frag_cluster_frag(const struct frag_cluster *c)
{
	double F = 0;
	for (size_t n = 0; n < c->nnodes; n++)
		F += c->frag[n];
	return F;
}

int64_t frag_afterw(const struct frag_cluster *c, size_t n,
		    const struct score_pod *pod, int gpu)
{
	const struct score_node *nd = &c->nodes[n];
	uint16_t g[FRAG_MAX_GPUS];
	memcpy(g, nd->gpu_free, sizeof(g));
	if (pod->gpus > 0 && pod->milli < FRAG_MILLI) {
		g[gpu] = (uint16_t)(g[gpu] - pod->milli);
	} else if (pod->gpus > 0) {
		uint32_t left = pod->gpus;
		for (uint32_t k = 0; k < nd->ngpus && left; k++) {
			if (g[k] == FRAG_MILLI) {
				g[k] = 0;
				left--;
			}
		}
	}
	return frag_node_fragw(c->dist, nd->model, nd->cpu_free - pod->cpu,
			       nd->ngpus, g);
}
