/*
 * The environment's inputs: the experiment's trace (read once) or
 * generator, its cluster, and the episode windows with their fixed
 * train/test split (docs/rl.md, "Episodes").
 *
 * A trace of n jobs gives W = n / window_jobs windows of consecutive jobs
 * in submit order (one, the whole trace, when window_jobs is 0); the test
 * split is the last test_windows of them (default a fifth, none when W is
 * 1) and the train split the first train_windows (default all the others),
 * so that no test window is ever trained on.  A generated workload gives
 * window i of the train split from seed stream i of the experiment's
 * first seed, and window i of the test split from stream RL_WINDOWS_MAX +
 * i: never the same seed.  The trace, the cluster, the jobs' bindings and
 * checks and the GPU speed model are a run's (exp_inputs.h).
 */
#include "rl/rl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "base/util.h"

/* The split of a trace's windows, defaults filled in. */
static int split_trace(struct env *v, const char *prefix,
		       struct sim_error *err)
{
	struct rl_spec *r = &v->rl;
	uint64_t wj = r->window_jobs ? r->window_jobs : v->in.w.n;
	if (wj > v->in.w.n)
		return err_set(err, "%s$.rl.window_jobs: the trace has %zu "
			       "jobs, fewer than one window of '%" PRIu64 "'",
			       prefix, v->in.w.n, wj);
	uint64_t nw = v->in.w.n / wj;
	uint64_t test = r->test_given ? r->test_windows
		      : nw >= 2 ? (nw / 5 ? nw / 5 : 1) : 0;
	uint64_t train = r->train_windows ? r->train_windows
		       : nw > test ? nw - test : 0;
	if (train + test > nw)
		return err_set(err, "%s$.rl: train_windows '%" PRIu64 "' and "
			       "test_windows '%" PRIu64 "' ask more than the "
			       "%" PRIu64 " windows of %" PRIu64 " jobs in the "
			       "trace", prefix, train, test, nw, wj);
	r->window_jobs = wj;
	r->train_windows = (uint32_t)train;
	r->test_windows = (uint32_t)test;
	v->nwin = v->test ? test : train;
	v->win0 = v->test ? nw - test : 0;
	return 0;
}

int rl_load(struct env *v, struct sim_error *err)
{
	struct experiment *e = &v->e;
	char *prefix = xasprintf("%s: ", e->path);
	uint64_t pinned;
	struct sim_error note;
	int rc = exp_inputs_trace(&v->in, e, err);
	if (!rc)
		rc = exp_inputs_setup(&v->in, e, &pinned, &note, err);
	if (!rc && v->in.have_w) {
		rc = split_trace(v, prefix, err);
	} else if (!rc) {
		struct rl_spec *r = &v->rl;
		if (!r->train_windows)
			r->train_windows = 80;
		if (!r->test_given)
			r->test_windows = 20;
		v->nwin = v->test ? r->test_windows : r->train_windows;
	}
	if (!rc && !v->nwin)
		rc = err_set(err, "%s$.rl.%s_windows: the %s split has no "
			     "window", prefix, v->test ? "test" : "train",
			     v->test ? "test" : "train");
	free(prefix);
	return rc;
}

/* Copies n jobs from src's job first into the episode's array,
 * renumbered from 0; the rest of the window is src's, borrowed
 * (workload_borrow). */
static void take_jobs(struct env *v, const struct workload *src,
		      size_t first, size_t n)
{
	xgrow(&v->ew.jobs, &v->jobcap, n ? n : 1, sizeof(*v->ew.jobs));
	memcpy(v->ew.jobs, src->jobs + first, n * sizeof(*src->jobs));
	for (size_t i = 0; i < n; i++)
		v->ew.jobs[i].idx = (uint32_t)i;
	v->ew.n = n;
	workload_borrow(&v->ew, src, first);
}

int rl_window(struct env *v, size_t w, struct sim_error *err)
{
	SIM_ASSERT(w < v->nwin);
	if (!v->e.workload.generated) {
		size_t wj = (size_t)v->rl.window_jobs;
		take_jobs(v, &v->in.w, (v->win0 + w) * wj, wj);
		return 0;
	}
	uint64_t idx = v->test ? RL_WINDOWS_MAX + w : w;
	uint64_t seed = splitmix64_stream(v->e.seeds[0], idx);
	uint64_t pinned;
	struct sim_error note;
	workload_release(&v->gw);
	int rc = exp_inputs_generate(&v->in, &v->e, seed, &v->gw, &pinned,
				     &note, err);
	if (rc)
		return rc;
	size_t n = v->gw.n;
	if (v->rl.window_jobs && v->rl.window_jobs < n)
		n = (size_t)v->rl.window_jobs;
	take_jobs(v, &v->gw, 0, n);
	return 0;
}
