/*
 * Sweeps: axis expansion and run labels (in process), and the drivers as
 * a user runs them ($CLUSTERSIM_BIN): -j 1, -j 2, --shard I/3 + merge and
 * mpirun give byte-identical summary.csv; a killed sweep resumes where it
 * stopped; a failing run is recorded while the others complete; a
 * single-node Slurm runs a 4-task array (skipped, saying why, where Slurm
 * cannot start).  Expected metrics are worked out by hand on a 3-job
 * trace.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep/sweep.h"
#include "base/util.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "sweep");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}

static void need_bin(void)
{
	tl_cli_need_bin(bin);
}
/* Files and commands in tmp (testlib.h). */
#define put(name, text) tl_put(tmp, name, text)

#define slurp(name) tl_slurp(tmp, name)

/* Runs a shell command in tmp with stdout and stderr to out.txt and
 * err.txt; returns the exit code. */
#define sh(...) tl_sh(tmp, __VA_ARGS__)

/* Three jobs on one CPU: submitted at 0, 1 and 2 s, 10 s each. */
static const char trace3[] =
	"; MaxProcs: 1\n"
	"; MaxNodes: 1\n"
	"1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 2 -1 10 1 -1 -1 1 10 -1 1 2 1 -1 -1 -1 -1 -1\n";

/* 16 short runs: 2 load scales x 2 cluster sizes x 2 policies x 2 seeds. */
static const char gen16[] =
	"{ \"cluster\": { \"nodes\": [ { \"name\": \"cpu\", \"count\": 8, "
	"\"cpus\": 4 } ] },\n"
	"  \"workload\": { \"generate\": { \"jobs\": 300,\n"
	"    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 60 },\n"
	"    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 6, \"sigma\": 1 },\n"
	"    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"
	"  \"policies\": [ \"fcfs\", \"easy\" ], \"seeds\": [ 1, 2 ],\n"
	"  \"output\": \"out\",\n"
	"  \"sweep\": { \"workload.load_scale\": [ 0.5, 1 ],\n"
	"             \"cluster.nodes[0].count\": [ 8, 16 ] } }\n";

TestSuite(sweep, .init = setup, .fini = teardown);

/* ---- expansion and labels (in process) -------------------------------- */

static void load_text(const char *text, struct sweep *sw, int want_rc,
		      struct sim_error *err)
{
	put("t.swf", trace3);
	put("s.json", text);
	char *path = xasprintf("%s/s.json", tmp);
	int rc = sweep_load(path, sw, err);
	free(path);
	cr_assert_eq(rc < 0, want_rc < 0, "rc %d: %s", rc, err->msg);
}

Test(sweep, axes_expand_in_odometer_order_with_labels)
{
	struct sweep sw;
	struct sim_error err = { .msg = "" };
	load_text("{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		  " \"workload\": { \"trace\": \"t.swf\" },"
		  " \"policies\": [ \"fcfs\", { \"name\": \"easy\", \"label\": \"e2\" } ],"
		  " \"seeds\": [ 7 ],"
		  " \"sweep\": { \"workload.load_scale\": [ 0.5, 2 ],"
		  "  \"$.cluster.nodes[0].count\": [ 1, 3 ] } }", &sw, 0, &err);
	/* 2 x 2 points x 2 policies x 1 seed. */
	cr_assert_eq(sw.naxes, 2);
	cr_assert_eq(sw.npoints, 4);
	cr_assert_eq(sw.nruns, 8);
	cr_expect_str_eq(sw.axes[0].name, "load_scale");
	cr_expect_str_eq(sw.axes[1].name, "count");
	cr_expect_str_eq(sw.axes[1].path, "cluster.nodes[0].count");
	/* The last axis turns fastest; policies inside a point. */
	static const char *const dirs[] = {
		"fcfs+load_scale=0.5+count=1-s7", "e2+load_scale=0.5+count=1-s7",
		"fcfs+load_scale=0.5+count=3-s7", "e2+load_scale=0.5+count=3-s7",
		"fcfs+load_scale=2+count=1-s7", "e2+load_scale=2+count=1-s7",
		"fcfs+load_scale=2+count=3-s7", "e2+load_scale=2+count=3-s7",
	};
	for (size_t k = 0; k < 8; k++) {
		cr_expect_str_eq(sw.runs[k].dir, dirs[k]);
		cr_expect_eq(sw.runs[k].point, k / 2);
		cr_expect_eq(sw.runs[k].seed, 7);
	}
	cr_expect_str_eq(sw.runs[1].policy, "easy");
	cr_expect_str_eq(sw.runs[1].plabel, "e2");
	/* Point 2 = (load_scale 2, count 1): the values are in the tree. */
	cr_expect_eq(sweep_point_value(&sw, 2, 0), 1);
	cr_expect_eq(sweep_point_value(&sw, 2, 1), 0);
	char *json = sweep_point_json(&sw, 3, &err);
	cr_assert(json);
	cr_expect(strstr(json, "\"load_scale\":2"), "%s", json);
	cr_expect(strstr(json, "\"count\":3"), "%s", json);
	cr_expect(!strstr(json, "sweep"), "%s", json);
	free(json);
	sweep_release(&sw);
}

