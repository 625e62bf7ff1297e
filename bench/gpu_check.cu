/*
 * `make gpu-check`: one program that needs only the CUDA toolkit and
 * header-only code (the decoder, the search steps and Random123's Philox,
 * carried in build/gpu-check/include), for a bare GPU machine.  It builds
 * synthetic batches (64 nodes x 8 GPUs), checks that the CUDA backend
 * scores random populations exactly as the host decoder does and prints
 * evaluations/s on the GPU for 10^3 .. 10^6 candidates next to one host
 * core; then runs two GA generations and 20 annealing steps of a resident
 * population on both and compares every score and the chains' bests.
 * Without a device it says so and exits 0.  `make test` also builds it
 * against tests/cuda_host.h and runs it on small populations, so the
 * program is known to work before a GPU machine runs it.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "eval/eval_cuda.cu"

static double now_s()
{
	using namespace std::chrono;
	return duration<double>(steady_clock::now().time_since_epoch()).count();
}

/* The same synthetic batch as `clustersim bench-eval`. */
struct batch {
	std::vector<uint32_t> demand, node_cap, node_off;
	std::vector<int64_t> dur, release, weight;
	std::vector<uint8_t> home, node_type;
	struct eval_problem p;
};

static void make_batch(batch &b, uint32_t n)
{
	static const uint32_t sizes[] = { 1, 1, 1, 2, 4, 8, 16, 32 };
	struct eval_rng r;
	eval_rng_init(&r, 2024, 7, n, 0);
	b.demand.resize(n);
	b.dur.resize(n);
	b.release.assign(n, 0);
	b.weight.resize(n);
	b.home.assign(n, 0);
	b.node_cap.assign(64, 8);
	b.node_type.assign(64, 0);
	b.node_off.resize(n + 1);
	b.node_off[0] = 0;
	for (uint32_t j = 0; j < n; j++) {
		b.demand[j] = sizes[eval_rng_below(&r, 8)];
		b.dur[j] = 60 + eval_rng_below(&r, 36000);
		b.weight[j] = 1 + eval_rng_below(&r, 4);
		b.node_off[j + 1] = b.node_off[j] + (b.demand[j] > 8 ? 64 : 1);
	}
	memset(&b.p, 0, sizeof(b.p));
	b.p.n = n;
	b.p.ntypes = 1;
	b.p.objective = EVAL_TWCT;
	b.p.cap[0] = 512;
	b.p.demand = b.demand.data();
	b.p.dur = b.dur.data();
	b.p.release = b.release.data();
	b.p.weight = b.weight.data();
	b.p.home = b.home.data();
	b.p.nnodes = 64;
	b.p.node_cap = b.node_cap.data();
	b.p.node_type = b.node_type.data();
	b.p.node_off = b.node_off.data();
}

static void random_pop(const batch &b, size_t cnt, std::vector<uint32_t> &perm)
{
	uint32_t n = b.p.n;
	perm.resize(cnt * n);
	for (size_t c = 0; c < cnt; c++) {
		struct eval_rng r;
		uint32_t *q = &perm[c * n];
		eval_rng_init(&r, 1, EVAL_STREAM_INIT, (uint32_t)c, 0);
		for (uint32_t i = 0; i < n; i++)
			q[i] = i;
		for (uint32_t i = n; i > 1; i--) {
			uint32_t k = eval_rng_below(&r, i), t = q[i - 1];
			q[i - 1] = q[k];
			q[k] = t;
		}
	}
}

/* Host copy of a resident population, advanced with the same steps. */
struct host_pop {
	std::vector<uint32_t> perm, best;
	std::vector<uint8_t> gene, bgene;
	std::vector<int64_t> score, bscore;
};

static int64_t host_decode(const batch &b, int nodes, const uint32_t *perm,
			   const uint8_t *genes, struct eval_scratch *s)
{
	return nodes ? eval_decode_nodes(&b.p, perm, genes, s, 0) :
		       eval_decode(&b.p, perm, genes, s, 0, 0);
}

/* The best of h's scores (of its chains' bests when of_best). */
static struct eval_top host_best(const host_pop &h, bool of_best)
{
	const std::vector<int64_t> &sc = of_best ? h.bscore : h.score;
	struct eval_top t;
	eval_top_scan(sc.data(), 0, (uint32_t)sc.size(), 1, &t, 1);
	return t;
}

