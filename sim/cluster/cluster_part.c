/*
 * Slurm-style partitions as node sets (docs/tenants.md, "Partitions and
 * QOS"): the cluster's side.  A partition's "nodes" name node groups
 * ("batch": all of its nodes) and ranges of a group's nodes, in Slurm's
 * hostlist form ("batch[0-63]", "gpu[0-3,8]": node indexes within the
 * group, from 0); partitions may overlap, as Slurm's may.
 *
 * Once bound (cluster_bind_parts), a job of a partition is placed on
 * its partition's nodes alone, the way a VC's job is placed on its VC's
 * groups: cluster_fits, cluster_can_ever_fit, cluster_alloc and
 * cluster_alloc_gpus look here first for a bound job.  Each partition
 * keeps its free allocation units (GPUs on a cluster with GPUs, else
 * CPUs, or idle nodes when nodes are exclusive), brought up to date by
 * every placement taken and given back, whoever's job it is: a job on
 * nodes that two partitions share counts in both.
 *
 * The placement inside a partition: a CPU job first fit, the lowest
 * nodes with free CPUs (or idle nodes when exclusive) first, as the
 * cluster's own first fit; a GPU job first fit over its GPU type's and
 * VC's nodes in the partition, whatever the run's placement strategy (a
 * shaped job goes by its GPU count).  Also here: the backfilling unit
 * (units_*), moved out of cluster.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

/* ---- the spec: entries to node ranges ---------------------------------- */

static int cp_group(const struct cluster_spec *s, const char *name,
		    size_t len)
{
	for (size_t g = 0; g < s->ngroups; g++)
		if (s->groups[g].name && strlen(s->groups[g].name) == len &&
		    !strncmp(s->groups[g].name, name, len))
			return (int)g;
	return -1;
}

/* A number of at most 10 digits at *p, moved past; -1 when none. */
static int64_t cp_num(const char **p)
{
	int64_t v = 0;
	int k = 0;
	while (**p >= '0' && **p <= '9' && k < 10) {
		v = v * 10 + (**p - '0');
		(*p)++;
		k++;
	}
	return k && !(**p >= '0' && **p <= '9') ? v : -1;
}

static int cp_range_cmp(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0] ? 1
	       : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* One entry's ranges appended to *r (2 numbers each); 0 or an error. */
static int cp_entry(const struct cluster_spec *s, size_t p, size_t k,
		    const char *prefix, uint32_t **r, size_t *n,
		    size_t *cap, struct sim_error *err)
{
	const char *e = s->parts[p].groups[k];
	const char *br = strchr(e, '[');
	size_t len = br ? (size_t)(br - e) : strlen(e);
	int g = cp_group(s, e, len);
	if (g < 0)
		return err_set(err, "%s$.cluster.partitions[%zu].nodes[%zu]: "
			       "no node group '%.*s'", prefix, p, k, (int)len,
			       e);
	uint32_t first = 0;
	for (int i = 0; i < g; i++)
		first += s->groups[i].count;
	uint32_t count = s->groups[g].count;
	if (!br) {
		xgrow(r, cap, 2 * (*n + 1), sizeof(**r));
		(*r)[2 * *n] = first;
		(*r)[2 * *n + 1] = first + count;
		(*n)++;
		return 0;
	}
	const char *q = br + 1;
	for (;;) {
		int64_t a = cp_num(&q), b = a;
		if (a >= 0 && *q == '-') {
			q++;
			b = cp_num(&q);
		}
		if (a < 0 || b < a || (*q != ',' && *q != ']'))
			return err_set(err, "%s$.cluster.partitions[%zu].nodes"
				       "[%zu]: '%s' is not GROUP[a-b,c,...] "
				       "(node indexes in the group, from 0)",
				       prefix, p, k, e);
		if (b >= count)
			return err_set(err, "%s$.cluster.partitions[%zu].nodes"
				       "[%zu]: '%s': node '%" PRId64 "' is past "
				       "group '%s''s %" PRIu32 " nodes (from 0)",
				       prefix, p, k, e, b, s->groups[g].name,
				       count);
		xgrow(r, cap, 2 * (*n + 1), sizeof(**r));
		(*r)[2 * *n] = first + (uint32_t)a;
		(*r)[2 * *n + 1] = first + (uint32_t)b + 1;
		(*n)++;
		if (*q++ == ']')
			break;
	}
	if (*q)
		return err_set(err, "%s$.cluster.partitions[%zu].nodes[%zu]: "
			       "'%s' is not GROUP[a-b,c,...] (node indexes "
			       "in the group, from 0)", prefix, p, k, e);
	return 0;
}

