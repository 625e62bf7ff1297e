/*
 * Seeds use all 64 bits.  The generator used to fold a seed to 32 bits
 * for GSL's mt19937, so seeds 1 and 4294967296 gave one workload, and 0,
 * 4294967297 and 4357 (mt19937's seed for 0) another; it now draws from
 * Philox keyed by the whole seed (sim/workload/gen_rng.h), one stream
 * per field of each job.  An experiment writes a seed past 2^53 - 1 as a
 * string of digits, since a JSON number there may not be exact; a number
 * there, a negative or fractional seed, or digits past 2^64 - 1 are
 * refused with the JSON path, and every output writes seeds in the form
 * the experiment takes back.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Random123/philox.h>

#include "base/util.h"
#include "exp/exp.h"
#include "exp/exp_schema.h"
#include "workload/gen_rng.h"
#include "workload/workload.h"
#include "testlib.h"

/* 2,000 jobs with every field drawn: lognormal runs, exponential gaps,
 * power-of-two CPUs, uniform estimate factors, 20 users. */
static void spec(struct gen_spec *g)
{
	memset(g, 0, sizeof(*g));
	g->jobs = 2000;
	g->interarrival.kind = DIST_EXPONENTIAL;
	g->interarrival.p[0] = 30;
	g->runtime.kind = DIST_LOGNORMAL;
	g->runtime.p[0] = 6;
	g->runtime.p[1] = 1.5;
	g->cpus.kind = DIST_POW2;
	g->cpus.p[0] = 1;
	g->cpus.p[1] = 128;
	g->estimate_factor.kind = DIST_UNIFORM;
	g->estimate_factor.p[0] = 1;
	g->estimate_factor.p[1] = 4;
	g->users = 20;
}

static void gen(const struct gen_spec *g, uint64_t seed, struct workload *w)
{
	struct sim_error err = { .msg = "" };
	cr_assert_eq(gen_workload(g, seed, NULL, w, &err), 0, "%s", err.msg);
}

/* Jobs of a and b with equal run times. */
static size_t same_runs(const struct workload *a, const struct workload *b)
{
	size_t same = 0;
	for (size_t k = 0; k < a->n && k < b->n; k++)
		same += a->jobs[k].run == b->jobs[k].run;
	return same;
}

/* Whether a and b hold the same jobs, field for field. */
static bool same_jobs(const struct workload *a, const struct workload *b)
{
	if (a->n != b->n)
		return false;
	for (size_t k = 0; k < a->n; k++) {
		const struct job *x = &a->jobs[k], *y = &b->jobs[k];
		if (x->id != y->id || x->submit != y->submit ||
		    x->run != y->run || x->estimate != y->estimate ||
		    x->cpus != y->cpus || x->gpus != y->gpus ||
		    x->user != y->user)
			return false;
	}
	return true;
}

Test(seeds, every_bit_of_the_seed_gives_another_workload)
{
	/* The pairs the 32-bit fold merged, and the high bit alone. */
	static const uint64_t seeds[] = { 1, UINT64_C(4294967296), 0,
					  UINT64_C(4294967297), 4357,
					  UINT64_C(1) << 63, UINT64_MAX };
	enum { N = sizeof(seeds) / sizeof(seeds[0]) };
	struct gen_spec g;
	struct workload w[N], again;
	spec(&g);
	for (size_t i = 0; i < N; i++)
		gen(&g, seeds[i], &w[i]);
	/* Lognormal run times in microseconds: a few equal by chance. */
	for (size_t i = 0; i < N; i++)
		for (size_t j = i + 1; j < N; j++)
			cr_assert_lt(same_runs(&w[i], &w[j]), 20,
				     "seeds %llu and %llu: %zu equal runs",
				     (unsigned long long)seeds[i],
				     (unsigned long long)seeds[j],
				     same_runs(&w[i], &w[j]));
	/* The same seed gives the same jobs. */
	for (size_t i = 0; i < N; i++) {
		gen(&g, seeds[i], &again);
		cr_assert(same_jobs(&w[i], &again), "seed %llu",
			  (unsigned long long)seeds[i]);
		workload_release(&again);
	}
	for (size_t i = 0; i < N; i++)
		workload_release(&w[i]);
}

