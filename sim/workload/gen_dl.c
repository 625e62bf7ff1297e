/*
 * Generator presets for deep-learning workloads: a fitted trace (a struct
 * gen_fit, e.g. gen_philly_fit from scripts/fit-philly.py) turned into the
 * distributions of a struct gen_spec.  The experiment loader applies the
 * preset first and then every key the file gives alongside it, so
 * {"preset": "philly", "interarrival": ...} is the Philly fit at another
 * load.  docs/workloads.md describes the fit and its goodness.
 */
#include "workload/gen_dl.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const struct gen_fit *const gen_presets[] = { &gen_philly_fit };

const char *const gen_preset_names[] = { "philly" };
const size_t gen_preset_count = ARRAY_SIZE(gen_preset_names);
_Static_assert(ARRAY_SIZE(gen_presets) == ARRAY_SIZE(gen_preset_names),
	       "one name per preset");

const struct gen_fit *gen_preset_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(gen_presets); i++)
		if (strcmp(gen_presets[i]->name, name) == 0)
			return gen_presets[i];
	return NULL;
}

void gen_fit_bucket_dist(const struct gen_fit_bucket *b, struct dist *d)
{
	memset(d, 0, sizeof(*d));
	if (b->mixture) {
		d->kind = DIST_LOGNORMAL2;
		memcpy(d->p, b->mix, sizeof(d->p));
	} else {
		d->kind = DIST_LOGNORMAL;
		d->p[0] = b->mu;
		d->p[1] = b->sigma;
	}
}

void gen_preset_apply(const struct gen_fit *f, struct gen_spec *g)
{
	gen_spec_release(g);
	memset(g, 0, sizeof(*g));
	g->preset = xstrdup(f->name);
	g->jobs = f->jobs;
	g->interarrival.kind = DIST_EXPONENTIAL;
	g->interarrival.p[0] = f->interarrival_mean;

	g->gpus.kind = DIST_DISCRETE;
	g->gpus.nvalues = f->nsizes;
	g->gpus.values = xcalloc(f->nsizes, sizeof(double));
	g->gpus.weights = xcalloc(f->nsizes, sizeof(double));
	for (size_t i = 0; i < f->nsizes; i++) {
		g->gpus.values[i] = f->sizes[i].gpus;
		g->gpus.weights[i] = f->sizes[i].jobs;
	}

	g->nbuckets = f->nbuckets;
	g->runtime_by_gpus = xcalloc(f->nbuckets, sizeof(*g->runtime_by_gpus));
	for (size_t i = 0; i < f->nbuckets; i++) {
		struct gen_bucket *b = &g->runtime_by_gpus[i];
		b->min_gpus = f->buckets[i].min_gpus;
		b->max_gpus = f->buckets[i].max_gpus;
		gen_fit_bucket_dist(&f->buckets[i], &b->runtime);
	}
	gen_fit_bucket_dist(&f->buckets[0], &g->runtime);

	g->cpus.kind = DIST_CONSTANT;
	g->cpus.p[0] = 1;
	g->cpus_per_gpu = GEN_CPUS_PER_GPU;
	g->estimate_factor.kind = DIST_CONSTANT;
	g->estimate_factor.p[0] = 1;
	g->users = 1;
	g->max_cpus = 0;
}
