/*
 * The replay mode of the openb experiments (sim/fill/fill_replay.c,
 * sim/run/fill_replay_run.c, sim/exp/exp_fill.c): a replay worked out by hand on
 * two nodes of two GPUs, the departures-before-arrivals tie, GPU shares
 * never above one GPU (checked by a sweep over the per-pod records, a
 * second method), fragmentation over time against a recomputation from
 * the per-pod records, the "mode" key and its errors, the refusal of a
 * list without times, and the manifest's hashes of the node and pod
 * lists.
 */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exp/exp.h"
#include "exp/exp_json.h"
#include "fill/fill.h"
#include "fill/fill_replay.h"
#include "report/out.h"
#include "policy/registry.h"
#include "run/runner.h"
#include "base/util.h"

static const struct score_ops *fr_policy(struct registry *reg,
					 const char *name)
{
	const struct score_ops *ops = registry_find_score(reg, name);
	cr_assert(ops, "score plugin %s", name);
	return ops;
}

/* Nodes of 8 cores, 1000 MiB and gpus model-0 GPUs. */
static void fr_cluster(struct frag_cluster *c, uint32_t nodes, uint32_t gpus)
{
	frag_cluster_init(c);
	int m = frag_model_index(c, "V100");
	for (uint32_t i = 0; i < nodes; i++)
		cr_assert_eq(frag_cluster_add_node(c, 8000, 1000, gpus,
						   (uint32_t)m), 0);
}

static struct score_pod fr_pod(uint32_t cpu, uint32_t gpus, uint32_t milli,
			      int64_t created, int64_t deleted)
{
	return (struct score_pod){ .cpu = cpu, .mem = 10, .gpus = gpus,
				  .milli = milli, .created = created,
				  .deleted = deleted };
}

/* A change of the per-pod records: a pod takes or releases at t. */
struct fr_change {
	sim_time_t t;  /* when */
	int take;      /* 1 take, 0 release */
	size_t pod;    /* which */
};

static int fr_change_cmp(const void *pa, const void *pb)
{
	const struct fr_change *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->take != b->take)
		return a->take - b->take;
	return a->pod < b->pod ? -1 : a->pod > b->pod;
}

/*
 * Second method for "no GPU share above 1000, no CPU above capacity":
 * sweep the per-pod records.  A pod holds its GPUs over [start, end)
 * (end = never: to the end); at each time every release is applied before
 * every take, then each GPU's taken share and each node's CPU are checked.
 */
static void fr_check_shares(const struct frag_cluster *c,
			    const struct score_pod *pods,
			    const struct replay_result *r)
{
	size_t n = r->npods, ne = 0;
	struct fr_change *ev = xmalloc((2 * n + 1) * sizeof(*ev));
	for (size_t i = 0; i < n; i++) {
		const struct replay_pod *q = &r->pods[i];
		if (q->node < 0) {
			cr_assert_eq(q->start, SIM_TIME_NONE);
			continue;
		}
		cr_assert_geq(q->start, q->arrival, "pod %zu", i);
		if (pods[i].deleted >= 0)
			cr_assert_eq(q->end, q->start + (pods[i].deleted -
				     pods[i].created) * SIM_SEC, "pod %zu", i);
		else
			cr_assert_eq(q->end, SIM_TIME_NONE);
		if (q->end == q->start)
			continue; /* holds nothing over an interval */
		ev[ne++] = (struct fr_change){ q->start, 1, i };
		if (q->end != SIM_TIME_NONE)
			ev[ne++] = (struct fr_change){ q->end, 0, i };
	}
	qsort(ev, ne, sizeof(*ev), fr_change_cmp);
	uint32_t *taken = xcalloc(c->nnodes * FRAG_MAX_GPUS, sizeof(*taken));
	uint64_t *cpu = xcalloc(c->nnodes, sizeof(*cpu));
	for (size_t k = 0; k < ne; k++) {
		const struct score_pod *p = &pods[ev[k].pod];
		const struct replay_pod *q = &r->pods[ev[k].pod];
		size_t nd = (size_t)q->node;
		for (uint32_t g = 0; g < FRAG_MAX_GPUS; g++) {
			if (!(q->gpus & (1u << g)))
				continue;
			uint32_t *sh = &taken[nd * FRAG_MAX_GPUS + g];
			*sh = ev[k].take ? *sh + p->milli : *sh - p->milli;
			cr_assert_leq(*sh, g < c->nodes[nd].ngpus ? 1000u : 0u,
				      "node %zu GPU %u at %lld", nd, g,
				      (long long)ev[k].t);
		}
		cpu[nd] = ev[k].take ? cpu[nd] + p->cpu : cpu[nd] - p->cpu;
		cr_assert_leq(cpu[nd], c->nodes[nd].cpu_cap);
	}
	free(cpu);
	free(taken);
	free(ev);
}

