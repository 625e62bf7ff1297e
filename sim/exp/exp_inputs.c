/*
 * An experiment's inputs prepared once for its runs (exp_inputs.h): the
 * same steps, in the same order, for `clustersim run` and the learning
 * environment, so that an episode sees the cluster, the bindings and
 * the speeds a run sees.
 */
#include "exp/exp_inputs.h"

#include <inttypes.h>
#include <stdlib.h>

#include "speed/jobclass.h"
#include "base/util.h"

int exp_inputs_trace(struct exp_inputs *in, struct experiment *e,
		     struct sim_error *err)
{
	if (e->workload.generated)
		return 0;
	double t0 = mono_seconds();
	struct trace_opts o = e->workload.opts;
	o.thr = &e->throughputs; /* Gavel steps -> run time */
	int rc = trace_load(e->workload.trace, &o, &in->w, err);
	if (rc)
		return rc;
	in->have_w = true;
	in->load_s = mono_seconds() - t0;
	/* The manifest hashes the bytes that were read. */
	exp_note_input(e, e->workload.trace, in->w.sha256);
	return 0;
}

/* The cluster: sized from the trace's header (from_trace), else a copy
 * of the experiment's, so both cases release the same way. */
static int size_cluster(struct exp_inputs *in, const struct experiment *e,
			const char *prefix, struct sim_error *err)
{
	if (!e->cluster_from_trace) {
		cluster_spec_copy(&in->cluster, &e->cluster);
		return 0;
	}
	if (!in->have_w)
		return err_set(err, "%s$.cluster.from_trace: needs a trace "
			       "workload", prefix);
	struct sim_error e2;
	int rc = cluster_spec_from_header(&in->cluster, in->w.max_procs,
					  in->w.max_nodes, &e2);
	if (rc)
		return err_set(err, "%s: %s", e->workload.trace, e2.msg);
	in->cluster.exclusive = e->cluster.exclusive;
	in->cluster.rack_nodes = e->cluster.rack_nodes;
	cluster_slurm_copy(&in->cluster, &e->cluster);
	in->cluster.part_from = e->cluster.part_from;
	in->cluster.qos_from = e->cluster.qos_from;
	uint64_t nodes = in->cluster.groups[0].count;
	if (e->limits.nodes && nodes > e->limits.nodes)
		return err_set(err, "%s$.cluster.from_trace: the trace's "
			       "header gives %" PRIu64 " nodes, more than the "
			       "limit %" PRIu64 ": raise $.limits.nodes",
			       prefix, nodes, e->limits.nodes);
	return 0;
}

/* The jobs of w against the cluster: their tenants and partitions bound,
 * the virtual clusters and the shapes checked. */
static int check_jobs(const struct exp_inputs *in, const struct experiment *e,
		      const struct workload *w, const int32_t *qp,
		      const char *prefix, struct sim_error *err)
{
	const struct cluster_spec *c = &in->cluster;
	int rc = 0;
	if (c->ntenants)
		rc = workload_bind_tenants(w, c, e->workload.project_from,
					   prefix, NULL, err);
	if (!rc && (c->nparts || c->nqos))
		rc = cluster_slurm_bind(c, w->jobs, w->n, qp,
					qp ? w->qline : NULL,
					qp ? e->workload.trace : NULL,
					w->groups, w->ngroups, prefix, NULL,
					NULL, err);
	if (!rc)
		rc = cluster_spec_check_vcs(c, prefix, w->jobs, w->n,
					    w->groups, w->ngroups, err);
	if (!rc)
		rc = cluster_spec_check_shapes(c, prefix, w->jobs, w->n, err);
	return rc;
}

/* Large-model jobs of w kept to the GPU types they fit. */
static int fit_llm(const struct exp_inputs *in, const struct experiment *e,
		   const struct workload *w, const char *prefix,
		   uint64_t *pinned, struct sim_error *note,
		   struct sim_error *err)
{
	*pinned = 0;
	if (!in->use_speed || !w->nllm)
		return 0;
	int rc = speed_llm_fit(&in->cluster, &e->throughputs,
			       in->speed.ref_gpu, w->jobs, w->n, w->llm,
			       w->nllm, prefix, pinned, err);
	if (!rc && *pinned)
		*note = *err;
	return rc;
}

/* GPU jobs' speeds (speed.h): the GPU types, figures and fabric checked.
 * Nothing on a cluster without GPUs (every job at its own speed). */