int cluster_spec_part_nodes(const struct cluster_spec *s, size_t p,
			    const char *prefix, uint32_t **out, size_t *n,
			    struct sim_error *err)
{
	uint32_t *r = NULL;
	size_t m = 0, cap = 0;
	*out = NULL;
	*n = 0;
	for (size_t k = 0; k < s->parts[p].ngroups; k++)
		if (cp_entry(s, p, k, prefix ? prefix : "", &r, &m, &cap,
			     err)) {
			free(r);
			return -SIM_EINPUT;
		}
	if (m)
		qsort(r, m, 2 * sizeof(*r), cp_range_cmp);
	size_t w = 0; /* merged: overlapping or touching ranges joined */
	for (size_t i = 0; i < m; i++) {
		if (w && r[2 * i] <= r[2 * w - 1]) {
			if (r[2 * i + 1] > r[2 * w - 1])
				r[2 * w - 1] = r[2 * i + 1];
			continue;
		}
		r[2 * w] = r[2 * i];
		r[2 * w + 1] = r[2 * i + 1];
		w++;
	}
	*out = r;
	*n = w;
	return 0;
}

/* ---- binding ----------------------------------------------------------- */

/* The units node v holds in all (units_capacity's unit). */
static uint64_t cp_node_units(const struct cluster *c, uint32_t v)
{
	if (c->maxg)
		return c->gcap[v];
	return c->exclusive ? 1 : c->node[v].cap;
}

void cluster_bind_parts(struct cluster *c, const struct cluster_spec *s,
			const int32_t *part, size_t njobs)
{
	struct sim_error err;
	cp_release(c);
	if (!s->nparts || s->nparts > 64)
		return;
	c->npset = (uint32_t)s->nparts;
	c->pset = xcalloc(s->nparts, sizeof(*c->pset));
	c->node_pset = xcalloc(c->n, sizeof(*c->node_pset));
	for (size_t p = 0; p < s->nparts; p++) {
		struct cl_pset *ps = &c->pset[p];
		uint32_t *r;
		size_t n;
		/* The spec has passed cluster_slurm_check. */
		SIM_ASSERT(!cluster_spec_part_nodes(s, p, "", &r, &n, &err));
		ps->rg = xcalloc(n ? n : 1, sizeof(*ps->rg));
		for (size_t i = 0; i < n; i++) {
			SIM_ASSERT(r[2 * i + 1] <= c->n);
			ps->rg[i] = (struct cl_range){ r[2 * i], r[2 * i + 1] };
			for (uint32_t v = r[2 * i]; v < r[2 * i + 1]; v++) {
				c->node_pset[v] |= UINT64_C(1) << p;
				ps->total += cp_node_units(c, v);
			}
		}
		ps->nrg = (uint32_t)n;
		free(r);
	}
	for (uint32_t v = 0; v < c->n; v++)
		for (uint64_t m = c->node_pset[v]; m; m &= m - 1)
			c->pset[__builtin_ctzll(m)].overlap |= c->node_pset[v];
	c->job_pset = xmalloc((njobs ? njobs : 1) * sizeof(*c->job_pset));
	for (size_t i = 0; i < njobs; i++)
		c->job_pset[i] = part && part[i] < (int32_t)c->npset
					 ? part[i] : -1;
	c->njob_pset = njobs;
	cp_reset(c);
}

void cp_reset(struct cluster *c)
{
	for (uint32_t p = 0; p < c->npset; p++) {
		struct cl_pset *ps = &c->pset[p];
		ps->free = 0;
		for (uint32_t i = 0; i < ps->nrg; i++)
			for (uint32_t v = ps->rg[i].first; v < ps->rg[i].end;
			     v++)
				ps->free += c->maxg ? c->gx->nf[v]
					    : c->exclusive
						    ? cl_node_free(c, v) ==
							      c->node[v].cap
						    : cl_node_free(c, v);
	}
}

