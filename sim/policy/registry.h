/*
 * The policy registry: the built-in policies (generated from the files in policies/
 * by the Makefile) plus any loaded from plug-in shared objects, and the
 * checking of a policy's parameters as an experiment file gives them.
 */
#ifndef CLUSTERSIM_REGISTRY_H
#define CLUSTERSIM_REGISTRY_H

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

/* A loaded plug-in. */
struct registry_plugin {
	void *handle;                  /* from dlopen */
	const void *symbol;            /* its table, as it exports it */
	struct policy_ops *ops;        /* the registry's copy: as much of
	                                  the table as the plug-in has, the
	                                  rest zero */
};

struct registry {
	const struct policy_ops **ops; /* built-ins first, then plug-ins */
	size_t n, cap;
	struct registry_plugin *plugins;
	size_t nplugins, pcap;
};

void registry_init(struct registry *r);
void registry_release(struct registry *r);
const struct policy_ops *registry_find(const struct registry *r,
				       const char *name);
/*
 * Loads a plug-in: a shared object exporting "clustersim_policy" (a struct
 * policy_ops).  Checks the ABI version (a plug-in of another version is
 * refused), then takes the first `size` bytes of its table into a zeroed
 * copy (a plug-in built before fields were appended has them NULL),
 * checks that the name is a valid, new name, and that schedule() is set.
 * On success *out (if not NULL) is the policy.  Errors: "PATH: message".
 */
int registry_load_plugin(struct registry *r, const char *path,
			 const struct policy_ops **out, struct sim_error *err);
/* Checks a policy's own declaration (name, parameters, defaults). */
int policy_ops_check(const struct policy_ops *ops, struct sim_error *err);

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

#endif
