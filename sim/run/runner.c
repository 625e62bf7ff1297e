/*
 * The experiment runner behind `clustersim run` and `validate`.
 *
 * Everything that can be wrong with the input is found before the first
 * simulation starts: the experiment file, the policies and their
 * parameters, plug-ins, the cluster, and the trace.  Then each policy runs
 * once per seed, on its own struct sim, and each run's results are written
 * as soon as it ends (so a 1M-job run never holds two runs' job records).
 */
#include "run/runner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "exp/exp.h"
#include "exp/exp_json.h"
#include "fill/fill.h"
#include "speed/jobclass.h"
#include "report/out.h"
#include "report/report.h"
#include "run/fill_run.h"
#include "run/run_jobs.h"
#include "run/run_keep.h"
#include "run/run_measure.h"
#include "policy/registry.h"
#include "engine/sim.h"
#include "base/input.h"
#include "base/outdir.h"
#include "base/util.h"

/* One policy entry of the experiment, resolved: a job policy or, in a
 * fill experiment, a score plugin. */
struct entry {
	const struct policy_spec *spec;
	const struct policy_ops *ops;   /* the job policy, or NULL */
	const struct score_ops *score;  /* the score plugin, or NULL */
	struct pval *params;
	size_t nparams;
};

struct runner {
	const struct run_opts *o;
	struct experiment e;
	struct registry reg;
	struct entry *entries;
	size_t nentries;
	const char *outdir;
	struct workload w;          /* the trace's, when not generated */
	bool have_w;
	struct cluster_spec cluster;/* sized from the trace, when asked */
	struct speed_config speed;  /* GPU job speeds, on a GPU cluster */
	bool use_speed;
	struct run_result *runs;
	size_t nruns;
};

static double peak_rss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

/* A policy named by its plug-in file (already resolved by the loader). */
static bool is_plugin_path(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && strcmp(name + n - 3, ".so") == 0;
}

/* The names of the job policies, or of the score plugins. */
static void known_names(const struct registry *r, bool scores, char *buf,
			size_t n)
{
	size_t len = 0, count = scores ? r->nscores : r->n;
	buf[0] = '\0';
	for (size_t i = 0; i < count && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s",
					i ? ", " : "",
					scores ? r->scores[i]->name
					       : r->ops[i]->name);
}

/*
 * An entry of the right kind for the experiment: a fill or replay
 * experiment places pods with score plugins, every other one replays
 * jobs under job policies.  A score plugin takes no parameters. */
static int check_kind(const struct runner *r, const struct entry *en,
		      const char *prefix, struct sim_error *err)
{
	const struct policy_spec *ps = en->spec;
	char known[1024];
	if (r->e.has_fill && en->ops) {
		known_names(&r->reg, true, known, sizeof(known));
		return err_set(err, "%s%s: policy '%s' is not a GPU-sharing "
			       "score plugin (a fill experiment needs one of "
			       "%s)", prefix, ps->json_path, en->ops->name,
			       known);
	}
	if (!r->e.has_fill && en->score) {
		known_names(&r->reg, false, known, sizeof(known));
		return err_set(err, "%s%s: '%s' is a score plugin, for fill "
			       "and replay experiments (\"fill\"); this "
			       "experiment replays jobs and needs a job "
			       "policy (one of %s)", prefix, ps->json_path,
			       en->score->name, known);
	}
	if (en->score && ps->nparams)
		return err_set(err, "%s%s: score plugin '%s' has no "
			       "parameter '%s' (it takes none)", prefix,
			       ps->params[0].json_path, en->score->name,
			       ps->params[0].key);
	return 0;
}

/* Loads plug-ins, finds each policy, resolves its parameters. */
/* The files of an entry's PARAM_FILE parameters, read now (relative to
 * the experiment's folder) and listed among the manifest's inputs. */
static int load_param_files(struct runner *r, struct entry *en,
			    const char *prefix, struct sim_error *err)
{
	char *dir = r->e.path ? path_dirname(r->e.path) : NULL;
	int rc = policy_params_load_files(en->params, en->nparams, dir,
					  en->spec->params,
					  en->spec->nparams, prefix, err);
	free(dir);
	for (size_t i = 0; !rc && i < en->nparams; i++)
		if (en->params[i].data)
			exp_note_input(&r->e, en->params[i].path,
				       en->params[i].sha256);
	return rc;
}

