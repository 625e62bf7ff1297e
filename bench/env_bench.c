/*
 * Environment steps per second in C (a row of `make bench`): one
 * environment of an experiment file (default experiments/kth.json, its
 * "rl" defaults: K = 128, windows of 1,024 jobs), an agent that takes a
 * seeded random allowed action, episodes one after another for about
 * SECONDS (default 3) of wall time.  Prints decisions/s.
 *
 *   env_bench [EXPERIMENT [SECONDS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "clustersim/env.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "experiments/kth.json";
	double secs = argc > 2 ? atof(argv[2]) : 3;
	struct sim_error err;
	struct env *v = env_new(path, NULL, &err);
	if (!v) {
		fprintf(stderr, "env_bench: %s\n", err.msg);
		return 2;
	}
	size_t d = env_obs_dim(v), na = env_actions(v);
	float *obs = malloc(d * sizeof(*obs));
	uint8_t *mask = malloc(na);
	uint64_t rng = 1, steps = 0, episodes = 0;
	double t0 = now_s(), t = t0;
	while (t - t0 < secs) {
		if (env_reset(v, episodes++, -1, obs, mask, &err)) {
			fprintf(stderr, "env_bench: %s\n", err.msg);
			return 1;
		}
		bool done = env_done(v);
		while (!done) {
			size_t a;
			do {
				rng = rng * 6364136223846793005ULL +
				      1442695040888963407ULL;
				a = (size_t)(rng >> 33) % na;
			} while (!mask[a]);
			float r;
			if (env_step(v, (int64_t)a, obs, mask, &r, &done,
				     &err)) {
				fprintf(stderr, "env_bench: %s\n", err.msg);
				return 1;
			}
			steps++;
		}
		t = now_s();
	}
	printf("env-step-c: decisions=%llu episodes=%llu wall_s=%.3f "
	       "decisions_per_s=%.0f obs_dim=%zu\n", (unsigned long long)steps,
	       (unsigned long long)episodes, t - t0, (double)steps / (t - t0),
	       d);
	free(obs);
	free(mask);
	env_free(v);
	return 0;
}
