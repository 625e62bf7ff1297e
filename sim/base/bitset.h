/*
 * Bit sets with a summary: a set of numbers 0 .. n - 1 in which "the first
 * member at or after x" costs a few word reads however large n is.  The
 * cluster model searches its CPU blocks and its nodes by free-GPU count
 * with them on every job start and end, so the helpers are static inline,
 * inlinable in every file that uses them.
 */
#ifndef CLUSTERSIM_BITSET_H
#define CLUSTERSIM_BITSET_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

#define BSET_BITS 64	/* bits per word, and words a summary bit covers */
#define BSET_NONE UINT32_MAX /* bset_next: no member */
#define BSET_MAXLEV 7	/* levels of a bit set at most (2^31 members: 6) */

/*
 * A set of numbers 0 .. n - 1: level 0 has one bit per member, bit w of
 * level k says that word w of level k - 1 is not zero, and the top level
 * is one word.  "The first member at or after x" is then a few word
 * reads: 2 levels for Curie's 1,458 CPU blocks, 3 for its 93,312 nodes.
 */
struct bset {
	unsigned nlev;                /* levels */
	uint64_t *lev[BSET_MAXLEV];   /* the words of each level */
	uint32_t nwords[BSET_MAXLEV]; /* words of each level */
	uint64_t *buf;                /* storage of all levels */
	size_t total;                 /* words in buf */
};

/* An empty set of n (> 0) possible members; bset_release frees it. */
static inline void bset_init(struct bset *s, uint32_t n)
{
	uint32_t bits = n;
	size_t at = 0;

	s->nlev = 0;
	s->total = 0;
	do {
		SIM_ASSERT(s->nlev < BSET_MAXLEV);
		bits = (bits + BSET_BITS - 1) / BSET_BITS;
		s->nwords[s->nlev++] = bits;
		s->total += bits;
	} while (bits > 1);
	s->buf = xcalloc(s->total, sizeof(*s->buf));
	for (unsigned l = 0; l < s->nlev; l++) {
		s->lev[l] = s->buf + at;
		at += s->nwords[l];
	}
}

static inline void bset_release(struct bset *s)
{
	free(s->buf);
	s->buf = NULL;
}

static inline void bset_clear(struct bset *s)
{
	memset(s->buf, 0, s->total * sizeof(*s->buf));
}

/* Adds i; the summary words above change only while they were zero. */
static inline void bset_add(struct bset *s, uint32_t i)
{
	for (unsigned l = 0; l < s->nlev; l++) {
		uint64_t *w = &s->lev[l][i / BSET_BITS];
		uint64_t old = *w;

		*w = old | UINT64_C(1) << (i % BSET_BITS);
		if (old)
			break;
		i /= BSET_BITS;
	}
}

/* Removes i; the summary words above change only when one becomes zero. */
static inline void bset_del(struct bset *s, uint32_t i)
{
	for (unsigned l = 0; l < s->nlev; l++) {
		uint64_t *w = &s->lev[l][i / BSET_BITS];

		*w &= ~(UINT64_C(1) << (i % BSET_BITS));
		if (*w)
			break;
		i /= BSET_BITS;
	}
}

/*
 * The first member at or after pos, or BSET_NONE: up the summary until a
 * word has a set bit at or after the position, then down along the
 * lowest set bits.
 */
static inline uint32_t bset_next(const struct bset *s, uint32_t pos)
{
	unsigned l = 0;
	uint32_t w;
	uint64_t m;

	for (;;) {
		w = pos / BSET_BITS;
		if (w >= s->nwords[l])
			return BSET_NONE;
		m = s->lev[l][w] & (~UINT64_C(0) << (pos % BSET_BITS));
		if (m)
			break;
		if (++l == s->nlev)
			return BSET_NONE;
		pos = w + 1;
	}
	pos = w * BSET_BITS + (uint32_t)__builtin_ctzll(m);
	while (l--)
		pos = pos * BSET_BITS + (uint32_t)__builtin_ctzll(s->lev[l][pos]);
	return pos;
}

/* What word w of level l >= 1 must hold, from level l - 1 (for the
 * invariant checks and for rebuilding a summary). */
static inline uint64_t bset_word_below(const struct bset *s, unsigned l,
				       uint32_t w)
{
	uint64_t m = 0;

	for (unsigned j = 0; j < BSET_BITS; j++) {
		uint64_t u = (uint64_t)w * BSET_BITS + j;

		m |= (uint64_t)(u < s->nwords[l - 1] && s->lev[l - 1][u]) << j;
	}
	return m;
}

#endif
