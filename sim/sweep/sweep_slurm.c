/*
 * `clustersim sweep --slurm FILE`: a Slurm job array for a sweep.
 *
 * OUT/slurm/sweep.sbatch is an array of N tasks; task i runs
 * `clustersim sweep FILE --shard i/N -j <cpus per task>` from the folder
 * the command was given in, so the file and -o paths mean the same thing.
 * Runs are dealt to shards round-robin (run k to shard k mod N + 1), so
 * each task gets a mix of the sweep's points.  OUT/slurm/merge.sbatch runs
 * `clustersim merge OUT` once the array has ended, whatever its tasks'
 * outcome (afterany): failed runs are listed by the merge.  Each task's
 * output goes to OUT/slurm/task-<i>.log.  With submit, both are given to
 * sbatch --parsable, the second with --dependency=afterany:<array id>.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

extern char **environ;

/* A shell word in single quotes; the caller frees. */
static char *sh_quote(const char *s)
{
	size_t n = 3;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	char *t = xmalloc(n), *q = t;
	*q++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *s;
		}
	}
	*q++ = '\'';
	*q = '\0';
	return t;
}

static char *absolute(const char *path)
{
	char cwd[4096];
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return xstrdup(path);
	return xasprintf("%s/%s", cwd, path);
}

/*
 * A value of an #SBATCH line, as sbatch reads it: inside double quotes
 * spaces do not split, a backslash takes the next character as it is,
 * and a # outside quotes would start a comment.  With pct, a % in s is
 * doubled (sbatch expands %a, %j... in --output); tail follows as it is.
 * NULL when s holds a control character: no #SBATCH line can hold one.
 */
static char *sbatch_quote(const char *s, bool pct, const char *tail)
{
	if (str_has_control(s))
		return NULL;
	char *t = xmalloc(3 * strlen(s) + strlen(tail) + 3), *q = t;
	*q++ = '"';
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			*q++ = '\\';
		else if (pct && *s == '%')
			*q++ = '%';
		*q++ = *s;
	}
	q = stpcpy(q, tail);
	*q++ = '"';
	*q = '\0';
	return t;
}

/* "#SBATCH --OPT=VALUE" with VALUE quoted (sbatch_quote); false (and
 * nothing written) when it cannot be. */
static bool sbatch_line(FILE *f, const char *opt, const char *val, bool pct,
			const char *tail)
{
	char *q = sbatch_quote(val, pct, tail);
	if (q)
		fprintf(f, "#SBATCH --%s=%s\n", opt, q);
	free(q);
	return q != NULL;
}

/* The #SBATCH lines common to both scripts: false when a value holds a
 * control character. */
static bool header(FILE *f, const char *job, const struct sweep_slurm_opts *sl)
{
	fputs("#!/bin/sh\n", f);
	return sbatch_line(f, "job-name", job, false, "") &&
	       (!sl->partition ||
		sbatch_line(f, "partition", sl->partition, false, "")) &&
	       (!sl->account ||
		sbatch_line(f, "account", sl->account, false, "")) &&
	       sbatch_line(f, "time", sl->time, false, "") &&
	       sbatch_line(f, "mem", sl->mem, false, "");
}

