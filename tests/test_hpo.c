/*
 * Tests of hyperparameter searches: the ASHA decisions the engine makes
 * at rungs (sim/engine/sim_hpo.c) on hand-made searches whose reports are
 * set by hand, worked out in the comments; Hyperband's brackets against
 * the table of the Hyperband paper; the hpo_rung policy on a hand-made
 * case; the experiment keys' errors; the generator's determinism and the
 * independence of its streams.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "base/util.h"
#include "exp/exp.h"
#include "report/out.h"
#include "workload/hpo.h"

#define E 100.0 /* seconds per epoch in the hand-made searches */

/* A hand-made search: nt trials (job ids first_id ..) of 1 GPU, no CPUs,
 * all submitted at 0, reporting loss[i][k] at global rung k; plus nj
 * ordinary 1-GPU jobs (ids 1 .. nj) from t. */
static void hand_search_at(struct workload *w, const struct hpo_spec *h,
			   uint32_t nt, const double (*loss)[HPO_MAX_RUNGS],
			   const struct tjob *t, size_t nj, double at,
			   double load_scale)
{
	struct sim_error err = { .msg = "" };
	struct trace_opts o;
	trace_opts_default(&o);
	o.load_scale = load_scale;
	workload_init(w);
	struct hpo_set *s = xcalloc(1, sizeof(*s));
	s->spec = *h;
	s->nrungs = hpo_ladder(h, s->rungs);
	s->nsearches = 1;
	s->ntrials = nt;
	s->searches = xcalloc(1, sizeof(*s->searches));
	s->searches[0].ntrials = nt;
	s->searches[0].submit = (sim_time_t)(at * SIM_SEC);
	s->trials = xcalloc(nt, sizeof(*s->trials));
	s->first_id = (int64_t)nj + 1;
	w->n = nj + nt;
	w->jobs = xcalloc(w->n, sizeof(*w->jobs));
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		j->id = (int64_t)i + 1;
		j->gpus = 1;
		j->user = -1;
		j->group = -1;
		j->flags = JOB_HAS_ESTIMATE;
		if (i < nj) {
			j->submit = (sim_time_t)(t[i].submit * SIM_SEC);
			j->run = (sim_time_t)(t[i].run * SIM_SEC);
		} else {
			uint32_t k = (uint32_t)(i - nj);
			s->trials[k].trial = k;
			s->trials[k].bracket = hpo_trial_bracket(h, k);
			memcpy(s->trials[k].loss, loss[k],
			       sizeof(s->trials[k].loss));
			j->submit = s->searches[0].submit;
			j->run = (sim_time_t)(h->epoch_s * SIM_SEC) *
				 h->max_epochs;
		}
		j->estimate = j->run;
	}
	w->hpo = s;
	cr_assert_eq(workload_finish(w, &o, "hand", &err), 0, "%s", err.msg);
}

static void hand_search(struct workload *w, const struct hpo_spec *h,
			uint32_t nt, const double (*loss)[HPO_MAX_RUNGS],
			const struct tjob *t, size_t nj)
{
	hand_search_at(w, h, nt, loss, t, nj, 0, 1);
}

/* eta 3, first rung 1 epoch, max 9: rungs 1, 3, then 9. */
static void spec_1_3_9(struct hpo_spec *h)
{
	hpo_spec_default(h);
	h->on = true;
	h->max_epochs = 9;
	h->min_epochs = 1;
	h->eta = 3;
	h->epoch_s = E;
}

/* The 9 trials' reports at 1, 3 and 9 epochs (0 where never read). */
static const double nine[9][HPO_MAX_RUNGS] = {
	{ 0.9, 0.35, 0.30 }, { 0.5, 0.45 }, { 0.7 },
	{ 0.3, 0.25, 0.20 }, { 0.8 },       { 0.4, 0.40 },
	{ 0.6 },             { 0.2, 0.15, 0.12 }, { 0.1, 0.30 },
};

static struct sim *run_on(const char *policy, const struct workload *w,
			  uint32_t gpus)
{
	struct cluster_spec c;
	tl_gpu_cluster(&c, 1, gpus, NULL, 0);
	struct sim_config cfg = { .workload = w, .cluster = &c };
	struct sim *s = tl_run_cfg(policy, NULL, 0, &cfg);
	cluster_spec_release(&c);
	return s;
}

