/*
 * Virtual clusters (VCs): node groups reserved for one job group.
 *
 * Microsoft's Philly cluster ran each team's virtual cluster as a quota
 * of the shared GPU servers (Jeon et al., "Analysis of Large-Scale
 * Multi-Tenant GPU Clusters for DNN Training Workloads", ATC'19); its
 * trace names each job's VC.  Here a node group may say "vc": NAME, and
 * a GPU job whose group (job->group, by the workload's group names) is
 * NAME may only be placed on the groups of NAME and on the shared pool,
 * the GPU groups without a vc.  Jobs of no VC of the cluster get the
 * shared pool alone.  The GPU index (cluster_gpu.c) enforces it as a
 * placement constraint, the same way as a job's GPU type: both pick the
 * node ranges and GPU classes a placement searches.  This file holds
 * what is about VCs alone: binding the workload's group names to the
 * cluster's VCs, the per-VC queries, and the check that every job has
 * somewhere to run.  docs/philly.md has the rules and the limitations.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

void cluster_bind_groups(struct cluster *c, char *const *names, size_t n)
{
	free(c->group_vc);
	c->group_vc = NULL;
	c->ngroup_vc = 0;
	if (!names || !n || !c->nvc)
		return;
	c->group_vc = xmalloc(n * sizeof(*c->group_vc));
	for (size_t i = 0; i < n; i++)
		c->group_vc[i] = cluster_vc_index(c, names[i]);
	c->ngroup_vc = n;
}

uint32_t cluster_vc_count(const struct cluster *c)
{
	return c->nvc;
}

const char *cluster_vc_name(const struct cluster *c, uint32_t idx)
{
	SIM_ASSERT(idx < c->nvc);
	return c->vcname[idx];
}

int cluster_vc_index(const struct cluster *c, const char *name)
{
	for (uint32_t k = 0; name && k < c->nvc; k++)
		if (!strcmp(c->vcname[k], name))
			return (int)k;
	return -1;
}

int cluster_node_vc(const struct cluster *c, uint32_t node)
{
	uint32_t v;

	SIM_ASSERT(node < c->n);
	if (!c->ncl || !c->gcap[node])
		return -1;
	v = c->clvc[c->ncl[node]];
	return v < c->nvc ? (int)v : -1;
}

int cluster_job_vc(const struct cluster *c, const struct job *j)
{
	if (j->group < 0 || (size_t)j->group >= c->ngroup_vc)
		return -1;
	return c->group_vc[j->group];
}

/* Sum of a per-class array over the classes of VC idx (-1: shared). */
static uint64_t vc_sum(const struct cluster *c, int idx, const uint64_t *a)
{
	uint32_t v = idx < 0 ? c->nvc : (uint32_t)idx;
	uint64_t s = 0;

	if (!c->maxg)
		return 0;
	for (uint32_t k = 0; k < c->ncls; k++)
		if (c->clvc[k] == v)
			s += a[k];
	return s;
}

uint64_t cluster_vc_gpus(const struct cluster *c, int idx)
{
	return vc_sum(c, idx, c->ctotal);
}

uint64_t cluster_vc_free_gpus(const struct cluster *c, int idx)
{
	return vc_sum(c, idx, gp_class_free(c));
}

/* Is name the vc of some group of s? */
static bool spec_has_vc(const struct cluster_spec *s, const char *name)
{
	for (size_t g = 0; name && g < s->ngroups; g++)
		if (s->groups[g].vc && !strcmp(s->groups[g].vc, name))
			return true;
	return false;
}

int cluster_spec_check_vcs(const struct cluster_spec *s, const char *prefix,
			   const struct job *jobs, size_t njobs,
			   char *const *names, size_t n,
			   struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	bool any_vc = false, shared = false;
	uint64_t *lack = NULL, none = 0, missing = 0;
	size_t first = SIZE_MAX;
	int rc = 0;

	for (size_t g = 0; g < s->ngroups; g++) {
		if (s->groups[g].vc)
			any_vc = true;
		else if (s->groups[g].gpus)
			shared = true;
	}
	if (!any_vc || shared)
		return 0;
	/* Jobs per group that names no VC (the last slot: no group). */
	lack = xcalloc(n + 1, sizeof(*lack));
	for (size_t i = 0; i < njobs; i++) {
		const struct job *j = &jobs[i];
		bool named = names && j->group >= 0 && (size_t)j->group < n;

		if (!j->gpus)
			continue;
		if (!named)
			lack[n]++;
		else if (!spec_has_vc(s, names[j->group]))
			lack[j->group]++;
	}
	for (size_t k = 0; k < n; k++)
		if (lack[k]) {
			missing++;
			if (first == SIZE_MAX)
				first = k;
		}
	none = lack[n];
	if (first != SIZE_MAX)
		rc = err_set(err, "%s$.cluster.nodes: no node group for "
			     "virtual cluster '%s' of '%" PRIu64 "' jobs ('%"
			     PRIu64 "' virtual clusters lack one) and no "
			     "shared pool: give a group \"vc\": \"%s\", or "
			     "a gpu group without \"vc\"", p, names[first],
			     lack[first], missing, names[first]);
	else if (none)
		rc = err_set(err, "%s$.cluster.nodes: '%" PRIu64 "' gpu jobs "
			     "belong to no named group, so to no virtual "
			     "cluster, and there is no shared pool: give a "
			     "gpu group without \"vc\"", p, none);
	free(lack);
	return rc;
}