/* Runs sbatch --parsable ARGS... SCRIPT; the job id into id (64 bytes). */
static int sbatch(const char *dep, const char *script, char *id,
		  struct sim_error *err)
{
	int fds[2];
	if (pipe(fds))
		return err_setc(err, -SIM_EIO, "pipe: %s", strerror(errno));
	char *argv[5] = { "sbatch", "--parsable", NULL, NULL, NULL };
	char *depopt = dep ? xasprintf("--dependency=afterany:%s", dep) : NULL;
	argv[2] = dep ? depopt : (char *)script;
	argv[3] = dep ? (char *)script : NULL;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	pid_t pid;
	int e = posix_spawnp(&pid, "sbatch", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	free(depopt);
	int rc = 0, status = 0;
	if (e) {
		close(fds[0]);
		return err_setc(err, -SIM_EIO, "cannot run sbatch: %s",
				strerror(e));
	}
	size_t n = 0;
	ssize_t r;
	while (n < 63 && (r = read(fds[0], id + n, 63 - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	id[n] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* "--parsable" prints "jobid" or "jobid;cluster". */
	id[strcspn(id, ";\r\n")] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !*id)
		rc = err_setc(err, -SIM_EIO, "sbatch failed on '%s'", script);
	return rc;
}

static int bad_value(struct sim_error *err)
{
	return err_setc(err, -SIM_EINPUT, "slurm: a name, path or option "
			"holds a control character, which an #SBATCH line "
			"cannot hold");
}

int sweep_slurm(const struct sweep *sw, const struct sweep_opts *so,
		const struct sweep_slurm_opts *sl, const char *exe,
		char **report, struct sim_error *err)
{
	unsigned n = sl->tasks ? sl->tasks
			       : (unsigned)(sw->nruns < 100 ? sw->nruns : 100);
	if (n == 0)
		n = 1;
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return err_setc(err, -SIM_EIO, "getcwd: %s", strerror(errno));
	char *out = absolute(so->outdir);
	char *sdir = path_join(out, "slurm");
	char *array = path_join(sdir, "sweep.sbatch");
	char *merge = path_join(sdir, "merge.sbatch");
	char *qexe = sh_quote(exe), *qfile = sh_quote(sw->path);
	char *qout = sh_quote(out), *qcwd = sh_quote(cwd);
	char *plugins = xstrdup("");
	char ida[64] = "", idm[64] = "";
	struct afile af;
	int rc = mkdir_p(sdir, err);
	for (size_t i = 0; i < so->nplugins; i++) {
		char *q = sh_quote(so->plugins[i]);
		char *t = xasprintf("%s --plugin %s", plugins, q);
		free(plugins);
		free(q);
		plugins = t;
	}
	if (!rc)
		rc = sweep_write_manifest(sw, out, err);
	if (!rc)
		rc = afile_open(&af, array, err);
	if (rc)
		goto out;
	if (!header(af.f, sw->name, sl) ||
	    !sbatch_line(af.f, "output", sdir, true, "/task-%a.log")) {
		afile_abort(&af);
		rc = bad_value(err);
		goto out;
	}
	fprintf(af.f, "#SBATCH --array=1-%u\n#SBATCH --cpus-per-task=%u\n",
		n, sl->cpus ? sl->cpus : 1);
	fprintf(af.f, "# %zu runs in %u tasks: task i runs k = i-1, "
		"i-1+%u, ...\ncd %s || exit 2\nexec %s sweep %s -o %s "
		"--shard \"$SLURM_ARRAY_TASK_ID/%u\" -j %u --no-plots%s%s%s\n",
		sw->nruns, n, n, qcwd, qexe, qfile, qout, n,
		sl->cpus ? sl->cpus : 1, plugins, so->check ? " --check" : "",
		so->lenient ? " --lenient" : "");
	rc = afile_commit(&af, err);
	if (!rc)
		rc = afile_open(&af, merge, err);
	if (rc)
		goto out;
	char *mjob = xasprintf("%s-merge", sw->name);
	bool ok = header(af.f, mjob, sl) &&
		  sbatch_line(af.f, "output", sdir, true, "/merge.log");
	free(mjob);
	if (!ok) {
		afile_abort(&af);
		rc = bad_value(err);
		goto out;
	}
	fprintf(af.f, "cd %s || exit 2\nexec %s merge %s%s\n", qcwd, qexe,
		qout, so->no_plots ? " --no-plots" : "");
	rc = afile_commit(&af, err);
	if (!rc)
		rc = chmod(array, 0755) || chmod(merge, 0755)
			? err_setc(err, -SIM_EIO, "chmod: %s", strerror(errno))
			: 0;
	if (!rc && sl->submit) {
		rc = sbatch(NULL, array, ida, err);
		if (!rc)
			rc = sbatch(ida, merge, idm, err);
	}
	if (!rc)
		*report = sl->submit
			? xasprintf("slurm: %s (%u tasks, %zu runs): job %s\n"
				    "slurm: %s: job %s, after job %s\n", array,
				    n, sw->nruns, ida, merge, idm, ida)
			: xasprintf("slurm: %s (%u tasks, %zu runs)\nslurm: "
				    "%s (after the array)\nsubmit: sbatch "
				    "%s, then sbatch --dependency=afterany:"
				    "<array job id> %s\n", array, n,
				    sw->nruns, merge, array, merge);
out:
	free(plugins);
	free(qcwd);
	free(qout);
	free(qfile);
	free(qexe);
	free(merge);
	free(array);
	free(sdir);
	free(out);
	return rc;
}
