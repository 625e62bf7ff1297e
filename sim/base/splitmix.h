/*
 * splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014; the constants of Vigna's reference code): the
 * one small generator and 64-bit mix the simulator uses wherever it needs
 * a stream of its own from the run's seed - random placement, the fill
 * experiments' arrivals and shuffles, the job classes drawn per job, the
 * seed of each online plan - and as a hash of integer keys.  Written
 * once here so that every stream is the same function of its seed.
 */
#ifndef CLUSTERSIM_SPLITMIX_H
#define CLUSTERSIM_SPLITMIX_H

#include <stdint.h>

/* The increment of the state: 2^64 / the golden ratio, odd. */
#define SPLITMIX64_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* The finaliser (Stafford's variant 13): a bijection of 64 bits in which
 * every input bit changes about half the output bits. */
static inline uint64_t splitmix64_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Advances *state and returns the next 64 random bits.  The caller keeps
 * the state, so a run is reproducible. */
static inline uint64_t splitmix64_next(uint64_t *state)
{
	return splitmix64_mix(*state += SPLITMIX64_GAMMA);
}

/* The first output of a generator started at x: a hash of x, for a seed
 * derived from another. */
static inline uint64_t splitmix64_hash(uint64_t x)
{
	return splitmix64_mix(x + SPLITMIX64_GAMMA);
}

/* The seed of stream idx of seed: one mix of the two, so that draws for
 * different indexes are independent and each depends on its index only. */
static inline uint64_t splitmix64_stream(uint64_t seed, uint64_t idx)
{
	return splitmix64_mix(seed ^ (idx * SPLITMIX64_GAMMA));
}

#endif
