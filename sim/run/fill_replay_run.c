/*
 * Running a replay experiment ("fill" with "mode": "replay"; the model is
 * in fill_replay.h): every pod list x policy x seed, into the results
 * folder:
 *   <label>-<list>-s<seed>/timeline.csv  the state every "step"
 *   <label>-<list>-s<seed>/pods.csv      one row per pod of the list
 *   replay_summary.csv                   one row per run
 *   replay-<list>.csv                    per pod list, each policy's
 *                                        allocation, fragmentation and
 *                                        pending pods over time: mean,
 *                                        min, max over seeds (what the
 *                                        plots draw)
 *   plots/replay_alloc-<list>.{png,svg}, plots/replay_frag-<list>.*,
 *   plots/replay_pending-<list>.*
 *   manifest.json                        with the node and pod lists'
 *                                        hashes
 * Every file is written to a temporary name and renamed (util.h afile_*).
 *
 * Every pod list is read, and checked to have creation times, before any
 * run: a list without them (multigpu50) is bad input (exit 2).
 */
#include "fill/fill_replay.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exp/exp.h"
#include "fill/fill.h"
#include "report/band.h"
#include "report/out.h"
#include "report/report.h"
#include "run/fill_run.h"
#include "run/runner.h"
#include "base/outdir.h"

static void put_time(FILE *f, sim_time_t t, const char *sep)
{
	char buf[32];
	if (t != SIM_TIME_NONE) {
		fmt_time(buf, t);
		fputs(buf, f);
	}
	fputs(sep, f);
}

static int write_timeline(const char *dir, const struct replay_result *r,
			  uint64_t cap, struct sim_error *err)
{
	struct afile af;
	int rc = afile_open_in(&af, dir, "timeline.csv", err);
	if (rc)
		return rc;
	fputs("time_s,arrived,running,pending,allocated_gpus,alloc_ratio,"
	      "frag_gpus,frag_ratio\n", af.f);
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct replay_sample *s = &r->samples[i];
		put_time(af.f, s->t, ",");
		fprintf(af.f, "%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",",
			s->arrived, s->running, s->pending);
		band_put_double(af.f, s->allocated / 1000.0, ",");
		band_put_double(af.f, (double)s->allocated / cap, ",");
		band_put_double(af.f, s->frag / 1000.0, ",");
		band_put_double(af.f, s->frag / cap, "\n");
	}
	return afile_commit(&af, err);
}

static int write_pods(const char *dir, const struct replay_result *r,
		      const struct score_pod *pods, struct sim_error *err)
{
	struct afile af;
	int rc = afile_open_in(&af, dir, "pods.csv", err);
	if (rc)
		return rc;
	fputs("pod,cpu_milli,num_gpu,gpu_milli,created_s,deleted_s,"
	      "arrival_s,node,gpus,start_s,end_s,wait_s\n", af.f);
	for (size_t i = 0; i < r->npods; i++) {
		const struct replay_pod *q = &r->pods[i];
		const struct score_pod *p = &pods[i];
		sim_time_t created = p->created * SIM_SEC;
		fprintf(af.f, "%zu,%" PRIu32 ",%" PRIu32 ",%" PRIu32 ",", i,
			p->cpu, p->gpus, p->milli);
		put_time(af.f, created, ",");
		put_time(af.f, p->deleted >= 0 ? p->deleted * SIM_SEC
					       : SIM_TIME_NONE, ",");
		put_time(af.f, q->arrival, ",");
		if (q->node >= 0)
			fprintf(af.f, "%" PRId32, q->node);
		fputc(',', af.f);
		for (uint32_t g = 0, k = 0; g < FRAG_MAX_GPUS; g++)
			if (q->gpus & (1u << g))
				fprintf(af.f, "%s%" PRIu32, k++ ? "|" : "", g);
		fputc(',', af.f);
		put_time(af.f, q->start, ",");
		put_time(af.f, q->end, ",");
		put_time(af.f, q->start != SIM_TIME_NONE ? q->start - q->arrival
							  : SIM_TIME_NONE,
			 "\n");
	}
	return afile_commit(&af, err);
}

