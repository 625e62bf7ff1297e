/*
 * "cluster.tenants": departments and their projects with guaranteed GPU
 * quotas, borrowing and lending limits and over-quota weights
 * (experiments/README.md, docs/tenants.md), read into the cluster spec's
 * flat list: each department, then its projects.  Amounts are GPUs in
 * the file (fractions allowed, to the thousandth) and milli-GPUs inside.
 */
#include "exp/exp_schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "base/util.h"

/* GPUs (a number >= 0) at key into milli-GPUs. */
static int get_milli(struct exp_ctx *c, const char *key, const cJSON *v,
		     uint64_t *out)
{
	double g = 0;
	int rc = exp_get_number_in(c, key, v, 0, false, 1e12, &g);
	if (!rc && v)
		*out = (uint64_t)llround(g * 1000);
	return rc;
}

/* Which amount of a tenant_type: 0 quota, 1 borrow_limit, 2 lend_limit. */
static uint64_t *type_field(struct tenant_type *y, int which)
{
	return which == 0 ? &y->quota
	       : which == 1 ? &y->borrow_limit : &y->lend_limit;
}

/* t's entry for GPU type name, added (quota 0, no limits) if new. */
static struct tenant_type *type_entry(struct tenant_spec *t, const char *name)
{
	for (size_t i = 0; i < t->ntypes; i++)
		if (!strcmp(t->types[i].type, name))
			return &t->types[i];
	t->types = xrealloc(t->types, (t->ntypes + 1) * sizeof(*t->types));
	t->types[t->ntypes] = (struct tenant_type){
		.type = xstrdup(name), .quota = 0,
		.borrow_limit = TENANT_NO_LIMIT, .lend_limit = TENANT_NO_LIMIT,
	};
	return &t->types[t->ntypes++];
}

/* An amount at key: one number of GPUs (*scalar), or with per_type a
 * {gpu_type: GPUs} object into t's types; each form only in its mode. */
static int get_amount(struct exp_ctx *c, const char *key, const cJSON *v,
		      bool per_type, int which, struct tenant_spec *t,
		      uint64_t *scalar)
{
	if (!v)
		return 0;
	if (!per_type) /* a number; an object is caught by the pre-pass */
		return get_milli(c, key, v, scalar);
	if (!cJSON_IsObject(v))
		return exp_fail(c, key, "a number where the tenants' quotas are "
				"per GPU type: give {\"gpu_type\": GPUs}, got "
				"'%s'", cJSON_IsNumber(v) ? "a number"
							  : "another type");
	size_t m = exp_jp_key(c, key);
	int rc = 0;
	for (const cJSON *it = v->child; it && !rc; it = it->next) {
		uint64_t a = 0;
		rc = get_milli(c, it->string, it, &a);
		if (!rc) {
			struct tenant_type *y = type_entry(t, it->string);
			*type_field(y, which) = a;
			y->given |= 1u << which;
		}
	}
	exp_jp_pop(c, m);
	return rc;
}

/* Does any tenant give an amount as a per-type object? */
static bool any_per_type(const cJSON *v)
{
	static const char *const keys[] = { "quota", "borrow_limit",
					    "lend_limit" };
	for (const cJSON *d = v ? v->child : NULL; d; d = d->next) {
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
				    d, keys[k])))
				return true;
		const cJSON *ps = cJSON_GetObjectItemCaseSensitive(d,
								   "projects");
		if (cJSON_IsArray(ps) && any_per_type(ps))
			return true;
	}
	return false;
}

/* One tenant's own fields into t; its "projects" (a department's) in
 * *projects, NULL for a project (where the key is refused). */
