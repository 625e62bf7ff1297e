/*
 * Experiment files: one JSON document that says everything needed to
 * reproduce a result (cluster, workload, policies, seeds, outputs).
 *
 * This file is the schema: the cJSON tree is checked key by key against
 * experiments/README.md (the single contract), turned into the typed
 * structs of exp.h and deleted before anything runs.  The typed reading
 * and the wording of every message ("FILE: $.json.path: message", with a
 * "did you mean" for a mistyped key) live in exp_json.c, so that a typo
 * never silently falls back to a default.  Relative paths are resolved
 * against the experiment file's folder (never canonicalised).  Finally the
 * resolved configuration, every default filled in, is printed back as
 * JSON for the results manifest (exp_resolved.c).
 */
#include "exp/exp.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "exp/exp_schema.h"
#include "engine/sim.h"
#include "speed/jobclass.h"
#include "base/util.h"

/* ---- names and paths -------------------------------------------------- */

/* The last path component without its extension (the whole component if
 * that would leave nothing). */
static char *stem(const char *path)
{
	const char *b = path_basename(path), *dot = strrchr(b, '.');
	if (!dot || dot == b)
		return xstrdup(b);
	return xasprintf("%.*s", (int)(dot - b), b);
}

/* A run label names a results folder: letters, digits and "_.+-". */
static bool label_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		bool ok = (*s >= 'a' && *s <= 'z') ||
			  (*s >= 'A' && *s <= 'Z') ||
			  (*s >= '0' && *s <= '9') ||
			  *s == '_' || *s == '.' || *s == '+' || *s == '-';
		if (!ok)
			return false;
	}
	return true;
}

/* ---- policies --------------------------------------------------------- */

/* "params": any keys, each a number, boolean or string; the policy
 * registry checks them against the policy's declared parameters. */
static int parse_params(struct exp_ctx *c, const cJSON *v,
			struct policy_spec *p)
{
	size_t m = exp_jp_key(c, "params"), i = 0;
	int rc = 0;
	if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object", v);
		goto out;
	}
	p->params = xcalloc((size_t)cJSON_GetArraySize(v),
			    sizeof(*p->params));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		for (size_t j = 0; j < i; j++) {
			if (strcmp(p->params[j].key, it->string) == 0) {
				rc = exp_fail(c, NULL, "duplicate key '%s'",
					      it->string);
				goto out;
			}
		}
		struct param_value *pv = &p->params[p->nparams++];
		size_t mk = exp_jp_key(c, it->string);
		pv->key = xstrdup(it->string);
		pv->json_path = xstrdup(c->jp);
		if (cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
			pv->type = PV_NUMBER;
			pv->num = it->valuedouble;
		} else if (cJSON_IsBool(it)) {
			pv->type = PV_BOOL;
			pv->b = cJSON_IsTrue(it);
		} else if (cJSON_IsString(it)) {
			pv->type = PV_STRING;
			pv->str = xstrdup(it->valuestring);
		} else if (cJSON_IsNumber(it)) {
			rc = exp_fail(c, NULL, "expected a finite number");
		} else {
			rc = exp_fail_type(c, NULL, "a number, boolean or "
					   "string", it);
		}
		exp_jp_pop(c, mk);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* A policy: its name, or an object with "name", "label" and "params". */
static int parse_policy(struct exp_ctx *c, const cJSON *v,
			struct policy_spec *p)
{
	static const char *const keys[] = { "name", "label", "params" };
	const cJSON *f[ARRAY_SIZE(keys)] = { NULL };
	const char *name = NULL, *label = NULL;
	char shown[EXP_SHOW_MAX];
	int rc;