/* Each field of each job has a stream of its own: a constant gap (no
 * draw) or a gamma gap (a variable number of draws) leaves every other
 * field of every job as it was. */
Test(seeds, a_field_draws_from_its_own_stream)
{
	struct gen_spec g;
	struct workload a, b, c;
	spec(&g);
	gen(&g, 7, &a);
	g.interarrival.kind = DIST_CONSTANT;
	g.interarrival.p[0] = 5;
	gen(&g, 7, &b);
	g.interarrival.kind = DIST_GAMMA;
	g.interarrival.p[0] = 0.3;
	g.interarrival.p[1] = 100;
	gen(&g, 7, &c);
	for (size_t k = 0; k < a.n; k++) {
		const struct job *x = &a.jobs[k];
		const struct job *ys[] = { &b.jobs[k], &c.jobs[k] };
		for (size_t i = 0; i < 2; i++) {
			cr_assert_eq(x->id, ys[i]->id);
			cr_assert_eq(x->run, ys[i]->run, "job %zu", k);
			cr_assert_eq(x->cpus, ys[i]->cpus);
			cr_assert_eq(x->estimate, ys[i]->estimate);
			cr_assert_eq(x->user, ys[i]->user);
		}
	}
	workload_release(&a);
	workload_release(&b);
	workload_release(&c);
}

/* The generator's words are Philox 4x32-10's blocks under the key (seed
 * low, seed high) and the counter (job, field, "gen1", block), in order:
 * the stream is defined by the cipher, not by a library version. */
Test(seeds, the_stream_is_philox_of_the_seed)
{
	uint64_t seed = UINT64_C(0x0123456789abcdef);
	gsl_rng *r = gen_rng_new(seed);
	philox4x32_key_t key = { { 0x89abcdefu, 0x01234567u } };
	gen_rng_stream(r, 3, 2);
	for (uint32_t blk = 0; blk < 3; blk++) {
		philox4x32_ctr_t ctr = { { 3, 2, 0x67656e31u, blk } };
		philox4x32_ctr_t want = philox4x32(ctr, key);
		for (int i = 0; i < 4; i++)
			cr_assert_eq(gsl_rng_get(r), want.v[i], "block %u "
				     "word %d", blk, i);
	}
	/* A restart gives the stream from its start; doubles are words
	 * over 2^32. */
	gen_rng_stream(r, 3, 2);
	philox4x32_ctr_t c0 = { { 3, 2, 0x67656e31u, 0 } };
	cr_assert_eq(gsl_rng_uniform(r),
		     philox4x32(c0, key).v[0] / 4294967296.0);
	gsl_rng_free(r);
}

/* ---- seeds in experiment files ------------------------------------- */

#define DOC(seeds)                                                          \
	"{\"cluster\": {\"nodes\": [{\"count\": 2, \"cpus\": 4}]}, "        \
	"\"workload\": {\"trace\": \"t.swf\"}, \"policies\": [\"fcfs\"], "  \
	"\"seeds\": " seeds "}"

static void refused(const char *text, const char *msg)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "f.json", &e, &err), -SIM_EINPUT,
		     "accepted %s", text);
	cr_assert_str_eq(err.msg, msg);
}

Test(seeds, experiment_seeds_past_2_53_are_strings)
{
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(DOC("[0, 9007199254740991, \"4294967296\", "
				   "\"18446744073709551615\", \"7\"]"),
			       "f.json", &e, &err), 0, "%s", err.msg);
	cr_assert_eq(e.nseeds, 5);
	cr_assert_eq(e.seeds[0], 0);
	cr_assert_eq(e.seeds[1], UINT64_C(9007199254740991));
	cr_assert_eq(e.seeds[2], UINT64_C(4294967296));
	cr_assert_eq(e.seeds[3], UINT64_MAX);
	cr_assert_eq(e.seeds[4], 7);
	/* The resolved configuration gives them back as they were
	 * written: numbers up to 2^53 - 1, strings past it. */
	char *res = exp_resolved_json(&e);
	cr_assert_not_null(strstr(res, "\"seeds\":\t[0, 9007199254740991, "
				  "4294967296, \"18446744073709551615\", "
				  "7]"), "%s", res);
	free(res);
	exp_release(&e);
}

