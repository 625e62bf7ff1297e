/*
 * `clustersim optimize EXP.json` (optimize.h): the first N jobs of the
 * experiment's workload become one batch problem on its cluster (GPUs per
 * GPU type when the cluster has GPUs, else CPUs; run times are the
 * estimates at each GPU type's speed, in whole seconds, rounded up),
 * solved by each method asked for.  Writes to OUTPUT/optimize/:
 * summary.csv (score, lower bound, gap, evaluations, time, reproducible,
 * backend), schedule-METHOD.csv, convergence.csv, manifest.json,
 * convergence.png and .svg (gnuplot, when present) and report.html.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/outdir.h"
#include "exp/exp.h"
#include "exp/exp_json.h"
#include "eval/eval_inst.h"
#include "run/optimize.h"
#include "search/search.h"
#include "search/search_online.h"
#include "report/out.h"
#include "report/report.h"
#include "speed/speed.h"

/* ---- the batch from a workload --------------------------------------- */

static int64_t secs_up(sim_time_t t)
{
	return t <= 0 ? 0 : (t + SIM_SEC - 1) / SIM_SEC;
}

/* Types: each distinct GPU type name (untyped GPUs are one type); a
 * cluster without GPUs has one type, its CPUs.  A GPU job's run time on
 * a type is its estimate at its speed there (speed_class_rate, with the
 * experiment's reference type, overrides and drawn classes: what
 * sim_job_type_rate gives the online policies), rounded up as they do
 * (online_run_secs). */
static int build_batch(const struct experiment *e, const struct job *jobs,
		       size_t njobs, struct eval_inst *in, const char **tname,
		       struct sim_error *err)
{
	const struct cluster_spec *cs = &e->cluster;
	const struct optimize_spec *o = &e->optimize;
	int ref = e->workload.reference_gpu ?
		  jobclass_gpu_lookup(e->workload.reference_gpu, NULL) :
		  JOBCLASS_GPU_V100;
	int tgpu[EVAL_MAX_TYPES];
	uint32_t T = 0, nn = 0;
	int64_t cap[EVAL_MAX_TYPES] = { 0 };
	bool gpu = false;
	for (size_t g = 0; g < cs->ngroups; g++)
		gpu = gpu || cs->groups[g].gpus > 0;
	uint8_t *gtype = xcalloc(cs->ngroups + 1, 1);
	for (size_t g = 0; g < cs->ngroups; g++) {
		const struct node_group *ng = &cs->groups[g];
		if (gpu && ng->gpus == 0)
			continue;
		const char *name = gpu ? (ng->gpu_type ? ng->gpu_type : "gpu") :
					 "cpu";
		uint32_t t = 0;
		while (t < T && strcmp(tname[t], name))
			t++;
		if (t == T) {
			if (T == EVAL_MAX_TYPES) {
				free(gtype);
				return err_set(err, "optimize: more than %d "
					       "GPU types", EVAL_MAX_TYPES);
			}
			tname[T++] = name;
		}
		gtype[g] = (uint8_t)t;
		cap[t] += (int64_t)ng->count * (gpu ? ng->gpus : ng->cpus);
		nn += ng->count;
	}
	for (uint32_t t = 0; t < T; t++)
		tgpu[t] = gpu ? jobclass_ovr_gpu_lookup(&e->throughputs,
							 tname[t], NULL) : -1;
	uint32_t n = (uint32_t)(njobs < o->jobs ? njobs : o->jobs);
	eval_inst_init(in, n, T, cap, (enum eval_objective)o->objective);
	in->p.mix_makespan = (int64_t)o->mix_makespan;
	in->p.mix_twct = (int64_t)o->mix_twct;
	sim_time_t t0 = n ? jobs[0].submit : 0;
	for (uint32_t j = 0; j < n; j++) {
		const struct job *jb = &jobs[j];
		in->demand[j] = gpu ? (jb->gpus ? jb->gpus :
				       (jb->gpu_milli ? 1 : 0)) : jb->cpus;
		unsigned cls = jb->job_class;
		if (cls == JOB_CLASS_NONE && e->workload.draw_classes &&
		    speed_job_has_class(jb))
			cls = speed_draw_class(e->seeds[0], jb->idx);
		/* a job's gpu_type (index + 1) names the cluster's types in
		 * the order groups first name them, as tname[] does */
		for (uint32_t t = 0; t < T; t++)
			if (!gpu || !jb->gpu_type || jb->gpu_type - 1u == t)
				in->dur[(size_t)j * T + t] = online_run_secs(
					jb->estimate, gpu && jb->gpus ?
					speed_class_rate(cls, tgpu[t], ref,
							 &e->throughputs) :
					1.0);
		in->release[j] = o->releases ? secs_up(jb->submit - t0) : 0;
	}
	if (o->nodes) {
		/* Nodes type by type, each type's groups in file order: the
		 * placement rule only compares nodes of one type, so this
		 * changes no schedule, and each type's node index then spans
		 * only its own nodes (eval_scratch_size_of). */
		uint32_t *ncap = xcalloc(nn + 1, sizeof(*ncap));
		uint8_t *nty = xcalloc(nn + 1, 1);
		uint32_t k = 0;
		for (uint32_t t = 0; t < T; t++) {
			for (size_t g = 0; g < cs->ngroups; g++) {
				const struct node_group *ng = &cs->groups[g];
				if ((gpu && ng->gpus == 0) || gtype[g] != t)
					continue;
				for (uint32_t i = 0; i < ng->count; i++, k++) {
					ncap[k] = gpu ? ng->gpus : ng->cpus;
					nty[k] = (uint8_t)t;
				}
			}
		}
		SIM_ASSERT(k == nn);
		eval_inst_set_nodes(in, nn, ncap, nty);
		free(ncap);
		free(nty);
	}
	free(gtype);
	return eval_inst_finish(in, err);
}

