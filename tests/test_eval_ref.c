/*
 * The fast decoders of eval_decode.h (a sorted event array with a cursor,
 * a branch-free best fit) against deliberately simple reference decoders
 * written here from the rule alone: job perm[k] starts at the earliest
 * time x >= max(its release, the previous start) at which enough units
 * are free, where "free at x" is recounted from scratch over every job
 * placed so far and every running job, and the times tried are x0 and
 * then every end after it.  No queue, no incremental state: O(n^2) a
 * candidate, too slow for a search and plain to check by eye.
 *
 * A few hundred random instances: one to three types, running jobs,
 * releases on and off, runs of zero ticks, placement genes (some naming
 * no type or a type the job may not use), every objective; each
 * candidate's score and every start (and type) must be equal, with every
 * form of the event queue this CPU runs.  Node level also on wide
 * instances: more than 64 nodes, types interleaved or in blocks, nodes of
 * 0 to 1,000 units, jobs of no units and jobs over many whole nodes -
 * what the decoder's node index (bitsets over several words, buckets
 * shared by unit counts on large nodes) must get right.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "eval/eval.h"
#include "eval/eval_inst.h"
#include "search/search.h"

#define REF_MAX_JOBS 32
#define REF_MAX_NODES 192

/* What the reference knows of a placed job. */
struct ref_job {
	int64_t st, en;   /* start and end */
	uint32_t type;    /* type it runs on */
	uint32_t units[REF_MAX_NODES]; /* units it holds on each node */
};

/* The type rule, restated: the gene when it names an allowed type. */
static uint32_t ref_type(const struct eval_problem *p, const uint8_t *genes,
			 uint32_t j)
{
	if (genes && genes[j] < p->ntypes &&
	    p->dur[j * p->ntypes + genes[j]] >= 0)
		return genes[j];
	return p->home[j];
}

static int64_t ref_score(const struct eval_problem *p,
			 const struct ref_job *jb)
{
	int64_t mk = 0, tw = 0, jct = 0;
	for (uint32_t j = 0; j < p->n; j++) {
		mk = jb[j].en > mk ? jb[j].en : mk;
		tw += p->weight[j] * jb[j].en;
		jct += jb[j].en - p->release[j];
	}
	switch (p->objective) {
	case EVAL_MAKESPAN:
		return mk;
	case EVAL_TWCT:
		return tw;
	case EVAL_JCT:
		return jct;
	default:
		return p->mix_makespan * mk + p->mix_twct * tw;
	}
}

/* The first end after x of a running or placed job (INT64_MAX: none). */
static int64_t ref_next(const struct eval_problem *p,
			const struct ref_job *jb, const bool *placed,
			int64_t x)
{
	int64_t nx = INT64_MAX;
	for (uint32_t r = 0; r < p->nrun; r++)
		if (p->run_end[r] > x && p->run_end[r] < nx)
			nx = p->run_end[r];
	for (uint32_t j = 0; j < p->n; j++)
		if (placed[j] && jb[j].en > x && jb[j].en < nx)
			nx = jb[j].en;
	return nx;
}

/* Pooled: units of type t in use at x, recounted. */
static int64_t ref_used(const struct eval_problem *p,
			const struct ref_job *jb, const bool *placed,
			uint32_t t, int64_t x)
{
	int64_t used = 0;
	for (uint32_t r = 0; r < p->nrun; r++)
		if (p->run_type[r] == t && p->run_end[r] > x)
			used += p->run_units[r];
	for (uint32_t j = 0; j < p->n; j++)
		if (placed[j] && jb[j].type == t && jb[j].st <= x &&
		    jb[j].en > x)
			used += p->demand[j];
	return used;
}

