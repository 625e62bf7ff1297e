/*
 * The fabric model: the ring all-reduce cost, the spec check, max-min fair
 * shares worked out by hand on small fat trees, the "changed" list, and a
 * randomised run of the incremental recomputation against a naive
 * from-scratch progressive filling written here, and against the
 * max-min optimality condition.
 *
 * Units in the hand calculations: 100 Gb/s = 12.5e9 B/s.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "speed/net.h"
#include "base/util.h"

#define G100 12.5e9 /* 100 Gb/s in bytes/s */

static struct net_spec spec_ratio(uint32_t rack, double nic, double ratio)
{
	struct net_spec s;
	net_spec_default(&s);
	s.rack_nodes = rack;
	s.nic_gbps = nic;
	s.uplinks = 0;
	s.uplink_gbps = 0;
	s.oversubscription = ratio;
	return s;
}

static struct net_spec spec_links(uint32_t rack, double nic, uint32_t up,
				  double up_gbps)
{
	struct net_spec s;
	net_spec_default(&s);
	s.rack_nodes = rack;
	s.nic_gbps = nic;
	s.uplinks = up;
	s.uplink_gbps = up_gbps;
	s.oversubscription = 0;
	return s;
}

static void add(struct net *net, int64_t id, const uint32_t *nodes,
		uint32_t k)
{
	struct sim_error e;
	int rc = net_job_add(net, id, nodes, NULL, k, &e);
	cr_assert_eq(rc, 0, "add %lld: %s", (long long)id, e.msg);
}

static void del(struct net *net, int64_t id)
{
	struct sim_error e;
	int rc = net_job_remove(net, id, &e);
	cr_assert_eq(rc, 0, "remove %lld: %s", (long long)id, e.msg);
}

/* net_rates() must return exactly want[0..n). */
static void expect_changed(struct net *net, const int64_t *want, size_t n)
{
	const int64_t *got;
	size_t m = net_rates(net, &got);
	cr_assert_eq(m, n, "changed: got %zu jobs, want %zu", m, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "changed[%zu]: got %lld want %lld",
			     i, (long long)got[i], (long long)want[i]);
	struct sim_error e;
	cr_assert_eq(net_check(net, &e), 0, "%s", e.msg);
}

static void expect_bw(struct net *net, int64_t id, double want)
{
	double got = net_job_bandwidth(net, id);
	cr_assert(fabs(got - want) <= 1e-12 * want,
		  "job %lld: bandwidth %.17g, want %.17g", (long long)id, got,
		  want);
}

Test(net, allreduce_cost_by_hand)
{
	/* p = 4, 1e9 bytes, B = 1e10 B/s, alpha = 10 us:
	 * 2(p-1) alpha = 6 x 10 us = 6e-5 s;
	 * 2(p-1)/p x bytes / B = 1.5 x 1e9 / 1e10 = 0.15 s.  */
	cr_assert_float_eq(net_allreduce_seconds(4, 1e9, 1e10, 10), 0.15006,
			   1e-15);
	/* p = 2, 8e9 bytes, B = 2e9, no latency: 1 x 8e9 / 2e9 = 4 s. */
	cr_assert_eq(net_allreduce_seconds(2, 8e9, 2e9, 0), 4.0);
	/* One GPU: nothing to reduce. */
	cr_assert_eq(net_allreduce_seconds(1, 1e9, 1e9, 5), 0.0);
	/* Infinite bandwidth: latency only, p = 3: 4 x 2.5 us = 1e-5 s. */
	cr_assert_float_eq(net_allreduce_seconds(3, 1e9, INFINITY, 2.5), 1e-5,
			   1e-18);
}