static int resolve_policies(struct runner *r, struct sim_error *err)
{
	const struct experiment *e = &r->e;
	char *prefix = xasprintf("%s: ", e->path);
	int rc = 0;
	registry_init(&r->reg);
	for (size_t i = 0; i < r->o->nplugins && !rc; i++)
		rc = registry_load_plugin(&r->reg, r->o->plugins[i], NULL, NULL,
					  err);
	for (size_t i = 0; i < e->nplugins && !rc; i++)
		rc = registry_load_plugin(&r->reg, e->plugins[i], NULL, NULL,
					  err);
	r->entries = xcalloc(e->npolicies, sizeof(*r->entries));
	for (size_t i = 0; i < e->npolicies && !rc; i++) {
		const struct policy_spec *ps = &e->policies[i];
		if (r->o->only && strcmp(r->o->only, ps->label) &&
		    strcmp(r->o->only, ps->name))
			continue;
		if (r->o->one && i != r->o->one_policy)
			continue;
		struct entry *en = &r->entries[r->nentries];
		en->spec = ps;
		if (is_plugin_path(ps->name)) {
			rc = registry_load_plugin(&r->reg, ps->name, &en->ops,
						  &en->score, err);
			if (rc)
				break;
		} else if (!(en->ops = registry_find(&r->reg, ps->name)) &&
			   !(en->score = registry_find_score(&r->reg,
							     ps->name))) {
			char known[1024];
			known_names(&r->reg, r->e.has_fill, known,
				    sizeof(known));
			rc = err_set(err, "%s%s: unknown policy '%s' (known: %s)",
				     prefix, ps->json_path, ps->name, known);
			break;
		}
		rc = check_kind(r, en, prefix, err);
		if (!rc && en->ops)
			rc = policy_params_resolve(en->ops, ps->params,
						   ps->nparams, prefix,
						   &en->params, &en->nparams,
						   err);
		if (!rc)
			r->nentries++;
		if (!rc && en->ops)
			rc = load_param_files(r, en, prefix, err);
	}
	/* Let each policy check its parameters now: init() and fini() on an
	 * empty workload, so a bad value fails before any run. */
	for (size_t i = 0; i < r->nentries && !rc; i++) {
		if (!r->entries[i].ops)
			continue;
		struct workload empty = { .max_procs = -1, .max_nodes = -1 };
		struct node_group g = { .name = (char *)"check", .count = 1,
					.cpus = 1 };
		struct cluster_spec cs = { .groups = &g, .ngroups = 1 };
		struct sim_config cfg = {
			.workload = &empty, .cluster = &cs,
			.policy = r->entries[i].ops,
			.params = r->entries[i].params,
			.nparams = r->entries[i].nparams,
		};
		struct sim *s = sim_new(&cfg);
		struct sim_error e2;
		if (sim_run(s, &e2) != 0)
			rc = err_set(err, "%s%s: %s", prefix,
				     r->entries[i].spec->json_path, e2.msg);
		sim_free(s);
	}
	if (!rc && r->o->only && r->nentries == 0)
		rc = err_set(err, "%s: no policy labelled or named '%s'",
			     e->path, r->o->only);
	free(prefix);
	return rc;
}

static void report_workload(const struct runner *r, const char *what,
			    const struct workload *w)
{
	if (r->o->quiet)
		return;
	char buf[2048];
	trace_report_format(&w->report, buf, sizeof(buf));
	fprintf(r->o->msg, "%s: %zu jobs\n%s", what, w->n, buf);
}

/* Says why large-model jobs were kept off GPU types that lack their
 * memory (speed_llm_fit()'s reason for the first, in err). */
static void note_pinned(const struct runner *r, uint64_t pinned,
			const struct sim_error *err)
{
	if (pinned && !r->o->quiet)
		fprintf(r->o->msg, "clustersim: note: %s: %" PRIu64 " large-"
			"model jobs fit only some GPU types and are kept to "
			"them; the first: %s\n", r->e.path, pinned, err->msg);
}

