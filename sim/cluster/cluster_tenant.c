/*
 * Tenants of a cluster: departments and their projects with guaranteed
 * GPU quotas, borrowing and lending limits (docs/tenants.md).  This file
 * holds the spec's side: copying and freeing it with the cluster spec,
 * checking the quotas against the cluster and each other, and binding
 * each job of a workload to its project by the field the experiment
 * names.  The books of what each tenant holds during a run are the
 * engine's (sim/engine/sim_tenant.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_impl.h"

const char *const tenant_from_names[TENANT_FROM_N] = {
	[TENANT_FROM_VC] = "vc",
	[TENANT_FROM_GROUP] = "group",
	[TENANT_FROM_USER] = "user",
	[TENANT_FROM_COLUMN] = "column",
};

void cluster_tenant_types_free(struct tenant_spec *t)
{
	for (size_t i = 0; i < t->ntypes; i++)
		free(t->types[i].type);
	free(t->types);
	t->types = NULL;
	t->ntypes = 0;
}

const struct tenant_type *cluster_tenant_type(const struct tenant_spec *t,
					      const char *name)
{
	for (size_t i = 0; i < t->ntypes; i++)
		if (!strcmp(t->types[i].type, name))
			return &t->types[i];
	return NULL;
}

void cluster_tenants_release(struct cluster_spec *s)
{
	for (size_t i = 0; i < s->ntenants && s->tenants; i++) {
		free(s->tenants[i].name);
		cluster_tenant_types_free(&s->tenants[i]);
	}
	free(s->tenants);
	s->tenants = NULL;
	s->ntenants = 0;
}

void cluster_tenants_copy(struct cluster_spec *dst,
			  const struct cluster_spec *src)
{
	dst->tenants = NULL;
	dst->ntenants = 0;
	if (!src->ntenants || !src->tenants)
		return;
	dst->tenants = xcalloc(src->ntenants, sizeof(*dst->tenants));
	for (size_t i = 0; i < src->ntenants; i++) {
		dst->tenants[i] = src->tenants[i];
		dst->tenants[i].name = xstrdup(src->tenants[i].name);
		size_t ny = src->tenants[i].ntypes;
		dst->tenants[i].types = ny ? xmalloc(ny * sizeof(struct
							   tenant_type))
					   : NULL;
		for (size_t y = 0; y < ny; y++) {
			dst->tenants[i].types[y] = src->tenants[i].types[y];
			dst->tenants[i].types[y].type =
				xstrdup(src->tenants[i].types[y].type);
		}
	}
	dst->ntenants = src->ntenants;
}

/* "$.cluster.tenants[d]" or "$.cluster.tenants[d].projects[k]" for
 * tenant i, into buf. */
static void tenant_path(const struct cluster_spec *s, size_t i, char *buf,
			size_t n)
{
	size_t d = 0, k = 0;
	for (size_t t = 0; t < i; t++)
		if (s->tenants[t].parent < 0)
			d++;
	if (s->tenants[i].parent < 0) {
		snprintf(buf, n, "$.cluster.tenants[%zu]", d);
		return;
	}
	k = i - (size_t)s->tenants[i].parent - 1;
	snprintf(buf, n, "$.cluster.tenants[%zu].projects[%zu]", d - 1, k);
}

/* "12.5" for milli-GPUs. */
static const char *gpus_text(uint64_t milli, char *buf)
{
	if (milli % 1000)
		snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, milli / 1000,
			 milli % 1000);
	else
		snprintf(buf, 32, "%" PRIu64, milli / 1000);
	return buf;
}

/* The most an interactive job of tenant t can hold within quota: its
 * quota, or with quotas per GPU type its largest type quota (a job that
 * requires a type whose quota is smaller is not caught here: the
 * progress check ends such a run, naming it). */
static uint64_t interactive_cap(const struct tenant_spec *t)
{
	if (!t->per_type)
		return t->quota;
	uint64_t most = 0;
	for (size_t y = 0; y < t->ntypes; y++)
		most = t->types[y].quota > most ? t->types[y].quota : most;
	return most;
}

