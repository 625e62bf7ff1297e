/*
 * Slurm-style partitions and QOS (docs/tenants.md, "Partitions and QOS"):
 * the spec's side.  A partition is a set of node groups with Slurm's
 * MaxTime, PriorityTier and PriorityJobFactor; a QOS has a priority, a
 * usage factor and per-user and per-group limits.  This file copies and
 * frees them with the cluster spec, checks them against the node groups
 * and each other, and binds each job of a workload to one partition and
 * one QOS by the trace field the experiment names.  What a run does with
 * them is the engine's (sim/engine/sim_slurm.c) and the multifactor
 * policy's (policies/multifactor.c).
 *
 * A partition's nodes are node groups and ranges of a group's nodes
 * (cluster_part.c reads them, and places a partition's jobs on them);
 * partitions may overlap, as Slurm's may.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

const char *const slurm_from_names[SLURM_FROM_N] = {
	[SLURM_FROM_NONE] = "none",
	[SLURM_FROM_PARTITION] = "partition",
	[SLURM_FROM_QUEUE] = "queue",
	[SLURM_FROM_GROUP] = "group",
	[SLURM_FROM_USER] = "user",
};

void cluster_slurm_release(struct cluster_spec *s)
{
	for (size_t i = 0; i < s->nparts && s->parts; i++) {
		for (size_t g = 0; g < s->parts[i].ngroups; g++)
			free(s->parts[i].groups[g]);
		free(s->parts[i].groups);
		free(s->parts[i].name);
	}
	free(s->parts);
	s->parts = NULL;
	s->nparts = 0;
	for (size_t i = 0; i < s->nqos && s->qos; i++)
		free(s->qos[i].name);
	free(s->qos);
	s->qos = NULL;
	s->nqos = 0;
}

void cluster_slurm_copy(struct cluster_spec *dst,
			const struct cluster_spec *src)
{
	dst->parts = NULL;
	dst->nparts = 0;
	dst->qos = NULL;
	dst->nqos = 0;
	if (src->nparts) {
		dst->parts = xcalloc(src->nparts, sizeof(*dst->parts));
		for (size_t i = 0; i < src->nparts; i++) {
			struct part_spec *p = &dst->parts[i];
			*p = src->parts[i];
			p->name = xstrdup(p->name);
			p->groups = xcalloc(p->ngroups ? p->ngroups : 1,
					    sizeof(*p->groups));
			for (size_t g = 0; g < p->ngroups; g++)
				p->groups[g] = xstrdup(src->parts[i].groups[g]);
		}
		dst->nparts = src->nparts;
	}
	if (src->nqos) {
		dst->qos = xcalloc(src->nqos, sizeof(*dst->qos));
		for (size_t i = 0; i < src->nqos; i++) {
			dst->qos[i] = src->qos[i];
			dst->qos[i].name = xstrdup(src->qos[i].name);
		}
		dst->nqos = src->nqos;
	}
}

uint64_t cluster_spec_part_units(const struct cluster_spec *s, size_t p)
{
	bool gpus = false;
	uint64_t u = 0;
	uint32_t *r;
	size_t n;
	struct sim_error err;
	for (size_t g = 0; g < s->ngroups; g++)
		gpus |= s->groups[g].gpus > 0;
	if (cluster_spec_part_nodes(s, p, "", &r, &n, &err))
		return 0;
	for (size_t i = 0; i < n; i++) {
		/* Node v's group: the last that starts at or before it. */
		uint32_t start = 0;
		size_t g = 0;
		for (uint32_t v = r[2 * i]; v < r[2 * i + 1]; v++) {
			while (g + 1 < s->ngroups &&
			       v >= start + s->groups[g].count)
				start += s->groups[g++].count;
			const struct node_group *ng = &s->groups[g];
			u += gpus ? ng->gpus : s->exclusive ? 1 : ng->cpus;
		}
	}
	free(r);
	return u;
}

/* The partitions: nodes that exist (they may overlap, as Slurm's), at
 * most 64, one default at most. */
static int check_parts(const struct cluster_spec *s, const char *prefix,
		       struct sim_error *err)
{
	int def = -1;
	if (s->nparts > 64)
		return err_set(err, "%s$.cluster.partitions: '%zu' partitions, "
			       "more than 64", prefix, s->nparts);
	for (size_t i = 0; i < s->nparts; i++) {
		const struct part_spec *p = &s->parts[i];
		uint32_t *r;
		size_t n;
		if (!p->ngroups)
			return err_set(err, "%s$.cluster.partitions[%zu].nodes: "
				       "partition '%s' names no nodes", prefix,
				       i, p->name);
		if (cluster_spec_part_nodes(s, i, prefix, &r, &n, err))
			return -SIM_EINPUT;
		free(r);
		for (size_t o = 0; o < i; o++)
			if (!strcmp(s->parts[o].name, p->name))
				return err_set(err, "%s$.cluster.partitions[%zu]"
					       ".name: partition '%s' given "
					       "twice", prefix, i, p->name);
		if (p->is_default && def >= 0)
			return err_set(err, "%s$.cluster.partitions[%zu].default:"
				       " partition '%s' is the default already",
				       prefix, i, s->parts[def].name);
		if (p->is_default)
			def = (int)i;
	}
	return 0;
}

