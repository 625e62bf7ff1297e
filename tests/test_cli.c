/*
 * The command line as a user meets it: exit codes (0 ok, 1 run failed,
 * 2 bad usage or input), error messages that name the file and line or
 * JSON path, byte-identical reruns, and plug-ins.  Runs the built binary
 * ($CLUSTERSIM_BIN, default build/clustersim) in a temporary folder.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "testlib.h"
#include "policy/registry.h"

static char tmp[256];
static char bin[512];
static char plugin[512];

static void setup(void)
{
	const char *p = getenv("CLUSTERSIM_PLUGIN_SO");
	char cwd[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "cli");
	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(plugin, sizeof(plugin), "%s/%s", cwd,
		 p ? p : "build/plugin/example_plugin.so");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
/* Files and commands in tmp (testlib.h). */
#define put(name, text) tl_put(tmp, name, text)

/* Runs "clustersim ARGS" in tmp; returns the exit code, stderr in *err
 * (caller frees). */
static int cli(char **err, const char *args)
{
	char *cmd = xasprintf("cd '%s' && '%s' %s >out.txt 2>err.txt", tmp,
			      bin, args);
	int st = system(cmd);
	free(cmd);
	char *path = xasprintf("%s/err.txt", tmp);
	FILE *f = fopen(path, "r");
	free(path);
	static char buf[8192];
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	if (err)
		*err = xstrdup(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_error(const char *args, int code, const char *needle)
{
	char *err;
	int rc = cli(&err, args);
	cr_expect_eq(rc, code, "clustersim %s: exit %d, want %d; stderr: %s",
		     args, rc, code, err);
	cr_expect(strstr(err, needle), "clustersim %s: stderr lacks '%s': %s",
		  args, needle, err);
	free(err);
}

/* Three jobs on one CPU: A [0, 10), B submitted at 1, C at 2, 10 s each. */
static const char trace3[] =
	"; MaxProcs: 1\n"
	"; MaxNodes: 1\n"
	"1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 2 -1 10 1 -1 -1 1 10 -1 1 2 1 -1 -1 -1 -1 -1\n";

static void experiment(const char *name, const char *policies,
		       const char *extra)
{
	char *text = xasprintf(
		"{ \"name\": \"t\",\n"
		"  \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },\n"
		"  \"workload\": { \"trace\": \"t.swf\" %s },\n"
		"  \"policies\": [ %s ],\n"
		"  \"output\": \"out\" }\n", extra, policies);
	put(name, text);
	free(text);
}

TestSuite(cli, .init = setup, .fini = teardown);

Test(cli, usage_errors_exit_2)
{
	expect_error("", 2, "no command given");
	expect_error("frobnicate", 2, "unknown command 'frobnicate'");
	expect_error("run", 2, "needs an experiment file");
	expect_error("run x.json --bogus", 2, "unknown option '--bogus'");
	expect_error("run missing.json", 2, "missing.json: cannot open");
	expect_error("plot nowhere", 2, "nowhere: not a results folder");
}

Test(cli, experiment_errors_name_the_json_path)
{
	put("t.swf", trace3);
	experiment("a.json", "\"fcfs\"", ", \"overrn\": \"clip\"");
	expect_error("run a.json", 2,
		     "a.json: $.workload: unknown key 'overrn'");
	expect_error("validate a.json", 2, "did you mean 'overrun'");
	experiment("b.json", "\"fifo\"", "");
	expect_error("run b.json", 2, "$.policies[0]: unknown policy 'fifo'");
	experiment("c.json",
		   "{ \"name\": \"easy\", \"params\": { \"depth\": 2 } }", "");
	expect_error("run c.json", 2,
		     "$.policies[0].params.depth: policy 'easy' has no "
		     "parameter 'depth'");
	experiment("d.json",
		   "{ \"name\": \"easy\", \"params\": "
		   "{ \"backfill_order\": \"random\" } }", "");
	expect_error("run d.json", 2, "backfill_order must be 'queue' or "
		     "'sjf', got 'random'");
	put("e.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 0, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": "
		      "\"t.swf\" }, \"policies\": [ \"fcfs\" ] }");
	expect_error("validate e.json", 2, "$.cluster.nodes[0].count");
	put("f.json", "{ \"policies\": [ \"fcfs\" ],\n \"seeds\": [ 1, ] }");
	expect_error("validate f.json", 2, "f.json:2");
}

/* A trace, cluster file or experiment that is a FIFO or /dev/zero is
 * refused at once (it hung, or read until memory ran out), by validate as
 * by run. */
Test(cli, inputs_that_are_not_regular_files_are_refused, .timeout = 30)
{
	char *fifo = xasprintf("%s/fifo", tmp);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	free(fifo);
	static const char *const traces[] = { "fifo", "/dev/zero" };
	static const char *const kinds[] = { "a FIFO", "a character device" };
	for (size_t i = 0; i < 2; i++) {
		char *text = xasprintf("{ \"cluster\": { \"nodes\": [ { "
				       "\"count\": 1, \"cpus\": 4 } ] }, "
				       "\"workload\": { \"trace\": \"%s\" }, "
				       "\"policies\": [ \"fcfs\" ] }",
				       traces[i]);
		put("g.json", text);
		free(text);
		char *want = xasprintf("g.json: $.workload.trace: %s: not a "
				       "regular file (%s)", traces[i],
				       kinds[i]);
		expect_error("validate g.json", 2, want);
		free(want);
		want = xasprintf("%s: not a regular file (%s)", traces[i],
				 kinds[i]);
		expect_error("run g.json -o r --no-plots", 2, want);
		char *args = xasprintf("run %s", traces[i]);
		expect_error(args, 2, want);
		free(args);
		free(want);
	}
	put("h.json", "{ \"cluster\": \"fifo\", \"workload\": { "
		      "\"trace\": \"t.swf\" }, \"policies\": [ \"fcfs\" ] }");
	expect_error("validate h.json", 2, "h.json: $.cluster: 'fifo': not a "
		     "regular file (a FIFO)");
}

Test(cli, malformed_trace_line_names_file_and_line)
{
	put("t.swf", "; MaxProcs: 1\n"
		     "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
		     "2 1 -1 ten 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n");
	experiment("a.json", "\"fcfs\"", "");
	expect_error("run a.json", 2, "t.swf:3:");
	/* --lenient skips it, counting it, and the run succeeds. */
	char *err;
	cr_assert_eq(cli(&err, "run a.json --lenient --no-plots"), 0, "%s", err);
	free(err);
}

Test(cli, validate_and_policies)
{
	put("t.swf", trace3);
	experiment("a.json", "\"fcfs\", \"easy\"", "");
	expect_error("validate a.json", 0, "");
	expect_error("policies", 0, "");
	char *path = xasprintf("%s/out.txt", tmp);
	FILE *f = fopen(path, "r");
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	free(path);
	cr_expect(strstr(buf, "easy "), "%s", buf);
	cr_expect(strstr(buf, "backfill_order = queue"), "%s", buf);
	cr_expect(strstr(buf, "conservative "), "%s", buf);
}

static char *slurp(const char *rel)
{
	char *path = xasprintf("%s/%s", tmp, rel);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = xmalloc((size_t)n + 1);
	cr_assert_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	return s;
}

Test(cli, reruns_are_byte_identical)
{
	put("t.swf", trace3);
	experiment("a.json", "\"fcfs\", \"easy\", \"conservative\"", "");
	char *err;
	cr_assert_eq(cli(&err, "run a.json -o r1 --quiet --no-plots"), 0, "%s",
		     err);
	free(err);
	cr_assert_eq(cli(&err, "run a.json -o r2 --quiet --no-plots"), 0, "%s",
		     err);
	free(err);
	/* The manifest records every policy parameter, defaults included. */
	char *manifest = slurp("r1/manifest.json");
	cr_assert(manifest);
	cr_expect(strstr(manifest, "\"backfill_order\":\t\"queue\""), "%s",
		  manifest);
	free(manifest);
	const char *files[] = {
		"manifest.json", "summary.csv", "fcfs-s1/jobs.csv",
		"fcfs-s1/timeline.csv", "fcfs-s1/summary.json",
		"easy-s1/jobs.csv", "conservative-s1/jobs.csv",
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *p1 = xasprintf("r1/%s", files[i]);
		char *p2 = xasprintf("r2/%s", files[i]);
		char *a = slurp(p1), *b = slurp(p2);
		cr_assert(a && b, "%s missing", files[i]);
		cr_expect_str_eq(a, b, "%s differs between reruns", files[i]);
		free(a);
		free(b);
		free(p1);
		free(p2);
	}
}

/* A plug-in built beside the example one (build/plugin/NAME). */
static char *plugin_beside(const char *name)
{
	const char *slash = strrchr(plugin, '/');
	cr_assert(slash);
	return xasprintf("%.*s/%s", (int)(slash - plugin), plugin, name);
}

Test(cli, plugin_policy_runs_by_name)
{
	/* lifo on one CPU: A runs [0, 10); at 10 B and C wait and the later
	 * one, C, goes first: C [10, 20), B [20, 30). */
	put("t.swf", trace3);
	experiment("a.json", "\"lifo\"", "");
	char *args = xasprintf("run a.json --plugin '%s' --quiet --no-plots",
			       plugin);
	char *err;
	cr_assert_eq(cli(&err, args), 0, "%s", err);
	free(err);
	free(args);
	char *jobs = slurp("out/lifo-s1/jobs.csv");
	cr_assert(jobs);
	cr_expect(strstr(jobs, "\n2,1,20,30,"), "%s", jobs);
	cr_expect(strstr(jobs, "\n3,2,10,20,"), "%s", jobs);
	free(jobs);
	/* The same through "plugins" in the file, relative to it. */
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		" \"workload\": { \"trace\": \"t.swf\" }, \"plugins\": [ \"%s\" ],"
		" \"policies\": [ \"lifo\" ], \"output\": \"out2\" }", plugin);
	put("b.json", text);
	free(text);
	expect_error("run b.json --quiet --no-plots", 0, "");
}

Test(cli, bad_plugins_are_refused_with_a_reason)
{
	put("t.swf", trace3);
	experiment("a.json", "\"fcfs\"", "");
	put("not.so", "this is not a shared object\n");
	expect_error("run a.json --plugin ./not.so", 2,
		     "./not.so: cannot load plug-in");
	expect_error("run a.json --plugin ./absent.so", 2,
		     "./absent.so: cannot load plug-in");
	/* A real shared object that is not a policy. */
	char *args = xasprintf("run a.json --plugin %s",
			       "/lib/x86_64-linux-gnu/libz.so.1");
	if (access("/lib/x86_64-linux-gnu/libz.so.1", R_OK) == 0)
		expect_error(args, 2, "not a clustersim policy: no "
			     "'clustersim_policy' symbol");
	free(args);
	/* A policy built for version 1 of the ABI: refused by name, with
	 * its version and the one needed, before any of its code runs (its
	 * schedule() traps). */
	char *path = plugin_beside("bad_abi_plugin.so");
	char *want = xasprintf("%s: built for policy ABI version 1, this "
			       "clustersim needs version 2", path);
	args = xasprintf("run a.json --plugin '%s'", path);
	expect_error(args, 2, want);
	free(args);
	args = xasprintf("policies --plugin '%s'", path);
	expect_error(args, 2, want);
	free(args);
	free(want);
	free(path);
}

Test(cli, a_plugin_with_a_shorter_table_loads_without_its_later_fields)
{
	/* Its size stops before job_started: the fields past it in the
	 * object (traps) are not read, so the run, which starts jobs,
	 * succeeds. */
	put("t.swf", trace3);
	experiment("a.json", "\"short_table\"", "");
	char *path = plugin_beside("short_table_plugin.so");
	char *args = xasprintf("run a.json --plugin '%s' --quiet --no-plots",
			       path);
	expect_error(args, 0, "");
	free(args);
	char *jobs = slurp("out/short_table-s1/jobs.csv");
	cr_assert(jobs);
	cr_expect(strstr(jobs, "\n2,1,10,20,"), "%s", jobs); /* fcfs */
	free(jobs);
	free(path);
}

Test(cli, the_loader_reads_a_shorter_table_no_further_than_its_size)
{
	char *path = plugin_beside("short_table_plugin.so");
	struct registry r;
	struct sim_error err = { .msg = "" };
	const struct policy_ops *ops = NULL;
	registry_init(&r);
	int rc = registry_load_plugin(&r, path, &ops, NULL, &err);
	cr_assert_eq(rc, 0, "%s", err.msg);
	cr_expect_str_eq(ops->name, "short_table");
	cr_expect(ops->schedule);
	cr_expect_null(ops->job_started);
	cr_expect_null(ops->job_preempted);
	cr_expect_eq(ops->state_size, 0);
	cr_expect(registry_find(&r, "short_table") == ops);
	registry_release(&r);
	free(path);
}

/* A plug-in named like a built-in is refused by name; the message is
 * made before the plug-in is unloaded (it used to read the name after). */
Test(cli, the_loader_refuses_a_plugin_that_takes_a_builtin_name)
{
	static const char *const files[] = { "clash_plugin.so",
					     "clash_score_plugin.so" };
	static const char *const names[] = { "fcfs", "fgd" };
	for (size_t i = 0; i < 2; i++) {
		char *path = plugin_beside(files[i]);
		struct registry r;
		struct sim_error err = { .msg = "" };
		const struct policy_ops *ops = NULL;
		const struct score_ops *sops = NULL;
		registry_init(&r);
		int rc = registry_load_plugin(&r, path, &ops, &sops, &err);
		cr_expect_neq(rc, 0);
		cr_expect_null(ops);
		cr_expect_null(sops);
		char *want = xasprintf("named '%s' already exists", names[i]);
		cr_expect(strstr(err.msg, path) && strstr(err.msg, want),
			  "%s", err.msg);
		free(want);
		registry_release(&r);
		free(path);
	}
}

/* A fill experiment on two 2-GPU nodes and two 0.5-GPU pods. */
static void fill_experiment(const char *name, const char *policies)
{
	put("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			 "n0,8000,1000,2,V100\nn1,8000,1000,2,V100\n");
	put("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
			"p0,1000,10,1,500\np1,1000,10,1,500\n");
	char *text = xasprintf(
		"{ \"fill\": { \"nodes\": \"nodes.csv\", \"pods\": "
		"\"pods.csv\" },\n  \"policies\": [ %s ],\n"
		"  \"output\": \"out\" }\n", policies);
	put(name, text);
	free(text);
}

/* Every string a plot script gets goes through one quoting helper
 * (plot_def): an experiment's output folder and its pod list's name that
 * carry gnuplot commands are drawn under their names, and nothing runs.
 * Before, the fill plots took them inside '%s' as written. */
Test(cli, no_gnuplot_command_runs_from_an_output_or_a_pod_list_name)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
	put("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\n"
			 "n0,8000,1000,2,V100\n");
	put("p';system('touch pwned-list');x='.csv",
	    "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
	    "p0,1000,10,1,500\n");
	put("f.json", "{ \"fill\": { \"nodes\": \"nodes.csv\", \"pods\": "
		      "\"p';system('touch pwned-list');x='.csv\" },\n"
		      "  \"policies\": [ \"bestfit\" ],\n"
		      "  \"output\": \"o';system('touch pwned-out');x='\" }\n");
	expect_error("run f.json --quiet", 0, "");
	char *p1 = xasprintf("%s/pwned-out", tmp);
	char *p2 = xasprintf("%s/pwned-list", tmp);
	char *png = xasprintf("%s/o';system('touch pwned-out');x='/plots/"
			      "fill_alloc-p';system('touch pwned-list');"
			      "x='.png", tmp);
	cr_expect_eq(access(p1, F_OK), -1, "the output's command ran");
	cr_expect_eq(access(p2, F_OK), -1, "the pod list's command ran");
	cr_expect_eq(access(png, F_OK), 0, "no plot at %s", png);
	free(png);
	free(p2);
	free(p1);
}

/* The same for `clustersim optimize`'s convergence plot, which wrote its
 * results folder into a script of its own (set output '%s/...'). */
Test(cli, no_gnuplot_command_runs_from_an_optimize_folder)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
	put("t.swf", trace3);
	put("o.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] },\n"
		      "  \"workload\": { \"trace\": \"t.swf\" },\n"
		      "  \"policies\": [ \"fcfs\" ],\n"
		      "  \"optimize\": { \"jobs\": 3, \"methods\": [ \"greedy\", "
		      "\"ga\", \"sa\" ], \"evals\": 200 } }\n");
	expect_error("optimize o.json --quiet -o \"o';system('touch pwned');"
		     "x='\"", 0, "");
	char *p1 = xasprintf("%s/pwned", tmp);
	char *png = xasprintf("%s/o';system('touch pwned');x='/optimize/"
			      "convergence.png", tmp);
	cr_expect_eq(access(p1, F_OK), -1, "the folder's command ran");
	cr_expect_eq(access(png, F_OK), 0, "no plot at %s", png);
	free(png);
	free(p1);
}

