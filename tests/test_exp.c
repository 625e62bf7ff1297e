/*
 * Experiment-file loader: typed values of a file that uses every key,
 * the documented defaults, relative-path resolution, a cluster given as a
 * file, the resolved configuration, the shipped experiments, and the
 * exact message of each kind of error.  Expected values are worked out by
 * hand from experiments/README.md (the contract), never copied from what
 * the loader prints.
 */
#define _XOPEN_SOURCE 700
#include <criterion/criterion.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "exp/exp.h"
#include "base/util.h"

static char exp_tdir[64];

static void exp_tmp_setup(void)
{
	strcpy(exp_tdir, "/tmp/clustersim-exp-XXXXXX");
	cr_assert_not_null(mkdtemp(exp_tdir));
}

static int exp_rm_one(const char *p, const struct stat *sb, int flag,
		      struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void exp_tmp_teardown(void)
{
	nftw(exp_tdir, exp_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(exp, .init = exp_tmp_setup, .fini = exp_tmp_teardown);

/* Writes text to exp_tdir/rel (making folders); returns the full path. */
static char *exp_put(const char *rel, const char *text)
{
	struct sim_error err;
	char *path = xasprintf("%s/%s", exp_tdir, rel);
	char *dir = path_dirname(path);
	cr_assert_eq(mkdir_p(dir, &err), 0);
	free(dir);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* exp_parse() must fail with exactly msg ("F" stands for path). */
static void exp_expect_error(const char *path, const char *text,
			     const char *msg)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	int rc = exp_parse(text, path, &e, &err);
	cr_assert_eq(rc, -SIM_EINPUT, "rc %d for %s", rc, text);
	cr_assert_str_eq(err.msg, msg);
	cr_assert_null(e.name); /* released on failure */
}

#define EXP_MIN_CLUSTER "\"cluster\": {\"nodes\": [{\"count\": 2, \"cpus\": 4}]}"
#define EXP_MIN_WORKLOAD "\"workload\": {\"trace\": \"t.swf\"}"

Test(exp, full_file_every_key)
{
	const char *text =
		"{\n"
		"  \"name\": \"full\",\n"
		"  \"cluster\": {\"nodes\": [\n"
		"    {\"name\": \"cpu\", \"count\": 10, \"cpus\": 8, \"gpus\": 0,"
		"     \"mem_gb\": 1.5},\n"
		"    {\"count\": 2, \"cpus\": 8, \"gpus\": 2, \"mem_gb\": 0.001}],\n"
		"    \"exclusive\": true},\n"
		"  \"workload\": {\"trace\": \"traces/x.swf.gz\", \"format\": \"csv\",\n"
		"    \"procs\": \"requested\", \"overrun\": \"kill\",\n"
		"    \"drop_invalid\": false, \"lenient\": true, \"limit\": 500,\n"
		"    \"window\": {\"start\": 10.5, \"end\": 3600},"
		"    \"load_scale\": 1.25},\n"
		"  \"policies\": [\"fcfs\", {\"name\": \"easy\", \"label\": \"easy-q\",\n"
		"    \"params\": {\"depth\": 3, \"strict\": true, \"order\": \"sjf\"}}],\n"
		"  \"seeds\": [3, 0, 42],\n"
		"  \"output\": \"out/full\",\n"
		"  \"plugins\": [\"p/mine.so\"],\n"
		"  \"timeline_interval\": 60.5,\n"
		"  \"bounded_slowdown_tau\": 20,\n"
		"  \"check\": true\n"
		"}\n";
	char *path = exp_put("full.json", text);
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_load(path, &e, &err), 0, "%s", err.msg);

	cr_assert_str_eq(e.path, path);
	cr_assert_str_eq(e.name, "full");
	cr_assert_not(e.cluster_from_trace);
	cr_assert(e.cluster.exclusive);
	cr_assert_eq(e.cluster.ngroups, 2);
	cr_assert_str_eq(e.cluster.groups[0].name, "cpu");
	cr_assert_eq(e.cluster.groups[0].count, 10);
	cr_assert_eq(e.cluster.groups[0].cpus, 8);
	cr_assert_eq(e.cluster.groups[0].gpus, 0);
	cr_assert_eq(e.cluster.groups[0].mem_mb, 1536); /* 1.5 * 1024 */
	cr_assert_str_eq(e.cluster.groups[1].name, "group1");
	cr_assert_eq(e.cluster.groups[1].gpus, 2);
	cr_assert_eq(e.cluster.groups[1].mem_mb, 1); /* 1.024 rounds to 1 */

	const struct workload_spec *w = &e.workload;
	char *want = xasprintf("%s/traces/x.swf.gz", exp_tdir);
	cr_assert_not(w->generated);
	cr_assert_str_eq(w->trace, want);
	free(want);
	cr_assert_str_eq(w->name, "x.swf.gz");
	cr_assert_eq(w->opts.format, TRACE_CSV); /* given, beats the name */
	cr_assert_eq(w->opts.procs, PROCS_REQUESTED);
	cr_assert_eq(w->opts.overrun, OVERRUN_KILL);
	cr_assert_eq(w->opts.clean, SWF_CLEAN_PWA);
	cr_assert_not(w->opts.drop_invalid);
	cr_assert(w->opts.lenient);
	cr_assert_eq(w->opts.limit, 500);
	cr_assert_eq(w->opts.window_start, 10500000);   /* 10.5 s */
	cr_assert_eq(w->opts.window_end, 3600000000LL); /* 3600 s */
	cr_assert_eq(w->opts.load_scale, 1.25);

	cr_assert_eq(e.npolicies, 2);
	cr_assert_str_eq(e.policies[0].name, "fcfs");
	cr_assert_str_eq(e.policies[0].label, "fcfs");
	cr_assert_str_eq(e.policies[0].json_path, "$.policies[0]");
	cr_assert_eq(e.policies[0].nparams, 0);
	const struct policy_spec *p = &e.policies[1];
	cr_assert_str_eq(p->name, "easy");
	cr_assert_str_eq(p->label, "easy-q");
	cr_assert_str_eq(p->json_path, "$.policies[1]");
	cr_assert_eq(p->nparams, 3);
	cr_assert_str_eq(p->params[0].key, "depth");
	cr_assert_str_eq(p->params[0].json_path, "$.policies[1].params.depth");
	cr_assert_eq(p->params[0].type, PV_NUMBER);
	cr_assert_eq(p->params[0].num, 3);
	cr_assert_str_eq(p->params[1].key, "strict");
	cr_assert_eq(p->params[1].type, PV_BOOL);
	cr_assert(p->params[1].b);
	cr_assert_str_eq(p->params[2].key, "order");
	cr_assert_eq(p->params[2].type, PV_STRING);
	cr_assert_str_eq(p->params[2].str, "sjf");

	cr_assert_eq(e.nseeds, 3);
	cr_assert_eq(e.seeds[0], 3);
	cr_assert_eq(e.seeds[1], 0);
	cr_assert_eq(e.seeds[2], 42);
	want = xasprintf("%s/out/full", exp_tdir);
	cr_assert_str_eq(e.output, want);
	free(want);
	cr_assert_eq(e.nplugins, 1);
	want = xasprintf("%s/p/mine.so", exp_tdir);
	cr_assert_str_eq(e.plugins[0], want);
	free(want);
	cr_assert_eq(e.timeline_interval, 60500000); /* 60.5 s */
	cr_assert_eq(e.bsld_tau, 20 * SIM_SEC);
	cr_assert(e.check);
	cr_assert_not_null(e.resolved_json);
	exp_release(&e);
	cr_assert_null(e.name);
	exp_release(&e); /* twice is harmless */
	free(path);
}

Test(exp, defaults)
{
	const char *text = "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			   ", \"policies\": [\"fcfs\"]}";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "dir/my.exp.json", &e, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(e.name, "my.exp");              /* the file's stem */
	cr_assert_str_eq(e.output, "results/my.exp");    /* from the cwd */
	cr_assert_eq(e.nseeds, 1);
	cr_assert_eq(e.seeds[0], 1);
	cr_assert_eq(e.nplugins, 0);
	cr_assert_eq(e.timeline_interval, 0);
	cr_assert_eq(e.bsld_tau, 10 * SIM_SEC);
	cr_assert_not(e.check);
	cr_assert_eq(e.progress_timeout, SIM_PROGRESS_TIMEOUT); /* a day */
	cr_assert_not(e.cluster.exclusive);
	cr_assert_str_eq(e.cluster.groups[0].name, "group0");
	cr_assert_eq(e.cluster.groups[0].gpus, 0);
	cr_assert_eq(e.cluster.groups[0].mem_mb, 0);
	const struct trace_opts *o = &e.workload.opts;
	cr_assert_str_eq(e.workload.trace, "dir/t.swf");
	cr_assert_eq(o->format, TRACE_SWF);
	cr_assert_eq(o->procs, PROCS_ALLOCATED);
	cr_assert_eq(o->overrun, OVERRUN_CLIP);
	cr_assert(o->drop_invalid);
	cr_assert_not(o->lenient);
	cr_assert_eq(o->limit, 0);
	cr_assert_eq(o->window_start, SIM_TIME_NONE);
	cr_assert_eq(o->window_end, SIM_TIME_NONE);
	cr_assert_eq(o->load_scale, 1);
	cr_assert_str_eq(e.policies[0].label, "fcfs");
	exp_release(&e);

	/* The format follows the trace's name: .csv and .csv.gz are CSV. */
	const char *names[] = { "a.csv", "a.csv.gz", "a.swf", "a.swf.gz",
				"csv" };
	const enum trace_format want[] = { TRACE_CSV, TRACE_CSV, TRACE_SWF,
					   TRACE_SWF, TRACE_SWF };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *t = xasprintf("{" EXP_MIN_CLUSTER ", \"workload\": "
				    "{\"trace\": \"%s\"}, \"policies\": "
				    "[\"fcfs\"]}", names[i]);
		cr_assert_eq(exp_parse(t, "x.json", &e, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(e.workload.opts.format, want[i], "%s", names[i]);
		exp_release(&e);
		free(t);
	}
}

Test(exp, generated_workload)
{
	const char *text =
		"{" EXP_MIN_CLUSTER ", \"policies\": [\"fcfs\"],\n"
		" \"workload\": {\"generate\": {\"jobs\": 100,\n"
		"   \"interarrival\": {\"dist\": \"exponential\", \"mean\": 30},\n"
		"   \"runtime\": {\"dist\": \"hypergamma\", \"p\": 0.3,"
		"     \"shape1\": 2, \"scale1\": 3, \"shape2\": 4, \"scale2\": 5},\n"
		"   \"cpus\": {\"dist\": \"discrete\", \"values\": [1, 2, 4],"
		"     \"weights\": [0.5, 0.25, 0.25]},\n"
		"   \"estimate_factor\": {\"dist\": \"uniform\", \"min\": 1,"
		"     \"max\": 5},\n"
		"   \"users\": 7, \"max_cpus\": 64},\n"
		"  \"limit\": 50, \"load_scale\": 2}}";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "g.json", &e, &err), 0, "%s", err.msg);
	const struct gen_spec *g = &e.workload.gen;
	cr_assert(e.workload.generated);
	cr_assert_null(e.workload.trace);
	cr_assert_str_eq(e.workload.name, "generated");
	cr_assert_eq(g->jobs, 100);
	cr_assert_eq(g->interarrival.kind, DIST_EXPONENTIAL);
	cr_assert_eq(g->interarrival.p[0], 30);
	cr_assert_eq(g->runtime.kind, DIST_HYPERGAMMA);
	const double hg[5] = { 0.3, 2, 3, 4, 5 };
	for (int i = 0; i < 5; i++)
		cr_assert_eq(g->runtime.p[i], hg[i]);
	cr_assert_eq(g->cpus.kind, DIST_DISCRETE);
	cr_assert_eq(g->cpus.nvalues, 3);
	cr_assert_eq(g->cpus.values[2], 4);
	cr_assert_eq(g->cpus.weights[0], 0.5);
	cr_assert_eq(g->estimate_factor.kind, DIST_UNIFORM);
	cr_assert_eq(g->estimate_factor.p[0], 1);
	cr_assert_eq(g->estimate_factor.p[1], 5);
	cr_assert_eq(g->users, 7);
	cr_assert_eq(g->max_cpus, 64);
	cr_assert_eq(e.workload.opts.limit, 50);
	cr_assert_eq(e.workload.opts.load_scale, 2);
	exp_release(&e);

	/* Every two-parameter kind fills p[] in the order listed. */
	const char *kinds[][3] = {
		{ "uniform", "min", "max" },    { "lognormal", "mu", "sigma" },
		{ "weibull", "shape", "scale" }, { "gamma", "shape", "scale" },
		{ "pow2", "min", "max" },
	};
	const enum dist_kind kv[] = { DIST_UNIFORM, DIST_LOGNORMAL,
				      DIST_WEIBULL, DIST_GAMMA, DIST_POW2 };
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		char *t = xasprintf(
			"{" EXP_MIN_CLUSTER ", \"policies\": [\"fcfs\"],"
			" \"workload\": {\"generate\": {\"jobs\": 1,"
			" \"interarrival\": {\"dist\": \"constant\", \"value\": 9},"
			" \"runtime\": {\"%s\": 8, \"dist\": \"%s\", \"%s\": 2},"
			" \"cpus\": {\"dist\": \"constant\", \"value\": 1}}}}",
			kinds[i][2], kinds[i][0], kinds[i][1]);
		cr_assert_eq(exp_parse(t, "g.json", &e, &err), 0, "%s",
			     err.msg);
		cr_assert_eq(e.workload.gen.runtime.kind, kv[i]);
		cr_assert_eq(e.workload.gen.runtime.p[0], 2);
		cr_assert_eq(e.workload.gen.runtime.p[1], 8);
		/* defaults: estimate factor constant 1, one user, no clamp */
		cr_assert_eq(e.workload.gen.estimate_factor.kind,
			     DIST_CONSTANT);
		cr_assert_eq(e.workload.gen.estimate_factor.p[0], 1);
		cr_assert_eq(e.workload.gen.users, 1);
		cr_assert_eq(e.workload.gen.max_cpus, 0);
		cr_assert_eq(e.workload.gen.interarrival.p[0], 9);
		exp_release(&e);
		free(t);
	}
}