Test(seeds, experiment_seeds_that_are_not_exact_are_refused)
{
	refused(DOC("[9007199254740992]"),
		"f.json: $.seeds[0]: seed '9007199254740992' is past 2^53 - "
		"1, where a JSON number may not be exact: write it as a "
		"string of its digits, e.g. \"18446744073709551615\"");
	refused(DOC("[1, 18446744073709551615]"),
		"f.json: $.seeds[1]: seed '1.8446744073709552e+19' is past "
		"2^53 - 1, where a JSON number may not be exact: write it as "
		"a string of its digits, e.g. \"18446744073709551615\"");
	refused(DOC("[\"18446744073709551616\"]"),
		"f.json: $.seeds[0]: seed '18446744073709551616' does not fit "
		"in 64 bits (at most 18446744073709551615)");
	refused(DOC("[-1]"), "f.json: $.seeds[0]: must be >= 0, got '-1'");
	refused(DOC("[1.5]"),
		"f.json: $.seeds[0]: expected an integer, got '1.5'");
	static const char *const bad_text[] = { "\"-1\"", "\"+1\"", "\"\"",
						"\"01\"", "\"1e3\"", "\"1.0\"",
						"\" 1\"" };
	for (size_t i = 0; i < sizeof(bad_text) / sizeof(*bad_text); i++) {
		char doc[512], msg[256], shown[16];
		snprintf(doc, sizeof(doc), DOC("[%s]"), bad_text[i]);
		snprintf(shown, sizeof(shown), "%.*s",
			 (int)strlen(bad_text[i]) - 2, bad_text[i] + 1);
		snprintf(msg, sizeof(msg), "f.json: $.seeds[0]: expected a "
			 "seed as a string of decimal digits (no sign, no "
			 "leading zero), got '%s'", shown);
		refused(doc, msg);
	}
	refused(DOC("[true]"), "f.json: $.seeds[0]: expected an integer or "
		"a string of digits, got boolean");
	/* One seed written both ways is one seed. */
	refused(DOC("[4294967296, \"4294967296\"]"),
		"f.json: $.seeds[1]: duplicate seed '4294967296' (also "
		"$.seeds[0])");
}

/* ---- through the command line ---------------------------------------- */

static char tmp[256];
static char bin[512];

static void cli_setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "seeds");
	tl_cli_need_bin(bin);
}

static void cli_teardown(void)
{
	tl_rmtree(tmp);
}

static void put_experiment(const char *name, const char *seeds)
{
	char *text = xasprintf(
		"{ \"cluster\": { \"nodes\": [ { \"count\": 4, \"cpus\": 4 } ] },\n"
		"  \"workload\": { \"generate\": { \"jobs\": 200,\n"
		"    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 60 },\n"
		"    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 5, \"sigma\": 1 },\n"
		"    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"
		"  \"seeds\": %s,\n"
		"  \"policies\": [ \"fcfs\", \"easy\" ], \"output\": \"out\" }\n",
		seeds);
	tl_put(tmp, name, text);
	free(text);
}

static char *slurp(const char *name)
{
	char *s = tl_slurp(tmp, name);
	cr_assert_not_null(s, "%s", name);
	return s;
}