static bool same_top(const struct eval_top &a, const struct eval_top &b)
{
	return a.score == b.score && a.idx == b.idx;
}

/*
 * Loads pop random candidates on the device and on the host, runs two GA
 * generations (isl islands, `elite` elites each, migrating in the second)
 * and then 20 annealing steps on both, and compares every island's
 * bests, all scores and the chains' best candidates.  Returns 1 when
 * they differ.
 */
static int steps_parity(const batch &b, void *c, int nodes,
			uint32_t pop, uint32_t isl, uint32_t elite,
			struct eval_scratch *s)
{
	char why[256];
	uint32_t n = b.p.n;
	host_pop h;
	random_pop(b, pop, h.perm);
	h.gene.resize((size_t)pop * n);
	h.score.resize(pop);
	for (uint32_t i = 0; i < pop; i++) {
		memcpy(&h.gene[(size_t)i * n], b.p.home, n);
		h.score[i] = host_decode(b, nodes, &h.perm[(size_t)i * n],
					 &h.gene[(size_t)i * n], s);
	}
	std::vector<int64_t> g(pop), gb(pop);
	std::vector<uint32_t> dp(n);
	std::vector<uint8_t> dg(n), mark(n + 1);
	std::vector<struct eval_top> tops(pop), dtops(pop);
	int bad = 0;
#define TRY(call)                                                             \
	do {                                                                 \
		if ((call) != 0) {                                           \
			printf("gpu-check: %s\n", why);                      \
			return 1;                                            \
		}                                                            \
	} while (0)
	TRY(eval_cuda_ops.pop_set(c, h.perm.data(), 0, pop, why, sizeof(why)));
	TRY(eval_cuda_ops.pop_scores(c, g.data(), 0, why, sizeof(why)));
	bad |= g != h.score;
	struct eval_ga_params ga = { 5, 0, pop, pop / isl, 3, 3u << 30,
				     1u << 30, 1u << 30, 0, elite, 0 };
	uint32_t keep = eval_ga_keep(&ga);
	for (uint32_t gen = 1; gen <= 2; gen++) {
		ga.gen = gen;
		ga.migrate = gen == 2;
		for (uint32_t k = 0; k < isl; k++)
			eval_top_scan(h.score.data(), k * ga.island,
				      (k + 1) * ga.island, 1, &tops[k * keep],
				      keep);
		TRY(eval_cuda_ops.tops(c, 0, isl, keep, dtops.data(), why,
				   sizeof(why)));
		for (uint32_t q = 0; q < isl * keep; q++)
			bad |= !same_top(tops[q], dtops[q]);
		std::vector<uint32_t> cp((size_t)pop * n);
		std::vector<uint8_t> cg((size_t)pop * n);
		std::vector<int64_t> cs(pop);
		for (uint32_t i = 0; i < pop; i++) {
			eval_ga_child(&b.p, &ga, h.perm.data(), h.gene.data(),
				      h.score.data(),
				      eval_ga_source(&ga, tops.data(), i), i,
				      &cp[(size_t)i * n], &cg[(size_t)i * n],
				      mark.data());
			cs[i] = host_decode(b, nodes, &cp[(size_t)i * n],
					    &cg[(size_t)i * n], s);
		}
		h.perm.swap(cp);
		h.gene.swap(cg);
		h.score.swap(cs);
		TRY(eval_cuda_ops.ga_step(c, &ga, why, sizeof(why)));
		TRY(eval_cuda_ops.pop_scores(c, g.data(), 0, why, sizeof(why)));
		bad |= g != h.score;
	}
	/* annealing from the last generation (pop_set makes it the bests) */
	TRY(eval_cuda_ops.pop_set(c, h.perm.data(), h.gene.data(), pop, why,
			      sizeof(why)));
	h.best = h.perm;
	h.bgene = h.gene;
	h.bscore = h.score;
	struct eval_sa_params sp = { 9, 0, pop, 0, 2000.0 };
	for (uint32_t step = 1; step <= 20; step++) {
		sp.step = step;
		for (uint32_t i = 0; i < pop; i++) {
			size_t o = (size_t)i * n;
			eval_sa_chain(&b.p, &sp, i, &h.perm[o], &h.gene[o],
				      &h.score[i], &h.best[o], &h.bgene[o],
				      &h.bscore[i], s, nodes);
		}
		TRY(eval_cuda_ops.sa_step(c, &sp, why, sizeof(why)));
		TRY(eval_cuda_ops.tops(c, 1, 1, 1, dtops.data(), why,
				   sizeof(why)));
		bad |= !same_top(dtops[0], host_best(h, true));
		TRY(eval_cuda_ops.pop_scores(c, g.data(), gb.data(), why,
					 sizeof(why)));
		bad |= g != h.score || gb != h.bscore;
	}
	for (uint32_t i = 0; i < pop; i++) {
		TRY(eval_cuda_ops.pop_get(c, i, 1, dp.data(), dg.data(), why,
				      sizeof(why)));
		bad |= memcmp(dp.data(), &h.best[(size_t)i * n], n * 4) != 0 ||
		       memcmp(dg.data(), &h.bgene[(size_t)i * n], n) != 0;
	}
#undef TRY
	printf("%-6u %-7s %9u %14s %14s %7s\n", n, nodes ? "nodes" : "pooled",
	       pop, isl > 2 ? "ga+sa steps" : "2 big islands", "",
	       bad ? "FAIL" : "ok");
	return bad;
}