Test(exp, path_resolution)
{
	const char *text =
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"../t/a.swf\"},"
		" \"policies\": [\"fcfs\", \"plug/mine.so\","
		"   {\"name\": \"/abs/other.so\", \"label\": \"o\"}],"
		" \"output\": \"../results/default\","
		" \"plugins\": [\"p/x.so\", \"/abs/y.so\"]}";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "experiments/default.json", &e, &err), 0,
		     "%s", err.msg);
	/* Joined to the file's folder, never canonicalised. */
	cr_assert_str_eq(e.output, "experiments/../results/default");
	cr_assert_str_eq(e.workload.trace, "experiments/../t/a.swf");
	cr_assert_str_eq(e.workload.name, "a.swf");
	cr_assert_str_eq(e.plugins[0], "experiments/p/x.so");
	cr_assert_str_eq(e.plugins[1], "/abs/y.so");
	cr_assert_str_eq(e.policies[1].name, "experiments/plug/mine.so");
	cr_assert_str_eq(e.policies[1].label, "mine");
	cr_assert_str_eq(e.policies[2].name, "/abs/other.so");
	cr_assert_str_eq(e.policies[2].label, "o");
	exp_release(&e);

	/* A file in the current folder: paths stay as written. */
	cr_assert_eq(exp_parse(text, "default.json", &e, &err), 0, "%s",
		     err.msg);
	cr_assert_str_eq(e.output, "../results/default");
	cr_assert_str_eq(e.workload.trace, "../t/a.swf");
	exp_release(&e);
}