/* Score plugins place pods in fill and replay experiments, job policies
 * run the event engine: naming one where the other belongs is an error at
 * its JSON path, before anything runs. */
Test(cli, score_plugins_and_job_policies_keep_to_their_experiments)
{
	put("t.swf", trace3);
	experiment("a.json", "\"fcfs\", \"fgd\"", "");
	expect_error("run a.json", 2, "a.json: $.policies[1]: 'fgd' is a "
		     "score plugin, for fill and replay experiments");
	expect_error("validate a.json", 2, "$.policies[1]: 'fgd' is a score "
		     "plugin");
	cr_expect_eq(access("out", F_OK), -1);
	fill_experiment("f.json", "\"bestfit\", \"easy\"");
	expect_error("run f.json", 2, "f.json: $.policies[1]: policy 'easy' "
		     "is not a GPU-sharing score plugin (a fill experiment "
		     "needs one of ");
	fill_experiment("g.json", "{ \"name\": \"bestfit\", \"params\": "
			"{ \"placement\": \"spread\" } }");
	expect_error("run g.json", 2, "g.json: $.policies[0].params.placement: "
		     "score plugin 'bestfit' has no parameter 'placement'");
	fill_experiment("h.json", "\"bestfit\", \"fgd\"");
	expect_error("run h.json --quiet --no-plots", 0, "");
	char *csv = slurp("out/fill_summary.csv");
	cr_assert(csv);
	cr_expect(strstr(csv, "\nbestfit,bestfit,pods,1,"), "%s", csv);
	free(csv);
	/* `clustersim policies`: score plugins in their own section. */
	expect_error("policies", 0, "");
	char *out = slurp("out.txt");
	const char *sect = strstr(out, "\nscore plugins");
	cr_assert(sect, "%s", out);
	const char *fgd = strstr(out, "\nfgd ");
	cr_expect(fgd && fgd > sect, "%s", out);
	cr_expect(strstr(out, "\neasy ") < sect, "%s", out);
	free(out);
}