Test(sweep, clashing_short_names_use_whole_paths_and_values_are_cleaned)
{
	struct sweep sw;
	struct sim_error err = { .msg = "" };
	load_text("{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 },"
		  " { \"name\": \"b\", \"count\": 1, \"cpus\": 1 } ] },"
		  " \"workload\": { \"trace\": \"t.swf\" },"
		  " \"policies\": [ \"fcfs\" ],"
		  " \"sweep\": { \"cluster.nodes[0].count\": [ 2 ],"
		  "  \"cluster.nodes[1].count\": [ 4 ],"
		  "  \"cluster.nodes[1].name\": [ \"a b/c\" ] } }", &sw, 0, &err);
	cr_assert_eq(sw.nruns, 1);
	cr_expect_str_eq(sw.runs[0].label, "fcfs+cluster.nodes.0.count=2+"
			 "cluster.nodes.1.count=4+name=a_b_c");
	sweep_release(&sw);
}

/* A number's label is its shortest text that reads back the same:
 * 7680 and 1000, not 7.68e+03 and 1e+03 (which read back too), and
 * 2.5e-07 where that is shorter than 0.00000025. */
Test(sweep, number_labels_are_their_shortest_text)
{
	struct sweep sw;
	struct sim_error err = { .msg = "" };
	load_text("{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		  " \"workload\": { \"trace\": \"t.swf\" },"
		  " \"policies\": [ \"fcfs\" ],"
		  " \"sweep\": { \"workload.limit\": [ 7680, 1000, 123456789 ],"
		  "  \"workload.load_scale\": [ 2.5e-7 ] } }", &sw, 0, &err);
	cr_assert_eq(sw.nruns, 3);
	cr_expect_str_eq(sw.runs[0].label, "fcfs+limit=7680+load_scale=2.5e-07");
	cr_expect_str_eq(sw.runs[1].label, "fcfs+limit=1000+load_scale=2.5e-07");
	cr_expect_str_eq(sw.runs[2].label,
			 "fcfs+limit=123456789+load_scale=2.5e-07");
	sweep_release(&sw);
}

Test(sweep, a_file_without_sweep_is_one_point)
{
	struct sweep sw;
	struct sim_error err = { .msg = "" };
	load_text("{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		  " \"workload\": { \"trace\": \"t.swf\" },"
		  " \"policies\": [ \"fcfs\", \"easy\" ], \"seeds\": [ 1, 2 ] }",
		  &sw, 0, &err);
	cr_assert_eq(sw.npoints, 1);
	cr_assert_eq(sw.nruns, 4);
	cr_expect_str_eq(sw.runs[0].dir, "fcfs-s1");
	cr_expect_str_eq(sw.runs[3].dir, "easy-s2");
	sweep_release(&sw);
}

static void expect_load_error(const char *sweep, const char *needle)
{
	struct sweep sw;
	struct sim_error err = { .msg = "" };
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		" \"workload\": { \"trace\": \"t.swf\" },"
		" \"policies\": [ \"fcfs\" ], \"sweep\": %s }", sweep);
	load_text(text, &sw, -1, &err);
	cr_expect(strstr(err.msg, needle), "sweep %s: '%s' lacks '%s'", sweep,
		  err.msg, needle);
	free(text);
}