Test(exp, cluster_from_file)
{
	char *cl = exp_put("clusters/two.json",
			   "{\"nodes\": [{\"name\": \"gpu\", \"count\": 3,"
			   " \"cpus\": 16, \"gpus\": 4, \"mem_gb\": 64}],"
			   " \"exclusive\": true}");
	const char *text = "{\"cluster\": \"clusters/two.json\", "
		EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}";
	char *path = exp_put("e.json", text);
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_load(path, &e, &err), 0, "%s", err.msg);
	cr_assert_eq(e.cluster.ngroups, 1);
	cr_assert_str_eq(e.cluster.groups[0].name, "gpu");
	cr_assert_eq(e.cluster.groups[0].count, 3);
	cr_assert_eq(e.cluster.groups[0].cpus, 16);
	cr_assert_eq(e.cluster.groups[0].gpus, 4);
	cr_assert_eq(e.cluster.groups[0].mem_mb, 65536);
	cr_assert(e.cluster.exclusive);
	cr_assert_not(e.cluster_from_trace);
	exp_release(&e);
	free(cl);

	/* An error inside it names that file and its path from "$". */
	cl = exp_put("clusters/bad.json",
		     "{\"nodes\": [{\"count\": 1, \"cpus\": 1},\n"
		     "  {\"count\": 0, \"cpus\": 1}]}");
	char *msg = xasprintf("%s: $.nodes[1].count: must be > 0, got '0'",
			      cl);
	exp_expect_error(path, "{\"cluster\": \"clusters/bad.json\", "
			 EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}", msg);
	free(msg);
	free(cl);

	cl = exp_put("clusters/broken.json", "{\"nodes\":\n\n [}");
	msg = xasprintf("%s:3: invalid JSON near '}'", cl);
	exp_expect_error(path, "{\"cluster\": \"clusters/broken.json\", "
			 EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}", msg);
	free(msg);
	free(cl);

	/* cluster_spec_check()'s messages name the path inside the file. */
	cl = exp_put("clusters/mixed.json",
		     "{\"nodes\": [{\"count\": 1, \"cpus\": 2},"
		     " {\"count\": 1, \"cpus\": 4}], \"exclusive\": true}");
	msg = xasprintf("%s: $.exclusive: ", cl);
	cr_assert_eq(exp_parse("{\"cluster\": \"clusters/mixed.json\", "
			       EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
			       path, &e, &err), -SIM_EINPUT);
	cr_assert_eq(strncmp(err.msg, msg, strlen(msg)), 0, "%s", err.msg);
	free(msg);
	free(cl);
	/* The same inline: "$.cluster..." in the experiment file. */
	cr_assert_eq(exp_parse("{\"cluster\": {\"nodes\": [{\"count\": 1,"
			       " \"cpus\": 2}, {\"count\": 1, \"cpus\": 4}],"
			       " \"exclusive\": true}, " EXP_MIN_WORKLOAD
			       ", \"policies\": [\"a\"]}", "f.json", &e, &err),
		     -SIM_EINPUT);
	cr_assert_eq(strncmp(err.msg, "f.json: $.cluster.exclusive: ", 29), 0,
		     "%s", err.msg);

	/* A missing cluster file: an I/O error at "$.cluster". */
	msg = xasprintf("%s: $.cluster: cannot open '%s/clusters/nope.json': "
			"No such file or directory", path, exp_tdir);
	cr_assert_eq(exp_parse("{\"cluster\": \"clusters/nope.json\", "
			       EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
			       path, &e, &err), -SIM_EIO);
	cr_assert_str_eq(err.msg, msg);
	free(msg);
	free(path);
}