Test(net, spec_check_messages)
{
	struct net_spec s;
	struct sim_error e;
	net_spec_default(&s);
	cr_assert_eq(net_spec_check(&s, "x.json: ", &e), 0, "%s", e.msg);
	/* Defaults: 20 uplinks x 200 Gb/s per leaf of 20 x 200 Gb/s NICs. */
	cr_assert_eq(net_spec_leaf_up_gbps(&s), 4000.0);

	s.rack_nodes = 0;
	cr_assert_lt(net_spec_check(&s, "x.json: ", &e), 0);
	cr_assert_str_eq(e.msg, "x.json: $.cluster.network.rack_nodes: must "
			 "be at least 1, got '0'");

	net_spec_default(&s);
	s.nic_gbps = -5;
	cr_assert_lt(net_spec_check(&s, "", &e), 0);
	cr_assert_str_eq(e.msg, "$.cluster.network.nic_gbps: must be a "
			 "positive number, got '-5'");

	net_spec_default(&s);
	s.oversubscription = 2;
	cr_assert_lt(net_spec_check(&s, "", &e), 0);
	cr_assert_str_eq(e.msg, "$.cluster.network.oversubscription: give "
			 "either uplinks and uplink_gbps or oversubscription, "
			 "not both");

	s.uplinks = 0;
	s.uplink_gbps = 0;
	s.oversubscription = 0;
	cr_assert_lt(net_spec_check(&s, "", &e), 0);
	cr_assert_str_eq(e.msg, "$.cluster.network: give uplinks and "
			 "uplink_gbps, or oversubscription");

	s.oversubscription = NAN;
	cr_assert_lt(net_spec_check(&s, "", &e), 0);
	cr_assert_str_eq(e.msg, "$.cluster.network.oversubscription: must be "
			 "a positive number, got 'nan'");

	net_spec_default(&s);
	s.uplinks = 0;
	cr_assert_lt(net_spec_check(&s, "", &e), 0);
	cr_assert_str_eq(e.msg, "$.cluster.network.uplinks: must be at least "
			 "1 with uplink_gbps, got '0'");

	net_spec_default(&s);
	s.latency_usec = -1;
	cr_assert_lt(net_spec_check(&s, "", &e), 0);
	cr_assert_str_eq(e.msg, "$.cluster.network.latency_usec: must be a "
			 "number at least 0, got '-1'");

	/* 2:1 with racks of 2 nodes of 100 Gb/s: 200 / 2 = 100 Gb/s up. */
	s = spec_ratio(2, 100, 2);
	cr_assert_eq(net_spec_check(&s, "", &e), 0, "%s", e.msg);
	cr_assert_eq(net_spec_leaf_up_gbps(&s), 100.0);
}

/*
 * Two racks of 4 nodes, NIC 100 Gb/s, 4:1 oversubscribed: a leaf's uplink
 * is 4 x 100 / 4 = 100 Gb/s.  A = {0, 4} and B = {1, 5} span both racks,
 * C = {2, 3} stays in rack 0.  Streams: NIC0 A, NIC1 B, NIC2 C, NIC3 C,
 * NIC4 A, NIC5 B, leaf0 A B, leaf1 A B.  Levels: leaf0 = leaf1 = 12.5e9 / 2
 * = 6.25e9, the NICs 12.5e9: A and B freeze at 6.25e9 (50 Gb/s, the fair
 * share of the uplink); C then has its NICs alone: 12.5e9 (its NIC rate).
 */
Test(net, oversubscribed_uplink_three_jobs)
{
	struct net_spec s = spec_ratio(4, 100, 4);
	struct net *net = net_new(&s, 8);
	cr_assert_eq(net_racks(net), 2);
	add(net, 1, (uint32_t[]){ 0, 4 }, 2);
	add(net, 2, (uint32_t[]){ 5, 1 }, 2); /* any order */
	add(net, 3, (uint32_t[]){ 2, 3 }, 2);
	expect_changed(net, (int64_t[]){ 1, 2, 3 }, 3);
	cr_assert_eq(net_job_bandwidth(net, 1), 6.25e9);
	cr_assert_eq(net_job_bandwidth(net, 2), 6.25e9);
	cr_assert_eq(net_job_bandwidth(net, 3), G100);
	/* Nothing happened: nothing changed. */
	expect_changed(net, NULL, 0);
	net_free(net);
}

/*
 * The same with the uplink given as links: 1 uplink of 100 Gb/s on racks
 * of 2 nodes (2:1).  A = {0, 2}, B = {1, 3} cross the racks, C = {0, 1}
 * stays in rack 0 but shares NIC0 with A and NIC1 with B.  Levels: every
 * link with two jobs is at 6.25e9 (NIC0, NIC1, leaf0, leaf1): all three
 * freeze at 6.25e9 together; C is NIC-limited here.
 */
Test(net, two_by_two_all_share)
{
	struct net_spec s = spec_links(2, 100, 1, 100);
	struct net *net = net_new(&s, 4);
	add(net, 10, (uint32_t[]){ 0, 2 }, 2);
	add(net, 11, (uint32_t[]){ 1, 3 }, 2);
	add(net, 12, (uint32_t[]){ 0, 1 }, 2);
	expect_changed(net, (int64_t[]){ 10, 11, 12 }, 3);
	for (int64_t id = 10; id <= 12; id++)
		cr_assert_eq(net_job_bandwidth(net, id), 6.25e9);
	net_free(net);
}

