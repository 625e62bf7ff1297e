/*
 * Running a fill experiment (the "fill" key of an experiment file; fill.h
 * has the model): every pod list x policy x seed, each run's curve in
 * <label>-<list>-s<seed>/fill.csv, one row per run in fill_summary.csv,
 * per pod list the mean, minimum and maximum over seeds in
 * fill-<list>.csv, and the plots (plots/fill/fill_alloc.gp, fill_frag.gp) of allocation ratio and
 * fragmentation against the arrived load, one curve per policy with a
 * band from the seeds' minimum to maximum.
 *
 * The cluster is read once; each pod list is read once and is its own
 * target workload for the fragmentation measure.
 */
#include "fill/fill.h"
#include "fill/fill_replay.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exp/exp.h"
#include "report/band.h"
#include "report/out.h"
#include "report/report.h"
#include "run/fill_run.h"
#include "run/runner.h"
#include "base/input.h"
#include "base/outdir.h"
#include "base/util.h"

/* One run's curve. */
static int write_curve(const char *dir, const struct fill_result *r,
		       uint64_t cap, struct sim_error *err)
{
	struct afile af;
	char *path = path_join(dir, "fill.csv");
	int rc = mkdir_p(dir, err);
	if (!rc)
		rc = afile_open(&af, path, err);
	free(path);
	if (rc)
		return rc;
	fputs("arrived_pct,arrived_gpus,allocated_gpus,alloc_ratio,"
	      "frag_gpus,frag_ratio,pods,failed\n", af.f);
	for (size_t i = 0; i < r->npoints; i++) {
		const struct fill_point *p = &r->points[i];
		fprintf(af.f, "%" PRIu32 ",", p->pct);
		band_put_double(af.f, p->arrived / 1000.0, ",");
		band_put_double(af.f, p->allocated / 1000.0, ",");
		band_put_double(af.f, (double)p->allocated / cap, ",");
		band_put_double(af.f, p->frag / 1000.0, ",");
		band_put_double(af.f, p->frag / cap, ",");
		fprintf(af.f, "%" PRIu64 ",%" PRIu64 "\n", p->pods, p->failed);
	}
	return afile_commit(&af, err);
}

/* Mean, min and max over seeds of each policy, per percent. */
static int write_band(const char *outdir, const char *stem,
		      const struct fill_result *res, size_t npol,
		      size_t nseeds, const char *const *labels, uint64_t cap,
		      struct sim_error *err)
{
	static const char *const what[] = { "alloc", "frag" };
	struct afile af;
	char *name = xasprintf("fill-%s.csv", stem);
	int rc = afile_open_in(&af, outdir, name, err);
	free(name);
	if (rc)
		return rc;
	size_t steps = 0;
	for (size_t i = 0; i < npol * nseeds; i++)
		if (res[i].npoints > steps)
			steps = res[i].npoints;
	band_header(af.f, "arrived_pct", labels, npol, what, 2);
	for (size_t k = 0; k < steps; k++) {
		fprintf(af.f, "%zu", k + 1);
		for (size_t p = 0; p < npol; p++) {
			for (int w = 0; w < 2; w++) {
				struct band b = { 0 };
				for (size_t s = 0; s < nseeds; s++) {
					const struct fill_result *r =
						&res[p * nseeds + s];
					if (k >= r->npoints)
						continue;
					const struct fill_point *q =
						&r->points[k];
					band_add(&b, w ? q->frag / cap :
						      (double)q->allocated /
							      cap);
				}
				band_put(af.f, &b);
			}
		}
		fputc('\n', af.f);
	}
	return afile_commit(&af, err);
}

/* The fill plots of one pod list; a failure is a warning. */
static void plot_list(const char *outdir, const struct experiment *e,
		      const char *stem, const char *const *labels,
		      size_t npol, const struct run_opts *o)
{
	struct sim_error perr;
	struct plot_defs x = { 0 };
	plot_def(&x, "experiment", e->name ? e->name : "");
	if (band_plot(outdir, &x, "fill", stem, labels, npol, &perr))
		fprintf(o->msg, "clustersim: warning: %s\n", perr.msg);
	plot_defs_release(&x);
}

