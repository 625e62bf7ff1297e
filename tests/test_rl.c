/*
 * The reinforcement-learning environment (sim/rl/, docs/rl.md): a hand-
 * worked episode on a 4-CPU cluster (every observation feature, mask and
 * reward worked out below), refused actions, the rewards at the end, the
 * determinism of an episode, the batch step against single steps, the
 * "rl" keys' errors, and FCFS reproduced job by job on a KTH window by
 * the agent "action 0 when allowed, else wait".
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rl/rl.h"
#include "base/splitmix.h"
#include "base/util.h"
#include "testlib.h"

/* Three jobs on 4 CPUs (the FCFS example of policies/fcfs.c): 1 asks 3
 * CPUs for 10 s at 0, 2 asks 2 CPUs for 5 s at 1, 3 asks 1 CPU for 4 s
 * at 2; estimates equal the run times. */
static const char *const jobs3 =
	"id,submit,run,cpus,estimate\n"
	"1,0,10,3,10\n2,1,5,2,5\n3,2,4,1,4\n";

static char tmpdir[64];

/* The experiment of jobs3 with the given "rl" section, in a new folder. */
static char *exp3(const char *rl)
{
	strcpy(tmpdir, "/tmp/clustersim-rl-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	tl_put(tmpdir, "jobs.csv", jobs3);
	char *text = xasprintf(
		"{\"cluster\": {\"nodes\": [{\"name\": \"c\", \"count\": 1, "
		"\"cpus\": 4}]}, \"workload\": {\"trace\": \"jobs.csv\", "
		"\"format\": \"csv\"}, \"policies\": [\"fcfs\"], \"rl\": %s}",
		rl);
	tl_put(tmpdir, "x.json", text);
	free(text);
	return xasprintf("%s/x.json", tmpdir);
}

static struct env *open3(const char *rl, char **path)
{
	struct sim_error err = { .msg = "" };
	*path = exp3(rl);
	struct env *v = env_new(*path, NULL, &err);
	cr_assert_not_null(v, "%s", err.msg);
	return v;
}

static void close3(struct env *v, char *path)
{
	env_free(v);
	free(path);
	tl_rmtree(tmpdir);
}

#define T(x) ((float)((x) / ((x) + 3600.0)))

Test(rl, hand_worked_episode)
{
	char *path;
	struct env *v = open3("{\"k\": 2, \"window_jobs\": 0, "
			      "\"test_windows\": 0, \"reward\": \"wait\"}",
			      &path);
	struct sim_error err = { .msg = "" };
	/* 2 slots x 7 + 1 group x 4 + 2 global = 20 floats; actions 0, 1
	 * and 2 (wait). */
	cr_assert_eq(env_obs_dim(v), 20);
	cr_assert_eq(env_actions(v), 3);
	cr_assert_eq(env_windows(v), 1);
	float o[20], r;
	uint8_t m[3];
	bool done;
	cr_assert_eq(env_reset(v, 7, -1, o, m, &err), 0, "%s", err.msg);
	/* t = 0: job 1 waits (0 s), 3 of 4 CPUs, fits; the cluster is free;
	 * 1 waiting of K = 2: 1/3; none running.  Waiting is allowed (two
	 * submits are to come). */
	float want0[20] = { 1, 0, 0.75f, 0, T(10.0), 0, 1,  0, 0, 0, 0, 0, 0, 0,
			    1, 0, 0, 0,  1.0f / 3, 0 };
	cr_assert_arr_eq(o, want0, sizeof(o));
	cr_assert(m[0] == 1 && m[1] == 0 && m[2] == 1);
	/* Refused: out of range, an empty slot; nothing changes. */
	cr_assert_lt(env_step(v, 3, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "action '3' out of range 0 .. 2"), "%s",
		  err.msg);
	cr_assert_lt(env_step(v, -1, o, m, &r, &done, &err), 0);
	cr_assert_lt(env_step(v, 1, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "only 1 jobs are waiting"), "%s", err.msg);
	/* Start job 1.  t = 1: job 2 (2 CPUs) does not fit the 1 free CPU:
	 * passed over.  t = 2: job 3 (1 CPU) fits: the next decision.  No
	 * job ended: reward 0. */
	cr_assert_eq(env_step(v, 0, o, m, &r, &done, &err), 0, "%s", err.msg);
	cr_assert(!done);
	cr_assert_eq(r, 0);
	/* Slot 0 job 2: waited 1 s, 2/4 CPUs, estimate 5 s, does not fit;
	 * slot 1 job 3: waited 0 s, 1/4, 4 s, fits.  Free 1/4; job 1 is
	 * expected to end at 10 (8 s left): its 3 CPUs are free within
	 * 10 min, 1 h and 6 h.  2 waiting: 2/4; 1 running: 1/3. */
	float want1[20] = { 1, T(1.0), 0.5f, 0, T(5.0), 0, 0,
			    1, 0, 0.25f, 0, T(4.0), 0, 1,
			    0.25f, 0.75f, 0.75f, 0.75f,  0.5f, 1.0f / 3 };
	cr_assert_arr_eq(o, want1, sizeof(o));
	cr_assert(m[0] == 0 && m[1] == 1 && m[2] == 1);
	cr_assert_lt(env_step(v, 0, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "job 2 does not fit now"), "%s", err.msg);
	/* Start job 3 (at 2, in job 2's way).  t = 6: job 3 ends (waited
	 * 0 s: reward term 0); job 2 still does not fit.  t = 10: job 1
	 * ends (waited 0); job 2 fits: the decision.  Reward 0. */
	cr_assert_eq(env_step(v, 1, o, m, &r, &done, &err), 0, "%s", err.msg);
	cr_assert(!done);
	cr_assert_eq(r, 0);
	cr_assert_float_eq(env_time(v), 10.0, 1e-9);
	/* Job 2 waited 9 s; the cluster is free, nothing runs; and nothing
	 * is to come, so waiting is masked. */
	float want2[20] = { 1, T(9.0), 0.5f, 0, T(5.0), 0, 1,  0, 0, 0, 0, 0,
			    0, 0,  1, 0, 0, 0,  1.0f / 3, 0 };
	cr_assert_arr_eq(o, want2, sizeof(o));
	cr_assert(m[0] == 1 && m[1] == 0 && m[2] == 0);
	cr_assert_lt(env_step(v, 2, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "(wait) is masked"), "%s", err.msg);
	/* Start job 2 at 10; it ends at 15, having waited 9 s: reward
	 * -9 / 3 jobs = -3, and the episode is over. */
	cr_assert_eq(env_step(v, 0, o, m, &r, &done, &err), 0, "%s", err.msg);
	cr_assert(done);
	cr_assert_float_eq(r, -3.0f, 1e-6);
	cr_assert_float_eq(env_return(v), -3.0, 1e-9);
	cr_assert_eq(env_decisions(v), 3);
	size_t n;
	const struct job *j = rl_env_jobs(v, &n);
	cr_assert_eq(n, 3);
	cr_assert(j[0].start == 0 && j[1].start == 10 * SIM_SEC &&
		  j[2].start == 2 * SIM_SEC);
	cr_assert_lt(env_step(v, 0, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "reset first"), "%s", err.msg);
	close3(v, path);
}

/* The same actions with the bounded slowdown at the end (tau 10 s):
 * job 1 responds in 10 s over max(10, 10): 1; job 3 in 4 s over
 * max(4, 10): 0.4, bounded to 1; job 2 in 14 s over max(5, 10): 1.4.
 * Rewards 0, 0, then -(1 + 1 + 1.4) / 3. */
Test(rl, reward_at_end)
{
	char *path;
	struct env *v = open3("{\"k\": 2, \"window_jobs\": 0, "
			      "\"test_windows\": 0, \"reward_at\": \"end\"}",
			      &path);
	struct sim_error err;
	float r[3];
	bool done;
	cr_assert_eq(env_reset(v, 1, 0, NULL, NULL, &err), 0, "%s", err.msg);
	int64_t acts[3] = { 0, 1, 0 };
	for (int i = 0; i < 3; i++)
		cr_assert_eq(env_step(v, acts[i], NULL, NULL, &r[i], &done,
				      &err), 0, "%s", err.msg);
	cr_assert(done);
	cr_assert(r[0] == 0 && r[1] == 0);
	cr_assert_float_eq(r[2], -3.4f / 3, 1e-6);
	close3(v, path);
}

/* The engine's settings are a run's: with a start overhead of 2 s
 * (preemption.start_overhead) the same actions as above start job 1 at 0
 * and end it at 12, job 3 at 2 ending at 8; job 2 fits only at 12 and
 * ends at 19.  The same starts and ends as `clustersim run` under fcfs
 * would give for that order (fcfs itself starts job 2 first: it is ahead
 * of job 3). */
Test(rl, engine_settings_are_a_runs)
{
	char *path;
	struct env *v = open3("{\"k\": 2, \"window_jobs\": 0, "
			      "\"test_windows\": 0}, \"preemption\": "
			      "{\"start_overhead\": 2}", &path);
	struct sim_error err;
	float r;
	bool done = false;
	cr_assert_eq(env_reset(v, 1, 0, NULL, NULL, &err), 0, "%s", err.msg);
	int64_t acts[3] = { 0, 1, 0 };
	for (int i = 0; i < 3; i++)
		cr_assert_eq(env_step(v, acts[i], NULL, NULL, &r, &done, &err),
			     0, "%s", err.msg);
	cr_assert(done);
	size_t n;
	const struct job *j = rl_env_jobs(v, &n);
	cr_assert_eq(n, 3);
	cr_expect(j[0].start == 0 && j[0].end == 12 * SIM_SEC);
	cr_expect(j[2].start == 2 * SIM_SEC && j[2].end == 8 * SIM_SEC);
	cr_expect(j[1].start == 12 * SIM_SEC && j[1].end == 19 * SIM_SEC,
		  "job 2: %lld .. %lld", (long long)j[1].start,
		  (long long)j[1].end);
	close3(v, path);
}

/* A file with a sweep (its points evaluate policies on the test
 * windows): the environment learns on its base, the file without the
 * sweep, so the episode is reward_at_end's: -3.4 / 3 at its end. */
Test(rl, a_sweep_file_is_learned_on_its_base)
{
	char *path = exp3("{\"k\": 2, \"window_jobs\": 0, \"test_windows\": "
			  "0, \"reward_at\": \"end\"}, \"sweep\": "
			  "{\"workload.limit\": [1, 2]}");
	struct sim_error err = { .msg = "" };
	struct env *v = env_new(path, NULL, &err);
	cr_assert_not_null(v, "%s", err.msg);
	float r = 0;
	bool done = false;
	cr_assert_eq(env_reset(v, 1, 0, NULL, NULL, &err), 0, "%s", err.msg);
	int64_t acts[3] = { 0, 1, 0 };
	for (int i = 0; i < 3; i++)
		cr_assert_eq(env_step(v, acts[i], NULL, NULL, &r, &done, &err),
			     0, "%s", err.msg);
	cr_assert(done);
	cr_assert_float_eq(r, -3.4f / 3, 1e-6);
	close3(v, path);
}

/* Utilization at the end: 3 x 10 + 1 x 4 + 2 x 5 = 44 CPU-seconds over
 * 4 CPUs x 15 s = 0.7333. */
Test(rl, utilization_at_end)
{
	char *path;
	struct env *v = open3("{\"k\": 2, \"window_jobs\": 0, "
			      "\"test_windows\": 0, \"reward_at\": \"end\", "
			      "\"reward\": \"utilization\"}", &path);
	struct sim_error err;
	float r = 0;
	bool done = false;
	cr_assert_eq(env_reset(v, 1, 0, NULL, NULL, &err), 0, "%s", err.msg);
	int64_t acts[3] = { 0, 1, 0 };
	for (int i = 0; i < 3; i++)
		cr_assert_eq(env_step(v, acts[i], NULL, NULL, &r, &done, &err),
			     0, "%s", err.msg);
	cr_assert(done);
	cr_assert_float_eq(r, 44.0f / 60, 1e-6, "r %g time %g", r, env_time(v));
	close3(v, path);
}

/*
 * Backfilling around the agent's choice, by hand (jobs3 on 4 CPUs, K 2).
 * t = 0: job 1 (3 CPUs) fits; action 0 starts it.  t = 1: job 2 (2 CPUs)
 * arrives and does not fit (1 CPU free), yet with backfill it may be
 * chosen: mask (1, 0, wait 1), its "fits now" feature 0.  Chosen, it is
 * reserved at 10 (job 1's expected end) and the environment runs on
 * without asking: at t = 2 job 3 (1 CPU, 4 s, ends by 6 <= 10) is
 * backfilled beside the reservation; at 10 job 2 starts.  Two decisions
 * in all; starts 0, 10, 2.
 */
Test(rl, backfill_around_the_choice)
{
	char *path;
	struct env *v = open3("{\"k\": 2, \"window_jobs\": 0, "
			      "\"test_windows\": 0, \"backfill\": true}",
			      &path);
	cr_assert(env_backfill(v));
	struct sim_error err;
	float obs[2 * 7 + 4 + 2], r;
	uint8_t mask[3];
	bool done;
	cr_assert_eq(env_reset(v, 1, 0, obs, mask, &err), 0, "%s", err.msg);
	cr_assert(mask[0] && !mask[1] && mask[2]);
	cr_assert_eq(env_step(v, 0, obs, mask, &r, &done, &err), 0, "%s",
		     err.msg);
	cr_assert(!done);
	cr_assert_float_eq(env_time(v), 1, 1e-9);
	cr_assert(mask[0] && !mask[1] && mask[2], "mask %d %d %d", mask[0],
		  mask[1], mask[2]);
	cr_assert_eq(obs[6], 0); /* job 2 does not fit now */
	cr_assert_eq(env_step(v, 0, obs, mask, &r, &done, &err), 0, "%s",
		     err.msg);
	cr_assert(done);
	cr_assert_eq(env_decisions(v), 2);
	size_t n;
	const struct job *j = rl_env_jobs(v, &n);
	cr_assert_eq(n, 3);
	const double want[] = { 0, 10, 2 };
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(j[i].start, (sim_time_t)(want[i] * SIM_SEC),
			     "job %lld", (long long)j[i].id);
	close3(v, path);
}

Test(rl, bad_keys_and_options)
{
	struct sim_error err = { .msg = "" };
	char *path = exp3("{\"k\": 0}");
	cr_assert_null(env_new(path, NULL, &err));
	cr_assert(strstr(err.msg, "$.rl.k: must be > 0, got '0'"), "%s",
		  err.msg);
	free(path);
	tl_rmtree(tmpdir);
	path = exp3("{\"window_jobs\": 2}");
	/* 3 jobs give 1 window of 2: the default test split is empty. */
	struct env_options o = { .split = "test" };
	cr_assert_null(env_new(path, &o, &err));
	cr_assert(strstr(err.msg, "$.rl.test_windows: the test split has no "
			 "window"), "%s", err.msg);
	o = (struct env_options){ .rl_json = "{\"reward\": \"slow\"}" };
	cr_assert_null(env_new(path, &o, &err));
	cr_assert(strstr(err.msg, "env options: $.rl.reward: unknown value "
			 "'slow'"), "%s", err.msg);
	o = (struct env_options){ .rl_json = "{\"window_jobs\": 4}" };
	cr_assert_null(env_new(path, &o, &err));
	cr_assert(strstr(err.msg, "fewer than one window of '4'"), "%s",
		  err.msg);
	free(path);
	tl_rmtree(tmpdir);
}

/* A generated workload of 200 jobs on 16 CPUs. */
static char *exp_gen(const char *rl)
{
	strcpy(tmpdir, "/tmp/clustersim-rl-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	char *text = xasprintf(
		"{\"cluster\": {\"nodes\": [{\"name\": \"c\", \"count\": 4, "
		"\"cpus\": 4}]}, \"workload\": {\"generate\": {\"jobs\": 200, "
		"\"interarrival\": {\"dist\": \"exponential\", \"mean\": 60}, "
		"\"runtime\": {\"dist\": \"lognormal\", \"mu\": 6, \"sigma\": 1}, "
		"\"cpus\": {\"dist\": \"pow2\", \"min\": 1, \"max\": 16}, "
		"\"estimate_factor\": {\"dist\": \"uniform\", \"min\": 1, "
		"\"max\": 3}}}, \"policies\": [\"fcfs\"], \"rl\": %s}", rl);
	tl_put(tmpdir, "g.json", text);
	free(text);
	return xasprintf("%s/g.json", tmpdir);
}

/* A seeded random agent over the allowed actions; returns a hash of every
 * observation, mask and reward it saw. */
static uint64_t play(struct env *v, uint64_t seed, uint64_t *steps)
{
	struct sim_error err;
	size_t d = env_obs_dim(v), na = env_actions(v);
	float *o = xmalloc(d * sizeof(*o));
	uint8_t *m = xmalloc(na);
	uint64_t h = 0, rng = seed;
	cr_assert_eq(env_reset(v, seed, -1, o, m, &err), 0, "%s", err.msg);
	bool done = env_done(v);
	*steps = 0;
	while (!done) {
		uint64_t x = 0;
		for (size_t i = 0; i < d; i++)
			memcpy(&x, &o[i], sizeof(float)), h = splitmix64_mix(h ^ x);
		for (size_t i = 0; i < na; i++)
			h = splitmix64_mix(h ^ m[i]);
		size_t a;
		do
			a = splitmix64_next(&rng) % na;
		while (!m[a]);
		float r;
		cr_assert_eq(env_step(v, (int64_t)a, o, m, &r, &done, &err), 0,
			     "%s", err.msg);
		uint32_t rb;
		memcpy(&rb, &r, sizeof(rb));
		h = splitmix64_mix(h ^ rb);
		(*steps)++;
	}
	free(o);
	free(m);
	return h;
}

Test(rl, deterministic_episode)
{
	struct sim_error err;
	char *path = exp_gen("{\"k\": 8, \"window_jobs\": 100}");
	struct env *a = env_new(path, NULL, &err);
	cr_assert_not_null(a, "%s", err.msg);
	struct env *b = env_new(path, NULL, &err);
	cr_assert_not_null(b, "%s", err.msg);
	cr_assert_eq(env_windows(a), 80);
	uint64_t sa, sb;
	uint64_t ha = play(a, 42, &sa), hb = play(b, 42, &sb);
	cr_assert_gt(sa, 100); /* at least one decision per job */
	cr_assert_eq(ha, hb);
	cr_assert_eq(sa, sb);
	/* Again on a, after another episode: the same. */
	(void)play(a, 5, &sb);
	cr_assert_eq(play(a, 42, &sb), ha);
	/* Another seed: another window or agent, another episode. */
	cr_assert_neq(play(b, 43, &sb), ha);
	env_free(a);
	env_free(b);
	free(path);
	tl_rmtree(tmpdir);
}

/* env_batch_step over 3 environments gives what stepping each alone gives;
 * the first action that is not allowed refuses the whole call. */
static void batch_check(char *path)
{
	struct sim_error err;
	enum { B = 3 };
	struct env *bv[B], *sv[B];
	size_t d = 0, na = 0;
	for (int i = 0; i < B; i++) {
		bv[i] = env_new(path, NULL, &err);
		sv[i] = env_new(path, NULL, &err);
		cr_assert(bv[i] && sv[i], "%s", err.msg);
		d = env_obs_dim(bv[i]);
		na = env_actions(bv[i]);
	}
	float *bo = xcalloc(B * d, sizeof(float)), *so = xcalloc(d, sizeof(float));
	uint8_t *bm = xcalloc(B * na, 1), *sm = xcalloc(na, 1);
	float br[B], sr;
	uint8_t bd[B];
	for (int i = 0; i < B; i++) {
		cr_assert_eq(env_reset(bv[i], 10 + i, -1, bo + i * d,
				       bm + i * na, &err), 0);
		cr_assert_eq(env_reset(sv[i], 10 + i, -1, so, sm, &err), 0);
	}
	int64_t bad[B] = { 0, (int64_t)na, 0 };
	cr_assert_lt(env_batch_step(bv, B, bad, bo, bm, br, bd, &err), 0);
	cr_assert(strstr(err.msg, "env 1: env: action"), "%s", err.msg);
	uint64_t seed[B] = { 10, 11, 12 };
	for (int step = 0; step < 400; step++) {
		int64_t act[B];
		for (int i = 0; i < B; i++) {
			/* the last allowed action */
			act[i] = 0;
			for (size_t a = 0; a < na; a++)
				if (bm[i * na + a])
					act[i] = (int64_t)a;
		}
		cr_assert_eq(env_batch_step(bv, B, act, bo, bm, br, bd, &err),
			     0, "%s", err.msg);
		for (int i = 0; i < B; i++) {
			bool done;
			cr_assert_eq(env_step(sv[i], act[i], so, sm, &sr, &done,
					      &err), 0, "%s", err.msg);
			if (done) /* the batch's chain: seed + 1 */
				cr_assert_eq(env_reset(sv[i], ++seed[i], -1,
						       so, sm, &err), 0);
			cr_assert_eq(bd[i], done);
			cr_assert_eq(br[i], sr);
			cr_assert_arr_eq(bo + i * d, so, d * sizeof(float));
			cr_assert_arr_eq(bm + i * na, sm, na);
		}
	}
	free(bo); free(so); free(bm); free(sm);
	for (int i = 0; i < B; i++) {
		env_free(bv[i]);
		env_free(sv[i]);
	}
	free(path);
	tl_rmtree(tmpdir);
}

Test(rl, batch_matches_single)
{
	batch_check(exp_gen("{\"k\": 4, \"window_jobs\": 50}"));
}

/* The agent "action 0 when allowed, else wait" is FCFS: on window 3 of
 * KTH (1,024 jobs, 100 CPUs) every job starts when the fcfs policy's run
 * of the same window starts it. */
Test(rl, fcfs_agent_reproduces_fcfs_on_kth)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *trace = xasprintf("%s/hpc/KTH-SP2-1996-2.1-cln.swf.gz",
				dir ? dir : "../shared/traces");
	if (access(trace, R_OK)) {
		free(trace);
		cr_skip_test("hpc/KTH-SP2-1996-2.1-cln.swf.gz not in "
			     "$CLUSTERSIM_TRACE_DIR (../shared/traces)");
	}
	char *abs = realpath(trace, NULL);
	strcpy(tmpdir, "/tmp/clustersim-rl-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	char *text = xasprintf(
		"{\"cluster\": {\"nodes\": [{\"name\": \"sp2\", \"count\": "
		"100, \"cpus\": 1}]}, \"workload\": {\"trace\": \"%s\", "
		"\"procs\": \"allocated\", \"overrun\": \"clip\"}, "
		"\"policies\": [\"fcfs\"], \"rl\": {}}", abs);
	tl_put(tmpdir, "kth.json", text);
	char *path = xasprintf("%s/kth.json", tmpdir);
	struct sim_error err;
	struct env *v = env_new(path, NULL, &err);
	cr_assert_not_null(v, "%s", err.msg);
	/* 28,467 jobs: 27 windows of 1,024, the last 5 for testing. */
	cr_assert_eq(env_windows(v), 22);
	cr_assert_eq(env_obs_dim(v), 128 * 7 + 4 + 2);
	cr_assert_eq(env_reset(v, 0, 3, NULL, NULL, &err), 0, "%s", err.msg);
	/* FCFS on the same window, first: the episode's jobs are fresh. */
	struct sim *f = tl_run_unchecked("fcfs", &v->ew, &v->in.cluster);
	size_t nf;
	const struct job *fj = sim_jobs(f, &nf);
	cr_assert_eq(env_reset(v, 0, 3, NULL, NULL, &err), 0, "%s", err.msg);
	uint8_t m[129];
	bool done = env_done(v);
	float r;
	memcpy(m, v->mask, sizeof(m));
	while (!done)
		cr_assert_eq(env_step(v, m[0] ? 0 : 128, NULL, m, &r, &done,
				      &err), 0, "%s", err.msg);
	size_t n;
	const struct job *j = rl_env_jobs(v, &n);
	cr_assert_eq(n, 1024);
	cr_assert_eq(nf, n);
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(j[i].id, fj[i].id);
		cr_assert_eq(j[i].start, fj[i].start, "job %lld starts at "
			     "%lld, fcfs %lld", (long long)j[i].id,
			     (long long)j[i].start, (long long)fj[i].start);
		cr_assert_eq(j[i].end, fj[i].end);
	}
	/* The first job of window 3 is job 3 x 1,024 + 1 of the trace in
	 * submit order, and starts on an empty cluster at its submit. */
	cr_assert_eq(j[0].start, j[0].submit);
	sim_free(f);
	env_free(v);
	free(path);
	free(text);
	free(abs);
	free(trace);
	tl_rmtree(tmpdir);
}

