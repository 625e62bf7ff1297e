/*
 * The "throughputs" key of an experiment file: overrides of the default
 * job-class tables (jobclass_override.h has the model, the contract is
 * experiments/README.md), read into a struct jobclass_overrides and
 * printed back for the manifest.
 *
 *   "throughputs": {
 *     "resnet50_bs64": { "v100": 9.5, "k80": 1.2 },
 *     "Transformer (batch size 16)": { "gradient_bytes": 100000000 }
 *   }
 *
 * A class is named by any spelling jobclass_find() accepts; a GPU type by
 * any spelling jobclass_gpu_lookup() accepts.  Each GPU type's value is
 * the class's throughput on one GPU of that type, steps/s, a finite
 * number > 0; "gradient_bytes" an integer >= 0 (0: no communication).
 * Two spellings of one class or one GPU type are an error, and so are an
 * empty class object and a per-scale object ({ "1": ..., "8": ... }): the
 * speed model takes multi-GPU speed from the all-reduce model, not from
 * the table's scale columns, so such figures would be ignored.
 */
#include "exp/exp_schema.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "speed/jobclass_override.h"
#include "base/util.h"

#define GRAD_KEY "gradient_bytes"

/* Lower case, letters and digits only, cut to cap - 1 characters. */
static void norm(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (; *s && n + 1 < cap; s++)
		if (isalnum((unsigned char)*s))
			out[n++] = (char)tolower((unsigned char)*s);
	out[n] = '\0';
}

/* A short spelling of a class that jobclass_find() accepts:
 * "resnet50_bs64", or the normalised name for a class of no batch. */
static void short_name(unsigned cls, char *buf, size_t cap)
{
	const struct jobclass *jc = jobclass_get(cls);
	char fam[32];
	norm(jobclass_family_get(jc->family)->name, fam, sizeof(fam));
	if (jc->batch && jc->proxy == JOB_CLASS_NONE)
		snprintf(buf, cap, "%s_bs%u", fam, (unsigned)jc->batch);
	else
		norm(jc->name, buf, cap);
}

/* Consider candidate cand for the closest spelling to key (normalised). */
static void consider(const char *key, const char *cand, size_t *best,
		     char *sugg, size_t cap)
{
	char k[96];
	norm(cand, k, sizeof(k));
	size_t d = exp_edit_distance(key, k);
	if (d < *best) {
		*best = d;
		snprintf(sugg, cap, "%s", cand);
	}
}

static int fail_class(struct exp_ctx *c, const char *spelling)
{
	char key[96], sugg[96] = "", shown[EXP_SHOW_MAX], sn[96];
	size_t best = SIZE_MAX;
	norm(spelling, key, sizeof(key));
	for (unsigned i = 1; i < jobclass_count(); i++) {
		consider(key, jobclass_get(i)->name, &best, sugg,
			 sizeof(sugg));
		short_name(i, sn, sizeof(sn));
		consider(key, sn, &best, sugg, sizeof(sugg));
	}
	for (size_t a = 0; a < jobclass_alias_count(); a++)
		consider(key, jobclass_alias_get(a)->spelling, &best, sugg,
			 sizeof(sugg));
	exp_show_str(spelling, shown);
	if (best <= 3 && best < strlen(key))
		return exp_fail(c, NULL, "unknown job class '%s' (did you "
				"mean '%s'?)", shown, sugg);
	return exp_fail(c, NULL, "unknown job class '%s' (the classes are "
			"listed in docs/gpu-models.md)", shown);
}

/* The closest known name to an unknown GPU key: every type whose name
 * starts with it ("a100": a100-40gb and a100-80gb), else one within two
 * edits with the same first letter ('a100' is not a typo of 'p100'). */
static int fail_gpu(struct exp_ctx *c, const struct jobclass_overrides *o,
		    const char *spelling)
{
	char key[96], nk[96], shown[EXP_SHOW_MAX], pre[256] = "";
	const char *sugg = NULL;
	size_t best = SIZE_MAX, n = jobclass_ovr_gpu_count(o), np = 0;
	norm(spelling, key, sizeof(key));
	for (size_t i = 0; i <= n; i++) {
		const char *name = i < n ? jobclass_ovr_gpu(o, (int)i)->name
					 : GRAD_KEY;
		norm(name, nk, sizeof(nk));
		if (*key && i < n && strncmp(nk, key, strlen(key)) == 0) {
			size_t len = strlen(pre);
			snprintf(pre + len, sizeof(pre) - len, "%s'%s'",
				 np++ ? " or " : "", name);
		}
		if (i < n && key[0] != nk[0])
			continue;
		size_t d = exp_edit_distance(key, nk);
		if (d < best) {
			best = d;
			sugg = name;
		}
	}
	exp_show_str(spelling, shown);
	if (np)
		return exp_fail(c, NULL, "unknown gpu type '%s' (did you mean "
				"%s?)", shown, pre);
	if (sugg && best <= 2 && best < strlen(key))
		return exp_fail(c, NULL, "unknown gpu type '%s' (did you mean "
				"'%s'?)", shown, sugg);
	char names[256];
	jobclass_gpu_names(names, sizeof(names));
	return exp_fail(c, NULL, "unknown gpu type '%s' (expected a "
			"built-in type, %s, one of \"gpu_types\" or '"
			GRAD_KEY "': docs/gpu-models.md)", shown, names);
}

