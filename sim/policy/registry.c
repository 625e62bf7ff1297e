/*
 * Policy registry and plug-in loader.  A plug-in is checked before any of
 * its code runs: ABI version first (the field every version keeps at
 * offset 0), then its table's own size, of which the loader reads no
 * more (fields appended since it was built read as NULL), then its name
 * and callbacks, as Slurm checks a plugin's type and version before
 * init.
 */
#include "policy/registry.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

void registry_init(struct registry *r)
{
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; policy_builtin[i]; i++) {
		xgrow(&r->ops, &r->cap, r->n + 1, sizeof(*r->ops));
		r->ops[r->n++] = policy_builtin[i];
	}
}

void registry_release(struct registry *r)
{
	for (size_t i = 0; i < r->nplugins; i++) {
		free(r->plugins[i].ops);
		dlclose(r->plugins[i].handle);
	}
	free(r->plugins);
	free(r->ops);
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

/*
 * The plug-in's table as this clustersim reads it: its version first (at
 * offset 0 in every version), then its own size, and no byte past it
 * (SQLite's habit): a shorter table, from before fields were appended,
 * leaves them zero in the copy.
 */
static int plugin_table(const char *path, const void *sym,
			struct policy_ops **out, struct sim_error *err)
{
	uint32_t abi, size;
	memcpy(&abi, sym, sizeof(abi));
	if (abi != CLUSTERSIM_ABI_VERSION)
		return err_set(err, "%s: built for policy ABI version %u, this "
			       "clustersim needs version %u: rebuild it "
			       "against this include/clustersim", path, abi,
			       CLUSTERSIM_ABI_VERSION);
	memcpy(&size, (const char *)sym + offsetof(struct policy_ops, size),
	       sizeof(size));
	size_t need = offsetof(struct policy_ops, name) + sizeof(char *);
	if (size < need)
		return err_set(err, "%s: its policy table is %u bytes, too "
			       "short for a name", path, size);
	struct policy_ops *ops = xcalloc(1, sizeof(*ops));
	memcpy(ops, sym, size < sizeof(*ops) ? size : sizeof(*ops));
	*out = ops;
	return 0;
}

int registry_load_plugin(struct registry *r, const char *path,
			 const struct policy_ops **out, struct sim_error *err)
{
	struct sim_error e;
	struct policy_ops *ops = NULL;
	int rc = 0;
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
		rc = err_set(err, "%s: not a clustersim policy: no "
			     "'clustersim_policy' symbol (build it with "
			     "-DCLUSTERSIM_PLUGIN)", path);
		goto close;
	}
	for (size_t i = 0; i < r->nplugins; i++) {
		if (r->plugins[i].symbol == sym) { /* loaded twice */
			if (out)
				*out = r->plugins[i].ops;
			goto close;
		}
	}
	if ((rc = plugin_table(path, sym, &ops, err)) != 0)
		goto close;
	if (policy_ops_check(ops, &e) != 0) {
		rc = err_set(err, "%s: %s", path, e.msg);
		goto close;
	}
	if (registry_find(r, ops->name)) {
		rc = err_set(err, "%s: a policy named '%s' already exists",
			     path, ops->name);
		goto close;
	}
	xgrow(&r->ops, &r->cap, r->n + 1, sizeof(*r->ops));
	r->ops[r->n++] = ops;
	xgrow(&r->plugins, &r->pcap, r->nplugins + 1, sizeof(*r->plugins));
	r->plugins[r->nplugins++] = (struct registry_plugin){ h, sym, ops };
	if (out)
		*out = ops;
	return 0;
close:
	free(ops);
	dlclose(h);
	return rc;
}

static const char *type_name(enum policy_param_type t)
{
	static const char *const names[] = {
		[PARAM_INT] = "an integer",
		[PARAM_DOUBLE] = "a number",
		[PARAM_BOOL] = "true or false",
		[PARAM_STRING] = "a string",
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
	"random or topology (CPU jobs: first fit)",
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

const struct policy_param *policy_engine_params(void)
{
	return &placement_param;
}
