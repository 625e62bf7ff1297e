/*
 * Conformance: every registered policy (so a new policy file is tested
 * with no edit here) on small random workloads, with the invariant checker
 * on.  Checked independently of the engine: every job ends, no job starts
 * before its submit; a job never preempted runs exactly its run time and
 * the CPUs such jobs use never exceed the cluster (a sweep over start/end
 * points); a preempted job's service adds up to its work (no checkpoint
 * loss or restore cost here); the service of all jobs equals the CPU time
 * the engine integrated; and a rerun gives identical records.
 *
 * The same on GPU clusters, where a job's speed depends on where it runs:
 * several GPU types, racks under a fabric, jobs of drawn models (so
 * Gandiva packs the pairs Gavel measured), some asking CPUs beside their
 * GPUs or a GPU type, some CPU jobs, a virtual cluster beside the shared
 * pool, and preemption that costs a restore and loses the work since the
 * last checkpoint.  Checked: every
 * job ends, starts after its submit and is never refused by the engine
 * for a bad call; the GPU-seconds charged to the jobs add up to the GPU
 * time the engine integrated; a rerun gives identical records.  The
 * checkpoint interval stays well below the work a job does in any
 * policy's round or lease, even on the slowest GPU: with more, two jobs
 * can preempt each other forever and keep nothing (a livelock, which
 * progress detection is for, not a conformance case).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cluster/cluster.h"
#include "policy/registry.h"
#include "speed/speed.h"
#include "testlib.h"

/*
 * A policy with a file parameter cannot run without its file: the ones
 * the project ships get one written here.  rl gets a model (docs/rl.md,
 * "The model file") for the cluster at hand: K = 8, one hidden layer of
 * 8, weights of a fixed pseudo-random sequence in [-0.5, 0.5).  Returns
 * the parameters to give (0 or 1), the file's path in path.
 */
static size_t file_params(const struct policy_ops *ops,
			  const struct cluster_spec *c, struct param_value *pv,
			  char *path)
{
	bool has_file = false;
	for (const struct policy_param *d = ops->params; d && d->name; d++)
		has_file |= d->type == PARAM_FILE;
	if (!has_file)
		return 0;
	cr_assert_str_eq(ops->name, "rl", "policy '%s' takes a file: give "
			 "it one in file_params()", ops->name);
	struct cluster *cl = cluster_new(c);
	uint32_t ntypes = cluster_total_gpus(cl) ? cluster_gpu_type_count(cl)
						 : 0;
	cluster_free(cl);
	uint32_t k = 8, jf = SIM_OBS_JOB_F,
		 cf = SIM_OBS_GROUP_F * (1 + ntypes) + SIM_OBS_GLOBAL_F;
	strcpy(path, "/tmp/clustersim-conf-XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	FILE *f = fdopen(fd, "wb");
	fprintf(f, "{\"format\": \"clustersim-rl-model\", \"version\": 1, "
		"\"mode\": \"select\", \"k\": %u, \"job_features\": %u, "
		"\"context_features\": %u, \"obs_dim\": %u, \"layers\": ["
		"{\"net\": \"scorer\", \"in\": %u, \"out\": 8, \"relu\": "
		"true}, {\"net\": \"scorer\", \"in\": 8, \"out\": 1, "
		"\"relu\": false}, {\"net\": \"wait\", \"in\": %u, "
		"\"out\": 8, \"relu\": true}, {\"net\": \"wait\", \"in\": 8, "
		"\"out\": 1, \"relu\": false}]}\n", k, jf, cf, k * jf + cf,
		jf + cf, cf);
	size_t n = (jf + cf) * 8 + 8 + 8 + 1 + cf * 8 + 8 + 8 + 1;
	uint32_t x = 12345;
	for (size_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		float w = (float)(x >> 8) / 16777216.0f - 0.5f;
		fwrite(&w, sizeof(w), 1, f); /* little-endian hosts */
	}
	fclose(f);
	*pv = (struct param_value){ .key = (char *)"model",
				    .json_path = (char *)"$.model",
				    .type = PV_STRING, .str = path };
	return 1;
}

struct point {
	sim_time_t t;
	int64_t delta; /* +cpus at a start, -cpus at an end */
};

static int by_time_ends_first(const void *pa, const void *pb)
{
	const struct point *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->delta > b->delta) - (a->delta < b->delta);
}

