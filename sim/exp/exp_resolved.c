/*
 * The resolved configuration of an experiment: the loaded struct
 * experiment printed back as JSON, every key in schema order and every
 * default filled in, relative paths as resolved.  It goes into the results
 * manifest so that a result says exactly what produced it, even when the
 * experiment file leaned on defaults that a later version might change.
 *
 * Building JSON only fails when memory runs out, which is a bug-level
 * condition here like everywhere else (xmalloc aborts the same way).
 */
#include "exp/exp_schema.h"

#include <stdlib.h>

#include <cjson/cJSON.h>

#include "base/util.h"

static cJSON *jnew(cJSON *j)
{
	if (!j)
		SIM_BUG("out of memory building JSON");
	return j;
}

static void jadd(cJSON *obj, const char *key, cJSON *item)
{
	if (!cJSON_AddItemToObject(obj, key, jnew(item)))
		SIM_BUG("out of memory building JSON");
}

static void jpush(cJSON *arr, cJSON *item)
{
	if (!cJSON_AddItemToArray(arr, jnew(item)))
		SIM_BUG("out of memory building JSON");
}

static cJSON *jobj(void)
{
	return jnew(cJSON_CreateObject());
}

static cJSON *jarr(void)
{
	return jnew(cJSON_CreateArray());
}

static cJSON *jstr(const char *s)
{
	return jnew(cJSON_CreateString(s));
}

/* A seed as an experiment takes it back, exactly (fmt_seed_json). */
static cJSON *jseed(uint64_t seed)
{
	char buf[24];
	fmt_seed_json(buf, seed);
	return jnew(cJSON_CreateRaw(buf));
}

static cJSON *jnum(double v)
{
	return jnew(cJSON_CreateNumber(v));
}

static cJSON *jbool(bool b)
{
	return jnew(cJSON_CreateBool(b));
}

/* Microseconds as seconds. */
static cJSON *jsec(sim_time_t t)
{
	return jnum((double)t / SIM_SEC);
}

static cJSON *dist_json(const struct dist *d)
{
	const struct exp_dist_desc *dd = &exp_dist_descs[d->kind];
	cJSON *o = jobj();
	jadd(o, "dist", jstr(dd->name));
	if (d->kind == DIST_DISCRETE) {
		cJSON *vals = jarr(), *wts = jarr();
		for (size_t i = 0; i < d->nvalues; i++) {
			jpush(vals, jnum(d->values[i]));
			jpush(wts, jnum(d->weights[i]));
		}
		jadd(o, "values", vals);
		jadd(o, "weights", wts);
	}
	for (size_t i = 0; i < dd->np; i++)
		jadd(o, dd->params[i], jnum(d->p[i]));
	return o;
}

/* GPUs of a milli-GPU amount; "none" for no limit. */
static cJSON *jmilli(uint64_t m)
{
	return m == TENANT_NO_LIMIT ? jstr("none") : jnum((double)m / 1000);
}

/* A per-type amount (0 quota, 1 borrow_limit, 2 lend_limit) of t as a
 * {gpu_type: GPUs} object; a type without a limit is left out. */
static cJSON *jtypes(const struct tenant_spec *t, int which)
{
	cJSON *o = jobj();
	for (size_t i = 0; i < t->ntypes; i++) {
		const struct tenant_type *y = &t->types[i];
		uint64_t v = which == 0 ? y->quota
			     : which == 1 ? y->borrow_limit : y->lend_limit;
		if (v != TENANT_NO_LIMIT)
			jadd(o, y->type, jnum((double)v / 1000));
	}
	return o;
}

/* "tenants": each department with its projects, every field filled. */
static cJSON *tenants_json(const struct cluster_spec *s)
{
	cJSON *arr = jarr(), *projects = NULL;
	for (size_t i = 0; i < s->ntenants; i++) {
		const struct tenant_spec *t = &s->tenants[i];
		cJSON *o = jobj();
		jadd(o, "name", jstr(t->name));
		jadd(o, "quota", t->per_type ? jtypes(t, 0) : jmilli(t->quota));
		jadd(o, "borrow_limit", t->per_type ? jtypes(t, 1)
						    : jmilli(t->borrow_limit));
		jadd(o, "lend_limit", t->per_type ? jtypes(t, 2)
						  : jmilli(t->lend_limit));
		jadd(o, "weight", jnum(t->weight));
		if (t->parent < 0) {
			projects = jarr();
			jadd(o, "projects", projects);
			jpush(arr, o);
		} else {
			jpush(projects, o);
		}
	}
	return arr;
}