static int64_t ref_pooled(const struct eval_problem *p, const uint32_t *perm,
			  const uint8_t *genes, struct ref_job *jb)
{
	bool placed[REF_MAX_JOBS] = { false };
	int64_t prev = 0;
	memset(jb, 0, p->n * sizeof(*jb));
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k], t = ref_type(p, genes, j);
		int64_t x = p->release[j] > prev ? p->release[j] : prev;
		while (p->cap[t] - ref_used(p, jb, placed, t, x) <
		       p->demand[j]) {
			x = ref_next(p, jb, placed, x);
			cr_assert_neq(x, INT64_MAX, "job %u never fits", j);
		}
		jb[j].st = x;
		jb[j].en = x + p->dur[j * p->ntypes + t];
		jb[j].type = t;
		placed[j] = true;
		prev = x;
	}
	return ref_score(p, jb);
}

/* Node level: free units of node i at x, recounted. */
static uint32_t ref_node_free(const struct eval_problem *p,
			      const struct ref_job *jb, const bool *placed,
			      uint32_t i, int64_t x)
{
	uint32_t f = p->node_cap[i];
	for (uint32_t r = 0; r < p->nrun; r++)
		if (p->run_node[r] == i && p->run_end[r] > x)
			f -= p->run_units[r];
	for (uint32_t j = 0; j < p->n; j++)
		if (placed[j] && jb[j].st <= x && jb[j].en > x)
			f -= jb[j].units[i];
	return f;
}

/* The placement rule, restated: one node by best fit (least leftover,
 * then lowest index) when the job fits in the largest node of its type,
 * else whole idle nodes, lowest index first.  Fills units[]. */
static bool ref_place(const struct eval_problem *p, const uint32_t *nfree,
		      uint32_t t, uint32_t need, uint32_t *units)
{
	uint32_t big = 0, best = UINT32_MAX, got = 0;
	memset(units, 0, REF_MAX_NODES * sizeof(*units));
	for (uint32_t i = 0; i < p->nnodes; i++)
		if (p->node_type[i] == t && p->node_cap[i] > big)
			big = p->node_cap[i];
	if (need <= big) {
		for (uint32_t i = 0; i < p->nnodes; i++)
			if (p->node_type[i] == t && nfree[i] >= need &&
			    (best == UINT32_MAX ||
			     nfree[i] - need < nfree[best] - need))
				best = i;
		if (best != UINT32_MAX)
			units[best] = need;
		return best != UINT32_MAX;
	}
	for (uint32_t i = 0; i < p->nnodes && got < need; i++)
		if (p->node_type[i] == t && nfree[i] > 0 &&
		    nfree[i] == p->node_cap[i]) {
			units[i] = nfree[i];
			got += nfree[i];
		}
	return got >= need;
}

static int64_t ref_nodes(const struct eval_problem *p, const uint32_t *perm,
			 const uint8_t *genes, struct ref_job *jb)
{
	bool placed[REF_MAX_JOBS] = { false };
	uint32_t nfree[REF_MAX_NODES];
	int64_t prev = 0;
	memset(jb, 0, p->n * sizeof(*jb));
	for (uint32_t k = 0; k < p->n; k++) {
		uint32_t j = perm[k], t = ref_type(p, genes, j);
		int64_t x = p->release[j] > prev ? p->release[j] : prev;
		for (;;) {
			for (uint32_t i = 0; i < p->nnodes; i++)
				nfree[i] = ref_node_free(p, jb, placed, i, x);
			if (ref_place(p, nfree, t, p->demand[j], jb[j].units))
				break;
			x = ref_next(p, jb, placed, x);
			cr_assert_neq(x, INT64_MAX, "job %u never fits", j);
		}
		jb[j].st = x;
		jb[j].en = x + p->dur[j * p->ntypes + t];
		jb[j].type = t;
		placed[j] = true;
		prev = x;
	}
	return ref_score(p, jb);
}

/*
 * Random instance `seed`: 1-3 types of 1-4 nodes of 2, 4 or 8 units (a
 * type's pooled capacity is the sum of its nodes), up to 4 running jobs
 * on nodes with room, jobs allowed on a random subset of the types (one
 * always), runs of 0-25 ticks, releases 0-30 on half of the instances.
 */
