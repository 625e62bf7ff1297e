/*
 * `run --policy X` into a results folder of the same experiment adds or
 * replaces X's runs and keeps the others in summary.csv and manifest.json
 * (sim/run/run_keep.c): the folder then holds the bytes a full run
 * writes.  Before, both files held X alone and the other run folders were
 * orphaned.  Rows of another experiment (the file changed) are not mixed
 * in, and a run whose folder is gone is dropped.
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
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "keep");
	tl_cli_need_bin(bin);
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(run_keep, .init = setup, .fini = teardown);

/* Files and commands in tmp (testlib.h). */
#define put(name, text) tl_put(tmp, name, text)

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

static void sh(const char *args)
{
	char *cmd = xasprintf("cd '%s' && %s >out.txt 2>err.txt", tmp, args);
	int st = system(cmd);
	free(cmd);
	char *err = slurp("err.txt");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: %s", args, err);
	free(err);
}

static void run(const char *opts)
{
	char *args = xasprintf("'%s' run e.json --no-plots -q %s", bin, opts);
	sh(args);
	free(args);
}

/* Three policies, two seeds, on a generated workload. */
static void experiment(int jobs)
{
	char *text = xasprintf(
		"{ \"name\": \"t\",\n"
		"  \"cluster\": { \"nodes\": [ { \"count\": 4, \"cpus\": 4 } ] },\n"
		"  \"workload\": { \"generate\": { \"jobs\": %d,\n"
		"    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 60 },\n"
		"    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 5, \"sigma\": 1 },\n"
		"    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"
		"  \"seeds\": [ 1, 2 ],\n"
		"  \"policies\": [ { \"name\": \"fcfs\" }, { \"name\": \"sjf\" },"
		" { \"name\": \"easy\", \"label\": \"easy.bf\" } ],\n"
		"  \"output\": \"out\" }\n", jobs);
	put("e.json", text);
	free(text);
}

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(run_keep, one_policy_rerun_keeps_the_others)
{
	experiment(200);
	run("");
	char *sum = slurp("out/summary.csv");
	char *man = slurp("out/manifest.json");
	cr_assert_eq(lines(sum), 7, "%s", sum);
	/* Each policy alone, in any order, gives back the full run's bytes. */
	static const char *const only[] = { "--policy sjf", "--policy fcfs",
					    "--policy=easy" };
	for (size_t k = 0; k < 3; k++) {
		run(only[k]);
		char *s2 = slurp("out/summary.csv");
		char *m2 = slurp("out/manifest.json");
		cr_expect_str_eq(s2, sum, "after %s", only[k]);
		cr_expect_str_eq(m2, man, "after %s", only[k]);
		free(s2);
		free(m2);
	}
	/* Into a folder that holds fcfs alone: fcfs and sjf, in order. */
	sh("rm -rf out");
	run("--policy fcfs");
	run("--policy sjf");
	char *s3 = slurp("out/summary.csv");
	cr_expect_eq(lines(s3), 5, "%s", s3);
	cr_expect(strstr(s3, "\nfcfs,") < strstr(s3, "\nsjf,"), "%s", s3);
	cr_expect(!strstr(s3, "easy"), "%s", s3);
	free(s3);
	/* A run folder removed by hand: its row goes. */
	sh("rm -rf out/fcfs-s2");
	run("--policy sjf");
	char *s4 = slurp("out/summary.csv");
	cr_expect_eq(lines(s4), 4, "%s", s4);
	cr_expect(!strstr(s4, "\nfcfs,fcfs,t,2,"), "%s", s4);
	free(s4);
	free(sum);
	free(man);
}

Test(run_keep, rows_of_a_changed_experiment_are_not_mixed_in)
{
	experiment(200);
	run("");
	experiment(150);
	run("--policy sjf");
	char *sum = slurp("out/summary.csv");
	char *man = slurp("out/manifest.json");
	cr_expect_eq(lines(sum), 3, "only sjf's two seeds:\n%s", sum);
	cr_expect(!strstr(sum, "fcfs") && !strstr(man, "\"fcfs-s1\""), "%s",
		  sum);
	free(sum);
	free(man);
}