/*
 * The cluster's fragmentation at time t, rebuilt from the per-pod records
 * (pods holding at t: start <= t < end, or start == t for a pod of zero
 * run - it has left by the sample) by the plain definition
 * (frag_node_frag_plain, each shape in turn).
 */
static double fr_frag_at(const struct frag_cluster *c,
			 const struct frag_dist *d, const struct score_pod *pods,
			 const struct replay_result *r, sim_time_t t)
{
	double F = 0;
	for (size_t nd = 0; nd < c->nnodes; nd++) {
		uint16_t g[FRAG_MAX_GPUS];
		uint32_t cpu = c->nodes[nd].cpu_cap;
		for (uint32_t k = 0; k < FRAG_MAX_GPUS; k++)
			g[k] = k < c->nodes[nd].ngpus ? 1000 : 0;
		for (size_t i = 0; i < r->npods; i++) {
			const struct replay_pod *q = &r->pods[i];
			if (q->node != (int32_t)nd || q->start > t ||
			    (q->end != SIM_TIME_NONE && q->end <= t))
				continue;
			cpu -= pods[i].cpu;
			for (uint32_t k = 0; k < FRAG_MAX_GPUS; k++)
				if (q->gpus & (1u << k))
					g[k] = (uint16_t)(g[k] - pods[i].milli);
		}
		F += frag_node_frag_plain(d, c->nodes[nd].model, cpu,
					  c->nodes[nd].ngpus, g);
	}
	return F;
}

/*
 * Nodes A (0) and B (1): 8 cores, two GPUs each.  Pods (cores, GPUs,
 * created -> deleted, s), placed by bestfit (leftover = 0.5 cpu_left/8 +
 * 0.5 gpu_left/2000, least wins, ties to the lowest node; a share takes
 * the fullest GPU that holds it; whole GPUs the lowest free ones):
 *   P0 1 core, 1 GPU,       0 -> 100
 *   P1 1 core, 0.6 GPU,    10 -> 50
 *   P2 1 core, 2 GPUs,     20 -> 80
 *   P3 1 core, 0.6 GPU,    30 -> 90
 *   P4 1 core, 3 GPUs,     60 -> 65   (no node has 3 GPUs)
 *   P5 1 core, 1 GPU,      70 -> 100
 *   P6 1 core, 0.3 GPU,    90 -> none
 * t=0   P0: A and B tie (0.4375 + 0.25) -> A, GPU 0.  A [0, 1000]
 * t=10  P1: A 0.375 + 0.1 = 0.475, B 0.4375 + 0.35 = 0.7875 -> A GPU 1.
 *       A [0, 400]
 * t=20  P2: A has no whole GPU -> B.  B [0, 0]
 * t=30  P3: no GPU with 600 free anywhere -> pending [P3]
 * t=50  P1 leaves (A [0, 1000]); retry: P3 -> A GPU 1 (A [0, 400]),
 *       wait 20, leaves at 50 + 60 = 110 (not 90)
 * t=60  P4 -> pending [P4]
 * t=70  P5: no whole GPU free -> pending [P4, P5]
 * t=80  P2 leaves (B [1000, 1000]); retry: P4 skipped (still fits
 *       nowhere), P5 -> B GPU 0 (B [0, 1000]), wait 10, leaves at 110
 * t=90  P6: A (6 cores, GPU 1 has 400): 0.3125 + 0.025 = 0.3375; B
 *       (7 cores, 1000): 0.375 + 0.175 = 0.55 -> A GPU 1.  A [0, 100]
 * t=100 P0 leaves.  t=110 P3 and P5 leave; P4 is never placed.
 * Allocated (thousandths of 4000): 0:1000 10:1600 20:3600 50:3600
 * 80:2600 90:2900 100:1900 110:300.  Window [0, 90]: (1000 x 10 + 1600
 * x 10 + 3600 x 60 + 2600 x 10) / 90 = 268000 / 90; at its end 2900,
 * one pod pending.  Waits of the 6 placed: 0 0 0 20 10 0: mean 5, p99
 * (linear between order statistics, index 0.99 x 5 = 4.95) 10 + 0.95 x
 * 10 = 19.5, max 20.
 */
