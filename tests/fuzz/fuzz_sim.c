/*
 * libFuzzer harness for the whole simulation: the event engine
 * (sim/engine/), the cluster and speed models under it and every built-in
 * policy over it.  The bytes are not a file format: they are decoded, a
 * few bits at a time, into a small case - a cluster of CPU or GPU nodes
 * (GPU types, racks and a fabric, virtual clusters), checkpoint and
 * restore costs, a workload of 1 to 40 jobs and one built-in policy with
 * values for each parameter it declares - built with the engine's own
 * structures (no JSON), so that every byte means something and a short
 * input is a whole case (reading past the end gives zeros).  The layout
 * is in tests/fuzz/README.md ("fuzz_sim").
 *
 * The case runs with the invariant checker on (a broken invariant aborts
 * in the engine), under a bound on events: a policy still going after
 * FS_MAX_EVENTS events (a preemption livelock, a wake-up storm) is no
 * longer called; the harness starts the queue's head instead, so the run
 * still ends.  Then the harness checks, independently of the engine:
 *   - the run ends (0), or the policy refused its parameters at start
 *     (a message saying so), or it ended with an error that names the
 *     policy; never "left jobs pending" (a built-in policy that never
 *     starts a job that fits), never a broken promise (conservative's
 *     reservations only move earlier);
 *   - every job finished (killed only when it was to be killed at its
 *     estimate) or was rejected, and rejected exactly when it can never
 *     fit the empty cluster; none starts before its submit or ends before
 *     its start; never preempted on a CPU cluster, it runs exactly its
 *     run time and waited exactly start - submit;
 *   - the counters agree with the records: rejections, preemptions,
 *     restarts (one per preemption and migration), the service held (CPU
 *     seconds on a CPU cluster, GPU seconds of the GPU jobs) against the
 *     areas the engine integrated; the timeline stays within the cluster;
 *   - no engine call of the (built-in) policy was refused;
 *   - the run is deterministic: a second run, with the checker off, gives
 *     the same digest of records and counters (so the checker changes
 *     nothing either).
 *
 * fuzz_sim_one() is linked into the Criterion binary, which replays
 * tests/fuzz/corpus/sim/ (tests/test_fuzz_corpus.c); the libFuzzer entry
 * point is compiled only with -DFUZZ_TARGET_SIM, as `make fuzz` does.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sim.h"
#include "fuzz.h"
#include "fuzzlib.h"
#include "policy/registry.h"
#include "speed/jobclass.h"
#include "base/util.h"

#define FS_MAX_GROUPS 4    /* node groups */
#define FS_MAX_JOBS 40     /* jobs of a case */
#define FS_MAX_PARAMS 16   /* parameters given values (the rest: defaults) */
#define FS_MAX_EVENTS 4000 /* then the policy is no longer called */
#define FS_SAMPLES 64      /* about this many timeline samples per run */

/* ---- reading the bytes ------------------------------------------------ */

/* The input, a byte at a time; past its end every byte is 0. */
struct fs_in {
	const uint8_t *p;
	size_t n, at;
};

static unsigned fs_byte(struct fs_in *in)
{
	return in->at < in->n ? in->p[in->at++] : 0;
}

/* ---- the case --------------------------------------------------------- */

struct fs_case {
	const struct policy_ops *ops;  /* the built-in policy */
	struct param_value given[FS_MAX_PARAMS]; /* values drawn for it */
	size_t ngiven;
	double pmax;                   /* largest number given, for the
	                                  timeline period */
	struct node_group groups[FS_MAX_GROUPS];
	struct cluster_spec cluster;
	bool gpus;                     /* GPU nodes were asked for */
	bool vcs;                      /* virtual clusters "a" and "b" */
	bool use_speed;                /* the speed model runs */
	struct speed_config speed;
	sim_time_t ckpt, restore, restore_gpu; /* preemption costs */
	double storage_Bps;
	uint64_t seed;
	struct job jobs[FS_MAX_JOBS];
	struct workload w;
	sim_time_t interval;           /* timeline period */
};

/* Seconds to the clock. */
#define FS_S(x) ((sim_time_t)((x) * (double)SIM_SEC))