static int parse_tenant(struct exp_ctx *c, const cJSON *v, bool dept,
			bool per_type, struct tenant_spec *t,
			const cJSON **projects)
{
	static const char *const keys[] = { "name", "quota", "borrow_limit",
					    "lend_limit", "weight",
					    "projects" };
	const cJSON *f[ARRAY_SIZE(keys)];
	const char *name = NULL;
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_require(c, f[0], "name");
	if (!rc)
		rc = exp_get_string(c, "name", f[0], &name);
	if (rc)
		return rc;
	t->quota = 0;
	t->borrow_limit = t->lend_limit = TENANT_NO_LIMIT;
	t->weight = 1;
	rc = get_amount(c, "quota", f[1], per_type, 0, t, &t->quota);
	if (!rc)
		rc = get_amount(c, "borrow_limit", f[2], per_type, 1, t,
				&t->borrow_limit);
	if (!rc)
		rc = get_amount(c, "lend_limit", f[3], per_type, 2, t,
				&t->lend_limit);
	for (size_t i = 0; i < t->ntypes; i++)
		t->quota += t->types[i].quota;
	if (!rc)
		rc = exp_get_number_in(c, "weight", f[4], 0, true, 1e9,
				       &t->weight);
	if (!rc && !dept && f[5])
		rc = exp_fail(c, "projects", "a project has no projects (two "
			      "levels: department, project)");
	if (!rc && dept)
		rc = exp_require(c, f[5], "projects");
	if (rc) {
		cluster_tenant_types_free(t);
		return rc;
	}
	t->name = xstrdup(name);
	if (projects)
		*projects = f[5];
	if (dept && !f[1])
		t->quota = TENANT_NO_LIMIT; /* the sum of its projects' */
	t->per_type = per_type;
	return 0;
}

/* Names are unique among all tenants: jobs and rows name them. */
static int check_unique(struct exp_ctx *c, const struct cluster_spec *s)
{
	for (size_t i = 0; i < s->ntenants; i++)
		for (size_t k = 0; k < i; k++)
			if (!strcmp(s->tenants[i].name, s->tenants[k].name))
				return exp_fail(c, NULL, "tenant name '%s' "
						"given twice",
						s->tenants[i].name);
	return 0;
}

/* A department's projects, appended after it (index d). */
static int parse_projects(struct exp_ctx *c, const cJSON *pv, size_t d,
			  bool per_type, struct cluster_spec *s, size_t *cap)
{
	size_t np = 0, m = exp_jp_key(c, "projects");
	uint64_t sum = 0;
	int rc = exp_array(c, pv, "an array", true, &np);
	size_t k = 0;
	for (const cJSON *it = rc ? NULL : pv->child; it && !rc;
	     it = it->next, k++) {
		if (s->ntenants == *cap) {
			*cap *= 2;
			s->tenants = xrealloc(s->tenants,
					      *cap * sizeof(*s->tenants));
		}
		struct tenant_spec *t = &s->tenants[s->ntenants];
		memset(t, 0, sizeof(*t));
		size_t mi = exp_jp_index(c, k);
		rc = parse_tenant(c, it, false, per_type, t, NULL);
		exp_jp_pop(c, mi);
		if (rc)
			break;
		t->parent = (int32_t)d;
		sum += t->quota;
		s->ntenants++;
	}
	exp_jp_pop(c, m);
	if (!rc && s->tenants[d].quota == TENANT_NO_LIMIT) {
		s->tenants[d].quota = sum;
		for (size_t i = d + 1; i < s->ntenants; i++) /* per type too */
			for (size_t y = 0; y < s->tenants[i].ntypes; y++)
				type_entry(&s->tenants[d],
					   s->tenants[i].types[y].type)->quota +=
					s->tenants[i].types[y].quota;
	}
	return rc;
}

int exp_parse_tenants(struct exp_ctx *c, const cJSON *v,
		      struct cluster_spec *s)
{
	size_t n = 0, m = exp_jp_key(c, "tenants"), i = 0, cap = 16;
	int rc = exp_array(c, v, "an array", true, &n);
	bool per_type = !rc && any_per_type(v);
	if (rc)
		goto out;
	s->tenants = xcalloc(cap, sizeof(*s->tenants));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		if (s->ntenants == cap) {
			cap *= 2;
			s->tenants = xrealloc(s->tenants,
					      cap * sizeof(*s->tenants));
		}
		size_t d = s->ntenants, mi = exp_jp_index(c, i);
		const cJSON *pv = NULL;
		memset(&s->tenants[d], 0, sizeof(s->tenants[d]));
		rc = parse_tenant(c, it, true, per_type, &s->tenants[d],
				  &pv);
		if (!rc) {
			s->tenants[d].parent = -1;
			s->ntenants++;
			rc = parse_projects(c, pv, d, per_type, s, &cap);
		}
		exp_jp_pop(c, mi);
	}
	if (!rc)
		rc = check_unique(c, s);
out:
	exp_jp_pop(c, m);
	return rc;
}
