/*
 * `clustersim sweep FILE`: every run of a sweep (sweep/sweep.h) on local
 * processes, under mpirun, as one shard, or written as a Slurm job array;
 * and `clustersim validate` of a sweep file.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outdir.h"
#include "base/util.h"
#include "cli/cli.h"

/* Processors this process may run on (all cores, or its cpuset). */
static unsigned cores(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set))
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

/* The drivers' options; outdir defaults to the sweep's "output". */
static void sweep_opts_of(const struct cli_args *a, const struct sweep *sw,
			  struct sweep_opts *so)
{
	*so = (struct sweep_opts){
		.outdir = a->outdir ? a->outdir : sw->output,
		.plugins = (const char **)a->plugins.v,
		.nplugins = a->plugins.n,
		.jobs = a->jobs ? a->jobs : cores(),
		.shard_i = a->shard.i,
		.shard_n = a->shard.n,
		.quiet = a->quiet,
		.no_plots = a->no_plots,
		.check = a->check,
		.lenient = a->lenient,
		.stats = a->stats,
		.out = stdout,
		.msg = stderr,
	};
}

/* validate, or sweep --dry-run (which also lists this shard's runs). */
static int check(const struct cli_args *a, const struct sweep *sw,
		 const struct sweep_opts *so, bool dry)
{
	struct sim_error err = { .msg = "" };
	int code = sweep_validate(sw, so, &err);
	if (code)
		return cli_report(code, &err);
	if (!a->quiet || dry)
		printf("%s: ok (a sweep of %zu points, %zu runs)\n",
		       a->operand, sw->npoints, sw->nruns);
	for (size_t k = 0; k < sw->nruns && dry; k++)
		if (sweep_in_shard(so, k))
			printf("%s\n", sw->runs[k].dir);
	return 0;
}

/* --slurm: the job array's scripts, submitted with --submit. */
static int slurm(const struct cli_args *a, const struct sweep *sw,
		 const struct sweep_opts *so, struct sim_error *err)
{
	char exe[4096], *report = NULL;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(exe, sizeof(exe), "clustersim");
		n = (ssize_t)strlen(exe);
	}
	exe[n] = '\0';
	/* The scripts are written into the results folder: held, shared
	 * as by the shards (which --submit may start at once), so that no
	 * run writes the folder meanwhile. */
	struct outdir od = { .fd = -1 };
	int rc = outdir_lock(&od, so->outdir, true, err);
	if (!rc)
		rc = sweep_slurm(sw, so, &a->sl, exe, &report, err);
	outdir_unlock(&od);
	int code = rc == -SIM_EINPUT ? 2 : rc ? 1 : 0;
	if (code == 0)
		fputs(report, stdout);
	free(report);
	return code;
}

/* Refuses an option that the mode the others pick (a local or MPI run,
 * --dry-run, --slurm/--submit) would not use.  Returns 0 or 2. */
static int refuse_unused(const struct cli_args *a)
{
	static const char *const slurm_only[] = {
		"--tasks", "--time", "--mem", "--cpus-per-task",
		"--partition", "--account", NULL };
	static const char *const not_slurm[] = {
		"-j", "--shard", "--dry-run", "--quiet", "--stats", NULL };
	static const char *const not_dry[] = {
		"-o", "-j", "--quiet", "--check", "--lenient", "--no-plots",
		"--stats", NULL };
	const struct cli_command *c = &cli_commands[CLI_SWEEP];
	if (a->slurm || a->sl.submit)
		return cli_refuse_given(c, a, not_slurm, "does not apply with "
					"--slurm or --submit (each task runs "
					"-j C, see --cpus-per-task)");
	if (cli_refuse_given(c, a, slurm_only, "applies only with --slurm "
			     "or --submit"))
		return 2;
	if (a->dry_run)
		return cli_refuse_given(c, a, not_dry, "does not apply with "
					"--dry-run (it runs nothing)");
	return 0;
}

/* Loads the sweep and does what the options ask: check, write the Slurm
 * array, or run (under mpirun when started by it, else locally). */
static int sweep_cmd(const struct cli_args *a, bool validate)
{
	struct sweep sw;
	struct sweep_opts so;
	struct sim_error err = { .msg = "" };
	if (!validate && refuse_unused(a))
		return 2;
	if (sweep_load(a->operand, &sw, &err))
		return cli_report(2, &err);
	sweep_opts_of(a, &sw, &so);
	int code;
	if (validate || a->dry_run) {
		code = check(a, &sw, &so, a->dry_run);
	} else if (a->slurm || a->sl.submit) {
		code = slurm(a, &sw, &so, &err);
	} else {
		code = sweep_run_mpi(&sw, &so, &err);
		if (code < 0)
			code = sweep_run_local(&sw, &so, &err);
	}
	sweep_release(&sw);
	return cli_report(code, &err);
}

int cli_sweep(const struct cli_args *a)
{
	return sweep_cmd(a, false);
}

int cli_validate_sweep(const struct cli_args *a)
{
	return sweep_cmd(a, true);
}
