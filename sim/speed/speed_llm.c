/*
 * The speed of large-model jobs in a run (speed.h states the rule,
 * docs/parallelism.md derives it): the step-time model of llm_step.c
 * over the job's real placement and the fabric's max-min shares.
 *
 * When the job starts, its ranks' nodes give the span of each of its
 * communication groups: of the tp x pp groups of tp ranks, the dp x tp
 * pipelines, the tp x pp data-parallel groups, the widest of each kind
 * (most nodes) stands for all, since the step waits for the slowest.
 * At each rate the fabric's bandwidth for the job's flow, shared by the
 * GPUs it has on one node, is each cross-node member's.  The fabric
 * carries the job as one ring stream per node and rack (net.h), so all
 * its cross-node groups share that stream's share: a pipeline inside a
 * rack of a job whose replicas cross racks pays the uplink's share too.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "speed/jobclass_override.h"
#include "speed/llm_megatron.h"
#include "speed/speed_impl.h"

void speed_set_llm(struct speed *sp, const struct llm_job *tab, size_t n)
{
	sp->llm = n ? tab : NULL;
	sp->nllm = n;
	sp->llm_eff = llm_megatron_calibrate();
	SIM_ASSERT(sp->llm_eff > 0 && sp->llm_eff <= 1);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The widest of n groups of size members, group i's ranks base(i) +
 * k step: its nodes and whether any group crosses racks. */
static void widest(struct speed *sp, const uint32_t *rank_node, uint32_t n,
		   uint32_t size, uint32_t kind, const struct llm_shape *sh,
		   struct llm_group_place *g, bool *racks)
{
	uint32_t rack_nodes = net_get_spec(sp->net)->rack_nodes;
	xgrow(&sp->scratch, &sp->scratch_cap, size ? size : 1,
	      sizeof(*sp->scratch));
	g->nodes = 1;
	*racks = false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t base, step;
		if (kind == 0) { /* tp: group (d, s) = i */
			base = sh->tp * i;
			step = 1;
		} else if (kind == 1) { /* pp: (t, d) */
			base = i % sh->tp + sh->tp * (i / sh->tp);
			step = sh->tp * sh->dp;
		} else { /* dp: (t, s) */
			base = i % sh->tp + sh->tp * sh->dp * (i / sh->tp);
			step = sh->tp;
		}
		for (uint32_t k = 0; k < size; k++)
			sp->scratch[k] = rank_node[base + k * step];
		qsort(sp->scratch, size, sizeof(*sp->scratch), cmp_u32);
		uint32_t nodes = size ? 1 : 0;
		for (uint32_t k = 1; k < size; k++)
			nodes += sp->scratch[k] != sp->scratch[k - 1];
		if (size && sp->scratch[0] / rack_nodes !=
			    sp->scratch[size - 1] / rack_nodes)
			*racks = true;
		if (nodes > g->nodes)
			g->nodes = nodes;
	}
	g->per_node = (size + g->nodes - 1) / g->nodes;
}

/* The figures of table GPU type gpu, per_node of them in a node. */
static void gpu_of(const struct speed *sp, int gpu, uint32_t per_node,
		   struct llm_gpu *g)
{
	llm_gpu_of_info(jobclass_ovr_gpu(sp->thr, gpu), per_node, g);
}

/* The job's step on an ideal placement of GPU type gpu. */
static double step_ideal(const struct speed *sp, const struct llm_job *lj,
			 const struct llm_shape *sh, int gpu,
			 uint32_t node_gpus, const struct llm_place *now)
{
	struct llm_gpu g;
	struct llm_place pl;
	struct llm_step st;
	struct sim_error err;
	const struct net_spec *ns = net_get_spec(sp->net);
	double nic = ns->nic_gbps * 1.25e8; /* Gb/s to bytes/s */
	uint64_t nodes = (llm_shape_gpus(sh) + node_gpus - 1) / node_gpus;
	double lat = ns->latency_usec * (nodes > ns->rack_nodes ? 4 : 2);
	gpu_of(sp, gpu, node_gpus, &g);
	if (llm_place_packed(sh, node_gpus, nic / node_gpus, lat, &pl, &err))
		pl = *now; /* tp and the node size do not divide: as placed */
	if (llm_step_time(&lj->model, sh, &g, &pl, sp->llm_eff, &st, &err))
		SIM_BUG("large-model step: %s", err.msg);
	return st.step_s;
}