static double end_of(const struct sim *s, int64_t id)
{
	size_t n;
	const struct job *jobs = sim_jobs(s, &n);
	for (size_t i = 0; i < n; i++)
		if (jobs[i].id == id)
			return (double)jobs[i].end / SIM_SEC;
	return -1;
}

/*
 * Nine trials on nine GPUs (fcfs): all report at 1 epoch at t = 100, in
 * job order.  A trial goes on when its rank among the reports so far is
 * at most ceil(n / 3):
 *   t0 0.9 n=1 rank 1 <= 1 on;  t1 0.5 n=2 rank 1 <= 1 on;
 *   t2 0.7 n=3 rank 2 > 1 stop; t3 0.3 n=4 rank 1 <= 2 on;
 *   t4 0.8 n=5 rank 4 > 2 stop; t5 0.4 n=6 rank 2 <= 2 on;
 *   t6 0.6 n=7 rank 4 > 3 stop; t7 0.2 n=8 rank 1 <= 3 on;
 *   t8 0.1 n=9 rank 1 <= 3 on.
 * The six go on 2 epochs and report at 3 epochs at t = 300, in the order
 * they were promoted:
 *   t0 0.35 n=1 on; t1 0.45 n=2 rank 2 > 1 stop; t3 0.25 n=3 rank 1 on;
 *   t5 0.40 n=4 rank 3 > 2 stop; t7 0.15 n=5 rank 1 <= 2 on;
 *   t8 0.30 n=6 rank 3 > 2 stop.
 * t0, t3, t7 run 6 more epochs and end at 900.  t8, best at 1 epoch,
 * stops at 3: its curve flattens.  Best final: t7 (0.12).
 * GPU-seconds: 3 x 100 + 3 x 300 + 3 x 900 = 3900.
 */
Test(hpo, asha_nine_trials_in_parallel)
{
	struct hpo_spec h;
	struct workload w;
	spec_1_3_9(&h);
	hand_search(&w, &h, 9, nine, NULL, 0);
	struct sim *s = run_on("fcfs", &w, 9);
	static const double end[9] = { 900, 300, 100, 900, 100,
				       300, 100, 900, 300 };
	static const int stopped_at[9] = { 0, 3, 1, 0, 1, 3, 1, 0, 3 };
	size_t n;
	const struct hpo_outcome *o = sim_hpo_outcomes(s, &n);
	cr_assert_eq(n, 9);
	double gpu_s = 0;
	for (int i = 0; i < 9; i++) {
		cr_expect_float_eq(end_of(s, i + 1), end[i], 1e-9, "trial %d", i);
		cr_expect_eq(o[i].stopped, stopped_at[i] != 0, "trial %d", i);
		cr_expect_eq(o[i].completed, stopped_at[i] == 0, "trial %d", i);
		if (o[i].stopped)
			cr_expect_eq(w.hpo->rungs[o[i].reported - 1],
				     (uint32_t)stopped_at[i], "trial %d", i);
		cr_expect_eq(o[i].rungs, stopped_at[i] == 1 ? 0u :
			     stopped_at[i] == 3 ? 1u : 2u, "trial %d", i);
		gpu_s += sim_jobs(s, &n)[o[i].job - 1].attained;
	}
	cr_expect_float_eq(gpu_s, 3900, 1e-6);
	cr_expect_float_eq(o[7].loss, 0.12, 1e-12);
	sim_free(s);
	workload_release(&w);
}

/*
 * The same nine on three GPUs: trials start in job order as GPUs free
 * up, so they report one after another and each is ranked among the
 * reports so far (asynchronous):
 *   100: t0 on (n=1), t1 on (n=2, rank 1), t2 stops (n=3, rank 2);
 *        t3 starts
 *   200: t3 0.3 on (n=4, rank 1)
 *   300: t0 at 3 epochs 0.35 on (n=1); t1 0.45 stops (n=2, rank 2);
 *        t4 starts
 *   400: t3 at 3 epochs 0.25 on (n=2, rank 1); t4 0.8 stops (n=5, rank
 *        4 > 2); t5 starts
 *   500: t5 0.4 on (n=6, rank 2 <= 2)
 *   700: t5 at 3 epochs 0.40 stops (n=3, rank 3 > 1); t6 starts
 *   800: t6 0.6 stops (n=7, rank 4 > 3); t7 starts
 *   900: t0 ends (9 epochs); t7 0.2 on (n=8, rank 1); t8 starts
 *  1000: t3 ends; t8 0.1 on (n=9, rank 1)
 *  1100: t7 at 3 epochs 0.15 on (n=4, rank 1 <= 2)
 *  1200: t8 at 3 epochs 0.30 stops (n=5, rank 3 > 2)
 *  1700: t7 ends: the best trial (0.12), 1700 s after the search began.
 */