static void check_run(const char *name, const struct sim *s, uint64_t cap)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	struct point *pts = calloc(2 * n, sizeof(*pts));
	size_t np = 0;
	double service = 0; /* CPU-seconds held by all jobs */
	for (size_t i = 0; i < n; i++) {
		if (j[i].state == JOB_REJECTED) {
			cr_assert_gt(j[i].cpus, cap);
			continue;
		}
		cr_assert(j[i].state == JOB_FINISHED,
			  "%s: job %lld did not finish (state %d)", name,
			  (long long)j[i].id, j[i].state);
		cr_assert_geq(j[i].start, j[i].submit, "%s: job %lld", name,
			      (long long)j[i].id);
		service += j[i].attained;
		if (j[i].preemptions) {
			/* Its runs add up to its work: CPU-seconds held =
			 * run x cpus. */
			cr_assert_float_eq(j[i].attained,
					   (double)j[i].run / SIM_SEC *
						   j[i].cpus,
					   1e-6, "%s: job %lld", name,
					   (long long)j[i].id);
			cr_assert_geq(j[i].end - j[i].start, j[i].run);
			continue;
		}
		cr_assert_eq(j[i].end - j[i].start, j[i].run);
		pts[np++] = (struct point){ j[i].start, (int64_t)j[i].cpus };
		pts[np++] = (struct point){ j[i].end, -(int64_t)j[i].cpus };
	}
	cr_assert_float_eq(service, sim_counters(s)->busy_area,
			   1e-6 * (1 + service), "%s: service %f, busy %f",
			   name, service, sim_counters(s)->busy_area);
	qsort(pts, np, sizeof(*pts), by_time_ends_first);
	int64_t used = 0;
	for (size_t i = 0; i < np; i++) {
		used += pts[i].delta;
		cr_assert_leq(used, (int64_t)cap, "%s: %lld CPUs in use at %lld",
			      name, (long long)used, (long long)pts[i].t);
	}
	free(pts);
}

Test(conformance, every_policy_on_random_workloads)
{
	struct { size_t jobs; uint32_t max_cpus, nodes, cpus; uint64_t seed; }
	cases[] = {
		{ 400, 8, 4, 2, 1 },   /* small jobs, tight cluster */
		{ 400, 64, 8, 8, 2 },  /* jobs up to the whole cluster */
		{ 300, 80, 8, 8, 3 },  /* some jobs larger: rejected */
		{ 500, 1, 1, 1, 4 },   /* one CPU */
	};
	for (size_t p = 0; policy_builtin[p]; p++) {
		const struct policy_ops *ops = policy_builtin[p];
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			struct workload w;
			struct cluster_spec c;
			tl_random_workload(&w, cases[k].jobs, cases[k].max_cpus,
					   cases[k].seed);
			tl_cluster(&c, cases[k].nodes, cases[k].cpus);
			struct param_value pv;
			char path[64];
			size_t npv = file_params(ops, &c, &pv, path);
			struct sim *a = tl_run_with(ops, &pv, npv, &w, &c);
			struct sim *b = tl_run_with(ops, &pv, npv, &w, &c);
			if (npv)
				unlink(path);
			check_run(ops->name, a,
				  (uint64_t)cases[k].nodes * cases[k].cpus);
			size_t na, nb;
			const struct job *ja = sim_jobs(a, &na);
			const struct job *jb = sim_jobs(b, &nb);
			cr_assert_eq(na, nb);
			cr_assert_eq(memcmp(ja, jb, na * sizeof(*ja)), 0,
				     "%s: a rerun differs", ops->name);
			sim_free(a);
			sim_free(b);
			workload_release(&w);
			cluster_spec_release(&c);
		}
	}
}

/* ---- GPU clusters ----------------------------------------------------- */

/* Random GPU workload: n jobs of 1 .. 8 GPUs (a few CPU jobs when cpu_jobs),
 * every other one with a CPU per GPU, every fifth typed when ntypes; with
 * vcs, of groups "A" (a virtual cluster), "B" (none) and no group. */
static void gpu_workload(struct workload *w, size_t n, unsigned ntypes,
			 bool cpu_jobs, bool vcs, uint64_t seed)
{
	static const uint32_t sizes[] = { 1, 1, 1, 2, 2, 4, 8 };
	tl_random_workload(w, n, 8, seed);
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t r = (uint32_t)(x >> 33);
		j->run *= 3; /* minutes to hours: several rounds each */
		j->estimate *= 3;
		if (cpu_jobs && r % 9 == 4) {
			j->cpus = 1 + r % 4;
			continue;
		}
		j->gpus = sizes[(r >> 4) % 7];
		j->cpus = (r >> 8) % 2 ? j->gpus : 0;
		if (ntypes && (r >> 12) % 5 == 0)
			j->gpu_type = (uint16_t)(1 + (r >> 16) % ntypes);
		if (vcs)
			j->group = (int32_t)((r >> 20) % 3) - 1;
	}
	if (vcs) {
		w->groups = xcalloc(2, sizeof(*w->groups));
		w->groups[0] = xstrdup("A");
		w->groups[1] = xstrdup("B");
		w->ngroups = 2;
	}
}