static void ref_inst(struct eval_inst *in, uint32_t seed)
{
	static const uint32_t ncaps[] = { 2, 4, 8 };
	struct eval_rng r;
	eval_rng_init(&r, 77, 5, seed, 0);
	uint32_t T = 1 + eval_rng_below(&r, 3), nn = 0;
	uint32_t n = 1 + eval_rng_below(&r, REF_MAX_JOBS);
	uint32_t ncap[REF_MAX_NODES], room[REF_MAX_NODES];
	uint8_t nty[REF_MAX_NODES];
	int64_t cap[EVAL_MAX_TYPES] = { 0 };
	for (uint32_t t = 0; t < T; t++) {
		uint32_t cnt = 1 + eval_rng_below(&r, 4);
		for (uint32_t i = 0; i < cnt; i++, nn++) {
			ncap[nn] = room[nn] = ncaps[eval_rng_below(&r, 3)];
			nty[nn] = (uint8_t)t;
			cap[t] += ncap[nn];
		}
	}
	enum eval_objective obj = (enum eval_objective)(seed %
							EVAL_NOBJECTIVES);
	eval_inst_init(in, n, T, cap, obj);
	in->p.mix_makespan = eval_rng_below(&r, 4);
	in->p.mix_twct = eval_rng_below(&r, 4);
	bool releases = eval_rng_below(&r, 2);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t tp = eval_rng_below(&r, T);
		in->demand[j] = 1 + eval_rng_below(&r, (uint32_t)cap[tp]);
		for (uint32_t t = 0; t < T; t++)
			if (t == tp || eval_rng_below(&r, 2))
				in->dur[j * T + t] = eval_rng_below(&r, 8) ?
					1 + eval_rng_below(&r, 25) : 0;
		in->release[j] = releases ? eval_rng_below(&r, 31) : 0;
		in->weight[j] = 1 + eval_rng_below(&r, 5);
	}
	uint32_t nrun = eval_rng_below(&r, 5);
	for (uint32_t k = 0; k < nrun; k++) {
		uint32_t i = eval_rng_below(&r, nn);
		if (room[i] == 0)
			continue;
		uint32_t u = 1 + eval_rng_below(&r, room[i]);
		room[i] -= u;
		eval_inst_add_running(in, nty[i], u,
				      1 + eval_rng_below(&r, 30), i);
	}
	eval_inst_set_nodes(in, nn, ncap, nty);
	cr_assert_eq(eval_inst_finish(in, NULL), 0, "instance %u", seed);
}

/*
 * Wide instance `seed`: 65 to 190 nodes of 1-3 types, in blocks or
 * interleaved, each type's nodes drawn from a palette of unit counts
 * (some of 64 and over, some of 0); running jobs on none to all of the
 * nodes; jobs of no units, of up to a node (often a whole one), and of
 * several whole nodes.
 */