Test(seeds, outputs_write_a_seed_as_the_experiment_takes_it,
     .init = cli_setup, .fini = cli_teardown)
{
	put_experiment("e.json", "[ 1, 4294967296, \"18446744073709551615\" ]");
	int rc = tl_sh(tmp, "'%s' run e.json --no-plots -q", bin);
	char *err = slurp("err.txt");
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	char *man = slurp("out/manifest.json");
	cr_assert_not_null(strstr(man, "\"seeds\":\t[1, 4294967296, "
				  "\"18446744073709551615\"]"), "%s", man);
	cr_assert_not_null(strstr(man, "\"seed\":\t\"18446744073709551615\""));
	free(man);
	char *sum = slurp("out/easy-s18446744073709551615/summary.json");
	cr_assert_not_null(strstr(sum, "\"seed\":\t\"18446744073709551615\""),
			   "%s", sum);
	free(sum);
	char *csv = slurp("out/summary.csv");
	cr_assert_not_null(strstr(csv, "\nfcfs,fcfs,generated,"
				  "18446744073709551615,"), "%s", csv);
	free(csv);
	/* Seeds 2^32 apart: other jobs. */
	char *a = slurp("out/fcfs-s1/jobs.csv");
	char *b = slurp("out/fcfs-s4294967296/jobs.csv");
	cr_assert(strcmp(a, b) != 0);
	free(b);
	/* One policy again into the folder: the run of the string seed is
	 * found and replaced, the others kept; the bytes are a full run's. */
	char *full = slurp("out/summary.csv");
	rc = tl_sh(tmp, "'%s' run e.json --no-plots -q --policy fcfs", bin);
	cr_assert_eq(rc, 0);
	char *kept = slurp("out/summary.csv");
	cr_assert_str_eq(kept, full);
	char *again = slurp("out/fcfs-s1/jobs.csv");
	cr_assert_str_eq(again, a);
	free(a);
	free(again);
	free(kept);
	free(full);
}

Test(seeds, a_seed_that_is_not_exact_is_exit_2, .init = cli_setup,
     .fini = cli_teardown)
{
	put_experiment("e.json", "[ 1, 18446744073709551615 ]");
	int rc = tl_sh(tmp, "'%s' run e.json --no-plots -q", bin);
	cr_assert_eq(rc, 2);
	char *err = slurp("err.txt");
	cr_assert_not_null(strstr(err, "e.json: $.seeds[1]: seed "
				  "'1.8446744073709552e+19' is past 2^53 - 1"),
			   "%s", err);
	free(err);
	put_experiment("f.json", "[ \"-3\" ]");
	cr_assert_eq(tl_sh(tmp, "'%s' validate f.json", bin), 2);
}

/* A sweep with a seed past 2^53 - 1: its manifest writes the seed as a
 * string, and merge, which rebuilds summary.csv from the manifest and the
 * run folders, reads it back to the same bytes. */
Test(seeds, a_sweep_reads_its_string_seeds_back, .init = cli_setup,
     .fini = cli_teardown)
{
	tl_put(tmp, "s.json",
	       "{ \"cluster\": { \"nodes\": [ { \"count\": 4, \"cpus\": 4 } ] },\n"
	       "  \"workload\": { \"generate\": { \"jobs\": 100,\n"
	       "    \"interarrival\": { \"dist\": \"exponential\", \"mean\": 60 },\n"
	       "    \"runtime\": { \"dist\": \"lognormal\", \"mu\": 5, \"sigma\": 1 },\n"
	       "    \"cpus\": { \"dist\": \"pow2\", \"min\": 1, \"max\": 16 } } },\n"
	       "  \"seeds\": [ 3, \"18446744073709551615\" ],\n"
	       "  \"policies\": [ \"fcfs\" ], \"output\": \"out\",\n"
	       "  \"sweep\": { \"workload.load_scale\": [ 1, 2 ] } }\n");
	int rc = tl_sh(tmp, "'%s' sweep s.json -j 1 --no-plots -q", bin);
	char *err = slurp("err.txt");
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	char *man = slurp("out/manifest.json");
	cr_assert_not_null(strstr(man, "\"seed\":\t\"18446744073709551615\""),
			   "%s", man);
	free(man);
	char *ref = slurp("out/summary.csv");
	cr_assert_not_null(strstr(ref, ",18446744073709551615,"), "%s", ref);
	cr_assert_eq(tl_sh(tmp, "rm out/summary.csv && '%s' merge out "
			   "--no-plots", bin), 0);
	char *merged = slurp("out/summary.csv");
	cr_assert_str_eq(merged, ref);
	free(merged);
	free(ref);
}
