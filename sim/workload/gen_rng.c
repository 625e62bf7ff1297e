/*
 * Philox 4x32-10 as a GSL generator for the workload generator (why, and
 * the layout of the counter: gen_rng.h).  Each 32-bit output is one word
 * of a Philox block; a block is drawn when the last one's four words are
 * spent.  Doubles are a word / 2^32, in [0, 1), as GSL's mt19937 gives
 * them, so the distributions' resolution is what it was.
 */
#include "workload/gen_rng.h"

#include <Random123/philox.h>

#include "base/util.h"

/* Counter word 2 of every generator stream: tells them apart from the
 * searches' streams of the same seed (EVAL_STREAM_*, small integers). */
#define GEN_RNG_DOMAIN UINT32_C(0x67656e31) /* "gen1" */

/* The state gsl_rng_alloc allocates for the type. */
struct gen_rng_state {
	philox4x32_key_t key; /* the seed */
	philox4x32_ctr_t ctr; /* job, field, domain, next block */
	philox4x32_ctr_t buf; /* the current block */
	unsigned pos;         /* next word of buf; 4 = draw a block */
};

static unsigned long gen_rng_get(void *vs)
{
	struct gen_rng_state *s = vs;
	if (s->pos == 4) {
		s->buf = philox4x32(s->ctr, s->key);
		s->ctr.v[3]++;
		s->pos = 0;
	}
	return s->buf.v[s->pos++];
}

static double gen_rng_get_double(void *vs)
{
	return (double)gen_rng_get(vs) / 4294967296.0;
}

/* gsl_rng_set's seed has as few as 32 bits (an unsigned long): the
 * generator is keyed by gen_rng_new instead; this only sets a key for
 * a generator made with gsl_rng_alloc alone. */
static void gen_rng_set(void *vs, unsigned long seed)
{
	struct gen_rng_state *s = vs;
	s->key.v[0] = (uint32_t)seed;
	s->key.v[1] = (uint32_t)((uint64_t)seed >> 32);
	s->ctr.v[0] = s->ctr.v[1] = s->ctr.v[3] = 0;
	s->ctr.v[2] = GEN_RNG_DOMAIN;
	s->pos = 4;
}

static const gsl_rng_type gen_rng_type = {
	.name = "clustersim-philox4x32",
	.max = 0xffffffffUL,
	.min = 0,
	.size = sizeof(struct gen_rng_state),
	.set = gen_rng_set,
	.get = gen_rng_get,
	.get_double = gen_rng_get_double,
};

gsl_rng *gen_rng_new(uint64_t seed)
{
	gsl_rng *r = gsl_rng_alloc(&gen_rng_type);
	if (!r)
		SIM_BUG("gsl_rng_alloc failed");
	struct gen_rng_state *s = r->state;
	gen_rng_set(s, 0);
	s->key.v[0] = (uint32_t)seed;
	s->key.v[1] = (uint32_t)(seed >> 32);
	return r;
}

void gen_rng_stream(gsl_rng *r, uint32_t job, uint32_t field)
{
	struct gen_rng_state *s = r->state;
	s->ctr.v[0] = job;
	s->ctr.v[1] = field;
	s->ctr.v[2] = GEN_RNG_DOMAIN;
	s->ctr.v[3] = 0;
	s->pos = 4;
}
