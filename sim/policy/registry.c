/*
 * Policy registry and plug-in loader.  A plug-in is checked before any of
 * its code runs: ABI version first (the field every version keeps at
 * offset 0), then its name and callbacks, as Slurm checks a plugin's type
 * and version before init.  Both kinds of table also declare their size
 * (SQLite's habit): the registry copies no more than that, so a table
 * built against an older, shorter header reads as NULL past its end.
 */
#include "policy/registry.h"

#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/input.h"
#include "base/util.h"

/* The smallest table of score-plugin version 1: up to normalize. */
#define SCORE_OPS_V1_SIZE                                                    \
	(offsetof(struct score_ops, normalize) +                             \
	 sizeof(((struct score_ops *)0)->normalize))

static void add_score(struct registry *r, const struct score_ops *ops,
		      const struct score_ops *src)
{
	size_t cap = r->scap;
	xgrow(&r->scores, &cap, r->nscores + 1, sizeof(*r->scores));
	cap = r->scap;
	xgrow(&r->score_src, &cap, r->nscores + 1, sizeof(*r->score_src));
	r->scap = cap;
	r->scores[r->nscores] = ops;
	r->score_src[r->nscores++] = src;
}

static void add_policy(struct registry *r, const struct policy_ops *ops,
		       const struct policy_ops *src)
{
	size_t cap = r->cap;
	xgrow(&r->ops, &cap, r->n + 1, sizeof(*r->ops));
	cap = r->cap;
	xgrow(&r->ops_src, &cap, r->n + 1, sizeof(*r->ops_src));
	r->cap = cap;
	r->ops[r->n] = ops;
	r->ops_src[r->n++] = src;
}

void registry_init(struct registry *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; policy_builtin[i]; i++)
		add_policy(r, policy_builtin[i], policy_builtin[i]);
	for (size_t i = 0; score_builtin[i]; i++)
		add_score(r, score_builtin[i], score_builtin[i]);
}

void registry_release(struct registry *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->ops[i] != r->ops_src[i])
			free((void *)r->ops[i]);
	for (size_t i = 0; i < r->nscores; i++)
		if (r->scores[i] != r->score_src[i])
			free((void *)r->scores[i]);
	for (size_t i = 0; i < r->nhandles; i++)
		dlclose(r->handles[i]);
	free(r->handles);
	free(r->ops);
	free(r->ops_src);
	free(r->scores);
	free(r->score_src);
	memset(r, 0, sizeof(*r));
}

const struct policy_ops *registry_find(const struct registry *r,
				       const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->ops[i]->name, name) == 0)
			return r->ops[i];
	return NULL;
}

const struct score_ops *registry_find_score(const struct registry *r,
					    const char *name)
{
	for (size_t i = 0; i < r->nscores; i++)
		if (strcmp(r->scores[i]->name, name) == 0)
			return r->scores[i];
	return NULL;
}

static bool valid_name(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || (*p >= 'A' && *p <= 'Z')))
			return false;
	return true;
}

/* Parses a declared default, as text, into v. */
static int parse_default(const struct policy_param *d, struct pval *v)
{
	char *end;
	errno = 0;
	switch (d->type) {
	case PARAM_INT:
		v->i = strtoll(d->def, &end, 10);
		return *end || errno ? -1 : 0;
	case PARAM_DOUBLE:
		v->d = strtod(d->def, &end);
		return *end || errno ? -1 : 0;
	case PARAM_BOOL:
		if (strcmp(d->def, "true") && strcmp(d->def, "false"))
			return -1;
		v->b = strcmp(d->def, "true") == 0;
		return 0;
	case PARAM_STRING:
	case PARAM_FILE:
		v->s = d->def;
		return 0;
	}
	return -1;
}