static const char *const fs_types[] = { NULL, "k80", "p100", "v100" };
static char *fs_vc_names[] = { (char *)"a", (char *)"b" };

/* Byte: count 1 + bits 0-2, CPUs 1 + bits 3-7; GPU clusters only, a
 * second byte: GPUs (bits 0-2), type (bits 3-4), vc (bits 5-6). */
static void fs_group(struct fs_in *in, struct fs_case *c, size_t i)
{
	static const uint32_t gpus[] = { 0, 1, 2, 4, 8, 1, 3, 6 };
	struct node_group *g = &c->groups[i];
	unsigned b = fs_byte(in);
	g->name = (char *)"g";
	g->count = 1 + (b & 7);
	g->cpus = 1 + (b >> 3);
	if (c->cluster.exclusive)
		g->cpus = c->groups[0].cpus;
	if (!c->gpus)
		return;
	b = fs_byte(in);
	g->gpus = gpus[b & 7];
	if (g->gpus)
		g->gpu_type = (char *)fs_types[(b >> 3) & 3];
	if (g->gpus && c->vcs && ((b >> 5) & 3) && ((b >> 5) & 3) < 3)
		g->vc = fs_vc_names[((b >> 5) & 3) - 1];
}

/* Two bytes: NIC rate, latency and the leaves' uplinks; NVLink, the
 * reference GPU type and whether classes are drawn. */
static void fs_network(struct fs_in *in, struct fs_case *c, uint32_t nodes)
{
	static const double nic[] = { 100, 1, 10, 25, 50, 200, 400, 2.5 };
	static const double lat[] = { 0.5, 0, 5, 1000 };
	static const double over[] = { 1, 2, 4, 0.5 };
	static const double nvl[] = { 300, 50, 900, 10 };
	struct net_spec *n = &c->speed.net;
	unsigned b = fs_byte(in);
	net_spec_default(n);
	n->rack_nodes = c->cluster.rack_nodes ? c->cluster.rack_nodes : nodes;
	n->nic_gbps = nic[b & 7];
	n->latency_usec = lat[(b >> 3) & 3];
	if (b & 0x80) {
		n->oversubscription = 0;
		n->uplinks = 1 + ((b >> 5) & 3);
		n->uplink_gbps = nic[(b >> 2) & 7];
	} else {
		n->uplinks = 0;
		n->uplink_gbps = 0;
		n->oversubscription = over[(b >> 5) & 3];
	}
	b = fs_byte(in);
	n->nvlink_gBps = nvl[b & 3];
	c->speed.ref_gpu = (int)((b >> 2) & 3) % JOBCLASS_NGPU;
	c->speed.draw_classes = b & 0x10;
}

/* Two bytes: checkpoint interval, restore overhead, its part per GPU;
 * the storage rate of model state. */
static void fs_costs(struct fs_in *in, struct fs_case *c)
{
	static const double ckpt[] = { 0, 0, 1, 10, 60, 300, 600, 3600 };
	static const double rest[] = { 0, 0, 1, 10, 30, 120, 600, 3600 };
	static const double per_gpu[] = { 0, 1, 5, 30 };
	static const double gbps[] = { 0, 0, 0.01, 0.1, 1, 10, 100, 1000 };
	unsigned b = fs_byte(in);
	c->ckpt = FS_S(ckpt[b & 7]);
	c->restore = FS_S(rest[(b >> 3) & 7]);
	c->restore_gpu = FS_S(per_gpu[b >> 6]);
	c->storage_Bps = gbps[fs_byte(in) & 7] * 1e9;
}

/* The cluster: a byte of shape, the groups, the racks, the fabric and
 * the preemption costs.  Returns false when the spec is refused (the
 * case is skipped). */