static cJSON *cluster_json(const struct experiment *e)
{
	cJSON *o = jobj();
	if (e->cluster_from_trace) {
		jadd(o, "from_trace", jbool(true));
	} else {
		cJSON *nodes = jarr();
		for (size_t i = 0; i < e->cluster.ngroups; i++) {
			const struct node_group *g = &e->cluster.groups[i];
			cJSON *n = jobj();
			jadd(n, "name", jstr(g->name));
			jadd(n, "count", jnum(g->count));
			jadd(n, "cpus", jnum(g->cpus));
			jadd(n, "gpus", jnum(g->gpus));
			jadd(n, "mem_gb", jnum((double)g->mem_mb / 1024));
			if (g->gpu_type)
				jadd(n, "gpu_type", jstr(g->gpu_type));
			if (g->vc)
				jadd(n, "vc", jstr(g->vc));
			jpush(nodes, n);
		}
		jadd(o, "nodes", nodes);
	}
	jadd(o, "exclusive", jbool(e->cluster.exclusive));
	jadd(o, "rack_nodes", jnum(e->cluster.rack_nodes));
	const struct net_spec *n = &e->network;
	cJSON *net = jobj();
	jadd(net, "nic_gbps", jnum(n->nic_gbps));
	if (n->oversubscription > 0) {
		jadd(net, "oversubscription", jnum(n->oversubscription));
	} else {
		jadd(net, "uplinks", jnum(n->uplinks));
		jadd(net, "uplink_gbps", jnum(n->uplink_gbps));
	}
	jadd(net, "latency_usec", jnum(n->latency_usec));
	jadd(net, "nvlink_gBps", jnum(n->nvlink_gBps));
	jadd(o, "network", net);
	if (e->cluster.ntenants) /* only then: other manifests unchanged */
		jadd(o, "tenants", tenants_json(&e->cluster));
	if (e->cluster.nparts) /* the same */
		jadd(o, "partitions", exp_partitions_json(&e->cluster));
	return o;
}

static cJSON *workload_json(const struct workload_spec *w, bool tenants)
{
	const struct trace_opts *o = &w->opts;
	cJSON *j = jobj(), *win = jobj();
	if (w->generated) {
		const struct gen_spec *g = &w->gen;
		cJSON *gj = jobj(), *bs = jarr();
		if (g->preset)
			jadd(gj, "preset", jstr(g->preset));
		jadd(gj, "jobs", jnum((double)g->jobs));
		jadd(gj, "interarrival", dist_json(&g->interarrival));
		jadd(gj, "runtime", dist_json(&g->runtime));
		jadd(gj, "cpus", dist_json(&g->cpus));
		jadd(gj, "estimate_factor", dist_json(&g->estimate_factor));
		jadd(gj, "users", jnum(g->users));
		jadd(gj, "max_cpus", jnum(g->max_cpus));
		jadd(gj, "gpus", dist_json(&g->gpus));
		jadd(gj, "cpus_per_gpu", jnum(g->cpus_per_gpu));
		for (size_t i = 0; i < g->nbuckets; i++) {
			const struct gen_bucket *b = &g->runtime_by_gpus[i];
			cJSON *bj = jobj();
			jadd(bj, "min", jnum(b->min_gpus));
			if (b->max_gpus)
				jadd(bj, "max", jnum(b->max_gpus));
			jadd(bj, "runtime", dist_json(&b->runtime));
			jpush(bs, bj);
		}
		jadd(gj, "runtime_by_gpus", bs);
		if (g->searches.on)
			jadd(gj, "searches", exp_searches_json(&g->searches));
		if (g->large.on) {
			cJSON *lj = exp_large_json(&g->large);
			jadd(lj, "gpus", dist_json(&g->large.gpus));
			jadd(lj, "runtime", dist_json(&g->large.runtime));
			jadd(gj, "large", lj);
		}
		jadd(j, "generate", gj);
	} else {
		jadd(j, "trace", jstr(w->trace));
		jadd(j, "format", jstr(trace_format_names[o->format]));
		jadd(j, "procs", jstr(exp_procs_names[o->procs]));
		jadd(j, "overrun", jstr(exp_overrun_names[o->overrun]));
		if (o->format == TRACE_SWF)
			jadd(j, "clean", jstr(swf_clean_names[o->clean]));
		jadd(j, "drop_invalid", jbool(o->drop_invalid));
		jadd(j, "lenient", jbool(o->lenient));
	}
	jadd(j, "limit", jnum((double)o->limit));
	if (o->skip) /* given: shown (older manifests have no such key) */
		jadd(j, "skip", jnum((double)o->skip));
	if (o->window_start != SIM_TIME_NONE)
		jadd(win, "start", jsec(o->window_start));
	if (o->window_end != SIM_TIME_NONE)
		jadd(win, "end", jsec(o->window_end));
	jadd(j, "window", win);
	jadd(j, "load_scale", jnum(o->load_scale));
	if (w->reference_gpu)
		jadd(j, "reference_gpu", jstr(w->reference_gpu));
	jadd(j, "job_classes", jstr(w->draw_classes ? "draw" : "trace"));
	if (tenants) {
		jadd(j, "project_from",
		     jstr(tenant_from_names[w->project_from]));
		jadd(j, "interactive_fraction", jnum(w->interactive_fraction));
	}
	return j;
}