Test(sweep, bad_axes_are_named_by_their_json_path)
{
	/* Checked by the experiment loader, at the axis's own path. */
	expect_load_error("{ \"workload.load_scal\": [ 1 ] }",
			  "s.json: $.workload: unknown key 'load_scal' (did "
			  "you mean 'load_scale'?) (sweep point load_scal=1)");
	expect_load_error("{ \"workload.load_scale\": [ 1, -1 ] }",
			  "$.workload.load_scale");
	expect_load_error("{ \"workload.load_scale\": [ 1, -1 ] }",
			  "(sweep point load_scale=-1)");
	expect_load_error("{ \"cluster.nodes[3].count\": [ 1 ] }",
			  "$.sweep['cluster.nodes[3].count']: "
			  "'$.cluster.nodes[3]' is not in the file");
	expect_load_error("{ \"workload.load_scale\": 2 }",
			  "$.sweep['workload.load_scale']: expected an array "
			  "of values");
	expect_load_error("{ \"workload.load_scale\": [] }",
			  "$.sweep['workload.load_scale']");
	expect_load_error("{ \"seeds\": [ [1], [2] ] }",
			  "$.sweep.seeds: cannot be swept");
	expect_load_error("{ \"a..b\": [ 1 ] }", "not a JSON path");
	expect_load_error("{ \"workload.load_scale\": [ 1, 1.0 ] }",
			  "values 1 and 2 have the same label '1'");
	expect_load_error("[ 1 ]", "$.sweep: expected an object");
}

/* ---- the drivers (the binary) ----------------------------------------- */

Test(sweep, run_refuses_a_sweep_file_and_validate_checks_every_point)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ],"
		      " \"sweep\": { \"cluster.nodes[0].count\": [ 1, 0 ] } }");
	cr_expect_eq(sh("'%s' run s.json", bin), 2);
	char *err = slurp("err.txt");
	cr_expect(strstr(err, "$.sweep: this file is a sweep"), "%s", err);
	free(err);
	cr_expect_eq(sh("'%s' validate s.json", bin), 2);
	err = slurp("err.txt");
	cr_expect(strstr(err, "$.cluster.nodes[0].count") &&
		  strstr(err, "(sweep point count=0)"), "%s", err);
	free(err);
}

/* A sweep axis naming a parameter the policy does not declare is an error
 * of validate and --dry-run, at the point's JSON path, before anything
 * runs (it used to be found only when a run started).  The name is one
 * that would run a command in a gnuplot script. */
Test(sweep, validate_checks_the_parameters_a_sweep_axis_names)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ { \"name\": \"fcfs\" } ],"
		      " \"output\": \"out\","
		      " \"sweep\": { \"policies[0].params.`touch pwned`\": [ 1, 2 ] } }");
	static const char *const cmds[] = { "validate s.json",
					    "sweep --dry-run s.json" };
	for (size_t i = 0; i < 2; i++) {
		cr_expect_eq(sh("'%s' %s", bin, cmds[i]), 2, "%s", cmds[i]);
		char *err = slurp("err.txt");
		cr_expect(strstr(err, "has no parameter '`touch pwned`'") &&
			  strstr(err, "(sweep point "), "%s: %s", cmds[i], err);
		free(err);
	}
	char *pw = xasprintf("%s/pwned", tmp);
	cr_expect_eq(access(pw, F_OK), -1);
	free(pw);
}

/* `clustersim merge` draws the sweep plot from the manifest's axis
 * names: one edited to carry a backquoted command is drawn as text, and
 * the command does not run (the names were written inside double quotes,
 * where gnuplot runs backquotes). */
Test(sweep, merge_runs_no_command_from_an_edited_manifest)
{
	need_bin();
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		cr_skip_test("gnuplot is not installed");
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"output\": \"out\","
		      " \"sweep\": { \"cluster.nodes[0].count\": [ 1, 2 ] } }");
	cr_assert_eq(sh("'%s' sweep s.json -j 1 --quiet", bin), 0);
	char *m = slurp("out/manifest.json");
	cr_assert(m);
	char *at = strstr(m, "\"name\":\t\"count\"");
	cr_assert(at, "%s", m);
	char *edited = xasprintf("%.*s\"name\":\t\"c`touch pwned`\"%s",
				 (int)(at - m), m,
				 at + strlen("\"name\":\t\"count\""));
	put("out/manifest.json", edited);
	char *png = xasprintf("%s/out/plots/sweep.png", tmp);
	cr_assert_eq(unlink(png), 0);
	cr_expect_eq(sh("'%s' merge out", bin), 0);
	char *pw = xasprintf("%s/pwned", tmp);
	cr_expect_eq(access(pw, F_OK), -1, "the manifest's command ran");
	cr_expect_eq(access(png, F_OK), 0, "no sweep plot");
	free(pw);
	free(png);
	free(edited);
	free(m);
}

