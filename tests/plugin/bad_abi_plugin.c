/*
 * A plug-in built for version 1 of the policy ABI, as one built against an
 * old include/clustersim would be: version 1's table had no size field
 * and its order() took no state, so its layout is written out here as it
 * was.  The loader must refuse it by name before calling any of its code.
 */
#include "clustersim/policy.h"

/* struct policy_ops as version 1 laid it out. */
struct policy_ops_v1 {
	uint32_t abi;
	const char *name;
	const char *summary;
	const struct policy_param *params;
	int (*order)(const struct job *a, const struct job *b);
	int (*init)(struct sim *sim, void **state, struct sim_error *err);
	void (*fini)(struct sim *sim, void *state);
	void (*job_submitted)(struct sim *sim, void *state,
			      const struct job *job);
	void (*job_finished)(struct sim *sim, void *state,
			     const struct job *job);
	void (*schedule)(struct sim *sim, void *state);
};

static void never_schedule(struct sim *sim, void *state)
{
	(void)sim;
	(void)state;
	__builtin_trap(); /* must never run */
}

__attribute__((visibility("default")))
const struct policy_ops_v1 clustersim_policy = {
	.abi = 1,
	.name = "from_the_past",
	.schedule = never_schedule,
};
