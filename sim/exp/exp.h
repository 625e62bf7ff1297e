/*
 * Experiment files (JSON, read with cJSON): everything needed to reproduce
 * a result.  The cJSON tree is turned into these typed structs and deleted
 * before anything runs.  experiments/README.md is the contract for every
 * key, default and unit.
 */
#ifndef CLUSTERSIM_EXP_H
#define CLUSTERSIM_EXP_H

#include "cluster/cluster.h"
#include "speed/jobclass_override.h"
#include "speed/net.h"
#include "speed/llm.h"
#include "exp/exp_optimize.h"
#include "policy/registry.h"
#include "workload/workload.h"

struct policy_spec {
	char *name;      /* registry name, or a path ending in .so */
	char *label;     /* unique run label; the name when not given */
	char *json_path; /* "$.policies[i]" */
	struct param_value *params;
	size_t nparams;
};

struct workload_spec {
	bool generated;        /* a generator rather than a trace */
	char *trace;           /* resolved path (relative to the file) */
	struct trace_opts opts;
	struct gen_spec gen;
	char *name;            /* the trace's file name or "generated" */
	char *reference_gpu;   /* GPU type the run times were measured on
	                          ("v100" unless given) */
	bool draw_classes;     /* GPU jobs of no class get a drawn one
	                          ("job_classes": "draw", the default) */
	int partition_from;    /* enum slurm_from: which job field names
	                          its partition ("partition_from", default
	                          partition) */
	int qos_from;          /* ... its QOS ("qos_from", default none) */
	int project_from;      /* enum tenant_from: which job field names
	                          its project ("project_from", default vc) */
	double interactive_fraction; /* share of jobs drawn interactive,
	                          from the run's seed (default 0) */
};

/* "fill": the fill experiment of the FGD paper (fill.h), instead of a
 * replay: its own cluster (an openb node list) and pod lists. */
struct fill_spec {
	char *nodes;           /* resolved openb node list */
	char **pods;           /* resolved openb pod lists, each a workload */
	size_t npods;
	double target;         /* arrivals stop at this share of the GPU
	                          capacity (default 1.3; fill mode) */
	bool replay;           /* "mode": "replay" (fill_replay.h): pods
	                          arrive and leave in time; else the fill */
	sim_time_t step;       /* replay: timeline step (default 3600 s) */
	double load_scale;     /* replay: arrivals at creation time / this
	                          (default 1: the trace's own times) */
	bool score_double;     /* "score": "double": exact scores, ties to
	                          the lowest node; else ("integer", the
	                          default) Kubernetes' (score_integer) */
};

/* An input file read for an experiment, with the digest of its bytes as
 * read, so that the manifest records what was read (not what the file
 * holds when the run ends). */
struct exp_input {
	char *path;            /* the file, as the experiment names it */
	char sha256[INPUT_SHA256_HEX]; /* SHA-256 of its bytes, hex */
};

/* "measure": the measurement window (docs/metrics.md).  Jobs count in
 * the statistics when submitted inside it; utilization is taken over it. */
enum exp_measure_form {
	EXP_MEASURE_NONE, /* no "measure": every job, utilization over
	                     first submit .. last end */
	EXP_MEASURE_TIME, /* {"start", "end"}: submits in [start, end) */
	EXP_MEASURE_JOBS  /* {"skip_first", "skip_last"}: jobs in submit
	                     order, the first and last ones left out */
};

struct exp_measure {
	enum exp_measure_form form;
	sim_time_t start, end; /* EXP_MEASURE_TIME; SIM_TIME_NONE = open */
	uint64_t skip_first;   /* EXP_MEASURE_JOBS: jobs left out first */
	uint64_t skip_last;    /* and last */
};

/* "limits": the sizes a run may take (experiments/README.md); each is
 * refused above its limit with the key that raises it. */
struct exp_limits {
	uint64_t nodes;            /* most nodes in the cluster */
	uint64_t jobs;             /* most job lines read or jobs generated */
	uint64_t timeline_samples; /* most rows of a run's timeline */
	uint64_t input_bytes;      /* largest input file read */
};

/* Their defaults: at least 10^7 nodes, 10^8 jobs, 10^7 samples. */
#define EXP_LIMIT_NODES UINT64_C(10000000)
#define EXP_LIMIT_INPUT_BYTES INPUT_MAX_BYTES

/* "rl": the reinforcement-learning environment's settings (exp_rl.c;
 * sim/rl/ reads them, `clustersim run` ignores them). */
enum rl_mode { RL_MODE_SELECT, RL_MODE_PLACE, RL_NMODES };
enum rl_reward { RL_REWARD_BSLD, RL_REWARD_WAIT, RL_REWARD_RESPONSE,
		 RL_REWARD_UTILIZATION, RL_NREWARDS };
extern const char *const rl_mode_names[RL_NMODES];
extern const char *const rl_reward_names[RL_NREWARDS];
/* The largest "k", and the most windows of either split. */
#define RL_K_MAX 4096u
#define RL_WINDOWS_MAX 1000000u

struct rl_spec {
	bool given;            /* the file has "rl" (else every default) */
	enum rl_mode mode;     /* "mode" (default select) */
	uint32_t k;            /* "k": waiting jobs the agent sees (128) */
	uint64_t window_jobs;  /* "window_jobs": jobs per episode (1024);
	                          0 = the whole trace, one window */
	uint32_t train_windows;/* "train_windows"; 0 = the default (the
	                          windows not in the test split; 80 for a
	                          generated workload) */
	uint32_t test_windows; /* "test_windows"; 0 = the default (a fifth
	                          of a trace's windows; 20 generated) */
	bool test_given;       /* "test_windows" given (0 is then 0) */
	enum rl_reward reward; /* "reward" (default bounded_slowdown) */
	bool reward_at_end;    /* "reward_at": "end" (default "step") */
	bool backfill;         /* "backfill": EASY around the agent's pick */
};

