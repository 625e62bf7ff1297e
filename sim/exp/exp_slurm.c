/*
 * Slurm-style queues in the experiment (experiments/README.md,
 * docs/tenants.md "Partitions and QOS"): "cluster.partitions" (node
 * groups with Slurm's MaxTime, PriorityTier and PriorityJobFactor) and
 * the root's "qos" (priority, usage factor, per-user and per-group
 * limits), read into the cluster spec (cluster/cluster.h).
 */
#include "exp/exp_schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "base/util.h"

/* "trace_id": the number a trace field gives it; -1 when absent. */
static int get_trace_id(struct exp_ctx *c, const cJSON *v, int64_t *out)
{
	uint64_t id = 0;
	*out = -1;
	int rc = exp_get_uint(c, "trace_id", v, 0, INT32_MAX, &id);
	if (!rc && v)
		*out = (int64_t)id;
	return rc;
}

/* A partition's "nodes": node group names. */
static int get_groups(struct exp_ctx *c, const cJSON *v, struct part_spec *p)
{
	size_t n = 0, m = exp_jp_key(c, "nodes"), i = 0;
	int rc = exp_array(c, v, "an array of node group names", false, &n);
	p->groups = xcalloc(n ? n : 1, sizeof(*p->groups));
	for (const cJSON *it = rc ? NULL : v->child; it && !rc;
	     it = it->next, i++) {
		const char *name = NULL;
		size_t mi = exp_jp_index(c, i);
		rc = exp_get_string(c, NULL, it, &name);
		exp_jp_pop(c, mi);
		if (!rc)
			p->groups[p->ngroups++] = xstrdup(name);
	}
	exp_jp_pop(c, m);
	return rc;
}

static int parse_part(struct exp_ctx *c, const cJSON *v, struct part_spec *p)
{
	static const char *const keys[] = { "name", "nodes", "max_time_s",
					    "priority_tier",
					    "priority_job_factor", "default",
					    "trace_id", "preempt" };
	static const char *const modes[] = { "off", "requeue" };
	const cJSON *f[ARRAY_SIZE(keys)];
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_name(c, f[0], &p->name);
	if (!rc)
		rc = exp_require(c, f[1], "nodes");
	if (!rc)
		rc = get_groups(c, f[1], p);
	if (!rc)
		rc = exp_get_seconds(c, "max_time_s", f[2], 0, false,
				     &p->max_time); /* 0: none */
	if (!rc)
		rc = exp_get_u32(c, "priority_tier", f[3], 0,
				 &p->priority_tier);
	p->priority_job_factor = 1;
	if (!rc)
		rc = exp_get_u32(c, "priority_job_factor", f[4], 0,
				 &p->priority_job_factor);
	if (!rc)
		rc = exp_get_bool(c, "default", f[5], &p->is_default);
	if (!rc)
		rc = get_trace_id(c, f[6], &p->trace_id);
	int mode = 0;
	if (!rc)
		rc = exp_get_enum(c, "preempt", f[7], modes, 2, &mode);
	p->preempt_requeue = mode == 1;
	return rc;
}

int exp_parse_partitions(struct exp_ctx *c, const cJSON *v,
			 struct cluster_spec *s)
{
	size_t n = 0, m = exp_jp_key(c, "partitions"), i = 0;
	int rc = exp_array(c, v, "an array", true, &n);
	if (!rc)
		s->parts = xcalloc(n, sizeof(*s->parts));
	for (const cJSON *it = rc ? NULL : v->child; it && !rc;
	     it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		rc = parse_part(c, it, &s->parts[s->nparts++]);
		exp_jp_pop(c, mi);
	}
	exp_jp_pop(c, m);
	return rc;
}

/* A limit: a count >= 0 (0 forbids), absent = none. */
static int get_limit(struct exp_ctx *c, const char *key, const cJSON *v,
		     uint64_t *out)
{
	*out = QOS_NO_LIMIT;
	return exp_get_uint(c, key, v, 0, UINT64_MAX - 1, out);
}

static int parse_qos(struct exp_ctx *c, const cJSON *v, struct qos_spec *q)
{
	static const char *const keys[] = { "name", "priority",
					    "usage_factor",
					    "max_jobs_per_user",
					    "max_jobs_per_group",
					    "max_units_per_user", "default",
					    "trace_id", "preempt" };
	const cJSON *f[ARRAY_SIZE(keys)];
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_name(c, f[0], &q->name);
	if (!rc)
		rc = exp_get_u32(c, "priority", f[1], 0, &q->priority);
	q->usage_factor = 1;
	if (!rc)
		rc = exp_get_number_in(c, "usage_factor", f[2], 0, false, 1e6,
				       &q->usage_factor);
	if (!rc)
		rc = get_limit(c, "max_jobs_per_user", f[3],
			       &q->max_jobs_per_user);
	if (!rc)
		rc = get_limit(c, "max_jobs_per_group", f[4],
			       &q->max_jobs_per_group);
	if (!rc)
		rc = get_limit(c, "max_units_per_user", f[5],
			       &q->max_units_per_user);
	if (!rc)
		rc = exp_get_bool(c, "default", f[6], &q->is_default);
	if (!rc)
		rc = get_trace_id(c, f[7], &q->trace_id);
	return rc;
}

