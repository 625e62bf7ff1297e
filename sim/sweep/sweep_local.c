/*
 * The local sweep driver: `clustersim sweep FILE -j N`.
 *
 * Each run executes in a child of the worker pool (base/pool.h: a fork,
 * no exec, as the parent has already loaded and checked the sweep), at
 * most N at a time, so a run that crashes or runs out of memory costs
 * that run only, and a child dies with its driver, so a killed sweep
 * leaves no run writing.  The driver holds the results folder's lock
 * (base/outdir.h) for the children, which inherit it.  A child exits 0,
 * SWEEP_SKIPPED (its results were already there), 1 or 2 (the error in
 * OUT/<run>/error.txt); a child killed by a signal gets that error.txt
 * from the parent.  Then, unless this process is one shard of several, the
 * run folders are merged into summary.csv.  The driver is a driver, not a
 * library: it prints its progress line and summary to so->msg / so->out.
 */
#include "sweep/sweep.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/outdir.h"
#include "base/pool.h"
#include "base/util.h"

static void fmt_eta(char *buf, size_t n, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60,
			 t % 60);
	else
		snprintf(buf, n, "%ld:%02ld", t / 60, t % 60);
}

/* "sweep: 37/200 runs (2 skipped, 1 failed), 12.3 runs/s, ETA 0:13":
 * redrawn in place on a terminal, else a line every 10 s and at the end.
 * The rate counts runs that ran, so skipped ones do not shorten the ETA. */
void sweep_progress(FILE *f, struct sweep_tally *t, bool force)
{
	double now = mono_seconds(), el = now - t->t0;
	if (!force && !t->tty && now - t->last < 10)
		return;
	t->last = now;
	char eta[32] = "?";
	double rate = el > 0 ? (double)t->ran / el : 0;
	size_t left = t->total - t->done;
	if (left == 0)
		fmt_eta(eta, sizeof(eta), 0);
	else if (rate > 0)
		fmt_eta(eta, sizeof(eta), (double)left / rate);
	fprintf(f, "%ssweep: %zu/%zu runs (%zu skipped, %zu failed), "
		"%.1f runs/s, ETA %s%s", t->tty ? "\r" : "", t->done,
		t->total, t->skipped, t->failed, rate, eta,
		t->tty ? "\033[K" : "\n");
	if (t->tty && t->done == t->total)
		fputc('\n', f);
	fflush(f);
}

int sweep_ended(const struct sweep *sw, const struct sweep_opts *so,
		size_t k, int status)
{
	int x = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (x == 0 || x == 1 || x == 2 || x == SWEEP_SKIPPED)
		return x; /* a failed run wrote its own error.txt */
	struct sim_error e;
	char *dir = path_join(so->outdir, sw->runs[k].dir);
	char *path = path_join(dir, "error.txt");
	char *msg = WIFSIGNALED(status) ?
		    xasprintf("%s: killed by signal %d (%s)\n",
			      sw->runs[k].dir, WTERMSIG(status),
			      strsignal(WTERMSIG(status))) :
		    xasprintf("%s: its process exited with status %d\n",
			      sw->runs[k].dir, x);
	if (mkdir_p(dir, &e) == 0)
		write_file_atomic(path, msg, &e);
	free(msg);
	free(path);
	free(dir);
	return 1;
}

/* A sweep_pool() of runs. */
struct batch {
	const struct sweep *sw;
	const struct sweep_opts *so;
	const size_t *runs;     /* the runs, by task */
	struct sweep_tally *t;  /* NULL: no tally */
	int *last;              /* the last code, or NULL */
};

/* In the child: one run. */
static int batch_run(void *ctx, size_t k, void *slot, struct sim_error *err)
{
	const struct batch *b = ctx;
	(void)slot;
	(void)err; /* the run writes its own error.txt */
	struct sim_error e = { .msg = "" };
	return sweep_exec(b->sw, b->so, b->runs[k], &e);
}

