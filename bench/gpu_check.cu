/*
 * `make gpu-check`: one program that needs only the CUDA toolkit and
 * header-only code (the decoder, the search steps and Random123's Philox,
 * carried in build/gpu-check/include), for a bare GPU machine.  It builds
 * synthetic batches (64 nodes x 8 GPUs), checks that the CUDA backend
 * scores random populations exactly as the host decoder does, runs one GA
 * generation on both and compares, then prints evaluations/s on the GPU
 * for 10^3 .. 10^6 candidates next to one host core.  Without a device it
 * says so and exits 0.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "eval_cuda.cu"

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

int main()
{
	char why[256];
	if (!eval_cuda_probe(why, sizeof(why))) {
		printf("gpu-check: skipped: %s\n", why);
		return 0;
	}
	int bad = 0;
	printf("%-6s %-7s %9s %14s %14s %7s\n", "jobs", "decode",
	       "pop", "gpu evals/s", "cpu1 evals/s", "parity");
	for (uint32_t n : { 100u, 1000u }) {
		batch b;
		make_batch(b, n);
		std::vector<int64_t> ev(eval_queue_slots(&b.p));
		std::vector<uint32_t> nfree(65), nlist(b.node_off[n] + 1);
		struct eval_scratch s = { ev.data(), nfree.data(),
					  nlist.data() };
		for (int nodes = 0; nodes < 2; nodes++) {
			struct eval_cuda *c = eval_cuda_new(&b.p, nodes, why,
							    sizeof(why));
			if (!c) {
				printf("gpu-check: %s\n", why);
				return 1;
			}
			for (size_t cnt = 1000; cnt <= 1000000; cnt *= 10) {
				if (n == 1000 && cnt > 100000)
					break;
				std::vector<uint32_t> perm;
				random_pop(b, cnt, perm);
				std::vector<int64_t> g(cnt);
				eval_cuda_score(c, perm.data(), 0, cnt,
						g.data(), why, sizeof(why));
				double t0 = now_s();
				if (eval_cuda_score(c, perm.data(), 0, cnt,
						    g.data(), why,
						    sizeof(why))) {
					printf("gpu-check: %s\n", why);
					return 1;
				}
				double tg = now_s() - t0;
				size_t check = cnt < 2000 ? cnt : 2000;
				int ok = 1;
				t0 = now_s();
				for (size_t i = 0; i < check; i++) {
					int64_t h = nodes ?
						eval_decode_nodes(&b.p,
							&perm[i * n], 0, &s, 0) :
						eval_decode(&b.p, &perm[i * n],
							0, &s, 0, 0);
					ok = ok && h == g[i];
				}
				double tc = (now_s() - t0) / (double)check;
				bad |= !ok;
				printf("%-6u %-7s %9zu %14.0f %14.0f %7s\n", n,
				       nodes ? "nodes" : "pooled", cnt,
				       cnt / tg, 1.0 / tc, ok ? "ok" : "FAIL");
			}
			eval_cuda_free(c);
		}
	}
	printf("gpu-check: %s\n", bad ? "PARITY FAILED" : "parity ok");
	return bad;
}