Test(fill_replay, two_nodes_by_hand)
{
	struct score_pod pods[] = {
		fr_pod(1000, 1, 1000, 0, 100), fr_pod(1000, 1, 600, 10, 50),
		fr_pod(1000, 2, 1000, 20, 80), fr_pod(1000, 1, 600, 30, 90),
		fr_pod(1000, 3, 1000, 60, 65), fr_pod(1000, 1, 1000, 70, 100),
		fr_pod(1000, 1, 300, 90, -1),
	};
	size_t n = ARRAY_SIZE(pods);
	struct frag_cluster c;
	struct frag_dist d;
	struct registry reg;
	struct replay_result r;
	struct sim_error err;
	registry_init(&reg);
	fr_cluster(&c, 2, 2);
	cr_assert_eq(frag_dist_build(&d, pods, n), 0);
	frag_cluster_ready(&c, 0, &d);
	cr_assert_eq(replay_run(&c, pods, n, fr_policy(&reg, "bestfit"),
				 1, 10 * SIM_SEC, 1, &r, &err),
		     0, "%s", err.msg);
	static const struct { int32_t node; uint32_t gpus; int64_t start, end; }
	want[] = {
		{ 0, 1, 0, 100 }, { 0, 2, 10, 50 }, { 1, 3, 20, 80 },
		{ 0, 2, 50, 110 }, { -1, 0, -1, -1 }, { 1, 1, 80, 110 },
		{ 0, 2, 90, -1 },
	};
	for (size_t i = 0; i < n; i++) {
		const struct replay_pod *q = &r.pods[i];
		cr_assert_eq(q->node, want[i].node, "pod %zu", i);
		cr_assert_eq(q->gpus, want[i].gpus, "pod %zu", i);
		cr_assert_eq(q->arrival, pods[i].created * SIM_SEC);
		cr_assert_eq(q->start, want[i].start < 0 ? SIM_TIME_NONE :
				       want[i].start * SIM_SEC, "pod %zu", i);
		cr_assert_eq(q->end, want[i].end < 0 ? SIM_TIME_NONE :
				     want[i].end * SIM_SEC, "pod %zu", i);
	}
	cr_assert_eq(r.placed, 6);
	cr_assert_eq(r.waited, 2);
	cr_assert_eq(r.never, 1);
	cr_assert_float_eq(r.wait_mean, 5.0, 1e-12);
	cr_assert_float_eq(r.wait_p99, 19.5, 1e-9);
	cr_assert_float_eq(r.wait_max, 20.0, 1e-12);
	cr_assert_eq(r.t_first, 0);
	cr_assert_eq(r.t_last, 90 * SIM_SEC);
	cr_assert_eq(r.t_end, 110 * SIM_SEC);
	cr_assert_float_eq(r.alloc_avg, 268000.0 / 90, 1e-9);
	cr_assert_eq(r.alloc_end, 2900);
	cr_assert_eq(r.pending_end, 1);
	cr_assert_eq(r.events, 7 + 6 - 1); /* arrivals + departures */
	/* Samples every 10 s from 0 to 110. */
	static const uint64_t alloc[] = { 1000, 1600, 3600, 3600, 3600, 3600,
					  3600, 3600, 2600, 2900, 1900, 300 };
	static const uint32_t pend[] = { 0, 0, 0, 1, 1, 0, 1, 2, 1, 1, 1, 1 };
	static const uint32_t run[] = { 1, 2, 3, 3, 3, 3, 3, 3, 3, 4, 3, 1 };
	cr_assert_eq(r.nsamples, ARRAY_SIZE(alloc));
	for (size_t k = 0; k < r.nsamples; k++) {
		const struct replay_sample *s = &r.samples[k];
		cr_assert_eq(s->t, (sim_time_t)k * 10 * SIM_SEC);
		cr_assert_eq(s->allocated, alloc[k], "sample %zu", k);
		cr_assert_eq(s->pending, pend[k], "sample %zu", k);
		cr_assert_eq(s->running, run[k], "sample %zu", k);
		cr_assert_float_eq(s->frag, fr_frag_at(&c, &d, pods, &r, s->t),
				   1e-6, "sample %zu", k);
	}
	/* Fragmentation at the end of the window: the state at t = 90. */
	cr_assert_float_eq(r.frag_end, r.samples[9].frag, 1e-9);
	/* Its time average: the samples at 0, 10, .., 80 each hold for the
	 * 10 s that follow (events fall on the 10 s grid). */
	double area = 0;
	for (size_t k = 0; k < 9; k++)
		area += r.samples[k].frag * 10;
	cr_assert_float_eq(r.frag_avg, area / 90, 1e-6);
	fr_check_shares(&c, pods, &r);
	replay_result_release(&r);
	frag_dist_release(&d);
	frag_cluster_release(&c);
	registry_release(&reg);
}