static bool fs_cluster(struct fs_in *in, struct fs_case *c)
{
	struct sim_error err;
	unsigned b = fs_byte(in);
	uint32_t nodes = 0;
	uint64_t gpus = 0;
	c->gpus = b & 1;
	c->cluster.exclusive = b & 2;
	c->cluster.ngroups = 1 + ((b >> 2) & 3);
	c->cluster.groups = c->groups;
	c->vcs = b & 0x20;
	for (size_t i = 0; i < c->cluster.ngroups; i++) {
		fs_group(in, c, i);
		nodes += c->groups[i].count;
		gpus += (uint64_t)c->groups[i].count * c->groups[i].gpus;
	}
	c->cluster.rack_nodes = fs_byte(in) % 5;
	if (gpus && (b & 0x10)) {
		c->use_speed = true;
		fs_network(in, c, nodes);
	}
	if (b & 0x40)
		fs_costs(in, c);
	if (cluster_spec_check(&c->cluster, "", &err) != 0)
		return false;
	if (c->use_speed && (speed_check(&c->cluster, NULL, NULL, 0, false, "", &err) != 0 ||
			     net_spec_check(&c->speed.net, "", &err) != 0))
		return false;
	return true;
}

/* ---- policy parameters ------------------------------------------------ */

/* Candidate values, by parameter name first (the costly ones kept small
 * so that a case runs in milliseconds, the strings the policies know),
 * then by type. */
struct fs_values {
	const char *name;  /* NULL: any parameter of the type */
	enum policy_param_type type;
	bool always;       /* a candidate even for byte 0: the default
	                      costs too much (a budget of the plans) */
	const double *num; /* numbers, or */
	const char *const *str; /* strings */
	size_t n;
};

#define FS_NUMS_(nm, t, a, ...)                                              \
	{ nm, t, a, (const double[]){ __VA_ARGS__ }, NULL,                    \
	  sizeof((const double[]){ __VA_ARGS__ }) / sizeof(double) }
#define FS_NUMS(nm, t, ...) FS_NUMS_(nm, t, false, __VA_ARGS__)
#define FS_COST(nm, t, ...) FS_NUMS_(nm, t, true, __VA_ARGS__)
#define FS_STRS(nm, ...)                                                     \
	{ nm, PARAM_STRING, false, NULL,                                      \
	  (const char *const[]){ __VA_ARGS__ },                               \
	  sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *) }

static const struct fs_values fs_values[] = {
	/* ga, sa, ilp: a plan per call, so small budgets; one thread. */
	FS_COST("evals", PARAM_INT, 20, 1, 5, 100, 0),
	FS_NUMS("population", PARAM_INT, 4, 5, 8, 16, 3),
	FS_NUMS("chains", PARAM_INT, 1, 2, 4, 0),
	FS_NUMS("threads", PARAM_INT, 1, 1, -1, 5000),
	FS_COST("exact_max", PARAM_INT, 6, 0, 1, 2, 24, 120, -1),
	FS_NUMS("window", PARAM_INT, 1, 2, 3, 4, 8, 16, 1000, 0, -1),
	/* CBC: a node limit always, so that no time limit is reached (a
	 * plan cut by time is not reproducible). */
	FS_COST("time_limit_s", PARAM_DOUBLE, 30, 0, -1),
	FS_COST("max_vars", PARAM_INT, 20, 1, 10, 50, 0),
	FS_COST("max_nodes", PARAM_INT, 5, 1, 50, -1),
	FS_COST("slots", PARAM_INT, 4, 2, 3, 8, 16, 1),
	FS_NUMS("points", PARAM_INT, 1, 2, 8, 32, 0, -1),
	FS_STRS("placement", "first_fit", "best_fit", "consolidate", "spread",
		"random", "topology", "shape_blind", "nowhere"),
	FS_STRS("by", "user", "group", "nobody"),
	FS_STRS("backfill_order", "queue", "sjf", "x"),
	FS_STRS("objective", "twct", "jct", "makespan", "x"),
	FS_STRS("thresholds_s", "3600", "1", "10,100", "100,10", "0", "",
		"1e6,1e7", "x", "-5", "1,1", "0.000001", "1e300"),
	FS_STRS("distribution_s", "", "10", "1,100,1000", "5,5,5", "0", "-1",
		"x", "1e300", "0.5,1e6"),
	/* Any other parameter, by type. */
	FS_NUMS(NULL, PARAM_INT, 0, 1, 2, 3, 4, 8, 16, 32, 100, 1000, -1,
		100000, 1e9),
	FS_NUMS(NULL, PARAM_DOUBLE, 0, 1e-6, 0.001, 0.5, 1, 2, 10, 30, 60,
		100, 360, 600, 3600, 86400, 1e6, -1, 0.8, 0.99, 1e18, 1e300),
	FS_NUMS(NULL, PARAM_BOOL, 0, 1),
	FS_STRS(NULL, "", "1", "x", "1,2"),
};

