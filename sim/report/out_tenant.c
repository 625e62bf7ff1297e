/*
 * The result files of runs with tenants (docs/tenants.md, docs/metrics.md
 * "Tenants"): projects.csv (one row per project: its jobs' waits and
 * completion times, the GPU-hours it held within and above its quota,
 * its reclaims and the work they lost), projects_gpus.csv (the GPUs each
 * project held over time, for the plot with its quota line) and the
 * "tenants" summary of summary.json and summary.csv's last columns.
 * Written only for a run on a cluster with tenants, so every other run's
 * files are as they were.
 *
 * Jain's index (Jain, Chiu and Hawe, "A Quantitative Measure of Fairness
 * and Discrimination for Resource Allocation in Shared Computer Systems",
 * DEC-TR-301, 1984) is over the projects with a quota, of x = the
 * GPU-hours a project held / its quota in GPUs: (sum x)^2 / (n sum x^2),
 * 1 when every project got the same multiple of its quota.
 */
#include "report/out.h"
#include "report/out_fmt.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/util.h"

static void add_u64(cJSON *obj, const char *key, uint64_t v)
{
	char buf[24];
	*put_u64(buf, v) = '\0';
	cJSON_AddRawToObject(obj, key, buf);
}

/* Bins of projects_gpus.csv over the run's span. */
#define OUT_TENANT_BINS 400

/* One project's figures. */
struct proj_fig {
	uint64_t jobs, interactive, started, ended, preemptions;
	double wait_sum, jct_sum, wait_p99;
};

static int cmp_time(const void *pa, const void *pb)
{
	sim_time_t a = *(const sim_time_t *)pa, b = *(const sim_time_t *)pb;
	return (a > b) - (a < b);
}

/* The figures of every tenant from the jobs; waits of a tenant's started
 * jobs sorted for the p99 (nearest rank). */
static struct proj_fig *project_figures(const struct run_result *r)
{
	const struct tenant_books *b = r->tenants;
	struct proj_fig *f = xcalloc(b->n, sizeof(*f));
	sim_time_t *waits = xmalloc((r->njobs ? r->njobs : 1) * sizeof(*waits));
	for (size_t t = 0; t < b->n; t++) {
		size_t nw = 0;
		for (size_t i = 0; i < r->njobs; i++) {
			const struct job *j = &r->jobs[i];
			if (b->job_tenant[j->idx] != (int32_t)t)
				continue;
			f[t].jobs++;
			f[t].interactive += !!(j->flags & JOB_INTERACTIVE);
			f[t].preemptions += j->preemptions;
			if (j->start != SIM_TIME_NONE) {
				f[t].started++;
				waits[nw++] = j->start - j->submit;
				f[t].wait_sum += (double)(j->start - j->submit);
			}
			if (j->end != SIM_TIME_NONE) {
				f[t].ended++;
				f[t].jct_sum += (double)(j->end - j->submit);
			}
		}
		if (nw) {
			qsort(waits, nw, sizeof(*waits), cmp_time);
			size_t k = (size_t)ceil(0.99 * (double)nw);
			f[t].wait_p99 = (double)waits[k ? k - 1 : 0];
		}
	}
	free(waits);
	return f;
}

/* A number as the other result files write it, or "" for NaN. */
static void put_num(FILE *out, double v)
{
	char buf[64];
	if (isnan(v))
		return;
	*put_ratio(buf, v) = '\0';
	fputs(buf, out);
}

double out_tenant_jain(const struct tenant_books *b)
{
	double sx = 0, sxx = 0;
	size_t n = 0;
	for (size_t t = 0; t < b->n; t++) {
		const struct tenant_spec *s = &b->spec[t];
		if (s->parent < 0 || !s->quota)
			continue;
		double gpu_s = b->gpu_s_guaranteed[t] + b->gpu_s_borrowed[t];
		double x = gpu_s / 3600 / ((double)s->quota / 1000);
		sx += x;
		sxx += x * x;
		n++;
	}
	return n && sxx > 0 ? sx * sx / ((double)n * sxx) : NAN;
}

/* With quotas per GPU type: each type's columns of projects.csv. */
static void type_header(FILE *f, const struct tenant_books *b)
{
	for (size_t y = 0; y < b->ntypes; y++) {
		const char *n = b->type_name[y];
		fprintf(f, ",quota_gpus_%s,gpu_h_guaranteed_%s,gpu_h_borrowed_%s,"
			"reclaims_%s", n, n, n, n);
	}
}

static void type_cells(FILE *f, const struct tenant_books *b, size_t t)
{
	for (size_t y = 0; y < b->ntypes; y++) {
		size_t k = t * b->ntypes + y;
		fputc(',', f);
		put_num(f, (double)b->type_quota[k] / 1000);
		fputc(',', f);
		put_num(f, b->type_gpu_s_guaranteed[k] / 3600);
		fputc(',', f);
		put_num(f, b->type_gpu_s_borrowed[k] / 3600);
		fprintf(f, ",%" PRIu64, b->type_reclaims[k]);
	}
}

