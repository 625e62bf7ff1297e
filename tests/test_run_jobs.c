/*
 * `clustersim run -j N` (sim/run/run_jobs.c over base/pool.c): the runs
 * of an experiment in N worker processes give the bytes of -j 1 in every
 * output file (run folders, summary.csv, manifest.json, plots) and in
 * what is printed; a run that fails gives the exit code and message of
 * -j 1; a run whose process is killed is named; an interrupted run
 * leaves no worker running; a count that is not one is refused (exit 2).
 * Runs the built binary ($CLUSTERSIM_BIN, default build/clustersim) and
 * the test plug-in build/plugin/crash_plugin.so.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];
static char crash[512];

static void setup(void)
{
	const char *p = getenv("CLUSTERSIM_PLUGIN_SO");
	char cwd[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "jobs");
	tl_cli_need_bin(bin);
	cr_assert(getcwd(cwd, sizeof(cwd)));
	p = p ? p : "build/plugin/example_plugin.so";
	const char *slash = strrchr(p, '/');
	snprintf(crash, sizeof(crash), "%s%s%.*s/crash_plugin.so",
		 p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/",
		 slash ? (int)(slash - p) : 0, p);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(run_jobs, .init = setup, .fini = teardown);

#define put(name, text) tl_put(tmp, name, text)
#define slurp(name) tl_slurp(tmp, name)
#define sh(...) tl_sh(tmp, __VA_ARGS__)

/* Four policies (one a plug-in with params), three seeds, a generated
 * workload (so each seed differs), a timeline and plots. */
static void experiment(const char *extra_policy)
{
	char *text = xasprintf(
		"{ \"name\": \"t\",\n"
		"  \"cluster\": { \"nodes\": [ { \"count\": 4, \"cpus\": 4 } ] },\n"
		"  \"workload\": { \"generate\": { \"jobs\": 300,\n"
		"    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 40 },\n"
		"    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 5, \"sigma\": 1 },\n"
		"    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"
		"  \"plugins\": [ \"%s\" ],\n"
		"  \"seeds\": [ 1, 2, 3 ],\n"
		"  \"policies\": [ { \"name\": \"fcfs\" }, %s"
		" { \"name\": \"easy\", \"label\": \"easy.bf\" },"
		" { \"name\": \"conservative\" } ],\n"
		"  \"output\": \"out\" }\n", crash, extra_policy);
	put("e.json", text);
	free(text);
}

static void need_plugin(void)
{
	if (access(crash, R_OK) != 0)
		cr_skip_test("%s is not built (run make test)", crash);
}

/* out.txt and err.txt of the last command, kept under the names given. */
static void keep_output(const char *out, const char *err)
{
	char *from = xasprintf("%s/out.txt", tmp), *to = path_join(tmp, out);
	cr_assert_eq(rename(from, to), 0);
	free(from);
	free(to);
	from = xasprintf("%s/err.txt", tmp);
	to = path_join(tmp, err);
	cr_assert_eq(rename(from, to), 0);
	free(from);
	free(to);
}

static void expect_same_file(const char *a, const char *b)
{
	char *x = slurp(a), *y = slurp(b);
	cr_assert(x && y, "%s, %s", a, b);
	cr_expect_str_eq(x, y, "%s and %s differ", a, b);
	free(x);
	free(y);
}

Test(run_jobs, three_processes_write_the_bytes_of_one)
{
	need_plugin();
	experiment("{ \"name\": \"crashfifo\", \"label\": \"cf\" },");
	int rc = sh("'%s' run e.json -o o1", bin);
	cr_assert_eq(rc, 0, "exit %d", rc);
	keep_output("out1.txt", "err1.txt");
	rc = sh("'%s' run e.json -o o3 -j 3", bin);
	cr_assert_eq(rc, 0, "exit %d", rc);
	keep_output("out3.txt", "err3.txt");
	/* Every file of both folders, plots included (when gnuplot is
	 * there: the same either way). */
	rc = sh("test -s o1/summary.csv && test -s o1/easy.bf-s3/jobs.csv "
		"&& diff -r o1 o3");
	char *diff = slurp("out.txt");
	cr_expect_eq(rc, 0, "the folders differ:\n%s", diff);
	free(diff);
	/* What is printed names the folder it wrote, the rest is equal. */
	cr_expect_eq(sh("sed 's/o3/o1/' out3.txt | cmp - out1.txt"), 0);
	expect_same_file("err1.txt", "err3.txt");
	char *csv = slurp("o3/summary.csv");
	cr_expect(strstr(csv, "\nfcfs,fcfs,generated,1,") < strstr(csv,
							  "\nfcfs,fcfs,generated,3,") &&
		  strstr(csv, "\ncf,crashfifo,generated,3,") <
		  strstr(csv, "\neasy.bf,easy,generated,1,") &&
		  strstr(csv, "\nconservative,conservative,generated,3,"),
		  "rows out of the policy x seed order:\n%s", csv);
	free(csv);
}

/* A run that fails in the middle (crashfifo starts nothing: the engine's
 * error): with -j 1 the runs before it are written, the error printed,
 * exit 1, no summary.  With -j 3, the same exit code and output. */