int policy_ops_check(const struct policy_ops *ops, struct sim_error *err)
{
	if (ops->abi != CLUSTERSIM_ABI_VERSION)
		return err_set(err, "built for policy ABI version %u, this "
			       "clustersim needs version %u: rebuild it "
			       "against this include/clustersim", ops->abi,
			       CLUSTERSIM_ABI_VERSION);
	if (ops->size < offsetof(struct policy_ops, schedule) +
			sizeof(ops->schedule))
		return err_set(err, "policy '%s': its table is %u bytes, "
			       "too short for a schedule callback",
			       ops->name ? ops->name : "(null)", ops->size);
	if (!valid_name(ops->name))
		return err_set(err, "policy name '%s' is not a valid name "
			       "(letters, digits, '_')",
			       ops->name ? ops->name : "(null)");
	if (!ops->schedule)
		return err_set(err, "policy '%s' has no schedule callback",
			       ops->name);
	for (const struct policy_param *d = ops->params; d && d->name; d++) {
		struct pval v;
		if (!valid_name(d->name) || !d->def || parse_default(d, &v))
			return err_set(err, "policy '%s': parameter '%s' has a "
				       "bad name or default", ops->name,
				       d->name);
	}
	return 0;
}

int score_ops_check(const struct score_ops *ops, struct sim_error *err)
{
	if (ops->version != CLUSTERSIM_SCORE_VERSION)
		return err_set(err, "built for score-plugin version %u, this "
			       "clustersim has version %u: rebuild it against "
			       "this include/clustersim", ops->version,
			       CLUSTERSIM_SCORE_VERSION);
	if (ops->size < SCORE_OPS_V1_SIZE)
		return err_set(err, "score plugin table of %u bytes, smaller "
			       "than version %u's %zu: set by "
			       "CLUSTERSIM_SCORE", ops->size,
			       CLUSTERSIM_SCORE_VERSION,
			       (size_t)SCORE_OPS_V1_SIZE);
	if (!valid_name(ops->name))
		return err_set(err, "score plugin name '%s' is not a valid "
			       "name (letters, digits, '_')",
			       ops->name ? ops->name : "(null)");
	if (!ops->score)
		return err_set(err, "score plugin '%s' has no score callback",
			       ops->name);
	return 0;
}

/* The score plugin of a loaded object: checked, copied up to its size
 * when that is shorter than this score.h's table, and added.  Takes h
 * (closes it on failure). */
static int load_score(struct registry *r, const char *path, void *h,
		      const struct score_ops *ops,
		      const struct score_ops **sout, struct sim_error *err)
{
	struct sim_error e;
	if (score_ops_check(ops, &e) != 0) {
		dlclose(h);
		return err_set(err, "%s: %s", path, e.msg);
	}
	for (size_t i = 0; i < r->nscores; i++) {
		if (r->score_src[i] == ops) { /* the same object twice */
			dlclose(h);
			if (sout)
				*sout = r->scores[i];
			return 0;
		}
	}
	if (registry_find(r, ops->name) || registry_find_score(r, ops->name)) {
		/* The name lives in the plug-in: the message first. */
		int rc = err_set(err, "%s: a policy or score plugin named "
				 "'%s' already exists", path, ops->name);
		dlclose(h);
		return rc;
	}
	const struct score_ops *use = ops;
	if (ops->size < sizeof(struct score_ops)) {
		struct score_ops *copy = xcalloc(1, sizeof(*copy));
		memcpy(copy, ops, ops->size);
		use = copy;
	}
	add_score(r, use, ops);
	xgrow(&r->handles, &r->hcap, r->nhandles + 1, sizeof(*r->handles));
	r->handles[r->nhandles++] = h;
	if (sout)
		*sout = use;
	return 0;
}

/*
 * The policy of a loaded object, read as this clustersim reads it: its
 * version first (at offset 0 in every version), then its own size, and
 * no byte past it: the copy is zeroed, so a table from before fields
 * were appended has them NULL.  Checked, then added.  Takes h (closes it
 * on failure).
 */
