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
 * i: never the same seed.  GPU jobs run at the speeds of the experiment's
 * speed model, as in a run.
 */
#include "rl/rl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "base/util.h"
#include "speed/jobclass.h"

static int load_cluster(struct env *v, const char *prefix,
			struct sim_error *err)
{
	struct experiment *e = &v->e;
	int rc;
	if (e->cluster_from_trace) {
		struct sim_error e2;
		rc = cluster_spec_from_header(&v->cluster, v->w.max_procs,
					      v->w.max_nodes, &e2);
		if (rc)
			return err_set(err, "%s: %s", e->workload.trace,
				       e2.msg);
		v->cluster.exclusive = e->cluster.exclusive;
		v->cluster.rack_nodes = e->cluster.rack_nodes;
	} else {
		cluster_spec_copy(&v->cluster, &e->cluster);
	}
	rc = cluster_spec_check(&v->cluster, prefix, err);
	if (!rc && v->have_w)
		rc = cluster_spec_check_vcs(&v->cluster, prefix, v->w.jobs,
					    v->w.n, v->w.groups, v->w.ngroups,
					    err);
	return rc;
}

/* The speed model of GPU jobs, as `clustersim run` sets it up
 * (sim/run/runner.c): the GPU types' figures checked, the fabric, the
 * reference type; large-model jobs of the trace kept to the types they
 * fit.  Nothing on a cluster without GPUs (every job at its own speed). */
static int load_speed(struct env *v, const char *prefix,
		      struct sim_error *err)
{
	const struct experiment *e = &v->e;
	const struct cluster_spec *c = &v->cluster;
	uint64_t gpus = 0, nodes = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		gpus += (uint64_t)c->groups[g].count * c->groups[g].gpus;
		nodes += c->groups[g].count;
	}
	if (!gpus)
		return 0;
	int rc = speed_check(c, &e->throughputs, v->have_w ? v->w.jobs : NULL,
			     v->have_w ? v->w.n : 0, e->workload.draw_classes,
			     prefix, err);
	if (rc)
		return rc;
	v->speed.net = e->network;
	v->speed.net.rack_nodes = c->rack_nodes ? c->rack_nodes
						: (uint32_t)nodes;
	rc = net_spec_check(&v->speed.net, prefix, err);
	if (rc)
		return rc;
	v->speed.ref_gpu = jobclass_gpu_lookup(e->workload.reference_gpu,
					       NULL);
	SIM_ASSERT(v->speed.ref_gpu >= 0); /* checked by the loader */
	v->speed.draw_classes = e->workload.draw_classes;
	v->speed.thr = &e->throughputs;
	v->use_speed = true;
	return v->have_w ? rl_fit_llm(v, prefix, err) : 0;
}

int rl_fit_llm(struct env *v, const char *prefix, struct sim_error *err)
{
	uint64_t pinned;
	if (!v->use_speed || !v->w.nllm)
		return 0;
	return speed_llm_fit(&v->cluster, &v->e.throughputs, v->speed.ref_gpu,
			     v->w.jobs, v->w.n, v->w.llm, v->w.nllm, prefix,
			     &pinned, err);
}

/* The split of a trace's windows, defaults filled in. */
static int split_trace(struct env *v, const char *prefix,
		       struct sim_error *err)
{
	struct rl_spec *r = &v->rl;
	uint64_t wj = r->window_jobs ? r->window_jobs : v->w.n;
	if (wj > v->w.n)
		return err_set(err, "%s$.rl.window_jobs: the trace has %zu "
			       "jobs, fewer than one window of '%" PRIu64 "'",
			       prefix, v->w.n, wj);
	uint64_t nw = v->w.n / wj;
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
	int rc = 0;
	if (!e->workload.generated) {
		struct trace_opts o = e->workload.opts;
		o.thr = &e->throughputs;
		rc = trace_load(e->workload.trace, &o, &v->w, err);
		if (rc)
			goto out;
		v->have_w = true;
		if (v->w.n == 0) {
			rc = err_set(err, "%s: no job left to run",
				     e->workload.trace);
			goto out;
		}
		rc = split_trace(v, prefix, err);
	} else {
		struct rl_spec *r = &v->rl;
		if (!r->train_windows)
			r->train_windows = 80;
		if (!r->test_given)
			r->test_windows = 20;
		v->nwin = v->test ? r->test_windows : r->train_windows;
	}
	if (!rc)
		rc = load_cluster(v, prefix, err);
	if (!rc)
		rc = load_speed(v, prefix, err);
	if (!rc && !v->nwin)
		rc = err_set(err, "%s$.rl.%s_windows: the %s split has no "
			     "window", prefix, v->test ? "test" : "train",
			     v->test ? "test" : "train");
out:
	free(prefix);
	return rc;
}

/* Copies n jobs into the episode's array, renumbered from 0. */
static void take_jobs(struct env *v, const struct workload *src,
		      const struct job *jobs, size_t n)
{
	xgrow(&v->ew.jobs, &v->jobcap, n ? n : 1, sizeof(*v->ew.jobs));
	memcpy(v->ew.jobs, jobs, n * sizeof(*jobs));
	for (size_t i = 0; i < n; i++)
		v->ew.jobs[i].idx = (uint32_t)i;
	v->ew.n = n;
	v->ew.groups = src->groups;
	v->ew.ngroups = src->ngroups;
	v->ew.llm = src->llm;
	v->ew.nllm = src->nllm;
	v->ew.max_procs = src->max_procs;
	v->ew.max_nodes = src->max_nodes;
}

int rl_window(struct env *v, size_t w, struct sim_error *err)
{
	SIM_ASSERT(w < v->nwin);
	if (!v->e.workload.generated) {
		size_t wj = (size_t)v->rl.window_jobs;
		take_jobs(v, &v->w, v->w.jobs + (v->win0 + w) * wj, wj);
		return 0;
	}
	uint64_t idx = v->test ? RL_WINDOWS_MAX + w : w;
	uint64_t seed = splitmix64_stream(v->e.seeds[0], idx);
	if (v->have_w)
		workload_release(&v->w);
	v->have_w = false;
	int rc = gen_workload(&v->e.workload.gen, seed, &v->e.workload.opts,
			      &v->w, err);
	if (rc)
		return rc;
	v->have_w = true;
	char *prefix = xasprintf("%s: ", v->e.path);
	rc = rl_fit_llm(v, prefix, err);
	free(prefix);
	if (rc)
		return rc;
	size_t n = v->w.n;
	if (v->rl.window_jobs && v->rl.window_jobs < n)
		n = (size_t)v->rl.window_jobs;
	take_jobs(v, &v->w, v->w.jobs, n);
	return 0;
}