void speed_llm_started(struct speed *sp, const struct job *j,
		       const struct placement *p, const uint32_t *rank_node)
{
	if (!j->llm || !sp->llm)
		return;
	SIM_ASSERT(j->llm <= sp->nllm);
	const struct llm_job *lj = &sp->llm[j->llm - 1];
	struct llm_shape sh;
	llm_job_shape(j, lj, &sh);
	xgrow(&sp->lp, &sp->lp_cap, (size_t)j->idx + 1, sizeof(*sp->lp));
	struct speed_llm_place *q = &sp->lp[j->idx];
	memset(q, 0, sizeof(*q));
	widest(sp, rank_node, sh.dp * sh.pp, sh.tp, 0, &sh, &q->pl.tp,
	       &q->racks[0]);
	widest(sp, rank_node, sh.tp * sh.dp, sh.pp, 1, &sh, &q->pl.pp,
	       &q->racks[1]);
	widest(sp, rank_node, sh.tp * sh.pp, sh.dp, 2, &sh, &q->pl.dp,
	       &q->racks[2]);
	/* The slowest GPU sets the pace; its node size the ideal's. */
	double peak = INFINITY;
	q->gpu = sp->ref;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct place_slot *s = &p->slots[i];
		if (s->gpus > q->gmax)
			q->gmax = s->gpus;
		for (uint32_t m = 0; m < s->count; m++) {
			int t = speed_node_type(sp, s->node + m);
			double f = jobclass_gpu_peak_flops(
				jobclass_ovr_gpu(sp->thr, t));
			if (f < peak) {
				peak = f;
				q->gpu = t;
			}
		}
	}
	size_t g = 0;
	while (p->n && p->slots[0].node >= sp->gstart[g + 1])
		g++;
	q->node_gpus = sp->ggpus[g] ? sp->ggpus[g] : 1;
	q->step_ref = step_ideal(sp, lj, &sh, sp->ref, q->node_gpus, &q->pl);
	q->step_ideal = step_ideal(sp, lj, &sh, q->gpu, q->node_gpus, &q->pl);
}

double speed_llm_type_rate(const struct speed *sp, const struct job *j,
			   int gpu)
{
	SIM_ASSERT(j->llm && j->llm <= sp->nllm);
	const struct llm_job *lj = &sp->llm[j->llm - 1];
	struct llm_shape sh;
	struct llm_memory mem;
	llm_job_shape(j, lj, &sh);
	llm_memory(&lj->model, &sh, &mem);
	if (mem.total > jobclass_gpu_mem_bytes(jobclass_ovr_gpu(sp->thr, gpu)))
		return 0;
	uint32_t g = 0;
	for (size_t i = 0; i < sp->ngroups && !g; i++)
		if (sp->gtype[i] == gpu)
			g = sp->ggpus[i];
	if (!g)
		g = 8; /* no node of the type: an HGX node */
	if (sh.tp <= g)
		g -= g % sh.tp; /* whole tp slots */
	else if (sh.tp % g)
		g = sh.tp;
	struct llm_place none;
	memset(&none, 0, sizeof(none)); /* unused: tp and g divide */
	return step_ideal(sp, lj, &sh, sp->ref, g, &none) /
	       step_ideal(sp, lj, &sh, gpu, g, &none);
}

double speed_llm_rate(struct speed *sp, const struct job *j,
		      enum speed_llm_mode mode)
{
	SIM_ASSERT(j->idx < sp->lp_cap && j->llm <= sp->nllm);
	struct speed_llm_place *q = &sp->lp[j->idx];
	if (mode == SPEED_LLM_IDEAL)
		return q->step_ref / q->step_ideal;
	const struct llm_job *lj = &sp->llm[j->llm - 1];
	struct llm_shape sh;
	struct llm_gpu g;
	struct llm_step st;
	struct sim_error err;
	llm_job_shape(j, lj, &sh);
	gpu_of(sp, q->gpu, q->node_gpus, &g);
	double bw = mode == SPEED_LLM_ALONE
		? net_job_bandwidth_alone(sp->net, j->idx)
		: net_job_bandwidth(sp->net, j->idx);
	double member = bw > 0 ? bw / (q->gmax ? q->gmax : 1) : INFINITY;
	double lat = net_get_spec(sp->net)->latency_usec;
	struct llm_group_place *grp[] = { &q->pl.tp, &q->pl.pp, &q->pl.dp };
	for (size_t i = 0; i < 3; i++) {
		grp[i]->fabric_Bps = member;
		grp[i]->latency_usec = lat * (q->racks[i] ? 4 : 2);
	}
	if (llm_step_time(&lj->model, &sh, &g, &q->pl, sp->llm_eff, &st,
			  &err))
		SIM_BUG("large-model step of job %lld: %s", (long long)j->id,
			err.msg);
	return q->step_ref / st.step_s;
}

