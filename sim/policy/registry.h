/*
 * The policy registry: the built-in job policies and score plugins
 * (generated from the files in policies/ and policies/score/ by the
 * Makefile) plus any loaded from plug-in shared objects, and the checking
 * of a policy's parameters as an experiment file gives them.  One name
 * space holds both kinds: an experiment's "policies" names either.
 */
#ifndef CLUSTERSIM_REGISTRY_H
#define CLUSTERSIM_REGISTRY_H

#include "clustersim/score.h"
#include "engine/sim.h"

enum param_value_type { PV_NUMBER, PV_BOOL, PV_STRING };

/* One policy parameter as written in the file; checked against the
 * policy's declared parameters by the policy registry. */
struct param_value {
	char *key;
	char *json_path; /* "$.policies[1].params.key" */
	enum param_value_type type;
	double num;
	bool b;
	char *str;
};

/* Generated: NULL-terminated. */
extern const struct policy_ops *const policy_builtin[];
extern const struct score_ops *const score_builtin[];

struct registry {
	const struct policy_ops **ops; /* built-ins first, then plug-ins,
	                                  a plug-in's as the registry copied
	                                  it (up to its size, the rest 0) */
	const struct policy_ops **ops_src; /* [i]: the table each came
	                                  from (a plug-in's own) */
	size_t n, cap;
	const struct score_ops **scores; /* score plugins, likewise; a
	                                  plug-in's as the registry copied it */
	const struct score_ops **score_src; /* [i]: the table each came
	                                  from (a plug-in's own) */
	size_t nscores, scap;
	void **handles;                /* dlopen handles of plug-ins */
	size_t nhandles, hcap;
};

void registry_init(struct registry *r);
void registry_release(struct registry *r);
/* The job policy, or the score plugin, of that name; NULL when none. */
const struct policy_ops *registry_find(const struct registry *r,
				       const char *name);
const struct score_ops *registry_find_score(const struct registry *r,
					    const char *name);
/*
 * Loads a plug-in: a shared object exporting "clustersim_policy" (a struct
 * policy_ops) or "clustersim_score" (a struct score_ops).  Checks the
 * version (a policy of another ABI version is refused) and the table's
 * size, copying no more of it than that (fields appended after it was
 * built read as NULL), that the name is a valid, new name in both kinds,
 * and the required callbacks.  On success *out or *sout (each may be
 * NULL) is what it holds, the other set to NULL.  Errors: "PATH:
 * message".
 */
int registry_load_plugin(struct registry *r, const char *path,
			 const struct policy_ops **out,
			 const struct score_ops **sout, struct sim_error *err);
/* Checks a policy's own declaration (name, parameters, defaults). */
int policy_ops_check(const struct policy_ops *ops, struct sim_error *err);
/* Checks a score plugin's declaration: version, size, name, score(). */
int score_ops_check(const struct score_ops *ops, struct sim_error *err);

/* The parameter every policy takes from the engine ("placement"). */
const struct policy_param *policy_engine_params(void);

/*
 * Resolves parameters: every declared one and the engine's "placement",
 * each with the given value or the default.  Unknown names and wrong types are errors "PREFIX$.path:
 * message".  *out is an array of *nout that the caller frees with free().
 */
int policy_params_resolve(const struct policy_ops *ops,
			  const struct param_value *given, size_t ngiven,
			  const char *prefix, struct pval **out, size_t *nout,
			  struct sim_error *err);
/*
 * Reads the files of the PARAM_FILE parameters in v (those given a path)
 * into v[i].data, each path joined to dir (the experiment's folder; NULL:
 * as written), by the input rules (base/input.h), with its digest.
 * given/ngiven are the values as the file gave them, for the JSON path
 * of an error: "PREFIX$.policies[0].params.model: PATH: ...".  0, or a
 * negative code with err filled.
 */
int policy_params_load_files(struct pval *v, size_t n, const char *dir,
			     const struct param_value *given, size_t ngiven,
			     const char *prefix, struct sim_error *err);
/* Frees what policy_params_resolve() and _load_files() made; NULL is
 * fine. */
void policy_params_free(struct pval *v, size_t n);

#endif
