/*
 * The generator's "searches" section (experiments/README.md, "searches"):
 * hyperparameter searches among the generated jobs, each a group of
 * trials stopped early at rungs by ASHA or asynchronous Hyperband (workload/hpo.h has the model).  Parsed into the inline
 * struct hpo_spec of the gen_spec, then checked as a whole with its JSON
 * path; its resolved form for the manifest.
 */
#include <math.h>
#include <stdlib.h>

#include "exp/exp_json.h"
#include "exp/exp_schema.h"
#include "base/util.h"
#include "workload/hpo.h"

/* A [min, max] pair of numbers at key (the curve's ranges). */
static int parse_range(struct exp_ctx *c, const char *key, const cJSON *v,
		       double *r)
{
	double *xs = NULL;
	size_t n = 0;
	if (!v)
		return 0;
	int rc = exp_get_numbers(c, key, v, &xs, &n);
	if (!rc && n != 2)
		rc = exp_fail(c, key, "expected [min, max], got %zu numbers",
			      n);
	if (!rc) {
		r[0] = xs[0];
		r[1] = xs[1];
	}
	free(xs);
	return rc;
}

int exp_parse_searches(struct exp_ctx *c, const cJSON *v, struct hpo_spec *h)
{
	static const char *const keys[] = { "count", "trials", "gpus",
					    "max_epochs", "min_epochs", "eta",
					    "epoch_s", "interarrival_s", "hpo",
					    "a", "b", "c", "noise" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = exp_jp_key(c, "searches");
	char *prefix = NULL;
	int mode = HPO_ASHA;
	hpo_spec_default(h);
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_u32(c, "count", f[0], 1, &h->count);
	if (!rc)
		rc = exp_get_u32(c, "trials", f[1], 1, &h->trials);
	if (!rc)
		rc = exp_get_u32(c, "gpus", f[2], 1, &h->gpus);
	if (!rc)
		rc = exp_get_u32(c, "max_epochs", f[3], 1, &h->max_epochs);
	if (!rc)
		rc = exp_get_u32(c, "min_epochs", f[4], 1, &h->min_epochs);
	if (!rc)
		rc = exp_get_u32(c, "eta", f[5], 2, &h->eta);
	if (!rc)
		rc = exp_get_number(c, "epoch_s", f[6], 0, true, &h->epoch_s);
	if (!rc)
		rc = exp_get_number(c, "interarrival_s", f[7], 0, true,
				    &h->interarrival_s);
	if (!rc)
		rc = exp_get_enum(c, "hpo", f[8], hpo_mode_names, HPO_NMODES,
				  &mode);
	h->mode = (enum hpo_mode)mode;
	if (!rc)
		rc = parse_range(c, "a", f[9], h->a);
	if (!rc)
		rc = parse_range(c, "b", f[10], h->b);
	if (!rc)
		rc = parse_range(c, "c", f[11], h->c);
	if (!rc)
		rc = exp_get_number(c, "noise", f[12], 0, false, &h->noise);
	if (!rc) {
		prefix = xasprintf("%s: %s", c->file, c->jp);
		rc = hpo_spec_check(h, prefix, c->err);
	}
	h->on = rc == 0;
	free(prefix);
	exp_jp_pop(c, m);
	return rc;
}

/* [min, max] as a JSON array. */
static cJSON *range_json(const double *r)
{
	cJSON *a = cJSON_CreateArray();
	cJSON_AddItemToArray(a, cJSON_CreateNumber(r[0]));
	cJSON_AddItemToArray(a, cJSON_CreateNumber(r[1]));
	return a;
}

cJSON *exp_searches_json(const struct hpo_spec *h)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "count", h->count);
	cJSON_AddNumberToObject(o, "trials", h->trials);
	cJSON_AddNumberToObject(o, "gpus", h->gpus);
	cJSON_AddNumberToObject(o, "max_epochs", h->max_epochs);
	cJSON_AddNumberToObject(o, "min_epochs", h->min_epochs);
	cJSON_AddNumberToObject(o, "eta", h->eta);
	cJSON_AddNumberToObject(o, "epoch_s", h->epoch_s);
	cJSON_AddNumberToObject(o, "interarrival_s", h->interarrival_s);
	cJSON_AddStringToObject(o, "hpo", hpo_mode_names[h->mode]);
	cJSON_AddItemToObject(o, "a", range_json(h->a));
	cJSON_AddItemToObject(o, "b", range_json(h->b));
	cJSON_AddItemToObject(o, "c", range_json(h->c));
	cJSON_AddNumberToObject(o, "noise", h->noise);
	return o;
}