/* The measures of the band file: ratios of the GPU capacity, and the
 * pending pods. */
static const char *const band_what[] = { "alloc", "frag", "pending" };

static double band_value(const struct replay_sample *q, int w, uint64_t cap)
{
	switch (w) {
	case 0:
		return (double)q->allocated / cap;
	case 1:
		return q->frag / cap;
	default:
		return q->pending;
	}
}

/* Per sample row: each policy's mean, min and max over seeds of the
 * allocation and fragmentation ratios and of the pending pods. */
static int write_band(const char *outdir, const char *stem,
		      const struct replay_result *res, size_t npol,
		      size_t nseeds, const char *const *labels, uint64_t cap,
		      sim_time_t t0, sim_time_t step, struct sim_error *err)
{
	struct afile af;
	char *name = xasprintf("replay-%s.csv", stem);
	int rc = afile_open_in(&af, outdir, name, err);
	free(name);
	if (rc)
		return rc;
	size_t rows = 0;
	for (size_t i = 0; i < npol * nseeds; i++)
		if (res[i].nsamples > rows)
			rows = res[i].nsamples;
	band_header(af.f, "time_s", labels, npol, band_what, 3);
	for (size_t k = 0; k < rows; k++) {
		put_time(af.f, t0 + (sim_time_t)k * step, "");
		for (size_t p = 0; p < npol; p++) {
			for (int w = 0; w < 3; w++) {
				struct band b = { 0 };
				for (size_t s = 0; s < nseeds; s++) {
					const struct replay_result *r =
						&res[p * nseeds + s];
					if (k < r->nsamples)
						band_add(&b, band_value(
							&r->samples[k], w,
							cap));
				}
				band_put(af.f, &b);
			}
		}
		fputc('\n', af.f);
	}
	return afile_commit(&af, err);
}

static void summary_row(FILE *f, const char *label, const char *policy,
			const char *stem, uint64_t seed,
			const struct replay_result *r, uint64_t cap)
{
	fprintf(f, "%s,%s,%s,%" PRIu64 ",%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64
		",", label, policy, stem, seed, r->npods, r->placed,
		r->waited, r->never);
	band_put_double(f, r->wait_mean, ",");
	band_put_double(f, r->wait_p99, ",");
	band_put_double(f, r->wait_max, ",");
	band_put_double(f, r->alloc_avg / cap, ",");
	band_put_double(f, r->frag_avg / cap, ",");
	band_put_double(f, (double)r->alloc_end / cap, ",");
	band_put_double(f, r->frag_end / cap, ",");
	fprintf(f, "%" PRIu32 ",", r->pending_end);
	put_time(f, r->t_first, ",");
	put_time(f, r->t_last, ",");
	put_time(f, r->t_end, "\n");
}

/* The table of a pod list's replays: each label's means over the seeds. */
static void print_replay_table(const struct run_opts *o,
			       const struct experiment *e, const char *stem,
			       size_t n, size_t nnodes, uint64_t cap,
			       const struct replay_result *res,
			       const char *const *labels, size_t npol,
			       double total)
{
	size_t nruns = npol * e->nseeds;
	fprintf(o->out, "\n%s replay (%zu pods, %zu nodes, %.0f GPUs; "
		"means over %zu seeds)\n%-16s %11s %11s %13s %13s "
		"%8s\n", stem, n, nnodes, cap / 1000.0, e->nseeds,
		"policy", "alloc avg", "frag avg", "mean wait s",
		"p99 wait s", "never");
	for (size_t p = 0; p < npol; p++) {
		double a = 0, f = 0, w = 0, w99 = 0, nv = 0;
		for (size_t s = 0; s < e->nseeds; s++) {
			const struct replay_result *r =
				&res[p * e->nseeds + s];
			a += r->alloc_avg / cap;
			f += r->frag_avg / cap;
			w += r->wait_mean;
			w99 += r->wait_p99;
			nv += (double)r->never;
		}
		double k = (double)e->nseeds;
		fprintf(o->out, "%-16s %10.1f%% %10.1f%% %13.1f %13.1f "
			"%8.1f\n", labels[p], 100 * a / k, 100 * f / k,
			w / k, w99 / k, nv / k);
	}
	if (o->stats)
		fprintf(o->msg, "stats: replay list=%s runs=%zu "
			"total_sim_s=%.6f\n", stem, nruns, total);
}

