/*
 * Whole-GPU placement, its set-up and checks (cluster_gpu.c has the index
 * and the strategies): making and freeing a free-GPU index, sizing the
 * GPU part of a cluster from its spec (classes of (GPU type, virtual
 * cluster), keys and their node ranges, racks), resetting it, and the
 * invariant checks of --check that recount every index from the nodes'
 * masks.  A file of its own because none of it runs while a job is
 * placed: it is the cold half of the GPU model.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

/* ---- the index -------------------------------------------------------- */

struct gx *gx_new(const struct cluster *c)
{
	struct gx *x = xcalloc(1, sizeof(*x));

	x->nf = xcalloc(c->n, sizeof(*x->nf));
	x->set = xcalloc(c->maxg + 1, sizeof(*x->set));
	for (uint32_t k = 0; k <= c->maxg; k++)
		bset_init(&x->set[k], c->n);
	x->cnt = xcalloc((size_t)c->ncls * (c->maxg + 1), sizeof(*x->cnt));
	x->rfree = xcalloc((size_t)c->nracks * c->ncls, sizeof(*x->rfree));
	x->cfree = xcalloc(c->ncls, sizeof(*x->cfree));
	return x;
}

void gx_free(const struct cluster *c, struct gx *x)
{
	if (!x)
		return;
	for (uint32_t k = 0; k <= c->maxg; k++)
		bset_release(&x->set[k]);
	free(x->set);
	free(x->nf);
	free(x->cnt);
	free(x->rfree);
	free(x->cfree);
	free(x);
}

void gx_clear(const struct cluster *c, struct gx *x)
{
	memset(x->nf, 0, c->n * sizeof(*x->nf));
	for (uint32_t k = 0; k <= c->maxg; k++)
		bset_clear(&x->set[k]);
	memset(x->cnt, 0, (size_t)c->ncls * (c->maxg + 1) * sizeof(*x->cnt));
	memset(x->rfree, 0, (size_t)c->nracks * c->ncls * sizeof(*x->rfree));
	memset(x->cfree, 0, c->ncls * sizeof(*x->cfree));
	x->free = 0;
}

/* ---- setup ------------------------------------------------------------ */

/* The index of name in names[0 .. *n), added when absent. */
static uint32_t gp_intern(char **names, uint32_t *n, const char *name)
{
	uint32_t k = 0;

	while (k < *n && strcmp(names[k], name))
		k++;
	if (k == *n)
		names[(*n)++] = xstrdup(name);
	return k;
}

/*
 * The classes a job of key (t, v) may use: of its GPU type (any when t
 * is 0) and of its VC or the shared pool (only the pool when v is nvc);
 * and their node ranges, neighbouring groups merged (the whole cluster
 * when the key has every class, so an unconstrained search is one
 * range).
 */
static void gp_setup_keys(struct cluster *c)
{
	uint32_t nkeys = (c->ntypes + 1) * (c->nvc + 1), nc = 0, nr = 0;
	bool *in = xcalloc(c->ncls ? c->ncls : 1, sizeof(*in));

	c->kcls = xcalloc((size_t)nkeys * c->ncls + 1, sizeof(*c->kcls));
	c->kcls_at = xcalloc(nkeys + 1, sizeof(*c->kcls_at));
	c->krange = xcalloc((size_t)nkeys * c->ngroups + 1,
			    sizeof(*c->krange));
	c->krange_at = xcalloc(nkeys + 1, sizeof(*c->krange_at));
	for (uint32_t key = 0; key < nkeys; key++) {
		uint32_t t = key / (c->nvc + 1), v = key % (c->nvc + 1);
		uint32_t first = nc;

		c->kcls_at[key] = nc;
		c->krange_at[key] = nr;
		for (uint32_t k = 0; k < c->ncls; k++) {
			in[k] = (t == 0 || c->cltype[k] == t - 1) &&
				(c->clvc[k] == c->nvc || c->clvc[k] == v);
			if (in[k])
				c->kcls[nc++] = k;
		}
		if (nc - first == c->ncls) {
			c->krange[nr++] = (struct cl_range){ 0, c->n };
			continue;
		}
		for (uint32_t g = 0; g < c->ngroups; g++) {
			if (!c->ggpus[g] || !in[c->gcls[g]])
				continue;
			if (nr > c->krange_at[key] &&
			    c->krange[nr - 1].end == c->gstart[g])
				c->krange[nr - 1].end = c->gstart[g + 1];
			else
				c->krange[nr++] = (struct cl_range){
					c->gstart[g], c->gstart[g + 1] };
		}
	}
	c->kcls_at[nkeys] = nc;
	c->krange_at[nkeys] = nr;
	free(in);
}

