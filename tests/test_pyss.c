/*
 * clustersim against pyss (dinesh121991/pyss 44a2423), job by job, on
 * three traces of the Parallel Workloads Archive.  pyss's FCFS, EASY and
 * conservative schedulers were ported to Python 3 outside this repository
 * and run on each trace; clustersim, run with pyss's settings ("clean":
 * "pyss", "schedule_on": "event", "same_time": "submits_first", and for
 * conservative "compress_on": "end"), started every job at the second
 * pyss did (docs/validation.md, "pyss, job by job", says how).  No pyss
 * output is kept: each case asserts clustersim's mean wait, which equals
 * pyss's to 0.1 s, and the SHA-256 of clustersim's sorted "id start\n"
 * lines, the list that matched.  Skipped, saying so, where
 * $CLUSTERSIM_TRACE_DIR (default ../shared/traces) lacks the trace.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "policy/registry.h"
#include "testlib.h"
#include "workload/workload.h"

/* One recorded comparison: agreement (% of jobs with pyss's start),
 * mean wait (s) and the digest of the (id, start) list. */
struct pyss_case {
	const char *policy;
	double agree;
	double mean_wait;
	const char *sha256;
};

static const struct policy_ops *pyss_find(const char *name)
{
	for (size_t i = 0; policy_builtin[i]; i++)
		if (strcmp(policy_builtin[i]->name, name) == 0)
			return policy_builtin[i];
	cr_assert_fail("no policy %s", name);
	return NULL;
}

/* The digest of the jobs' "id start\n" lines (start in whole seconds),
 * by id. */
static int cmp_id(const void *a, const void *b)
{
	const struct job *x = *(const struct job *const *)a;
	const struct job *y = *(const struct job *const *)b;
	return (x->id > y->id) - (x->id < y->id);
}

static void pyss_digest(const struct sim *s, char *hex, double *mean_wait)
{
	size_t n;
	const struct job *j = sim_jobs(s, &n);
	const struct job **by = xcalloc(n, sizeof(*by));
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	double wait = 0;
	for (size_t i = 0; i < n; i++)
		by[i] = &j[i];
	qsort(by, n, sizeof(*by), cmp_id);
	sha256_init(&ctx);
	for (size_t i = 0; i < n; i++) {
		char line[64];
		cr_assert_eq(by[i]->start % SIM_SEC, 0);
		int k = snprintf(line, sizeof(line), "%lld %lld\n",
				 (long long)by[i]->id,
				 (long long)(by[i]->start / SIM_SEC));
		sha256_update(&ctx, (size_t)k, (const uint8_t *)line);
		wait += (double)(by[i]->start - by[i]->submit) / SIM_SEC;
	}
	sha256_digest(&ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	*mean_wait = wait / (double)n;
	free(by);
}

static void pyss_run(const char *name, uint32_t cpus,
		     const struct pyss_case *cases, size_t ncases)
{
	const char *dir = getenv("CLUSTERSIM_TRACE_DIR");
	char *path = xasprintf("%s/hpc/%s", dir ? dir : "../shared/traces",
			       name);
	if (access(path, R_OK) != 0) {
		free(path);
		cr_skip_test("%s absent from $CLUSTERSIM_TRACE_DIR", name);
	}
	struct trace_opts o;
	struct workload w;
	struct cluster_spec c;
	struct sim_error err;
	trace_opts_default(&o);
	o.clean = SWF_CLEAN_PYSS;
	cr_assert_eq(trace_load(path, &o, &w, &err), 0, "%s", err.msg);
	tl_cluster(&c, cpus, 1);
	for (size_t k = 0; k < ncases; k++) {
		const struct policy_ops *ops = pyss_find(cases[k].policy);
		struct param_value pv = {
			.key = (char *)"compress_on",
			.json_path = (char *)"$.compress_on",
			.type = PV_STRING, .str = (char *)"end",
		};
		bool cons = strcmp(cases[k].policy, "conservative") == 0;
		struct pval *params;
		size_t np;
		cr_assert_eq(policy_params_resolve(ops, &pv, cons, "", &params,
						   &np, &err), 0, "%s", err.msg);
		struct sim_config cfg = {
			.workload = &w, .cluster = &c, .policy = ops,
			.params = params, .nparams = np, .seed = 1,
			.schedule_each_event = true, .submits_first = true,
		};
		struct sim *s = sim_new(&cfg);
		cr_assert_eq(sim_run(s, &err), 0, "%s", err.msg);
		char hex[2 * SHA256_DIGEST_SIZE + 1];
		double mw;
		pyss_digest(s, hex, &mw);
		cr_expect(fabs(mw - cases[k].mean_wait) < 0.05,
			  "%s %s: mean wait %.2f s, pyss %.1f s", name,
			  cases[k].policy, mw, cases[k].mean_wait);
		cr_expect_str_eq(hex, cases[k].sha256, "%s %s: (id, start) "
				 "list %s", name, cases[k].policy, hex);
		cr_expect_eq(cases[k].agree, 100.0);
		cr_expect_eq(sim_counters(s)->promises_broken, 0);
		sim_free(s);
		free(params);
	}
	workload_release(&w);
	cluster_spec_release(&c);
	free(path);
}

Test(pyss, kth_sp2)
{
	static const struct pyss_case cases[] = {
		{ "fcfs", 100.0, 354156.6, "6656a0e65d8ea80a31f1f9dfc6a02cfd"
		  "a18158f1fc72e88a2f74d18aa1b922cb" },
		{ "easy", 100.0, 6899.1, "5b129f26da7ac0e79b921f4f04d39a5c"
		  "134e4248b0af5db7164c30c0c02db77d" },
		{ "conservative", 100.0, 7296.7, "78617665680fcaf9904c1c805a52"
		  "bffec59a2471f05f9eed3d82f8d9343d6def" },
	};
	pyss_run("KTH-SP2-1996-2.1-cln.swf.gz", 100, cases, 3);
}

Test(pyss, llnl_atlas)
{
	static const struct pyss_case cases[] = {
		{ "fcfs", 100.0, 18.5, "a1964d8a00cad6f5bf4dfe408bfac393"
		  "eb5b39ba7bd96ac53527959f6a9ba4e9" },
		{ "easy", 100.0, 10.1, "7b8dedef296c16e870762315a215090218"
		  "e47d6afe73fd510d2df480bebcd4d8" },
		{ "conservative", 100.0, 10.4, "11a112879a94049e0b38250e8dcb4f"
		  "fb2fc8f45755ee6f5a23c71571bcddb104" },
	};
	pyss_run("LLNL-Atlas-2006-2.1-cln.swf.gz", 9216, cases, 3);
}

Test(pyss, unilu_gaia)
{
	static const struct pyss_case cases[] = {
		{ "fcfs", 100.0, 448.0, "84f92c9bbe71322f2c6b83d7eb0e03ad1e"
		  "57ee4eb6832679c3a69645ca72face" },
		{ "easy", 100.0, 185.0, "2c2214b5a32e332080ea292073940c06b8"
		  "8cfe65b549d531f209f48f529b7a86" },
		{ "conservative", 100.0, 261.3, "e723159aaef3922518ed2543184a87"
		  "4ade220d09dde219420eaee3ef3dffe95b" },
	};
	pyss_run("UniLu-Gaia-2014-1.swf.gz", 2004, cases, 3);
}