Test(hpo, asha_nine_trials_on_three_gpus)
{
	struct hpo_spec h;
	struct workload w;
	spec_1_3_9(&h);
	hand_search(&w, &h, 9, nine, NULL, 0);
	struct sim *s = run_on("fcfs", &w, 3);
	static const double end[9] = { 900, 300, 100, 1000, 400,
				       700, 800, 1700, 1200 };
	for (int i = 0; i < 9; i++)
		cr_expect_float_eq(end_of(s, i + 1), end[i], 1e-9, "trial %d", i);
	sim_free(s);
	workload_release(&w);
}

/*
 * Hyperband's brackets for R = 27 epochs, eta 3, r = 1: the ladder is 1,
 * 3, 9 (K = 3) and bracket b (s = K - b stopping rungs) holds
 * ceil((K + 1) / (s + 1) x eta^s) trials: 27, 12, 6, 4, the n column of
 * the Hyperband paper's table for R = 27 (Li et al., JMLR 2018, section
 * 3.3 gives R = 81: 81, 34, 15, 8, 5, also checked).
 */
Test(hpo, hyperband_brackets_by_hand)
{
	struct hpo_spec h;
	uint32_t rungs[HPO_MAX_RUNGS];
	hpo_spec_default(&h);
	h.mode = HPO_HYPERBAND;
	h.max_epochs = 27;
	cr_assert_eq(hpo_ladder(&h, rungs), 3);
	cr_expect_eq(rungs[0], 1);
	cr_expect_eq(rungs[1], 3);
	cr_expect_eq(rungs[2], 9);
	cr_expect_eq(rungs[3], 27);
	static const uint64_t n27[] = { 27, 12, 6, 4 };
	for (uint32_t b = 0; b < 4; b++)
		cr_expect_eq(hpo_bracket_size(&h, 3, b), n27[b], "b %u", b);
	/* Trials fill the brackets in turn: 0-26, 27-38, 39-44, 45-48, then
	 * bracket 0 again. */
	cr_expect_eq(hpo_trial_bracket(&h, 26), 0);
	cr_expect_eq(hpo_trial_bracket(&h, 27), 1);
	cr_expect_eq(hpo_trial_bracket(&h, 38), 1);
	cr_expect_eq(hpo_trial_bracket(&h, 39), 2);
	cr_expect_eq(hpo_trial_bracket(&h, 45), 3);
	cr_expect_eq(hpo_trial_bracket(&h, 48), 3);
	cr_expect_eq(hpo_trial_bracket(&h, 49), 0);
	h.max_epochs = 81;
	cr_assert_eq(hpo_ladder(&h, rungs), 4);
	static const uint64_t n81[] = { 81, 34, 15, 8, 5 };
	for (uint32_t b = 0; b < 5; b++)
		cr_expect_eq(hpo_bracket_size(&h, 4, b), n81[b], "b %u", b);
	/* ASHA: one bracket.  A ladder that does not end on a power: r = 2,
	 * R = 20: rungs 2, 6, 18, then 20. */
	h.mode = HPO_ASHA;
	cr_expect_eq(hpo_trial_bracket(&h, 40), 0);
	h.min_epochs = 2;
	h.max_epochs = 20;
	cr_assert_eq(hpo_ladder(&h, rungs), 3);
	cr_expect_eq(rungs[0], 2);
	cr_expect_eq(rungs[1], 6);
	cr_expect_eq(rungs[2], 18);
	cr_expect_eq(rungs[3], 20);
}