/* The #SBATCH lines quote their values as sbatch reads them: a space in
 * the results folder does not split --output, a % there is doubled (sbatch
 * expands %a, %j, ...) and a # is no comment; a value no line can hold
 * (a newline) is refused instead of becoming a line of its own. */
Test(sweep, slurm_scripts_quote_every_value)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"name\": \"a \\\"b\\\"\","
		      " \"sweep\": { \"cluster.nodes[0].count\": [ 1, 2 ] } }");
	cr_assert_eq(sh("'%s' sweep --slurm s.json -o 'o ut%%x' "
			"--partition 'p#1'", bin), 0, "%s", slurp("err.txt"));
	char *script = slurp("o ut%x/slurm/sweep.sbatch");
	cr_assert(script);
	char *want = xasprintf("#SBATCH --output=\"%s/o ut%%%%x/slurm/"
			       "task-%%a.log\"\n", tmp);
	cr_expect(strstr(script, "#SBATCH --job-name=\"a \\\"b\\\"\"\n") &&
		  strstr(script, "#SBATCH --partition=\"p#1\"\n") &&
		  strstr(script, want), "%s", script);
	free(want);
	free(script);
	cr_expect_eq(sh("'%s' sweep --slurm s.json -o \"$(printf 'o\\nut')\"",
			bin), 2);
	char *err = slurp("err.txt");
	cr_expect(strstr(err, "an #SBATCH line cannot hold"), "%s", err);
	free(err);
}

/* The value of column col (by header name) in row `row` (1-based) of a
 * CSV text without quoted commas; the caller frees. */
static char *cell(const char *csv, const char *col, int row)
{
	char *t = xstrdup(csv), *save = NULL;
	char *lines[64];
	int n = 0;
	for (char *l = strtok_r(t, "\n", &save); l && n < 64;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	cr_assert(row < n, "no row %d", row);
	int c = 0, want = -1;
	for (char *p = lines[0]; p; p = strchr(p, ','), c++) {
		p += *p == ',';
		size_t k = strcspn(p, ",");
		if (k == strlen(col) && !strncmp(p, col, k))
			want = c;
	}
	cr_assert(want >= 0, "no column %s", col);
	char *p = lines[row];
	for (int i = 0; i < want; i++)
		p = strchr(p, ',') + 1;
	char *v = xasprintf("%.*s", (int)strcspn(p, ","), p);
	free(t);
	return v;
}

Test(sweep, rows_carry_the_axis_values_and_hand_worked_metrics)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"output\": \"out\","
		      " \"sweep\": { \"cluster.nodes[0].count\": [ 1, 3 ] } }");
	cr_assert_eq(sh("'%s' sweep s.json -j 2 --no-plots", bin), 0);
	char *csv = slurp("out/summary.csv");
	cr_assert(csv);
	cr_expect(!strncmp(csv, "label,policy,workload,seed,"
			   "cluster.nodes[0].count,jobs,", 45), "%s", csv);
	/* One CPU: the jobs wait 0, 10-1 and 20-2 s: mean 9.  Three CPUs:
	 * none waits. */
	char *v;
	cr_expect_str_eq(v = cell(csv, "label", 1), "fcfs+count=1"); free(v);
	cr_expect_str_eq(v = cell(csv, "cluster.nodes[0].count", 1), "1"); free(v);
	cr_expect_str_eq(v = cell(csv, "wait_mean", 1), "9"); free(v);
	cr_expect_str_eq(v = cell(csv, "label", 2), "fcfs+count=3"); free(v);
	cr_expect_str_eq(v = cell(csv, "cluster.nodes[0].count", 2), "3"); free(v);
	cr_expect_str_eq(v = cell(csv, "wait_mean", 2), "0"); free(v);
	/* The run folder says its label too. */
	char *js = slurp("out/fcfs+count=3-s1/summary.json");
	cr_assert(js);
	cr_expect(strstr(js, "\"label\":\t\"fcfs+count=3\""), "%s", js);
	free(js);
	free(csv);
}