static const struct fs_values *fs_values_for(const struct pval *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(fs_values); i++)
		if (fs_values[i].type == p->type &&
		    (!fs_values[i].name || !strcmp(fs_values[i].name, p->name)))
			return &fs_values[i];
	return NULL;
}

/* A byte per parameter the policy takes (its own, then the engine's
 * "placement"): 0 keeps the default, k > 0 gives candidate k - 1; a
 * costly one always gets candidate k. */
static void fs_params(struct fs_in *in, struct fs_case *c,
		      const struct pval *decl, size_t ndecl)
{
	for (size_t i = 0; i < ndecl && c->ngiven < FS_MAX_PARAMS; i++) {
		const struct fs_values *v = fs_values_for(&decl[i]);
		unsigned b = fs_byte(in);
		if (!v || (!b && !v->always))
			continue;
		size_t k = (v->always ? b : b - 1) % v->n;
		struct param_value *g = &c->given[c->ngiven++];
		g->key = (char *)decl[i].name;
		g->json_path = (char *)"$.policies[0].params";
		if (v->str) {
			g->type = PV_STRING;
			g->str = (char *)v->str[k];
		} else if (decl[i].type == PARAM_BOOL) {
			g->type = PV_BOOL;
			g->b = v->num[k] != 0;
		} else {
			g->type = PV_NUMBER;
			g->num = v->num[k];
			if (fabs(g->num) > c->pmax)
				c->pmax = fabs(g->num);
		}
	}
}

/* ---- the workload ----------------------------------------------------- */

/* Seven bytes a job: gap to the previous submit, size, CPUs of a GPU
 * job, run, estimate, class, user / group / GPU type. */
static void fs_job(struct fs_in *in, struct fs_case *c, struct job *j,
		   sim_time_t *t, unsigned ntypes)
{
	static const double gap[] = { 0, 0, 0, 1e-6, 1, 2, 5, 10, 30, 60,
				      300, 600, 1800, 3600, 36000, 86400 };
	static const double run[] = { 1, 1, 2, 5, 10, 30, 60, 100, 300, 600,
				      1000, 1800, 3600, 7200, 10000, 36000,
				      86400, 0.5, 1e-3, 1e-6, 3, 7, 15, 45,
				      120, 240, 500, 900, 1500, 2400, 5000,
				      20000 };
	static const double ratio[] = { 0, 0.25, 0.5, 0.9, 1, 1, 1, 1.01,
					1.2, 1.5, 2, 3, 4, 10, 100, 1000 };
	static const uint32_t pow2[] = { 1, 2, 4, 8 };
	uint64_t cpus = 0, gpus = 0;
	for (size_t g = 0; g < c->cluster.ngroups; g++) {
		cpus += (uint64_t)c->groups[g].count * c->groups[g].cpus;
		gpus += (uint64_t)c->groups[g].count * c->groups[g].gpus;
	}
	unsigned b = fs_byte(in);
	*t += FS_S(gap[b & 15]) + (sim_time_t)(b >> 4) * (SIM_SEC / 16);
	j->submit = *t;
	b = fs_byte(in);
	unsigned aux = fs_byte(in);
	if (!gpus || (b & 0x80)) {
		/* CPUs: 1 up to a quarter more than the cluster has. */
		j->cpus = 1 + (uint32_t)((b & 0x7f) * (cpus + cpus / 4 + 1) /
					 128);
	} else {
		j->gpus = (b & 0x40) ? pow2[b & 3]
				     : 1 + (uint32_t)((b & 0x3f) *
						      (gpus + gpus / 4 + 1) / 64);
		j->cpus = aux & 7;
	}
	b = fs_byte(in);
	j->run = FS_S(run[b & 31]) + (sim_time_t)(b >> 5) * 137;
	b = fs_byte(in);
	j->estimate = j->run;
	if (ratio[b & 15] > 0) {
		double e = (double)j->run * ratio[b & 15];
		j->estimate = e < 1 ? 1 : (sim_time_t)e;
		j->flags |= JOB_HAS_ESTIMATE;
		c->w.has_estimates = true;
		unsigned mode = (b >> 4) & 3; /* clip, kill, allow, allow */
		if (j->estimate < j->run && mode < 2)
			j->run = j->estimate;
		if (j->estimate == j->run && mode == 1)
			j->flags |= JOB_KILL_AT_ESTIMATE;
	}
	b = fs_byte(in);
	if (j->gpus)
		j->job_class = (uint16_t)(b % jobclass_count());
	b = fs_byte(in);
	j->user = (int32_t)(b & 7) - 1;
	j->group = ((b >> 3) & 3) < 3 ? (int32_t)((b >> 3) & 3) - 1 : -1;
	if (j->gpus)
		j->gpu_type = (uint16_t)((b >> 5) % (ntypes + 1));
}

