/*
 * Hyperparameter searches: a search is a group of trials of one model
 * with different settings, each a small training job whose validation
 * loss follows a learning curve, run under successive halving (ASHA,
 * or asynchronous Hyperband: brackets of ASHA) so that poor trials stop
 * early at rungs.  This header holds what the workload knows: the
 * generator's "searches" section, and per trial its search, bracket and
 * curve, with the losses it would report at each rung drawn up front
 * (the engine, sim/engine/sim_hpo.c, makes the stop decisions).
 *
 * Learning curve (docs/workloads.md, "Hyperparameter searches"): the
 * validation loss after e epochs is
 *
 *   l(e) = a + b e^(-c)
 *
 * the "pow3" family of Domhan, Springenberg and Hutter, "Speeding up
 * automatic hyperparameter optimization of deep neural networks by
 * extrapolation of learning curves", IJCAI 2015 (their y = c - a x^-alpha
 * written for a loss that falls): a is the loss the setting converges
 * to, b how far above it training starts, c how fast it gets there.
 * Each trial draws a, b, c uniformly from the section's ranges, and each
 * report adds Gaussian noise of the section's deviation, so curves cross
 * and a trial that looks good early may end worse: the case early
 * stopping has to get right.
 */
#ifndef CLUSTERSIM_HPO_H
#define CLUSTERSIM_HPO_H

#include "clustersim/clustersim.h"

struct workload;

/* Most rungs of one ladder (reports before the last epoch, plus it). */
#define HPO_MAX_RUNGS 16

/* How a search's trials are stopped (experiments/README.md, "searches"). */
enum hpo_mode {
	HPO_ASHA = 0,   /* asynchronous successive halving, one bracket */
	HPO_HYPERBAND,  /* asynchronous Hyperband: brackets of ASHA */
	HPO_NMODES
};

extern const char *const hpo_mode_names[HPO_NMODES];

/* The generator's "searches" section; all values inline (the section is
 * copied with the gen_spec). */
struct hpo_spec {
	bool on;                 /* the section was given */
	uint32_t count;          /* searches */
	uint32_t trials;         /* trials per search */
	uint32_t gpus;           /* GPUs per trial */
	uint32_t max_epochs;     /* R: epochs of a trial never stopped */
	uint32_t min_epochs;     /* r: the first rung, epochs */
	uint32_t eta;            /* reduction factor, >= 2 */
	double epoch_s;          /* work of one epoch, seconds at reference
	                            speed */
	double interarrival_s;   /* mean gap between searches' submits
	                            (exponential), seconds */
	enum hpo_mode mode;      /* the stopping rule */
	double a[2], b[2], c[2]; /* the curve's ranges [min, max] */
	double noise;            /* standard deviation of a report */
};

/* Sets the documented defaults (on stays false). */
void hpo_spec_default(struct hpo_spec *h);
/* Checks a section; err names the key under json_path ("$...searches"). */
int hpo_spec_check(const struct hpo_spec *h, const char *json_path,
		   struct sim_error *err);

/* The rung ladder: epochs of the intermediate rungs r, r eta, r eta^2, ...
 * below max_epochs into rungs (at most HPO_MAX_RUNGS - 1); returns their
 * number K.  A trial of bracket b reports at rungs b .. K-1, then
 * finishes at max_epochs. */
uint32_t hpo_ladder(const struct hpo_spec *h, uint32_t *rungs);
/* Trials of bracket b (0 .. K) in one round of Hyperband's brackets:
 * ceil((K + 1) / (K - b + 1) x eta^(K - b)) (Li et al., JMLR 2018,
 * Algorithm 1, with s = K - b stopping rungs). */
uint64_t hpo_bracket_size(const struct hpo_spec *h, uint32_t k, uint32_t b);
/* The bracket of the search's trial t (0-based) under h->mode: 0 for
 * ASHA and SHA; Hyperband fills brackets 0, 1, .. K in turn with their
 * hpo_bracket_size() trials, then starts again at 0. */
uint32_t hpo_trial_bracket(const struct hpo_spec *h, uint32_t t);

/* One trial. */
struct hpo_trial {
	uint32_t search;         /* its search, 0-based */
	uint32_t trial;          /* its index in the search, 0-based */
	uint32_t bracket;        /* its bracket: first rung it reports at */
	double a, b, c;          /* its curve */
	double loss[HPO_MAX_RUNGS]; /* what it reports at global rung k
	                            (k = K: its final loss at max_epochs) */
};

/* One search. */
struct hpo_search {
	sim_time_t submit;       /* when its trials are submitted */
	uint32_t first;          /* its first trial in hpo_set.trials */
	uint32_t ntrials;        /* its trials */
};

/* The searches of a workload (struct workload's hpo). */
struct hpo_set {
	struct hpo_spec spec;    /* the section they came from */
	uint32_t rungs[HPO_MAX_RUNGS]; /* the ladder: K intermediate rungs,
	                            then rungs[K] = max_epochs */
	uint32_t nrungs;         /* K */
	struct hpo_search *searches; /* owned */
	uint32_t nsearches;
	struct hpo_trial *trials;/* owned, search after search */
	uint32_t ntrials;
	int64_t first_id;        /* job id of trials[0]; trial i is job id
	                            first_id + i */
};

/* The loss of trial t's curve after e epochs, noise-free. */
double hpo_curve(const struct hpo_trial *t, double e);

/*
 * Appends the searches of h to w's jobs (w->n ordinary jobs, ids 1 ..
 * w->n): trial i of the run gets id w->n + 1 + i, submit = its search's,
 * h->gpus GPUs (cpus_per_gpu CPUs each), work = max_epochs x epoch_s,
 * estimate = that, user = users + search; draws their curves and
 * reports with seed, and sets w->hpo.  Call before workload_finish().
 */
int hpo_gen_trials(const struct hpo_spec *h, uint64_t seed,
		   uint32_t cpus_per_gpu, uint32_t users, struct workload *w,
		   struct sim_error *err);
void hpo_set_free(struct hpo_set *s);

/* The trial job j is, or NULL. */
static inline const struct hpo_trial *hpo_trial_of(const struct hpo_set *s,
						   const struct job *j)
{
	if (!s || j->id < s->first_id ||
	    j->id - s->first_id >= (int64_t)s->ntrials)
		return NULL;
	return &s->trials[j->id - s->first_id];
}

#endif