/* The data rows of sweep.dat (comments skipped) begin with want[0..n). */
static void expect_rows(char *dat, const char *const *want, size_t n)
{
	size_t k = 0;
	for (char *l = strtok(dat, "\n"); l; l = strtok(NULL, "\n")) {
		if (*l == '#')
			continue;
		cr_assert_lt(k, n, "more rows than points: %s", l);
		cr_expect(!strncmp(l, want[k], strlen(want[k])),
			  "row %zu: '%s', want '%s...'", k, l, want[k]);
		k++;
	}
	cr_expect_eq(k, n);
}

/* Against one axis, a sweep of two draws one series per value of the
 * other (each point's band is over its seeds only): on one CPU the three
 * jobs wait 0, 9 and 18 s (mean 9), with the arrivals twice as dense 0,
 * 9.5 and 19 s (mean 9.5); on three CPUs none waits. */
Test(sweep, plot_data_has_a_series_per_value_of_the_other_axis)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"seeds\": [ 1, 2 ],"
		      " \"output\": \"out\","
		      " \"sweep\": { \"cluster.nodes[0].count\": [ 1, 3 ],"
		      " \"workload.load_scale\": [ 1, 2 ] } }");
	cr_assert_eq(sh("'%s' sweep s.json -j 2 --no-plots", bin), 0);
	char *vars = slurp("out/plots/sweep_vars.gp");
	cr_assert(vars);
	cr_expect(strstr(vars, "nser = \"2 2\""), "%s", vars);
	cr_expect(strstr(vars, "stitles = 'fcfs+load_scale=1 "
			 "fcfs+load_scale=2 fcfs+count=1 fcfs+count=3'"),
		  "%s", vars);
	char *dat = slurp("out/plots/sweep.dat");
	cr_assert(dat);
	/* Blocks: count x (load_scale 1, 2), then load_scale x (count 1,
	 * 3); rows "x label mean min max ...". */
	static const char *const want[] = {
		"1 \"1\" 9 9 9 ", "3 \"3\" 0 0 0 ",
		"1 \"1\" 9.5 9.5 9.5 ", "3 \"3\" 0 0 0 ",
		"1 \"1\" 9 9 9 ", "2 \"2\" 9.5 9.5 9.5 ",
		"1 \"1\" 0 0 0 ", "2 \"2\" 0 0 0 " };
	expect_rows(dat, want, 8);
	free(dat);
	free(vars);
}

/* An axis of one value gets no row and no part in the series' titles:
 * it is named in the plot's title.  Count 1 and 3 at load_scale 2 (the
 * waits of the test above: 9.5 s on one CPU, 0 on three) make the only
 * row. */
Test(sweep, one_valued_axis_is_named_not_drawn)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\" ], \"seeds\": [ 1 ],"
		      " \"output\": \"out\","
		      " \"sweep\": { \"cluster.nodes[0].count\": [ 1, 3 ],"
		      " \"workload.load_scale\": [ 2 ] } }");
	cr_assert_eq(sh("'%s' sweep s.json --no-plots", bin), 0);
	char *vars = slurp("out/plots/sweep_vars.gp");
	cr_assert(vars);
	cr_expect(strstr(vars, "naxes = 1\n"), "%s", vars);
	cr_expect(strstr(vars, "axis_names = 'count'"), "%s", vars);
	cr_expect(strstr(vars, "nser = \"1\""), "%s", vars);
	cr_expect(strstr(vars, "stitles = 'fcfs'"), "%s", vars);
	cr_expect(strstr(vars, "fixed = 'load_scale=2'"), "%s", vars);
	char *dat = slurp("out/plots/sweep.dat");
	cr_assert(dat);
	static const char *const want[] = { "1 \"1\" 9.5 9.5 9.5 ",
					    "3 \"3\" 0 0 0 " };
	expect_rows(dat, want, 2);
	free(dat);
	free(vars);
}

/* Runs the 16-run sweep with ARGS into a fresh out/, returns summary.csv. */
static char *sweep16(const char *how)
{
	cr_assert_eq(sh("rm -rf out && %s", how), 0, "%s: %s", how,
		     slurp("err.txt"));
	char *csv = slurp("out/summary.csv");
	cr_assert(csv, "%s wrote no summary.csv", how);
	return csv;
}

