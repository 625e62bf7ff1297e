/*
 * Result files.  A results folder holds manifest.json (what is needed to
 * reproduce it), summary.csv (one row per run) and one folder per run,
 * "<label>-s<seed>/", with jobs.csv, timeline.csv, summary.json and the
 * CDF points the plots draw (report/cdf.c).
 *
 * Formats (docs/metrics.md is the contract):
 * - times are seconds as exact decimals with trailing zeros trimmed
 *   (fmt_time), ratios six decimals trimmed (fmt_double);
 * - a value that does not apply is an empty CSV cell or a JSON null;
 * - no wall-clock time anywhere, so equal inputs give equal bytes;
 * - every file is written to a temporary name and renamed (afile_*).
 *
 * jobs.csv may hold millions of rows, so rows are built with integer
 * formatters in a large buffer rather than with one fprintf per field.
 */
#include "report/out.h"
#include "report/cdf.h"
#include "report/out_fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/input.h"
#include "base/util.h"
#include "base/version.h"
#include "speed/jobclass.h"

#define OUT_BUF (1u << 20) /* row buffer and stdio buffer size */

static const char *const state_names[JOB_NSTATES] = {
	/* Not submitted yet: for the results it waits like a pending job. */
	[JOB_FUTURE] = "pending",
	[JOB_PENDING] = "pending",
	[JOB_RUNNING] = "running",
	[JOB_FINISHED] = "finished",
	[JOB_KILLED] = "killed",
	[JOB_REJECTED] = "rejected",
};

/* A metric's value as text (0 bytes when it does not apply). */
static int fmt_metric(char *buf, const struct metrics *m, enum metric_id i)
{
	char *p = buf;
	if (m->set[i] && isfinite(m->v[i])) {
		if (metric_defs[i].kind == MK_COUNT)
			p = put_i64(p, (int64_t)llround(m->v[i]));
		else
			p = put_ratio(p, m->v[i]);
	}
	*p = '\0';
	return (int)(p - buf);
}

/* A CSV field, quoted when it holds a separator, quote or line break. */
static void csv_put_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void out_result_from_sim(struct run_result *r, const struct sim *s,
			 const struct workload *w, bool allocations)
{
	const struct cluster *cl = sim_cluster(s);
	uint32_t ntypes = cluster_gpu_type_count(cl);
	const char **types = xcalloc(ntypes ? ntypes : 1, sizeof(*types));
	for (uint32_t k = 0; k < ntypes; k++)
		types[k] = cluster_gpu_type_name(cl, k);
	r->jobs = sim_jobs(s, &r->njobs);
	r->samples = sim_samples(s, &r->nsamples);
	r->counters = *sim_counters(s);
	r->gpu_types = types;
	r->ngpu_types = ntypes;
	r->groups = (const char *const *)w->groups;
	r->ngroups = w->groups ? w->ngroups : 0;
	r->nodes = cluster_nodes(cl);
	r->cpus = sim_capacity_cpus(s);
	r->gpus = sim_capacity_gpus(s);
	r->allocations = allocations;
	r->allocs = sim_allocations(s, &r->nallocs, &r->alloc_slots);
	size_t nout;
	r->hpo = w->hpo;
	r->hpo_out = sim_hpo_outcomes(s, &nout);
	if (!r->hpo_out)
		r->hpo = NULL;
	r->llm = w->nllm ? w->llm : NULL;
	r->nllm = w->nllm;
	r->tenants = sim_tenant_books(s);
	r->slurm = sim_slurm_books(s);
	r->tenant_run = r->tenants != NULL;
	if (r->tenants) {
		r->jain_quota = out_tenant_jain(r->tenants);
		r->reclaims = out_tenant_reclaims(r->tenants);
	}
}

void out_result_release(struct run_result *r)
{
	free((void *)r->gpu_types);
	r->jobs = NULL;
	r->samples = NULL;
	r->gpu_types = NULL;
	r->ngpu_types = 0;
	r->groups = NULL;
	r->ngroups = 0;
	r->allocs = NULL;
	r->alloc_slots = NULL;
	r->hpo = NULL;
	r->hpo_out = NULL;
	r->tenants = NULL;
	r->slurm = NULL;
	r->nallocs = 0;
	r->window = NULL;
}