/* A score plugin as a plug-in: loaded by --plugin and named, or named by
 * its file; one of another version is refused before it runs. */
Test(cli, score_plugin_plugins)
{
	char *so = plugin_beside("example_score.so");
	char *bad = plugin_beside("bad_score_plugin.so");
	fill_experiment("f.json", "\"emptiest\"");
	char *args = xasprintf("run f.json --plugin '%s' --quiet --no-plots",
			       so);
	expect_error(args, 0, "");
	free(args);
	/* Two 0.5-GPU pods, the emptiest node each time: n0, then n1. */
	char *csv = slurp("out/emptiest-pods-s1/fill.csv");
	cr_assert(csv);
	free(csv);
	char *pl = xasprintf("\"%s\"", so);
	fill_experiment("g.json", pl);
	free(pl);
	expect_error("run g.json --quiet --no-plots", 0, "");
	args = xasprintf("policies --plugin '%s'", so);
	expect_error(args, 0, "");
	free(args);
	char *out = slurp("out.txt");
	const char *sect = strstr(out, "\nscore plugins");
	const char *mine = strstr(out, "\nemptiest ");
	cr_expect(sect && mine > sect, "%s", out);
	cr_expect(strstr(out, "(normalized)"), "%s", out);
	free(out);
	args = xasprintf("run f.json --plugin '%s'", bad);
	expect_error(args, 2, "bad_score_plugin.so: built for score-plugin "
		     "version 2, this clustersim has version 1");
	free(args);
	free(so);
	free(bad);
}