static int speed_setup(struct exp_inputs *in, const struct experiment *e,
		       const char *prefix, struct sim_error *err)
{
	const struct cluster_spec *c = &in->cluster;
	uint64_t gpus = 0, nodes = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		gpus += (uint64_t)c->groups[g].count * c->groups[g].gpus;
		nodes += c->groups[g].count;
	}
	if (!gpus)
		return 0;
	int rc = speed_check(c, &e->throughputs, in->have_w ? in->w.jobs : NULL,
			     in->have_w ? in->w.n : 0,
			     e->workload.draw_classes, prefix, err);
	if (rc)
		return rc;
	in->speed.net = e->network;
	in->speed.net.rack_nodes = c->rack_nodes ? c->rack_nodes
						 : (uint32_t)nodes;
	rc = net_spec_check(&in->speed.net, prefix, err);
	if (rc)
		return rc;
	in->speed.ref_gpu = jobclass_gpu_lookup(e->workload.reference_gpu,
						NULL);
	SIM_ASSERT(in->speed.ref_gpu >= 0); /* checked by the loader */
	in->speed.draw_classes = e->workload.draw_classes;
	in->speed.thr = &e->throughputs;
	in->use_speed = true;
	return 0;
}

int exp_inputs_setup(struct exp_inputs *in, const struct experiment *e,
		     uint64_t *pinned, struct sim_error *pinned_note,
		     struct sim_error *err)
{
	char *prefix = xasprintf("%s: ", e->path);
	int rc = 0;
	*pinned = 0;
	if (in->have_w && in->w.n == 0)
		rc = err_set(err, "%s: no job left to run: of %" PRIu64 " job "
			     "lines, the dropping rules, the window and the "
			     "limit removed all", e->workload.trace,
			     in->w.report.jobs_read);
	if (!rc)
		rc = size_cluster(in, e, prefix, err);
	if (!rc)
		rc = cluster_spec_check(&in->cluster, prefix, err);
	if (!rc && in->cluster.ntenants)
		rc = cluster_tenants_check(&in->cluster, prefix, err);
	if (!rc && in->have_w)
		rc = check_jobs(in, e, &in->w, in->w.qp, prefix, err);
	if (!rc)
		rc = speed_setup(in, e, prefix, err);
	if (!rc && in->have_w)
		rc = fit_llm(in, e, &in->w, prefix, pinned, pinned_note, err);
	free(prefix);
	return rc;
}

int exp_inputs_generate(const struct exp_inputs *in,
			const struct experiment *e, uint64_t seed,
			struct workload *gen, uint64_t *pinned,
			struct sim_error *pinned_note, struct sim_error *err)
{
	struct sim_error e2;
	*pinned = 0;
	int rc = gen_workload(&e->workload.gen, seed, &e->workload.opts, gen,
			      &e2);
	if (rc)
		return err_setc(err, rc, "%s: $.workload.generate: %s",
				e->path, e2.msg);
	if (gen->n == 0) {
		rc = err_set(err, "%s: $.workload: no generated job left after "
			     "the window and limit", e->path);
	} else {
		char *prefix = xasprintf("%s: ", e->path);
		rc = check_jobs(in, e, gen, NULL, prefix, err);
		if (!rc)
			rc = fit_llm(in, e, gen, prefix, pinned, pinned_note,
				     err);
		free(prefix);
	}
	if (rc)
		workload_release(gen);
	return rc;
}

void exp_engine_settings(const struct experiment *e, struct sim_config *cfg)
{
	cfg->schedule_each_event = e->schedule_each_event;
	cfg->submits_first = e->submits_first;
	cfg->schedule_interval = e->schedule_interval;
	cfg->start_overhead = e->start_overhead;
	cfg->checkpoint_interval = e->checkpoint_interval;
	cfg->restore_overhead = e->restore_overhead;
	cfg->restore_per_gpu = e->restore_per_gpu;
	cfg->storage_Bps = e->storage_GBps * 1e9;
	/* 0 in the experiment is off; 0 in the config the default. */
	cfg->progress_timeout = e->progress_timeout ? e->progress_timeout : -1;
	cfg->project_from = e->workload.project_from;
	cfg->interactive_fraction = e->workload.interactive_fraction;
}

void exp_inputs_release(struct exp_inputs *in)
{
	cluster_spec_release(&in->cluster);
	workload_release(&in->w);
	in->have_w = false;
}
