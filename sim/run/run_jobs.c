/*
 * The runs of `clustersim run`, one after another or N at a time
 * (run_jobs.h).
 *
 * With -j N each run is a task of the worker pool (base/pool.h): the child
 * simulates and writes its run folder, and hands back its struct
 * run_result through the pool's shared slot.  The result's pointers
 * (label, policy, workload, parameters) point into memory the parent had
 * before the fork - the experiment and its resolved policies - so they
 * hold in the parent too; the job and sample arrays, the child's own, are
 * NULL by then.  The parent writes summary.csv and the manifest from
 * runs[] in the fixed policy x seed order, so no output depends on which
 * run ended first: they are the bytes of -j 1.
 *
 * The children draw no progress line (N of them would garble one line);
 * the parent draws "runs: K/N done".  What a child prints (warnings,
 * --stats lines) goes to a buffer in its slot, which the parent prints in
 * run order once every earlier run has ended.
 *
 * Memory: each child works on its own copy of the jobs (the engine copies
 * the trace's jobs for each run; a generated workload is made in the
 * child), so N runs at a time hold N copies of the job records.
 */
#include "run/run_jobs.h"

#include <stdlib.h>
#include <sys/wait.h>

#include "base/pool.h"
#include "base/util.h"
#include "engine/sim.h"

/* What a run prints to msg, at most this many bytes (the rest is cut). */
#define RUN_MSG_MAX 16384

/* A run's result slot in the pool's shared memory. */
struct run_slot {
	struct run_result res;    /* the run's result */
	char msg[RUN_MSG_MAX];    /* what it printed to msg, NUL-ended */
};

/* The state of one run_jobs(). */
struct jobs_state {
	run_jobs_fn one;
	void *ctx;
	size_t n;
	const char *const *names;
	struct run_result *runs;
	FILE *msg;
	bool show;
	char **texts;    /* by run: what it printed, until printed */
	bool *ended;     /* by run: it has ended */
	char *bad;       /* by run: 0 ok, 1 failed, 2 its process was
	                    killed */
	size_t printed;  /* the runs whose texts are printed (a prefix) */
	size_t done;     /* runs ended */
	bool stop;       /* a run failed: print no later run's text */
};

static void fmt_hms(char *buf, size_t n, double s)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;
	if (t >= 86400)
		snprintf(buf, n, "%ldd%02ld:%02ld:%02ld", t / 86400,
			 t / 3600 % 24, t / 60 % 60, t % 60);
	else
		snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60,
			 t % 60);
}

void run_progress_draw(void *ctx, size_t ended, size_t total)
{
	struct run_progress *p = ctx;
	double now = mono_seconds();
	if (p->done || (ended < total && now - p->last < 0.25))
		return;
	p->done = ended == total;
	p->last = now;
	size_t ns = 0;
	const struct sample *sm = p->s ? sim_samples(p->s, &ns) : NULL;
	double rate = now > p->t0 ? (double)ended / (now - p->t0) : 0;
	char simt[32], eta[32];
	fmt_hms(simt, sizeof(simt),
		ns ? (double)sm[ns - 1].t / (double)SIM_SEC : 0);
	if (rate > 0 || ended == total)
		fmt_hms(eta, sizeof(eta), rate > 0 ? (total - ended) / rate : 0);
	else
		snprintf(eta, sizeof(eta), "-");
	fprintf(stderr, "\r\033[K[%zu/%zu] %s: %zu/%zu jobs, simulated %s, "
		"%.0f jobs/s, ETA %s", p->run, p->nruns, p->label, ended,
		total, simt, rate, eta);
	if (ended == total)
		fputs("\n", stderr);
}

/* In the child: run k, its messages into the slot. */
static int task_run(void *ctx, size_t k, void *slot, struct sim_error *err)
{
	const struct jobs_state *st = ctx;
	struct run_slot *rs = slot;
	/* One byte short, so that the zeroed slot stays NUL-ended. */
	FILE *m = fmemopen(rs->msg, sizeof(rs->msg) - 1, "w");
	if (!m) {
		err_set(err, "cannot buffer the run's messages");
		return 1;
	}
	int rc = st->one(st->ctx, k, &rs->res, m, err);
	fclose(m);
	return rc;
}

/* Prints the texts of the runs ended in order since the last call. */
static void print_ready(struct jobs_state *st)
{
	bool cleared = false;
	while (!st->stop && st->printed < st->n && st->ended[st->printed]) {
		char *t = st->texts[st->printed];
		if (t && *t) {
			if (st->show && !cleared)
				fputs("\r\033[K", st->msg);
			cleared = true;
			fputs(t, st->msg);
		}
		st->stop = st->bad[st->printed] != 0;
		st->printed++;
	}
}

/* In the parent: run k ended. */
static void task_ended(void *ctx, size_t k, int status, const void *slot,
		       const struct sim_error *err)
{
	struct jobs_state *st = ctx;
	const struct run_slot *rs = slot;
	(void)err;
	st->ended[k] = true;
	st->done++;
	st->bad[k] = WIFSIGNALED(status) ? 2 :
		     !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	if (!st->bad[k]) {
		st->runs[k] = rs->res;
		SIM_ASSERT(!rs->res.jobs && !rs->res.samples &&
			   !rs->res.gpu_types);
	}
	st->texts[k] = xstrdup(rs->msg);
	print_ready(st);
	if (st->show) {
		fprintf(st->msg, "\r\033[Kruns: %zu/%zu done", st->done,
			st->n);
		if (st->done == st->n)
			fputc('\n', st->msg);
		fflush(st->msg);
	}
}

int run_jobs(unsigned jobs, size_t n, run_jobs_fn one, void *ctx,
	     const char *const *names, struct run_result *runs, FILE *msg,
	     bool show, struct sim_error *err)
{
	struct jobs_state st = {
		.one = one, .ctx = ctx, .n = n, .names = names, .runs = runs,
		.msg = msg, .show = show,
		.texts = xcalloc(n + 1, sizeof(*st.texts)),
		.ended = xcalloc(n + 1, sizeof(*st.ended)),
		.bad = xcalloc(n + 1, sizeof(*st.bad)),
	};
	struct pool p = {
		.jobs = jobs, .ntasks = n, .slot_size = sizeof(struct run_slot),
		.stop_on_failure = true, .run = task_run,
		.ended = task_ended, .ctx = &st,
	};
	size_t failed = 0;
	int rc = pool_run(&p, &failed, err);
	if (show && st.done < n)
		fputs("\r\033[K", msg); /* a failure ended the line early */
	if (rc > 0 && st.bad[failed] == 2) {
		struct sim_error why = *err;
		err_set(err, "%s: its process was %s", names[failed],
			why.msg);
	}
	if (rc > 0 && rc != 2)
		rc = 1;
	else if (rc < 0)
		rc = 1;
	for (size_t k = 0; k < n; k++)
		free(st.texts[k]);
	free(st.texts);
	free(st.ended);
	free(st.bad);
	return rc;
}