Test(exp, cluster_from_trace)
{
	const char *text = "{\"cluster\": {\"from_trace\": true}, "
		EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_assert(e.cluster_from_trace);
	cr_assert_eq(e.cluster.ngroups, 0);
	cr_assert_not(e.cluster.exclusive);
	exp_release(&e);
}

Test(exp, resolved_json)
{
	const char *text =
		"{\"policies\": [{\"name\": \"easy\", \"params\": {\"k\": 2}}],"
		" " EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\","
		" \"window\": {\"end\": 1.5}}, \"check\": true}";
	struct experiment e, again;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cJSON *j = cJSON_Parse(e.resolved_json);
	cr_assert_not_null(j);
	/* Schema order, every default filled in. */
	const char *order[] = { "name", "cluster", "workload", "policies",
				"seeds", "output", "plugins",
				"timeline_interval", "bounded_slowdown_tau",
				"measure", "check", "schedule_on", "same_time",
				"schedule_interval", "allocations",
				"progress_timeout", "preemption",
				"gpu_types", "derive_throughputs",
				"throughputs", "limits" };
	size_t i = 0;
	for (const cJSON *it = j->child; it; it = it->next, i++) {
		cr_assert_lt(i, ARRAY_SIZE(order));
		cr_assert_str_eq(it->string, order[i]);
	}
	cr_assert_eq(i, ARRAY_SIZE(order));
	cr_assert_str_eq(cJSON_GetObjectItem(j, "name")->valuestring, "x");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "output")->valuestring,
			 "results/x");
	cr_assert_eq(cJSON_GetObjectItem(j, "bounded_slowdown_tau")
		     ->valuedouble, 10);
	cJSON *seeds = cJSON_GetObjectItem(j, "seeds");
	cr_assert_eq(cJSON_GetArraySize(seeds), 1);
	cr_assert_eq(cJSON_GetArrayItem(seeds, 0)->valuedouble, 1);
	cJSON *w = cJSON_GetObjectItem(j, "workload");
	cr_assert_str_eq(cJSON_GetObjectItem(w, "overrun")->valuestring,
			 "clip");
	cr_assert_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(w, "window"),
					 "end")->valuedouble, 1.5);
	cJSON *p0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "policies"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(p0, "label")->valuestring,
			 "easy");
	cJSON_Delete(j);

	/* In the current folder the resolved file reads back to itself. */
	cr_assert_eq(exp_parse(e.resolved_json, "x.json", &again, &err), 0,
		     "%s", err.msg);
	cr_assert_str_eq(again.resolved_json, e.resolved_json);
	exp_release(&again);
	exp_release(&e);
}