/*
 * Hyperband on R = 3, eta 3: ladder 1 (K = 1); brackets of 3 (b = 0,
 * stops at 1 epoch) and 2 (b = 1, never stopped).  Six trials on six
 * GPUs: t0 t1 t2 in bracket 0, t3 t4 in bracket 1, t5 in bracket 0.
 * At 100 the bracket-0 trials report: t0 0.5 on (n=1), t1 0.4 on (n=2,
 * rank 1), t2 0.6 stops (n=3, rank 3), t5 0.3 on (n=4, rank 1 <= 2).
 * t3 and t4 report nowhere (their awful first-epoch losses are never
 * read) and end with the others at 300.
 */
Test(hpo, hyperband_run_by_hand)
{
	struct hpo_spec h;
	struct workload w;
	spec_1_3_9(&h);
	h.max_epochs = 3;
	h.mode = HPO_HYPERBAND;
	static const double loss[6][HPO_MAX_RUNGS] = {
		{ 0.5, 0.2 }, { 0.4, 0.3 }, { 0.6 },
		{ 9.0, 0.1 }, { 9.0, 0.4 }, { 0.3, 0.25 },
	};
	hand_search(&w, &h, 6, loss, NULL, 0);
	cr_assert_eq(w.hpo->trials[3].bracket, 1);
	cr_assert_eq(w.hpo->trials[5].bracket, 0);
	struct sim *s = run_on("fcfs", &w, 6);
	static const double end[6] = { 300, 300, 100, 300, 300, 300 };
	size_t n;
	const struct hpo_outcome *o = sim_hpo_outcomes(s, &n);
	for (int i = 0; i < 6; i++) {
		cr_expect_float_eq(end_of(s, i + 1), end[i], 1e-9, "trial %d", i);
		cr_expect_eq(o[i].stopped, i == 2, "trial %d", i);
	}
	cr_expect_float_eq(o[3].loss, 0.1, 1e-12); /* best final loss */
	sim_free(s);
	workload_release(&w);
}

/*
 * hpo_rung (quantum 100 GPU-s) on one GPU.  Trial T (its search's only
 * trial: ladder 1 epoch of 300 s, then 3 epochs) starts at 0 and is
 * promoted at 300 (n=1, rank 1).  J, an ordinary 50 s job, comes at 310:
 * T is at rung 1, J at rung 0, so T keeps the GPU to 900 and J runs
 * 900 .. 950.  With an ordinary 900 s job O in T's place, O is at LAS
 * level 3 (310 GPU-s) and J at level 0: J preempts O and runs 310 .. 360,
 * and O ends at 950.
 */
Test(hpo, hpo_rung_keeps_promoted_trials)
{
	struct hpo_spec h;
	struct workload w;
	spec_1_3_9(&h);
	h.max_epochs = 3;
	h.epoch_s = 300;
	static const double loss[1][HPO_MAX_RUNGS] = { { 0.5, 0.4 } };
	static const struct tjob j[] = { { 1, 310, 50, 50, 0 } };
	hand_search(&w, &h, 1, loss, j, 1);
	struct cluster_spec c;
	tl_gpu_cluster(&c, 1, 1, NULL, 0);
	struct param_value q = { .key = (char *)"quantum_s", .type = PV_NUMBER,
				 .num = 100 };
	struct sim_config cfg = { .workload = &w, .cluster = &c };
	struct sim *s = tl_run_cfg("hpo_rung", &q, 1, &cfg);
	cr_expect_float_eq(end_of(s, 2), 900, 1e-9);
	cr_expect_float_eq(end_of(s, 1), 950, 1e-9);
	sim_free(s);
	workload_release(&w);

	static const struct tjob two[] = { { 1, 310, 50, 50, 0 },
					   { 2, 0, 900, 900, 0 } };
	hand_search(&w, &h, 0, loss, two, 2);
	hpo_set_free(w.hpo);
	w.hpo = NULL;
	s = tl_run_cfg("hpo_rung", &q, 1, &cfg);
	cr_expect_float_eq(end_of(s, 1), 360, 1e-9);
	cr_expect_float_eq(end_of(s, 2), 950, 1e-9);
	sim_free(s);
	workload_release(&w);
	cluster_spec_release(&c);
}

/*
 * searches.csv of the nine trials on ten GPUs, submitted at 1000 s after
 * an ordinary 10 s job at 0, with load_scale 2: the trials come at 500 s,
 * and the search's times count from there.  As in the parallel case the
 * best trial (t7, final loss 0.12) ends 900 s later, at 1400; three stop
 * at 1 epoch, three at 3; GPU-hours 3900 / 3600.
 */