/* GPU jobs' speeds (speed.h): check the GPU types, figures, fabric. */
static int speed_setup(struct runner *r, const char *prefix,
		       struct sim_error *err)
{
	const struct cluster_spec *c = &r->cluster;
	uint64_t gpus = 0, nodes = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		gpus += (uint64_t)c->groups[g].count * c->groups[g].gpus;
		nodes += c->groups[g].count;
	}
	if (!gpus)
		return 0;
	int rc = speed_check(c, &r->e.throughputs, r->w.jobs, r->w.n,
			     r->e.workload.draw_classes, prefix, err);
	if (rc)
		return rc;
	r->speed.net = r->e.network;
	r->speed.net.rack_nodes = c->rack_nodes ? c->rack_nodes
						: (uint32_t)nodes;
	rc = net_spec_check(&r->speed.net, prefix, err);
	if (rc)
		return rc;
	r->speed.ref_gpu = jobclass_gpu_lookup(r->e.workload.reference_gpu,
					       NULL);
	SIM_ASSERT(r->speed.ref_gpu >= 0); /* checked by the loader */
	uint64_t pinned;
	rc = speed_llm_fit(c, &r->e.throughputs, r->speed.ref_gpu, r->w.jobs,
			   r->w.n, r->w.llm, r->w.nllm, prefix, &pinned, err);
	if (rc)
		return rc;
	note_pinned(r, pinned, err);
	r->speed.draw_classes = r->e.workload.draw_classes;
	r->speed.thr = &r->e.throughputs;
	r->use_speed = true;
	return 0;
}

/* Loads the trace (once) and sizes the cluster. */
static int load_inputs(struct runner *r, struct sim_error *err)
{
	struct experiment *e = &r->e;
	char *prefix = xasprintf("%s: ", e->path);
	int rc = 0;
	if (!e->workload.generated) {
		double t0 = mono_seconds();
		struct trace_opts o = e->workload.opts;
		o.thr = &e->throughputs; /* Gavel steps -> run time */
		rc = trace_load(e->workload.trace, &o, &r->w, err);
		if (rc)
			goto out;
		r->have_w = true;
		/* The manifest hashes the bytes that were read. */
		exp_note_input(e, e->workload.trace, r->w.sha256);
		if (r->o->stats)
			fprintf(r->o->msg, "stats: load jobs=%zu load_s=%.3f\n",
				r->w.n, mono_seconds() - t0);
		report_workload(r, e->workload.trace, &r->w);
		if (r->w.n == 0) {
			rc = err_set(err, "%s: no job left to run: of %"
				     PRIu64 " job lines, the dropping rules, "
				     "the window and the limit removed all",
				     e->workload.trace,
				     r->w.report.jobs_read);
			goto out;
		}
	}
	if (e->cluster_from_trace) {
		if (!r->have_w) {
			rc = err_set(err, "%s$.cluster.from_trace: needs a "
				     "trace workload", prefix);
			goto out;
		}
		struct sim_error e2;
		rc = cluster_spec_from_header(&r->cluster, r->w.max_procs,
					      r->w.max_nodes, &e2);
		if (rc) {
			rc = err_set(err, "%s: %s", e->workload.trace, e2.msg);
			goto out;
		}
		r->cluster.exclusive = e->cluster.exclusive;
		r->cluster.rack_nodes = e->cluster.rack_nodes;
		cluster_slurm_copy(&r->cluster, &e->cluster);
		r->cluster.part_from = e->cluster.part_from;
		r->cluster.qos_from = e->cluster.qos_from;
		uint64_t nodes = r->cluster.groups[0].count;
		if (e->limits.nodes && nodes > e->limits.nodes) {
			rc = err_set(err, "%s$.cluster.from_trace: the trace's "
				     "header gives %" PRIu64 " nodes, more "
				     "than the limit %" PRIu64 ": raise "
				     "$.limits.nodes", prefix, nodes,
				     e->limits.nodes);
			goto out;
		}
	} else {
		/* A copy, so both cases release the same way. */
		cluster_spec_copy(&r->cluster, &e->cluster);
	}
	rc = cluster_spec_check(&r->cluster, prefix, err);
	if (!rc && r->cluster.ntenants)
		rc = cluster_tenants_check(&r->cluster, prefix, err);
	if (!rc && r->have_w && r->cluster.ntenants)
		rc = cluster_tenants_bind(&r->cluster,
					  (enum tenant_from)e->workload.project_from,
					  r->w.jobs, r->w.n, r->w.groups,
					  r->w.ngroups, prefix, NULL, err);
	if (!rc && r->have_w && (r->cluster.nparts || r->cluster.nqos))
		rc = cluster_slurm_bind(&r->cluster, r->w.jobs, r->w.n,
					r->w.qp, r->w.qline, e->workload.trace,
					r->w.groups, r->w.ngroups, prefix,
					NULL, NULL, err);
	if (!rc && r->have_w)
		rc = cluster_spec_check_vcs(&r->cluster, prefix, r->w.jobs,
					    r->w.n, r->w.groups, r->w.ngroups,
					    err);
	if (!rc && r->have_w)
		rc = cluster_spec_check_shapes(&r->cluster, prefix, r->w.jobs,
					       r->w.n, err);
	if (!rc)
		rc = speed_setup(r, prefix, err);
out:
	free(prefix);
	return rc;
}