Test(exp, error_unknown_keys)
{
	/* did-you-mean at a nested path */
	exp_expect_error("f.json",
		"{\"cluster\": {\"nodes\": [{\"count\": 2, \"cpu\": 4}]}, "
		EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}",
		"f.json: $.cluster.nodes[0]: unknown key 'cpu' "
		"(did you mean 'cpus'?)");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"fcfs\"], \"seed\": [2]}",
		"f.json: $: unknown key 'seed' (did you mean 'seeds'?)");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\","
		" \"windw\": {}}, \"policies\": [\"fcfs\"]}",
		"f.json: $.workload: unknown key 'windw' "
		"(did you mean 'window'?)");
	/* nothing close: the known keys are listed */
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[{\"name\": \"a\", \"parameters\": {}}]}",
		"f.json: $.policies[0]: unknown key 'parameters' "
		"(expected 'name', 'label' or 'params')");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"check\": true, \"check\": false}",
		"f.json: $: duplicate key 'check'");
	/* the GPU-type keys (tests/test_gputypes.c has the rest) */
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"fcfs\"], \"gpu_type\": {}}",
		"f.json: $: unknown key 'gpu_type' (did you mean "
		"'gpu_types'?)");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"fcfs\"], \"gpu_types\": {\"g\": {\"like\": \"t4\", "
		"\"memory_GBps\": -320}}}",
		"f.json: $.gpu_types.g.memory_GBps: must be > 0, got '-320'");
}

Test(exp, error_types_and_values)
{
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"seeds\": [1, null]}",
		"f.json: $.seeds[1]: expected an integer or a string of "
		"digits, got null");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"seeds\": [1, 2.5]}",
		"f.json: $.seeds[1]: expected an integer, got '2.5'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"seeds\": [-1]}",
		"f.json: $.seeds[0]: must be >= 0, got '-1'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"seeds\": [4, 5, 4]}",
		"f.json: $.seeds[2]: duplicate seed '4' (also $.seeds[0])");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"seeds\": []}",
		"f.json: $.seeds: must not be empty");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"check\": 1}",
		"f.json: $.check: expected a boolean, got number");
	exp_expect_error("f.json",
		"{\"cluster\": {\"nodes\": [{\"count\": 0, \"cpus\": 4}]}, "
		EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
		"f.json: $.cluster.nodes[0].count: must be > 0, got '0'");
	exp_expect_error("f.json",
		"{\"cluster\": {\"nodes\": [{\"count\": 4294967296,"
		" \"cpus\": 4}]}, " EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
		"f.json: $.cluster.nodes[0].count: must be <= 4294967295, "
		"got '4294967296'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\","
		" \"overrun\": \"cut\"}, \"policies\": [\"a\"]}",
		"f.json: $.workload.overrun: unknown value 'cut' "
		"(expected 'clip', 'kill' or 'allow')");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\","
		" \"clean\": \"slurm\"}, \"policies\": [\"a\"]}",
		"f.json: $.workload.clean: unknown value 'slurm' "
		"(expected 'pwa', 'pyss', 'cqsim' or 'batsim')");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.csv\","
		" \"clean\": \"pyss\"}, \"policies\": [\"a\"]}",
		"f.json: $.workload.clean: applies to an SWF trace only "
		"(format 'swf')");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"generate\": {},"
		" \"clean\": \"pyss\"}, \"policies\": [\"a\"]}",
		"f.json: $.workload.clean: applies to a trace only "
		"(not with 'generate')");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\","
		" \"load_scale\": 0}, \"policies\": [\"a\"]}",
		"f.json: $.workload.load_scale: must be > 0, got '0'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\","
		" \"window\": {\"start\": 100, \"end\": 50}}, "
		"\"policies\": [\"a\"]}",
		"f.json: $.workload.window.end: must be > start ('100'), "
		"got '50'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"a\"], \"bounded_slowdown_tau\": 0}",
		"f.json: $.bounded_slowdown_tau: must be > 0, got '0'");
	exp_expect_error("f.json", "[1, 2]",
		"f.json: $: expected an object, got array");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD "}",
		"f.json: $: missing key 'policies'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[{\"name\": \"a\", \"params\": {\"x\": [1]}}]}",
		"f.json: $.policies[0].params.x: expected a number, boolean "
		"or string, got array");
}