/*
 * Max-min where one job is held back elsewhere.  Racks of 4, NIC 100 Gb/s,
 * one 200 Gb/s uplink per leaf (25e9 B/s).  X = {0, 4}, Y = {1, 5},
 * Z = {2, 6} cross the racks; W = {2, 3} stays in rack 0.
 *   NIC2: Z, W -> 12.5e9 / 2 = 6.25e9      leaf0, leaf1: X, Y, Z -> 8.33e9
 *   other NICs: one job -> 12.5e9
 * Step 1: NIC2 at 6.25e9 saturates: Z = W = 6.25e9 (50 Gb/s).
 * Step 2: leaf0/leaf1 have 25e9 - 6.25e9 = 18.75e9 left for X and Y:
 *   9.375e9 each (75 Gb/s), below their NICs.  All values exact in binary.
 * Removing W: NIC2 holds Z alone; the leaves split 25e9 three ways
 * (25e9 / 3 each for X, Y, Z).  Removing Z too: X and Y get 12.5e9 from
 * the leaf (25e9 / 2), equal to their NIC rate.
 */
Test(net, maxmin_bottleneck_elsewhere_and_removal)
{
	struct net_spec s = spec_links(4, 100, 1, 200);
	struct net *net = net_new(&s, 8);
	add(net, 1, (uint32_t[]){ 0, 4 }, 2); /* X */
	add(net, 2, (uint32_t[]){ 1, 5 }, 2); /* Y */
	add(net, 3, (uint32_t[]){ 2, 6 }, 2); /* Z */
	add(net, 4, (uint32_t[]){ 2, 3 }, 2); /* W */
	expect_changed(net, (int64_t[]){ 1, 2, 3, 4 }, 4);
	cr_assert_eq(net_job_bandwidth(net, 1), 9.375e9);
	cr_assert_eq(net_job_bandwidth(net, 2), 9.375e9);
	cr_assert_eq(net_job_bandwidth(net, 3), 6.25e9);
	cr_assert_eq(net_job_bandwidth(net, 4), 6.25e9);

	del(net, 4);
	expect_changed(net, (int64_t[]){ 1, 2, 3 }, 3);
	expect_bw(net, 1, 25e9 / 3);
	expect_bw(net, 2, 25e9 / 3);
	expect_bw(net, 3, 25e9 / 3);
	cr_assert_eq(net_job_bandwidth(net, 4), -1);

	del(net, 3);
	expect_changed(net, (int64_t[]){ 1, 2 }, 2);
	cr_assert_eq(net_job_bandwidth(net, 1), G100);
	cr_assert_eq(net_job_bandwidth(net, 2), G100);
	net_free(net);
}

/*
 * Three racks of 4 (12 nodes), 4:1 (leaf up 100 Gb/s = 12.5e9 B/s).
 * Baseline: A = {0, 4}, B = {1, 5} (6.25e9 each, the leaf split in two),
 * C = {2, 3} (12.5e9), E = {8, 9} in rack 2 (12.5e9, alone).
 * Adding D = {3, 7}: leaf0 and leaf1 carry A, B, D: 12.5e9 / 3 each;
 * NIC3 carries C and D: 6.25e9.  The leaves saturate first: A = B = D =
 * 12.5e9 / 3; NIC3 has 12.5e9 - 12.5e9 / 3 = 25e9 / 3 left for C.
 * E shares nothing: it is not recomputed and not listed.
 * Removing D restores A, B, C to their old values, bit for bit.
 * Adding G = {0, 1}: NIC0 holds A, G and NIC1 B, G: 6.25e9 each, as are
 * the leaves: A, B, G all freeze at 6.25e9.  A and B were recomputed but
 * did not change: only G is listed.
 */