void cp_release(struct cluster *c)
{
	for (uint32_t p = 0; p < c->npset; p++)
		free(c->pset[p].rg);
	free(c->pset);
	free(c->node_pset);
	free(c->job_pset);
	free(c->psrg);
	c->pset = NULL;
	c->node_pset = NULL;
	c->job_pset = NULL;
	c->psrg = NULL;
	c->psrgcap = 0;
	c->npset = 0;
	c->njob_pset = 0;
}

uint64_t cluster_part_free(const struct cluster *c, uint32_t p)
{
	return p < c->npset ? c->pset[p].free : 0;
}

uint64_t cluster_part_total(const struct cluster *c, uint32_t p)
{
	return p < c->npset ? c->pset[p].total : 0;
}

bool cluster_parts_overlap(const struct cluster *c, uint32_t p, uint32_t q)
{
	return p < c->npset && q < c->npset && (c->pset[p].overlap >> q & 1);
}

/* The units one slot takes on each of its nodes. */
static uint64_t cp_slot_units(const struct cluster *c,
			      const struct place_slot *s)
{
	if (c->maxg)
		return s->gpus;
	return c->exclusive ? s->cpus > 0 : s->cpus;
}

uint64_t cluster_placement_units_in(const struct cluster *c,
				    const struct placement *plc, uint32_t p)
{
	uint64_t u = 0;
	if (p >= c->npset)
		return 0;
	const struct cl_pset *ps = &c->pset[p];
	/* Each slot's nodes against the partition's ranges (few). */
	for (uint32_t i = 0; i < plc->n; i++) {
		const struct place_slot *s = &plc->slots[i];
		uint64_t per = cp_slot_units(c, s);
		uint32_t lo = s->node, hi = s->node + s->count;
		for (uint32_t r = 0; per && r < ps->nrg; r++) {
			uint32_t a = ps->rg[r].first > lo ? ps->rg[r].first : lo;
			uint32_t b = ps->rg[r].end < hi ? ps->rg[r].end : hi;
			if (a < b)
				u += per * (b - a);
		}
	}
	return u;
}

void cp_account(struct cluster *c, const struct placement *plc, int sign)
{
	for (uint32_t i = 0; c->npset && i < plc->n; i++) {
		const struct place_slot *s = &plc->slots[i];
		uint64_t per = cp_slot_units(c, s);
		for (uint32_t k = 0; per && k < s->count; k++)
			for (uint64_t m = c->node_pset[s->node + k]; m;
			     m &= m - 1) {
				struct cl_pset *ps =
					&c->pset[__builtin_ctzll(m)];
				ps->free = sign > 0 ? ps->free + per
						    : ps->free - per;
			}
	}
}

/* ---- fit and placement ------------------------------------------------- */

void cp_narrow(struct cluster *c, const struct job *j,
	       const struct cl_range **rg, uint32_t *nrg)
{
	const struct cl_pset *ps = &c->pset[cp_job(c, j)];
	uint32_t n = 0;
	/* Both lists ascending and disjoint: their intersection. */
	for (uint32_t a = 0, b = 0; a < *nrg && b < ps->nrg;) {
		uint32_t lo = (*rg)[a].first > ps->rg[b].first
				      ? (*rg)[a].first : ps->rg[b].first;
		uint32_t hi = (*rg)[a].end < ps->rg[b].end ? (*rg)[a].end
							   : ps->rg[b].end;
		if (lo < hi) {
			xgrow(&c->psrg, &c->psrgcap, (size_t)n + 1,
			      sizeof(*c->psrg));
			c->psrg[n++] = (struct cl_range){ lo, hi };
		}
		if ((*rg)[a].end < ps->rg[b].end)
			a++;
		else
			b++;
	}
	*rg = c->psrg;
	*nrg = n;
}

/* A GPU job: the GPUs (with its CPUs beside them) its partition's nodes
 * of its type and VC give, now or when empty. */
static bool cp_fits_gpus(const struct cluster *c, const struct job *j,
			 bool now)
{
	const struct cl_range *rg;
	const uint32_t *cls;
	uint32_t nrg, ncls;
	uint64_t sum = 0;
	if (!c->maxg || j->gpu_type > c->ntypes)
		return false;
	gp_ranges(c, j, &rg, &nrg, &cls, &ncls);
	cp_narrow((struct cluster *)c, j, &rg, &nrg);
	for (uint32_t r = 0; r < nrg; r++)
		for (uint32_t v = rg[r].first; v < rg[r].end; v++) {
			uint32_t f = now ? c->gx->nf[v] : c->gcap[v];
			if (f && j->cpus)
				f = gx_can_give(c, v, f, now ? cl_node_free(c, v)
							     : c->node[v].cap,
						j);
			sum += f;
			if (sum >= j->gpus)
				return true;
		}
	return false;
}