Test(exp, error_policies)
{
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": []}",
		"f.json: $.policies: must not be empty");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"easy\", \"fcfs\", {\"name\": \"easy\"}]}",
		"f.json: $.policies[2]: duplicate label 'easy' "
		"(also $.policies[0])");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[\"easy\", {\"name\": \"sjf\", \"label\": \"easy\"}]}",
		"f.json: $.policies[1].label: duplicate label 'easy' "
		"(also $.policies[0])");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[{\"name\": \"easy\", \"label\": \"a/b\"}]}",
		"f.json: $.policies[0].label: invalid label 'a/b': only "
		"letters, digits, '_', '.', '+' and '-' (it names a folder)");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[{\"label\": \"x\"}]}",
		"f.json: $.policies[0]: missing key 'name'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD ", \"policies\": "
		"[{\"name\": \"a\", \"params\": {\"k\": 1, \"k\": 2}}]}",
		"f.json: $.policies[0].params: duplicate key 'k'");
}

Test(exp, error_workload_and_cluster_shape)
{
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": \"t.swf\", "
		"\"generate\": {}}, \"policies\": [\"a\"]}",
		"f.json: $.workload: give either 'trace' or 'generate', "
		"not both");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"limit\": 3}, "
		"\"policies\": [\"a\"]}",
		"f.json: $.workload: missing key 'trace' or 'generate'");
	exp_expect_error("f.json",
		"{" EXP_MIN_CLUSTER ", \"workload\": {\"format\": \"swf\", "
		"\"generate\": {}}, \"policies\": [\"a\"]}",
		"f.json: $.workload.format: applies to a trace only "
		"(not with 'generate')");
	exp_expect_error("f.json",
		"{\"cluster\": {\"from_trace\": true, \"nodes\": []}, "
		EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
		"f.json: $.cluster: give either 'nodes' or 'from_trace', "
		"not both");
	exp_expect_error("f.json",
		"{\"cluster\": {\"exclusive\": true}, "
		EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
		"f.json: $.cluster: missing key 'nodes' "
		"(or 'from_trace': true)");
	exp_expect_error("f.json",
		"{\"cluster\": {\"nodes\": []}, "
		EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
		"f.json: $.cluster.nodes: must not be empty");
	exp_expect_error("f.json",
		"{\"cluster\": 5, " EXP_MIN_WORKLOAD ", \"policies\": [\"a\"]}",
		"f.json: $.cluster: expected an object or a file name, "
		"got number");
	exp_expect_error("f.json",
		"{\"cluster\": {\"from_trace\": true}, \"policies\": [\"a\"], "
		"\"workload\": {\"generate\": {\"jobs\": 1,"
		" \"interarrival\": {\"dist\": \"constant\", \"value\": 1},"
		" \"runtime\": {\"dist\": \"constant\", \"value\": 1},"
		" \"cpus\": {\"dist\": \"constant\", \"value\": 1}}}}",
		"f.json: $.cluster: 'from_trace' needs a trace, not a "
		"generated workload");
}

#define EXP_GEN(runtime)                                                    \
	"{" EXP_MIN_CLUSTER ", \"policies\": [\"a\"], \"workload\": "       \
	"{\"generate\": {\"jobs\": 1, \"interarrival\": {\"dist\": "        \
	"\"constant\", \"value\": 1}, \"runtime\": " runtime ", \"cpus\": " \
	"{\"dist\": \"constant\", \"value\": 1}}}}"

Test(exp, error_dists)
{
	exp_expect_error("f.json", EXP_GEN("{\"dist\": \"normal\"}"),
		"f.json: $.workload.generate.runtime.dist: unknown value "
		"'normal' (expected 'constant', 'uniform', 'exponential', "
		"'lognormal', 'weibull', 'gamma', 'hypergamma', 'pow2', "
		"'discrete' or 'lognormal2')");
	exp_expect_error("f.json", EXP_GEN("{\"mean\": 3}"),
		"f.json: $.workload.generate.runtime: missing key 'dist'");
	exp_expect_error("f.json", EXP_GEN("{\"dist\": \"lognormal\", "
					   "\"mu\": 3}"),
		"f.json: $.workload.generate.runtime: missing key 'sigma'");
	exp_expect_error("f.json", EXP_GEN("{\"dist\": \"exponential\", "
					   "\"maen\": 3}"),
		"f.json: $.workload.generate.runtime: unknown key 'maen' "
		"(did you mean 'mean'?)");
	exp_expect_error("f.json", EXP_GEN("{\"dist\": \"discrete\", "
					   "\"values\": [1, 2], "
					   "\"weights\": [1]}"),
		"f.json: $.workload.generate.runtime.weights: expected 2 "
		"weights (one per value), got 1");
	exp_expect_error("f.json", EXP_GEN("{\"dist\": \"discrete\", "
					   "\"values\": [1, true], "
					   "\"weights\": [1, 1]}"),
		"f.json: $.workload.generate.runtime.values[1]: expected a "
		"number, got boolean");

	/* Range checks are dist_check()'s: its message starts with the
	 * file and the distribution's path. */
	struct experiment e;
	struct sim_error err = { .msg = "" };
	const char *prefix = "f.json: $.workload.generate.runtime";
	cr_assert_eq(exp_parse(EXP_GEN("{\"dist\": \"exponential\", "
				       "\"mean\": -3}"), "f.json", &e, &err),
		     -SIM_EINPUT);
	cr_assert_eq(strncmp(err.msg, prefix, strlen(prefix)), 0, "%s",
		     err.msg);
}