Test(sweep, every_driver_gives_the_same_bytes)
{
	need_bin();
	put("g.json", gen16);
	char *cmd = xasprintf("'%s' sweep g.json -j 1 --no-plots -q", bin);
	char *ref = sweep16(cmd);
	free(cmd);
	/* 16 runs and a header. */
	size_t lines = 0;
	for (const char *p = ref; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 17);
	cmd = xasprintf("'%s' sweep g.json -j 2 --no-plots -q", bin);
	char *j2 = sweep16(cmd);
	free(cmd);
	cr_expect_str_eq(j2, ref);
	cmd = xasprintf("for i in 3 1 2; do '%s' sweep g.json --shard $i/3 "
			"-q || exit 1; done; '%s' merge out --no-plots", bin,
			bin);
	char *sh3 = sweep16(cmd);
	free(cmd);
	cr_expect_str_eq(sh3, ref);
	/* The point (load_scale 1, 16 nodes) equals a hand-written file. */
	char *one = xstrdup(gen16);
	*strstr(one, ",\n  \"sweep\"") = '\0';
	char *fixed = xasprintf("%s }\n", one);
	char *p = strstr(fixed, "\"count\": 8");
	memcpy(p, "\"count\":16", 10);
	p = strstr(fixed, "\"jobs\": 300,");
	memcpy(p, "\"jobs\":300, ", 12);
	put("h.json", fixed);
	free(one);
	free(fixed);
	/* load_scale 1 is the default. */
	cr_assert_eq(sh("'%s' run h.json -o hout --no-plots -q", bin), 0);
	char *h = slurp("hout/summary.csv");
	char *v1 = cell(ref, "wait_mean", 15), *v2 = cell(h, "wait_mean", 3);
	char *l1 = cell(ref, "label", 15);
	cr_expect_str_eq(l1, "easy+load_scale=1+count=16");
	cr_expect_str_eq(v1, v2);
	free(v1);
	free(v2);
	free(l1);
	free(h);
	free(sh3);
	free(j2);
	free(ref);
}

Test(sweep, mpirun_gives_the_same_bytes)
{
	need_bin();
	if (!sweep_have_mpi())
		cr_skip_test("built without the MPI driver (no mpicc when "
			     "built: apt-get install libopenmpi-dev)");
	if (system("command -v mpirun >/dev/null 2>&1") != 0)
		cr_skip_test("mpirun not found (apt-get install openmpi-bin)");
	put("g.json", gen16);
	char *cmd = xasprintf("'%s' sweep g.json -j 2 --no-plots -q", bin);
	char *ref = sweep16(cmd);
	free(cmd);
	/* As root Open MPI wants to be told; the leak checker of a
	 * sanitizer build would count Open MPI's own allocations. */
	cmd = xasprintf("ASAN_OPTIONS=detect_leaks=0 mpirun %s--oversubscribe "
			"-np 3 '%s' sweep g.json --no-plots -q",
			geteuid() == 0 ? "--allow-run-as-root " : "", bin);
	char *mpi = sweep16(cmd);
	free(cmd);
	cr_expect_str_eq(mpi, ref);
	char *out = slurp("out.txt");
	cr_expect(strstr(out, "16 runs: 16 ran, 0 skipped"), "%s", out);
	free(out);
	free(mpi);
	free(ref);
}

/* Complete run folders (with a manifest) under out/. */
static size_t complete_runs(void)
{
	char *path = xasprintf("%s/out", tmp);
	DIR *d = opendir(path);
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *m = xasprintf("%s/%s/manifest.json", path, de->d_name);
		n += access(m, R_OK) == 0 && strcmp(de->d_name, ".");
		free(m);
	}
	if (d)
		closedir(d);
	free(path);
	return n;
}

