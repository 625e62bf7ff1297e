/*
 * Sweeps whose runs crash or whose driver is killed ($CLUSTERSIM_BIN):
 * a point whose process dies (a plug-in policy that aborts,
 * build/plugin/crash_plugin.so) is recorded in failed.csv and the others
 * complete, on local processes and under mpirun (where one crashing worker
 * used to end the whole sweep with no summary.csv and no failed.csv); and
 * a killed driver - the local one, or mpirun - leaves no process running
 * its runs (where they used to go on writing the results folder).  The
 * mpirun tests are skipped, saying why, where Open MPI is absent.
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
#include "sweep/sweep.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];
static char crash[512];

static void setup(void)
{
	const char *p = getenv("CLUSTERSIM_PLUGIN_SO");
	char cwd[256];
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "sweepfail");
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

TestSuite(sweepfail, .init = setup, .fini = teardown);

/* Files and commands in tmp (testlib.h). */
#define put(name, text) tl_put(tmp, name, text)

#define slurp(name) tl_slurp(tmp, name)

#define sh(...) tl_sh(tmp, __VA_ARGS__)

/* mpirun as this user may run it ("" when it is absent: skips). */
static const char *mpirun(void)
{
	if (!sweep_have_mpi())
		cr_skip_test("built without the MPI driver (no mpicc when "
			     "built: apt-get install libopenmpi-dev)");
	if (system("command -v mpirun >/dev/null 2>&1") != 0)
		cr_skip_test("mpirun not found (apt-get install openmpi-bin)");
	/* The leak checker of a sanitizer build would count Open MPI's own
	 * allocations. */
	return geteuid() == 0 ?
	       "ASAN_OPTIONS=detect_leaks=0 mpirun --allow-run-as-root "
	       "--oversubscribe" :
	       "ASAN_OPTIONS=detect_leaks=0 mpirun --oversubscribe";
}

/* Three jobs on one CPU, 10 s each: fcfs waits 0, 9, 18 (mean 9). */
static const char trace3[] =
	"1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"2 1 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	"3 2 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n";

/* A sweep of the crashing plug-in: crash false, true, false (seeds 1, 2). */
static void crash_sweep(void)
{
	tl_cli_need_bin(bin);
	if (access(crash, R_OK) != 0)
		cr_skip_test("%s is not built (run make test)", crash);
	put("t.swf", trace3);
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 1, \"cpus\": 1 } ] },"
		"  \"workload\": { \"trace\": \"t.swf\" }, \"plugins\": [ \"%s\" ],"
		"  \"policies\": [ { \"name\": \"crashfifo\", \"label\": \"c\" } ],"
		"  \"seeds\": [ 1, 2 ], \"output\": \"out\","
		"  \"sweep\": { \"policies[0].params.crash\": [ false, true ] } }",
		crash);
	put("s.json", text);
	free(text);
}

/* What a sweep of crash_sweep() leaves: the two runs that crashed in
 * failed.csv, the two others in summary.csv. */
static void expect_crashes_recorded(int rc)
{
	cr_expect_eq(rc, 1, "exit %d", rc);
	char *out = slurp("out.txt");
	cr_expect(out && strstr(out, "4 runs: 2 ran, 0 skipped (results "
				    "already there), 2 failed"), "%s", out);
	free(out);
	char *csv = slurp("out/summary.csv");
	cr_assert(csv, "no summary.csv");
	cr_expect(strstr(csv, "\nc+crash=false,crashfifo,t.swf,1,false,3,") &&
		  strstr(csv, "\nc+crash=false,crashfifo,t.swf,2,false,3,") &&
		  !strstr(csv, "crash=true"), "%s", csv);
	free(csv);
	char *failed = slurp("out/failed.csv");
	cr_assert(failed, "no failed.csv");
	cr_expect(strstr(failed, "\nc+crash=true,1,c+crash=true-s1,"
			 "c+crash=true-s1: killed by signal 6") &&
		  strstr(failed, "\nc+crash=true,2,c+crash=true-s2,"),
		  "%s", failed);
	free(failed);
}

Test(sweepfail, a_crashing_point_is_recorded_by_local_processes)
{
	crash_sweep();
	expect_crashes_recorded(sh("'%s' sweep s.json -j 2 --no-plots", bin));
}