Test(net, changed_list_is_exactly_the_affected_jobs)
{
	struct net_spec s = spec_ratio(4, 100, 4);
	struct net *net = net_new(&s, 12);
	add(net, 1, (uint32_t[]){ 0, 4 }, 2); /* A */
	add(net, 2, (uint32_t[]){ 1, 5 }, 2); /* B */
	add(net, 3, (uint32_t[]){ 2, 3 }, 2); /* C */
	add(net, 5, (uint32_t[]){ 8, 9 }, 2); /* E */
	expect_changed(net, (int64_t[]){ 1, 2, 3, 5 }, 4);
	double a = net_job_bandwidth(net, 1), c = net_job_bandwidth(net, 3);
	cr_assert_eq(a, 6.25e9);
	cr_assert_eq(c, G100);
	cr_assert_eq(net_job_bandwidth(net, 5), G100);

	add(net, 4, (uint32_t[]){ 3, 7 }, 2); /* D */
	expect_changed(net, (int64_t[]){ 1, 2, 3, 4 }, 4);
	expect_bw(net, 1, G100 / 3);
	expect_bw(net, 2, G100 / 3);
	expect_bw(net, 4, G100 / 3);
	expect_bw(net, 3, 25e9 / 3);
	cr_assert_eq(net_job_bandwidth(net, 5), G100);

	del(net, 4);
	expect_changed(net, (int64_t[]){ 1, 2, 3 }, 3);
	cr_assert_eq(net_job_bandwidth(net, 1), a);
	cr_assert_eq(net_job_bandwidth(net, 2), a);
	cr_assert_eq(net_job_bandwidth(net, 3), c);

	add(net, 7, (uint32_t[]){ 0, 1 }, 2); /* G */
	expect_changed(net, (int64_t[]){ 7 }, 1);
	cr_assert_eq(net_job_bandwidth(net, 7), 6.25e9);
	cr_assert_eq(net_job_bandwidth(net, 1), 6.25e9);

	/* A change that is undone before net_rates() is no change. */
	add(net, 8, (uint32_t[]){ 8, 10 }, 2);
	del(net, 8);
	expect_changed(net, NULL, 0);
	net_free(net);
}

/*
 * Intra-node jobs and latency.  Defaults: NVLink 300 GB/s = 3e11 B/s,
 * latency 0.5 us per link.  One GPU: INFINITY (no communication); four
 * GPUs on one node: NVLink; alpha 0 on one node, 2 x 0.5 = 1 us in one
 * rack (NIC - leaf - NIC), 4 x 0.5 = 2 us across racks.
 */
Test(net, single_node_jobs_nvlink_and_latency)
{
	struct net_spec s;
	struct sim_error e;
	net_spec_default(&s);
	struct net *net = net_new(&s, 40); /* two racks of 20 */
	cr_assert_eq(net_job_add(net, 1, (uint32_t[]){ 3 }, (uint32_t[]){ 1 },
				 1, &e), 0);
	cr_assert_eq(net_job_add(net, 2, (uint32_t[]){ 3 }, (uint32_t[]){ 4 },
				 1, &e), 0);
	cr_assert_eq(net_job_add(net, 3, (uint32_t[]){ 0, 1 },
				 (uint32_t[]){ 8, 8 }, 2, &e), 0);
	cr_assert_eq(net_job_add(net, 4, (uint32_t[]){ 19, 20 }, NULL, 2, &e),
		     0);
	expect_changed(net, (int64_t[]){ 1, 2, 3, 4 }, 4);
	cr_assert(isinf(net_job_bandwidth(net, 1)));
	cr_assert_eq(net_job_bandwidth(net, 2), 3e11);
	cr_assert_eq(net_job_bandwidth(net, 3), 25e9); /* 200 Gb/s NIC */
	cr_assert_eq(net_job_bandwidth(net, 4), 25e9);
	cr_assert_eq(net_job_latency_usec(net, 1), 0.0);
	cr_assert_eq(net_job_latency_usec(net, 3), 1.0);
	cr_assert_eq(net_job_latency_usec(net, 4), 2.0);
	cr_assert_eq(net_job_gpus(net, 3), 16);
	cr_assert_eq(net_job_allreduce_seconds(net, 1, 1e9), 0.0);
	/* Job 4: p = 2, B = 25e9, alpha = 2 us, 2.5e9 bytes:
	 * 2 x 2 us + 1 x 2.5e9 / 25e9 = 4e-6 + 0.1 s. */
	cr_assert_float_eq(net_job_allreduce_seconds(net, 4, 2.5e9), 0.100004,
			   1e-15);
	cr_assert_eq(net_job_allreduce_seconds(net, 99, 1), -1);
	net_free(net);

	/* NVLink slower than the NIC share caps a multi-node job whose
	 * nodes hold several of its GPUs: min(25e9, 5e9). */
	s.nvlink_gBps = 5;
	net = net_new(&s, 40);
	cr_assert_eq(net_job_add(net, 1, (uint32_t[]){ 0, 1 },
				 (uint32_t[]){ 2, 2 }, 2, &e), 0);
	cr_assert_eq(net_job_add(net, 2, (uint32_t[]){ 2, 3 }, NULL, 2, &e),
		     0);
	cr_assert_eq(net_job_bandwidth(net, 1), 5e9);
	cr_assert_eq(net_job_bandwidth(net, 2), 25e9);
	net_free(net);
}