Test(cli, jobs_that_never_fit_are_rejected_with_a_warning)
{
	/* A 2-CPU job on a 1-CPU cluster: rejected, counted, said, and
	 * written with no start; the run itself succeeds. */
	put("t.swf", "; MaxProcs: 1\n"
		     "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
		     "2 1 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n");
	experiment("a.json", "\"fcfs\"", "");
	expect_error("run a.json --no-plots", 0,
		     "fcfs: 1 jobs can never fit on the cluster and were "
		     "rejected (the largest, job 2, asks 2 CPUs of 1)");
	char *jobs = slurp("out/fcfs-s1/jobs.csv");
	cr_assert(jobs);
	cr_expect(strstr(jobs, "\n2,1,,,,,,,,2,10,1,1,rejected,0,,,0,0,,,,,,,1,\n"), "%s", jobs);
	free(jobs);
	char *sum = slurp("out/summary.csv");
	cr_assert(sum);
	cr_expect(strstr(sum, "fcfs,fcfs,t.swf,1,2,1,0,1,"), "%s", sum);
	free(sum);
}

Test(cli, a_workload_left_empty_is_an_error)
{
	put("t.swf", trace3);
	experiment("a.json", "\"fcfs\"", ", \"window\": { \"start\": 100 }");
	expect_error("run a.json", 2, "t.swf: no job left to run: of 3 job "
		     "lines, the dropping rules, the window and the limit "
		     "removed all");
}