/* The "rl" keys through the experiment loader (what `clustersim validate`
 * runs): a bad value names its path; the resolved configuration shows
 * the section only when the file gives it, with every default. */
Test(rl, exp_keys)
{
	static const char *const base =
		"{\"cluster\": {\"nodes\": [{\"name\": \"c\", \"count\": 1, "
		"\"cpus\": 4}]}, \"workload\": {\"trace\": \"t.swf\"}, "
		"\"policies\": [\"fcfs\"]%s}";
	struct experiment e;
	struct sim_error err;
	char *t = xasprintf(base, ", \"rl\": {\"reward_at\": \"never\"}");
	cr_assert_neq(exp_parse(t, "x.json", &e, &err), 0);
	cr_assert_str_eq(err.msg, "x.json: $.rl.reward_at: unknown value "
			 "'never' (expected 'step' or 'end')");
	free(t);
	t = xasprintf(base, ", \"rl\": {\"kk\": 1}");
	cr_assert_neq(exp_parse(t, "x.json", &e, &err), 0);
	cr_assert(strstr(err.msg, "$.rl: unknown key 'kk'"), "%s", err.msg);
	free(t);
	t = xasprintf(base, "");
	cr_assert_eq(exp_parse(t, "x.json", &e, &err), 0, "%s", err.msg);
	cr_assert_null(strstr(e.resolved_json, "\"rl\""));
	cr_assert_eq(e.rl.k, 128);
	exp_release(&e);
	free(t);
	t = xasprintf(base, ", \"rl\": {\"k\": 5}");
	cr_assert_eq(exp_parse(t, "x.json", &e, &err), 0, "%s", err.msg);
	cr_assert(strstr(e.resolved_json, "\"k\":\t5"), "%s", e.resolved_json);
	cr_assert(strstr(e.resolved_json, "\"window_jobs\":\t1024"));
	cr_assert(strstr(e.resolved_json, "\"reward\":\t\"bounded_slowdown\""));
	exp_release(&e);
	free(t);
}