/* The GPU types the cluster will number (its groups' distinct type
 * names, in group order). */
static unsigned fs_ntypes(const struct fs_case *c)
{
	unsigned n = 0;
	for (size_t g = 0; g < c->cluster.ngroups; g++) {
		bool seen = !c->groups[g].gpu_type;
		for (size_t h = 0; h < g && !seen; h++)
			seen = c->groups[h].gpu_type &&
			       !strcmp(c->groups[h].gpu_type,
				       c->groups[g].gpu_type);
		n += !seen;
	}
	return n;
}

/* A byte of job count, then the jobs (sorted by construction: submit
 * times only grow and ids follow).  False when the cluster's virtual
 * clusters cannot run them (the case is skipped). */
static bool fs_workload(struct fs_in *in, struct fs_case *c)
{
	struct sim_error err;
	size_t n = 1 + fs_byte(in) % FS_MAX_JOBS;
	unsigned ntypes = fs_ntypes(c);
	sim_time_t t = 0;
	workload_init(&c->w);
	c->w.jobs = c->jobs;
	c->w.n = n;
	if (c->vcs) {
		c->w.groups = fs_vc_names;
		c->w.ngroups = 2;
	}
	for (size_t i = 0; i < n; i++) {
		struct job *j = &c->jobs[i];
		memset(j, 0, sizeof(*j));
		j->id = (int64_t)i + 1;
		j->idx = (uint32_t)i;
		fs_job(in, c, j, &t, ntypes);
		j->start = j->end = SIM_TIME_NONE;
	}
	c->w.report.jobs = c->w.report.jobs_read = n;
	return cluster_spec_check_vcs(&c->cluster, "", c->jobs, n,
				      c->w.groups, c->w.ngroups, &err) == 0;
}

/* The timeline period: about FS_SAMPLES samples over the submits, the
 * work and any time a parameter gave, so that a long quiet stretch (a
 * slow job, a far wake-up) adds few samples. */
static void fs_interval(struct fs_case *c)
{
	double span = (double)c->jobs[c->w.n - 1].submit;
	for (size_t i = 0; i < c->w.n; i++)
		span += 4.0 * (double)(c->jobs[i].run > c->jobs[i].estimate
					       ? c->jobs[i].run
					       : c->jobs[i].estimate);
	double p = c->pmax < 1e12 ? c->pmax * SIM_SEC : 1e12 * SIM_SEC;
	span = span > p ? span : p;
	c->interval = (sim_time_t)(span / FS_SAMPLES);
	if (c->interval < SIM_SEC)
		c->interval = SIM_SEC;
}

/* ---- the run ---------------------------------------------------------- */

/*
 * The policy under the event bound: a copy of its table whose schedule()
 * calls the policy's until the run has applied FS_MAX_EVENTS events, and
 * from then on only starts the queue's head, so that a livelock ends.
 * Static, as the engine hands schedule() the policy's state only; a
 * harness runs one simulation at a time.
 */
static const struct policy_ops *fs_inner;
static bool fs_bounded;