/* Throughput overrides: a bad one exits 2 with its JSON path; a good one
 * is recorded in the manifest under the class's exact name. */
Test(cli, throughput_overrides_checked_and_recorded)
{
	put("t.swf", trace3);
	put("a.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": "
		      "\"t.swf\" }, \"policies\": [ \"fcfs\" ], "
		      "\"throughputs\": { \"resnet50\": { \"a100\": 3 } } }");
	expect_error("validate a.json", 2,
		     "a.json: $.throughputs.resnet50.a100: unknown gpu type "
		     "'a100'");
	put("b.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": "
		      "\"t.swf\" }, \"policies\": [ \"fcfs\" ], "
		      "\"throughputs\": { \"resnet50\": { \"k80\": -1 } } }");
	expect_error("run b.json -o r --no-plots", 2,
		     "b.json: $.throughputs.resnet50.k80: must be > 0, got "
		     "'-1'");
	put("c.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
		      "\"cpus\": 1 } ] }, \"workload\": { \"trace\": "
		      "\"t.swf\" }, \"policies\": [ \"fcfs\" ], "
		      "\"throughputs\": { \"resnet50\": { \"k80\": 2.5 } } }");
	char *err;
	cr_assert_eq(cli(&err, "run c.json -o r --quiet --no-plots"), 0, "%s",
		     err);
	free(err);
	char *manifest = slurp("r/manifest.json");
	cr_assert(manifest);
	const char *at = strstr(manifest, "\"throughputs\":");
	cr_assert(at, "%s", manifest);
	at = strstr(at, "\"ResNet-50 (batch size 64)\":");
	cr_assert(at, "%s", manifest);
	cr_expect(strstr(at, "\"k80\":\t2.5"), "%s", manifest);
	free(manifest);
}