/* Virtual cluster "A" of 2 nodes of 4 GPUs, and a pool of 2 more. */
static void gpu_vcs(struct cluster_spec *c)
{
	tl_gpu_cluster(c, 2, 4, NULL, 2);
	c->groups[0].vc = xstrdup("A");
	c->groups = xrealloc(c->groups, 2 * sizeof(*c->groups));
	c->groups[1] = (struct node_group){ .name = xstrdup("pool"),
					    .count = 2, .cpus = 8, .gpus = 4 };
	c->ngroups = 2;
}

/* Two GPU types on racks of two nodes: 4 nodes of 4 V100s, 4 of 2 K80s. */
static void gpu_hetero(struct cluster_spec *c)
{
	tl_gpu_cluster(c, 4, 4, "v100", 2);
	c->groups = xrealloc(c->groups, 2 * sizeof(*c->groups));
	c->groups[1] = (struct node_group){ .name = xstrdup("k80"),
					    .count = 4, .cpus = 8, .gpus = 2,
					    .gpu_type = xstrdup("k80") };
	c->ngroups = 2;
}

static void check_gpu_run(const char *name, const struct sim *s)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	double service = 0; /* GPU-seconds charged to the jobs */
	for (size_t i = 0; i < n; i++) {
		cr_assert(j[i].state == JOB_FINISHED,
			  "%s: job %lld did not finish (state %d)", name,
			  (long long)j[i].id, j[i].state);
		cr_assert_geq(j[i].start, j[i].submit, "%s: job %lld", name,
			      (long long)j[i].id);
		cr_assert_geq(j[i].end, j[i].start, "%s: job %lld", name,
			      (long long)j[i].id);
		if (j[i].gpus)
			service += j[i].attained;
	}
	const struct run_counters *k = sim_counters(s);
	cr_assert_float_eq(service, k->gpu_busy_area, 1e-6 * (1 + service),
			   "%s: GPU service %f, busy %f", name, service,
			   k->gpu_busy_area);
	cr_assert_eq(k->bad_calls, 0, "%s: %llu bad calls (%s)", name,
		     (unsigned long long)k->bad_calls,
		     sim_bad_call_first(s) ? sim_bad_call_first(s) : "");
}

Test(conformance, every_policy_on_gpu_clusters)
{
	struct {
		size_t jobs;
		bool hetero, cpu_jobs, vcs;
		sim_time_t ckpt, restore, per_gpu;
		uint64_t seed;
	} cases[] = {
		/* types, racks, checkpoints every 15 s of work, restore
		 * costs by GPU count */
		{ 60, true, false, false, 15 * SIM_SEC, 10 * SIM_SEC, SIM_SEC,
		  5 },
		/* one untyped group with CPU jobs too; nothing lost at a
		 * preemption, a restore that grows with the model */
		{ 60, false, true, false, 0, 10 * SIM_SEC, 0, 6 },
		/* a virtual cluster beside the shared pool */
		{ 40, false, false, true, 15 * SIM_SEC, 5 * SIM_SEC, 0, 7 },
	};
	struct speed_config sp;
	tl_speed_config(&sp);
	sp.draw_classes = true;
	for (size_t p = 0; policy_builtin[p]; p++) {
		const struct policy_ops *ops = policy_builtin[p];
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
			struct workload w;
			struct cluster_spec c;
			gpu_workload(&w, cases[k].jobs, cases[k].hetero ? 2 : 0,
				     cases[k].cpu_jobs, cases[k].vcs,
				     cases[k].seed);
			if (cases[k].hetero)
				gpu_hetero(&c);
			else if (cases[k].vcs)
				gpu_vcs(&c);
			else
				tl_gpu_cluster(&c, 4, 4, NULL, 2);
			struct sim_config cfg = {
				.workload = &w, .cluster = &c, .speed = &sp,
				.checkpoint_interval = cases[k].ckpt,
				.restore_overhead = cases[k].restore,
				.restore_per_gpu = cases[k].per_gpu,
				.storage_Bps = cases[k].hetero ? 0 : 1e9,
			};
			struct param_value pv;
			char path[64];
			size_t npv = file_params(ops, &c, &pv, path);
			struct sim *a = tl_run_cfg(ops->name, &pv, npv, &cfg);
			struct sim *b = tl_run_cfg(ops->name, &pv, npv, &cfg);
			if (npv)
				unlink(path);
			check_gpu_run(ops->name, a);
			size_t na, nb;
			const struct job *ja = sim_jobs(a, &na);
			const struct job *jb = sim_jobs(b, &nb);
			cr_assert_eq(na, nb);
			cr_assert_eq(memcmp(ja, jb, na * sizeof(*ja)), 0,
				     "%s: a rerun differs", ops->name);
			sim_free(a);
			sim_free(b);
			workload_release(&w);
			cluster_spec_release(&c);
		}
	}
}
