/*
 * What an experiment's runs read, prepared once and the same for every
 * consumer (`clustersim run`, sweeps through it, and the learning
 * environment): the trace loaded, the cluster sized and checked, the jobs
 * bound to their tenants and partitions, the virtual clusters and job
 * shapes checked, the GPU speed model set up; the engine's settings from
 * the experiment's root keys; and a generated workload of one seed checked
 * the same way.
 *
 * Library code: messages go to the caller (err, and the note of large-
 * model jobs kept to some GPU types), never printed here.
 */
#ifndef CLUSTERSIM_EXP_INPUTS_H
#define CLUSTERSIM_EXP_INPUTS_H

#include "engine/sim.h"
#include "exp/exp.h"
#include "speed/speed.h"
#include "workload/workload.h"

struct exp_inputs {
	struct workload w;           /* the trace's jobs, when not generated */
	bool have_w;
	struct cluster_spec cluster; /* sized from the trace header when
	                                asked, else the experiment's */
	struct speed_config speed;   /* GPU jobs' speeds, on a GPU cluster */
	bool use_speed;
	double load_s;               /* seconds spent reading the trace */
};

/* Reads the trace of e (nothing for a generated workload) into in->w and
 * notes its SHA-256 among e's inputs. */
int exp_inputs_trace(struct exp_inputs *in, struct experiment *e,
		     struct sim_error *err);

/* The rest, once exp_inputs_trace has run: refuses an empty trace, sizes
 * and checks the cluster, binds and checks the trace's jobs, sets up the
 * speed model.  *pinned: large-model jobs kept to the GPU types they fit
 * (pinned_note: the first, for the caller's note). */
int exp_inputs_setup(struct exp_inputs *in, const struct experiment *e,
		     uint64_t *pinned, struct sim_error *pinned_note,
		     struct sim_error *err);

/* The generated workload of seed in gen, checked against in's cluster as
 * a trace's jobs are; on an error nothing is left to release. */
int exp_inputs_generate(const struct exp_inputs *in,
			const struct experiment *e, uint64_t seed,
			struct workload *gen, uint64_t *pinned,
			struct sim_error *pinned_note, struct sim_error *err);

/* The engine's settings that the experiment's root keys give. */
void exp_engine_settings(const struct experiment *e, struct sim_config *cfg);

void exp_inputs_release(struct exp_inputs *in);

#endif
