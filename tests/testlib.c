/* Test helpers; see testlib.h. */
#include "testlib.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "speed/jobclass.h"
#include "policy/registry.h"
#include "base/util.h"

static int by_submit(const void *pa, const void *pb)
{
	const struct job *a = pa, *b = pb;
	if (a->submit != b->submit)
		return a->submit < b->submit ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static void finish(struct workload *w)
{
	qsort(w->jobs, w->n, sizeof(*w->jobs), by_submit);
	for (size_t i = 0; i < w->n; i++)
		w->jobs[i].idx = (uint32_t)i;
	w->max_procs = w->max_nodes = -1;
	w->report.jobs = w->n;
}

void tl_workload(struct workload *w, const struct tjob *t, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->jobs = xcalloc(n, sizeof(*w->jobs));
	w->n = n;
	for (size_t i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		j->id = t[i].id;
		j->submit = (sim_time_t)(t[i].submit * SIM_SEC);
		j->run = (sim_time_t)(t[i].run * SIM_SEC);
		if (t[i].estimate >= 0) {
			j->estimate = (sim_time_t)(t[i].estimate * SIM_SEC);
			j->flags |= JOB_HAS_ESTIMATE;
		} else {
			j->estimate = j->run;
		}
		j->cpus = t[i].cpus;
		j->user = j->group = -1;
	}
	finish(w);
}

void tl_random_workload(struct workload *w, size_t n, uint32_t max_cpus,
			uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->jobs = xcalloc(n, sizeof(*w->jobs));
	w->n = n;
	uint64_t x = seed * 2862933555777941757ull + 3037000493ull;
	sim_time_t t = 0;
	for (size_t i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t r = (uint32_t)(x >> 33);
		t += (sim_time_t)(r % 50) * SIM_SEC;  /* bursts at equal times */
		j->id = (int64_t)i + 1;
		j->submit = t;
		j->run = (sim_time_t)(1 + (r >> 8) % 400) * SIM_SEC;
		/* Estimates 1x-4x the run; every 7th job runs past it. */
		j->estimate = j->run * (1 + (r >> 4) % 4);
		if (i % 7 == 3)
			j->estimate = j->run / 2;
		if (i % 11 == 5)
			j->run = 0; /* zero-length jobs */
		j->flags = JOB_HAS_ESTIMATE;
		j->cpus = 1 + (r >> 16) % max_cpus;
		j->user = (int32_t)(r % 5);
		j->group = -1;
	}
	finish(w);
}

void tl_cluster(struct cluster_spec *c, uint32_t nodes, uint32_t cpus)
{
	memset(c, 0, sizeof(*c));
	c->groups = xcalloc(1, sizeof(*c->groups));
	c->groups[0] = (struct node_group){ .name = xstrdup("test"),
					    .count = nodes, .cpus = cpus };
	c->ngroups = 1;
}

static struct sim *run_ops(const struct policy_ops *ops,
			   const struct param_value *given, size_t ngiven,
			   const struct workload *w,
			   const struct cluster_spec *c, bool check,
			   const struct speed_config *speed)
{
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(ops, given, ngiven, "", &params,
					   &np, &err), 0, "%s", err.msg);
	cr_assert_eq(policy_params_load_files(params, np, NULL, given, ngiven,
					      "", &err), 0, "%s", err.msg);
	struct sim_config cfg = {
		.workload = w, .cluster = c, .policy = ops,
		.params = params, .nparams = np, .seed = 1, .check = check,
		.speed = speed,
	};
	struct sim *s = sim_new(&cfg);
	int rc = sim_run(s, &err);
	policy_params_free(params, np);
	cr_assert_eq(rc, 0, "%s: %s", ops->name, err.msg);
	return s;
}

struct sim *tl_run_ops(const struct policy_ops *ops, const struct workload *w,
		       const struct cluster_spec *c)
{
	return run_ops(ops, NULL, 0, w, c, true, NULL);
}

struct sim *tl_run_with(const struct policy_ops *ops,
			const struct param_value *given, size_t ngiven,
			const struct workload *w, const struct cluster_spec *c)
{
	return run_ops(ops, given, ngiven, w, c, true, NULL);
}

static const struct policy_ops *find(const char *policy);

struct sim *tl_run_speed(const char *policy, const char *placement,
			 const struct workload *w, const struct cluster_spec *c,
			 const struct speed_config *speed)
{
	struct param_value pv = {
		.key = (char *)"placement",
		.json_path = (char *)"$.policies[0].params.placement",
		.type = PV_STRING, .str = (char *)placement,
	};
	return run_ops(find(policy), &pv, 1, w, c, true, speed);
}

static const struct policy_ops *find(const char *policy)
{
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, policy) == 0)
			return policy_builtin[i];
	cr_assert_fail("no policy '%s'", policy);
	return NULL;
}

