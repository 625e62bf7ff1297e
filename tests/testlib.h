/*
 * Test helpers: small workloads written as tables, and one call that runs
 * a policy on them.
 */
#ifndef CLUSTERSIM_TESTLIB_H
#define CLUSTERSIM_TESTLIB_H

#include "exp/exp.h"
#include "search/search.h"
#include "engine/sim.h"

/* A job as a test writes it: times in seconds. */
struct tjob {
	int64_t id;
	double submit, run, estimate; /* estimate < 0: none */
	uint32_t cpus;
};

/* Builds a workload (sorted, idx set) from a table.  Jobs whose estimate
 * is below the run time keep running past it (overrun "allow"). */
void tl_workload(struct workload *w, const struct tjob *t, size_t n);

/* Random workload: n jobs, sizes 1..max_cpus, fixed seed. */
void tl_random_workload(struct workload *w, size_t n, uint32_t max_cpus,
			uint64_t seed);

/* One group of nodes x cpus. */
void tl_cluster(struct cluster_spec *c, uint32_t nodes, uint32_t cpus);

/* Runs a policy (registry name or ops) with default parameters and the
 * invariant checker on; returns the finished sim (caller frees). */
struct sim *tl_run_ops(const struct policy_ops *ops, const struct workload *w,
		       const struct cluster_spec *c);
struct sim *tl_run(const char *policy, const struct workload *w,
		   const struct cluster_spec *c);
/* The same without the invariant checker, for large traces. */
struct sim *tl_run_unchecked(const char *policy, const struct workload *w,
			     const struct cluster_spec *c);

/* The same with parameters as an experiment file gives them. */
struct sim *tl_run_with(const struct policy_ops *ops,
			const struct param_value *given, size_t ngiven,
			const struct workload *w, const struct cluster_spec *c);

/* A policy with a placement strategy and a speed model. */
struct sim *tl_run_speed(const char *policy, const char *placement,
			 const struct workload *w, const struct cluster_spec *c,
			 const struct speed_config *speed);

/* The most general: a policy by name with parameters, on a config whose
 * workload, cluster and other settings the caller filled in (policy,
 * params, seed 1 and the checker are set here). */
struct sim *tl_run_cfg(const char *policy, const struct param_value *given,
		       size_t ngiven, const struct sim_config *base);

/* nodes x gpus nodes of one GPU type (untyped when type is NULL), 8 CPUs
 * each, racks of rack_nodes (0: one rack). */
void tl_gpu_cluster(struct cluster_spec *c, uint32_t nodes, uint32_t gpus,
		    const char *type, uint32_t rack_nodes);
/* The test fabric: 100 Gb/s NICs, non-blocking leaves, 0.5 us per link,
 * NVLink 300 GB/s; reference GPU V100. */
void tl_speed_config(struct speed_config *s);
/* ResNet-50 (batch size 64) jobs from a table, gpus[id - 1] GPUs each and
 * no CPUs. */
void tl_r50_jobs(struct workload *w, const struct tjob *t, size_t n,
		 const uint32_t *gpus);

/* Start time in seconds of the job with this id (-1 if it never ran). */
double tl_start(const struct sim *s, int64_t id);

/* Asserts that two searches of an n-job batch found the same: score,
 * evaluations, candidate, genes and convergence trace. */
void tl_same_search(const struct search_result *a,
		    const struct search_result *b, uint32_t n);

/* For the tests that run the built binary: its absolute path (the
 * CLUSTERSIM_BIN variable, else build/clustersim, from the current
 * folder) into bin, and a new folder /tmp/clustersim-NAME-XXXXXX into
 * tmp.  tl_cli_need_bin() skips the test, saying why, when the binary is
 * not built; tl_rmtree() removes a folder and all it holds. */
void tl_cli_setup(char *bin, size_t nbin, char *tmp, size_t ntmp,
		  const char *name);
void tl_cli_need_bin(const char *bin);
void tl_rmtree(const char *dir);
/* Files and commands in such a folder: tl_put() writes dir/name,
 * tl_slurp() returns its text (NULL when it cannot be read; the caller
 * frees), tl_sh() runs a shell command in dir with its output in out.txt
 * and err.txt there and returns its exit code (-1 when killed). */
void tl_put(const char *dir, const char *name, const char *text);
char *tl_slurp(const char *dir, const char *name);
int tl_sh(const char *dir, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