Test(hpo, searches_csv_by_hand)
{
	struct hpo_spec h;
	struct workload w;
	spec_1_3_9(&h);
	static const struct tjob one[] = { { 1, 0, 10, 10, 0 } };
	hand_search_at(&w, &h, 9, nine, one, 1, 1000, 2);
	struct sim *s = run_on("fcfs", &w, 10);
	struct run_result r;
	memset(&r, 0, sizeof(r));
	out_result_from_sim(&r, s, &w, false);
	char dir[] = "/tmp/clustersim-hpo-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char *path = xasprintf("%s/searches.csv", dir);
	struct sim_error err = { .msg = "" };
	cr_assert_eq(out_write_searches(path, &r, &err), 0, "%s", err.msg);
	char *text = tl_slurp(dir, "searches.csv");
	cr_expect_str_eq(text,
		"search,submit,trials,completed,best_trial,best_loss,best_end,"
		"time_to_best,time_to_last,gpu_hours,stopped_at_1,"
		"stopped_at_3\n"
		"0,500,9,3,7,0.12,1400,900,900,1.083333,3,3\n");
	free(text);
	unlink(path);
	rmdir(dir);
	free(path);
	out_result_release(&r);
	sim_free(s);
	workload_release(&w);
}

/* A generated workload of 200 jobs with two searches of 9 trials. */
static void gen_with_searches(struct workload *w, uint64_t seed, bool on)
{
	struct gen_spec g;
	struct sim_error err = { .msg = "" };
	memset(&g, 0, sizeof(g));
	g.jobs = 200;
	g.interarrival.kind = DIST_EXPONENTIAL;
	g.interarrival.p[0] = 300;
	g.runtime.kind = DIST_LOGNORMAL;
	g.runtime.p[0] = 7;
	g.runtime.p[1] = 1;
	g.cpus.kind = DIST_CONSTANT;
	g.cpus.p[0] = 1;
	g.estimate_factor.kind = DIST_CONSTANT;
	g.estimate_factor.p[0] = 1;
	g.gpus.kind = DIST_CONSTANT;
	g.gpus.p[0] = 1;
	g.users = 3;
	hpo_spec_default(&g.searches);
	g.searches.on = on;
	g.searches.count = 2;
	g.searches.trials = 9;
	g.searches.max_epochs = 9;
	g.searches.epoch_s = 120;
	g.searches.interarrival_s = 5000;
	cr_assert_eq(gen_workload(&g, seed, NULL, w, &err), 0, "%s", err.msg);
}

/* The same seed gives the same trials and the same decisions; another
 * seed other curves; and adding searches leaves the ordinary jobs as
 * they were (their draws are on streams of their own). */
Test(hpo, generated_searches_are_deterministic)
{
	struct workload a, b, c, plain;
	gen_with_searches(&a, 7, true);
	gen_with_searches(&b, 7, true);
	gen_with_searches(&c, 8, true);
	gen_with_searches(&plain, 7, false);
	cr_assert_eq(a.n, 218);
	cr_assert_eq(plain.n, 200);
	cr_assert_eq(a.hpo->first_id, 201);
	cr_assert_eq(memcmp(a.hpo->trials, b.hpo->trials,
			    18 * sizeof(*a.hpo->trials)), 0);
	cr_assert_neq(a.hpo->trials[0].a, c.hpo->trials[0].a);
	for (size_t i = 0, k = 0; i < a.n; i++) {
		if (a.jobs[i].id > 200)
			continue;
		while (plain.jobs[k].id != a.jobs[i].id)
			k++;
		cr_assert_eq(plain.jobs[k].submit, a.jobs[i].submit);
		cr_assert_eq(plain.jobs[k].run, a.jobs[i].run);
	}
	/* Every curve inside its ranges, every trial 9 epochs of 120 s. */
	for (uint32_t i = 0; i < 18; i++) {
		const struct hpo_trial *t = &a.hpo->trials[i];
		cr_assert(t->a >= 0.05 && t->a <= 0.35);
		cr_assert(t->b >= 0.5 && t->b <= 1.5);
		cr_assert(t->c >= 0.3 && t->c <= 1.2);
	}
	struct sim *s1 = run_on("las", &a, 8), *s2 = run_on("las", &b, 8);
	size_t n1, n2;
	const struct job *j1 = sim_jobs(s1, &n1), *j2 = sim_jobs(s2, &n2);
	cr_assert_eq(n1, n2);
	for (size_t i = 0; i < n1; i++) {
		cr_assert_eq(j1[i].end, j2[i].end);
		cr_assert_eq(j1[i].run, j2[i].run);
	}
	const struct hpo_outcome *o1 = sim_hpo_outcomes(s1, &n1);
	const struct hpo_outcome *o2 = sim_hpo_outcomes(s2, &n2);
	cr_assert_eq(memcmp(o1, o2, n1 * sizeof(*o1)), 0);
	/* A stopped trial's work is what it did: its rung's epochs. */
	for (size_t i = 0; i < n1; i++) {
		const struct job *j = &j1[o1[i].job - 1];
		uint32_t ep = a.hpo->rungs[o1[i].reported - 1];
		cr_assert_eq(j->run, (sim_time_t)ep * 120 * SIM_SEC, "trial %zu",
			     i);
	}
	sim_free(s1);
	sim_free(s2);
	workload_release(&a);
	workload_release(&b);
	workload_release(&c);
	workload_release(&plain);
}