/* One pod list: every policy x seed. */
static int fill_list(const struct run_opts *o, struct experiment *e,
		     struct frag_cluster *c, const char *pods_path,
		     const struct score_ops *const *ops,
		     const char *const *labels, size_t npol, const char *outdir,
		     FILE *summary, struct sim_error *err)
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
		return err_set(err, "%s: no pod asks for a GPU", pods_path);
	}
	c->integer = !e->fill.score_double;
	if (c->integer)
		nkinds = fill_kinds_share_gpu(pods, n);
	frag_cluster_ready(c, nkinds, &dist);
	char *stem = band_stem(pods_path);
	struct fill_result *res = xcalloc(npol * e->nseeds, sizeof(*res));
	for (size_t p = 0; p < npol && !rc; p++) {
		for (size_t s = 0; s < e->nseeds && !rc; s++) {
			struct fill_result *r = &res[p * e->nseeds + s];
			double t0 = mono_seconds();
			if (fill_run(c, pods, n, ops[p],
				     e->fill.target, e->seeds[s], r)) {
				rc = err_set(err, "%s: the pods ask for no GPU",
					     pods_path);
				break;
			}
			double dt = mono_seconds() - t0;
			char *dir = xasprintf("%s/%s-%s-s%" PRIu64, outdir,
					      labels[p], stem, e->seeds[s]);
			rc = write_curve(dir, r, c->gpu_capacity, err);
			free(dir);
			const struct fill_point *last =
				r->npoints ? &r->points[r->npoints - 1] : NULL;
			fprintf(summary, "%s,%s,%s,%" PRIu64 ",%" PRIu64
				",%" PRIu64 ",%" PRIu64 ",", labels[p],
				ops[p]->name, stem, e->seeds[s], r->pods,
				r->failed, r->failed_gpu);
			band_put_double(summary, last ? (double)last->allocated /
						      c->gpu_capacity : 0, ",");
			band_put_double(summary, last ? last->frag / c->gpu_capacity : 0,
			      "\n");
			if (o->stats)
				fprintf(o->msg, "stats: fill label=%s list=%s "
					"seed=%" PRIu64 " pods=%" PRIu64
					" sim_s=%.6f\n", labels[p], stem,
					e->seeds[s], r->pods, dt);
		}
	}
	if (!rc)
		rc = write_band(outdir, stem, res, npol, e->nseeds, labels,
				c->gpu_capacity, err);
	if (!rc && !o->no_plots)
		plot_list(outdir, e, stem, labels, npol, o);
	if (!rc && !o->quiet) {
		fprintf(o->out, "\n%s (%zu pods, %zu nodes, %.0f GPUs)\n"
			"%-20s %14s %14s %10s\n", stem, n, c->nnodes,
			c->gpu_capacity / 1000.0, "policy",
			"alloc at end", "frag at end", "failed");
		for (size_t p = 0; p < npol; p++) {
			double a = 0, f = 0, fl = 0;
			for (size_t s = 0; s < e->nseeds; s++) {
				const struct fill_result *r =
					&res[p * e->nseeds + s];
				const struct fill_point *q =
					&r->points[r->npoints - 1];
				a += (double)q->allocated / c->gpu_capacity;
				f += q->frag / c->gpu_capacity;
				fl += (double)r->failed;
			}
			double k = (double)e->nseeds;
			fprintf(o->out, "%-20s %13.1f%% %13.1f%% %10.0f\n",
				labels[p], 100 * a / k, 100 * f / k, fl / k);
		}
	}
	for (size_t i = 0; i < npol * e->nseeds; i++)
		fill_result_release(&res[i]);
	free(res);
	free(stem);
	frag_dist_release(&dist);
	free(pods);
	return rc;
}

int fill_experiment(const struct run_opts *o, struct experiment *e,
		    const struct score_ops *const *ops,
		    const char *const *labels, size_t npol,
		    const char *outdir, struct sim_error *err)
{
	struct frag_cluster c;
	FILE *summary = NULL;
	struct afile af;
	int rc = 0;
	if (e->fill.replay)
		return replay_experiment(o, e, ops, labels, npol, outdir, err);
	if (o->validate_only) {
		for (size_t i = 0; i <= e->fill.npods; i++) {
			const char *f = i ? e->fill.pods[i - 1] : e->fill.nodes;
			struct sim_error ie;
			if (input_check(f, NULL, &ie) != 0) {
				err_set(err, "%s: $.fill.%s: %s", e->path,
					i ? "pods" : "nodes", ie.msg);
				return 2;
			}
		}
		if (!o->quiet)
			fprintf(o->out, "%s: ok (fill: %zu pod lists, %zu "
				"policies, %zu seeds)\n", o->file,
				e->fill.npods, npol, e->nseeds);
		return 0;
	}
	frag_cluster_init(&c);
	uint64_t malformed = 0;
	struct openb_opts bo = { .lenient = o->lenient,
				 .max_bytes = e->limits.input_bytes,
				 .max_nodes = e->limits.nodes,
				 .max_pods = e->limits.jobs };
	char sha[INPUT_SHA256_HEX];
	if (openb_load_nodes(e->fill.nodes, &bo, &malformed, &c, sha, err)) {
		frag_cluster_release(&c);
		return 2;
	}
	exp_note_input(e, e->fill.nodes, sha);
	/* Read every pod list first: bad input fails before any run. */
	for (size_t i = 0; i < e->fill.npods; i++) {
		struct score_pod *pods;
		size_t n;
		uint32_t nk;
		if (openb_load_pods(e->fill.pods[i], &bo, NULL, &c, &pods, &n,
				    &nk, NULL, err)) {
			frag_cluster_release(&c);
			return 2;
		}
		free(pods);
	}
	struct outdir od = { .fd = -1 };
	rc = outdir_want(outdir, "fill_summary.csv", false, err);
	if (!rc)
		rc = runner_claim(&od, outdir, false, NULL, 0, o->msg, err);
	char *spath = path_join(outdir, "fill_summary.csv");
	if (!rc)
		rc = afile_open(&af, spath, err);
	free(spath);
	if (!rc) {
		summary = af.f;
		fputs("label,policy,pods_list,seed,pods,failed,failed_gpu,"
		      "alloc_ratio,frag_ratio\n", summary);
	}
	for (size_t i = 0; i < e->fill.npods && !rc; i++)
		rc = fill_list(o, e, &c, e->fill.pods[i], ops, labels, npol,
			       outdir, summary, err);
	if (summary && !rc)
		rc = afile_commit(&af, err);
	else if (summary)
		afile_abort(&af);
	if (!rc)
		rc = out_write_manifest(outdir, e, NULL, 0, err);
	struct sim_error rerr;
	if (!rc && report_after_plots(outdir, REPORT_FILL, o->no_plots, 0,
				      NULL, &rerr))
		fprintf(o->msg, "clustersim: warning: %s\n", rerr.msg);
	if (!rc && !o->quiet)
		fprintf(o->out, "\nresults: %s/ (fill_summary.csv, "
			"fill-<list>.csv, <label>-<list>-s<seed>/fill.csv, "
			"plots/, report.html)\n", outdir);
	outdir_unlock(&od);
	frag_cluster_release(&c);
	return rc == -SIM_EINPUT ? 2 : rc ? 1 : 0;
}