/*
 * The tie: nodes A and B of one GPU each.  X (0.6 GPU) arrives at 0 and
 * goes to A (two idle nodes score alike: the lowest wins); it is deleted
 * at 10, when Y (one whole GPU) arrives.  Departures first: X has left A,
 * A and B are both idle and Y goes to A.  Were arrivals first, A would
 * have no whole GPU and Y would go to B.
 */
Test(fill_replay, departures_before_arrivals)
{
	struct score_pod pods[] = { fr_pod(0, 1, 600, 0, 10),
				   fr_pod(0, 1, 1000, 10, 20) };
	struct frag_cluster c;
	struct frag_dist d;
	struct registry reg;
	struct replay_result r;
	struct sim_error err;
	registry_init(&reg);
	fr_cluster(&c, 2, 1);
	cr_assert_eq(frag_dist_build(&d, pods, 2), 0);
	frag_cluster_ready(&c, 0, &d);
	static const char *const pols[] = { "bestfit", "gpu_packing",
					    "gpu_clustering", "dotprod",
					    "fgd" };
	for (size_t p = 0; p < ARRAY_SIZE(pols); p++) {
		cr_assert_eq(replay_run(&c, pods, 2, fr_policy(&reg, pols[p]),
					 1, SIM_SEC, 1, &r, &err),
			     0);
		cr_assert_eq(r.pods[0].node, 0, "%s", pols[p]);
		cr_assert_eq(r.pods[0].end, 10 * SIM_SEC);
		cr_assert_eq(r.pods[1].node, 0, "%s", pols[p]);
		cr_assert_eq(r.pods[1].start, 10 * SIM_SEC);
		fr_check_shares(&c, pods, &r);
		replay_result_release(&r);
	}
	frag_dist_release(&d);
	frag_cluster_release(&c);
	registry_release(&reg);
}

/* Many pods on a small cluster, heavily loaded, every score plugin:
 * shares never beyond one GPU, waits consistent, seeds reproducible. */