static void fs_schedule(struct sim *sim, void *state)
{
	if (!fs_bounded && sim_counters(sim)->events > FS_MAX_EVENTS)
		fs_bounded = true;
	if (fs_bounded)
		sim_start_head(sim);
	else
		fs_inner->schedule(sim, state);
}

struct fs_result {
	int rc;               /* sim_run's */
	struct sim_error err; /* its message */
	bool bounded;         /* the event bound was reached */
	uint64_t digest;      /* of the records, counters and timeline */
};

/* FNV-1a over n bytes. */
static void fs_mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

/* The records are copies of the case's zeroed ones and the counters
 * are in a zeroed block, so their padding is the same in every run. */
static uint64_t fs_digest(const struct sim *s, int rc)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t n, ns;
	const struct job *j = sim_jobs(s, &n);
	const struct sample *x = sim_samples(s, &ns);
	fs_mix(&h, &rc, sizeof(rc));
	fs_mix(&h, j, n * sizeof(*j));
	fs_mix(&h, sim_counters(s), sizeof(struct run_counters));
	fs_mix(&h, &ns, sizeof(ns));
	for (size_t i = 0; i < ns; i++) {
		fs_mix(&h, &x[i].t, sizeof(x[i].t));
		fs_mix(&h, &x[i].busy_cpus, sizeof(x[i].busy_cpus));
		fs_mix(&h, &x[i].busy_gpus, sizeof(x[i].busy_gpus));
		fs_mix(&h, &x[i].util_avg, sizeof(x[i].util_avg));
		fs_mix(&h, &x[i].queued, sizeof(x[i].queued));
	}
	return h;
}

static struct sim *fs_run(const struct fs_case *c, const struct pval *pv,
			  size_t np, bool check, struct fs_result *r)
{
	static struct policy_ops proxy;
	proxy = *c->ops;
	proxy.schedule = fs_schedule;
	fs_inner = c->ops;
	fs_bounded = false;
	struct sim_config cfg = {
		.workload = &c->w,
		.cluster = &c->cluster,
		.policy = &proxy,
		.params = pv,
		.nparams = np,
		.seed = c->seed,
		.sample_interval = c->interval,
		.check = check,
		.speed = c->use_speed ? &c->speed : NULL,
		.checkpoint_interval = c->ckpt,
		.restore_overhead = c->restore,
		.restore_per_gpu = c->restore_gpu,
		.storage_Bps = c->storage_Bps,
	};
	struct sim *s = sim_new(&cfg);
	memset(&r->err, 0, sizeof(r->err));
	r->rc = sim_run(s, &r->err);
	r->bounded = fs_bounded;
	r->digest = fs_digest(s, r->rc);
	return s;
}

/* ---- the checks ------------------------------------------------------- */

static bool fs_close(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (1 + fabs(a) + fabs(b));
}

/* One job's record, against the case's. */
static void fs_check_job(const struct job *x, const struct job *in,
			 const struct cluster *cl)
{
	FUZZ_CHECK(x->id == in->id && x->submit == in->submit &&
		   x->run == in->run && x->estimate == in->estimate &&
		   x->cpus == in->cpus && x->gpus == in->gpus);
	if (x->state == JOB_REJECTED) {
		FUZZ_CHECK(!cluster_can_ever_fit(cl, x));
		FUZZ_CHECK(x->start == SIM_TIME_NONE &&
			   x->end == SIM_TIME_NONE && x->attained == 0);
		return;
	}
	FUZZ_CHECK(cluster_can_ever_fit(cl, x));
	FUZZ_CHECK(x->state == ((x->flags & JOB_KILL_AT_ESTIMATE)
					? JOB_KILLED : JOB_FINISHED));
	FUZZ_CHECK(x->start != SIM_TIME_NONE && x->start >= x->submit);
	FUZZ_CHECK(x->end != SIM_TIME_NONE && x->end >= x->start);
	FUZZ_CHECK(isfinite(x->attained) && x->attained >= 0);
	FUZZ_CHECK(x->queued >= x->start - x->submit &&
		   x->queued <= x->end - x->submit);
	FUZZ_CHECK(x->restarts >= x->preemptions);
	/* On CPUs every job runs at reference speed: never stopped, it
	 * takes its run time and waited once. */
	if (!cluster_total_gpus(cl) && !x->preemptions) {
		FUZZ_CHECK(x->end - x->start == x->run);
		FUZZ_CHECK(x->queued == x->start - x->submit);
	}
}