/* Tenant i against its department and the cluster (total milli-GPUs). */
static int check_one(const struct cluster_spec *s, size_t i, uint64_t total,
		     const char *p, struct sim_error *err)
{
	const struct tenant_spec *t = &s->tenants[i];
	char path[96], a[32], b[32];
	tenant_path(s, i, path, sizeof(path));
	if (t->quota > total)
		return err_setc(err, -SIM_EINPUT, "%s%s.quota: larger than the "
				"cluster's '%s' GPUs, got '%s'", p, path,
				gpus_text(total, a), gpus_text(t->quota, b));
	if (t->parent < 0)
		return 0;
	const struct tenant_spec *d = &s->tenants[t->parent];
	if (t->borrow_limit != TENANT_NO_LIMIT &&
	    d->borrow_limit != TENANT_NO_LIMIT &&
	    t->borrow_limit > d->borrow_limit)
		return err_setc(err, -SIM_EINPUT, "%s%s.borrow_limit: larger "
				"than its department's '%s', got '%s'", p,
				path, gpus_text(d->borrow_limit, a),
				gpus_text(t->borrow_limit, b));
	if (t->lend_limit != TENANT_NO_LIMIT && t->lend_limit > t->quota)
		return err_setc(err, -SIM_EINPUT, "%s%s.lend_limit: larger "
				"than its quota '%s', got '%s'", p, path,
				gpus_text(t->quota, a),
				gpus_text(t->lend_limit, b));
	return 0;
}

/* Milli-GPUs of the groups of GPU type name (0: no group has it). */
static uint64_t type_capacity(const struct cluster_spec *s, const char *name)
{
	uint64_t n = 0;
	for (size_t g = 0; g < s->ngroups; g++)
		if (s->groups[g].gpu_type && !strcmp(s->groups[g].gpu_type, name))
			n += (uint64_t)s->groups[g].count * s->groups[g].gpus *
			     1000;
	return n;
}

/* The first of quota, borrow_limit, lend_limit that named y. */
static const char *type_key(const struct tenant_type *y)
{
	return y->given & 1 ? "quota" : y->given & 2 ? "borrow_limit"
						      : "lend_limit";
}

/* Tenant i's entry y against the cluster's GPUs of its type and its
 * department's entry of that type. */
static int check_type(const struct cluster_spec *s, size_t i,
		      const struct tenant_type *y, const char *p,
		      struct sim_error *err)
{
	const struct tenant_spec *t = &s->tenants[i];
	uint64_t cap = type_capacity(s, y->type);
	char path[96], a[32], b[32];
	tenant_path(s, i, path, sizeof(path));
	if (!y->given) /* a department's sum of its projects' */
		return 0;
	if (!cap)
		return err_setc(err, -SIM_EINPUT, "%s%s.%s: no node group has "
				"GPU type '%s'", p, path, type_key(y), y->type);
	if ((y->given & 1) && y->quota > cap)
		return err_setc(err, -SIM_EINPUT, "%s%s.quota.%s: larger than "
				"the cluster's '%s' GPUs of that type, got '%s'",
				p, path, y->type, gpus_text(cap, a),
				gpus_text(y->quota, b));
	if (y->lend_limit != TENANT_NO_LIMIT && y->lend_limit > y->quota)
		return err_setc(err, -SIM_EINPUT, "%s%s.lend_limit.%s: larger "
				"than its quota of that type '%s', got '%s'", p,
				path, y->type, gpus_text(y->quota, a),
				gpus_text(y->lend_limit, b));
	if (t->parent < 0 || y->borrow_limit == TENANT_NO_LIMIT)
		return 0;
	const struct tenant_type *dy =
		cluster_tenant_type(&s->tenants[t->parent], y->type);
	if (dy && dy->borrow_limit != TENANT_NO_LIMIT &&
	    y->borrow_limit > dy->borrow_limit)
		return err_setc(err, -SIM_EINPUT, "%s%s.borrow_limit.%s: larger "
				"than its department's '%s', got '%s'", p, path,
				y->type, gpus_text(dy->borrow_limit, a),
				gpus_text(y->borrow_limit, b));
	return 0;
}

/* Quotas of one GPU type (the one of tenant i's entry y) added up:
 * each department's projects within it, the departments within the
 * cluster's GPUs of the type. */