#define HPO_EXP_HEAD                                                         \
	"{\"cluster\": {\"nodes\": [{\"count\": 1, \"cpus\": 8, \"gpus\": 8}]}," \
	"\"workload\": {\"generate\": {\"jobs\": 10, \"gpus\": "              \
	"{\"dist\": \"constant\", \"value\": 1}, \"interarrival\": "          \
	"{\"dist\": \"constant\", \"value\": 1}, \"runtime\": "               \
	"{\"dist\": \"constant\", \"value\": 1}, \"searches\": "

/* exp_parse() fails with a message that starts with want. */
static void expect_bad(const char *searches, const char *want)
{
	char *text = xasprintf("%s%s}}, \"policies\": [\"fcfs\"]}",
			       HPO_EXP_HEAD, searches);
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), -SIM_EINPUT,
		     "accepted %s", searches);
	cr_expect(strncmp(err.msg, want, strlen(want)) == 0,
		  "got '%s', want '%s...'", err.msg, want);
	free(text);
}

Test(hpo, bad_searches_name_the_json_path)
{
	expect_bad("{\"eta\": 1}",
		   "x.json: $.workload.generate.searches.eta: ");
	expect_bad("{\"max_epochs\": -3}",
		   "x.json: $.workload.generate.searches.max_epochs: ");
	expect_bad("{\"min_epochs\": 0}",
		   "x.json: $.workload.generate.searches.min_epochs: ");
	expect_bad("{\"min_epochs\": 10, \"max_epochs\": 9}",
		   "x.json: $.workload.generate.searches.min_epochs: must be "
		   "1 .. max_epochs ('9'), got '10'");
	expect_bad("{\"epoch_s\": -1}",
		   "x.json: $.workload.generate.searches.epoch_s: ");
	expect_bad("{\"hpo\": \"sha\"}",
		   "x.json: $.workload.generate.searches.hpo: ");
	expect_bad("{\"c\": [-1, 2]}",
		   "x.json: $.workload.generate.searches.c: must be [min, "
		   "max] with 0 <= min <= max, got '[-1, 2]'");
	expect_bad("{\"a\": [0.3]}",
		   "x.json: $.workload.generate.searches.a: expected [min, "
		   "max], got 1 numbers");
	expect_bad("{\"tirals\": 3}",
		   "x.json: $.workload.generate.searches: unknown key 'tirals' "
		   "(did you mean 'trials'?)");

	/* And a good one, with every key. */
	char *text = xasprintf("%s%s}}, \"policies\": [\"fcfs\"]}",
			       HPO_EXP_HEAD,
			       "{\"count\": 2, \"trials\": 9, \"gpus\": 1, "
			       "\"max_epochs\": 9, \"min_epochs\": 1, \"eta\": 3,"
			       " \"epoch_s\": 60, \"interarrival_s\": 100, "
			       "\"hpo\": \"hyperband\", \"a\": [0.1, 0.2], "
			       "\"b\": [1, 1], \"c\": [0.5, 0.5], "
			       "\"noise\": 0}");
	struct experiment e;
	struct sim_error err = { .msg = "" };
	cr_assert_eq(exp_parse(text, "x.json", &e, &err), 0, "%s", err.msg);
	const struct hpo_spec *h = &e.workload.gen.searches;
	cr_expect(h->on);
	cr_expect_eq(h->mode, HPO_HYPERBAND);
	cr_expect_eq(h->trials, 9);
	cr_expect_float_eq(h->a[1], 0.2, 1e-12);
	exp_release(&e);
	free(text);
}