/* gpu_check [MAX]: populations of 10^3 .. MAX (10^6) candidates. */
int main(int argc, char **argv)
{
	char why[256];
	size_t max = argc > 1 ? strtoull(argv[1], 0, 10) : 1000000;
	if (!eval_cuda_ops.probe(why, sizeof(why))) {
		printf("gpu-check: skipped: %s\n", why);
		return 0;
	}
#ifdef EVAL_CUDA_HOST
	printf("gpu-check: the host stand-in (tests/cuda_host.h), not a "
	       "device: gpu columns are one host core\n");
#endif
	int bad = 0;
	printf("%-6s %-7s %9s %14s %14s %7s\n", "jobs", "decode",
	       "pop", "gpu evals/s", "cpu1 evals/s", "parity");
	for (uint32_t n : { 100u, 1000u }) {
		batch b;
		make_batch(b, n);
		struct eval_scratch_size z = eval_scratch_size_of(&b.p);
		std::vector<int64_t> ev(z.ev);
		std::vector<uint32_t> nfree(z.node_free), nlist(z.node_list);
		std::vector<uint64_t> nbits(z.node_bits);
		struct eval_scratch s = { ev.data(), nfree.data(),
					  nlist.data(), nbits.data() };
		for (int nodes = 0; nodes < 2; nodes++) {
			void *c = eval_cuda_ops.open(&b.p, nodes, 0, why,
						      sizeof(why));
			if (!c) {
				printf("gpu-check: %s\n", why);
				return 1;
			}
			for (size_t cnt = 1000; cnt <= max; cnt *= 10) {
				if (n == 1000 && cnt > 100000)
					break;
				std::vector<uint32_t> perm;
				random_pop(b, cnt, perm);
				std::vector<int64_t> g(cnt);
				eval_cuda_ops.score(c, perm.data(), 0, cnt,
						g.data(), why, sizeof(why));
				double t0 = now_s();
				if (eval_cuda_ops.score(c, perm.data(), 0, cnt,
						    g.data(), why,
						    sizeof(why))) {
					printf("gpu-check: %s\n", why);
					return 1;
				}
				double tg = now_s() - t0;
				size_t check = cnt < 2000 ? cnt : 2000;
				int ok = 1;
				t0 = now_s();
				for (size_t i = 0; i < check; i++)
					ok = ok && host_decode(b, nodes,
							&perm[i * n], 0, &s) ==
						g[i];
				double tc = (now_s() - t0) / (double)check;
				bad |= !ok;
				printf("%-6u %-7s %9zu %14.0f %14.0f %7s\n", n,
				       nodes ? "nodes" : "pooled", cnt,
				       cnt / tg, 1.0 / tc, ok ? "ok" : "FAIL");
			}
			bad |= steps_parity(b, c, nodes, 256, 4, 2, &s);
			/* islands of 1,024 with 32 elites: several
			 * candidates a slice before the merge */
			if (n == 100)
				bad |= steps_parity(b, c, nodes, 2048, 2, 32,
						    &s);
			eval_cuda_ops.close(c);
		}
	}
	printf("gpu-check: %s\n", bad ? "PARITY FAILED" : "parity ok");
	return bad;
}