/* A QOS's "preempt": names of QOS (any of the list) into a mask. */
static int parse_preempt(struct exp_ctx *c, const cJSON *v,
			 struct cluster_spec *s, struct qos_spec *q)
{
	size_t n = 0, m = exp_jp_key(c, "preempt"), i = 0;
	int rc = exp_array(c, v, "an array of QOS names", false, &n);
	for (const cJSON *it = rc ? NULL : v->child; it && !rc;
	     it = it->next, i++) {
		const char *name = NULL;
		size_t mi = exp_jp_index(c, i), k;
		rc = exp_get_string(c, NULL, it, &name);
		for (k = 0; !rc && k < s->nqos; k++)
			if (!strcmp(s->qos[k].name, name))
				break;
		if (!rc && k == s->nqos)
			rc = exp_fail(c, NULL, "no QOS '%s' in $.qos", name);
		if (!rc)
			q->preempt |= UINT64_C(1) << k;
		exp_jp_pop(c, mi);
	}
	exp_jp_pop(c, m);
	return rc;
}

int exp_parse_qos(struct exp_ctx *c, const cJSON *v, struct cluster_spec *s)
{
	size_t n = 0, m = exp_jp_key(c, "qos"), i = 0;
	int rc = exp_array(c, v, "an array", true, &n);
	if (!rc && n > QOS_MAX)
		rc = exp_fail(c, NULL, "more than %d QOS, got '%zu'", QOS_MAX,
			      n);
	if (!rc)
		s->qos = xcalloc(n, sizeof(*s->qos));
	for (const cJSON *it = rc ? NULL : v->child; it && !rc;
	     it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		rc = parse_qos(c, it, &s->qos[s->nqos++]);
		exp_jp_pop(c, mi);
	}
	/* Then the preempt lists, which may name any QOS of the list. */
	i = 0;
	for (const cJSON *it = rc ? NULL : v->child; it && !rc;
	     it = it->next, i++) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "preempt");
		size_t mi = exp_jp_index(c, i);
		if (p)
			rc = parse_preempt(c, p, s, &s->qos[i]);
		exp_jp_pop(c, mi);
	}
	exp_jp_pop(c, m);
	return rc;
}

/* ---- the resolved configuration --------------------------------------- */

static void add_limit(cJSON *o, const char *key, uint64_t v)
{
	if (v == QOS_NO_LIMIT)
		cJSON_AddStringToObject(o, key, "none");
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

cJSON *exp_partitions_json(const struct cluster_spec *s)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < s->nparts; i++) {
		const struct part_spec *p = &s->parts[i];
		cJSON *o = cJSON_CreateObject(), *g = cJSON_CreateArray();
		cJSON_AddStringToObject(o, "name", p->name);
		for (size_t k = 0; k < p->ngroups; k++)
			cJSON_AddItemToArray(g, cJSON_CreateString(p->groups[k]));
		cJSON_AddItemToObject(o, "nodes", g);
		cJSON_AddNumberToObject(o, "max_time_s",
					(double)p->max_time / SIM_SEC);
		cJSON_AddNumberToObject(o, "priority_tier", p->priority_tier);
		cJSON_AddNumberToObject(o, "priority_job_factor",
					p->priority_job_factor);
		cJSON_AddBoolToObject(o, "default", p->is_default);
		cJSON_AddStringToObject(o, "preempt",
					p->preempt_requeue ? "requeue" : "off");
		if (p->trace_id >= 0)
			cJSON_AddNumberToObject(o, "trace_id",
						(double)p->trace_id);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

cJSON *exp_qos_json(const struct cluster_spec *s)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < s->nqos; i++) {
		const struct qos_spec *q = &s->qos[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", q->name);
		cJSON_AddNumberToObject(o, "priority", q->priority);
		cJSON_AddNumberToObject(o, "usage_factor", q->usage_factor);
		add_limit(o, "max_jobs_per_user", q->max_jobs_per_user);
		add_limit(o, "max_jobs_per_group", q->max_jobs_per_group);
		add_limit(o, "max_units_per_user", q->max_units_per_user);
		cJSON_AddBoolToObject(o, "default", q->is_default);
		if (q->trace_id >= 0)
			cJSON_AddNumberToObject(o, "trace_id",
						(double)q->trace_id);
		cJSON *pre = cJSON_CreateArray();
		for (size_t k = 0; k < s->nqos; k++)
			if (q->preempt >> k & 1)
				cJSON_AddItemToArray(pre, cJSON_CreateString(
							     s->qos[k].name));
		cJSON_AddItemToObject(o, "preempt", pre);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