/* Every job ended or was rejected; the counters add up. */
static void fs_check_run(const struct fs_case *c, const struct sim *s)
{
	size_t n, ns;
	const struct job *j = sim_jobs(s, &n);
	const struct sample *x = sim_samples(s, &ns);
	const struct cluster *cl = sim_cluster(s);
	const struct run_counters *k = sim_counters(s);
	uint64_t rejected = 0, preempt = 0, restarts = 0;
	double cpu_s = 0, gpu_s = 0;
	FUZZ_CHECK(n == c->w.n);
	for (size_t i = 0; i < n; i++) {
		fs_check_job(&j[i], &c->jobs[i], cl);
		rejected += j[i].state == JOB_REJECTED;
		preempt += j[i].preemptions;
		restarts += j[i].restarts;
		if (j[i].gpus)
			gpu_s += j[i].attained;
		else
			cpu_s += j[i].attained;
	}
	FUZZ_CHECK(rejected == k->rejected);
	FUZZ_CHECK(preempt == k->preemptions);
	FUZZ_CHECK(restarts == k->preemptions + k->migrations);
	if (!cluster_total_gpus(cl) && !cluster_exclusive(cl))
		FUZZ_CHECK(fs_close(cpu_s, k->busy_area));
	FUZZ_CHECK(fs_close(gpu_s, k->gpu_busy_area));
	FUZZ_CHECK(ns >= 1);
	for (size_t i = 0; i < ns; i++) {
		FUZZ_CHECK(i == 0 || x[i].t >= x[i - 1].t);
		FUZZ_CHECK(x[i].busy_cpus <= cluster_total_cpus(cl));
		FUZZ_CHECK(x[i].busy_gpus <= cluster_total_gpus(cl));
		FUZZ_CHECK((size_t)x[i].running + x[i].queued <= n);
	}
}

/* Two runs of the case, the first checked. */
static void fs_simulate(const struct fs_case *c, const struct pval *pv,
			size_t np)
{
	struct fs_result a, b;
	struct sim *s = fs_run(c, pv, np, true, &a);
	const struct run_counters *k = sim_counters(s);
	if (a.rc == -SIM_EINPUT) {
		/* The placement or init() refused a value: said so, and
		 * nothing ran. */
		FUZZ_CHECK(a.err.msg[0] != '\0');
		FUZZ_CHECK(k->events == 0);
		sim_free(s);
		return;
	}
	if (a.rc == 0) {
		fs_check_run(c, s);
	} else {
		/* An error that names the policy (a stuck run), never one
		 * that leaves jobs pending for good. */
		FUZZ_CHECK(a.err.msg[0] && strstr(a.err.msg, c->ops->name));
		FUZZ_CHECK(!strstr(a.err.msg, "pending with nothing running"));
		FUZZ_CHECK(!strstr(a.err.msg, "broke a promise"));
	}
	FUZZ_CHECK(k->promises_broken == 0);
	if (getenv("FUZZ_SIM_PRINT"))
		fprintf(stderr, "run: rc %d%s%s, %llu events, %llu rejected, "
			"%llu preemptions, %llu migrations, %llu shared\n",
			a.rc, a.rc ? ": " : "", a.err.msg,
			(unsigned long long)k->events,
			(unsigned long long)k->rejected,
			(unsigned long long)k->preemptions,
			(unsigned long long)k->migrations,
			(unsigned long long)k->shared_starts);
	if (k->bad_calls)
		fprintf(stderr, "fuzz_sim: %s: %llu refused calls, the first: "
			"%s\n", c->ops->name, (unsigned long long)k->bad_calls,
			sim_bad_call_first(s) ? sim_bad_call_first(s) : "?");
	FUZZ_CHECK(k->bad_calls == 0);
	sim_free(s);
	sim_free(fs_run(c, pv, np, false, &b));
	FUZZ_CHECK(a.rc == b.rc && a.bounded == b.bounded);
	FUZZ_CHECK(a.digest == b.digest);
}