/* A shaped job whose tensor-parallel group is wider than every node
 * exits 2 naming the job; a shape that fits runs under either placement,
 * the shape-blind one named as the placement parameter. */
Test(cli, shaped_job_wider_than_a_node_exits_2)
{
	put("s.csv", "id,submit,run,cpus,gpus,tp,pp\n1,0,10,0,16,16,1\n");
	put("ok.csv", "id,submit,run,cpus,gpus,tp,pp\n1,0,10,0,16,4,2\n");
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 2, "
		      "\"cpus\": 8, \"gpus\": 8 } ] }, \"workload\": { "
		      "\"trace\": \"s.csv\", \"format\": \"csv\" }, "
		      "\"policies\": [ \"fcfs\" ] }");
	expect_error("run s.json -o r --quiet --no-plots", 2,
		     "s.json: $.workload: job 1 asks tp '16', more GPUs than "
		     "any node of its type has ('8'): a tensor-parallel group "
		     "is kept inside one node");
	put("ok.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 2, "
		       "\"cpus\": 8, \"gpus\": 8 } ] }, \"workload\": { "
		       "\"trace\": \"ok.csv\", \"format\": \"csv\" }, "
		       "\"policies\": [ \"fcfs\", { \"name\": \"fcfs\", "
		       "\"label\": \"blind\", \"params\": { \"placement\": "
		       "\"shape_blind\" } } ] }");
	char *err;
	cr_expect_eq(cli(&err, "run ok.json -o r --quiet --no-plots"), 0, "%s",
		     err);
	free(err);
}