Test(fill_replay, shares_within_one_gpu_under_load)
{
	enum { NP = 400 };
	struct score_pod *pods = xcalloc(NP, sizeof(*pods));
	uint64_t rng = 42;
	for (size_t i = 0; i < NP; i++) {
		uint64_t x = place_rng_next(&rng);
		uint32_t kind = (uint32_t)(x % 5);
		static const uint32_t g[] = { 0, 1, 1, 1, 2 };
		static const uint32_t m[] = { 0, 250, 500, 1000, 1000 };
		int64_t t = (int64_t)(i / 3);
		int64_t run = (int64_t)((x >> 8) % 40);
		pods[i] = fr_pod((uint32_t)((x >> 20) % 4) * 1000, g[kind],
				 m[kind], t, (x >> 40) % 7 ? t + run : -1);
	}
	struct frag_cluster c;
	struct frag_dist d;
	struct registry reg;
	struct sim_error err;
	registry_init(&reg);
	fr_cluster(&c, 4, 2);
	cr_assert_eq(frag_dist_build(&d, pods, NP), 0);
	frag_cluster_ready(&c, 0, &d);
	static const char *const pols[] = { "random", "dotprod",
					    "gpu_clustering", "gpu_packing",
					    "bestfit", "fgd" };
	for (size_t p = 0; p < ARRAY_SIZE(pols); p++) {
		struct replay_result r, r2;
		const struct score_ops *f = fr_policy(&reg, pols[p]);
		cr_assert_eq(replay_run(&c, pods, NP, f, 1, 5 * SIM_SEC, 7, &r,
					&err), 0, "%s", err.msg);
		cr_assert_gt(r.waited, 0, "%s: the load makes pods wait",
			     pols[p]);
		cr_assert_eq(r.placed + r.never, NP);
		fr_check_shares(&c, pods, &r);
		cr_assert_eq(replay_run(&c, pods, NP, f, 1, 5 * SIM_SEC, 7,
					&r2, &err), 0);
		cr_assert_eq(r2.nsamples, r.nsamples);
		cr_assert_eq(memcmp(r.pods, r2.pods, NP * sizeof(*r.pods)), 0);
		for (size_t k = 0; k < r.nsamples; k++) {
			const struct replay_sample *a = &r.samples[k],
						   *b = &r2.samples[k];
			cr_assert(a->t == b->t && a->allocated == b->allocated &&
				  a->frag == b->frag && a->running == b->running &&
				  a->pending == b->pending &&
				  a->arrived == b->arrived, "sample %zu", k);
		}
		replay_result_release(&r2);
		replay_result_release(&r);
	}
	frag_dist_release(&d);
	frag_cluster_release(&c);
	registry_release(&reg);
	free(pods);
}

/* load_scale divides the arrival times and keeps the run times. */
Test(fill_replay, load_scale)
{
	struct score_pod pods[] = { fr_pod(0, 1, 500, 100, 130),
				   fr_pod(0, 1, 500, 300, 301) };
	struct frag_cluster c;
	struct frag_dist d;
	struct registry reg;
	struct replay_result r;
	struct sim_error err;
	registry_init(&reg);
	fr_cluster(&c, 1, 2);
	cr_assert_eq(frag_dist_build(&d, pods, 2), 0);
	frag_cluster_ready(&c, 0, &d);
	cr_assert_eq(replay_run(&c, pods, 2, fr_policy(&reg, "fgd"),
				 4, SIM_SEC, 1, &r, &err), 0);
	cr_assert_eq(r.pods[0].arrival, 25 * SIM_SEC);
	cr_assert_eq(r.pods[0].end, 55 * SIM_SEC);
	cr_assert_eq(r.pods[1].arrival, 75 * SIM_SEC);
	cr_assert_eq(r.pods[1].end, 76 * SIM_SEC);
	replay_result_release(&r);
	cr_assert_neq(replay_run(&c, pods, 2, fr_policy(&reg, "fgd"),
				 0, SIM_SEC, 1, &r, &err), 0);
	frag_dist_release(&d);
	frag_cluster_release(&c);
	registry_release(&reg);
}

