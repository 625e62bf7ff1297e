/*
 * "rl": the settings of the reinforcement-learning environment (sim/rl/,
 * docs/rl.md).  The section is checked by `clustersim validate` like any
 * other; `clustersim run` ignores it (the policies run as they are).
 * Whether the windows the split asks for exist is known only once the
 * workload is loaded: the environment refuses them then, under the same
 * paths ($.rl.train_windows, $.rl.test_windows).
 */
#include "exp/exp_schema.h"

#include <assert.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "exp/exp_json.h"

const char *const rl_mode_names[RL_NMODES] = {
	[RL_MODE_SELECT] = "select", [RL_MODE_PLACE] = "place",
};
const char *const rl_reward_names[RL_NREWARDS] = {
	[RL_REWARD_BSLD] = "bounded_slowdown", [RL_REWARD_WAIT] = "wait",
	[RL_REWARD_RESPONSE] = "response",
	[RL_REWARD_UTILIZATION] = "utilization",
};
static_assert(sizeof(rl_mode_names) / sizeof(rl_mode_names[0]) ==
	      RL_NMODES, "one name per mode");
static_assert(sizeof(rl_reward_names) / sizeof(rl_reward_names[0]) ==
	      RL_NREWARDS, "one name per reward");

void exp_rl_defaults(struct rl_spec *r)
{
	*r = (struct rl_spec){ .mode = RL_MODE_SELECT, .k = 128,
			       .window_jobs = 1024,
			       .reward = RL_REWARD_BSLD };
}

int exp_parse_rl(struct exp_ctx *c, const cJSON *v, struct rl_spec *r)
{
	static const char *const keys[] = { "mode", "k", "window_jobs",
		"train_windows", "test_windows", "reward", "reward_at",
		"backfill" };
	static const char *const at[] = { "step", "end" };
	const cJSON *f[ARRAY_SIZE(keys)];
	uint64_t u;
	int mode = (int)r->mode, reward = (int)r->reward;
	int end = r->reward_at_end;
	size_t mark = exp_jp_key(c, "rl");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc)
		rc = exp_get_enum(c, "mode", f[0], rl_mode_names, RL_NMODES,
				  &mode);
	u = r->k;
	if (!rc)
		rc = exp_get_uint(c, "k", f[1], 1, RL_K_MAX, &u);
	r->k = (uint32_t)u;
	if (!rc)
		rc = exp_get_uint(c, "window_jobs", f[2], 0, UINT32_MAX,
				  &r->window_jobs);
	u = r->train_windows;
	if (!rc)
		rc = exp_get_uint(c, "train_windows", f[3], 0, RL_WINDOWS_MAX,
				  &u);
	r->train_windows = (uint32_t)u;
	u = r->test_windows;
	if (!rc)
		rc = exp_get_uint(c, "test_windows", f[4], 0, RL_WINDOWS_MAX,
				  &u);
	r->test_windows = (uint32_t)u;
	r->test_given = r->test_given || f[4] != NULL;
	if (!rc)
		rc = exp_get_enum(c, "reward", f[5], rl_reward_names,
				  RL_NREWARDS, &reward);
	if (!rc)
		rc = exp_get_enum(c, "reward_at", f[6], at, ARRAY_SIZE(at),
				  &end);
	if (!rc)
		rc = exp_get_bool(c, "backfill", f[7], &r->backfill);
	r->mode = (enum rl_mode)mode;
	r->reward = (enum rl_reward)reward;
	r->reward_at_end = end == 1;
	r->given = true;
	exp_jp_pop(c, mark);
	return rc;
}

int exp_rl_override(const char *json, const char *name, struct rl_spec *r,
		    struct sim_error *err)
{
	struct exp_ctx c;
	cJSON *root = NULL;
	exp_ctx_init(&c, name, ".", err);
	int rc = exp_parse_json(json, strlen(json), name, &root, err);
	if (!rc)
		rc = exp_parse_rl(&c, root, r);
	cJSON_Delete(root);
	exp_ctx_release(&c);
	return rc;
}

cJSON *exp_rl_json(const struct rl_spec *r)
{
	cJSON *j = cJSON_CreateObject();
	if (!j ||
	    !cJSON_AddStringToObject(j, "mode", rl_mode_names[r->mode]) ||
	    !cJSON_AddNumberToObject(j, "k", r->k) ||
	    !cJSON_AddNumberToObject(j, "window_jobs",
				     (double)r->window_jobs) ||
	    !cJSON_AddNumberToObject(j, "train_windows", r->train_windows) ||
	    !cJSON_AddNumberToObject(j, "test_windows", r->test_windows) ||
	    !cJSON_AddStringToObject(j, "reward",
				     rl_reward_names[r->reward]) ||
	    !cJSON_AddStringToObject(j, "reward_at",
				     r->reward_at_end ? "end" : "step") ||
	    !cJSON_AddBoolToObject(j, "backfill", r->backfill))
		SIM_BUG("out of memory building JSON");
	return j;
}