Test(net, bad_calls_change_nothing)
{
	struct net_spec s = spec_ratio(2, 100, 1);
	struct net *net = net_new(&s, 4);
	struct sim_error e;
	add(net, 1, (uint32_t[]){ 0, 1 }, 2);
	cr_assert_eq(net_job_add(net, 1, (uint32_t[]){ 2 }, NULL, 1, &e),
		     -SIM_ESTATE);
	cr_assert_str_eq(e.msg, "net: job '1' is already on the fabric");
	cr_assert_eq(net_job_add(net, 2, (uint32_t[]){ 2, 4 }, NULL, 2, &e),
		     -SIM_ESTATE);
	cr_assert_str_eq(e.msg, "net: job '2': node '4' out of range");
	cr_assert_eq(net_job_add(net, 2, (uint32_t[]){ 3, 2, 3 }, NULL, 3,
				 &e), -SIM_ESTATE);
	cr_assert_str_eq(e.msg, "net: job '2': node '3' given twice");
	cr_assert_eq(net_job_add(net, 2, (uint32_t[]){ 2 }, (uint32_t[]){ 0 },
				 1, &e), -SIM_ESTATE);
	cr_assert_str_eq(e.msg, "net: job '2': no GPUs on node '2'");
	cr_assert_eq(net_job_add(net, 2, NULL, NULL, 0, &e), -SIM_ESTATE);
	cr_assert_str_eq(e.msg, "net: job '2' has no nodes");
	cr_assert_eq(net_job_remove(net, 2, &e), -SIM_ESTATE);
	cr_assert_str_eq(e.msg, "net: no job '2' on the fabric");
	cr_assert_eq(net_jobs(net), 1);
	expect_changed(net, (int64_t[]){ 1 }, 1);
	cr_assert_eq(net_job_bandwidth(net, 1), G100);
	net_free(net);
	net_free(NULL);
}

/* ---- randomised: incremental vs a naive from-scratch filling ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(rng_next(s) % n);
}

#define RN_NODES 24
#define RN_MAXK 6
#define RN_MAXJOBS 40

struct rjob {
	int64_t id;
	uint32_t nodes[RN_MAXK];
	uint32_t gpus[RN_MAXK];
	uint32_t k;
	double seen; /* bandwidth at the last net_rates() */
	bool fresh;  /* added since then */
};

/* The links a job crosses, worked out independently: every node's NIC
 * when it spans nodes, every rack's leaf when it spans racks. */
static uint32_t rjob_links(const struct rjob *j, uint32_t rack,
			   uint32_t *out)
{
	if (j->k < 2)
		return 0;
	bool racks[RN_NODES] = { false };
	uint32_t nr = 0, n = 0;
	for (uint32_t i = 0; i < j->k; i++) {
		out[n++] = j->nodes[i];
		if (!racks[j->nodes[i] / rack]) {
			racks[j->nodes[i] / rack] = true;
			nr++;
		}
	}
	if (nr > 1)
		for (uint32_t r = 0; r < RN_NODES; r++)
			if (racks[r])
				out[n++] = RN_NODES + r;
	return n;
}

/* Textbook progressive filling, one bottleneck link per round. */
static void naive_fill(const struct rjob *jobs, size_t n, uint32_t rack,
		       double nic, double up, double *share)
{
	uint32_t links[RN_MAXJOBS][RN_MAXK * 2], nl[RN_MAXJOBS];
	bool frozen[RN_MAXJOBS];
	for (size_t i = 0; i < n; i++) {
		nl[i] = rjob_links(&jobs[i], rack, links[i]);
		frozen[i] = nl[i] == 0;
		share[i] = INFINITY;
	}
	for (;;) {
		double best = INFINITY;
		uint32_t bl = 0;
		for (uint32_t l = 0; l < 2 * RN_NODES; l++) {
			double rem = l < RN_NODES ? nic : up;
			uint32_t cnt = 0;
			for (size_t i = 0; i < n; i++)
				for (uint32_t x = 0; x < nl[i]; x++)
					if (links[i][x] == l) {
						if (frozen[i])
							rem -= share[i];
						else
							cnt++;
					}
			if (cnt && rem / cnt < best) {
				best = rem / cnt;
				bl = l;
			}
		}
		if (isinf(best))
			break;
		for (size_t i = 0; i < n; i++)
			for (uint32_t x = 0; x < nl[i] && !frozen[i]; x++)
				if (links[i][x] == bl) {
					frozen[i] = true;
					share[i] = best;
				}
	}
}