/* One pod list: every policy x seed. */
static int replay_list(const struct run_opts *o, struct experiment *e,
		       struct frag_cluster *c, const char *pods_path,
		       const struct score_ops *const *ops,
		       const char *const *labels, size_t npol,
		       const char *outdir, FILE *summary,
		       struct sim_error *err)
{
	struct score_pod *pods = NULL;
	struct frag_dist dist;
	size_t n = 0;
	uint32_t nkinds = 0;
	uint64_t malformed = 0;
	struct openb_opts bo = { .lenient = o->lenient,
				 .max_bytes = e->limits.input_bytes,
				 .max_nodes = e->limits.nodes,
				 .max_pods = e->limits.jobs };
	char sha[INPUT_SHA256_HEX];
	int rc = openb_load_pods(pods_path, &bo, &malformed, c, &pods, &n,
				 &nkinds, sha, err);
	if (rc)
		return rc;
	exp_note_input(e, pods_path, sha); /* the manifest's: these bytes */
	if (malformed && !o->quiet)
		fprintf(o->msg, "%s: %" PRIu64 " malformed rows skipped\n",
			pods_path, malformed);
	if (frag_dist_build(&dist, pods, n)) {
		free(pods);
		return err_setc(err, -SIM_EINPUT, "%s: no pod asks for a GPU",
				pods_path);
	}
	c->integer = !e->fill.score_double;
	if (c->integer)
		nkinds = fill_kinds_share_gpu(pods, n);
	frag_cluster_ready(c, nkinds, &dist);
	uint64_t cap = c->gpu_capacity;
	char *stem = band_stem(pods_path);
	size_t nruns = npol * e->nseeds;
	struct replay_result *res = xcalloc(nruns, sizeof(*res));
	double total = 0;
	for (size_t k = 0; k < nruns && !rc; k++) {
		size_t p = k / e->nseeds, s = k % e->nseeds;
		struct replay_result *r = &res[k];
		struct sim_error rerr;
		double t0 = mono_seconds();
		if (replay_run(c, pods, n, ops[p],
			       e->fill.load_scale, e->fill.step, e->seeds[s], r,
			       &rerr)) {
			rc = err_setc(err, -SIM_EINPUT, "%s: %s", pods_path,
				      rerr.msg);
			break;
		}
		double dt = mono_seconds() - t0;
		total += dt;
		char *dir = xasprintf("%s/%s-%s-s%" PRIu64, outdir, labels[p],
				      stem, e->seeds[s]);
		rc = mkdir_p(dir, err);
		if (!rc)
			rc = write_timeline(dir, r, cap, err);
		if (!rc)
			rc = write_pods(dir, r, pods, err);
		free(dir);
		summary_row(summary, labels[p], ops[p]->name, stem,
			    e->seeds[s], r, cap);
		/* The band needs the samples only. */
		free(r->pods);
		r->pods = NULL;
		if (o->stats)
			fprintf(o->msg, "stats: replay label=%s list=%s "
				"seed=%" PRIu64 " pods=%zu events=%" PRIu64
				" sim_s=%.6f\n", labels[p], stem, e->seeds[s],
				n, r->events, dt);
	}
	if (!rc)
		rc = write_band(outdir, stem, res, npol, e->nseeds, labels,
				cap, res[0].t_first, e->fill.step, err);
	if (!rc && !o->no_plots) {
		struct sim_error perr;
		/* The window, first to last arrival, for the time axis. */
		struct plot_defs x = { 0 };
		char w[32];
		fmt_time(w, res[0].t_last - res[0].t_first);
		plot_def(&x, "experiment", e->name ? e->name : "");
		plot_def(&x, "window_s", w);
		if (band_plot(outdir, &x, "replay", stem, labels, npol,
			      &perr))
			fprintf(o->msg, "clustersim: warning: %s\n", perr.msg);
		plot_defs_release(&x);
	}
	if (!rc && !o->quiet)
		print_replay_table(o, e, stem, n, c->nnodes, cap, res, labels,
				   npol, total);
	for (size_t k = 0; k < nruns; k++)
		replay_result_release(&res[k]);
	free(res);
	free(stem);
	frag_dist_release(&dist);
	free(pods);
	return rc;
}