/* One class's object, into *ov. */
static int parse_figures(struct exp_ctx *c, const cJSON *v,
			 const struct jobclass_overrides *o,
			 struct jobclass_override *ov)
{
	const char *gkey[JOBCLASS_GPU_MAX] = { NULL };
	const char *bkey = NULL;
	int rc = 0;

	if (!cJSON_IsObject(v))
		return exp_fail_type(c, NULL, "an object of figures by GPU "
				     "type", v);
	if (!v->child)
		return exp_fail(c, NULL, "no figure given (expected a gpu "
				"type or '" GRAD_KEY "')");
	for (const cJSON *f = v->child; f && !rc; f = f->next) {
		size_t m = exp_jp_key(c, f->string);
		if (strcmp(f->string, GRAD_KEY) == 0) {
			uint64_t u = 0;
			if (bkey)
				rc = exp_fail(c, NULL, "duplicate key '%s'",
					      GRAD_KEY);
			else
				rc = exp_get_uint(c, NULL, f, 0, UINT64_MAX,
						  &u);
			bkey = f->string;
			ov->grad_bytes = (double)u;
			goto next;
		}
		int g = jobclass_ovr_gpu_lookup(o, f->string, NULL);
		if (g < 0) {
			rc = fail_gpu(c, o, f->string);
			goto next;
		}
		if (gkey[g]) {
			char shown[EXP_SHOW_MAX];
			exp_show_str(gkey[g], shown);
			rc = exp_fail(c, NULL, "names the same gpu type as "
				      "'%s' (%s)", shown,
				      jobclass_ovr_gpu(o, g)->name);
			goto next;
		}
		gkey[g] = f->string;
		if (cJSON_IsObject(f) || cJSON_IsArray(f)) {
			rc = exp_fail(c, NULL, "expected a number (steps/s on "
				      "one GPU), got %s: multi-GPU speed "
				      "comes from the all-reduce model "
				      "(docs/gpu-models.md)",
				      cJSON_IsObject(f) ? "object"
							: "array");
			goto next;
		}
		/* A step takes at least a microsecond and at most a
		 * million seconds: the rates it gives stay computable. */
		rc = exp_get_number_in(c, NULL, f, EXP_THR_MIN, false,
				       EXP_THR_MAX, &ov->thr[g]);
next:
		exp_jp_pop(c, m);
	}
	return rc;
}

static int cmp_override(const void *a, const void *b)
{
	const struct jobclass_override *x = a, *y = b;
	return (x->cls > y->cls) - (x->cls < y->cls);
}

int exp_parse_throughputs(struct exp_ctx *c, const cJSON *v,
			  struct jobclass_overrides *o)
{
	size_t m = exp_jp_key(c, "throughputs");
	const char **given = NULL; /* the spelling of each entry */
	int rc = 0;

	if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object", v);
		goto out;
	}
	size_t n = (size_t)cJSON_GetArraySize(v);
	o->v = xcalloc(n ? n : 1, sizeof(*o->v));
	given = xcalloc(n ? n : 1, sizeof(*given));
	for (const cJSON *it = v->child; it && !rc; it = it->next) {
		size_t mk = exp_jp_key(c, it->string);
		int cls = jobclass_find(it->string, NULL);
		if (cls < 0) {
			rc = fail_class(c, it->string);
			goto next;
		}
		for (size_t i = 0; i < o->n && !rc; i++) {
			char shown[EXP_SHOW_MAX];
			if (o->v[i].cls != cls)
				continue;
			exp_show_str(given[i], shown);
			rc = exp_fail(c, NULL, "names the same job class as "
				      "'%s' (%s)", shown,
				      jobclass_get((unsigned)cls)->name);
		}
		if (rc)
			goto next;
		struct jobclass_override *ov = &o->v[o->n];
		ov->cls = (uint16_t)cls;
		for (int g = 0; g < JOBCLASS_GPU_MAX; g++)
			ov->thr[g] = NAN;
		ov->grad_bytes = -1;
		given[o->n++] = it->string;
		rc = parse_figures(c, it, o, ov);
next:
		exp_jp_pop(c, mk);
	}
	if (!rc && o->n)
		qsort(o->v, o->n, sizeof(*o->v), cmp_override);
out:
	free(given);
	exp_jp_pop(c, m);
	return rc;
}

static cJSON *must(cJSON *j)
{
	if (!j)
		SIM_BUG("out of memory building JSON");
	return j;
}

cJSON *exp_throughputs_json(const struct jobclass_overrides *o)
{
	cJSON *root = must(cJSON_CreateObject());
	for (size_t i = 0; i < o->n; i++) {
		const struct jobclass_override *ov = &o->v[i];
		cJSON *f = must(cJSON_CreateObject());
		for (int g = 0; g < (int)jobclass_ovr_gpu_count(o); g++)
			if (!isnan(ov->thr[g]) &&
			    !cJSON_AddItemToObject(f, jobclass_ovr_gpu(o, g)->name,
						   must(cJSON_CreateNumber(
							   ov->thr[g]))))
				SIM_BUG("out of memory building JSON");
		if (ov->grad_bytes >= 0 &&
		    !cJSON_AddItemToObject(f, GRAD_KEY,
					   must(cJSON_CreateNumber(
						   ov->grad_bytes))))
			SIM_BUG("out of memory building JSON");
		if (!cJSON_AddItemToObject(root, jobclass_get(ov->cls)->name,
					   f))
			SIM_BUG("out of memory building JSON");
	}
	return root;
}
