/*
 * `run --policy X` into a results folder that holds the runs of the same
 * experiment: the run folders of the other policies are kept (runner
 * claim), and so must their rows of summary.csv and their entries of
 * manifest.json's "runs", or the folder's summary would name X alone and
 * orphan the rest.  The merge puts them back beside X's fresh ones, in
 * the experiment's order (policies, then seeds), as a full run writes
 * them.  It merges only when the old manifest equals the new one but for
 * its runs (same tool version, inputs and their digests, seeds, resolved
 * configuration) and the old summary has the same header, so rows of
 * another experiment or another format are never mixed in; a run whose
 * folder is gone is dropped.
 */
#include "run/run_keep.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "exp/exp_json.h"

char *run_keep_read(const char *dir, const char *name)
{
	char *path = path_join(dir, name), *text = NULL;
	size_t len;
	if (exp_read_text(path, 0, &text, &len, NULL, NULL))
		text = NULL;
	free(path);
	return text;
}

/* The key of a summary row: its label field as written (quotes and all)
 * and its seed field, "label,seed"; NULL for a malformed row. */
static char *row_key(const char *row, size_t n)
{
	const char *p = row, *end = row + n;
	const char *f[4];
	size_t len[4];
	for (int k = 0; k < 4; k++) {
		f[k] = p;
		bool q = p < end && *p == '"';
		for (p += q; p < end; p++) {
			if (q && *p == '"' && p + 1 < end && p[1] == '"')
				p++;
			else if (q && *p == '"')
				q = false;
			else if (!q && *p == ',')
				break;
		}
		len[k] = (size_t)(p - f[k]);
		if (p == end && k < 3)
			return NULL;
		p++;
	}
	return xasprintf("%.*s,%.*s", (int)len[0], f[0], (int)len[3], f[3]);
}

/* The key of the row of label and seed (a label needs no quotes: it
 * names a folder, so it has no separator, quote or line break). */
static char *key_of(const char *label, uint64_t seed)
{
	return xasprintf("%s,%" PRIu64, label, seed);
}

/* The row of text (a summary.csv) with this key, its length in *n; NULL
 * if none. */
static const char *find_row(const char *text, const char *key, size_t *n)
{
	const char *p = strchr(text, '\n');
	while (p && *++p) {
		size_t len = strcspn(p, "\n");
		char *k = row_key(p, len);
		bool hit = k && !strcmp(k, key);
		free(k);
		if (hit) {
			*n = len;
			return p;
		}
		p += len;
		if (!*p)
			break;
	}
	return NULL;
}

/* The manifest's run entry with this label and seed, or NULL. */
static cJSON *find_run(const cJSON *man, const char *label, uint64_t seed)
{
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(man, "runs");
	char want[24];
	fmt_seed_json(want, seed);
	cJSON *o;
	cJSON_ArrayForEach(o, runs) {
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "label");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(o, "seed");
		char *st = s ? cJSON_PrintUnformatted(s) : NULL;
		bool hit = cJSON_IsString(l) && !strcmp(l->valuestring, label) &&
			   st && !strcmp(st, want);
		cJSON_free(st);
		if (hit)
			return o;
	}
	return NULL;
}

/* Whether the run folder of entry o is still there. */
static bool run_dir_kept(const char *outdir, const cJSON *o)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "dir");
	if (!cJSON_IsString(d))
		return false;
	char *path = path_join(outdir, d->valuestring);
	struct stat st;
	bool ok = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	free(path);
	return ok;
}

/* Whether cJSON prints tree as text was written (so that a merged
 * manifest has the bytes a full run writes: a seed past 2^53, which
 * cJSON reads as a double, does not). */
static bool prints_as(const cJSON *tree, const char *text)
{
	char *t = cJSON_Print(tree);
	SIM_ASSERT(t);
	size_t n = strlen(t);
	bool same = !strncmp(t, text, n) && !strcmp(text + n, "\n");
	cJSON_free(t);
	return same;
}

/* Whether two manifests are equal but for their runs. */
static bool same_but_runs(const cJSON *a, const cJSON *b)
{
	cJSON *ca = cJSON_Duplicate(a, true), *cb = cJSON_Duplicate(b, true);
	bool same = cJSON_HasObjectItem(ca, "runs") &&
		    cJSON_HasObjectItem(cb, "runs");
	cJSON_DeleteItemFromObjectCaseSensitive(ca, "runs");
	cJSON_DeleteItemFromObjectCaseSensitive(cb, "runs");
	same = same && cJSON_Compare(ca, cb, true);
	cJSON_Delete(ca);
	cJSON_Delete(cb);
	return same;
}

static int write_text(const char *dir, const char *name, const char *text,
		      struct sim_error *err)
{
	struct afile af;
	int rc = afile_open_in(&af, dir, name, err);
	if (rc)
		return rc;
	fputs(text, af.f);
	return afile_commit(&af, err);
}

/* The merged summary.csv and manifest.json: for each policy and seed of
 * e, the new row and entry, else the old ones whose folder is kept. */
static int merge(const char *outdir, const struct experiment *e,
		 const char *osum, const char *nsum, cJSON *oman, cJSON *nman,
		 struct sim_error *err)
{
	char *sum = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&sum, &n);
	fprintf(f, "%.*s\n", (int)strcspn(nsum, "\n"), nsum);
	cJSON *runs = cJSON_CreateArray();
	for (size_t i = 0; i < e->npolicies; i++) {
		for (size_t k = 0; k < e->nseeds; k++) {
			const char *label = e->policies[i].label;
			cJSON *o = find_run(nman, label, e->seeds[k]);
			const char *text = nsum;
			if (!o) {
				o = find_run(oman, label, e->seeds[k]);
				text = osum;
				if (o && !run_dir_kept(outdir, o))
					o = NULL;
			}
			if (!o)
				continue;
			char *key = key_of(label, e->seeds[k]);
			size_t len;
			const char *row = find_row(text, key, &len);
			free(key);
			if (!row)
				continue;
			fprintf(f, "%.*s\n", (int)len, row);
			cJSON_AddItemToArray(runs, cJSON_Duplicate(o, true));
		}
	}
	fclose(f);
	cJSON_ReplaceItemInObjectCaseSensitive(nman, "runs", runs);
	char *mtext = cJSON_Print(nman);
	SIM_ASSERT(mtext);
	char *full = xasprintf("%s\n", mtext);
	cJSON_free(mtext);
	int rc = write_text(outdir, "summary.csv", sum, err);
	if (!rc)
		rc = write_text(outdir, "manifest.json", full, err);
	free(full);
	free(sum);
	return rc;
}

int run_keep_others(const char *outdir, const struct experiment *e,
		    const char *old_summary, const char *old_manifest,
		    struct sim_error *err)
{
	if (!old_summary || !old_manifest)
		return 0;
	char *nsum = run_keep_read(outdir, "summary.csv");
	char *ntext = run_keep_read(outdir, "manifest.json");
	cJSON *oman = cJSON_Parse(old_manifest);
	cJSON *nman = ntext ? cJSON_Parse(ntext) : NULL;
	int rc = 0;
	size_t h = nsum ? strcspn(nsum, "\n") : 0;
	if (nsum && oman && nman && prints_as(oman, old_manifest) &&
	    prints_as(nman, ntext) && same_but_runs(oman, nman) &&
	    strncmp(old_summary, nsum, h) == 0 && old_summary[h] == '\n')
		rc = merge(outdir, e, old_summary, nsum, oman, nman, err);
	cJSON_Delete(oman);
	cJSON_Delete(nman);
	free(ntext);
	free(nsum);
	return rc;
}