/* Jobs that can never fit are rejected, counted and said: never dropped
 * silently. */
static void warn_rejected(const struct runner *r, const char *label,
			  const struct job *jobs, size_t n, uint64_t capacity,
			  const struct sim *s)
{
	uint64_t count = 0;
	const struct job *largest = NULL;
	uint64_t by_time = sim_counters(s)->rejected_max_time;
	if (by_time)
		fprintf(r->o->msg, "clustersim: warning: %s: %" PRIu64 " jobs "
			"ask more time than their partition's max_time_s and "
			"were refused at submit\n", label, by_time);
	for (size_t i = 0; i < n; i++) {
		if (jobs[i].state != JOB_REJECTED)
			continue;
		if (sim_slurm_over_time(s, &jobs[i]))
			continue; /* refused for its time, said above */
		count++;
		if (!largest || jobs[i].cpus > largest->cpus)
			largest = &jobs[i];
	}
	if (!count)
		return;
	fprintf(r->o->msg,
		"clustersim: warning: %s: %" PRIu64 " jobs can never fit on "
		"the cluster%s and were rejected (the largest, job %lld, asks "
		"%" PRIu32 " CPUs of %" PRIu64 "%s)\n",
		label, count, sim_slurm_books(s) ? " (or their partition)" : "",
		(long long)largest->id, largest->cpus, capacity,
		r->cluster.exclusive ? ", in whole nodes" : "");
}

/* The generated workload of seed, checked against the cluster's virtual
 * clusters; on an error nothing is left to release. */
static int generate(const struct runner *r, uint64_t seed,
		    struct workload *gen, struct sim_error *err)
{
	const struct experiment *e = &r->e;
	char *prefix;
	struct sim_error e2;
	int rc = gen_workload(&e->workload.gen, seed, &e->workload.opts, gen,
			      &e2);
	if (rc)
		return err_setc(err, rc, "%s: $.workload.generate: %s",
				e->path, e2.msg);
	if (gen->n == 0) {
		rc = err_set(err, "%s: $.workload: no generated job left after "
			     "the window and limit", e->path);
		goto out_gen;
	}
	prefix = xasprintf("%s: ", e->path);
	rc = cluster_spec_check_vcs(&r->cluster, prefix, gen->jobs, gen->n,
				    gen->groups, gen->ngroups, err);
	if (!rc && r->cluster.ntenants)
		rc = cluster_tenants_bind(&r->cluster,
					  (enum tenant_from)e->workload.project_from,
					  gen->jobs, gen->n, gen->groups,
					  gen->ngroups, prefix, NULL, err);
	if (!rc && (r->cluster.nparts || r->cluster.nqos))
		rc = cluster_slurm_bind(&r->cluster, gen->jobs, gen->n, NULL,
					NULL, NULL, gen->groups, gen->ngroups, prefix,
					NULL, NULL, err);
	if (!rc)
		rc = cluster_spec_check_shapes(&r->cluster, prefix, gen->jobs,
					       gen->n, err);
	uint64_t pinned;
	if (!rc && r->use_speed && gen->nllm)
		rc = speed_llm_fit(&r->cluster, &e->throughputs,
				   r->speed.ref_gpu, gen->jobs, gen->n,
				   gen->llm, gen->nllm, prefix, &pinned, err);
	if (!rc && r->use_speed && gen->nllm)
		note_pinned(r, pinned, err);
	free(prefix);
out_gen:
	if (rc)
		workload_release(gen);
	return rc;
}

static struct run_progress progress_start(const struct runner *r,
					  const char *label)
{
	return (struct run_progress){ .label = label, .run = r->nruns + 1,
		.nruns = r->nentries * r->e.nseeds, .t0 = mono_seconds() };
}