/* A CPU job's units free (or in all) on its partition's nodes. */
static uint64_t cp_cpu_room(const struct cluster *c, const struct cl_pset *ps,
			    bool now)
{
	if (!c->maxg)
		return now ? ps->free : ps->total;
	uint64_t u = 0; /* a GPU cluster counts GPUs: count the CPUs */
	for (uint32_t i = 0; i < ps->nrg; i++)
		for (uint32_t v = ps->rg[i].first; v < ps->rg[i].end; v++) {
			uint32_t f = now ? cl_node_free(c, v) : c->node[v].cap;
			u += c->exclusive ? f == c->node[v].cap : f;
		}
	return u;
}

bool cp_fits(const struct cluster *c, const struct job *j, bool now)
{
	if (j->gpus)
		return cp_fits_gpus(c, j, now);
	return cluster_demand(c, j) <=
	       cp_cpu_room(c, &c->pset[cp_job(c, j)], now);
}

/* Appends node v (count 1, cpus CPUs) to out, joined to the last slot
 * when it continues it. */
static void cp_emit(struct placement *out, uint32_t v, uint32_t cpus)
{
	if (out->n) {
		struct place_slot *l = &out->slots[out->n - 1];
		if (l->node + l->count == v && l->cpus == cpus && !l->gpus) {
			l->count++;
			return;
		}
	}
	if (out->n == out->cap)
		cl_reserve(out, (size_t)out->n + 1);
	out->slots[out->n++] = (struct place_slot){
		.node = v, .count = 1, .cpus = cpus,
	};
}

int cp_alloc(struct cluster *c, const struct job *j, struct placement *out)
{
	const struct cl_pset *ps = &c->pset[cp_job(c, j)];
	uint64_t need = cluster_demand(c, j);
	if (!cp_fits(c, j, true))
		return -SIM_ESTATE;
	out->n = 0;
	for (uint32_t i = 0; need && i < ps->nrg; i++)
		for (uint32_t v = ps->rg[i].first; need && v < ps->rg[i].end;) {
			/* The nodes of v's block from v on, in the range, with
			 * free CPUs (idle ones when exclusive). */
			const struct cl_block *k = &c->blk[v / CL_BITS];
			unsigned lo = v % CL_BITS;
			uint32_t left = ps->rg[i].end - v;
			unsigned cnt = CL_BITS - lo < left ? CL_BITS - lo
							   : (unsigned)left;
			uint64_t m = (c->exclusive ? k->idle : k->free) &
				     cl_mask(lo, cnt);
			while (need && m) {
				uint32_t w = v - lo + (uint32_t)__builtin_ctzll(m);
				uint32_t f = cl_node_free(c, w), take;
				m &= m - 1;
				take = c->exclusive || f < need ? f
								: (uint32_t)need;
				need -= c->exclusive ? 1 : take;
				cl_take_cpus(c, w, take);
				cp_emit(out, w, take);
			}
			v += cnt;
		}
	SIM_ASSERT(!need);
	cp_account(c, out, -1);
	return 0;
}

/* ---- the backfilling unit ---------------------------------------------- */

/*
 * The unit backfilling plans in (the free-resource profile's): on
 * a cluster with GPUs it is the GPU: GPU jobs are what backfilling plans
 * there, and a job that asks for no GPU takes none of the profile (its
 * CPUs are placed, not planned).  Else the cluster's own unit: CPUs, or
 * whole nodes when nodes are exclusive.
 */
uint64_t units_demand(const struct cluster *c, const struct job *j)
{
	return cluster_total_gpus(c) ? j->gpus : cluster_demand(c, j);
}

uint64_t units_capacity(const struct cluster *c)
{
	return cluster_total_gpus(c) ? cluster_total_gpus(c)
				     : cluster_capacity(c);
}

uint64_t units_free(const struct cluster *c)
{
	return cluster_total_gpus(c) ? cluster_free_gpus(c)
				     : cluster_free_units(c);
}