/* The "mode" key and the keys of each mode. */
Test(fill_replay, experiment_mode_key)
{
	struct experiment e;
	struct sim_error err;
	cr_assert_eq(exp_parse("{\"fill\":{\"mode\":\"replay\",\"nodes\":"
			       "\"n.csv\",\"pods\":\"p.csv\",\"step\":60,"
			       "\"load_scale\":2.5},\"policies\":[\"fgd\"]}",
			       "d/x.json", &e, &err), 0, "%s", err.msg);
	cr_assert(e.fill.replay);
	cr_assert_eq(e.fill.step, 60 * SIM_SEC);
	cr_assert_float_eq(e.fill.load_scale, 2.5, 1e-12);
	exp_release(&e);
	cr_assert_eq(exp_parse("{\"fill\":{\"mode\":\"replay\",\"nodes\":"
			       "\"n\",\"pods\":\"p\"},\"policies\":[\"fgd\"]}",
			       "x.json", &e, &err), 0, "%s", err.msg);
	cr_assert_eq(e.fill.step, 3600 * SIM_SEC);
	cr_assert_float_eq(e.fill.load_scale, 1, 0);
	exp_release(&e);
	cr_assert_eq(exp_parse("{\"fill\":{\"nodes\":\"n\",\"pods\":\"p\"},"
			       "\"policies\":[\"fgd\"]}", "x.json", &e, &err),
		     0);
	cr_assert(!e.fill.replay);
	exp_release(&e);
	static const char *const bad[][2] = {
		{ "\"mode\":\"rerun\"", "x.json: $.fill.mode: " },
		{ "\"mode\":\"replay\",\"target\":1.3",
		  "x.json: $.fill.target: not used in replay mode" },
		{ "\"step\":60", "x.json: $.fill.step: only used in replay" },
		{ "\"load_scale\":2",
		  "x.json: $.fill.load_scale: only used in replay" },
		{ "\"mode\":\"replay\",\"step\":0", "x.json: $.fill.step: " },
		{ "\"mode\":\"replay\",\"load_scale\":-1",
		  "x.json: $.fill.load_scale: " },
		{ "\"mode\":\"replay\",\"load_scale\":1e12",
		  "x.json: $.fill.load_scale: must be at most 1e9" },
		{ "\"mode\":3", "x.json: $.fill.mode: " },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *text = xasprintf("{\"fill\":{\"nodes\":\"n\",\"pods\":"
				       "\"p\",%s},\"policies\":[\"fgd\"]}",
				       bad[i][0]);
		cr_assert_neq(exp_parse(text, "x.json", &e, &err), 0, "%s",
			      text);
		cr_assert(strstr(err.msg, bad[i][1]), "got '%s', want '%s'",
			  err.msg, bad[i][1]);
		free(text);
	}
}

