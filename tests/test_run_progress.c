/*
 * The progress line of `run` (sim/run/run_jobs.c): on a terminal, stderr
 * shows which run of how many, jobs ended, simulated time, jobs per
 * second and the ETA, drawn at most four times a second and once at the
 * end (with -j N, the runs done); never when stderr is not a terminal,
 * nor with --quiet.  The
 * terminal is a pseudo-terminal from script(1) (util-linux); the test
 * skips, saying so, where it is missing.
 * Runs the built binary ($CLUSTERSIM_BIN, default build/clustersim).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/util.h"
#include "testlib.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "progress");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(run_progress, .init = setup, .fini = teardown);

static char *slurp(const char *name)
{
	char *path = xasprintf("%s/%s", tmp, name);
	FILE *f = fopen(path, "rb");
	free(path);
	cr_assert(f, "%s", name);
	char *s = xmalloc(1 << 20);
	size_t n = fread(s, 1, (1 << 20) - 1, f);
	s[n] = '\0';
	fclose(f);
	return s;
}

static int sh(const char *args)
{
	char *cmd = xasprintf("cd '%s' && %s", tmp, args);
	int st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static size_t count(const char *s, const char *w)
{
	size_t n = 0;
	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w))
		n++;
	return n;
}

static void experiment(void)
{
	char *path = xasprintf("%s/e.json", tmp);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("{ \"cluster\": { \"nodes\": [ { \"count\": 4, \"cpus\": 4 } ] },\n"
	      "  \"workload\": { \"generate\": { \"jobs\": 2000,\n"
	      "    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 60 },\n"
	      "    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 5, \"sigma\": 1 },\n"
	      "    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"
	      "  \"policies\": [ { \"name\": \"fcfs\" }, { \"name\": \"easy\" } ],\n"
	      "  \"output\": \"out\" }\n", f);
	fclose(f);
	free(path);
}

Test(run_progress, a_terminal_shows_runs_jobs_time_rate_and_eta)
{
	if (sh("script -qec true /dev/null >/dev/null 2>&1") != 0)
		cr_skip_test("script(1) cannot open a pseudo-terminal here");
	experiment();
	char *cmd = xasprintf("script -qec \"'%s' run e.json --no-plots\" "
			      "/dev/null >tty.txt 2>&1", bin);
	cr_assert_eq(sh(cmd), 0);
	free(cmd);
	char *out = slurp("tty.txt");
	cr_expect(strstr(out, "[1/2] fcfs: 2000/2000 jobs, simulated "), "%s",
		  out);
	cr_expect(strstr(out, "[2/2] easy: 2000/2000 jobs, simulated "), "%s",
		  out);
	cr_expect(strstr(out, " jobs/s, ETA 0:00:00"), "%s", out);
	/* A run of a few milliseconds: its first line and its last. */
	cr_expect_leq(count(out, "[1/2] fcfs: "), 3, "%s", out);
	free(out);
	cmd = xasprintf("script -qec \"'%s' run e.json --no-plots -q\" "
			"/dev/null >tty.txt 2>&1", bin);
	cr_assert_eq(sh(cmd), 0);
	free(cmd);
	out = slurp("tty.txt");
	cr_expect(!strstr(out, "jobs/s"), "--quiet: %s", out);
	free(out);
}

Test(run_progress, no_line_when_stderr_is_not_a_terminal)
{
	experiment();
	char *cmd = xasprintf("'%s' run e.json --no-plots >o.txt 2>e.txt", bin);
	cr_assert_eq(sh(cmd), 0);
	free(cmd);
	char *err = slurp("e.txt");
	cr_expect(!strstr(err, "jobs/s") && !strchr(err, '\r'), "%s", err);
	free(err);
}

/* With -j 2 the runs are in two processes: one line of runs done, drawn
 * by the parent, and no run's own line (two would garble one). */
Test(run_progress, runs_in_processes_show_the_runs_done)
{
	if (sh("script -qec true /dev/null >/dev/null 2>&1") != 0)
		cr_skip_test("script(1) cannot open a pseudo-terminal here");
	experiment();
	char *cmd = xasprintf("script -qec \"'%s' run e.json --no-plots -j 2\" "
			      "/dev/null >tty.txt 2>&1", bin);
	cr_assert_eq(sh(cmd), 0);
	free(cmd);
	char *out = slurp("tty.txt");
	cr_expect(strstr(out, "runs: 1/2 done") && strstr(out,
							  "runs: 2/2 done\r\n"),
		  "%s", out);
	cr_expect(!strstr(out, "jobs/s"), "%s", out);
	free(out);
}