static bool near(double a, double b)
{
	if (isinf(a) || isinf(b))
		return a == b;
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

Test(net, randomised_incremental_matches_from_scratch)
{
	uint64_t seed = 12345;
	struct rjob jobs[RN_MAXJOBS];
	size_t n = 0;
	int64_t next_id = 100;
	double share[RN_MAXJOBS];
	struct sim_error e;

	for (int round = 0; round < 6; round++) {
		uint32_t rack = 2 + rng_below(&seed, 5); /* 2..6 nodes */
		double nic = 50 + 50 * rng_below(&seed, 4);
		struct net_spec s = spec_links(rack, nic,
					       1 + rng_below(&seed, 4),
					       25 + 25 * rng_below(&seed, 8));
		s.nvlink_gBps = 1000;
		double up_Bps = net_spec_leaf_up_gbps(&s) * 125e6;
		struct net *net = net_new(&s, RN_NODES);
		n = 0;
		for (int step = 0; step < 400; step++) {
			bool grow = n == 0 ||
				    (n < RN_MAXJOBS && rng_below(&seed, 3));
			if (grow) {
				struct rjob *j = &jobs[n];
				j->id = next_id;
				next_id += 1 + rng_below(&seed, 3);
				j->k = 1 + rng_below(&seed, RN_MAXK);
				for (uint32_t i = 0; i < j->k; i++) {
					uint32_t v;
					bool dup;
					do {
						v = rng_below(&seed, RN_NODES);
						dup = false;
						for (uint32_t x = 0; x < i; x++)
							dup |= j->nodes[x] == v;
					} while (dup);
					j->nodes[i] = v;
					j->gpus[i] = 1 + rng_below(&seed, 2);
				}
				j->fresh = true;
				cr_assert_eq(net_job_add(net, j->id, j->nodes,
							 j->gpus, j->k, &e),
					     0, "%s", e.msg);
				n++;
			} else {
				size_t v = rng_below(&seed, (uint32_t)n);
				cr_assert_eq(net_job_remove(net, jobs[v].id,
							    &e), 0, "%s",
					     e.msg);
				jobs[v] = jobs[--n];
			}
			if (rng_below(&seed, 3))
				continue;

			/* Changed list: the new jobs and exactly those whose
			 * bandwidth differs from the last one seen. */
			const int64_t *ch;
			size_t nch = net_rates(net, &ch);
			size_t want = 0;
			for (size_t i = 0; i < n; i++) {
				double bw = net_job_bandwidth(net, jobs[i].id);
				bool listed = false;
				for (size_t x = 0; x < nch; x++)
					listed |= ch[x] == jobs[i].id;
				bool changed = jobs[i].fresh ||
					       bw != jobs[i].seen;
				cr_assert_eq(listed, changed,
					     "job %lld listed %d changed %d",
					     (long long)jobs[i].id, listed,
					     changed);
				want += changed;
				jobs[i].seen = bw;
				jobs[i].fresh = false;
			}
			cr_assert_eq(nch, want);
			for (size_t x = 1; x < nch; x++)
				cr_assert_lt(ch[x - 1], ch[x]);

			/* Against the naive filling. */
			naive_fill(jobs, n, rack, nic * 125e6, up_Bps, share);
			for (size_t i = 0; i < n; i++) {
				const struct rjob *j = &jobs[i];
				uint32_t p = 0;
				bool multi = false;
				for (uint32_t x = 0; x < j->k; x++) {
					p += j->gpus[x];
					multi |= j->gpus[x] > 1;
				}
				double ref = p == 1 ? INFINITY
					     : j->k == 1 ? 1e12
					     : multi ? fmin(share[i], 1e12)
						     : share[i];
				cr_assert(near(j->seen, ref),
					  "job %lld: %.17g vs naive %.17g",
					  (long long)j->id, j->seen, ref);
			}

			/* Max-min optimality: every multi-node job has a
			 * saturated link on which no job gets more. */
			uint32_t links[RN_MAXK * 2];
			for (size_t i = 0; i < n; i++) {
				uint32_t nl = rjob_links(&jobs[i], rack, links);
				bool ok = nl == 0;
				for (uint32_t x = 0; x < nl && !ok; x++) {
					double sum = 0, mx = 0;
					uint32_t l2[RN_MAXK * 2];
					for (size_t o = 0; o < n; o++) {
						uint32_t m = rjob_links(
							&jobs[o], rack, l2);
						for (uint32_t y = 0; y < m; y++)
							if (l2[y] == links[x]) {
								sum += jobs[o].seen;
								mx = fmax(mx,
									  jobs[o].seen);
							}
					}
					double cap = links[x] < RN_NODES
							     ? nic * 125e6
							     : up_Bps;
					ok = near(sum, cap) &&
					     near(mx, jobs[i].seen);
				}
				cr_assert(ok, "job %lld has no bottleneck",
					  (long long)jobs[i].id);
			}

			/* From scratch inside the module: same bits. */
			net_recompute_all(net);
			for (size_t i = 0; i < n; i++)
				cr_assert_eq(net_job_bandwidth(net, jobs[i].id),
					     jobs[i].seen);
			cr_assert_eq(net_rates(net, &ch), 0);
			cr_assert_eq(net_check(net, &e), 0, "%s", e.msg);
		}
		net_free(net);
	}
}

/* ---- randomised: the same bits as a step-by-step filling ---- */

#define SF_NODES 160 /* the larger fabric: components of over 128 links */
#define SF_JOBS 150

/* rjob_links() on a fabric of nn nodes. */
static uint32_t links_on(const struct rjob *j, uint32_t rack, uint32_t nn,
			 uint32_t *out)
{
	if (j->k < 2)
		return 0;
	bool racks[SF_NODES] = { false };
	uint32_t n = 0;
	for (uint32_t i = 0; i < j->k; i++) {
		out[n++] = j->nodes[i];
		racks[j->nodes[i] / rack] = true;
	}
	uint32_t nr = 0;
	for (uint32_t r = 0; r < nn; r++)
		nr += racks[r];
	for (uint32_t r = 0; nr > 1 && r < nn; r++)
		if (racks[r])
			out[n++] = nn + r;
	return n;
}

/*
 * Progressive filling in the steps net.h describes, written here without
 * the module's component search or its search for the least level: every
 * link at the least level saturates in one step, each link then loses
 * level x (frozen streams) of its remaining capacity and its level
 * becomes max(remaining / unfrozen, x).  Every rate must be the same bits
 * as the module's, whichever links or jobs a change touched.
 */
static void step_fill(const struct rjob *jobs, size_t n, uint32_t rack,
		      uint32_t nn, double nic, double up, double *share)
{
	enum { NL = 2 * SF_NODES };
	static uint32_t links[SF_JOBS][RN_MAXK * 2], on[NL][SF_JOBS];
	uint32_t nl[SF_JOBS], non[NL] = { 0 }, unf[NL];
	bool frozen[SF_JOBS], live[NL];
	double rem[NL], level[NL];
	for (size_t i = 0; i < n; i++) {
		nl[i] = links_on(&jobs[i], rack, nn, links[i]);
		frozen[i] = nl[i] == 0;
		share[i] = INFINITY;
		for (uint32_t x = 0; x < nl[i]; x++) {
			uint32_t l = links[i][x];
			on[l][non[l]++] = (uint32_t)i;
		}
	}
	for (uint32_t l = 0; l < 2 * nn; l++) {
		rem[l] = l < nn ? nic : up;
		unf[l] = non[l];
		live[l] = unf[l] > 0;
		level[l] = live[l] ? rem[l] / unf[l] : 0;
	}
	for (;;) {
		double x = INFINITY;
		for (uint32_t l = 0; l < 2 * nn; l++)
			if (live[l] && level[l] < x)
				x = level[l];
		if (isinf(x))
			break;
		uint32_t now[SF_JOBS], nnow = 0, m[NL] = { 0 };
		for (uint32_t l = 0; l < 2 * nn; l++) {
			if (!live[l] || level[l] != x)
				continue;
			live[l] = false;
			for (uint32_t y = 0; y < non[l]; y++) {
				uint32_t i = on[l][y];
				if (!frozen[i]) {
					frozen[i] = true;
					share[i] = x;
					now[nnow++] = i;
				}
			}
		}
		for (uint32_t y = 0; y < nnow; y++)
			for (uint32_t z = 0; z < nl[now[y]]; z++)
				m[links[now[y]][z]]++;
		for (uint32_t l = 0; l < 2 * nn; l++) {
			if (!m[l])
				continue;
			unf[l] -= m[l];
			rem[l] -= x * m[l];
			if (unf[l] == 0)
				live[l] = false;
			else if (live[l])
				level[l] = fmax(rem[l] / unf[l], x);
		}
	}
}

/* Random starts and stops on a fabric of nn nodes (at most maxj jobs),
 * each followed by a check of every rate against step_fill(); returns the
 * rates checked and counts, in *ties, pairs of multi-node jobs with equal
 * rates and, in *big, checks with over 128 links in use. */
static size_t same_bits_run(uint64_t *seed, uint32_t nn, size_t maxj,
			    int rounds, int steps, size_t *ties, size_t *big)
{
	static struct rjob jobs[SF_JOBS];
	static double share[SF_JOBS];
	struct sim_error e;
	size_t checked = 0;
	int64_t next_id = 1;
	for (int round = 0; round < rounds; round++) {
		uint32_t rack = 2 + rng_below(seed, 5);
		/* Round capacities and an oversubscription of 1 or 2 (the
		 * uplink equal to, or half of, the rack's NICs) make levels
		 * tie across links, the case where steps matter. */
		double nic = 100.0 * (1 + rng_below(seed, 2));
		struct net_spec s = round % 2
			? spec_ratio(rack, nic, 1 + rng_below(seed, 2))
			: spec_links(rack, nic, 1 + rng_below(seed, 3), 100);
		s.nvlink_gBps = 1000;
		double up_Bps = net_spec_leaf_up_gbps(&s) * 125e6;
		struct net *net = net_new(&s, nn);
		size_t n = 0;
		for (int step = 0; step < steps; step++) {
			if (n == 0 || (n < maxj && rng_below(seed, 3))) {
				struct rjob *j = &jobs[n++];
				j->id = next_id++;
				j->k = 1 + rng_below(seed, RN_MAXK);
				for (uint32_t i = 0; i < j->k; i++) {
					bool dup;
					do {
						j->nodes[i] = rng_below(seed, nn);
						dup = false;
						for (uint32_t x = 0; x < i; x++)
							dup |= j->nodes[x] ==
							       j->nodes[i];
					} while (dup);
					j->gpus[i] = 1 + rng_below(seed, 2);
				}
				cr_assert_eq(net_job_add(net, j->id, j->nodes,
							 j->gpus, j->k, &e),
					     0, "%s", e.msg);
			} else {
				size_t v = rng_below(seed, (uint32_t)n);
				cr_assert_eq(net_job_remove(net, jobs[v].id,
							    &e), 0, "%s",
					     e.msg);
				jobs[v] = jobs[--n];
			}
			step_fill(jobs, n, rack, nn, nic * 125e6, up_Bps,
				  share);
			bool used[2 * SF_NODES] = { false };
			uint32_t nused = 0, l2[RN_MAXK * 2];
			for (size_t i = 0; i < n; i++) {
				const struct rjob *j = &jobs[i];
				uint32_t p = 0;
				bool multi = false;
				for (uint32_t x = 0; x < j->k; x++) {
					p += j->gpus[x];
					multi |= j->gpus[x] > 1;
				}
				double ref = p == 1 ? INFINITY
					     : j->k == 1 ? 1e12
					     : multi ? fmin(share[i], 1e12)
						     : share[i];
				double got = net_job_bandwidth(net, j->id);
				cr_assert(memcmp(&got, &ref, sizeof(got)) == 0,
					  "round %d step %d job %lld: %.17g, "
					  "step filling %.17g", round, step,
					  (long long)j->id, got, ref);
				checked++;
				for (size_t o = 0; o < i && j->k > 1; o++)
					*ties += jobs[o].k > 1 &&
						 share[o] == share[i];
				uint32_t m = links_on(j, rack, nn, l2);
				for (uint32_t x = 0; x < m; x++)
					if (!used[l2[x]]) {
						used[l2[x]] = true;
						nused++;
					}
			}
			*big += nused > 128;
		}
		net_free(net);
	}
	return checked;
}

Test(net, randomised_same_bits_as_step_filling)
{
	uint64_t seed = 777;
	size_t ties = 0, big = 0;
	/* A small fabric (the filling scans its links) and a larger one
	 * (over 128 links in play: a heap). */
	size_t small = same_bits_run(&seed, RN_NODES, RN_MAXJOBS, 8, 300,
				     &ties, &big);
	cr_assert_gt(small, 10000);
	cr_assert_gt(ties, 1000);
	cr_assert_eq(big, 0);
	size_t large = same_bits_run(&seed, SF_NODES, SF_JOBS, 2, 250,
				     &ties, &big);
	cr_assert_gt(large, 10000);
	cr_assert_gt(big, 100);
}