static void ref_inst_wide(struct eval_inst *in, uint32_t seed)
{
	static const uint32_t pal[][3] = {
		{ 8, 8, 8 }, { 1, 2, 8 }, { 63, 63, 63 }, { 64, 64, 64 },
		{ 96, 128, 128 }, { 0, 8, 128 }, { 7, 200, 1000 },
	};
	struct eval_rng r;
	eval_rng_init(&r, 79, 7, seed, 0);
	uint32_t T = 1 + eval_rng_below(&r, 3);
	uint32_t nn = 65 + eval_rng_below(&r, REF_MAX_NODES - 1 - 65);
	uint32_t n = 1 + eval_rng_below(&r, REF_MAX_JOBS);
	bool blocks = eval_rng_below(&r, 2);
	uint32_t ncap[REF_MAX_NODES], pt[EVAL_MAX_TYPES];
	uint32_t big[EVAL_MAX_TYPES] = { 0 };
	uint8_t nty[REF_MAX_NODES];
	int64_t cap[EVAL_MAX_TYPES] = { 0 };
	for (uint32_t t = 0; t < T; t++)
		pt[t] = eval_rng_below(&r, ARRAY_SIZE(pal));
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t t = blocks ? i * T / nn :
			     i < T ? i : eval_rng_below(&r, T);
		/* the first node of a type has units, so that every type
		 * can take a job */
		bool first = blocks ? i == 0 || (i - 1) * T / nn != t :
				      i < T;
		nty[i] = (uint8_t)t;
		ncap[i] = pal[pt[t]][first ? 2 : eval_rng_below(&r, 3)];
		cap[t] += ncap[i];
		big[t] = ncap[i] > big[t] ? ncap[i] : big[t];
	}
	enum eval_objective obj = (enum eval_objective)(seed %
							EVAL_NOBJECTIVES);
	eval_inst_init(in, n, T, cap, obj);
	in->p.mix_makespan = eval_rng_below(&r, 4);
	in->p.mix_twct = eval_rng_below(&r, 4);
	bool releases = eval_rng_below(&r, 2);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t tp = eval_rng_below(&r, T), k = eval_rng_below(&r, 8);
		uint64_t over = (uint64_t)cap[tp] - big[tp];
		if (k == 0)
			in->demand[j] = 0;
		else if (k < 3 || (k < 5 && big[tp] < 2) || over == 0)
			in->demand[j] = 1 + eval_rng_below(&r, big[tp]);
		else if (k < 5)
			in->demand[j] = big[tp] - eval_rng_below(&r, 2);
		else
			in->demand[j] = big[tp] + 1 +
					eval_rng_below(&r, (uint32_t)over);
		for (uint32_t t = 0; t < T; t++)
			if (t == tp || eval_rng_below(&r, 2))
				in->dur[j * T + t] = eval_rng_below(&r, 8) ?
					1 + eval_rng_below(&r, 25) : 0;
		in->release[j] = releases ? eval_rng_below(&r, 31) : 0;
		in->weight[j] = 1 + eval_rng_below(&r, 5);
	}
	/* Running jobs on many nodes of some instances, often holding a
	 * whole node, so that jobs of one node wait too. */
	uint32_t busy = eval_rng_below(&r, 5);
	for (uint32_t i = 0; i < nn; i++) {
		if (ncap[i] == 0 || eval_rng_below(&r, 4) >= busy)
			continue;
		uint32_t u = eval_rng_below(&r, 2) ? ncap[i] :
			     1 + eval_rng_below(&r, ncap[i]);
		eval_inst_add_running(in, nty[i], u,
				      1 + eval_rng_below(&r, 60), i);
	}
	eval_inst_set_nodes(in, nn, ncap, nty);
	cr_assert_eq(eval_inst_finish(in, NULL), 0, "wide instance %u", seed);
}

/* A random candidate: a shuffled order and, on most, genes naming any
 * type or one past the last (which must fall back to the home type). */
static bool ref_candidate(const struct eval_problem *p, uint32_t seed,
			  uint32_t c, uint32_t *perm, uint8_t *genes)
{
	struct eval_rng r;
	eval_rng_init(&r, 78, 6, seed, c);
	for (uint32_t i = 0; i < p->n; i++)
		perm[i] = i;
	for (uint32_t i = p->n; i > 1; i--) {
		uint32_t k = eval_rng_below(&r, i), t = perm[i - 1];
		perm[i - 1] = perm[k];
		perm[k] = t;
	}
	for (uint32_t j = 0; j < p->n; j++)
		genes[j] = (uint8_t)eval_rng_below(&r, p->ntypes + 1);
	return eval_rng_below(&r, 4) != 0;
}