/* In the parent: how it ended, counted. */
static void batch_ended(void *ctx, size_t k, int status, const void *slot,
			const struct sim_error *err)
{
	const struct batch *b = ctx;
	struct sweep_tally *t = b->t;
	(void)slot;
	(void)err;
	int code = sweep_ended(b->sw, b->so, b->runs[k], status);
	if (b->last)
		*b->last = code;
	if (!t)
		return;
	t->done++;
	if (code == 0)
		t->ran++;
	else if (code == SWEEP_SKIPPED)
		t->skipped++;
	else
		t->failed++;
	if (!b->so->quiet)
		sweep_progress(b->so->msg, t, t->done == t->total);
}

int sweep_pool(const struct sweep *sw, const struct sweep_opts *so,
	       const size_t *runs, size_t n, unsigned jobs,
	       struct sweep_tally *t, int *last, struct sim_error *err)
{
	struct batch b = { .sw = sw, .so = so, .runs = runs, .t = t,
			   .last = last };
	struct pool p = { .jobs = jobs, .ntasks = n, .run = batch_run,
			  .ended = batch_ended, .ctx = &b };
	int rc = pool_run(&p, NULL, err);
	return rc < 0 ? rc : 0; /* a failed run is counted, not an error */
}

/* Prints the failed runs' errors (from their error.txt). */
static void list_failures(const struct sweep *sw, const struct sweep_opts *so)
{
	for (size_t k = 0; k < sw->nruns; k++) {
		if (!sweep_in_shard(so, k))
			continue;
		char *path = xasprintf("%s/%s/error.txt", so->outdir,
				       sw->runs[k].dir);
		FILE *f = fopen(path, "r");
		if (f) {
			char line[1200];
			if (fgets(line, sizeof(line), f))
				fprintf(so->msg, "  %s: %s%s", sw->runs[k].dir,
					line,
					strchr(line, '\n') ? "" : "\n");
			fclose(f);
		}
		free(path);
	}
}

int sweep_finish(const struct sweep *sw, const struct sweep_opts *so,
		 const struct sweep_tally *t, struct sim_error *err)
{
	int code = t->failed ? 1 : 0;
	fprintf(so->out, "sweep: %zu runs: %zu ran, %zu skipped (results "
		"already there), %zu failed, in %.1f s\n", t->total, t->ran,
		t->skipped, t->failed, mono_seconds() - t->t0);
	if (t->failed) {
		fprintf(so->msg, "clustersim: %zu runs failed:\n", t->failed);
		list_failures(sw, so);
	}
	if (so->shard_n) {
		fprintf(so->out, "shard %u/%u done; when every shard is: "
			"clustersim merge %s\n", so->shard_i, so->shard_n,
			so->outdir);
		return code;
	}
	size_t nfailed = 0, nmissing = 0;
	struct sim_error warn;
	if (sweep_merge(so->outdir, so->no_plots, &nfailed, &nmissing, &warn,
			err) != 0)
		return 1;
	if (warn.msg[0])
		fprintf(so->msg, "clustersim: warning: %s\n", warn.msg);
	fprintf(so->out, "results: %s/ (summary.csv, manifest.json, "
		"<label>-s<seed>/%s, report.html)\n", so->outdir,
		so->no_plots ? "" : ", plots/");
	return code;
}

int sweep_run_local(const struct sweep *sw, const struct sweep_opts *so,
		    struct sim_error *err)
{
	size_t *runs = xcalloc(sw->nruns + 1, sizeof(*runs));
	struct sweep_tally t = { .t0 = mono_seconds(),
				 .tty = isatty(fileno(so->msg)) };
	struct outdir od = { .fd = -1 };
	int code = 1;

	for (size_t k = 0; k < sw->nruns; k++)
		if (sweep_in_shard(so, k))
			runs[t.total++] = k;
	t.last = t.t0;
	int claim = sweep_claim(sw, so, &od, err);
	if (claim) {
		code = claim == -SIM_EINPUT ? 2 : 1;
		goto out;
	}
	if (sweep_pool(sw, so, runs, t.total, so->jobs, &t, NULL, err) != 0)
		goto out; /* a fork failed: the started runs have ended */
	if (!so->quiet && t.total == 0)
		sweep_progress(so->msg, &t, true);
	code = sweep_finish(sw, so, &t, err);
out:
	outdir_unlock(&od);
	free(runs);
	return code;
}