	p->json_path = xstrdup(c->jp);
	if (cJSON_IsString(v)) {
		rc = exp_get_string(c, NULL, v, &name);
	} else if (cJSON_IsObject(v)) {
		rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
		if (!rc)
			rc = exp_require(c, f[0], "name");
		if (!rc)
			rc = exp_get_string(c, "name", f[0], &name);
		if (!rc)
			rc = exp_get_string(c, "label", f[1], &label);
	} else {
		rc = exp_fail_type(c, NULL, "a policy name or an object", v);
	}
	if (rc)
		return rc;
	/* A plug-in given by its file: resolved like every path; its
	 * default label is the file's stem. */
	if (str_ends_with(name, ".so")) {
		p->name = path_join(c->dir, name);
		p->label = label ? xstrdup(label) : stem(name);
	} else {
		p->name = xstrdup(name);
		p->label = xstrdup(label ? label : name);
	}
	if (!label_ok(p->label)) {
		exp_show_str(p->label, shown);
		return exp_fail(c, f[1] ? "label" : NULL, "invalid label '%s': "
				"only letters, digits, '_', '.', '+' and '-' "
				"(it names a folder)%s", shown,
				f[1] ? "" : "; give a \"label\"");
	}
	return f[2] ? parse_params(c, f[2], p) : 0;
}

static int parse_policies(struct exp_ctx *c, const cJSON *v,
			  struct experiment *e)
{
	size_t m = exp_jp_key(c, "policies"), i = 0, n = 0;
	int rc = exp_array(c, v, "an array", true, &n);
	if (rc)
		goto out;
	e->policies = xcalloc(n, sizeof(*e->policies));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		struct policy_spec *p = &e->policies[e->npolicies++];
		size_t mi = exp_jp_index(c, i);
		rc = parse_policy(c, it, p);
		for (size_t j = 0; j < i && !rc; j++) {
			if (strcmp(e->policies[j].label, p->label) != 0)
				continue;
			bool explicit = cJSON_IsObject(it) &&
				cJSON_GetObjectItemCaseSensitive(it, "label");
			rc = exp_fail(c, explicit ? "label" : NULL,
				      "duplicate label '%s' (also %s)",
				      p->label, e->policies[j].json_path);
		}
		exp_jp_pop(c, mi);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* ---- the rest --------------------------------------------------------- */

/* A seed written as a string: its decimal digits, no sign, no leading
 * zero, at most 2^64 - 1 (how a seed past 2^53 - 1 is written, since a
 * JSON number there may not be exact). */
static int parse_seed_digits(struct exp_ctx *c, const cJSON *v,
			     uint64_t *out)
{
	const char *s = v->valuestring;
	char shown[EXP_SHOW_MAX];
	uint64_t u = 0;
	size_t i = 0;
	exp_show(v, shown);
	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (u > (UINT64_MAX - d) / 10)
			return exp_fail(c, NULL, "seed '%s' does not fit in "
					"64 bits (at most %" PRIu64 ")", shown,
					UINT64_MAX);
		u = u * 10 + d;
	}
	if (i == 0 || s[i] || (s[0] == '0' && i > 1))
		return exp_fail(c, NULL, "expected a seed as a string of "
				"decimal digits (no sign, no leading zero), "
				"got '%s'", shown);
	*out = u;
	return 0;
}

/* One seed: an integer in [0, 2^53 - 1], or past that a string of its
 * digits; an integer past 2^53 - 1 is refused, since cJSON (like every
 * reader that parses numbers as doubles) may have rounded it. */
static int parse_seed(struct exp_ctx *c, const cJSON *v, uint64_t *out)
{
	char shown[EXP_SHOW_MAX];
	if (cJSON_IsString(v))
		return parse_seed_digits(c, v, out);
	if (!cJSON_IsNumber(v))
		return exp_fail_type(c, NULL, "an integer or a string of "
				     "digits", v);
	double d = v->valuedouble;
	if (isfinite(d) && d == floor(d) && d > (double)JSON_EXACT_MAX) {
		exp_show(v, shown);
		return exp_fail(c, NULL, "seed '%s' is past 2^53 - 1, where "
				"a JSON number may not be exact: write it as "
				"a string of its digits, e.g. "
				"\"18446744073709551615\"", shown);
	}
	return exp_get_uint(c, NULL, v, 0, JSON_EXACT_MAX, out);
}