static void ref_compare(bool nodes, uint32_t instances,
			void (*make)(struct eval_inst *, uint32_t))
{
	struct ref_job jb[REF_MAX_JOBS];
	uint32_t perm[REF_MAX_JOBS];
	uint8_t genes[REF_MAX_JOBS], ty[REF_MAX_JOBS];
	int64_t st[REF_MAX_JOBS];
	for (uint32_t seed = 0; seed < instances; seed++) {
		struct eval_inst in;
		make(&in, seed);
		const struct eval_problem *p = &in.p;
		for (uint32_t c = 0; c < 6; c++) {
			bool g = ref_candidate(p, seed, c, perm, genes);
			const uint8_t *gp = g ? genes : NULL;
			int64_t want = nodes ? ref_nodes(p, perm, gp, jb) :
					       ref_pooled(p, perm, gp, jb);
			for (int isa = 0; isa < EVAL_NISAS; isa++) {
				if (!eval_isa_usable((enum eval_isa)isa))
					continue;
				int64_t got = eval_one_isa(p, nodes,
							   (enum eval_isa)isa,
							   perm, gp, st, ty);
				cr_assert_eq(got, want, "%s, instance %u "
					     "candidate %u: %lld, reference "
					     "%lld", eval_isa_name(
						     (enum eval_isa)isa),
					     seed, c, (long long)got,
					     (long long)want);
				for (uint32_t j = 0; j < p->n; j++) {
					cr_assert_eq(st[j], jb[j].st,
						     "instance %u candidate "
						     "%u job %u", seed, c, j);
					cr_assert_eq(ty[j], jb[j].type);
				}
			}
		}
		eval_inst_release(&in);
	}
}

Test(eval_reference, pooled_matches_simple_decoder)
{
	ref_compare(false, 400, ref_inst);
}

/* The CPU pool decodes pooled candidates two at a time in one loop
 * (eval_pooled.h): a batch of an odd count scored there on one thread,
 * and pairs through the portable paired decoder (one with genes, one
 * without), against the reference. */
Test(eval_reference, paired_decodes_match_simple_decoder)
{
	enum { CNT = 7 };
	struct ref_job jb[REF_MAX_JOBS];
	uint32_t perm[CNT * REF_MAX_JOBS];
	uint8_t genes[CNT * REF_MAX_JOBS];
	int64_t want[CNT], got[CNT], two[2];
	struct eval_opts o = { .want = EVAL_WANT_CPU, .threads = 1 };
	for (uint32_t seed = 0; seed < 200; seed++) {
		struct eval_inst in;
		ref_inst(&in, seed);
		const struct eval_problem *p = &in.p;
		uint32_t n = p->n;
		for (uint32_t c = 0; c < CNT; c++) {
			ref_candidate(p, seed, c, perm + c * n, genes + c * n);
			want[c] = ref_pooled(p, perm + c * n, genes + c * n,
					     jb);
		}
		struct eval *e = eval_new(p, &o, NULL);
		cr_assert_not_null(e, "instance %u", seed);
		cr_assert_eq(eval_score(e, perm, genes, CNT, got, NULL), 0);
		for (uint32_t c = 0; c < CNT; c++)
			cr_assert_eq(got[c], want[c], "instance %u candidate "
				     "%u: %lld, reference %lld", seed, c,
				     (long long)got[c], (long long)want[c]);
		struct eval_scratch sa = eval_scratch_new(p);
		struct eval_scratch sb = eval_scratch_new(p);
		for (uint32_t c = 0; c + 1 < CNT; c += 2) {
			const uint32_t *pb = perm + (c + 1) * n;
			eval_decode2_isa(p, perm + c * n, genes + c * n, &sa, pb,
					 NULL, &sb, two, EVAL_ISA_PLAIN);
			cr_assert_eq(two[0], want[c], "instance %u", seed);
			cr_assert_eq(two[1], ref_pooled(p, pb, NULL, jb),
				     "instance %u", seed);
		}
		eval_scratch_free(&sa);
		eval_scratch_free(&sb);
		eval_free(e);
		eval_inst_release(&in);
	}
}

Test(eval_reference, nodes_match_simple_decoder)
{
	ref_compare(true, 300, ref_inst);
}

Test(eval_reference, wide_nodes_match_simple_decoder)
{
	ref_compare(true, 300, ref_inst_wide);
}