/* ---- output ------------------------------------------------------------ */

static int write_schedule(const char *path, const struct eval_problem *p,
			  bool nodes, const struct job *jobs,
			  const struct search_result *r, const char **tname,
			  struct sim_error *err)
{
	struct afile af;
	int64_t *st = xcalloc((size_t)p->n + 1, sizeof(*st));
	uint8_t *ty = xcalloc((size_t)p->n + 1, 1);
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	eval_one(p, nodes, r->perm, r->genes, st, ty);
	fprintf(af.f, "job_id,position,type,units,release_s,start_s,"
		"end_s\n");
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = r->perm[k];
		fprintf(af.f, "%lld,%u,%s,%u,%lld,%lld,%lld\n",
			(long long)jobs[j].id, k, tname[ty[j]], p->demand[j],
			(long long)p->release[j], (long long)st[j],
			(long long)(st[j] + p->dur[(size_t)j * p->ntypes +
						   ty[j]]));
	}
	rc = afile_commit(&af, err);
out:
	free(st);
	free(ty);
	return rc;
}

/* ---- the command ------------------------------------------------------ */

/* The workload of e (generated or read) and its batch (build_batch).
 * Returns 0 or a negative code (bad input). */
static int load_batch(const struct experiment *e, struct workload *w,
		      struct eval_inst *in, const char **tname,
		      struct sim_error *err)
{
	if (!e->optimize.given)
		return err_set(err, "%s: $: 'optimize' needs an \"optimize\" "
			       "object", e->path);
	if (e->workload.generated) {
		if (gen_workload(&e->workload.gen, e->seeds[0],
				 &e->workload.opts, w, err))
			return -1;
	} else {
		struct trace_opts to = e->workload.opts;
		to.thr = &e->throughputs; /* Gavel steps -> run time */
		if (trace_load(e->workload.trace, &to, w, err))
			return -1;
	}
	if (e->cluster_from_trace)
		return err_set(err, "%s: $.cluster.from_trace: not supported "
			       "by optimize", e->path);
	return build_batch(e, w->jobs, w->n, in, tname, err);
}

