/*
 * A plug-in built for another version of the policy ABI, as one built
 * against an old or future include/clustersim would be: the loader must
 * refuse it before calling any of its code.
 */
#include "clustersim/policy.h"

static void never_schedule(struct sim *sim, void *state)
{
	(void)sim;
	(void)state;
	__builtin_trap(); /* must never run */
}

__attribute__((visibility("default")))
const struct policy_ops clustersim_policy = {
	.abi = CLUSTERSIM_ABI_VERSION + 1,
	.name = "from_the_future",
	.schedule = never_schedule,
};