/* "a100-80gb 80 GB, v100 32 GB" of the cluster's GPU types into buf. */
static void type_list(const struct cluster_spec *c,
		      const struct jobclass_overrides *thr, int ref,
		      char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = '\0';
	for (size_t g = 0; g < c->ngroups && k + 1 < cap; g++) {
		if (!c->groups[g].gpus)
			continue;
		const char *t = c->groups[g].gpu_type;
		const struct jobclass_gpu_info *i = jobclass_ovr_gpu(
			thr, t ? jobclass_ovr_gpu_lookup(thr, t, NULL) : ref);
		int w = snprintf(buf + k, cap - k, "%s%s %.0f GB", k ? ", " : "",
				 i->name, i->mem_gb);
		if (w < 0 || (size_t)w >= cap - k)
			break;
		k += (size_t)w;
	}
}

/* What speed_llm_fit finds for one job over the groups it may use. */
struct fit_scan {
	bool ok, bad;       /* some group fits it, some does not */
	uint32_t ok_type;   /* the cluster type of the fitting groups, 0 =
	                       untyped or several */
	bool ok_mixed;      /* fitting groups of several types */
};

static void fit_scan(const struct cluster_spec *c,
		     const struct jobclass_overrides *thr, int ref,
		     const struct job *j, double need, struct fit_scan *f)
{
	memset(f, 0, sizeof(*f));
	for (size_t g = 0; g < c->ngroups; g++) {
		const char *t = c->groups[g].gpu_type;
		uint32_t ct = cluster_spec_group_type(c, g);
		if (!c->groups[g].gpus || (j->gpu_type && ct != j->gpu_type))
			continue;
		int gi = t ? jobclass_ovr_gpu_lookup(thr, t, NULL) : ref;
		if (need > jobclass_gpu_mem_bytes(jobclass_ovr_gpu(thr, gi))) {
			f->bad = true;
			continue;
		}
		if (f->ok && (ct != f->ok_type || !ct))
			f->ok_mixed = true;
		f->ok = true;
		f->ok_type = ct;
	}
}

int speed_llm_fit(const struct cluster_spec *c,
		  const struct jobclass_overrides *thr, int ref,
		  struct job *jobs, size_t n, const struct llm_job *tab,
		  size_t ntab, const char *prefix, uint64_t *pinned,
		  struct sim_error *err)
{
	char types[256];
	*pinned = 0;
	for (size_t i = 0; i < n; i++) {
		struct job *j = &jobs[i];
		if (!j->llm || !j->gpus)
			continue;
		SIM_ASSERT(j->llm <= ntab);
		const struct llm_job *lj = &tab[j->llm - 1];
		struct llm_shape sh;
		struct llm_memory mem;
		struct fit_scan f;
		llm_job_shape(j, lj, &sh);
		llm_memory(&lj->model, &sh, &mem);
		fit_scan(c, thr, ref, j, mem.total, &f);
		if (f.ok && !f.bad)
			continue;
		type_list(c, thr, ref, types, sizeof(types));
		if (f.ok && !f.ok_mixed && f.ok_type) {
			j->gpu_type = (uint16_t)f.ok_type; /* refused elsewhere */
			if (!(*pinned)++)
				err_set(err, "job %" PRId64 " (model '%s', dp %u x "
					"tp %u x pp %u) needs %.1f GB per GPU: "
					"kept to the GPU types it fits, of %s",
					j->id, lj->model.name, sh.dp, sh.tp,
					sh.pp, mem.total / 1e9, types);
			continue;
		}
		if (!f.ok)
			return err_setc(err, -SIM_EINPUT, "%s$.workload: job %"
					PRId64 " (model '%s', dp %u x tp %u x "
					"pp %u) needs %.1f GB per GPU (weights "
					"%.1f, gradients %.1f, optimizer %.1f, "
					"activations %.1f) and fits no GPU type "
					"it may use (%s): give it a larger tp x "
					"pp, or a ZeRO stage", prefix, j->id,
					lj->model.name, sh.dp, sh.tp, sh.pp,
					mem.total / 1e9, mem.weights / 1e9,
					mem.grads / 1e9, mem.optimizer / 1e9,
					mem.activations / 1e9, types);
		return err_setc(err, -SIM_EINPUT, "%s$.workload: job %" PRId64
				" (model '%s') needs %.1f GB per GPU, which "
				"fits some of the cluster's GPU types (%s) but "
				"not all, and of the fitting ones more than one "
				"(or an untyped group): the placement cannot "
				"keep a job to a set of types; name its type "
				"(gpu_type)", prefix, j->id, lj->model.name,
				mem.total / 1e9, types);
	}
	return 0;
}