void out_run_dirname(const struct run_result *r, char *buf, size_t n)
{
	snprintf(buf, n, "%s-s%" PRIu64, r->label, r->seed);
}

/* ---- jobs.csv ---- */

/* (id, index) pairs sorted by a least-significant-digit radix sort on the
 * id: linear time for millions of jobs.  Ids are unique in a workload. */
struct id_key {
	uint64_t key; /* id with the sign bit flipped: unsigned order = id
	                 order */
	uint32_t idx; /* position in the jobs array */
};

static uint32_t *order_by_id(const struct job *jobs, size_t n)
{
	uint32_t *ord = xmalloc(n * sizeof(*ord));
	bool sorted = true;
	for (size_t i = 0; i < n; i++) {
		ord[i] = (uint32_t)i;
		if (i && jobs[i].id < jobs[i - 1].id)
			sorted = false;
	}
	if (sorted)
		return ord;

	struct id_key *a = xmalloc(n * sizeof(*a));
	struct id_key *b = xmalloc(n * sizeof(*b));
	uint64_t all_or = 0, all_and = ~(uint64_t)0;
	for (size_t i = 0; i < n; i++) {
		a[i].key = (uint64_t)jobs[i].id ^ ((uint64_t)1 << 63);
		a[i].idx = (uint32_t)i;
		all_or |= a[i].key;
		all_and &= a[i].key;
	}
	for (int shift = 0; shift < 64; shift += 8) {
		/* A byte equal in every key does not reorder anything. */
		if (((all_or ^ all_and) >> shift & 0xff) == 0)
			continue;
		size_t count[257] = { 0 };
		for (size_t i = 0; i < n; i++)
			count[(a[i].key >> shift & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			b[count[a[i].key >> shift & 0xff]++] = a[i];
		struct id_key *t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = a[i].idx;
	free(a);
	free(b);
	return ord;
}

/* A large-model job's cells (OUT_LLM_JOB_HEADER): its model, tp, pp,
 * dp = gpus / (tp x pp), micro-batches per step and model chunks per
 * stage (1: plain 1F1B); empty cells for any other job. */
static char *llm_cells(char *p, const struct job *j,
		       const struct run_result *r)
{
	if (!j->llm || j->llm > r->nllm || !j->tp || !j->pp) {
		memcpy(p, ",,,,,,", 6);
		return p + 6;
	}
	const struct llm_job *lj = &r->llm[j->llm - 1];
	*p++ = ',';
	p = put_text(p, lj->model.name ? lj->model.name : "");
	*p++ = ',';
	p = put_u64(p, j->tp);
	*p++ = ',';
	p = put_u64(p, j->pp);
	*p++ = ',';
	p = put_u64(p, j->gpus / ((uint32_t)j->tp * j->pp));
	*p++ = ',';
	p = put_u64(p, lj->microbatches);
	*p++ = ',';
	p = put_u64(p, lj->interleave > 1 ? lj->interleave : 1);
	return p;
}

/* One row of jobs.csv at p; returns the new end.  At most ~1,500 bytes
 * (numbers, and the group, class and model names quoted, 402 bytes at
 * most each), within write_jobs' margin of 2,048. */
static char *job_row(char *p, const struct job *j, sim_time_t tau,
		     const struct run_result *r)
{
	bool started = j->start != SIM_TIME_NONE;
	bool ended = started && j->end != SIM_TIME_NONE;

	p = put_i64(p, j->id);
	*p++ = ',';
	p = put_time(p, j->submit);
	*p++ = ',';
	if (started)
		p = put_time(p, j->start);
	*p++ = ',';
	if (ended)
		p = put_time(p, j->end);
	*p++ = ',';
	if (started)
		p = put_time(p, j->queued);
	*p++ = ',';
	if (ended)
		p = put_time(p, j->end - j->start);
	*p++ = ',';
	if (ended)
		p = put_time(p, j->end - j->submit);
	*p++ = ',';
	double sld = stats_slowdown(j);
	if (!isnan(sld))
		p = put_ratio(p, sld);
	*p++ = ',';
	double bsld = stats_bounded_slowdown(j, tau);
	if (!isnan(bsld))
		p = put_ratio(p, bsld);
	*p++ = ',';
	p = put_u64(p, j->cpus);
	*p++ = ',';
	if (j->flags & JOB_HAS_ESTIMATE)
		p = put_time(p, j->estimate);
	*p++ = ',';
	if (j->user >= 0)
		p = put_i64(p, j->user);
	*p++ = ',';
	if (j->group >= 0 && (size_t)j->group < r->ngroups)
		p = put_text(p, r->groups[j->group]);
	else if (j->group >= 0)
		p = put_i64(p, j->group);
	*p++ = ',';
	const char *st = j->state < JOB_NSTATES ? state_names[j->state] :
						   "unknown";
	size_t len = strlen(st);
	memcpy(p, st, len);
	p += len;
	*p++ = ',';
	p = put_u64(p, j->gpus);
	*p++ = ',';
	if (started)
		p = put_u64(p, j->nodes_used);
	*p++ = ',';
	if (started && j->gpu_type_used &&
	    j->gpu_type_used <= r->ngpu_types)
		p = put_text(p, r->gpu_types[j->gpu_type_used - 1]);
	*p++ = ',';
	p = put_u64(p, j->preemptions);
	*p++ = ',';
	p = put_u64(p, j->restarts);
	*p++ = ',';
	if (ended)
		p = put_ratio(p, j->attained);
	*p++ = ',';
	if (started)
		p = put_time(p, j->queued);
	*p++ = ',';
	if (ended && j->placement_slowdown > 0)
		p = put_ratio(p, j->placement_slowdown);
	*p++ = ',';
	if (started)
		p = put_time(p, j->start - j->submit);
	*p++ = ',';
	if (started)
		p = put_time(p, j->service);
	*p++ = ',';
	if (ended)
		p = put_ratio(p, j->lost_work);
	*p++ = ',';
	*p++ = stats_measured(r->window, j) ? '1' : '0';
	*p++ = ',';
	const struct jobclass *cls = j->gpus && j->job_class ?
		jobclass_get(j->job_class) : NULL;
	if (cls)
		p = put_text(p, cls->name);
	if (r->hpo)
		p = out_hpo_job_cells(p, j, r);
	if (r->llm)
		p = llm_cells(p, j, r);
	*p++ = '\n';
	return p;
}

static int write_jobs(const char *path, const struct run_result *r,
		      sim_time_t tau, struct sim_error *err)
{
	static const char header[] =
		"id,submit,start,end,wait,run,response,slowdown,"
		"bounded_slowdown,procs,estimate,user,group,state,gpus,"
		"nodes,gpu_type,preemptions,restarts,attained,queued,"
		"placement_slowdown,first_wait,service,lost_work,measured,"
		"job_class";
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		return rc;
	setvbuf(af.f, NULL, _IOFBF, OUT_BUF);
	uint32_t *ord = order_by_id(r->jobs, r->njobs);
	char *buf = xmalloc(OUT_BUF);
	char *p = buf;
	memcpy(p, header, sizeof(header) - 1);
	p += sizeof(header) - 1;
	if (r->hpo) {
		memcpy(p, OUT_HPO_JOB_HEADER, strlen(OUT_HPO_JOB_HEADER));
		p += strlen(OUT_HPO_JOB_HEADER);
	}
	if (r->llm) {
		memcpy(p, OUT_LLM_JOB_HEADER, strlen(OUT_LLM_JOB_HEADER));
		p += strlen(OUT_LLM_JOB_HEADER);
	}
	*p++ = '\n';
	for (size_t i = 0; i < r->njobs; i++) {
		if ((size_t)(p - buf) > OUT_BUF - 2048) {
			fwrite(buf, 1, (size_t)(p - buf), af.f);
			p = buf;
		}
		p = job_row(p, &r->jobs[ord[i]], tau, r);
	}
	fwrite(buf, 1, (size_t)(p - buf), af.f);
	free(buf);
	free(ord);
	return afile_commit(&af, err);
}

/* ---- timeline.csv ---- */

static int write_timeline(const char *path, const struct run_result *r,
			  struct sim_error *err)
{
	static const char header[] = "time,busy_cpus,utilization,"
				     "utilization_avg,running,queued,"
				     "queued_cpus,busy_gpus,"
				     "gpu_utilization_avg\n";
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		return rc;
	setvbuf(af.f, NULL, _IOFBF, OUT_BUF);
	char *buf = xmalloc(OUT_BUF);
	char *p = buf;
	memcpy(p, header, sizeof(header) - 1);
	p += sizeof(header) - 1;
	for (size_t i = 0; i < r->nsamples; i++) {
		const struct sample *s = &r->samples[i];
		if ((size_t)(p - buf) > OUT_BUF - 1024) {
			fwrite(buf, 1, (size_t)(p - buf), af.f);
			p = buf;
		}
		p = put_time(p, s->t);
		*p++ = ',';
		p = put_u64(p, s->busy_cpus);
		*p++ = ',';
		p = put_ratio(p, s->util);
		*p++ = ',';
		p = put_ratio(p, s->util_avg);
		*p++ = ',';
		p = put_u64(p, s->running);
		*p++ = ',';
		p = put_u64(p, s->queued);
		*p++ = ',';
		p = put_u64(p, s->queued_cpus);
		*p++ = ',';
		p = put_u64(p, s->busy_gpus);
		*p++ = ',';
		if (!isnan(s->gpu_util_avg))
			p = put_ratio(p, s->gpu_util_avg);
		*p++ = '\n';
	}
	fwrite(buf, 1, (size_t)(p - buf), af.f);
	free(buf);
	return afile_commit(&af, err);
}

/* ---- JSON ---- */

static void json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
	/* Raw text: a double would lose integers above 2^53. */
	char buf[24];
	*put_u64(buf, v) = '\0';
	cJSON_AddRawToObject(obj, key, buf);
}

/* "seed": a number, or past 2^53 - 1 a string of digits, as an
 * experiment takes it (fmt_seed_json): exact in any JSON reader. */
static void json_add_seed(cJSON *obj, uint64_t seed)
{
	char buf[24];
	fmt_seed_json(buf, seed);
	cJSON_AddRawToObject(obj, "seed", buf);
}

/* Writes a JSON tree (printed with cJSON, plus a final newline). */
static int write_json(const char *path, const cJSON *root,
		      struct sim_error *err)
{
	char *text = cJSON_Print(root);
	SIM_ASSERT(text);
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		goto out_text;
	fputs(text, af.f);
	fputc('\n', af.f);
	rc = afile_commit(&af, err);
out_text:
	cJSON_free(text);
	return rc;
}

/* The measurement window's bounds as text (empty when no job ran). */
static void measure_cells(const struct metrics *m, char *start, char *end)
{
	*start = *end = '\0';
	if (m->span_set) {
		*put_time(start, m->span_start) = '\0';
		*put_time(end, m->span_end) = '\0';
	}
}

static int write_run_summary(const char *path, const struct run_result *r,
			     struct sim_error *err)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "label", r->label);
	cJSON_AddStringToObject(root, "policy", r->policy);
	cJSON_AddStringToObject(root, "workload", r->workload);
	json_add_seed(root, r->seed);
	cJSON *c = cJSON_AddObjectToObject(root, "counters");
	json_add_u64(c, "events", r->counters.events);
	json_add_u64(c, "schedule_calls", r->counters.schedule_calls);
	json_add_u64(c, "bad_calls", r->counters.bad_calls);
	json_add_u64(c, "preemptions", r->counters.preemptions);
	json_add_u64(c, "migrations", r->counters.migrations);
	json_add_u64(c, "shared_starts", r->counters.shared_starts);
	json_add_u64(c, "promises_broken", r->counters.promises_broken);
	json_add_u64(c, "promises_missed", r->counters.promises_missed);
	char lost[64];
	*put_ratio(lost, r->counters.lost_work) = '\0';
	cJSON_AddRawToObject(c, "lost_work_s", lost);
	cJSON *m = cJSON_AddObjectToObject(root, "metrics");
	for (int i = 0; i < M_NMETRICS; i++) {
		char buf[64];
		/* The same text as summary.csv, so the two files agree. */
		if (fmt_metric(buf, &r->metrics, (enum metric_id)i))
			cJSON_AddRawToObject(m, metric_defs[i].name, buf);
		else
			cJSON_AddNullToObject(m, metric_defs[i].name);
	}
	char span[2][64];
	measure_cells(&r->metrics, span[0], span[1]);
	cJSON *w = cJSON_AddObjectToObject(root, "measure");
	cJSON_AddStringToObject(w, "basis",
				stats_basis_names[r->metrics.basis]);
	for (int i = 0; i < 2; i++) {
		const char *key = i ? "end" : "start";
		if (span[i][0])
			cJSON_AddRawToObject(w, key, span[i]);
		else
			cJSON_AddNullToObject(w, key);
	}
	if (r->hpo)
		out_hpo_summary(root, r);
	if (r->tenants)
		out_tenant_summary(root, r);
	int rc = write_json(path, root, err);
	cJSON_Delete(root);
	return rc;
}