struct sim *tl_run_cfg(const char *policy, const struct param_value *given,
		       size_t ngiven, const struct sim_config *base)
{
	const struct policy_ops *ops = find(policy);
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(ops, given, ngiven, "", &params,
					   &np, &err), 0, "%s", err.msg);
	cr_assert_eq(policy_params_load_files(params, np, NULL, given, ngiven,
					      "", &err), 0, "%s", err.msg);
	struct sim_config cfg = *base;
	cfg.policy = ops;
	cfg.params = params;
	cfg.nparams = np;
	cfg.seed = 1;
	cfg.check = true;
	struct sim *s = sim_new(&cfg);
	int rc = sim_run(s, &err);
	policy_params_free(params, np);
	cr_assert_eq(rc, 0, "%s: %s", policy, err.msg);
	return s;
}

struct sim *tl_run(const char *policy, const struct workload *w,
		   const struct cluster_spec *c)
{
	return run_ops(find(policy), NULL, 0, w, c, true, NULL);
}

struct sim *tl_run_unchecked(const char *policy, const struct workload *w,
			     const struct cluster_spec *c)
{
	return run_ops(find(policy), NULL, 0, w, c, false, NULL);
}

double tl_start(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *jobs = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].id == id)
			return jobs[i].start == SIM_TIME_NONE
				       ? -1
				       : (double)jobs[i].start / SIM_SEC;
	cr_assert_fail("no job %lld", (long long)id);
	return -1;
}

void tl_gpu_cluster(struct cluster_spec *c, uint32_t nodes, uint32_t gpus,
		    const char *type, uint32_t rack_nodes)
{
	tl_cluster(c, nodes, 8);
	c->groups[0].gpus = gpus;
	if (type)
		c->groups[0].gpu_type = xstrdup(type);
	c->rack_nodes = rack_nodes;
}

void tl_speed_config(struct speed_config *s)
{
	memset(s, 0, sizeof(*s));
	net_spec_default(&s->net);
	s->net.nic_gbps = 100;
	s->net.uplinks = 0;
	s->net.uplink_gbps = 0;
	s->net.oversubscription = 1;
	s->net.latency_usec = 0.5;
	s->net.nvlink_gBps = 300;
	s->ref_gpu = JOBCLASS_GPU_V100;
}

void tl_r50_jobs(struct workload *w, const struct tjob *t, size_t n,
		 const uint32_t *gpus)
{
	tl_workload(w, t, n);
	int cls = jobclass_lookup("ResNet-50 (batch size 64)");
	cr_assert_gt(cls, 0);
	for (size_t i = 0; i < n; i++) {
		struct job *j = &w->jobs[i];
		j->gpus = gpus[j->id - 1];
		j->cpus = 0;
		j->job_class = (uint16_t)cls;
	}
}

void tl_same_search(const struct search_result *a,
		    const struct search_result *b, uint32_t n)
{
	cr_assert_eq(a->score, b->score, "score %lld vs %lld",
		     (long long)a->score, (long long)b->score);
	cr_assert_eq(a->evals, b->evals);
	cr_assert_eq(memcmp(a->perm, b->perm, n * sizeof(*a->perm)), 0);
	cr_assert_eq(memcmp(a->genes, b->genes, n), 0);
	cr_assert_eq(a->ntrace, b->ntrace);
	for (size_t i = 0; i < a->ntrace; i++)
		cr_assert_eq(a->trace[i].best, b->trace[i].best);
}

void tl_cli_setup(char *bin, size_t nbin, char *tmp, size_t ntmp,
		  const char *name)
{
	const char *b = getenv("CLUSTERSIM_BIN");
	char cwd[256];
	cr_assert(getcwd(cwd, sizeof(cwd)));
	snprintf(bin, nbin, "%s/%s", cwd, b ? b : "build/clustersim");
	snprintf(tmp, ntmp, "/tmp/clustersim-%s-XXXXXX", name);
	cr_assert(mkdtemp(tmp));
}

void tl_cli_need_bin(const char *bin)
{
	if (access(bin, X_OK) != 0)
		cr_skip_test("%s is not built (run make test)", bin);
}

void tl_rmtree(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
}

void tl_put(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fputs(text, f);
	fclose(f);
	free(path);
}

char *tl_slurp(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, got;
	char *buf = xmalloc(cap);
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n + 1 == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
	}
	buf[n] = '\0';
	fclose(f);
	return buf;
}

int tl_sh(const char *dir, const char *fmt, ...)
{
	va_list ap;
	char cmd[4096];
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	char *full = xasprintf("cd '%s' && (%s) >out.txt 2>err.txt", dir, cmd);
	int st = system(full);
	free(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