static char *fr_write(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static int fr_run_file(const char *file, bool validate, const char *outdir,
		       struct sim_error *err)
{
	struct run_opts o = { .file = file, .quiet = true,
			      .validate_only = validate, .no_plots = true,
			      .outdir = outdir, .out = stdout,
			      .msg = stderr };
	return runner_run(&o, err);
}

/* A list without times (multigpu50's columns) cannot be replayed: exit
 * 2 with a message naming the list, on validate and on run; one pod
 * without a time is named.  A good list runs and writes its files. */
Test(fill_replay, list_without_times_refused, .init = cr_redirect_stdout)
{
	char dir[] = "/tmp/clustersim_replay_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	struct sim_error err;
	char *nodes = fr_write(dir, "nodes.csv", "sn,cpu_milli,memory_mib,gpu,"
			       "model\na,8000,1000,2,V100\n");
	char *nt = fr_write(dir, "multi.csv", "name,cpu_milli,memory_mib,"
			    "num_gpu,gpu_milli\np0,1000,10,1,500\n"
			    "p1,1000,10,2,1000\n");
	char *one = fr_write(dir, "one.csv", "name,cpu_milli,memory_mib,"
			     "num_gpu,gpu_milli,creation_time,deletion_time\n"
			     "p0,1000,10,1,500,0,5\np1,1000,10,1,500,,\n");
	char *good = fr_write(dir, "good.csv", "name,cpu_milli,memory_mib,"
			      "num_gpu,gpu_milli,creation_time,deletion_time\n"
			      "p0,1000,10,1,500,0,5\np1,1000,10,1,700,2,\n");
	char *e1 = fr_write(dir, "e1.json", "{\"fill\":{\"mode\":\"replay\","
			    "\"nodes\":\"nodes.csv\",\"pods\":[\"good.csv\","
			    "\"multi.csv\"]},\"policies\":[\"fgd\"]}");
	char *e2 = fr_write(dir, "e2.json", "{\"fill\":{\"mode\":\"replay\","
			    "\"nodes\":\"nodes.csv\",\"pods\":\"one.csv\"},"
			    "\"policies\":[\"fgd\"]}");
	char *e3 = fr_write(dir, "e3.json", "{\"fill\":{\"mode\":\"replay\","
			    "\"nodes\":\"nodes.csv\",\"pods\":\"good.csv\","
			    "\"step\":1},\"policies\":[\"bestfit\"]}");
	char *out = path_join(dir, "out");
	for (int v = 0; v <= 1; v++) {
		cr_assert_eq(fr_run_file(e1, v, out, &err), 2);
		char *want = xasprintf("%s: no pod has a creation_time", nt);
		cr_assert(strstr(err.msg, want), "got '%s'", err.msg);
		cr_assert(strstr(err.msg, "fill"), "%s", err.msg);
		free(want);
	}
	cr_assert_eq(access(out, F_OK), -1, "nothing written");
	cr_assert_eq(fr_run_file(e2, false, out, &err), 2);
	cr_assert(strstr(err.msg, ": pod 1 (0-based position in the list) "
			 "has no creation_time"), "%s", err.msg);
	cr_assert_eq(fr_run_file(e3, false, out, &err), 0, "%s", err.msg);
	/* p0 on GPU 0 (bestfit: both idle, lowest), p1 (0.7) cannot share
	 * it (0.5 free) -> GPU 1; p0 leaves at 5, p1 never. */
	char *pods_csv = path_join(out, "bestfit-good-s1/pods.csv");
	char *text = NULL;
	size_t len;
	cr_assert_eq(exp_read_text(pods_csv, 0, &text, &len, NULL, NULL), 0);
	cr_assert_str_eq(text, "pod,cpu_milli,num_gpu,gpu_milli,created_s,"
			 "deleted_s,arrival_s,node,gpus,start_s,end_s,wait_s\n"
			 "0,1000,1,500,0,5,0,0,0,0,5,0\n"
			 "1,1000,1,700,2,,2,0,1,2,,0\n");
	free(text);
	char *tl = path_join(out, "bestfit-good-s1/timeline.csv");
	cr_assert_eq(exp_read_text(tl, 0, &text, &len, NULL, NULL), 0);
	/* Samples at 0..2 s: to the last arrival, as nothing waits after
	 * it (the drain, p0 leaving at 5, is not sampled); 2 GPUs. */
	static const char head[] = "time_s,arrived,running,pending,"
		"allocated_gpus,alloc_ratio,frag_gpus,frag_ratio\n"
		"0,1,1,0,0.5,0.25,";
	cr_assert(strncmp(text, head, strlen(head)) == 0, "%s", text);
	const char *last = strstr(text, "\n2,2,2,0,1.2,0.6,");
	cr_assert(last, "%s", text);
	const char *nl = strchr(last + 1, '\n');
	cr_assert(nl && nl[1] == '\0', "a sample after 2 s: %s", text);
	free(text);
	char *man = path_join(out, "manifest.json");
	cr_assert_eq(exp_read_text(man, 0, &text, &len, NULL, NULL), 0);
	/* The lists, named from the experiment's folder. */
	cr_assert(strstr(text, "\"good.csv\"") &&
		  strstr(text, "\"nodes.csv\""), "%s", text);
	free(text);
	free(man);
	free(tl);
	free(pods_csv);
	free(out);
	free(e3);
	free(e2);
	free(e1);
	free(good);
	free(one);
	free(nt);
	free(nodes);
}

/*
 * The manifest of a fill or replay experiment hashes its node and pod
 * lists: SHA-256 of "" and of "abc" are the FIPS 180-2 test values; a
 * changed pod list changes the manifest.
 */
Test(fill_replay, manifest_hashes_lists)
{
	char dir[] = "/tmp/clustersim_manifest_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char *nodes = fr_write(dir, "n.csv", "");
	char *pods = fr_write(dir, "p.csv", "abc");
	char *ej = fr_write(dir, "e.json", "{\"fill\":{\"nodes\":\"n.csv\","
			    "\"pods\":\"p.csv\"},\"policies\":[\"fgd\"]}");
	struct experiment e;
	struct sim_error err;
	cr_assert_eq(exp_load(ej, &e, &err), 0, "%s", err.msg);
	char *m1 = out_manifest_text(&e, NULL, 0, &err);
	cr_assert_not_null(m1, "%s", err.msg);
	cr_assert(strstr(m1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934"
			 "ca495991b7852b855"), "%s", m1);
	cr_assert(strstr(m1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9"
			 "cb410ff61f20015ad"), "%s", m1);
	free(fr_write(dir, "p.csv", "abd"));
	char *m2 = out_manifest_text(&e, NULL, 0, &err);
	cr_assert_not_null(m2);
	cr_assert_str_neq(m1, m2);
	cr_assert_null(strstr(m2, "ba7816bf8f01cfea414140de5dae2223b00361a"));
	free(m2);
	free(m1);
	exp_release(&e);
	free(ej);
	free(pods);
	free(nodes);
}

/*
 * The real default list under every plugin at the trace's own times:
 * every pod has a time, none waits (the cluster is lightly loaded: the
 * trace's mean GPU demand is 0.23% of its 6,212 GPUs, sum of num_gpu x
 * gpu_milli x (deletion - creation) / span / capacity by awk), and the
 * shares stay within one GPU.
 */
Test(fill_replay, openb_default_real)
{
	const char *tdir = getenv("CLUSTERSIM_TRACE_DIR");
	char *nodes = xasprintf("%s/gpu/openb/openb_node_list_gpu_node.csv",
				tdir ? tdir : "../shared/traces");
	char *podf = xasprintf("%s/gpu/openb/openb_pod_list_default.csv",
			       tdir ? tdir : "../shared/traces");
	if (access(nodes, R_OK) || access(podf, R_OK))
		cr_skip_test("gpu/openb lists not in $CLUSTERSIM_TRACE_DIR");
	struct sim_error err;
	struct frag_cluster c;
	struct score_pod *pods;
	struct frag_dist d;
	struct registry reg;
	size_t n;
	uint32_t nk;
	registry_init(&reg);
	frag_cluster_init(&c);
	cr_assert_eq(openb_load_nodes(nodes, NULL, NULL, &c, NULL, &err), 0);
	cr_assert_eq(openb_load_pods(podf, NULL, NULL, &c, &pods, &n, &nk,
				     NULL, &err), 0);
	cr_assert_eq(replay_check_pods(podf, pods, n, &err), 0);
	cr_assert_eq(frag_dist_build(&d, pods, n), 0);
	frag_cluster_ready(&c, nk, &d);
	static const char *const pols[] = { "random", "gpu_clustering",
					    "fgd" };
	for (size_t p = 0; p < ARRAY_SIZE(pols); p++) {
		struct replay_result r;
		cr_assert_eq(replay_run(&c, pods, n, fr_policy(&reg, pols[p]),
					 1, 3600 * SIM_SEC, 1, &r,
					&err), 0, "%s", err.msg);
		cr_assert_eq(r.placed, 8152);
		cr_assert_eq(r.waited, 0);
		cr_assert_eq(r.events, 2 * 8152);
		fr_check_shares(&c, pods, &r);
		replay_result_release(&r);
	}
	frag_dist_release(&d);
	free(pods);
	frag_cluster_release(&c);
	registry_release(&reg);
	free(podf);
	free(nodes);
}