Test(sweepfail, a_crashing_point_is_recorded_under_mpirun)
{
	crash_sweep();
	const char *mpi = mpirun();
	expect_crashes_recorded(sh("%s -np 3 '%s' sweep s.json --no-plots",
				   mpi, bin));
}

/* ---- a killed driver -------------------------------------------------- */

/* How many processes run in tmp (their working folder); with kill_them,
 * kills them (they are this test's). */
static size_t in_tmp(bool kill_them)
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
		if (k <= 0)
			continue;
		link[k] = '\0';
		if (strcmp(link, tmp) != 0)
			continue;
		n++;
		if (kill_them)
			kill((pid_t)atol(de->d_name), SIGKILL);
	}
	if (d)
		closedir(d);
	return n;
}

static size_t running_here(void)
{
	return in_tmp(false);
}

/* Run folders under out/: complete ones (with a manifest), or all. */
static size_t run_folders(bool complete)
{
	char *path = xasprintf("%s/out", tmp);
	DIR *d = opendir(path);
	size_t n = 0;
	struct dirent *de;
	while (d && (de = readdir(d))) {
		char *m = xasprintf("%s/%s/%s", path, de->d_name,
				    complete ? "manifest.json" : ".");
		n += access(m, F_OK) == 0 && de->d_name[0] != '.';
		free(m);
	}
	if (d)
		closedir(d);
	free(path);
	return n;
}

/*
 * After the driver was killed: waits up to 10 s for every process of the
 * sweep to end (killing those left), and expects that none ran on - that
 * no run completed after the kill (a run takes seconds; one that outlived
 * its driver would write its results).
 */
static void expect_all_gone(const char *what)
{
	size_t done = run_folders(true);
	int i = 0;
	while (running_here() > 0 && i++ < 1000)
		usleep(10000);
	size_t left = in_tmp(true);
	for (i = 0; running_here() > 0 && i < 500; i++)
		usleep(10000);
	cr_expect_eq(left, 0, "%zu processes outlived %s", left, what);
	cr_expect_eq(run_folders(true), done, "runs went on after %s was "
		     "killed", what);
}

/* Eight long runs (a 500,000-job generated workload each). */
static void long_sweep(void)
{
	tl_cli_need_bin(bin);
	put("g.json",
	    "{ \"cluster\": { \"nodes\": [ { \"count\": 64, \"cpus\": 4 } ] },"
	    "  \"workload\": { \"generate\": { \"jobs\": 500000,"
	    "    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 260 },"
	    "    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 7, \"sigma\": 1 },"
	    "    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 128 } } },"
	    "  \"policies\": [ \"easy\" ], \"output\": \"out\","
	    "  \"sweep\": { \"workload.load_scale\": [ 1, 2, 3, 4, 5, 6, 7, 8 ] } }");
}

/* Starts argv in tmp in a process group of its own; returns its pid once
 * it has started runs (n processes run in tmp, two run folders are
 * there). */
static pid_t start(char *const argv[], size_t n)
{
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		if (chdir(tmp) != 0)
			_exit(127);
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execvp(argv[0], argv);
		_exit(127);
	}
	for (int i = 0; i < 3000 && (running_here() < n ||
				     run_folders(false) < 2); i++) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid)
			cr_assert_fail("the sweep ended before it was killed");
		usleep(10000);
	}
	return pid;
}

Test(sweepfail, a_killed_local_driver_leaves_no_run_writing)
{
	long_sweep();
	char *argv[] = { bin, "sweep", "g.json", "-j", "2", "--no-plots",
			 "-q", NULL };
	/* The driver and its two runs. */
	pid_t pid = start(argv, 3);
	cr_assert_geq(running_here(), 3);
	kill(pid, SIGKILL); /* the driver alone, not its group */
	waitpid(pid, NULL, 0);
	expect_all_gone("the driver");
}

Test(sweepfail, a_killed_mpirun_leaves_no_run_writing)
{
	const char *mpi = mpirun();
	long_sweep();
	char *cmd = xasprintf("exec env %s -np 3 '%s' sweep g.json --no-plots "
			      "-q", mpi, bin);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	/* mpirun and three ranks (two of them then start runs). */
	pid_t pid = start(argv, 4);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	expect_all_gone("mpirun");
	free(cmd);
}