/* The experiment's root keys that set how the engine runs. */
static void engine_settings(const struct experiment *e,
			    struct sim_config *cfg)
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

/* The run's workload (r's trace, or generated into gen for this seed)
 * and its measurement window; gen is released on an error. */
static int run_workload(struct runner *r, uint64_t seed, struct workload *gen,
			const struct workload **w, struct stats_window *win,
			struct sim_error *err)
{
	int rc = 0;
	*w = &r->w;
	if (r->e.workload.generated && (rc = generate(r, seed, gen, err)))
		return rc;
	if (r->e.workload.generated)
		*w = gen;
	rc = run_measure_window(&r->e, *w, win, err);
	if (rc)
		workload_release(gen);
	return rc;
}

/* One policy x seed: simulate, compute metrics, write the run folder
 * (last: no later run reads the trace's jobs, the engine may use them). */
static int run_one(struct runner *r, const struct entry *en, uint64_t seed,
		   bool last, struct run_result *res, struct sim_error *err)
{
	struct experiment *e = &r->e;
	struct workload gen = { 0 };
	const struct workload *w;
	struct stats_window win;
	int rc = run_workload(r, seed, &gen, &w, &win, err);
	if (rc)
		return rc;
	const char *label = en->spec->label;
	bool show = !r->o->quiet && isatty(fileno(r->o->msg));
	struct run_progress pl = progress_start(r, label);
	struct sim_config cfg = {
		.workload = w,
		.cluster = &r->cluster,
		.policy = en->ops,
		.params = en->params,
		.nparams = en->nparams,
		.seed = seed,
		.sample_interval = e->timeline_interval,
		.max_samples = (size_t)e->limits.timeline_samples,
		.check = e->check || r->o->check,
		.speed = r->use_speed ? &r->speed : NULL,
		/* A generated workload, or a trace in its last run: no copy. */
		.jobs_in_place = e->workload.generated ? gen.jobs
				 : last ? r->w.jobs : NULL,
		.progress = show ? run_progress_draw : NULL,
		.progress_ctx = &pl,
		.record_allocations = e->allocations || r->o->allocations,
	};
	engine_settings(e, &cfg);
	run_measure_engine(&cfg, &win);
	struct sim *s = sim_new(&cfg);
	pl.s = s;
	double t0 = mono_seconds();
	rc = sim_run(s, err);
	double t1 = mono_seconds();
	if (rc == 0) {
		*res = (struct run_result){
			.label = label,
			.policy = en->ops->name,
			.workload = e->workload.name,
			.seed = seed,
			.params = en->params,
			.nparams = en->nparams,
			.window = &win,
		};
		out_result_from_sim(res, s, w, cfg.record_allocations);
		size_t nj = res->njobs;
		const struct job *jobs = res->jobs;
		stats_compute_window(jobs, nj, sim_capacity_cpus(s),
				     sim_capacity_gpus(s), e->bsld_tau,
				     &res->counters, &win, &res->metrics);
		if (res->counters.rejected)
			warn_rejected(r, label, jobs, nj, sim_capacity_cpus(s), s);
		if (sim_bad_call_first(s))
			fprintf(r->o->msg, "clustersim: warning: %s: %" PRIu64 " engine "
				"calls of the policy were refused; the first "
				"with a reason: it %s\n",
				label, res->counters.bad_calls,
				sim_bad_call_first(s));
		rc = out_write_run(r->outdir, res, e->bsld_tau, err);
		out_result_release(res);
		if (r->o->stats) {
			double dt = t1 - t0;
			fprintf(r->o->msg,
				"stats: run label=%s seed=%" PRIu64 " jobs=%zu "
				"events=%" PRIu64 " sim_s=%.6f jobs_per_s=%.0f "
				"events_per_s=%.0f write_s=%.3f\n",
				label, seed, nj, res->counters.events, dt,
				dt > 0 ? (double)nj / dt : 0,
				dt > 0 ? (double)res->counters.events / dt : 0,
				mono_seconds() - t1);
		}
	}
	sim_free(s);
	workload_release(&gen);
	return rc;
}

