/*
 * The experiment schema's names, shared by the loader (exp.c) and the
 * printer of the resolved configuration (exp_resolved.c), so that a value
 * is read and written back under one spelling (internal to exp*.c).
 */
#ifndef CLUSTERSIM_EXP_SCHEMA_H
#define CLUSTERSIM_EXP_SCHEMA_H

#include "exp/exp.h"

/* "procs" and "overrun" values, indexed by their enums (exp_names.c,
 * which checks their sizes; the formats' names are trace.c's). */
extern const char *const exp_procs_names[PROCS_REQUESTED + 1];
extern const char *const exp_overrun_names[OVERRUN_ALLOW + 1];

/* A distribution's name and its parameters, in the order of dist.p[]. */
struct exp_dist_desc {
	const char *name;      /* "dist" value */
	const char *params[5]; /* keys of p[0..np-1]; discrete: its arrays */
	size_t np;             /* parameters in p[] (discrete: none) */
};
extern const struct exp_dist_desc exp_dist_descs[DIST_NKINDS];

/* "throughputs": the overrides of the job-class tables (exp_throughputs.c);
 * c's path is the parent object's.  The printed form: exact class names,
 * canonical GPU type names. */
struct exp_ctx;
struct cJSON;
/* "cluster" (exp_cluster.c): an object, or a path to a JSON file holding
 * one (read with its own context: its messages name that file and start
 * at "$"); fills e's cluster and fabric. */
int exp_parse_cluster(struct exp_ctx *c, const struct cJSON *v,
		      struct experiment *e);
/* "cluster.tenants" (exp_tenants.c): departments and projects into s
 * (cluster/cluster.h, struct tenant_spec). */
struct cluster_spec;
int exp_parse_tenants(struct exp_ctx *c, const struct cJSON *v,
		      struct cluster_spec *s);
/* "cluster.partitions" and the root's "qos" (exp_slurm.c): Slurm-style
 * partitions and QOS into s (cluster/cluster.h, struct part_spec and
 * struct qos_spec). */
int exp_parse_partitions(struct exp_ctx *c, const struct cJSON *v,
			 struct cluster_spec *s);
int exp_parse_qos(struct exp_ctx *c, const struct cJSON *v,
		  struct cluster_spec *s);
/* Their rows of the resolved configuration, every field filled ("none"
 * for no limit) but a trace_id not given. */
struct cJSON *exp_partitions_json(const struct cluster_spec *s);
struct cJSON *exp_qos_json(const struct cluster_spec *s);
/* "workload" (exp_workload.c): a trace and its loader options, or a
 * generated workload; fills w. */
int exp_parse_workload(struct exp_ctx *c, const struct cJSON *v,
		       struct experiment *e);
/* A DIST at key (experiments/README.md), then dist_check(). */
int exp_parse_dist(struct exp_ctx *c, const char *key,
		   const struct cJSON *v, struct dist *d);
/* "large" of "generate" (exp_large.c): large-model jobs, their GPU type
 * resolved from e's cluster and their models checked against e's
 * "models" and the presets; l->on once parsed and checked.  Its
 * resolved JSON. */
int exp_parse_large(struct exp_ctx *c, const struct cJSON *v,
		    const struct experiment *e, struct gen_large *l);
struct cJSON *exp_large_json(const struct gen_large *l);
/* "searches" of "generate" (exp_hpo.c): fills h (h->on once parsed and
 * checked); its resolved JSON. */
struct hpo_spec;
int exp_parse_searches(struct exp_ctx *c, const struct cJSON *v,
		       struct hpo_spec *h);
struct cJSON *exp_searches_json(const struct hpo_spec *h);
/* "measure" (exp_measure.c): fills m; its resolved JSON (null when
 * absent). */
int exp_parse_measure(struct exp_ctx *c, const struct cJSON *v,
		      struct exp_measure *m);
struct cJSON *exp_measure_json(const struct exp_measure *m);
int exp_parse_throughputs(struct exp_ctx *c, const struct cJSON *v,
			  struct jobclass_overrides *o);
/* Root "models" (exp_models.c): large-model definitions into e->models;
 * exp_models_json() prints them back for the resolved configuration, and
 * exp_models_release() frees them. */
int exp_parse_models(struct exp_ctx *c, const struct cJSON *v,
		     struct experiment *e);
struct cJSON *exp_models_json(const struct experiment *e);
void exp_models_release(struct experiment *e);

/* "gpu_types" and "derive_throughputs" (exp_gputypes.c): the experiment's
 * own GPU types and the rule for unmeasured figures, into o (before
 * "throughputs", whose keys may name the types); the printed form of
 * the types (every figure). */
int exp_parse_gpu_types(struct exp_ctx *c, const struct cJSON *v,
			struct jobclass_overrides *o);
int exp_parse_derive(struct exp_ctx *c, const struct cJSON *v,
		     struct jobclass_overrides *o);
struct cJSON *exp_gpu_types_json(const struct jobclass_overrides *o);
struct cJSON *exp_throughputs_json(const struct jobclass_overrides *o);

/* The configuration with every key in schema order and every default
 * filled in, as indented JSON; the caller frees. */
char *exp_resolved_json(const struct experiment *e);

#endif