Test(exp, error_json_and_io)
{
	exp_expect_error("f.json",
		"{\n  \"name\": \"x\",\n  \"seeds\": [1, 2,, 3]\n}",
		"f.json:3: invalid JSON near ', 3]'");
	exp_expect_error("f.json", "{\n\"name\": \"x\"",
		"f.json:2: invalid JSON: unexpected end of input");
	exp_expect_error("f.json", "{} {}", "f.json:1: invalid JSON near '{}'");
	exp_expect_error("f.json", "",
		"f.json:1: invalid JSON: unexpected end of input");
	exp_expect_error("f.json",
		"{\"a\": \"a very long line that goes on and on\" x}",
		"f.json:1: invalid JSON near 'x}'");
	exp_expect_error("f.json",
		"{\"a\": tru and then a long tail of text}",
		"f.json:1: invalid JSON near 'tru and then a lo...'");

	struct experiment e;
	struct sim_error err = { .msg = "" };
	char *path = xasprintf("%s/missing.json", exp_tdir);
	char *msg = xasprintf("%s: cannot open: No such file or directory",
			      path);
	cr_assert_eq(exp_load(path, &e, &err), -SIM_EIO);
	cr_assert_str_eq(err.msg, msg);
	free(msg);
	free(path);
	/* A folder is not read at all. */
	msg = xasprintf("%s: not a regular file (a folder)", exp_tdir);
	cr_assert_eq(exp_load(exp_tdir, &e, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, msg);
	free(msg);
	/* A NUL byte inside the file. */
	path = xasprintf("%s/nul.json", exp_tdir);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f);
	fwrite("{}\n\0{}", 1, 6, f);
	fclose(f);
	msg = xasprintf("%s:2: invalid JSON: NUL byte", path);
	cr_assert_eq(exp_load(path, &e, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, msg);
	free(msg);
	free(path);
}

/* The shipped experiments load; default.json's offered load is 0.85-0.9. */
Test(exp, shipped_experiments)
{
	const char *files[] = { "experiments/default.json",
				"experiments/kth.json",
				"experiments/nasa.json",
				"experiments/curie.json" };
	struct experiment e;
	struct sim_error err = { .msg = "" };
	if (access(files[0], R_OK) != 0)
		cr_skip_test("run from the repository root to check "
			     "experiments/");
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		cr_assert_eq(exp_load(files[i], &e, &err), 0, "%s", err.msg);
		exp_release(&e);
	}
	cr_assert_eq(exp_load(files[0], &e, &err), 0, "%s", err.msg);
	const struct gen_spec *g = &e.workload.gen;
	cr_assert(e.workload.generated);
	cr_assert_eq(g->interarrival.kind, DIST_EXPONENTIAL);
	cr_assert_eq(g->runtime.kind, DIST_LOGNORMAL);
	cr_assert_eq(g->cpus.kind, DIST_POW2);
	/* E[2^k], k uniform in [log2 min, log2 max], summed by hand. */
	double ecpus = 0;
	int nk = 0;
	for (double c = g->cpus.p[0]; c <= g->cpus.p[1]; c *= 2, nk++)
		ecpus += c;
	ecpus /= nk;
	double erun = exp(g->runtime.p[0] +
			  g->runtime.p[1] * g->runtime.p[1] / 2);
	double cap = 0;
	for (size_t i = 0; i < e.cluster.ngroups; i++)
		cap += (double)e.cluster.groups[i].count *
		       e.cluster.groups[i].cpus;
	double load = ecpus * erun / (g->interarrival.p[0] * cap);
	cr_assert(load >= 0.85 && load <= 0.9, "offered load %g", load);
	cr_assert_str_eq(e.output, "experiments/../results/default");
	exp_release(&e);
}

Test(exp, gpu_cluster_keys)
{
	const char *text =
		"{\"cluster\": {\"nodes\": [{\"count\": 4, \"cpus\": 32, "
		"\"gpus\": 8, \"gpu_type\": \"v100\"}, {\"count\": 2, "
		"\"cpus\": 16}], \"rack_nodes\": 2}, " EXP_MIN_WORKLOAD
		", \"policies\": [{\"name\": \"fcfs\", \"params\": "
		"{\"placement\": \"consolidate\"}}]}";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_assert_str_eq(e.cluster.groups[0].gpu_type, "v100");
	cr_assert_null(e.cluster.groups[1].gpu_type);
	cr_assert_eq(e.cluster.rack_nodes, 2);
	cr_assert(strstr(e.resolved_json, "\"gpu_type\":\t\"v100\""), "%s",
		  e.resolved_json);
	cr_assert(strstr(e.resolved_json, "\"rack_nodes\":\t2"));
	/* The placement parameter is the registry's to check. */
	cr_assert_str_eq(e.policies[0].params[0].key, "placement");
	exp_release(&e);
	exp_expect_error("x.json",
			 "{\"cluster\": {\"nodes\": [{\"count\": 1, "
			 "\"cpus\": 1, \"gpu_type\": 5}]}, " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"]}",
			 "x.json: $.cluster.nodes[0].gpu_type: expected a "
			 "string, got number");
	exp_expect_error("x.json",
			 "{\"cluster\": {\"nodes\": [{\"count\": 1, "
			 "\"cpus\": 1}], \"rack_nodes\": -1}, " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"]}",
			 "x.json: $.cluster.rack_nodes: must be >= 0, got '-1'");
}