int cluster_slurm_check(const struct cluster_spec *s, const char *prefix,
			struct sim_error *err)
{
	int rc = check_parts(s, prefix, err);
	int def = -1;
	for (size_t i = 0; !rc && i < s->nqos; i++) {
		const struct qos_spec *q = &s->qos[i];
		for (size_t o = 0; o < i; o++)
			if (!strcmp(s->qos[o].name, q->name))
				return err_set(err, "%s$.qos[%zu].name: QOS '%s' "
					       "given twice", prefix, i, q->name);
		if (q->max_jobs_per_group < q->max_jobs_per_user)
			return err_set(err, "%s$.qos[%zu].max_jobs_per_group: "
				       "'%" PRIu64 "' is below max_jobs_per_"
				       "user '%" PRIu64 "' (a group holds at "
				       "least what one of its users may)",
				       prefix, i, q->max_jobs_per_group,
				       q->max_jobs_per_user);
		if (q->is_default && def >= 0)
			return err_set(err, "%s$.qos[%zu].default: QOS '%s' is "
				       "the default already", prefix, i,
				       s->qos[def].name);
		if (q->is_default)
			def = (int)i;
	}
	return rc;
}

/* The value of a job's field by `from`, as text (a group by its name
 * where the trace names groups) and as a number. */
static void field_of(int from, const struct job *j, const int32_t *qp,
		     char *const *names, size_t n, char *buf, size_t len,
		     int64_t *num)
{
	switch (from) {
	case SLURM_FROM_PARTITION:
		*num = qp ? qp[2 * j->idx + 1] : -1;
		break;
	case SLURM_FROM_QUEUE:
		*num = qp ? qp[2 * j->idx] : -1;
		break;
	case SLURM_FROM_GROUP:
		*num = j->group;
		break;
	case SLURM_FROM_USER:
		*num = j->user;
		break;
	default:
		*num = -1;
	}
	if (from == SLURM_FROM_GROUP && names && *num >= 0 &&
	    (size_t)*num < n)
		snprintf(buf, len, "%s", names[*num]);
	else
		snprintf(buf, len, "%" PRId64, *num);
}

/* Index of the entry (stride bytes apart, the name first and the
 * trace_id and is_default at the given offsets) that a field names. */
static int match(const char *text, int64_t num, const void *base, size_t n,
		 size_t stride, size_t id_off, size_t def_off)
{
	int def = -1;
	for (size_t i = 0; i < n; i++) {
		const char *e = (const char *)base + i * stride;
		const char *name = *(char *const *)e;
		int64_t id;
		bool is_def;
		memcpy(&id, e + id_off, sizeof(id));
		memcpy(&is_def, e + def_off, sizeof(is_def));
		if (is_def)
			def = (int)i;
		if (num >= 0 && id >= 0 ? id == num : !strcmp(name, text))
			return (int)i;
	}
	return def; /* the default takes the rest (-1 when none) */
}

/* A job whose field names no partition (what = "partition", list its
 * JSON path) or QOS and no default takes it: the error names the trace's
 * line where it is known, else the workload key (key) that read it. */
static int unmatched(const struct job *j, const uint64_t *lines,
		     const char *trace, const char *prefix, const char *key,
		     const char *what, const char *list, int from,
		     const char *value, struct sim_error *err)
{
	if (lines && trace)
		return err_set(err, "%s:%" PRIu64 ": job '%" PRId64 "' has "
			       "%s '%s', which names no %s of %s%s (and none "
			       "is the default)", trace, lines[j->idx], j->id,
			       slurm_from_names[from], value, what, prefix,
			       list);
	return err_set(err, "%s$.workload.%s: job '%" PRId64 "' has %s '%s', "
		       "which names no %s of %s (and none is the default)",
		       prefix, key, j->id, slurm_from_names[from], value,
		       what, list);
}

int cluster_slurm_bind(const struct cluster_spec *s, const struct job *jobs,
		       size_t njobs, const int32_t *qp, const uint64_t *lines,
		       const char *trace, char *const *names, size_t n,
		       const char *prefix, int32_t *part, int32_t *qos,
		       struct sim_error *err)
{
	char buf[256];
	int64_t num;
	int rc = cluster_slurm_check(s, prefix, err);
	for (size_t i = 0; i < njobs && !rc; i++) {
		const struct job *j = &jobs[i];
		int p = -1, q = -1;
		if (s->nparts) {
			field_of(s->part_from, j, qp, names, n, buf,
				 sizeof(buf), &num);
			p = s->part_from == SLURM_FROM_NONE ? -1
			    : match(buf, num, s->parts, s->nparts,
				    sizeof(*s->parts),
				    offsetof(struct part_spec, trace_id),
				    offsetof(struct part_spec, is_default));
			if (s->part_from == SLURM_FROM_NONE)
				for (size_t k = 0; k < s->nparts; k++)
					if (s->parts[k].is_default)
						p = (int)k;
			if (p < 0)
				return unmatched(j, lines, trace, prefix,
						 "partition_from", "partition",
						 "$.cluster.partitions",
						 s->part_from, buf, err);
		}
		if (s->nqos) {
			field_of(s->qos_from, j, qp, names, n, buf,
				 sizeof(buf), &num);
			q = match(buf, s->qos_from == SLURM_FROM_NONE ? -1 : num,
				  s->qos, s->nqos, sizeof(*s->qos),
				  offsetof(struct qos_spec, trace_id),
				  offsetof(struct qos_spec, is_default));
			if (s->qos_from == SLURM_FROM_NONE && q < 0)
				q = 0; /* the first, as Slurm's "normal" */
			if (q < 0)
				return unmatched(j, lines, trace, prefix,
						 "qos_from", "QOS", "$.qos",
						 s->qos_from, buf, err);
		}
		if (part)
			part[i] = p;
		if (qos)
			qos[i] = q;
	}
	return rc;
}