static int parse_seeds(struct exp_ctx *c, const cJSON *v,
		       struct experiment *e)
{
	size_t m = exp_jp_key(c, "seeds"), i = 0, n = 0;
	int rc = exp_array(c, v, "an array", true, &n);
	if (rc)
		goto out;
	e->seeds = xcalloc(n, sizeof(*e->seeds));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		uint64_t s = 0;
		rc = parse_seed(c, it, &s);
		for (size_t j = 0; j < i && !rc; j++)
			if (e->seeds[j] == s)
				rc = exp_fail(c, NULL, "duplicate seed '%" PRIu64
					      "' (also $.seeds[%zu])", s, j);
		exp_jp_pop(c, mi);
		if (!rc)
			e->seeds[e->nseeds++] = s;
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

static int parse_plugins(struct exp_ctx *c, const cJSON *v,
			 struct experiment *e)
{
	size_t m = exp_jp_key(c, "plugins"), i = 0, n = 0;
	int rc = exp_array(c, v, "an array", false, &n);
	if (rc)
		goto out;
	e->plugins = xcalloc(n, sizeof(*e->plugins));
	for (const cJSON *it = v->child; it && !rc; it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		rc = exp_get_path(c, NULL, it, &e->plugins[e->nplugins++]);
		exp_jp_pop(c, mi);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/* "limits": the sizes a run may take; the defaults first. */
static int parse_limits(struct exp_ctx *c, const cJSON *v,
			struct exp_limits *l)
{
	static const char *const keys[] = { "nodes", "jobs",
					    "timeline_samples",
					    "input_bytes" };
	const cJSON *f[ARRAY_SIZE(keys)];
	*l = (struct exp_limits){
		.nodes = EXP_LIMIT_NODES, .jobs = TRACE_MAX_JOBS_DEFAULT,
		.timeline_samples = SIM_MAX_SAMPLES_DEFAULT,
		.input_bytes = EXP_LIMIT_INPUT_BYTES,
	};
	if (!v)
		return 0;
	size_t m = exp_jp_key(c, "limits");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_uint(c, "nodes", f[0], 1, CLUSTER_MAX_NODES,
				  &l->nodes);
	if (!rc)
		rc = exp_get_uint(c, "jobs", f[1], 1, UINT32_MAX, &l->jobs);
	if (!rc)
		rc = exp_get_uint(c, "timeline_samples", f[2], 3, UINT64_MAX,
				  &l->timeline_samples);
	if (!rc)
		rc = exp_get_uint(c, "input_bytes", f[3], 1, UINT64_MAX,
				  &l->input_bytes);
	exp_jp_pop(c, m);
	return rc;
}

/* The sizes known at load that pass a limit: the cluster's nodes (unless
 * sized from the trace: the run checks those) and the generated jobs. */
static int check_limits(struct exp_ctx *c, const struct experiment *e)
{
	const struct exp_limits *l = &e->limits;
	uint64_t nodes = 0;
	int rc = 0;
	for (size_t i = 0; i < e->cluster.ngroups; i++)
		nodes += e->cluster.groups[i].count;
	if (nodes > l->nodes)
		rc = exp_fail(c, "cluster", "%" PRIu64 " nodes, more than the "
			      "limit %" PRIu64 ": raise $.limits.nodes",
			      nodes, l->nodes);
	if (!rc && e->workload.generated && e->workload.gen.jobs > l->jobs) {
		size_t m = exp_jp_key(c, "workload");
		size_t m2 = exp_jp_key(c, "generate");
		rc = exp_fail(c, "jobs", "%" PRIu64 " jobs, more than the "
			      "limit %" PRIu64 ": raise $.limits.jobs",
			      e->workload.gen.jobs, l->jobs);
		exp_jp_pop(c, m2);
		exp_jp_pop(c, m);
	}
	return rc;
}

/* "preemption": what preempted jobs keep and pay (seconds). */
static int parse_preemption(struct exp_ctx *c, const cJSON *v,
			    struct experiment *e)
{
	static const char *const keys[] = { "checkpoint_interval",
					    "restore_overhead",
					    "restore_per_gpu",
					    "storage_GBps",
					    "start_overhead" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = exp_jp_key(c, "preemption");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_seconds(c, "checkpoint_interval", f[0], 0, false,
				     &e->checkpoint_interval);
	if (!rc)
		rc = exp_get_seconds(c, "restore_overhead", f[1], 0, false,
				     &e->restore_overhead);
	if (!rc)
		rc = exp_get_seconds(c, "restore_per_gpu", f[2], 0, false,
				     &e->restore_per_gpu);
	if (!rc)
		rc = exp_get_number_in(c, "storage_GBps", f[3], 0, false,
				       EXP_BW_MAX, &e->storage_GBps);
	if (!rc)
		rc = exp_get_seconds(c, "start_overhead", f[4], 0, false,
				     &e->start_overhead);
	if (!rc && e->storage_GBps > 0 && e->storage_GBps < EXP_BW_MIN)
		rc = exp_fail(c, "storage_GBps", "must be 0 or >= 1e-06, got "
			      "'%g'", e->storage_GBps);
	exp_jp_pop(c, m);
	return rc;
}

/* The root keys of an experiment file, by name so that adding one
 * renumbers nothing. */
enum root_key {
	ROOT_NAME, ROOT_CLUSTER, ROOT_WORKLOAD, ROOT_POLICIES, ROOT_SEEDS,
	ROOT_OUTPUT, ROOT_PLUGINS, ROOT_TIMELINE, ROOT_BSLD_TAU, ROOT_CHECK,
	ROOT_PREEMPTION, ROOT_THROUGHPUTS, ROOT_SWEEP, ROOT_OPTIMIZE,
	ROOT_FILL, ROOT_LIMITS, ROOT_PROGRESS, ROOT_SCHEDULE_ON,
	ROOT_SAME_TIME, ROOT_MEASURE, ROOT_ALLOCATIONS,
	ROOT_SCHEDULE_INTERVAL, ROOT_GPU_TYPES, ROOT_DERIVE,
	ROOT_MODELS, ROOT_RL, ROOT_QOS, ROOT_NKEYS
};

/* The experiment's name, which names the default folder results/<name>:
 * one folder name, printable. */
static int check_name(struct exp_ctx *c, const char *name)
{
	if (strchr(name, '/'))
		return exp_fail(c, "name", "must not contain '/', got '%s'",
				name);
	if (str_has_control(name))
		return exp_fail(c, "name", "must not contain a control "
				"character (a newline, a tab)");
	/* "." and ".." would put the results in results/ or in the
	 * current folder. */
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return exp_fail(c, "name", "must name a folder, not '%s'",
				name);
	return 0;
}

/* Events at the same time: "schedule_on" and "same_time". */
static int parse_same_time(struct exp_ctx *c, const cJSON *const *f,
			   struct experiment *e)
{
	static const char *const on[] = { "timestamp", "event" };
	static const char *const order[] = { "ends_first", "submits_first" };
	int each = 0, subs = 0;
	int rc = exp_get_enum(c, "schedule_on", f[ROOT_SCHEDULE_ON], on,
			      ARRAY_SIZE(on), &each);
	if (!rc)
		rc = exp_get_enum(c, "same_time", f[ROOT_SAME_TIME], order,
				  ARRAY_SIZE(order), &subs);
	e->schedule_each_event = each == 1;
	e->submits_first = subs == 1;
	e->schedule_interval = 0;
	if (!rc)
		rc = exp_get_seconds(c, "schedule_interval",
				     f[ROOT_SCHEDULE_INTERVAL], 0, false,
				     &e->schedule_interval);
	return rc;
}

/* The root keys that shape how each run goes: its timeline, metrics,
 * checks, preemption costs, throughputs and the offline search. */
static int parse_run_keys(struct exp_ctx *c, const cJSON *const *f,
			  struct experiment *e)
{
	e->timeline_interval = 0;
	e->bsld_tau = 10 * SIM_SEC;
	int rc = exp_get_seconds(c, "timeline_interval", f[ROOT_TIMELINE], 0,
				 false, &e->timeline_interval);
	if (!rc)
		rc = exp_get_seconds(c, "bounded_slowdown_tau",
				     f[ROOT_BSLD_TAU], 0, true, &e->bsld_tau);
	if (!rc)
		rc = exp_get_bool(c, "check", f[ROOT_CHECK], &e->check);
	e->progress_timeout = SIM_PROGRESS_TIMEOUT;
	if (!rc)
		rc = exp_get_seconds(c, "progress_timeout", f[ROOT_PROGRESS], 0,
				     false, &e->progress_timeout);
	if (!rc)
		rc = parse_same_time(c, f, e);
	e->measure = (struct exp_measure){ .form = EXP_MEASURE_NONE,
					   .start = SIM_TIME_NONE,
					   .end = SIM_TIME_NONE };
	if (!rc && e->has_fill && f[ROOT_MEASURE] &&
	    !cJSON_IsNull(f[ROOT_MEASURE]))
		rc = exp_fail(c, "measure", "not used by a fill experiment "
			      "(its measurement window runs from the first "
			      "arrival to the last)");
	if (!rc && f[ROOT_MEASURE])
		rc = exp_parse_measure(c, f[ROOT_MEASURE], &e->measure);
	if (!rc)
		rc = exp_get_bool(c, "allocations", f[ROOT_ALLOCATIONS],
				  &e->allocations);
	if (!rc && e->allocations && e->has_fill)
		rc = exp_fail(c, "allocations", "does not apply to a fill or "
			      "replay experiment (it logs the event engine's "
			      "placements)");
	if (!rc && f[ROOT_PREEMPTION])
		rc = parse_preemption(c, f[ROOT_PREEMPTION], e);
	if (!rc && f[ROOT_THROUGHPUTS])
		rc = exp_parse_throughputs(c, f[ROOT_THROUGHPUTS],
					   &e->throughputs);
	exp_rl_defaults(&e->rl);
	if (!rc && f[ROOT_RL] && e->has_fill)
		rc = exp_fail(c, "rl", "not used by a fill experiment (the "
			      "environment runs the event engine)");
	if (!rc && f[ROOT_RL])
		rc = exp_parse_rl(c, f[ROOT_RL], &e->rl);
	if (!rc && f[ROOT_OPTIMIZE]) {
		size_t m = exp_jp_key(c, "optimize");
		rc = exp_parse_optimize(c, f[ROOT_OPTIMIZE], &e->optimize);
		exp_jp_pop(c, m);
	}
	return rc;
}

/* The workload, the root's "qos", and where jobs' partitions and QOS
 * come from; the
 * SWF reader keeps the queue and partition fields when they are read. */
static int parse_slurm(struct exp_ctx *c, const cJSON *wv, const cJSON *v,
		       struct experiment *e)
{
	struct cluster_spec *s = &e->cluster;
	int rc = exp_parse_workload(c, wv, e);
	if (!rc && v)
		rc = exp_parse_qos(c, v, s);
	s->part_from = e->workload.partition_from;
	s->qos_from = e->workload.qos_from;
	if (!rc && (s->nparts || s->nqos) && !e->cluster_from_trace) {
		char *prefix = xasprintf("%s: ", c->file);
		rc = cluster_slurm_check(s, prefix, c->err);
		free(prefix);
	}
	/* Kept whenever jobs are bound (their lines name the job in the
	 * messages), also when the fields themselves are not read. */
	e->workload.opts.keep_qp = s->nparts || s->nqos;
	return rc;
}

static int parse_root(struct exp_ctx *c, const cJSON *root,
		      struct experiment *e)
{
	static const char *const keys[ROOT_NKEYS] = {
		[ROOT_NAME] = "name", [ROOT_CLUSTER] = "cluster",
		[ROOT_WORKLOAD] = "workload", [ROOT_POLICIES] = "policies",
		[ROOT_SEEDS] = "seeds", [ROOT_OUTPUT] = "output",
		[ROOT_PLUGINS] = "plugins",
		[ROOT_TIMELINE] = "timeline_interval",
		[ROOT_BSLD_TAU] = "bounded_slowdown_tau",
		[ROOT_CHECK] = "check", [ROOT_PREEMPTION] = "preemption",
		[ROOT_THROUGHPUTS] = "throughputs", [ROOT_SWEEP] = "sweep",
		[ROOT_OPTIMIZE] = "optimize", [ROOT_FILL] = "fill",
		[ROOT_LIMITS] = "limits",
		[ROOT_PROGRESS] = "progress_timeout",
		[ROOT_SCHEDULE_ON] = "schedule_on",
		[ROOT_SAME_TIME] = "same_time",
		[ROOT_MEASURE] = "measure",
		[ROOT_ALLOCATIONS] = "allocations",
		[ROOT_SCHEDULE_INTERVAL] = "schedule_interval",
		[ROOT_GPU_TYPES] = "gpu_types",
		[ROOT_DERIVE] = "derive_throughputs",
		[ROOT_MODELS] = "models", [ROOT_RL] = "rl", [ROOT_QOS] = "qos",
	};
	const cJSON *f[ROOT_NKEYS];
	const char *name = NULL;
	int rc = exp_obj_fields(c, root, keys, ARRAY_SIZE(keys), f);
	/* A fill experiment (exp_fill.c) names its own cluster and pods. */
	bool fill = f[ROOT_FILL] != NULL;
	for (size_t i = fill ? ROOT_POLICIES : ROOT_CLUSTER;
	     i <= ROOT_POLICIES && !rc; i++)
		rc = exp_require(c, f[i], keys[i]);
	for (size_t i = ROOT_CLUSTER; i <= ROOT_WORKLOAD && fill && !rc;
	     i++)
		if (f[i])
			rc = exp_fail(c, keys[i], "not used by a fill "
				      "experiment (\"fill\" names the "
				      "cluster and the pods)");
	if (!rc)
		rc = exp_get_string(c, "name", f[ROOT_NAME], &name);
	if (!rc && name)
		rc = check_name(c, name);
	/* Sweeps are expanded by sweep.c before they reach the loader. */
	if (!rc && f[ROOT_SWEEP])
		rc = exp_fail(c, "sweep", "this file is a sweep: run it with "
			      "'clustersim sweep'");
	if (rc)
		return rc;
	e->name = name ? xstrdup(name) : stem(e->path);
	if (!name && !f[ROOT_OUTPUT] && (!strcmp(e->name, ".") ||
					 !strcmp(e->name, "..")))
		return exp_fail(c, NULL, "the file name gives the experiment "
				"the name '%s', which cannot name its results "
				"folder: give \"name\" or \"output\"", e->name);

	/* The limits first: the cluster file is read within them.  Then
	 * the GPU types, which the throughputs and the cluster may name. */
	rc = parse_limits(c, f[ROOT_LIMITS], &e->limits);
	if (!rc && f[ROOT_GPU_TYPES])
		rc = exp_parse_gpu_types(c, f[ROOT_GPU_TYPES], &e->throughputs);
	if (!rc)
		rc = exp_parse_derive(c, f[ROOT_DERIVE], &e->throughputs);
	if (!rc && f[ROOT_MODELS])
		rc = exp_parse_models(c, f[ROOT_MODELS], e);
	if (rc)
		return rc;
	if (fill) {
		e->has_fill = true;
		rc = exp_parse_fill(c, f[ROOT_FILL], &e->fill);
	} else {
		rc = exp_parse_cluster(c, f[ROOT_CLUSTER], e);
	}
	if (!rc && !fill)
		rc = parse_slurm(c, f[ROOT_WORKLOAD], f[ROOT_QOS], e);
	e->workload.opts.max_jobs = e->limits.jobs;
	e->workload.opts.max_bytes = e->limits.input_bytes;
	e->workload.opts.models = e->models;
	e->workload.opts.nmodels = e->nmodels;
	if (!rc)
		rc = check_limits(c, e);
	if (!rc && e->cluster_from_trace && e->workload.generated)
		rc = exp_fail(c, "cluster", "'from_trace' needs a trace, not "
			      "a generated workload");
	if (!rc)
		rc = parse_policies(c, f[ROOT_POLICIES], e);
	if (!rc && f[ROOT_SEEDS]) {
		rc = parse_seeds(c, f[ROOT_SEEDS], e);
	} else if (!rc) {
		e->seeds = xmalloc(sizeof(*e->seeds));
		e->seeds[0] = 1;
		e->nseeds = 1;
	}
	if (!rc)
		rc = exp_get_path(c, "output", f[ROOT_OUTPUT], &e->output);
	if (!rc && !e->output)
		e->output = xasprintf("results/%s", e->name);
	if (!rc && f[ROOT_PLUGINS])
		rc = parse_plugins(c, f[ROOT_PLUGINS], e);
	if (!rc)
		rc = parse_run_keys(c, f, e);
	return rc;
}

/* ---- entry points ----------------------------------------------------- */

/* base: the file without its "sweep", the base its points start from. */
static int exp_parse_len(const char *text, size_t len, const char *path,
			 bool base, struct experiment *e, struct sim_error *err)
{
	struct exp_ctx c;
	cJSON *root = NULL;
	char *dir = path_dirname(path);
	int rc;

	memset(e, 0, sizeof(*e));
	e->path = xstrdup(path);
	exp_ctx_init(&c, path, dir, err);
	rc = exp_parse_json(text, len, path, &root, err);
	if (!rc && base && cJSON_IsObject(root))
		cJSON_DeleteItemFromObjectCaseSensitive(root, "sweep");
	if (!rc)
		rc = parse_root(&c, root, e);
	if (!rc)
		e->resolved_json = exp_resolved_json(e);
	cJSON_Delete(root);
	exp_ctx_release(&c);
	free(dir);
	if (rc)
		exp_release(e);
	return rc;
}

int exp_parse(const char *text, const char *path, struct experiment *e,
	      struct sim_error *err)
{
	return exp_parse_len(text, strlen(text), path, false, e, err);
}

static int load(const char *path, bool base, struct experiment *e,
		struct sim_error *err)
{
	char *text = NULL, sha[INPUT_SHA256_HEX];
	size_t len = 0;
	int rc = exp_read_text(path, 0, &text, &len, sha, err);
	if (rc) {
		memset(e, 0, sizeof(*e));
		return rc;
	}
	rc = exp_parse_len(text, len, path, base, e, err);
	if (!rc)
		exp_note_input(e, path, sha);
	free(text);
	return rc;
}

int exp_load(const char *path, struct experiment *e, struct sim_error *err)
{
	return load(path, false, e, err);
}

int exp_load_base(const char *path, struct experiment *e,
		  struct sim_error *err)
{
	return load(path, true, e, err);
}

void exp_note_input(struct experiment *e, const char *path,
		    const char *sha256)
{
	size_t i = 0;
	while (i < e->ninputs && strcmp(e->inputs[i].path, path) != 0)
		i++;
	if (i == e->ninputs) {
		e->inputs = xrealloc(e->inputs, (i + 1) * sizeof(*e->inputs));
		e->inputs[i].path = xstrdup(path);
		e->ninputs++;
	}
	memcpy(e->inputs[i].sha256, sha256, INPUT_SHA256_HEX);
}

const char *exp_input_sha256(const struct experiment *e, const char *path)
{
	for (size_t i = 0; i < e->ninputs; i++)
		if (strcmp(e->inputs[i].path, path) == 0)
			return e->inputs[i].sha256;
	return NULL;
}

static void policy_spec_release(struct policy_spec *p)
{
	for (size_t i = 0; i < p->nparams; i++) {
		free(p->params[i].key);
		free(p->params[i].json_path);
		free(p->params[i].str);
	}
	free(p->params);
	free(p->name);
	free(p->label);
	free(p->json_path);
}

void exp_release(struct experiment *e)
{
	if (!e)
		return;
	free(e->path);
	free(e->name);
	cluster_spec_release(&e->cluster);
	free(e->workload.trace);
	free(e->workload.name);
	free(e->workload.reference_gpu);
	gen_spec_release(&e->workload.gen);
	for (size_t i = 0; i < e->npolicies; i++)
		policy_spec_release(&e->policies[i]);
	free(e->policies);
	free(e->seeds);
	free(e->output);
	for (size_t i = 0; i < e->nplugins; i++)
		free(e->plugins[i]);
	free(e->plugins);
	jobclass_overrides_release(&e->throughputs);
	exp_models_release(e);
	exp_fill_release(&e->fill);
	free(e->resolved_json);
	for (size_t i = 0; i < e->ninputs; i++)
		free(e->inputs[i].path);
	free(e->inputs);
	memset(e, 0, sizeof(*e));
}