Test(exp, network_and_reference_gpu)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	/* Defaults: non-blocking HDR; reference v100. */
	const char *text = "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			   ", \"policies\": [\"fcfs\"]}";
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_expect_eq(e.network.oversubscription, 1);
	cr_expect_eq(e.network.nic_gbps, 200);
	cr_expect_str_eq(e.workload.reference_gpu, "v100");
	cr_expect(e.workload.draw_classes);
	exp_release(&e);
	text = "{\"cluster\": {\"nodes\": [{\"count\": 2, \"cpus\": 4}], "
	       "\"network\": {\"nic_gbps\": 100, \"uplinks\": 4, "
	       "\"uplink_gbps\": 200, \"latency_usec\": 1}}, "
	       "\"workload\": {\"trace\": \"t.swf\", \"reference_gpu\": "
	       "\"p100\", \"job_classes\": \"trace\"}, "
	       "\"policies\": [\"fcfs\"]}";
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_expect_eq(e.network.nic_gbps, 100);
	cr_expect_eq(e.network.uplinks, 4);
	cr_expect_eq(e.network.uplink_gbps, 200);
	cr_expect_eq(e.network.oversubscription, 0);
	cr_expect_eq(e.network.latency_usec, 1);
	cr_expect_str_eq(e.workload.reference_gpu, "p100");
	cr_expect(!e.workload.draw_classes);
	exp_release(&e);
	exp_expect_error("x.json",
			 "{\"cluster\": {\"nodes\": [{\"count\": 1, \"cpus\": 1}"
			 "], \"network\": {\"uplinks\": 4, \"oversubscription\":"
			 " 2}}, " EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}",
			 "x.json: $.cluster.network: give either 'uplinks' and "
			 "'uplink_gbps', or 'oversubscription', not both");
	exp_expect_error("x.json",
			 "{\"cluster\": {\"nodes\": [{\"count\": 1, \"cpus\": 1}"
			 "], \"network\": {\"uplinks\": 4}}, " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"]}",
			 "x.json: $.cluster.network: missing key 'uplink_gbps'");
	exp_expect_error("x.json",
			 "{" EXP_MIN_CLUSTER ", \"workload\": {\"trace\": "
			 "\"t.swf\", \"reference_gpu\": \"tpu\"}, "
			 "\"policies\": [\"fcfs\"]}",
			 "x.json: $.workload.reference_gpu: unknown gpu type "
			 "'tpu' (a built-in type: k80, p100, v100, t4, a10, "
			 "a100-40gb, a100-80gb, h100, h200, l40s)");
}

Test(exp, preemption_keys)
{
	const char *text = "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			   ", \"policies\": [\"fcfs\"], \"preemption\": "
			   "{\"checkpoint_interval\": 600, "
			   "\"restore_overhead\": 12.5}}";
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_expect_eq(e.checkpoint_interval, 600 * SIM_SEC);
	cr_expect_eq(e.restore_overhead, 12500000);
	exp_release(&e);
	exp_expect_error("x.json",
			 "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"], \"preemption\": "
			 "{\"restore\": 1}}",
			 "x.json: $.preemption: unknown key 'restore' "
			 "(expected 'checkpoint_interval', "
			 "'restore_overhead', 'restore_per_gpu', "
			 "'storage_GBps' or 'start_overhead')");
}

/* Names and paths reach generated scripts (plots, Slurm) one to a line:
 * a control character in them is refused where the file gives it. */
Test(exp, names_and_paths_hold_no_control_character)
{
	exp_expect_error("x.json", "{\"name\": \"a\\nb\", " EXP_MIN_CLUSTER
			 ", " EXP_MIN_WORKLOAD ", \"policies\": [\"fcfs\"]}",
			 "x.json: $.name: must not contain a control character "
			 "(a newline, a tab)");
	exp_expect_error("x.json", "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"], \"output\": \"o\\tut\"}",
			 "x.json: $.output: must not contain a control "
			 "character (a newline, a tab)");
	exp_expect_error("x.json", "{" EXP_MIN_CLUSTER ", \"workload\": "
			 "{\"trace\": \"t\\u001b.swf\"}, \"policies\": "
			 "[\"fcfs\"]}",
			 "x.json: $.workload.trace: must not contain a control "
			 "character (a newline, a tab)");
}

/* The span of progress detection: seconds, 0 = off, never negative. */
Test(exp, progress_timeout)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	const char *text = "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			   ", \"policies\": [\"fcfs\"], "
			   "\"progress_timeout\": 3600}";
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_expect_eq(e.progress_timeout, 3600 * SIM_SEC);
	exp_release(&e);
	exp_expect_error("x.json", "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"], "
			 "\"progress_timeout\": -1}",
			 "x.json: $.progress_timeout: must be >= 0, got '-1'");
}

Test(exp, same_time_keys)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	const char *text = "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			   ", \"policies\": [\"fcfs\"], "
			   "\"schedule_on\": \"event\", "
			   "\"same_time\": \"submits_first\"}";
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	cr_expect(e.schedule_each_event);
	cr_expect(e.submits_first);
	exp_release(&e);
	cr_assert_eq(exp_parse("{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			       ", \"policies\": [\"fcfs\"]}", "x.json", &e,
			       &err), 0, "%s", err.msg);
	cr_expect(!e.schedule_each_event && !e.submits_first);
	exp_release(&e);
	exp_expect_error("x.json", "{" EXP_MIN_CLUSTER ", " EXP_MIN_WORKLOAD
			 ", \"policies\": [\"fcfs\"], "
			 "\"schedule_on\": \"job\"}",
			 "x.json: $.schedule_on: unknown value 'job' "
			 "(expected 'timestamp' or 'event')");
}
