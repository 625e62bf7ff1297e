/*
 * The result files of hyperparameter searches (docs/metrics.md,
 * "Searches"): the trial columns appended to jobs.csv, searches.csv (one
 * row per search) and the "searches" summary of summary.json.  Written
 * only for a run whose workload has searches, so every other run's files
 * are as they were.
 *
 * Per search: when its trials were submitted (their jobs' submit, so
 * after load_scale), its trials, those that reached max_epochs, the best trial
 * (the lowest final loss among those that reached max_epochs; ties: the
 * lower trial index), when it ended and the time from the search's
 * submit until then (time to best), the time until its last trial ended,
 * the GPU-hours its trials held (attained service / 3600), and the trials
 * stopped at each rung of the ladder.
 */
#include "report/out.h"
#include "report/out_fmt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "workload/hpo.h"

/* One search's figures. */
struct search_fig {
	sim_time_t submit;       /* its trials' submit (after load_scale) */
	uint32_t trials;         /* its trials in the run */
	uint32_t completed;      /* that reached max_epochs */
	int64_t best;            /* best trial (in the search), -1 = none */
	double best_loss;        /* its final loss */
	sim_time_t best_end;     /* when it ended */
	sim_time_t last_end;     /* when its last trial ended; NONE = some
	                            did not end */
	double gpu_s;            /* GPU-seconds its trials held */
	uint32_t stopped[HPO_MAX_RUNGS]; /* trials stopped at each rung */
};

static void search_figures(const struct run_result *r, uint32_t k,
			   struct search_fig *f)
{
	const struct hpo_search *se = &r->hpo->searches[k];
	memset(f, 0, sizeof(*f));
	f->best = -1;
	f->best_end = SIM_TIME_NONE;
	f->last_end = 0;
	f->submit = se->submit;
	for (uint32_t t = 0; t < se->ntrials; t++) {
		const struct hpo_outcome *o = &r->hpo_out[se->first + t];
		if (!o->job)
			continue;
		const struct job *j = &r->jobs[o->job - 1];
		if (!f->trials || j->submit < f->submit)
			f->submit = j->submit;
		f->trials++;
		f->gpu_s += j->attained;
		if (j->end == SIM_TIME_NONE || f->last_end == SIM_TIME_NONE)
			f->last_end = SIM_TIME_NONE;
		else if (j->end > f->last_end)
			f->last_end = j->end;
		if (o->stopped && o->reported >= 1)
			f->stopped[o->reported - 1]++;
		if (!o->completed)
			continue;
		f->completed++;
		if (f->best < 0 || o->loss < f->best_loss) {
			f->best = t;
			f->best_loss = o->loss;
			f->best_end = j->end;
		}
	}
}

char *out_hpo_job_cells(char *p, const struct job *j,
			const struct run_result *r)
{
	const struct hpo_trial *t = hpo_trial_of(r->hpo, j);
	if (!t)
		return memcpy(p, ",,,,,", 5), p + 5;
	const struct hpo_outcome *o = &r->hpo_out[t - r->hpo->trials];
	*p++ = ',';
	p = put_u64(p, t->search);
	*p++ = ',';
	p = put_u64(p, t->trial);
	*p++ = ',';
	p = put_u64(p, t->bracket);
	*p++ = ',';
	p = put_u64(p, o->rungs);
	*p++ = ',';
	if (o->stopped)
		p = put_u64(p, r->hpo->rungs[o->reported - 1]);
	*p++ = ',';
	if (o->reported)
		p = put_ratio(p, o->loss);
	return p;
}

int out_write_searches(const char *path, const struct run_result *r,
		       struct sim_error *err)
{
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		return rc;
	uint32_t nr = r->hpo->nrungs;
	fputs("search,submit,trials,completed,best_trial,best_loss,best_end,"
	      "time_to_best,time_to_last,gpu_hours", af.f);
	for (uint32_t k = 0; k < nr; k++)
		fprintf(af.f, ",stopped_at_%u", r->hpo->rungs[k]);
	fputc('\n', af.f);
	for (uint32_t s = 0; s < r->hpo->nsearches; s++) {
		struct search_fig f;
		char b[7][64] = { "" };
		search_figures(r, s, &f);
		sim_time_t sub = f.submit;
		*put_time(b[0], sub) = '\0';
		if (f.best >= 0 && f.best_end != SIM_TIME_NONE) {
			*put_u64(b[1], (uint64_t)f.best) = '\0';
			*put_ratio(b[2], f.best_loss) = '\0';
			*put_time(b[3], f.best_end) = '\0';
			*put_time(b[4], f.best_end - sub) = '\0';
		}
		if (f.trials && f.last_end != SIM_TIME_NONE)
			*put_time(b[5], f.last_end - sub) = '\0';
		*put_ratio(b[6], f.gpu_s / 3600) = '\0';
		fprintf(af.f, "%u,%s,%u,%u,%s,%s,%s,%s,%s,%s", s, b[0],
			f.trials, f.completed, b[1], b[2], b[3], b[4], b[5],
			b[6]);
		for (uint32_t k = 0; k < nr; k++)
			fprintf(af.f, ",%u", f.stopped[k]);
		fputc('\n', af.f);
	}
	return afile_commit(&af, err);
}

/* A ratio as a raw JSON number in the files' format. */
static void add_ratio(cJSON *o, const char *key, double v)
{
	char buf[64];
	*put_ratio(buf, v) = '\0';
	if (!cJSON_AddRawToObject(o, key, buf))
		SIM_BUG("out of memory building JSON");
}

void out_hpo_summary(cJSON *root, const struct run_result *r)
{
	cJSON *o = cJSON_AddObjectToObject(root, "searches");
	cJSON *st = cJSON_AddArrayToObject(o, "stopped_by_rung");
	if (!o || !st)
		SIM_BUG("out of memory building JSON");
	uint32_t nr = r->hpo->nrungs, with_best = 0, trials = 0, done = 0;
	uint32_t stopped[HPO_MAX_RUNGS] = { 0 };
	double ttb = 0, gpu_s = 0;
	for (uint32_t s = 0; s < r->hpo->nsearches; s++) {
		struct search_fig f;
		search_figures(r, s, &f);
		trials += f.trials;
		done += f.completed;
		gpu_s += f.gpu_s;
		for (uint32_t k = 0; k < nr; k++)
			stopped[k] += f.stopped[k];
		if (f.best >= 0 && f.best_end != SIM_TIME_NONE) {
			with_best++;
			ttb += (double)(f.best_end - f.submit) / SIM_SEC;
		}
	}
	cJSON_AddNumberToObject(o, "count", r->hpo->nsearches);
	cJSON_AddNumberToObject(o, "trials", trials);
	cJSON_AddNumberToObject(o, "completed", done);
	for (uint32_t k = 0; k < nr; k++)
		cJSON_AddItemToArray(st, cJSON_CreateNumber(stopped[k]));
	if (with_best)
		add_ratio(o, "mean_time_to_best", ttb / with_best);
	else
		cJSON_AddNullToObject(o, "mean_time_to_best");
	add_ratio(o, "gpu_hours", gpu_s / 3600);
	add_ratio(o, "gpu_hours_per_search",
		  r->hpo->nsearches ? gpu_s / 3600 / r->hpo->nsearches : 0);
}