/* Every policy x seed, one after another.  Returns the exit code. */
static int run_all(struct runner *r, struct sim_error *err)
{
	for (size_t i = 0; i < r->nentries; i++) {
		for (size_t k = 0; k < r->e.nseeds; k++) {
			bool last = i + 1 == r->nentries && k + 1 == r->e.nseeds;
			int rc = run_one(r, &r->entries[i], r->e.seeds[k], last,
					 &r->runs[r->nruns], err);
			if (rc)
				return rc == -SIM_EINPUT ? 2 : 1;
			r->nruns++;
		}
	}
	return 0;
}

/* Run k of runner_run() (policy k / nseeds, seed k % nseeds), in a
 * worker process of run -j N: its messages to msg. */
static int run_task(void *ctx, size_t k, struct run_result *res, FILE *msg,
		    struct sim_error *err)
{
	struct runner *r = ctx;
	struct run_opts o = *r->o; /* this process's own, until it exits */
	o.msg = msg;
	r->o = &o;
	int rc = run_one(r, &r->entries[k / r->e.nseeds],
			 r->e.seeds[k % r->e.nseeds], false, res, err);
	return rc == -SIM_EINPUT ? 2 : rc ? 1 : 0;
}

/* Every run, o->jobs at a time (run_jobs.h).  Returns the exit code. */
static int run_parallel(struct runner *r, struct sim_error *err)
{
	size_t n = r->nentries * r->e.nseeds;
	char **names = xcalloc(n + 1, sizeof(*names));
	for (size_t k = 0; k < n; k++)
		names[k] = xasprintf("%s-s%" PRIu64,
				     r->entries[k / r->e.nseeds].spec->label,
				     r->e.seeds[k % r->e.nseeds]);
	int code = run_jobs(r->o->jobs, n, run_task, r,
			    (const char *const *)names, r->runs, r->o->msg,
			    !r->o->quiet && isatty(fileno(r->o->msg)), err);
	if (code == 0)
		r->nruns = n;
	for (size_t k = 0; k < n; k++)
		free(names[k]);
	free(names);
	return code;
}

/* A fill experiment (fill.h): its own cluster, pods and outputs. */
static int run_fill(struct runner *r, struct sim_error *err)
{
	const struct score_ops **ops = xcalloc(r->nentries + 1, sizeof(*ops));
	const char **labels = xcalloc(r->nentries + 1, sizeof(*labels));
	const char **paths = xcalloc(r->nentries + 1, sizeof(*paths));
	for (size_t i = 0; i < r->nentries; i++) {
		ops[i] = r->entries[i].score;
		labels[i] = r->entries[i].spec->label;
		paths[i] = r->entries[i].spec->json_path;
	}
	int code = fill_experiment(r->o, &r->e, ops, labels, r->nentries,
				   r->outdir, err);
	free(ops);
	free(labels);
	free(paths);
	return code;
}

/* runner_claim() of the results folder, keeping the run folders of all
 * the experiment's policies x seeds (so that `--policy X` leaves the
 * others'). */
static int claim_outdir(struct runner *r, struct outdir *od,
			struct sim_error *err)
{
	const struct experiment *e = &r->e;
	size_t n = e->npolicies * e->nseeds, k = 0;
	char **keep = xcalloc(n + 1, sizeof(*keep));
	for (size_t i = 0; i < e->npolicies; i++)
		for (size_t j = 0; j < e->nseeds; j++)
			keep[k++] = xasprintf("%s-s%" PRIu64,
					      e->policies[i].label,
					      e->seeds[j]);
	int rc = outdir_want(r->outdir, "summary.csv", false, err);
	if (!rc)
		rc = runner_claim(od, r->outdir, false,
				  (const char *const *)keep, n, r->o->msg,
				  err);
	for (size_t i = 0; i < n; i++)
		free(keep[i]);
	free(keep);
	return rc;
}

static void runner_release(struct runner *r)
{
	for (size_t i = 0; i < r->nentries; i++)
		policy_params_free(r->entries[i].params,
				   r->entries[i].nparams);
	free(r->entries);
	free(r->runs);
	cluster_spec_release(&r->cluster);
	workload_release(&r->w);
	registry_release(&r->reg);
	exp_release(&r->e);
}

/* The plots (unless --no-plots), then report.html; a problem with
 * either is a warning: the results are written. */