/* A result file this run does not write, left by an earlier run into the
 * same folder: removed, so that it is not taken for this run's. */
static int remove_stale(const char *path, struct sim_error *err)
{
	if (unlink(path) == 0 || errno == ENOENT)
		return 0;
	return err_setc(err, -SIM_EIO, "%s: cannot remove: %s", path,
			strerror(errno));
}

int out_write_run(const char *outdir, const struct run_result *r,
		  sim_time_t tau, struct sim_error *err)
{
	char name[512];
	out_run_dirname(r, name, sizeof(name));
	char *dir = path_join(outdir, name);
	char *path = NULL;
	int rc = mkdir_p(dir, err);
	if (rc)
		goto out_dir;
	path = xasprintf("%s/jobs.csv", dir);
	rc = write_jobs(path, r, tau, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/jobs.swf", dir);
	rc = out_write_swf(path, r, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/allocations.csv", dir);
	if (r->allocations)
		rc = out_write_allocations(path, r, err);
	else
		rc = remove_stale(path, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/searches.csv", dir);
	rc = r->hpo ? out_write_searches(path, r, err)
		    : remove_stale(path, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/projects.csv", dir);
	rc = r->tenants ? out_write_projects(path, r, err)
			: remove_stale(path, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/partitions.csv", dir);
	rc = r->slurm && r->slurm->spec->nparts
		     ? out_write_partitions(path, r, err)
		     : remove_stale(path, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/projects_gpus.csv", dir);
	rc = r->tenants ? out_write_projects_gpus(path, r, err)
			: remove_stale(path, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/timeline.csv", dir);
	rc = write_timeline(path, r, err);
	if (rc)
		goto out_path;
	free(path);
	path = xasprintf("%s/summary.json", dir);
	rc = write_run_summary(path, r, err);
	if (!rc)
		rc = cdf_write_run(dir, r, err);
out_path:
	free(path);
out_dir:
	free(dir);
	return rc;
}

/* ---- summary.csv ---- */

/* A run's OUT_TENANT_TAIL cells (empty for a run without tenants). */
static void tenant_cells(FILE *f, const struct run_result *r)
{
	char buf[64];
	if (!r->tenant_run) {
		fputs(",,", f);
		return;
	}
	buf[0] = '\0';
	if (!isnan(r->jain_quota))
		*put_ratio(buf, r->jain_quota) = '\0';
	fprintf(f, ",%s,%" PRIu64, buf, r->reclaims);
}

int out_write_summary(const char *outdir, const struct run_result *runs,
		      size_t nruns, struct sim_error *err)
{
	char *path = path_join(outdir, "summary.csv");
	struct afile af;
	int rc = mkdir_p(outdir, err);
	if (rc)
		goto out_path;
	rc = afile_open(&af, path, err);
	if (rc)
		goto out_path;
	fputs("label,policy,workload,seed", af.f);
	for (int i = 0; i < M_NMETRICS; i++)
		fprintf(af.f, ",%s", metric_defs[i].name);
	bool tenants = false;
	for (size_t k = 0; k < nruns; k++)
		tenants = tenants || runs[k].tenant_run;
	fputs(tenants ? OUT_SUMMARY_TAIL OUT_TENANT_TAIL "\n"
		      : OUT_SUMMARY_TAIL "\n", af.f);
	for (size_t k = 0; k < nruns; k++) {
		const struct run_result *r = &runs[k];
		csv_put_str(af.f, r->label);
		fputc(',', af.f);
		csv_put_str(af.f, r->policy);
		fputc(',', af.f);
		csv_put_str(af.f, r->workload);
		fprintf(af.f, ",%" PRIu64, r->seed);
		for (int i = 0; i < M_NMETRICS; i++) {
			char buf[64];
			fmt_metric(buf, &r->metrics, (enum metric_id)i);
			fputc(',', af.f);
			fputs(buf, af.f);
		}
		char span[2][64];
		measure_cells(&r->metrics, span[0], span[1]);
		fprintf(af.f, ",%s,%s,%s", span[0], span[1],
			stats_basis_names[r->metrics.basis]);
		if (tenants)
			tenant_cells(af.f, r);
		fputc('\n', af.f);
	}
	rc = afile_commit(&af, err);
out_path:
	free(path);
	return rc;
}

/* ---- manifest.json ---- */

/* A path as the manifest records it: relative to the experiment file's
 * folder (so results read the same whatever folder clustersim ran from),
 * absolute only when the two share nothing but "/".  The caller frees. */
static char *manifest_path(const struct experiment *e, const char *path)
{
	if (!e->path)
		return xstrdup(path);
	char *dir = path_dirname(e->path);
	char *rel = path_relative_to(dir, path);
	free(dir);
	return rel;
}

/* Whether the inputs array names path (as recorded) already. */
static bool listed(const cJSON *inputs, const char *path)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, inputs) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "path");
		if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
			return true;
	}
	return false;
}

/* An input with the digest of its bytes as read (exp_note_input); a file
 * not recorded (a plug-in, which dlopen reads) is hashed now, through the
 * input reader's checks.  With once, an input listed already is not
 * repeated. */
static int add_input(cJSON *inputs, const struct experiment *e,
		     const char *path, bool once, struct sim_error *err)
{
	char hex[INPUT_SHA256_HEX];
	char *rel = manifest_path(e, path);
	int rc = 0;
	if (once && listed(inputs, rel))
		goto out;
	const char *sha = exp_input_sha256(e, path);
	if (!sha) {
		rc = input_sha256_file(path, NULL, hex, err);
		if (rc)
			goto out;
		sha = hex;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", rel);
	cJSON_AddStringToObject(o, "sha256", sha);
	cJSON_AddItemToArray(inputs, o);
out:
	free(rel);
	return rc;
}

/* A string item of the resolved configuration that holds a path: recorded
 * like the inputs, relative to the experiment's folder. */
static void config_path(const struct experiment *e, cJSON *item)
{
	if (!cJSON_IsString(item))
		return;
	char *rel = manifest_path(e, item->valuestring);
	cJSON_SetValuestring(item, rel);
	free(rel);
}

/* The paths of the resolved configuration (trace, output, plug-ins, a fill
 * experiment's node and pod lists), each recorded like the inputs. */
static void config_paths(const struct experiment *e, cJSON *config)
{
	cJSON *it;
	config_path(e, cJSON_GetObjectItemCaseSensitive(config, "output"));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(config,
								"plugins"))
		config_path(e, it);
	cJSON *w = cJSON_GetObjectItemCaseSensitive(config, "workload");
	config_path(e, cJSON_GetObjectItemCaseSensitive(w, "trace"));
	cJSON *f = cJSON_GetObjectItemCaseSensitive(config, "fill");
	config_path(e, cJSON_GetObjectItemCaseSensitive(f, "nodes"));
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(f, "pods"))
		config_path(e, it);
}

/* A run's policy parameters, as resolved. */
static void add_params(cJSON *params, const struct run_result *r)
{
	for (size_t i = 0; i < r->nparams; i++) {
		const struct pval *v = &r->params[i];
		char buf[32];
		switch (v->type) {
		case PARAM_INT:
			snprintf(buf, sizeof(buf), "%" PRId64, v->i);
			cJSON_AddRawToObject(params, v->name, buf);
			break;
		case PARAM_DOUBLE:
			cJSON_AddNumberToObject(params, v->name, v->d);
			break;
		case PARAM_BOOL:
			cJSON_AddBoolToObject(params, v->name, v->b);
			break;
		case PARAM_STRING:
		case PARAM_FILE: /* the path as written; its file's hash is
				    among the inputs */
			cJSON_AddStringToObject(params, v->name, v->s);
			break;
		}
	}
}

/* The manifest as a cJSON tree (NULL with err filled). */
static cJSON *manifest_tree(const struct experiment *e,
			    const struct run_result *runs, size_t nruns,
			    int *rcp, struct sim_error *err)
{
	cJSON *root = cJSON_CreateObject();
	int rc = 0;

	cJSON_AddStringToObject(root, "tool", "clustersim");
	cJSON_AddStringToObject(root, "version", CLUSTERSIM_VERSION);
	cJSON_AddStringToObject(root, "revision", version_revision());
	if (e->path)
		cJSON_AddStringToObject(root, "experiment",
					path_basename(e->path));
	else
		cJSON_AddNullToObject(root, "experiment");

	cJSON *inputs = cJSON_AddArrayToObject(root, "inputs");
	if (e->path && (rc = add_input(inputs, e, e->path, false, err)))
		goto out_root;
	if (!e->workload.generated && e->workload.trace &&
	    (rc = add_input(inputs, e, e->workload.trace, false, err)))
		goto out_root;
	for (size_t i = 0; i < e->nplugins; i++)
		if ((rc = add_input(inputs, e, e->plugins[i], false, err)))
			goto out_root;
	/* A fill or replay experiment's inputs: its node and pod lists. */
	if (e->has_fill && e->fill.nodes &&
	    (rc = add_input(inputs, e, e->fill.nodes, false, err)))
		goto out_root;
	for (size_t i = 0; e->has_fill && i < e->fill.npods; i++)
		if ((rc = add_input(inputs, e, e->fill.pods[i], false, err)))
			goto out_root;
	/* And every other file the load read: a cluster file. */
	for (size_t i = 0; i < e->ninputs; i++)
		if ((rc = add_input(inputs, e, e->inputs[i].path, true, err)))
			goto out_root;

	cJSON *seeds = cJSON_AddArrayToObject(root, "seeds");
	for (size_t i = 0; i < e->nseeds; i++) {
		char buf[24];
		fmt_seed_json(buf, e->seeds[i]);
		cJSON_AddItemToArray(seeds, cJSON_CreateRaw(buf));
	}

	cJSON *arr = cJSON_AddArrayToObject(root, "runs");
	for (size_t k = 0; k < nruns; k++) {
		char dir[512];
		cJSON *o = cJSON_CreateObject();
		out_run_dirname(&runs[k], dir, sizeof(dir));
		cJSON_AddStringToObject(o, "label", runs[k].label);
		cJSON_AddStringToObject(o, "policy", runs[k].policy);
		json_add_seed(o, runs[k].seed);
		cJSON_AddStringToObject(o, "dir", dir);
		add_params(cJSON_AddObjectToObject(o, "params"), &runs[k]);
		cJSON_AddItemToArray(arr, o);
	}

	/* Figures no one measured are never presented as measured. */
	cJSON_AddItemToObject(root, "derived_throughputs",
			      exp_derived_json(e));

	cJSON *config = NULL;
	if (e->resolved_json) {
		config = cJSON_Parse(e->resolved_json);
		if (!config) {
			rc = err_setc(err, -SIM_EINPUT,
				      "%s: resolved configuration is not "
				      "valid JSON",
				      e->path ? e->path : "experiment");
			goto out_root;
		}
		config_paths(e, config);
		cJSON_AddItemToObject(root, "config", config);
	} else {
		cJSON_AddNullToObject(root, "config");
	}

	*rcp = 0;
	return root;
out_root:
	cJSON_Delete(root);
	*rcp = rc;
	return NULL;
}

char *out_manifest_text(const struct experiment *e,
			const struct run_result *runs, size_t nruns,
			struct sim_error *err)
{
	int rc;
	cJSON *root = manifest_tree(e, runs, nruns, &rc, err);
	if (!root)
		return NULL;
	char *text = cJSON_Print(root);
	SIM_ASSERT(text);
	char *full = xasprintf("%s\n", text);
	cJSON_free(text);
	cJSON_Delete(root);
	return full;
}

bool out_manifest_same(const char *a, const char *b)
{
	cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
	bool same = false;
	if (ja && jb) {
		cJSON_DeleteItemFromObjectCaseSensitive(ja, "revision");
		cJSON_DeleteItemFromObjectCaseSensitive(jb, "revision");
		same = cJSON_Compare(ja, jb, true);
	}
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	return same;
}

int out_write_manifest(const char *outdir, const struct experiment *e,
		       const struct run_result *runs, size_t nruns,
		       struct sim_error *err)
{
	int rc;
	cJSON *root = manifest_tree(e, runs, nruns, &rc, err);
	if (!root)
		return rc;
	char *path = path_join(outdir, "manifest.json");
	rc = mkdir_p(outdir, err);
	if (!rc)
		rc = write_json(path, root, err);
	cJSON_Delete(root);
	free(path);
	return rc;
}