/* A large-model job that fits no GPU type exits 2 with its memory; a
 * model of the root "models" table with a bad figure names its JSON
 * path; one that fits runs. */
Test(cli, model_that_fits_no_gpu_type_exits_2)
{
	put("m.csv", "id,submit,run,cpus,gpus,tp,pp,model\n"
		     "1,0,10,0,16,8,2,gpt3-175b\n");
	put("ok.csv", "id,submit,run,cpus,gpus,tp,pp,model\n"
		      "1,0,10,0,16,8,2,tiny\n");
	const char *head = "{ \"cluster\": { \"nodes\": [ { \"count\": 2, "
			   "\"cpus\": 8, \"gpus\": 8, \"gpu_type\": "
			   "\"a100-80gb\" } ] }, \"policies\": [ \"fcfs\" ], "
			   "\"workload\": { \"format\": \"csv\", "
			   "\"reference_gpu\": \"a100-80gb\", \"trace\": ";
	char *text = xasprintf("%s\"m.csv\" } }", head);
	put("m.json", text);
	free(text);
	expect_error("run m.json -o r --quiet --no-plots", 2,
		     "m.json: $.workload: job 1 (model 'gpt3-175b', dp 1 x tp "
		     "8 x pp 2) needs ");
	text = xasprintf("%s\"ok.csv\" }, \"models\": { \"tiny\": { "
			 "\"like\": \"gpt3-1.3b\", \"heads\": 0 } } }", head);
	put("b.json", text);
	free(text);
	expect_error("run b.json -o r --quiet --no-plots", 2,
		     "b.json: $.models.tiny.like: unknown model 'gpt3-1.3b'");
	text = xasprintf("%s\"ok.csv\" }, \"models\": { \"tiny\": { "
			 "\"like\": \"gpt3-xl\", \"zero_stage\": 1 } } }",
			 head);
	put("ok.json", text);
	free(text);
	char *err;
	cr_expect_eq(cli(&err, "run ok.json -o r --quiet --no-plots"), 0, "%s",
		     err);
	free(err);
}