/*
 * Mode "place", by hand, on two GPU types: node "v" has 4 v100 GPUs
 * (type 0), node "k" 2 k80 GPUs (type 1); T = 2, actions 0 (v100), 1
 * (k80), 2 (wait).  Jobs (one CPU each but job 4): 1 asks 3 GPUs for 10 s
 * at 0; 2 asks 2 GPUs for 5 s at 1; 3 asks 1 GPU for 3 s at 2 and only
 * k80 (its gpu_type constraint, set below); 4 asks no GPU, 2 CPUs, 4 s,
 * at 3.  No job has a class ("job_classes": "trace", none drawn): every
 * type runs it at the reference speed.
 *   t = 0: head 1 fits on v100 only (k80 has 2 GPUs): mask (1, 0, 1),
 *     waiting allowed (submits are to come).  Place it on v100.
 *   t = 1: head 2 fits on k80 only (v100 has 1 free): mask (0, 1, 1).
 *     Wait.
 *   t = 2: job 3 arrives; head 2 still fits on k80 only: (0, 1, 1).
 *     Place it on k80 (ends at 7).  Head 3 asks k80, which is full: no
 *     decision (v100's free GPU is not its type).  t = 3: job 4 arrives
 *     behind head 3 and waits (the head goes first).
 *   t = 7: job 2 ends; head 3 fits on k80: mask (0, 1, 1); action 0 is
 *     masked for its own type.  Place it on k80 (ends at 10); head 4
 *     asks no GPU: it starts at once as the engine places it, with no
 *     decision; the queue is empty.
 *   t = 10: jobs 1 and 3 end; t = 11: job 4 ends: done.
 * Four decisions; starts 0, 2, 7, 7; types used v100, k80, k80, none.
 * Reward "wait" over 4 jobs: steps 1 and 2 end nothing (0); step 3
 * (t = 2 .. 7) ends job 2, which waited 1 s: -1/4; step 4 ends jobs 1
 * (waited 0), 3 (5 s) and 4 (4 s): -9/4; the episode -10/4.
 */