Test(eval_reference, instances_cover_the_cases)
{
	/* The generator must reach what the comparison claims to cover:
	 * several types, running jobs, releases, zero-tick runs and every
	 * objective. */
	uint32_t types3 = 0, run = 0, rel = 0, zero = 0, obj[4] = { 0 };
	for (uint32_t seed = 0; seed < 400; seed++) {
		struct eval_inst in;
		ref_inst(&in, seed);
		types3 += in.p.ntypes == 3;
		run += in.p.nrun > 0;
		obj[in.p.objective]++;
		for (uint32_t j = 0; j < in.p.n; j++) {
			rel += in.release[j] > 0;
			for (uint32_t t = 0; t < in.p.ntypes; t++)
				zero += in.dur[j * in.p.ntypes + t] == 0;
		}
		eval_inst_release(&in);
	}
	cr_assert_gt(types3, 50);
	cr_assert_gt(run, 100);
	cr_assert_gt(rel, 100);
	cr_assert_gt(zero, 20);
	for (int o = 0; o < 4; o++)
		cr_assert_eq(obj[o], 100);
}

Test(eval_reference, wide_instances_cover_the_cases)
{
	/* What the wide instances are for: several words of nodes per
	 * type, types that start past the first word, buckets shared by
	 * unit counts (nodes of 64 units and over), nodes of no units,
	 * jobs of no units and over several nodes, and jobs that wait
	 * for units (a start past the earliest the order allows), jobs
	 * of one node among them (waits1). */
	uint32_t words2 = 0, late = 0, shared = 0, zero = 0, none = 0;
	uint32_t multi = 0, waits = 0, waits1 = 0;
	uint32_t perm[REF_MAX_JOBS];
	uint8_t genes[REF_MAX_JOBS];
	int64_t st[REF_MAX_JOBS];
	for (uint32_t seed = 0; seed < 300; seed++) {
		struct eval_inst in;
		ref_inst_wide(&in, seed);
		const struct eval_problem *p = &in.p;
		uint32_t lo[EVAL_MAX_TYPES], hi[EVAL_MAX_TYPES] = { 0 };
		uint32_t big[EVAL_MAX_TYPES] = { 0 };
		for (uint32_t t = 0; t < p->ntypes; t++)
			lo[t] = UINT32_MAX;
		for (uint32_t i = 0; i < p->nnodes; i++) {
			uint32_t t = p->node_type[i];
			lo[t] = i < lo[t] ? i : lo[t];
			hi[t] = i;
			big[t] = p->node_cap[i] > big[t] ? p->node_cap[i] :
							   big[t];
			zero += p->node_cap[i] == 0;
		}
		for (uint32_t t = 0; t < p->ntypes; t++) {
			words2 += hi[t] / 64 > lo[t] / 64;
			late += lo[t] >= 64;
			shared += big[t] >= 64;
		}
		for (uint32_t j = 0; j < p->n; j++) {
			none += p->demand[j] == 0;
			multi += p->demand[j] > big[p->home[j]];
		}
		ref_candidate(p, seed, 0, perm, genes);
		eval_one(p, true, perm, NULL, st, NULL);
		for (uint32_t k = 0; k < p->n; k++) {
			int64_t x = p->release[perm[k]];
			if (k > 0 && st[perm[k - 1]] > x)
				x = st[perm[k - 1]];
			waits += st[perm[k]] > x;
			waits1 += st[perm[k]] > x &&
				p->demand[perm[k]] <= big[p->home[perm[k]]];
		}
		eval_inst_release(&in);
	}
	cr_assert_gt(words2, 250);
	cr_assert_gt(late, 25);
	cr_assert_gt(shared, 150);
	cr_assert_gt(zero, 800);
	cr_assert_gt(none, 300);
	cr_assert_gt(multi, 800);
	cr_assert_gt(waits, 500);
	cr_assert_gt(waits1, 80);
}