/* With FUZZ_SIM_PRINT set: the decoded case, to read a finding. */
static void fs_print(const struct fs_case *c)
{
	fprintf(stderr, "policy %s, seed %llu, interval %.0f s\n",
		c->ops->name, (unsigned long long)c->seed,
		(double)c->interval / SIM_SEC);
	for (size_t i = 0; i < c->ngiven; i++) {
		const struct param_value *g = &c->given[i];
		if (g->type == PV_STRING)
			fprintf(stderr, "  %s = \"%s\"\n", g->key, g->str);
		else if (g->type == PV_BOOL)
			fprintf(stderr, "  %s = %s\n", g->key,
				g->b ? "true" : "false");
		else
			fprintf(stderr, "  %s = %g\n", g->key, g->num);
	}
	fprintf(stderr, "cluster: exclusive %d, rack_nodes %u, speed %d\n",
		c->cluster.exclusive, c->cluster.rack_nodes, c->use_speed);
	for (size_t g = 0; g < c->cluster.ngroups; g++)
		fprintf(stderr, "  %u x (%u CPUs, %u GPUs %s, vc %s)\n",
			c->groups[g].count, c->groups[g].cpus,
			c->groups[g].gpus,
			c->groups[g].gpu_type ? c->groups[g].gpu_type : "-",
			c->groups[g].vc ? c->groups[g].vc : "-");
	if (c->use_speed)
		fprintf(stderr, "  net: nic %g, latency %g, uplinks %u x %g, "
			"over %g, nvlink %g, ref %d, draw %d\n",
			c->speed.net.nic_gbps, c->speed.net.latency_usec,
			c->speed.net.uplinks, c->speed.net.uplink_gbps,
			c->speed.net.oversubscription, c->speed.net.nvlink_gBps,
			c->speed.ref_gpu, c->speed.draw_classes);
	fprintf(stderr, "  checkpoint %g s, restore %g s + %g s/GPU, "
		"storage %g B/s\n", (double)c->ckpt / SIM_SEC,
		(double)c->restore / SIM_SEC, (double)c->restore_gpu / SIM_SEC,
		c->storage_Bps);
	for (size_t i = 0; i < c->w.n; i++) {
		const struct job *j = &c->jobs[i];
		fprintf(stderr, "  job %lld: submit %.6f run %.6f est %.6f "
			"cpus %u gpus %u class %u type %u user %d group %d "
			"flags %u\n", (long long)j->id,
			(double)j->submit / SIM_SEC, (double)j->run / SIM_SEC,
			(double)j->estimate / SIM_SEC, j->cpus, j->gpus,
			j->job_class, j->gpu_type, j->user, j->group, j->flags);
	}
}

int fuzz_sim_one(const uint8_t *data, size_t size)
{
	struct fs_in in = { data, size, 0 };
	struct fs_case *c = xcalloc(1, sizeof(*c));
	struct pval *decl = NULL, *pv = NULL;
	size_t ndecl = 0, np = 0, npol = 0;
	struct sim_error err;
	while (policy_builtin[npol])
		npol++;
	c->ops = policy_builtin[fs_byte(&in) % npol];
	c->seed = fs_byte(&in);
	if (!fs_cluster(&in, c))
		goto out;
	if (!fs_workload(&in, c))
		goto out;
	/* Parameters last, so that a parameter added to a policy moves no
	 * other byte of its corpus. */
	FUZZ_CHECK(policy_params_resolve(c->ops, NULL, 0, "", &decl, &ndecl,
					 &err) == 0);
	fs_params(&in, c, decl, ndecl);
	fs_interval(c);
	if (getenv("FUZZ_SIM_PRINT"))
		fs_print(c);
	if (policy_params_resolve(c->ops, c->given, c->ngiven, "", &pv, &np,
				  &err) != 0) {
		FUZZ_CHECK(err.msg[0] != '\0');
		goto out;
	}
	fs_simulate(c, pv, np);
out:
	free(decl);
	free(pv);
	free(c);
	return 0;
}

#ifdef FUZZ_TARGET_SIM
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_sim_one(data, size);
}
#endif