/* The bad shapes at the command line, each exit 2 with where and
 * why: a shape whose product is not the job's GPUs (2 x 4 x 2 = 16 on 8
 * GPUs: the trace's line), and tp 16 on nodes of 8 GPUs (the JSON path
 * and the job). */
Test(cli, bad_shapes_exit_2)
{
	put("p.csv", "id,submit,run,cpus,gpus,dp,tp,pp,model\n"
		     "1,0,10,0,8,2,4,2,gpt3-xl\n");
	put("t.csv", "id,submit,run,cpus,gpus,tp,pp,model\n"
		     "1,0,10,0,16,16,1,gpt3-2.7b\n");
	const char *head = "{ \"cluster\": { \"nodes\": [ { \"count\": 2, "
			   "\"cpus\": 8, \"gpus\": 8, \"gpu_type\": "
			   "\"a100-80gb\" } ] }, \"policies\": [ \"fcfs\" ], "
			   "\"workload\": { \"format\": \"csv\", "
			   "\"reference_gpu\": \"a100-80gb\", \"trace\": ";
	char *text = xasprintf("%s\"p.csv\" } }", head);
	put("p.json", text);
	free(text);
	expect_error("run p.json -o r --quiet --no-plots", 2,
		     "p.csv:2: dp x tp x pp is not the job's gpus: "
		     "'2 x 4 x 2' != '8'");
	text = xasprintf("%s\"t.csv\" } }", head);
	put("t.json", text);
	free(text);
	expect_error("run t.json -o r --quiet --no-plots", 2,
		     "t.json: $.workload: job 1 asks tp '16', more GPUs than "
		     "any node of its type has ('8'): a tensor-parallel group "
		     "is kept inside one node");
}

/* A GPU job of no class draws one of Gavel's, which has no figure on an
 * A100 under "derive_throughputs": "none": refused at the run (exit 2);
 * by default the figure is derived and the manifest lists it. */
Test(cli, derive_none_refuses_and_derived_figures_are_listed)
{
	put("g.csv", "id,submit,run,cpus,gpus\n1,0,100,0,1\n");
	const char *head = "{ \"cluster\": { \"nodes\": [ { \"count\": 1, "
			   "\"cpus\": 4, \"gpus\": 4, \"gpu_type\": "
			   "\"a100-80gb\" } ] }, \"workload\": { \"trace\": "
			   "\"g.csv\", \"format\": \"csv\" }, "
			   "\"policies\": [ \"fcfs\" ]";
	char *text = xasprintf("%s, \"derive_throughputs\": \"none\" }", head);
	put("n.json", text);
	free(text);
	expect_error("run n.json -o r --no-plots", 2,
		     "n.json: $.derive_throughputs: job class 'ResNet-18 "
		     "(batch size 16)' has no throughput on gpu type "
		     "'a100-80gb'");
	text = xasprintf("%s }", head);
	put("d.json", text);
	free(text);
	char *err;
	cr_assert_eq(cli(&err, "run d.json -o r --quiet --no-plots"), 0, "%s",
		     err);
	free(err);
	char *manifest = slurp("r/manifest.json");
	cr_assert(manifest);
	const char *at = strstr(manifest, "\"derived_throughputs\":");
	cr_assert(at, "%s", manifest);
	cr_expect(strstr(at, "\"source_type\":\t\"v100\""), "%s", manifest);
	cr_expect(strstr(at, "\"rule\":\t\"fp32_membw\""), "%s", manifest);
	free(manifest);
}