/* Greedy, then each other method asked for (GA and SA start from the
 * greedy schedule); *lb: the best lower bound known.  Returns 0 or a
 * negative code. */
static int run_methods(const struct experiment *e, const struct eval_problem *p,
		       struct search_result res[4], int64_t *lb,
		       struct sim_error *err)
{
	const struct optimize_spec *o = &e->optimize;
	struct search_opts so;
	search_opts_default(&so);
	so.seed = e->seeds[0];
	so.evals = o->evals;
	so.wall_s = o->wall_s;
	so.eval.want = (enum eval_want)o->backend;
	so.eval.threads = o->threads;
	so.eval.nodes = o->nodes;
	so.pop = o->pop;
	so.islands = o->islands;
	so.chains = o->chains;
	so.time_limit_s = o->ilp_time_s;
	so.max_slots = o->ilp_slots;
	*lb = eval_lower_bound(p);
	int rc = search_greedy(p, o->nodes, &res[0], err);
	for (int m = 1; !rc && m < 4; m++) {
		if (!(o->methods & (1u << m)))
			continue;
		if (m == 1)
			rc = search_ga(p, &so, &res[0], &res[m], err);
		else if (m == 2)
			rc = search_sa(p, &so, &res[0], &res[m], err);
		else if (o->nodes)
			snprintf(res[m].note, sizeof(res[m].note),
				 "ilp: pooled model only; skipped with "
				 "node_level");
		else
			rc = search_ilp(p, &so, &res[0], &res[m], err);
		if (!rc && res[m].bound > *lb)
			*lb = res[m].bound;
	}
	return rc;
}

/* What is written of one method: its row of summary.csv, its points of
 * convergence.csv and (unless quiet) its line of the table on out. */
static void write_rows(FILE *sum, FILE *conv, FILE *out, int m,
		       const struct search_result *r, int64_t lb,
		       const struct optimize_spec *o)
{
	double gap = r->score > 0 ? (double)(r->score - lb) /
				    (double)r->score : 0;
	fprintf(sum, "%s,%s,%lld,%lld,%.6f,%llu,%.3f,%s,%s,\"%s\"\n",
		optimize_methods[m], optimize_objectives[o->objective],
		(long long)r->score, (long long)lb, gap,
		(unsigned long long)r->evals, r->wall_s,
		r->reproducible ? "yes" : "no", r->backend, r->note);
	for (size_t i = 0; i < r->ntrace; i++)
		fprintf(conv, "%s,%llu,%.6f,%lld\n", optimize_methods[m],
			(unsigned long long)r->trace[i].evals,
			r->trace[i].wall_s, (long long)r->trace[i].best);
	if (out)
		fprintf(out, "%-7s %16lld %16lld %7.2f%% %10llu %8.2f  "
			"%s%s%s\n", optimize_methods[m], (long long)r->score,
			(long long)lb, 100 * gap,
			(unsigned long long)r->evals, r->wall_s, r->backend,
			r->note[0] ? "  " : "", r->note);
}

/* DIR/summary.csv, convergence.csv and schedule-METHOD.csv of each
 * method that ran; the table on out (NULL: quiet).  Returns 0 or a
 * negative code. */