static int load_policy(struct registry *r, const char *path, void *h,
		       const void *sym, const struct policy_ops **out,
		       struct sim_error *err)
{
	struct sim_error e;
	struct policy_ops *ops = NULL;
	int rc = 0;
	uint32_t abi, size;
	for (size_t i = 0; i < r->n; i++) {
		if (r->ops_src[i] == sym) { /* the same object twice */
			if (out)
				*out = r->ops[i];
			goto close;
		}
	}
	memcpy(&abi, sym, sizeof(abi));
	if (abi != CLUSTERSIM_ABI_VERSION) {
		rc = err_set(err, "%s: built for policy ABI version %u, this "
			     "clustersim needs version %u: rebuild it "
			     "against this include/clustersim", path, abi,
			     CLUSTERSIM_ABI_VERSION);
		goto close;
	}
	memcpy(&size, (const char *)sym + offsetof(struct policy_ops, size),
	       sizeof(size));
	if (size < offsetof(struct policy_ops, name) + sizeof(char *)) {
		rc = err_set(err, "%s: its policy table is %u bytes, too "
			     "short for a name", path, size);
		goto close;
	}
	ops = xcalloc(1, sizeof(*ops));
	memcpy(ops, sym, size < sizeof(*ops) ? size : sizeof(*ops));
	if (policy_ops_check(ops, &e) != 0) {
		rc = err_set(err, "%s: %s", path, e.msg);
		goto close;
	}
	if (registry_find(r, ops->name) || registry_find_score(r, ops->name)) {
		rc = err_set(err, "%s: a policy named '%s' already exists",
			     path, ops->name);
		goto close;
	}
	add_policy(r, ops, sym);
	xgrow(&r->handles, &r->hcap, r->nhandles + 1, sizeof(*r->handles));
	r->handles[r->nhandles++] = h;
	if (out)
		*out = ops;
	return 0;
close:
	free(ops);
	dlclose(h);
	return rc;
}

int registry_load_plugin(struct registry *r, const char *path,
			 const struct policy_ops **out,
			 const struct score_ops **sout, struct sim_error *err)
{
	if (out)
		*out = NULL;
	if (sout)
		*sout = NULL;
	/* dlopen searches the library path for a bare name: make it a
	 * path. */
	char *p = strchr(path, '/') ? xstrdup(path) : xasprintf("./%s", path);
	void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
	free(p);
	if (!h)
		return err_set(err, "%s: cannot load plug-in: %s", path,
			       dlerror());
	const void *sym = dlsym(h, "clustersim_policy");
	if (!sym) {
		const struct score_ops *sops = dlsym(h, "clustersim_score");
		if (sops)
			return load_score(r, path, h, sops, sout, err);
		dlclose(h);
		return err_set(err, "%s: not a clustersim policy: no "
			       "'clustersim_policy' symbol, nor "
			       "'clustersim_score' (build it with "
			       "-DCLUSTERSIM_PLUGIN)", path);
	}
	return load_policy(r, path, h, sym, out, err);
}

static const char *type_name(enum policy_param_type t)
{
	static const char *const names[] = {
		[PARAM_INT] = "an integer",
		[PARAM_DOUBLE] = "a number",
		[PARAM_BOOL] = "true or false",
		[PARAM_STRING] = "a string",
		[PARAM_FILE] = "a file's path (a string that is not empty)",
	};
	return names[t];
}

static int set_given(const struct policy_param *d,
		     const struct param_value *g, const char *prefix,
		     struct pval *v, struct sim_error *err)
{
	bool ok;
	switch (d->type) {
	case PARAM_INT:
		ok = g->type == PV_NUMBER && g->num == floor(g->num) &&
		     fabs(g->num) < 9.0e15;
		v->i = ok ? (int64_t)g->num : 0;
		break;
	case PARAM_DOUBLE:
		ok = g->type == PV_NUMBER;
		v->d = g->num;
		break;
	case PARAM_BOOL:
		ok = g->type == PV_BOOL;
		v->b = g->b;
		break;
	case PARAM_STRING:
		ok = g->type == PV_STRING;
		v->s = g->str;
		break;
	case PARAM_FILE:
		ok = g->type == PV_STRING && g->str[0] && !str_has_control(g->str);
		v->s = g->str;
		break;
	default:
		ok = false;
	}
	if (!ok)
		return err_set(err, "%s%s: expected %s", prefix, g->json_path,
			       type_name(d->type));
	return 0;
}

