/*
 * Claiming a results folder: its lock, the refusal to overwrite what is
 * not clustersim's, and the removal of the run folders of a previous
 * experiment that this one no longer produces (runner_prune()).  Shared
 * by event-engine runs, fill and replay runs, and sweeps (runner.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/outdir.h"
#include "base/util.h"
#include "exp/exp_json.h"
#include "run/runner.h"

/* The text of a file, or NULL when it cannot be read. */
static char *read_all(const char *path)
{
	char *text = NULL;
	size_t len;
	return exp_read_text(path, 0, &text, &len, NULL, NULL) ? NULL : text;
}

/* What a run folder may hold, of every kind of run (job runs, sweep runs,
 * fill and replay runs): the files runner_prune() may remove. */
static const char *const run_files[] = {
	"jobs.csv", "timeline.csv", "summary.json", "summary.csv",
	"manifest.json", "error.txt", "fill.csv", "pods.csv", "cdf_wait.csv",
	"cdf_response.csv", "cdf_placement_slowdown.csv", "jobs.swf",
	"allocations.csv", "searches.csv", "projects.csv",
	"projects_gpus.csv", "partitions.csv", NULL,
};

/* Whether s ends in "-s<digits>", as every run folder's name does. */
static bool run_dir_name(const char *s)
{
	const char *p = strrchr(s, '-');
	if (!p || p == s || p[1] != 's' || !p[2])
		return false;
	for (p += 2; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t runner_prune(const char *outdir, const char *const *keep,
		    size_t nkeep, FILE *msg)
{
	char *path = path_join(outdir, "manifest.json");
	char *text = read_all(path);
	cJSON *root = text ? cJSON_Parse(text) : NULL;
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
	const cJSON *it;
	size_t removed = 0;
	/* Sorted, so that a sweep of many runs is not quadratic. */
	const char **sorted = xcalloc(nkeep + 1, sizeof(*sorted));
	if (nkeep)
		memcpy(sorted, keep, nkeep * sizeof(*sorted));
	qsort(sorted, nkeep, sizeof(*sorted), cmp_str);
	if (!cJSON_IsArray(runs))
		runs = NULL;
	cJSON_ArrayForEach(it, runs) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "dir");
		struct sim_error why;
		if (!cJSON_IsString(d) ||
		    bsearch(&d->valuestring, sorted, nkeep, sizeof(*sorted),
			    cmp_str))
			continue;
		int rc = run_dir_name(d->valuestring) ?
			 outdir_remove_run(outdir, d->valuestring, run_files,
					   &why) :
			 err_setc(&why, -1, "'%s' is not a run folder's name",
				  d->valuestring);
		if (rc > 0)
			removed++;
		else if (rc < 0 && msg)
			fprintf(msg, "clustersim: warning: %s: a run folder "
				"of the previous results not removed: %s\n",
				outdir, why.msg);
	}
	free(sorted);
	cJSON_Delete(root);
	free(text);
	free(path);
	return removed;
}

int runner_claim(struct outdir *od, const char *outdir, bool shared,
		 const char *const *keep, size_t nkeep, FILE *msg,
		 struct sim_error *err)
{
	int rc = outdir_lock(od, outdir, shared, err);
	if (!rc && (rc = outdir_want(outdir, "manifest.json", false, err)))
		outdir_unlock(od);
	for (size_t i = 0; i < nkeep && !rc; i++)
		if ((rc = outdir_want(outdir, keep[i], true, err)))
			outdir_unlock(od);
	if (!rc)
		runner_prune(outdir, keep, nkeep, msg);
	return rc;
}