int out_write_projects(const char *path, const struct run_result *r,
		       struct sim_error *err)
{
	const struct tenant_books *b = r->tenants;
	struct proj_fig *f = project_figures(r);
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	fputs("project,department,quota_gpus,weight,jobs,interactive_jobs,"
	      "wait_mean_s,wait_p99_s,jct_mean_s,gpu_h,gpu_h_guaranteed,"
	      "gpu_h_borrowed,quota_share,preemptions,reclaims,"
	      "reclaim_lost_gpu_h", af.f);
	type_header(af.f, b);
	fputc('\n', af.f);
	for (size_t t = 0; t < b->n; t++) {
		const struct tenant_spec *s = &b->spec[t];
		if (s->parent < 0)
			continue;
		double g = b->gpu_s_guaranteed[t] / 3600;
		double o = b->gpu_s_borrowed[t] / 3600;
		double q = (double)s->quota / 1000;
		fprintf(af.f, "%s,%s,", s->name, b->spec[s->parent].name);
		put_num(af.f, q);
		fputc(',', af.f);
		put_num(af.f, s->weight);
		fprintf(af.f, ",%" PRIu64 ",%" PRIu64 ",", f[t].jobs,
			f[t].interactive);
		put_num(af.f, f[t].started ? f[t].wait_sum / (double)f[t].started
						   / SIM_SEC : NAN);
		fputc(',', af.f);
		put_num(af.f, f[t].started ? f[t].wait_p99 / SIM_SEC : NAN);
		fputc(',', af.f);
		put_num(af.f, f[t].ended ? f[t].jct_sum / (double)f[t].ended
						 / SIM_SEC : NAN);
		fputc(',', af.f);
		put_num(af.f, g + o);
		fputc(',', af.f);
		put_num(af.f, g);
		fputc(',', af.f);
		put_num(af.f, o);
		fputc(',', af.f);
		put_num(af.f, q > 0 ? (g + o) / q : NAN);
		fprintf(af.f, ",%" PRIu64 ",%" PRIu64 ",", f[t].preemptions,
			b->reclaims[t]);
		put_num(af.f, b->reclaim_lost_gpu_s[t] / 3600);
		type_cells(af.f, b, t);
		fputc('\n', af.f);
	}
	rc = afile_commit(&af, err);
out:
	free(f);
	return rc;
}

/* The log's span: first change .. last change (0, 0 when empty). */
static void log_span(const struct tenant_books *b, sim_time_t *t0,
		     sim_time_t *t1)
{
	*t0 = b->nlog ? b->log[0].t : 0;
	*t1 = b->nlog ? b->log[b->nlog - 1].t : 0;
}

/* The log's series: the tenants, then with quotas per GPU type each
 * tenant's holding of each type. */
static size_t series(const struct tenant_books *b)
{
	return b->n + b->n * b->ntypes;
}

/* Mean GPUs each series held in each of the bins: area[bin * n + t]. */
static double *bin_means(const struct tenant_books *b, sim_time_t t0,
			 sim_time_t width)
{
	size_t n = series(b);
	double *area = xcalloc(OUT_TENANT_BINS * n, sizeof(*area));
	uint64_t *used = xcalloc(n, sizeof(*used));
	sim_time_t *since = xcalloc(n, sizeof(*since));
	for (size_t t = 0; t < n; t++)
		since[t] = t0;
	for (size_t i = 0; i <= b->nlog; i++) {
		/* The last pass closes every tenant at the span's end. */
		size_t lo = i < b->nlog ? b->log[i].tenant : 0;
		size_t hi = i < b->nlog ? lo + 1 : n;
		sim_time_t now = i < b->nlog ? b->log[i].t
					     : t0 + width * OUT_TENANT_BINS;
		for (size_t t = lo; t < hi; t++) {
			for (sim_time_t a = since[t]; a < now;) {
				size_t k = (size_t)((a - t0) / width);
				sim_time_t e = t0 + (sim_time_t)(k + 1) * width;
				if (e > now)
					e = now;
				area[k * n + t] += (double)used[t] / 1000 *
						   (double)(e - a);
				a = e;
			}
			since[t] = now;
			if (i < b->nlog)
				used[t] = b->log[i].used;
		}
	}
	for (size_t k = 0; k < OUT_TENANT_BINS * n; k++)
		area[k] /= (double)width;
	free(used);
	free(since);
	return area;
}