/* Sets up the GPU index of a new cluster from its spec. */
void gp_setup(struct cluster *c, const struct cluster_spec *s)
{
	for (size_t g = 0; g < s->ngroups; g++)
		if (s->groups[g].gpus > c->maxg)
			c->maxg = s->groups[g].gpus;
	c->rack_nodes = s->rack_nodes && s->rack_nodes < c->n ?
			s->rack_nodes : c->n;
	c->nracks = (c->n + c->rack_nodes - 1) / c->rack_nodes;
	c->gcls = xcalloc(c->ngroups, sizeof(*c->gcls));
	c->tname = xcalloc(c->ngroups, sizeof(*c->tname));
	c->vcname = xcalloc(c->ngroups, sizeof(*c->vcname));
	c->cltype = xcalloc(c->ngroups, sizeof(*c->cltype));
	c->clvc = xcalloc(c->ngroups, sizeof(*c->clvc));
	for (uint32_t g = 0; g < c->ngroups; g++) {
		if (!s->groups[g].gpus)
			continue;
		if (s->groups[g].gpu_type)
			gp_intern(c->tname, &c->ntypes, s->groups[g].gpu_type);
		if (s->groups[g].vc)
			gp_intern(c->vcname, &c->nvc, s->groups[g].vc);
	}
	/* Classes: the distinct (type, VC) pairs, in group order. */
	for (uint32_t g = 0; g < c->ngroups; g++) {
		const struct node_group *ng = &s->groups[g];
		uint32_t t, v, k = 0;

		if (!ng->gpus)
			continue;
		t = ng->gpu_type ? (uint32_t)cluster_gpu_type_index(
					   c, ng->gpu_type) : c->ntypes;
		v = ng->vc ? (uint32_t)cluster_vc_index(c, ng->vc) : c->nvc;
		while (k < c->ncls && (c->cltype[k] != t || c->clvc[k] != v))
			k++;
		if (k == c->ncls) {
			c->cltype[k] = t;
			c->clvc[k] = v;
			c->ncls++;
		}
		c->gcls[g] = k;
	}
	if (!c->maxg)
		return;
	SIM_ASSERT(c->maxg <= CLUSTER_MAX_NODE_GPUS);
	c->ctotal = xcalloc(c->ncls, sizeof(*c->ctotal));
	c->ncl = xcalloc(c->n, sizeof(*c->ncl));
	c->gcap = xcalloc(c->n, sizeof(*c->gcap));
	c->gmask = xcalloc(c->n, sizeof(*c->gmask));
	for (uint32_t g = 0; g < c->ngroups; g++) {
		for (uint32_t v = c->gstart[g]; v < c->gstart[g + 1]; v++) {
			c->ncl[v] = c->gcls[g];
			c->gcap[v] = (uint8_t)c->ggpus[g];
		}
		c->ctotal[c->gcls[g]] += (uint64_t)(c->gstart[g + 1] -
						    c->gstart[g]) * c->ggpus[g];
		c->total_gpus += (uint64_t)(c->gstart[g + 1] - c->gstart[g]) *
				 c->ggpus[g];
	}
	gp_setup_keys(c);
	c->gx = gx_new(c);
}

void gp_reset(struct cluster *c)
{
	if (!c->maxg)
		return;
	gx_clear(c, c->gx);
	for (uint32_t v = 0; v < c->n; v++) {
		c->gmask[v] = cl_mask(0, c->gcap[v]);
		if (c->gcap[v])
			gx_set(c, c->gx, v, c->gcap[v]);
	}
}

void gp_release(struct cluster *c)
{
	for (uint32_t k = 0; k < c->ntypes; k++)
		free(c->tname[k]);
	free(c->tname);
	for (uint32_t k = 0; k < c->nvc; k++)
		free(c->vcname[k]);
	free(c->vcname);
	free(c->cltype);
	free(c->clvc);
	free(c->group_vc);
	free(c->kcls);
	free(c->kcls_at);
	free(c->krange);
	free(c->krange_at);
	free(c->gcls);
	free(c->ncl);
	free(c->gcap);
	free(c->gmask);
	free(c->ctotal);
	gx_free(c, c->gx);
	gx_free(c, c->view);
	free(c->picks);
	free(c->rk);
}

/* ---- GPU invariants --------------------------------------------------- */