/* Reads the node list into c and checks every pod list: 0 or a negative
 * code with err. */
static int replay_inputs(const struct run_opts *o, struct experiment *e,
			 struct frag_cluster *c, struct sim_error *err)
{
	struct openb_opts bo = { .lenient = o->lenient,
				 .max_bytes = e->limits.input_bytes,
				 .max_nodes = e->limits.nodes,
				 .max_pods = e->limits.jobs };
	char sha[INPUT_SHA256_HEX];
	int rc = openb_load_nodes(e->fill.nodes, &bo, NULL, c, sha, err);
	if (!rc)
		exp_note_input(e, e->fill.nodes, sha);
	for (size_t i = 0; i < e->fill.npods && !rc; i++) {
		struct score_pod *pods;
		size_t n;
		uint32_t nk;
		rc = openb_load_pods(e->fill.pods[i], &bo, NULL, c, &pods, &n,
				     &nk, NULL, err);
		if (!rc) {
			rc = replay_check_pods(e->fill.pods[i], pods, n, err);
			free(pods);
		}
	}
	return rc;
}

int replay_experiment(const struct run_opts *o, struct experiment *e,
		      const struct score_ops *const *ops,
		      const char *const *labels, size_t npol,
		      const char *outdir, struct sim_error *err)
{
	struct frag_cluster c;
	struct afile af;
	bool open_summary = false;
	frag_cluster_init(&c);
	int rc = replay_inputs(o, e, &c, err);
	if (rc) {
		frag_cluster_release(&c);
		return 2;
	}
	if (o->validate_only) {
		if (!o->quiet)
			fprintf(o->out, "%s: ok (replay: %zu pod lists, %zu "
				"policies, %zu seeds)\n", o->file,
				e->fill.npods, npol, e->nseeds);
		frag_cluster_release(&c);
		return 0;
	}
	struct outdir od = { .fd = -1 };
	rc = outdir_want(outdir, "replay_summary.csv", false, err);
	if (!rc)
		rc = runner_claim(&od, outdir, false, NULL, 0, o->msg, err);
	char *spath = path_join(outdir, "replay_summary.csv");
	if (!rc)
		rc = afile_open(&af, spath, err);
	free(spath);
	if (!rc) {
		open_summary = true;
		fputs("label,policy,pods_list,seed,pods,placed,waited,"
		      "never_placed,wait_mean_s,wait_p99_s,wait_max_s,"
		      "alloc_ratio_mean,frag_ratio_mean,alloc_ratio_end,"
		      "frag_ratio_end,pending_end,first_arrival_s,"
		      "last_arrival_s,end_s\n", af.f);
	}
	for (size_t i = 0; i < e->fill.npods && !rc; i++)
		rc = replay_list(o, e, &c, e->fill.pods[i], ops, labels, npol,
				 outdir, af.f, err);
	if (open_summary && !rc)
		rc = afile_commit(&af, err);
	else if (open_summary)
		afile_abort(&af);
	if (!rc)
		rc = out_write_manifest(outdir, e, NULL, 0, err);
	struct sim_error rerr;
	if (!rc && report_after_plots(outdir, REPORT_REPLAY, o->no_plots, 0,
				      NULL, &rerr))
		fprintf(o->msg, "clustersim: warning: %s\n", rerr.msg);
	if (!rc && !o->quiet)
		fprintf(o->out, "\nresults: %s/ (replay_summary.csv, "
			"replay-<list>.csv, <label>-<list>-s<seed>/"
			"{timeline,pods}.csv, plots/, report.html)\n", outdir);
	outdir_unlock(&od);
	frag_cluster_release(&c);
	return rc == -SIM_EINPUT ? 2 : rc ? 1 : 0;
}