static int write_results(const char *dir, const struct experiment *e,
			 const struct workload *w, const struct eval_inst *in,
			 const struct search_result res[4], int64_t lb,
			 const char **tname, FILE *out, struct sim_error *err)
{
	const struct optimize_spec *o = &e->optimize;
	struct afile sum, conv;
	char *p1 = xasprintf("%s/summary.csv", dir);
	char *p2 = xasprintf("%s/convergence.csv", dir);
	int rc = afile_open(&sum, p1, err);
	if (!rc && (rc = afile_open(&conv, p2, err)))
		afile_abort(&sum);
	free(p1);
	free(p2);
	if (rc)
		return rc;
	fprintf(sum.f, "method,objective,score,lower_bound,gap_to_bound,"
		"evals,wall_s,reproducible,backend,note\n");
	fprintf(conv.f, "method,evals,wall_s,best\n");
	if (out)
		fprintf(out, "%-7s %16s %16s %8s %10s %8s  %s\n", "method",
			"score", "lower_bound", "gap", "evals", "wall_s",
			"backend");
	for (int m = 0; m < 4 && !rc; m++) {
		const struct search_result *r = &res[m];
		if (!(o->methods & (1u << m)) || r->score == INT64_MAX)
			continue;
		write_rows(sum.f, conv.f, out, m, r, lb, o);
		char *sp = xasprintf("%s/schedule-%s.csv", dir,
				     optimize_methods[m]);
		rc = write_schedule(sp, &in->p, o->nodes, w->jobs, r, tname,
				    err);
		free(sp);
	}
	if (rc) {
		afile_abort(&sum);
		afile_abort(&conv);
		return rc;
	}
	rc = afile_commit(&sum, err);
	if (rc)
		afile_abort(&conv);
	else
		rc = afile_commit(&conv, err);
	return rc;
}

int optimize_main(const char *file, const char *outdir, bool quiet,
		  bool no_plots, FILE *out, struct sim_error *err)
{
	struct experiment e;
	struct workload w;
	struct eval_inst in;
	const char *tname[EVAL_MAX_TYPES] = { 0 };
	struct search_result res[4];
	char *dir = NULL;
	int64_t lb;
	int code = 2;
	struct outdir od = { .fd = -1 };
	workload_init(&w);
	memset(&in, 0, sizeof(in));
	memset(res, 0, sizeof(res));
	if (exp_load(file, &e, err))
		return 2;
	if (load_batch(&e, &w, &in, tname, err))
		goto out;
	/* The experiment's results folder is locked, as for `run`. */
	const char *top = outdir ? outdir : e.output;
	int rc = outdir_lock(&od, top, false, err);
	if (!rc)
		rc = outdir_want(top, "optimize", true, err);
	dir = xasprintf("%s/optimize", top);
	if (!rc)
		rc = mkdir_p(dir, err);
	code = rc == -SIM_EINPUT ? 2 : 1;
	if (rc)
		goto out;
	for (int m = 0; m < 4; m++)
		search_result_init(&res[m], in.p.n);
	if (run_methods(&e, &in.p, res, &lb, err))
		goto out;
	rc = write_results(dir, &e, &w, &in, res, lb, tname,
			   quiet ? NULL : out, err);
	if (rc) {
		code = rc == -SIM_EINPUT ? 2 : 1;
		goto out;
	}
	rc = out_write_manifest(dir, &e, NULL, 0, err);
	if (rc) {
		code = rc == -SIM_EINPUT ? 2 : 1;
		goto out;
	}
	/* A plot that cannot be drawn (no gnuplot, a path gnuplot cannot
	 * be given) is skipped: the results are intact, and gnuplot's
	 * messages are in gnuplot.log. */
	struct sim_error perr = { .msg = "" };
	int prc = no_plots ? 0 : report_plot_convergence(dir,
		optimize_objectives[e.optimize.objective],
		e.name ? e.name : "", &perr);
	if (report_after_plots(dir, REPORT_OPTIMIZE, no_plots, prc, perr.msg,
			       &perr) && !quiet)
		fprintf(stderr, "clustersim: warning: %s\n", perr.msg);
	if (!quiet)
		fprintf(out, "results: %s/\n", dir);
	code = 0;
out:
	outdir_unlock(&od);
	for (int m = 0; m < 4; m++)
		search_result_release(&res[m]);
	free(dir);
	eval_inst_release(&in);
	workload_release(&w);
	exp_release(&e);
	return code;
}