int out_write_projects_gpus(const char *path, const struct run_result *r,
			    struct sim_error *err)
{
	const struct tenant_books *b = r->tenants;
	sim_time_t t0, t1;
	log_span(b, &t0, &t1);
	sim_time_t width = (t1 - t0 + OUT_TENANT_BINS - 1) / OUT_TENANT_BINS;
	if (width < 1)
		width = 1;
	double *area = bin_means(b, t0, width);
	size_t ns = series(b), ny = b->ntypes;
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out;
	/* The first rows name each project's column and quota, for the
	 * plot; then one row per bin: its middle (hours) and the mean
	 * GPUs each project held. */
	/* With quotas per GPU type, a column "project.type" per project
	 * and type follows the projects'. */
	fputs("time_h", af.f);
	for (size_t t = 0; t < b->n; t++)
		if (b->spec[t].parent >= 0)
			fprintf(af.f, ",%s", b->spec[t].name);
	for (size_t t = 0; t < b->n; t++)
		for (size_t y = 0; y < ny && b->spec[t].parent >= 0; y++)
			fprintf(af.f, ",%s.%s", b->spec[t].name,
				b->type_name[y]);
	fputs("\nquota", af.f);
	for (size_t t = 0; t < b->n; t++)
		if (b->spec[t].parent >= 0) {
			fputc(',', af.f);
			put_num(af.f, (double)b->spec[t].quota / 1000);
		}
	for (size_t t = 0; t < b->n; t++)
		for (size_t y = 0; y < ny && b->spec[t].parent >= 0; y++) {
			fputc(',', af.f);
			put_num(af.f, (double)b->type_quota[t * ny + y] / 1000);
		}
	fputc('\n', af.f);
	for (size_t k = 0; k < OUT_TENANT_BINS; k++) {
		put_num(af.f, ((double)t0 + ((double)k + 0.5) * (double)width) /
				      3600e6);
		for (size_t t = 0; t < b->n; t++)
			if (b->spec[t].parent >= 0) {
				fputc(',', af.f);
				put_num(af.f, area[k * ns + t]);
			}
		for (size_t t = 0; t < b->n; t++)
			for (size_t y = 0; y < ny && b->spec[t].parent >= 0;
			     y++) {
				fputc(',', af.f);
				put_num(af.f, area[k * ns + b->n + t * ny + y]);
			}
		fputc('\n', af.f);
	}
	rc = afile_commit(&af, err);
out:
	free(area);
	return rc;
}

/* With quotas per GPU type: "gpu_types", each type's projects' quotas,
 * GPU-hours within and above them and reclaims, added up. */
static void type_summary(cJSON *o, const struct tenant_books *b)
{
	cJSON *types = cJSON_AddObjectToObject(o, "gpu_types");
	char buf[64];
	for (size_t y = 0; y < b->ntypes; y++) {
		double q = 0, g = 0, bo = 0;
		uint64_t n = 0;
		for (size_t t = 0; t < b->n; t++) {
			if (b->spec[t].parent < 0)
				continue;
			size_t k = t * b->ntypes + y;
			q += (double)b->type_quota[k] / 1000;
			g += b->type_gpu_s_guaranteed[k] / 3600;
			bo += b->type_gpu_s_borrowed[k] / 3600;
			n += b->type_reclaims[k];
		}
		cJSON *e = cJSON_AddObjectToObject(types, b->type_name[y]);
		*put_ratio(buf, q) = '\0';
		cJSON_AddRawToObject(e, "quota_gpus", buf);
		*put_ratio(buf, g) = '\0';
		cJSON_AddRawToObject(e, "gpu_h_guaranteed", buf);
		*put_ratio(buf, bo) = '\0';
		cJSON_AddRawToObject(e, "gpu_h_borrowed", buf);
		add_u64(e, "reclaims", n);
	}
}

void out_tenant_summary(cJSON *root, const struct run_result *r)
{
	const struct tenant_books *b = r->tenants;
	cJSON *o = cJSON_AddObjectToObject(root, "tenants");
	uint64_t reclaims = 0, projects = 0;
	double lost = 0, borrowed = 0;
	for (size_t t = 0; t < b->n; t++) {
		if (b->spec[t].parent < 0)
			continue;
		projects++;
		reclaims += b->reclaims[t];
		lost += b->reclaim_lost_gpu_s[t] / 3600;
		borrowed += b->gpu_s_borrowed[t] / 3600;
	}
	char buf[64];
	add_u64(o, "projects", projects);
	double jain = out_tenant_jain(b);
	if (isnan(jain)) {
		cJSON_AddNullToObject(o, "jain_quota");
	} else {
		*put_ratio(buf, jain) = '\0';
		cJSON_AddRawToObject(o, "jain_quota", buf);
	}
	add_u64(o, "reclaims", reclaims);
	*put_ratio(buf, lost) = '\0';
	cJSON_AddRawToObject(o, "reclaim_lost_gpu_h", buf);
	*put_ratio(buf, borrowed) = '\0';
	cJSON_AddRawToObject(o, "gpu_h_borrowed", buf);
	if (b->ntypes)
		type_summary(o, b);
}

uint64_t out_tenant_reclaims(const struct tenant_books *b)
{
	uint64_t n = 0;
	for (size_t t = 0; t < b->n; t++)
		if (b->spec[t].parent >= 0)
			n += b->reclaims[t];
	return n;
}