Test(sweep, a_killed_sweep_resumes_where_it_stopped)
{
	need_bin();
	/* Longer runs (9,999 jobs), so that the kill lands midway. */
	char *g = xstrdup(gen16);
	char *p = strstr(g, "\"jobs\": 300,");
	memcpy(p, "\"jobs\":9999,", 12);
	put("g.json", g);
	free(g);
	char *cmd = xasprintf("'%s' sweep g.json -j 1 --no-plots -q", bin);
	char *ref = sweep16(cmd);
	cr_assert_eq(sh("rm -rf out"), 0);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		cr_assert(chdir(tmp) == 0);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(bin, bin, "sweep", "g.json", "-j", "1", "--no-plots",
		      "-q", (char *)NULL);
		_exit(127);
	}
	setpgid(pid, pid);
	/* Kill the driver and its run process once 3 runs are complete. */
	while (complete_runs() < 3) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			cr_assert_fail("the sweep ended before it was killed");
		usleep(2000);
	}
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	size_t done = complete_runs();
	cr_assert(done >= 3 && done < 16, "%zu runs complete", done);
	cr_assert_eq(sh("%s", cmd), 0);
	char *out = slurp("out.txt");
	char *want = xasprintf("16 runs: %zu ran, %zu skipped", 16 - done,
			       done);
	cr_expect(strstr(out, want), "want '%s' in %s", want, out);
	char *csv = slurp("out/summary.csv");
	cr_expect_str_eq(csv, ref);
	free(csv);
	free(want);
	free(out);
	free(cmd);
	free(ref);
}

Test(sweep, a_failing_run_is_recorded_and_the_rest_complete)
{
	need_bin();
	put("t.swf", trace3);
	put("s.json", "{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		      " \"workload\": { \"trace\": \"t.swf\" },"
		      " \"policies\": [ \"fcfs\", \"easy\" ], \"output\": \"out\","
		      " \"sweep\": { \"workload.trace\": [ \"t.swf\", \"gone.swf\" ] } }");
	cr_assert_eq(sh("'%s' sweep s.json -j 2 --no-plots", bin), 1);
	char *err = slurp("err.txt");
	cr_expect(strstr(err, "2 runs failed"), "%s", err);
	cr_expect(strstr(err, "fcfs+trace=gone.swf-s1: ") &&
		  strstr(err, "gone.swf: cannot"), "%s", err);
	free(err);
	char *out = slurp("out.txt");
	cr_expect(strstr(out, "4 runs: 2 ran, 0 skipped (results already "
			  "there), 2 failed"), "%s", out);
	free(out);
	/* Both t.swf runs: mean wait 9 s (worked out above). */
	char *csv = slurp("out/summary.csv"), *v;
	cr_assert(csv);
	cr_expect_str_eq(v = cell(csv, "label", 1), "fcfs+trace=t.swf"); free(v);
	cr_expect_str_eq(v = cell(csv, "workload.trace", 1), "t.swf"); free(v);
	cr_expect_str_eq(v = cell(csv, "wait_mean", 1), "9"); free(v);
	cr_expect_str_eq(v = cell(csv, "label", 2), "easy+trace=t.swf"); free(v);
	cr_expect_str_eq(v = cell(csv, "wait_mean", 2), "9"); free(v);
	free(csv);
	char *failed = slurp("out/failed.csv");
	cr_assert(failed);
	cr_expect(!strncmp(failed, "label,seed,dir,error\n"
			   "fcfs+trace=gone.swf,1,fcfs+trace=gone.swf-s1,", 66),
		  "%s", failed);
	free(failed);
	/* merge says so too, by its exit code. */
	cr_expect_eq(sh("'%s' merge out --no-plots", bin), 1);
}

/*
 * A single-node Slurm on localhost: munged, slurmctld and slurmd with
 * their own key, socket, ports and state under tmp, started as root.
 * Prints why on failure (the test then skips).
 */