static int check_type_sums(const struct cluster_spec *s, const char *type,
			   const char *p, struct sim_error *err)
{
	uint64_t cap = type_capacity(s, type), depts = 0;
	char path[96], a[32], b[32];
	for (size_t i = 0; i < s->ntenants; i++) {
		if (s->tenants[i].parent >= 0)
			continue;
		const struct tenant_type *dy =
			cluster_tenant_type(&s->tenants[i], type);
		uint64_t dq = dy ? dy->quota : 0, sum = 0;
		depts += dq;
		for (size_t k = i + 1; k < s->ntenants &&
				       s->tenants[k].parent == (int32_t)i; k++) {
			const struct tenant_type *ky =
				cluster_tenant_type(&s->tenants[k], type);
			sum += ky ? ky->quota : 0;
		}
		tenant_path(s, i, path, sizeof(path));
		if (sum > dq)
			return err_setc(err, -SIM_EINPUT, "%s%s.projects: their "
					"quotas of GPU type '%s' add up to '%s' "
					"GPUs, more than the department's '%s'",
					p, path, type, gpus_text(sum, a),
					gpus_text(dq, b));
	}
	if (depts > cap)
		return err_setc(err, -SIM_EINPUT, "%s$.cluster.tenants: the "
				"departments' quotas of GPU type '%s' add up to "
				"'%s' GPUs, more than the cluster's '%s'", p,
				type, gpus_text(depts, a), gpus_text(cap, b));
	return 0;
}

/* Every per-type entry, then each type's sums. */
static int check_types(const struct cluster_spec *s, const char *p,
		       struct sim_error *err)
{
	for (int dept = 0; dept < 2; dept++) /* projects first */
		for (size_t i = 0; i < s->ntenants; i++) {
			if ((s->tenants[i].parent < 0) != dept)
				continue;
			for (size_t y = 0; y < s->tenants[i].ntypes; y++) {
				int rc = check_type(s, i, &s->tenants[i].types[y],
						    p, err);
				if (rc)
					return rc;
			}
		}
	for (size_t g = 0; g < s->ngroups; g++) {
		const char *type = s->groups[g].gpu_type;
		bool seen = !type;
		for (size_t h = 0; h < g && !seen; h++)
			seen = s->groups[h].gpu_type &&
			       !strcmp(s->groups[h].gpu_type, type);
		int rc = seen ? 0 : check_type_sums(s, type, p, err);
		if (rc)
			return rc;
	}
	return 0;
}

int cluster_tenants_check(const struct cluster_spec *s, const char *prefix,
			  struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	if (s->ntenants && s->tenants[0].per_type) {
		int rc = check_types(s, p, err);
		if (rc)
			return rc;
	}
	uint64_t total = 0, depts = 0;
	for (size_t g = 0; g < s->ngroups; g++)
		total += (uint64_t)s->groups[g].count * s->groups[g].gpus * 1000;
	/* Projects first: a department's quota may be their sum. */
	for (size_t i = 0; i < s->ntenants; i++) {
		int rc = s->tenants[i].parent >= 0
				 ? check_one(s, i, total, p, err) : 0;
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < s->ntenants; i++) {
		if (s->tenants[i].parent >= 0)
			continue;
		int rc = check_one(s, i, total, p, err);
		if (rc)
			return rc;
		depts += s->tenants[i].quota;
		uint64_t sum = 0;
		for (size_t k = i + 1; k < s->ntenants &&
				       s->tenants[k].parent == (int32_t)i; k++)
			sum += s->tenants[k].quota;
		char path[96], a[32], b[32];
		tenant_path(s, i, path, sizeof(path));
		if (sum > s->tenants[i].quota)
			return err_setc(err, -SIM_EINPUT, "%s%s.projects: their "
					"quotas add up to '%s' GPUs, more than "
					"the department's quota '%s'", p, path,
					gpus_text(sum, a),
					gpus_text(s->tenants[i].quota, b));
	}
	if (depts > total) {
		char a[32], b[32];
		return err_setc(err, -SIM_EINPUT, "%s$.cluster.tenants: the "
				"departments' quotas add up to '%s' GPUs, more "
				"than the cluster's '%s'", p,
				gpus_text(depts, a), gpus_text(total, b));
	}
	return 0;
}