/* Level 0 of set k against the nodes, then every level against the one
 * below. */
static int gp_check_set(const struct cluster *c, uint32_t k,
			struct sim_error *err)
{
	const struct bset *s = &c->gx->set[k];

	for (uint32_t w = 0; w < s->nwords[0]; w++) {
		uint64_t m = 0;

		for (uint32_t i = 0; i < CL_BITS; i++) {
			uint64_t v = (uint64_t)w * CL_BITS + i;
			uint32_t f = v < c->n ? c->gx->nf[v] : 0;

			m |= (uint64_t)(k ? f == k : f > 0) << i;
		}
		if (s->lev[0][w] != m)
			return err_setc(err, -SIM_ESTATE, "cluster: gpu set '%"
					PRIu32 "' word '%" PRIu32 "' is wrong",
					k, w);
	}
	for (unsigned l = 1; l < s->nlev; l++)
		for (uint32_t w = 0; w < s->nwords[l]; w++)
			if (s->lev[l][w] != bset_word_below(s, l, w))
				return err_setc(err, -SIM_ESTATE, "cluster: "
						"gpu set '%" PRIu32 "' summary "
						"level '%u' word '%" PRIu32
						"' is wrong", k, l, w);
	if (s->nwords[s->nlev - 1] != 1)
		return err_setc(err, -SIM_ESTATE, "cluster: gpu set '%" PRIu32
				"' has no single top word", k);
	return 0;
}

int gp_check(const struct cluster *c, struct sim_error *err)
{
	size_t ncnt = (size_t)c->ncls * (c->maxg + 1);
	size_t nrf = (size_t)c->nracks * c->ncls;
	uint32_t *cnt = NULL;
	uint64_t *rf = NULL, *cf = NULL, all = 0, total = 0;
	uint32_t g = 0;
	int rc = 0;

	if (!c->maxg)
		return c->total_gpus ? err_setc(err, -SIM_ESTATE, "cluster: "
						"no gpu index for '%" PRIu64
						"' gpus", c->total_gpus) : 0;
	cnt = xcalloc(ncnt, sizeof(*cnt));
	rf = xcalloc(nrf, sizeof(*rf));
	cf = xcalloc(c->ncls, sizeof(*cf));
	for (uint32_t v = 0; v < c->n; v++) {
		uint32_t f = c->gx->nf[v], cls = c->ncl[v];

		while (v >= c->gstart[g + 1])
			g++;
		if (c->gcap[v] != c->ggpus[g] ||
		    (c->ggpus[g] && cls != c->gcls[g])) {
			rc = err_setc(err, -SIM_ESTATE, "cluster: node '%"
				      PRIu32 "' has '%u' gpus of class '%"
				      PRIu32 "', its group '%" PRIu32 "' of '%"
				      PRIu32 "'", v, c->gcap[v], cls,
				      c->ggpus[g], c->gcls[g]);
			goto out;
		}
		if ((c->gmask[v] & ~cl_mask(0, c->gcap[v])) ||
		    (uint32_t)__builtin_popcountll(c->gmask[v]) != f) {
			rc = err_setc(err, -SIM_ESTATE, "cluster: node '%"
				      PRIu32 "' gpu mask '%#" PRIx64 "' does "
				      "not match '%" PRIu32 "' free of '%u'",
				      v, c->gmask[v], f, c->gcap[v]);
			goto out;
		}
		total += c->gcap[v];
		if (!f)
			continue;
		cnt[(size_t)cls * (c->maxg + 1) + f]++;
		rf[(size_t)(v / c->rack_nodes) * c->ncls + cls] += f;
		cf[cls] += f;
		all += f;
	}
	if (total != c->total_gpus || all != c->gx->free ||
	    memcmp(cnt, c->gx->cnt, ncnt * sizeof(*cnt)) ||
	    memcmp(rf, c->gx->rfree, nrf * sizeof(*rf)) ||
	    memcmp(cf, c->gx->cfree, c->ncls * sizeof(*cf))) {
		rc = err_setc(err, -SIM_ESTATE, "cluster: gpu counters (free '%"
			      PRIu64 "' of '%" PRIu64 "') do not match the "
			      "nodes ('%" PRIu64 "' of '%" PRIu64 "')",
			      c->gx->free, c->total_gpus, all, total);
		goto out;
	}
	for (uint32_t k = 0; k <= c->maxg && !rc; k++)
		rc = gp_check_set(c, k, err);
out:
	free(cnt);
	free(rf);
	free(cf);
	return rc;
}