static const char slurm_start[] =
	"set -e\n"
	"d=$(pwd); h=$(hostname -s)\n"
	"[ \"$(id -u)\" = 0 ] || { echo 'not root (slurmd runs as root)'; exit 1; }\n"
	"for c in munged mungekey slurmctld slurmd sbatch squeue sinfo; do\n"
	"  command -v $c >/dev/null || { echo \"$c not found (apt-get install "
	"slurm-wlm munge)\"; exit 1; }\n"
	"done\n"
	"mkdir -p state spool\n"
	"mungekey -c -k \"$d/munge.key\" -b 1024\n"
	"chmod 600 \"$d/munge.key\"\n"
	"munged --force -S \"$d/munge.sock\" --key-file=\"$d/munge.key\" "
	"--pid-file=\"$d/munged.pid\" --log-file=\"$d/munged.log\" "
	"--seed-file=\"$d/munge.seed\" || { echo 'munged did not start'; exit 1; }\n"
	"cat > slurm.conf <<EOC\n"
	"ClusterName=cstest\nSlurmctldHost=$h\nSlurmUser=root\nSlurmdUser=root\n"
	"SlurmctldPort=16817\nSlurmdPort=16818\nAuthType=auth/munge\n"
	"CredType=cred/munge\nAuthInfo=socket=$d/munge.sock\n"
	"StateSaveLocation=$d/state\nSlurmdSpoolDir=$d/spool\n"
	"SlurmctldPidFile=$d/slurmctld.pid\nSlurmdPidFile=$d/slurmd.pid\n"
	"SlurmctldLogFile=$d/slurmctld.log\nSlurmdLogFile=$d/slurmd.log\n"
	"ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
	"JobAcctGatherType=jobacct_gather/none\n"
	"AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
	"MpiDefault=none\nSchedulerType=sched/backfill\n"
	"SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
	"ReturnToService=2\nSwitchType=switch/none\n"
	"NodeName=$h CPUs=$(nproc) RealMemory=1000 State=UNKNOWN\n"
	"PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n"
	"EOC\n"
	"export SLURM_CONF=$d/slurm.conf\n"
	"slurmctld -i || { echo 'slurmctld did not start'; exit 1; }\n"
	"slurmd || { echo 'slurmd did not start'; exit 1; }\n"
	/* The node comes up within seconds, or Slurm cannot run here. */
	"for i in $(seq 60); do\n"
	"  sinfo -h -o %T 2>/dev/null | grep -q idle && exit 0\n"
	"  sleep 0.5\n"
	"done\n"
	"echo \"the node did not come up: $(tail -3 slurmctld.log slurmd.log "
	"2>/dev/null | tr '\\n' ' ')\"; exit 1\n";

static void slurm_stop(void)
{
	/* Only the daemons this test started, by their pid files. */
	sh("for p in slurmd slurmctld munged; do [ -f $p.pid ] && "
	   "kill $(cat $p.pid); done; sleep 1; true");
}

Test(sweep, a_slurm_job_array_runs_end_to_end)
{
	need_bin();
	put("g.json", gen16);
	char *cmd = xasprintf("'%s' sweep g.json -j 2 --no-plots -q", bin);
	char *ref = sweep16(cmd);
	free(cmd);
	put("start.sh", slurm_start);
	if (sh("sh start.sh") != 0) {
		char *why = slurp("out.txt");
		why[strcspn(why, "\n")] = '\0';
		slurm_stop();
		cr_skip_test("Slurm cannot start here: %s", why);
	}
	char *conf = xasprintf("%s/slurm.conf", tmp);
	setenv("SLURM_CONF", conf, 1);
	free(conf);
	int rc = sh("rm -rf out && ASAN_OPTIONS=detect_leaks=0 '%s' sweep "
		    "--submit g.json --tasks 4 --mem 100M --time 10 "
		    "--no-plots", bin);
	char *out = slurp("out.txt");
	cr_expect_eq(rc, 0, "%s %s", out, slurp("err.txt"));
	cr_expect(strstr(out, "(4 tasks, 16 runs): job "), "%s", out);
	/* Wait for the array and the merge to leave the queue. */
	sh("for i in $(seq 600); do [ -z \"$(squeue -h)\" ] && exit 0; "
	   "sleep 0.2; done; exit 1");
	char *script = slurp("out/slurm/sweep.sbatch");
	cr_assert(script);
	cr_expect(strstr(script, "#SBATCH --array=1-4\n") &&
		  strstr(script, "#SBATCH --mem=\"100M\"\n") &&
		  strstr(script, "--shard \"$SLURM_ARRAY_TASK_ID/4\""),
		  "%s", script);
	char *csv = slurp("out/summary.csv");
	cr_expect(csv && !strcmp(csv, ref), "summary.csv after the merge job "
		  "differs: %s", csv ? csv : "(none)");
	char *log = slurp("out/slurm/task-4.log");
	cr_expect(log && strstr(log, "shard 4/4 done"), "%s", log ? log : "");
	slurm_stop();
	unsetenv("SLURM_CONF");
	free(log);
	free(csv);
	free(script);
	free(out);
	free(ref);
}