static cJSON *policy_json(const struct policy_spec *p)
{
	cJSON *o = jobj(), *params = jobj();
	jadd(o, "name", jstr(p->name));
	jadd(o, "label", jstr(p->label));
	for (size_t i = 0; i < p->nparams; i++) {
		const struct param_value *v = &p->params[i];
		jadd(params, v->key, v->type == PV_NUMBER ? jnum(v->num) :
				     v->type == PV_BOOL ? jbool(v->b) :
				     jstr(v->str));
	}
	jadd(o, "params", params);
	return o;
}

char *exp_resolved_json(const struct experiment *e)
{
	cJSON *root = jobj(), *pols = jarr(), *seeds = jarr();
	cJSON *plugins = jarr();
	for (size_t i = 0; i < e->npolicies; i++)
		jpush(pols, policy_json(&e->policies[i]));
	for (size_t i = 0; i < e->nseeds; i++)
		jpush(seeds, jseed(e->seeds[i]));
	for (size_t i = 0; i < e->nplugins; i++)
		jpush(plugins, jstr(e->plugins[i]));

	jadd(root, "name", jstr(e->name));
	if (e->has_fill) {
		jadd(root, "fill", exp_fill_json(&e->fill));
	} else {
		jadd(root, "cluster", cluster_json(e));
		cJSON *w = workload_json(&e->workload, e->cluster.ntenants > 0);
		if (e->cluster.nparts || e->cluster.nqos) {
			jadd(w, "partition_from", jstr(slurm_from_names[
					e->workload.partition_from]));
			jadd(w, "qos_from", jstr(slurm_from_names[
					e->workload.qos_from]));
		}
		jadd(root, "workload", w);
		if (e->cluster.nqos)
			jadd(root, "qos", exp_qos_json(&e->cluster));
	}
	jadd(root, "policies", pols);
	jadd(root, "seeds", seeds);
	jadd(root, "output", jstr(e->output));
	jadd(root, "plugins", plugins);
	jadd(root, "timeline_interval", jsec(e->timeline_interval));
	jadd(root, "bounded_slowdown_tau", jsec(e->bsld_tau));
	jadd(root, "measure", exp_measure_json(&e->measure));
	jadd(root, "check", jbool(e->check));
	jadd(root, "schedule_on",
	     jstr(e->schedule_each_event ? "event" : "timestamp"));
	jadd(root, "same_time",
	     jstr(e->submits_first ? "submits_first" : "ends_first"));
	jadd(root, "schedule_interval", jsec(e->schedule_interval));
	jadd(root, "allocations", jbool(e->allocations));
	jadd(root, "progress_timeout", jsec(e->progress_timeout));
	cJSON *pre = jobj();
	jadd(pre, "checkpoint_interval", jsec(e->checkpoint_interval));
	jadd(pre, "restore_overhead", jsec(e->restore_overhead));
	jadd(pre, "restore_per_gpu", jsec(e->restore_per_gpu));
	jadd(pre, "start_overhead", jsec(e->start_overhead));
	jadd(pre, "storage_GBps", jnum(e->storage_GBps));
	jadd(root, "preemption", pre);
	jadd(root, "gpu_types", exp_gpu_types_json(&e->throughputs));
	if (e->nmodels) /* absent when none: older manifests stay as they were */
		jadd(root, "models", exp_models_json(e));
	if (e->rl.given) /* absent when not given, as "models" */
		jadd(root, "rl", exp_rl_json(&e->rl));
	jadd(root, "derive_throughputs",
	     jstr(jobclass_derive_names[e->throughputs.derive]));
	jadd(root, "throughputs", exp_throughputs_json(&e->throughputs));
	cJSON *lim = jobj();
	jadd(lim, "nodes", jnum((double)e->limits.nodes));
	jadd(lim, "jobs", jnum((double)e->limits.jobs));
	jadd(lim, "timeline_samples", jnum((double)e->limits.timeline_samples));
	jadd(lim, "input_bytes", jnum((double)e->limits.input_bytes));
	jadd(root, "limits", lim);

	char *s = cJSON_Print(root);
	if (!s)
		SIM_BUG("out of memory printing JSON");
	char *out = xstrdup(s);
	cJSON_free(s);
	cJSON_Delete(root);
	return out;
}
