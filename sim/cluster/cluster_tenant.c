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
};

void cluster_tenants_release(struct cluster_spec *s)
{
	for (size_t i = 0; i < s->ntenants && s->tenants; i++)
		free(s->tenants[i].name);
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

int cluster_tenants_check(const struct cluster_spec *s, const char *prefix,
			  struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
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

int cluster_tenants_bind(const struct cluster_spec *s, enum tenant_from from,
			 const struct job *jobs, size_t njobs,
			 char *const *names, size_t n, const char *prefix,
			 int32_t *out, struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
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
		int32_t field = from == TENANT_FROM_USER ? j->user : j->group;
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
		    job_milli(j) > s->tenants[t].quota) {
			char a[32], b[32];
			rc = err_setc(err, -SIM_EINPUT, "%sjob '%" PRId64 "' is "
				      "interactive and asks for '%s' GPUs, more "
				      "than the quota '%s' of its project '%s' "
				      "(interactive jobs run within quota "
				      "only)", p, j->id,
				      gpus_text(job_milli(j), a),
				      gpus_text(s->tenants[t].quota, b),
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
				      tenant_from_names[from]);
	}
	free(byname);
	return rc;
}