static void draw_plots(const struct run_opts *o, const char *outdir)
{
	struct sim_error perr = { .msg = "" };
	int prc = 0;
	if (!o->no_plots) {
		bool tty = !o->quiet && isatty(fileno(o->msg));
		if (tty)
			fputs("drawing the plots...", o->msg);
		prc = plot_results(outdir, &perr);
		if (tty)
			fputs("\r\033[K", o->msg);
		if (prc != 0)
			fprintf(o->msg, "clustersim: warning: %s\n", perr.msg);
	}
	if (report_after_plots(outdir, REPORT_RUN, o->no_plots, prc,
			       perr.msg, &perr))
		fprintf(o->msg, "clustersim: warning: %s\n", perr.msg);
}

/* The options of the event engine, refused for a fill or replay
 * experiment: -SIM_EINPUT with a message, or 0. */
static int refuse_for_fill(const struct runner *r, struct sim_error *err)
{
	const char *opt = r->o->check ? "--check" : "--allocations";
	if (!r->e.has_fill || (!r->o->check && !r->o->allocations))
		return 0;
	return err_set(err, "%s: %s does not apply to a fill or replay "
		       "experiment (it %s)", r->e.path, opt, r->o->check
		       ? "checks the event engine"
		       : "logs the event engine's placements");
}

int runner_run(const struct run_opts *o, struct sim_error *err)
{
	struct runner r = { .o = o };
	struct outdir od = { .fd = -1 };
	int code = 2, claim;
	char *old_summary = NULL, *old_manifest = NULL;
	if ((o->text ? exp_parse(o->text, o->file, &r.e, err)
		     : exp_load(o->file, &r.e, err)) != 0)
		goto out;
	if (o->text && o->text_sha256)
		exp_note_input(&r.e, o->file, o->text_sha256);
	if (o->lenient)
		r.e.workload.opts.lenient = true;
	if (resolve_policies(&r, err) != 0)
		goto out;
	r.outdir = o->outdir ? o->outdir : r.e.output;
	if (refuse_for_fill(&r, err))
		goto out;
	if (r.e.has_fill && o->jobs > 1) {
		err_set(err, "%s: -j %u does not apply to a fill or replay "
			"experiment (its policies run in one process)",
			r.e.path, o->jobs);
		goto out;
	}
	if (r.e.has_fill) {
		code = run_fill(&r, err);
		goto out;
	}
	if (o->validate_only) {
		struct input_opts io = { .max_bytes =
					 r.e.workload.opts.max_bytes };
		struct sim_error ie;
		if (!r.e.workload.generated &&
		    input_check(r.e.workload.trace, &io, &ie) != 0) {
			err_set(err, "%s: $.workload.trace: %s", r.e.path,
				ie.msg);
			goto out;
		}
		if (!r.e.cluster_from_trace &&
		    cluster_spec_check(&r.e.cluster, "", err) != 0)
			goto out;
		if (!o->quiet)
			fprintf(o->out, "%s: ok (%zu policies, %zu seeds)\n",
				o->file, r.nentries, r.e.nseeds);
		code = 0;
		goto out;
	}
	if (load_inputs(&r, err) != 0)
		goto out;
	claim = claim_outdir(&r, &od, err);
	code = claim == -SIM_EINPUT ? 2 : 1;
	if (claim)
		goto out;
	if (o->only) { /* the other runs' rows, put back after the run */
		old_summary = run_keep_read(r.outdir, "summary.csv");
		old_manifest = run_keep_read(r.outdir, "manifest.json");
	}
	r.runs = xcalloc(r.nentries * r.e.nseeds, sizeof(*r.runs));
	if ((code = o->jobs > 1 ? run_parallel(&r, err) : run_all(&r, err)))
		goto out;
	code = 1;
	if (out_write_summary(r.outdir, r.runs, r.nruns, err) != 0 ||
	    out_write_manifest(r.outdir, &r.e, r.runs, r.nruns, err) != 0 ||
	    run_keep_others(r.outdir, &r.e, old_summary, old_manifest, err))
		goto out;
	draw_plots(o, r.outdir);
	if (!o->quiet) {
		run_print_table(r.o->out, r.runs, r.nruns, &r.e.measure);
		fprintf(o->out, "\nresults: %s/ (summary.csv, manifest.json, "
			"<label>-s<seed>/, plots/, report.html)\n", r.outdir);
	}
	code = 0;
out:
	free(old_summary);
	free(old_manifest);
	outdir_unlock(&od);
	runner_release(&r);
	if (o->stats)
		fprintf(o->msg, "stats: peak_rss_mb=%.1f\n", peak_rss_mb());
	return code;
}

