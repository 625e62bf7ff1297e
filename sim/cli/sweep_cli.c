/*
 * The sweep commands of the command line: `clustersim sweep`, `clustersim
 * merge` and `clustersim validate` of a sweep file.  Like main.c, this
 * file prints and picks exit codes (0 ok, 1 a run failed, 2 bad usage or
 * input).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep/sweep.h"
#include "base/util.h"

int sweep_cli(const char *cmd, int argc, char **argv);

static int usage(const char *what, const char *arg)
{
	fprintf(stderr, "clustersim: %s%s%s%s\n(try 'clustersim help')\n",
		what, *arg ? " '" : "", arg, *arg ? "'" : "");
	return 2;
}

/* Processors this process may run on (all cores, or its cpuset). */
static unsigned cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set))
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* A whole number in [lo, hi] from the whole of s. */
static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

static int merge_cmd(const char *dir, bool no_plots)
{
	struct sim_error err = { .msg = "" }, warn;
	size_t nfailed = 0, nmissing = 0;
	if (sweep_merge(dir, no_plots, &nfailed, &nmissing, &warn, &err)) {
		fprintf(stderr, "clustersim: %s\n", err.msg);
		return 2;
	}
	if (warn.msg[0])
		fprintf(stderr, "clustersim: warning: %s\n", warn.msg);
	printf("merged: %s/summary.csv", dir);
	if (nfailed)
		printf(", %zu failed runs in %s/failed.csv", nfailed, dir);
	if (nmissing)
		printf(", %zu runs not run yet", nmissing);
	printf("\n");
	return nfailed || nmissing ? 1 : 0;
}

int sweep_cli(const char *cmd, int argc, char **argv)
{
	struct sweep_opts so = { .out = stdout, .msg = stderr };
	struct sweep_slurm_opts sl = { .time = "1:00:00", .mem = "2G",
				       .cpus = 1 };
	const char *plugins[64];
	const char *file = NULL;
	bool slurm = false, dry = false, jset = false;
	so.plugins = plugins;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = !strcmp(a, "-o") || !strcmp(a, "-j") ||
			     !strcmp(a, "--shard") || !strcmp(a, "--plugin") ||
			     !strcmp(a, "--tasks") || !strcmp(a, "--time") ||
			     !strcmp(a, "--mem") ||
			     !strcmp(a, "--cpus-per-task") ||
			     !strcmp(a, "--partition") ||
			     !strcmp(a, "--account");
		if (takes && !v)
			return usage("this option needs a value:", a);
		if (takes)
			i++;
		if (!strcmp(a, "-o")) {
			so.outdir = v;
		} else if (!strcmp(a, "-j")) {
			if (!parse_uint(v, 1, 4096, &so.jobs))
				return usage("-j needs a number of processes "
					     "from 1, got", v);
			jset = true;
		} else if (!strcmp(a, "--shard")) {
			char *slash = strchr(v, '/');
			char *head = slash ? xasprintf("%.*s", (int)(slash - v),
						       v) : NULL;
			bool ok = slash &&
				  parse_uint(slash + 1, 1, 1000000,
					     &so.shard_n) &&
				  parse_uint(head, 1, so.shard_n, &so.shard_i);
			free(head);
			if (!ok)
				return usage("--shard needs I/N with 1 <= I "
					     "<= N, got", v);
		} else if (!strcmp(a, "--plugin")) {
			if (so.nplugins == ARRAY_SIZE(plugins))
				return usage("too many plug-ins", "");
			plugins[so.nplugins++] = v;
		} else if (!strcmp(a, "--tasks")) {
			if (!parse_uint(v, 1, 1000000, &sl.tasks))
				return usage("--tasks needs a number from 1, "
					     "got", v);
		} else if (!strcmp(a, "--cpus-per-task")) {
			if (!parse_uint(v, 1, 4096, &sl.cpus))
				return usage("--cpus-per-task needs a number "
					     "from 1, got", v);
		} else if (!strcmp(a, "--time")) {
			sl.time = v;
		} else if (!strcmp(a, "--mem")) {
			sl.mem = v;
		} else if (!strcmp(a, "--partition")) {
			sl.partition = v;
		} else if (!strcmp(a, "--account")) {
			sl.account = v;
		} else if (!strcmp(a, "--slurm")) {
			slurm = true;
		} else if (!strcmp(a, "--submit")) {
			slurm = sl.submit = true;
		} else if (!strcmp(a, "--dry-run")) {
			dry = true;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			so.quiet = true;
		} else if (!strcmp(a, "--no-plots")) {
			so.no_plots = true;
		} else if (!strcmp(a, "--check")) {
			so.check = true;
		} else if (!strcmp(a, "--lenient")) {
			so.lenient = true;
		} else if (!strcmp(a, "--stats")) {
			so.stats = true;
		} else if (a[0] == '-' && a[1]) {
			return usage("unknown option", a);
		} else if (!file) {
			file = a;
		} else {
			return usage("unexpected argument", a);
		}
	}
	if (!strcmp(cmd, "merge")) {
		if (!file)
			return usage("merge needs a results folder", "");
		return merge_cmd(file, so.no_plots);
	}
	if (!file)
		return usage("this command needs an experiment file:", cmd);
	struct sweep sw;
	struct sim_error err = { .msg = "" };
	if (sweep_load(file, &sw, &err)) {
		fprintf(stderr, "clustersim: %s\n", err.msg);
		return 2;
	}
	int code = 0;
	so.outdir = so.outdir ? so.outdir : sw.output;
	so.jobs = jset ? so.jobs : cores();
	if (!strcmp(cmd, "validate") || dry) {
		if (!so.quiet || dry)
			printf("%s: ok (a sweep of %zu points, %zu runs)\n",
			       file, sw.npoints, sw.nruns);
		for (size_t k = 0; k < sw.nruns && dry; k++)
			if (sweep_in_shard(&so, k))
				printf("%s\n", sw.runs[k].dir);
	} else if (slurm) {
		char exe[4096], *report = NULL;
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			snprintf(exe, sizeof(exe), "clustersim");
			n = (ssize_t)strlen(exe);
		}
		exe[n] = '\0';
		if (sweep_slurm(&sw, &so, &sl, exe, &report, &err)) {
			fprintf(stderr, "clustersim: %s\n", err.msg);
			code = 1;
		} else {
			fputs(report, stdout);
		}
		free(report);
	} else {
		code = sweep_run_mpi(&sw, &so, &err);
		if (code < 0)
			code = sweep_run_local(&sw, &so, &err);
		if (code && err.msg[0])
			fprintf(stderr, "clustersim: %s\n", err.msg);
	}
	sweep_release(&sw);
	return code;
}