Test(run_jobs, a_failing_run_fails_as_with_one_process)
{
	need_plugin();
	experiment("{ \"name\": \"crashfifo\", \"label\": \"cf\","
		   " \"params\": { \"idle\": true } },");
	int rc = sh("'%s' run e.json -o o1 --no-plots", bin);
	cr_assert_eq(rc, 1, "exit %d", rc);
	keep_output("out1.txt", "err1.txt");
	rc = sh("'%s' run e.json -o o3 --no-plots -j 3", bin);
	cr_expect_eq(rc, 1, "exit %d", rc);
	keep_output("out3.txt", "err3.txt");
	char *err = slurp("err3.txt");
	cr_expect(strstr(err, "clustersim: policy 'crashfifo' left "), "%s",
		  err);
	free(err);
	expect_same_file("err1.txt", "err3.txt");
	expect_same_file("out1.txt", "out3.txt");
	cr_expect_neq(sh("test -e o3/summary.csv"), 0);
	cr_expect_eq(sh("cmp o1/fcfs-s3/jobs.csv o3/fcfs-s3/jobs.csv"), 0);
}

/* A run whose process dies (a plug-in that aborts) fails the command,
 * naming the run; the others before it are written. */
Test(run_jobs, a_killed_run_is_named)
{
	need_plugin();
	experiment("{ \"name\": \"crashfifo\", \"label\": \"cf\","
		   " \"params\": { \"crash\": true } },");
	int rc = sh("'%s' run e.json --no-plots -j 2", bin);
	cr_expect_eq(rc, 1, "exit %d", rc);
	char *err = slurp("err.txt");
	cr_expect(strstr(err, "clustersim: cf-s1: its process was killed by "
			 "signal 6"), "%s", err);
	free(err);
	cr_expect_neq(sh("test -e out/summary.csv"), 0);
	cr_expect_eq(sh("test -s out/fcfs-s3/jobs.csv"), 0);
}

/* -j N with --policy into a full results folder keeps the other runs, as
 * one process does (run_keep.c). */
Test(run_jobs, one_policy_into_a_full_folder)
{
	need_plugin();
	experiment("");
	cr_assert_eq(sh("'%s' run e.json --no-plots -q -o o1", bin), 0);
	cr_assert_eq(sh("cp -r o1 o3"), 0);
	cr_assert_eq(sh("'%s' run e.json --no-plots -q -o o3 -j 2 "
			"--policy easy.bf", bin), 0);
	expect_same_file("o1/summary.csv", "o3/summary.csv");
	expect_same_file("o1/manifest.json", "o3/manifest.json");
}

Test(run_jobs, a_count_that_is_not_one_is_refused)
{
	static const char *const bad[] = { "-j 0", "-j abc", "--jobs=0",
					   "-j=-1", "--jobs 99999", "-j" };
	experiment("");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = sh("'%s' run e.json --no-plots %s", bin, bad[i]);
		cr_expect_eq(rc, 2, "%s: exit %d", bad[i], rc);
		char *err = slurp("err.txt");
		cr_expect(strstr(err, "clustersim: "), "%s: %s", bad[i], err);
		free(err);
	}
	cr_expect_neq(sh("test -e out"), 0, "a refused -j ran");
	cr_assert_eq(sh("'%s' run --help", bin), 0);
	char *out = slurp("out.txt");
	cr_expect(strstr(out, "-j, --jobs N") || strstr(out, "--jobs"), "%s",
		  out);
	free(out);
}

/* The processes whose working folder is tmp. */
static size_t running_here(void)
{
	DIR *d = opendir("/proc");
	size_t n = 0;
	struct dirent *de;
	char link[512];
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		char *path = xasprintf("/proc/%s/cwd", de->d_name);
		ssize_t k = readlink(path, link, sizeof(link) - 1);
		free(path);
		if (k > 0) {
			link[k] = '\0';
			n += strcmp(link, tmp) == 0;
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* ^C, or a kill -INT, reaches the parent alone: its workers die with it
 * (PR_SET_PDEATHSIG) and none writes on. */
Test(run_jobs, an_interrupted_run_leaves_no_worker)
{
	put("g.json",
	    "{ \"cluster\": { \"nodes\": [ { \"count\": 64, \"cpus\": 4 } ] },"
	    "  \"workload\": { \"generate\": { \"jobs\": 500000,"
	    "    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 260 },"
	    "    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 7, \"sigma\": 1 },"
	    "    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 128 } } },"
	    "  \"policies\": [ \"easy\", \"conservative\" ],"
	    "  \"seeds\": [ 1, 2 ], \"output\": \"out\" }");
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		if (chdir(tmp) != 0 || !freopen("/dev/null", "w", stdout) ||
		    !freopen("/dev/null", "w", stderr))
			_exit(127);
		execl(bin, bin, "run", "g.json", "-j", "2", "--no-plots",
		      "-q", (char *)NULL);
		_exit(127);
	}
	/* The parent and its two workers. */
	for (int i = 0; i < 3000 && running_here() < 3; i++)
		usleep(10000);
	cr_assert_geq(running_here(), 3, "the workers did not start");
	kill(pid, SIGINT); /* the parent alone, not its group */
	int st;
	waitpid(pid, &st, 0);
	cr_expect(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT);
	for (int i = 0; i < 1000 && running_here() > 0; i++)
		usleep(10000);
	cr_expect_eq(running_here(), 0, "workers outlived their parent");
	cr_expect_neq(sh("test -e out/summary.csv"), 0);
}