/* The command line: a file with bad searches exits 2 naming the JSON
 * path; a good one run twice writes the same bytes. */
#define HPO_CLI_FILE(searches)                                               \
	"{\"name\": \"s\", \"cluster\": {\"nodes\": [{\"count\": 2, "       \
	"\"cpus\": 8, \"gpus\": 4}]}, \"workload\": {\"generate\": "         \
	"{\"jobs\": 40, \"gpus\": {\"dist\": \"constant\", \"value\": 1}, "   \
	"\"interarrival\": {\"dist\": \"exponential\", \"mean\": 200}, "      \
	"\"runtime\": {\"dist\": \"lognormal\", \"mu\": 7, \"sigma\": 1}, "   \
	"\"searches\": " searches "}}, \"policies\": [\"las\", "             \
	"\"hpo_rung\"], \"seeds\": [3], \"output\": \"out\"}"

static int hpo_cli(const char *tmp, const char *bin, const char *args,
		   char **err)
{
	char *cmd = xasprintf("cd '%s' && '%s' %s >out.txt 2>err.txt", tmp,
			      bin, args);
	int st = system(cmd);
	free(cmd);
	*err = tl_slurp(tmp, "err.txt");
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(hpo, cli_exit_codes_and_same_bytes)
{
	char bin[512], tmp[256], *err = NULL;
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "hpo");
	tl_cli_need_bin(bin);
	tl_put(tmp, "eta.json", HPO_CLI_FILE("{\"eta\": 1}"));
	tl_put(tmp, "neg.json", HPO_CLI_FILE("{\"max_epochs\": -9}"));
	tl_put(tmp, "good.json",
	       HPO_CLI_FILE("{\"count\": 3, \"trials\": 9, \"max_epochs\": 9,"
			    " \"epoch_s\": 100, \"interarrival_s\": 2000}"));
	cr_expect_eq(hpo_cli(tmp, bin, "validate eta.json", &err), 2);
	cr_expect(err && strstr(err, "eta.json: $.workload.generate.searches."
				"eta: "), "%s", err);
	free(err);
	cr_expect_eq(hpo_cli(tmp, bin, "run --no-plots neg.json", &err), 2);
	cr_expect(err && strstr(err, "$.workload.generate.searches."
				"max_epochs: "), "%s", err);
	free(err);
	cr_assert_eq(hpo_cli(tmp, bin, "run --no-plots good.json -o a", &err),
		     0, "%s", err);
	free(err);
	cr_assert_eq(hpo_cli(tmp, bin, "run --no-plots good.json -o b", &err),
		     0, "%s", err);
	free(err);
	static const char *const files[] = {
		"las-s3/jobs.csv", "las-s3/searches.csv", "las-s3/summary.json",
		"hpo_rung-s3/jobs.csv", "hpo_rung-s3/searches.csv",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *pa = xasprintf("a/%s", files[i]);
		char *pb = xasprintf("b/%s", files[i]);
		char *ta = tl_slurp(tmp, pa), *tb = tl_slurp(tmp, pb);
		cr_assert_not_null(ta, "%s", pa);
		cr_assert_not_null(tb, "%s", pb);
		cr_expect_str_eq(ta, tb, "%s differs", files[i]);
		free(ta);
		free(tb);
		free(pa);
		free(pb);
	}
	/* The header of searches.csv: one stopped_at column per rung. */
	static const char want[] =
		"search,submit,trials,completed,best_trial,best_loss,best_end,"
		"time_to_best,time_to_last,gpu_hours,stopped_at_1,"
		"stopped_at_3\n";
	char *s = tl_slurp(tmp, "a/las-s3/searches.csv");
	cr_expect(s && strncmp(s, want, strlen(want)) == 0, "%s", s);
	free(s);
	tl_rmtree(tmp);
}