int runner_run_one(const struct run_opts *o, struct sim_error *err)
{
	struct runner r = { .o = o };
	struct run_result res = { 0 };
	char *dir = NULL, *mpath = NULL, *want = NULL, *have = NULL;
	size_t have_len;
	int code = 2, rc;
	rc = o->text ? exp_parse(o->text, o->file, &r.e, err)
		     : exp_load(o->file, &r.e, err);
	if (rc)
		goto out;
	if (o->text && o->text_sha256)
		exp_note_input(&r.e, o->file, o->text_sha256);
	SIM_ASSERT(o->one && o->one_policy < r.e.npolicies && r.e.nseeds);
	struct policy_spec *ps = &r.e.policies[o->one_policy];
	free(ps->label);
	ps->label = xstrdup(o->one_label);
	r.e.seeds[0] = o->one_seed;
	r.e.nseeds = 1;
	if (o->lenient)
		r.e.workload.opts.lenient = true;
	if (resolve_policies(&r, err) != 0)
		goto out;
	r.outdir = o->outdir ? o->outdir : r.e.output;
	const struct entry *en = &r.entries[0];
	if (!en->ops) {
		err_set(err, "%s: a fill experiment runs with 'clustersim run', "
			"not one run at a time", r.e.path);
		goto out;
	}
	res = (struct run_result){
		.label = ps->label, .policy = en->ops->name,
		.workload = r.e.workload.name, .seed = o->one_seed,
		.params = en->params, .nparams = en->nparams,
	};
	char name[512];
	out_run_dirname(&res, name, sizeof(name));
	dir = path_join(r.outdir, name);
	mpath = path_join(dir, "manifest.json");
	want = out_manifest_text(&r.e, &res, 1, err);
	if (!want)
		goto out;
	if (exp_read_text(mpath, 0, &have, &have_len, NULL, NULL))
		have = NULL;
	if (have && out_manifest_same(have, want)) {
		code = RUNNER_SKIPPED;
		goto out;
	}
	/* From here the folder is incomplete until the manifest is back. */
	unlink(mpath);
	if (load_inputs(&r, err) != 0)
		goto out;
	code = 1;
	if (mkdir_p(dir, err) != 0)
		goto out;
	rc = run_one(&r, en, o->one_seed, true, &res, err);
	if (rc == -SIM_EINPUT)
		code = 2;
	if (rc)
		goto out;
	/* Again, now with the digests of the inputs as they were read. */
	free(want);
	want = out_manifest_text(&r.e, &res, 1, err);
	if (!want || out_write_summary(dir, &res, 1, err) != 0 ||
	    write_file_atomic(mpath, want, err) != 0)
		goto out;
	code = 0;
out:
	free(have);
	free(want);
	free(mpath);
	free(dir);
	runner_release(&r);
	return code;
}

int runner_list_policies(const char **plugins, size_t nplugins, FILE *out,
			 struct sim_error *err)
{
	struct registry reg;
	registry_init(&reg);
	for (size_t i = 0; i < nplugins; i++) {
		if (registry_load_plugin(&reg, plugins[i], NULL, NULL, err) !=
		    0) {
			registry_release(&reg);
			return 2;
		}
	}
	for (size_t i = 0; i < reg.n; i++) {
		const struct policy_ops *p = reg.ops[i];
		fprintf(out, "%-16s %s\n", p->name, p->summary ? p->summary : "");
		for (const struct policy_param *d = p->params; d && d->name; d++)
			fprintf(out, "%-16s   %s = %s: %s\n", "", d->name, d->def,
				d->help ? d->help : "");
	}
	const struct policy_param *d = policy_engine_params();
	fprintf(out, "\nevery job policy also takes:\n%-16s   %s = %s: %s\n", "",
		d->name, d->def, d->help);
	fprintf(out, "\nscore plugins (GPU-sharing placement of pods, for "
		"fill and replay experiments):\n");
	for (size_t i = 0; i < reg.nscores; i++) {
		const struct score_ops *p = reg.scores[i];
		fprintf(out, "%-16s %s%s\n", p->name,
			p->summary ? p->summary : "",
			p->normalize ? " (normalized)" : "");
	}
	registry_release(&reg);
	return 0;
}