struct experiment {
	char *path;            /* the file as given */
	char *name;            /* "name" (default: file stem) */
	struct cluster_spec cluster;
	bool cluster_from_trace;
	struct net_spec network; /* the fabric ("cluster.network"), defaults
	                            filled in; rack_nodes unused (the
	                            cluster's) */
	struct workload_spec workload;
	struct policy_spec *policies;
	size_t npolicies;
	uint64_t *seeds;       /* default [1] */
	size_t nseeds;
	char *output;          /* resolved results folder */
	char **plugins;        /* resolved .so paths */
	size_t nplugins;
	struct exp_limits limits; /* "limits" (defaults filled in) */
	sim_time_t timeline_interval; /* sampling period; 0 = automatic */
	sim_time_t bsld_tau;   /* bounded-slowdown threshold, default 10 s */
	struct exp_measure measure; /* "measure" (form NONE when absent) */
	sim_time_t progress_timeout; /* no net progress this long ends a run
	                                with an error; 0 = off */
	bool check;            /* invariant checker on */
	bool schedule_each_event; /* "schedule_on": "event" */
	bool submits_first;    /* "same_time": "submits_first" */
	sim_time_t schedule_interval; /* "schedule_interval": the policy
	                          decides at multiples of it; 0 = at events */
	bool allocations;      /* "allocations": write each run's
	                          allocations.csv */
	sim_time_t checkpoint_interval; /* preempted jobs keep work up to
	                                   their last checkpoint, every this
	                                   much work; 0 = at preemption */
	sim_time_t restore_overhead;    /* time a restarted job spends
	                                   restoring */
	sim_time_t restore_per_gpu;     /* and this much more per GPU */
	sim_time_t start_overhead;      /* time a job spends before its
	                                   first work, at its first start */
	double storage_GBps;            /* checkpoint storage bandwidth,
	                                   GB/s: a job's model state is
	                                   written and read back at it;
	                                   0 = free */
	struct jobclass_overrides throughputs; /* "throughputs": overrides
	                          of the job-class tables (none: defaults) */
	struct llm_model *models; /* root "models": the experiment's own
	                          large-model definitions (names and
	                          sources owned), which workloads name
	                          beside the presets of speed/llm.h */
	size_t nmodels;        /* entries in models */
	struct optimize_spec optimize; /* "optimize": the batch that
	                          `clustersim optimize` schedules */
	char *resolved_json;   /* the fully resolved config, printed with
	                          every default filled in (for the manifest) */
	bool has_fill;         /* a fill experiment: "fill" given */
	struct fill_spec fill; /* its settings */
	struct rl_spec rl;     /* "rl" (defaults when absent) */
	struct exp_input *inputs; /* the files read so far, by
	                          exp_note_input() (the experiment file by
	                          exp_load(), a trace by the runner) */
	size_t ninputs;
};

/* Records that path was read with the given digest (a record of the same
 * path is replaced: the last read counts). */
void exp_note_input(struct experiment *e, const char *path,
		    const char *sha256);
/* The digest recorded for path, or NULL when it was not read. */
const char *exp_input_sha256(const struct experiment *e, const char *path);

struct exp_ctx;
struct cJSON;
/* exp_fill.c: reads "fill"; releases it; its resolved JSON. */
int exp_parse_fill(struct exp_ctx *c, const struct cJSON *v,
		   struct fill_spec *f);
void exp_fill_release(struct fill_spec *f);
struct cJSON *exp_fill_json(const struct fill_spec *f);
/* exp_rl.c: the defaults of "rl"; reads it over what r holds (keys not
 * given keep their values); its resolved JSON.  exp_rl_override() reads
 * JSON text holding "rl" keys over r, its messages naming it
 * "NAME: $.rl.key: ...". */
void exp_rl_defaults(struct rl_spec *r);
int exp_rl_override(const char *json, const char *name, struct rl_spec *r,
		    struct sim_error *err);
int exp_parse_rl(struct exp_ctx *c, const struct cJSON *v,
		 struct rl_spec *r);
struct cJSON *exp_rl_json(const struct rl_spec *r);

/*
 * Reads and checks an experiment file.  Unknown keys, wrong types and bad
 * values are errors "FILE: $.path: message" (with a "did you mean" where a
 * known key is close).  Relative paths are resolved against the file's
 * folder.  Returns 0 or a negative code.
 */
int exp_load(const char *path, struct experiment *e, struct sim_error *err);
/* The same, without the file's "sweep" (checked as any other key is not:
 * it is dropped): the base its points start from, for the
 * reinforcement-learning environment, which learns on the base and
 * leaves the sweep to evaluation (clustersim sweep). */
int exp_load_base(const char *path, struct experiment *e,
		  struct sim_error *err);
/*
 * The throughputs that a run of e could use and that nobody measured: one
 * object per job class and GPU type of the cluster whose figure the rule
 * ("derive_throughputs") carries from another type, {job_class, gpu_type,
 * source_type, rule, factor, throughput} (exp_gputypes.c), in the
 * cluster's group order then class order; the manifest's
 * "derived_throughputs".  The caller deletes it.
 */
struct cJSON *exp_derived_json(const struct experiment *e);
/* Same, from text; path names it in messages and anchors relative paths. */
int exp_parse(const char *text, const char *path, struct experiment *e,
	      struct sim_error *err);
void exp_release(struct experiment *e);

#endif