/*
 * Every policy takes "placement": how its jobs are placed (a strategy of
 * cluster.h, the engine's business, so no policy has to declare it).  A
 * policy that declares its own "placement" overrides this one.
 */
static const struct policy_param placement_param = {
	"placement", PARAM_STRING, "first_fit",
	"how GPU jobs are placed: first_fit, best_fit, consolidate, spread, "
	"random, topology or shape_blind (CPU jobs: first fit; jobs with a "
	"tp x pp shape: by their shape, except with shape_blind)",
};

/* The i-th parameter a policy takes: its own, then the engine's. */
static const struct policy_param *param_at(const struct policy_ops *ops,
					   size_t nown, size_t i)
{
	return i < nown ? &ops->params[i] : &placement_param;
}

int policy_params_resolve(const struct policy_ops *ops,
			  const struct param_value *given, size_t ngiven,
			  const char *prefix, struct pval **out, size_t *nout,
			  struct sim_error *err)
{
	size_t nown = 0;
	bool own_placement = false;
	for (const struct policy_param *d = ops->params; d && d->name; d++) {
		own_placement |= strcmp(d->name, placement_param.name) == 0;
		nown++;
	}
	size_t n = nown + !own_placement;
	struct pval *v = xcalloc(n, sizeof(*v));
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const struct policy_param *d = param_at(ops, nown, i);
		v[i].name = d->name;
		v[i].type = d->type;
		parse_default(d, &v[i]);
	}
	for (size_t k = 0; k < ngiven && !rc; k++) {
		size_t i = 0;
		while (i < n && strcmp(param_at(ops, nown, i)->name,
				       given[k].key))
			i++;
		if (i == n) {
			char known[512] = "";
			size_t len = 0;
			for (size_t j = 0; j < n && len < sizeof(known); j++)
				len += (size_t)snprintf(
					known + len, sizeof(known) - len,
					"%s'%s'", j ? ", " : "",
					param_at(ops, nown, j)->name);
			rc = err_set(err, "%s%s: policy '%s' has no parameter "
				     "'%s' (it has %s)", prefix,
				     given[k].json_path, ops->name,
				     given[k].key, known);
			break;
		}
		rc = set_given(param_at(ops, nown, i), &given[k], prefix, &v[i],
			       err);
	}
	if (rc) {
		free(v);
		return rc;
	}
	*out = v;
	*nout = n;
	return 0;
}

static_assert(sizeof(((struct pval *)0)->sha256) == INPUT_SHA256_HEX,
	      "a parameter file's digest holds input.h's hex digest");

int policy_params_load_files(struct pval *v, size_t n, const char *dir,
			     const struct param_value *given, size_t ngiven,
			     const char *prefix, struct sim_error *err)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i].type != PARAM_FILE || !v[i].s || !v[i].s[0] ||
		    v[i].data)
			continue;
		const char *where = "";
		for (size_t k = 0; k < ngiven; k++)
			if (strcmp(given[k].key, v[i].name) == 0)
				where = given[k].json_path;
		v[i].path = dir ? path_join(dir, v[i].s) : xstrdup(v[i].s);
		struct sim_error e2;
		if (input_slurp(v[i].path, NULL, &v[i].data, &v[i].len,
				v[i].sha256, &e2) != 0)
			return err_setc(err, -SIM_EINPUT, "%s%s%s%s", prefix,
					where, where[0] ? ": " : "", e2.msg);
	}
	return 0;
}

void policy_params_free(struct pval *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].path);
		free(v[i].data);
	}
	free(v);
}

const struct policy_param *policy_engine_params(void)
{
	return &placement_param;
}