/* A job's demand in milli-GPUs (sim_job_milli). */
static uint64_t job_milli(const struct job *j)
{
	return j->gpus ? (uint64_t)j->gpus * 1000 : j->gpu_milli;
}

/* The project named key, or -1. */
static int32_t project_named(const struct cluster_spec *s, const char *key)
{
	for (size_t i = 0; i < s->ntenants; i++)
		if (s->tenants[i].parent >= 0 && !strcmp(s->tenants[i].name, key))
			return (int32_t)i;
	return -1;
}

/* The column's names checked, each once: an unknown one is an error
 * naming the trace's line where it first appears; a job of an empty
 * cell is one of no project. */
static int column_names(const struct cluster_spec *s,
			const struct tenant_column *col, const char *p,
			struct sim_error *err)
{
	if (!col)
		return err_setc(err, -SIM_EINPUT, "%s$.workload.project_from: "
				"'column' needs a CSV trace with a 'project' "
				"column", p);
	for (size_t k = 0; k < col->n; k++)
		if (project_named(s, col->names[k]) < 0)
			return err_setc(err, -SIM_EINPUT, "%s:%" PRIu64 ": "
					"project '%s' is not a project of "
					"$.cluster.tenants", col->file,
					col->line[k], col->names[k]);
	return 0;
}

int cluster_tenants_bind(const struct cluster_spec *s, enum tenant_from from,
			 const struct job *jobs, size_t njobs,
			 char *const *names, size_t n,
			 const struct tenant_column *col, const char *prefix,
			 int32_t *out, struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	if (from == TENANT_FROM_COLUMN) {
		int rc = column_names(s, col, p, err);
		if (rc)
			return rc;
		names = col->names;
		n = col->n;
	}
	bool by_name = from != TENANT_FROM_USER && names;
	int32_t *byname = NULL;
	int rc = 0;
	if (by_name) { /* each name once */
		byname = xmalloc((n ? n : 1) * sizeof(*byname));
		for (size_t g = 0; g < n; g++)
			byname[g] = project_named(s, names[g]);
	}
	int64_t last_field = INT64_MIN;
	int32_t last = -1;
	for (size_t i = 0; i < njobs && !rc; i++) {
		const struct job *j = &jobs[i];
		int32_t field = from == TENANT_FROM_USER ? j->user
				: from == TENANT_FROM_COLUMN ? col->of[i]
							     : j->group;
		int32_t t;
		char key[32];
		if (field >= 0 && by_name && (size_t)field < n) {
			t = byname[field];
		} else if (field == last_field) {
			t = last;
		} else {
			snprintf(key, sizeof(key), "%" PRId32, field);
			t = field >= 0 ? project_named(s, key) : -1;
			last_field = field;
			last = t;
		}
		if (t >= 0 && (j->flags & JOB_INTERACTIVE) &&
		    job_milli(j) > interactive_cap(&s->tenants[t])) {
			char a[32], b[32];
			rc = err_setc(err, -SIM_EINPUT, "%sjob '%" PRId64 "' is "
				      "interactive and asks for '%s' GPUs, more "
				      "than the quota '%s' of its project '%s' "
				      "(interactive jobs run within quota "
				      "only)", p, j->id,
				      gpus_text(job_milli(j), a),
				      gpus_text(interactive_cap(
						&s->tenants[t]), b),
				      s->tenants[t].name);
			continue;
		}
		if (t >= 0) {
			if (out)
				out[j->idx] = t;
			continue;
		}
		const char *what = field < 0 ? NULL
				   : by_name && (size_t)field < n ? names[field]
								   : key;
		if (what)
			rc = err_setc(err, -SIM_EINPUT, "%s$.workload.project_from:"
				      " job '%" PRId64 "' names project '%s' "
				      "that no project of $.cluster.tenants "
				      "has", p, j->id, what);
		else
			rc = err_setc(err, -SIM_EINPUT, "%s$.workload.project_from:"
				      " job '%" PRId64 "' has no %s field, so "
				      "no project", p, j->id,
				      from == TENANT_FROM_COLUMN ? "project"
				      : tenant_from_names[from]);
	}
	free(byname);
	return rc;
}
