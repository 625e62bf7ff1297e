/*
 * clustersim command line.  Only this file prints errors and picks exit
 * codes: 0 ok, 1 a run failed, 2 bad usage or bad input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/optimize.h"
#include "report/out.h"
#include "run/runner.h"
#include "sweep/sweep.h"
#include "base/util.h"
#include "base/version.h"

static const char usage[] =
	"usage: clustersim <command> [options]\n"
	"\n"
	"commands:\n"
	"  run FILE        run an experiment file (results under its \"output\")\n"
	"  validate FILE   check an experiment file without running it\n"
	"  policies        list the policies, their summaries and parameters\n"
	"  plot DIR        redraw the plots of a results folder\n"
	"  sweep FILE      run every point of a sweep (see below)\n"
	"  merge DIR       rebuild a sweep's summary.csv and plots\n"
	"  optimize FILE   schedule a batch offline with greedy, ga, sa, ilp\n"
	"  bench-eval      evaluations/s of the batch evaluator\n"
	"  version         print the version\n"
	"\n"
	"options of run and validate:\n"
	"  -o DIR          write results to DIR (relative to the current folder)\n"
	"  --policy NAME   run only the policy with this label or name\n"
	"  --plugin FILE   load a policy plug-in (.so); may repeat\n"
	"  --quiet         no report and no summary table\n"
	"  --check         run the invariant checker (slow)\n"
	"  --lenient       skip malformed trace lines, counting them\n"
	"  --no-plots      do not call gnuplot\n"
	"  --stats         print timing and memory lines (used by make bench)\n"
	"\n"
	"options of sweep (also -o, --plugin, --quiet, --check, --lenient,\n"
	"--no-plots):\n"
	"  -j N            N runs at a time (default: all cores); under\n"
	"                  mpirun, rank 0 hands runs out to the other ranks\n"
	"  --shard I/N     run only runs I, I+N, I+2N, ... (1-based), no merge\n"
	"  --dry-run       check every point and list the runs\n"
	"  --slurm         write OUT/slurm/sweep.sbatch (a job array) and\n"
	"                  merge.sbatch; --submit also submits them\n"
	"  --tasks N --time T --mem M --cpus-per-task C --partition P\n"
	"  --account A     the job array's size (default: runs, at most\n"
	"                  100) and per-task resources (1:00:00, 2G, 1)\n"
	"\n"
	"Experiment files are described in experiments/README.md.\n";

/* sweep_cli.c: sweep, merge, and validate of a sweep file. */
int sweep_cli(const char *cmd, int argc, char **argv);

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "clustersim: %s%s%s%s\n(try 'clustersim help')\n",
		what, *arg ? " '" : "", arg, *arg ? "'" : "");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("no command given", "");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
		printf("clustersim %s\n", CLUSTERSIM_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "sweep") || !strcmp(cmd, "merge"))
		return sweep_cli(cmd, argc, argv);
	struct run_opts o = { .out = stdout, .msg = stderr };
	const char *plugins[64];
	const char *file = NULL;
	o.plugins = plugins;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		bool has_next = i + 1 < argc;
		if (!strcmp(a, "-o") || !strcmp(a, "--policy") ||
		    !strcmp(a, "--plugin")) {
			if (!has_next)
				return usage_error("this option needs a value:", a);
			const char *v = argv[++i];
			if (!strcmp(a, "-o"))
				o.outdir = v;
			else if (!strcmp(a, "--policy"))
				o.only = v;
			else if (o.nplugins == ARRAY_SIZE(plugins))
				return usage_error("too many plug-ins", "");
			else
				plugins[o.nplugins++] = v;
		} else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			o.quiet = true;
		} else if (!strcmp(a, "--check")) {
			o.check = true;
		} else if (!strcmp(a, "--lenient")) {
			o.lenient = true;
		} else if (!strcmp(a, "--no-plots")) {
			o.no_plots = true;
		} else if (!strcmp(a, "--stats")) {
			o.stats = true;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option", a);
		} else if (!file) {
			file = a;
		} else {
			return usage_error("unexpected argument", a);
		}
	}
	struct sim_error err = { .msg = "" };
	int code;
	if (!strcmp(cmd, "run") || !strcmp(cmd, "validate")) {
		if (!file)
			return usage_error("this command needs an experiment file:", cmd);
		o.file = file;
		o.validate_only = !strcmp(cmd, "validate");
		if (o.validate_only && sweep_file_has_sweep(file))
			return sweep_cli(cmd, argc, argv);
		code = runner_run(&o, &err);
	} else if (!strcmp(cmd, "optimize")) {
		if (!file)
			return usage_error("this command needs an experiment file:", cmd);
		code = optimize_main(file, o.outdir, o.quiet, o.no_plots,
				     stdout, &err);
	} else if (!strcmp(cmd, "bench-eval")) {
		code = optimize_bench_eval(stdout, &err);
	} else if (!strcmp(cmd, "policies")) {
		code = runner_list_policies(o.plugins, o.nplugins, stdout, &err);
	} else if (!strcmp(cmd, "plot")) {
		if (!file)
			return usage_error("plot needs a results folder", "");
		char *summary = xasprintf("%s/summary.csv", file);
		bool ok = access(summary, R_OK) == 0;
		free(summary);
		if (!ok) {
			fprintf(stderr, "clustersim: %s: not a results folder "
				"(no readable summary.csv)\n", file);
			return 2;
		}
		int rc = plot_results(file, &err);
		code = rc < 0 ? 1 : 0;
		if (rc > 0) {
			fprintf(stderr, "clustersim: warning: %s\n", err.msg);
			err.msg[0] = '\0';
		} else if (rc == 0) {
			printf("plots: %s/plots/\n", file);
		}
	} else {
		return usage_error("unknown command", cmd);
	}
	if (code != 0 && err.msg[0])
		fprintf(stderr, "clustersim: %s\n", err.msg);
	return code;
}