static const char *const jobs_place =
	"id,submit,run,cpus,estimate,gpus\n"
	"1,0,10,1,10,3\n2,1,5,1,5,2\n3,2,3,1,3,1\n4,3,4,2,4,0\n";

static char *exp_place(const char *nodes, const char *rl)
{
	strcpy(tmpdir, "/tmp/clustersim-rl-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	tl_put(tmpdir, "jobs.csv", jobs_place);
	char *text = xasprintf(
		"{\"cluster\": {\"nodes\": [%s]}, \"workload\": {\"trace\": "
		"\"jobs.csv\", \"format\": \"csv\", \"job_classes\": "
		"\"trace\"}, \"policies\": [\"fcfs\"], \"rl\": %s}", nodes,
		rl);
	tl_put(tmpdir, "p.json", text);
	free(text);
	return xasprintf("%s/p.json", tmpdir);
}

static const char *const two_types =
	"{\"name\": \"v\", \"count\": 1, \"cpus\": 8, \"gpus\": 4, "
	"\"gpu_type\": \"v100\"}, {\"name\": \"k\", \"count\": 1, "
	"\"cpus\": 8, \"gpus\": 2, \"gpu_type\": \"k80\"}";

Test(rl, place_hand_worked_episode)
{
	char *path = exp_place(two_types, "{\"mode\": \"place\", \"k\": 2, "
			       "\"window_jobs\": 0, \"test_windows\": 0, "
			       "\"reward\": \"wait\"}");
	struct sim_error err = { .msg = "" };
	struct env *v = env_new(path, NULL, &err);
	cr_assert_not_null(v, "%s", err.msg);
	cr_assert_str_eq(env_mode(v), "place");
	cr_assert_eq(env_gpu_types(v), 2);
	cr_assert_str_eq(env_gpu_type_name(v, 0), "v100");
	cr_assert_str_eq(env_gpu_type_name(v, 1), "k80");
	cr_assert_null(env_gpu_type_name(v, 2));
	cr_assert_eq(env_actions(v), 3);
	cr_assert_eq(env_k(v), 2);
	/* 2 slots x 7 + 3 groups (all GPUs, v100, k80) x 4 + 2 = 28. */
	cr_assert_eq(env_obs_dim(v), 28);
	v->in.w.jobs[2].gpu_type = 2; /* job 3: k80 only */
	float o[28], r, rs[4];
	uint8_t m[3];
	bool done;
	cr_assert_eq(env_reset(v, 1, 0, o, m, &err), 0, "%s", err.msg);
	cr_assert(m[0] == 1 && m[1] == 0 && m[2] == 1);
	/* The observation is select's: slot 0 is job 1, 3/6 GPUs, fits. */
	cr_assert(o[0] == 1 && o[3] == 0.5f && o[6] == 1);
	cr_assert_lt(env_step(v, 3, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "action '3' out of range 0 .. 2 (T = 2 "
			 "waits)"), "%s", err.msg);
	cr_assert_lt(env_step(v, 1, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "job 1 does not fit on GPU type 'k80' "
			 "now"), "%s", err.msg);
	cr_assert_eq(env_step(v, 0, o, m, &rs[0], &done, &err), 0, "%s",
		     err.msg);
	cr_assert_float_eq(env_time(v), 1, 1e-9);
	cr_assert(m[0] == 0 && m[1] == 1 && m[2] == 1);
	cr_assert_eq(env_step(v, 2, o, m, &rs[1], &done, &err), 0, "%s",
		     err.msg);
	cr_assert_float_eq(env_time(v), 2, 1e-9);
	cr_assert(m[0] == 0 && m[1] == 1 && m[2] == 1);
	cr_assert_eq(env_step(v, 1, o, m, &rs[2], &done, &err), 0, "%s",
		     err.msg);
	cr_assert_float_eq(env_time(v), 7, 1e-9, "time %g", env_time(v));
	cr_assert(m[0] == 0 && m[1] == 1 && m[2] == 1);
	cr_assert_lt(env_step(v, 0, o, m, &r, &done, &err), 0);
	cr_assert(strstr(err.msg, "job 3 asks GPU type 'k80'"), "%s",
		  err.msg);
	cr_assert_eq(env_step(v, 1, o, m, &rs[3], &done, &err), 0, "%s",
		     err.msg);
	cr_assert(done);
	cr_assert_eq(env_decisions(v), 4);
	cr_assert(rs[0] == 0 && rs[1] == 0);
	cr_assert_float_eq(rs[2], -0.25f, 1e-6);
	cr_assert_float_eq(rs[3], -2.25f, 1e-6);
	cr_assert_float_eq(env_return(v), -2.5, 1e-6);
	size_t n;
	const struct job *j = rl_env_jobs(v, &n);
	cr_assert_eq(n, 4);
	const double start[] = { 0, 2, 7, 7 }, end[] = { 10, 7, 10, 11 };
	const unsigned used[] = { 1, 2, 2, 0 }; /* type index + 1 */
	for (size_t i = 0; i < n; i++) {
		cr_assert_eq(j[i].start, (sim_time_t)(start[i] * SIM_SEC),
			     "job %lld", (long long)j[i].id);
		cr_assert_eq(j[i].end, (sim_time_t)(end[i] * SIM_SEC),
			     "job %lld", (long long)j[i].id);
		cr_assert_eq(j[i].gpu_type_used, used[i], "job %lld",
			     (long long)j[i].id);
	}
	env_free(v);
	free(path);
	tl_rmtree(tmpdir);
}

/* Mode "place" refused: on a cluster without GPU types, on one with
 * GPUs of no type, with backfill. */
Test(rl, place_refused)
{
	static const struct {
		const char *nodes, *rl, *msg;
	} bad[] = {
		{ "{\"name\": \"c\", \"count\": 1, \"cpus\": 4}", "{}",
		  "$.rl.mode: 'place' chooses the head job's GPU type, and "
		  "this cluster has no GPU types (use 'select')" },
		{ "{\"name\": \"g\", \"count\": 1, \"cpus\": 4, \"gpus\": 4}",
		  "{}", "$.rl.mode: 'place' chooses the head job's GPU type, "
		  "and this cluster has no GPU types" },
		{ "{\"name\": \"v\", \"count\": 1, \"cpus\": 8, \"gpus\": 4, "
		  "\"gpu_type\": \"v100\"}, {\"name\": \"u\", \"count\": 1, "
		  "\"cpus\": 8, \"gpus\": 4}", "{}", "$.rl.mode: 'place' needs "
		  "every GPU of the cluster to have a gpu_type: node group "
		  "'u' has GPUs of no type" },
		{ NULL, "{\"backfill\": true}", "$.rl.backfill: backfilling "
		  "around the agent's choice is for mode 'select' only" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *rl = xasprintf("{\"mode\": \"place\", \"window_jobs\": "
				     "0, \"test_windows\": 0%s%s",
				     bad[i].rl[1] == '}' ? "" : ", ",
				     bad[i].rl + 1);
		char *path = exp_place(bad[i].nodes ? bad[i].nodes : two_types,
				       rl);
		struct sim_error err = { .msg = "" };
		cr_assert_null(env_new(path, NULL, &err), "case %zu", i);
		cr_assert(strstr(err.msg, bad[i].msg), "case %zu: %s", i,
			  err.msg);
		cr_assert(strstr(err.msg, "p.json: $.rl."), "%s", err.msg);
		free(rl);
		free(path);
		tl_rmtree(tmpdir);
	}
}

/* Philly-like generated GPU jobs on 8 v100 and 8 k80 GPUs, mode
 * "place". */
static char *exp_gen_gpu(const char *rl)
{
	strcpy(tmpdir, "/tmp/clustersim-rl-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
	char *text = xasprintf(
		"{\"cluster\": {\"nodes\": [{\"name\": \"v\", \"count\": 2, "
		"\"cpus\": 16, \"gpus\": 4, \"gpu_type\": \"v100\"}, "
		"{\"name\": \"k\", \"count\": 2, \"cpus\": 16, \"gpus\": 4, "
		"\"gpu_type\": \"k80\"}]}, \"workload\": {\"generate\": "
		"{\"preset\": \"philly\", \"jobs\": 200}}, \"policies\": "
		"[\"fcfs\"], \"rl\": %s}", rl);
	tl_put(tmpdir, "gg.json", text);
	free(text);
	return xasprintf("%s/gg.json", tmpdir);
}

/* The same seed and actions give the same place episode, byte for byte;
 * another seed another; and the batch step is single steps. */
Test(rl, place_deterministic_and_batched)
{
	struct sim_error err;
	char *path = exp_gen_gpu("{\"mode\": \"place\", \"k\": 8, "
				 "\"window_jobs\": 100}");
	struct env *a = env_new(path, NULL, &err);
	cr_assert_not_null(a, "%s", err.msg);
	struct env *b = env_new(path, NULL, &err);
	cr_assert_not_null(b, "%s", err.msg);
	cr_assert_eq(env_actions(a), 3);
	uint64_t sa, sb;
	uint64_t ha = play(a, 42, &sa), hb = play(b, 42, &sb);
	/* Every GPU job that the cluster can hold is placed by a decision,
	 * and some waits are drawn too. */
	cr_assert_gt(sa, 50);
	cr_assert_eq(ha, hb);
	cr_assert_eq(sa, sb);
	size_t n, on[3] = { 0 };
	const struct job *j = rl_env_jobs(a, &n);
	for (size_t i = 0; i < n; i++)
		if (j[i].start != SIM_TIME_NONE && j[i].gpus)
			on[j[i].gpu_type_used < 3 ? j[i].gpu_type_used : 0]++;
	cr_assert(on[1] > 0 && on[2] > 0, "v100 %zu, k80 %zu", on[1], on[2]);
	cr_assert_eq(on[0], 0); /* every GPU job on one of the two types */
	cr_assert_neq(play(b, 43, &sb), ha);
	env_free(a);
	env_free(b);
	free(path);
	tl_rmtree(tmpdir);
	batch_check(exp_gen_gpu("{\"mode\": \"place\", \"k\": 4, "
				"\"window_jobs\": 50}"));
}
