/*
 * Fair Tree, Slurm's fair-share algorithm (include/clustersim/
 * multifactor.h, sim/engine/sim_ftree.c), and the multifactor policy's
 * two fair-share factors, classic and fair_tree (docs/tenants.md "Fair
 * Tree"): the tree's Level Fairshare, ranks and factors worked by hand,
 * the three tie rules, and the policy's order on small cases whose
 * schedule is worked out in the comments.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "base/util.h"
#include "clustersim/multifactor.h"
#include "policy/registry.h"
#include "testlib.h"

/* ---- the tree alone --------------------------------------------------- */

Test(fairtree, level_fs_is_shares_over_usage_among_siblings)
{
	/* LF = S / U: 0.5 / 0.25 = 2 (under-served), 0.5 / 0.75 = 2/3
	 * (over-served); no usage: infinity; no shares: 0, even without
	 * usage. */
	cr_expect_float_eq(mf_level_fs(0.5, 0.25), 2.0, 1e-15);
	cr_expect_float_eq(mf_level_fs(0.5, 0.75), 2.0 / 3, 1e-15);
	cr_expect(isinf(mf_level_fs(0.5, 0)));
	cr_expect_eq(mf_level_fs(0, 0.5), 0.0);
	cr_expect_eq(mf_level_fs(0, 0), 0.0);
}

/*
 * The example of Slurm's Fair Tree page (slurm.schedmd.com/
 * fair_tree.html, "Overview for End Users"): UserA and UserB below
 *     root => Acct1 => Acct12 => UserA
 *     root => Acct1 => Acct16 => UserB
 * Acct1 is their first common ancestor, and the page's rule is that
 * UserB has the higher FairShare exactly when Acct16 has the higher
 * Level FS than Acct12.  It also says the highest ranked user gets 1.0,
 * a user's FairShare is its rank over the number of user associations,
 * and an association without usage has Level FS infinity.  The page
 * gives no usage figures; these are ours, with every share 1 and a
 * second top account Acct2 holding UserC and UserD:
 *
 *   usage: UserA 30, UserB 10, UserC 5, UserD 55 (Acct1 40, Acct2 60)
 *   root:  Acct1 LF 0.5 / 0.4 = 1.25, Acct2 0.5 / 0.6 = 0.8333
 *   Acct1: Acct12 0.5 / (30/40) = 0.6667, Acct16 0.5 / (10/40) = 2
 *   Acct2: UserC 0.5 / (5/60) = 6, UserD 0.5 / (55/60) = 0.5455
 *   walk:  Acct1, Acct16: UserB rank 4, factor 4/4 = 1;
 *          Acct12: UserA 3, 0.75; Acct2: UserC 2, 0.5; UserD 1, 0.25.
 *
 * Acct16's LF (2) is above Acct12's (0.6667) and UserB is above UserA,
 * as the page says.  UserC used less than UserA (5 against 30) yet ranks
 * below every user of Acct1, whose LF is above Acct2's: that is Fair
 * Tree's point.  Classic fair-share over the same normalised shares (S =
 * 0.5 x 0.5 = 0.25 each) ranks the other way: UserC 2^(-0.05/0.25) =
 * 0.871 above UserA 2^(-0.30/0.25) = 0.435.
 */
Test(fairtree, slurm_page_example_ranks_accounts_before_their_users)
{
	struct sim_ftree *t = sim_ftree_new();
	size_t a1 = sim_ftree_account(t, -1, 1);
	size_t a2 = sim_ftree_account(t, -1, 1);
	size_t a12 = sim_ftree_account(t, (long)a1, 1);
	size_t a16 = sim_ftree_account(t, (long)a1, 1);
	size_t ua = sim_ftree_user(t, (long)a12, 1, 1);
	size_t ub = sim_ftree_user(t, (long)a16, 2, 1);
	size_t uc = sim_ftree_user(t, (long)a2, 3, 1);
	size_t ud = sim_ftree_user(t, (long)a2, 4, 1);
	cr_assert_eq(sim_ftree_user(t, (long)a12, 1, 1), ua, "found again");
	cr_assert_eq(sim_ftree_users(t), 4u);
	sim_ftree_set_usage(t, ua, 30);
	sim_ftree_set_usage(t, ub, 10);
	sim_ftree_set_usage(t, uc, 5);
	sim_ftree_set_usage(t, ud, 55);
	sim_ftree_rank(t);
	cr_expect_float_eq(sim_ftree_usage(t, a1), 40, 1e-12);
	cr_expect_float_eq(sim_ftree_usage(t, a2), 60, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, a1), 1.25, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, a2), 0.5 / 0.6, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, a12), 0.5 / 0.75, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, a16), 2, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, uc), 6, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, ud), 0.5 / (55.0 / 60),
			   1e-12);
	cr_expect_eq(sim_ftree_rank_of(t, ub), 4u);
	cr_expect_eq(sim_ftree_rank_of(t, ua), 3u);
	cr_expect_eq(sim_ftree_rank_of(t, uc), 2u);
	cr_expect_eq(sim_ftree_rank_of(t, ud), 1u);
	cr_expect_float_eq(sim_ftree_factor(t, ub), 1.0, 1e-15);
	cr_expect_float_eq(sim_ftree_factor(t, ua), 0.75, 1e-15);
	cr_expect_float_eq(sim_ftree_factor(t, uc), 0.5, 1e-15);
	cr_expect_float_eq(sim_ftree_factor(t, ud), 0.25, 1e-15);
	/* The classic factors of the comment, the other way round. */
	cr_expect_gt(mf_fairshare(0.05, 0.25), mf_fairshare(0.30, 0.25));
	/* UserB's usage 50 instead: Acct16 0.5 / (50/80) = 0.8 is below
	 * Acct12's 0.5 / (30/80) = 1.333, and UserA moves above UserB;
	 * Acct1 (80) is now below Acct2 (60): 0.5 / (80/140) = 0.875 <
	 * 0.5 / (60/140) = 1.1667, so UserC, UserD rank 4, 3; A 2; B 1. */
	sim_ftree_set_usage(t, ub, 50);
	sim_ftree_rank(t);
	cr_expect_eq(sim_ftree_rank_of(t, uc), 4u);
	cr_expect_eq(sim_ftree_rank_of(t, ud), 3u);
	cr_expect_eq(sim_ftree_rank_of(t, ua), 2u);
	cr_expect_eq(sim_ftree_rank_of(t, ub), 1u);
	sim_ftree_free(t);
}

Test(fairtree, tied_users_share_a_rank_and_the_next_skips)
{
	/* root -> users u1..u5, 1 share each; usage 0, 0, 10, 30 and u5
	 * with no shares.  u1, u2: no usage, LF infinity, tied: both rank 5
	 * (factor 1).  The shares sum to 4 (u5's are 0): u3 0.25 / 0.25 =
	 * 1, rank 5 - 2 = 3 (0.6); u4 0.25 / 0.75 = 0.3333, rank 2 (0.4);
	 * u5: no shares, LF 0, rank 1 (0.2). */
	struct sim_ftree *t = sim_ftree_new();
	size_t u[5];
	static const double use[5] = { 0, 0, 10, 30, 0 };
	for (int i = 0; i < 5; i++) {
		u[i] = sim_ftree_user(t, -1, i + 1, i < 4 ? 1 : 0);
		sim_ftree_set_usage(t, u[i], use[i]);
	}
	sim_ftree_rank(t);
	cr_expect(isinf(sim_ftree_level_fs(t, u[0])));
	cr_expect_float_eq(sim_ftree_level_fs(t, u[2]), 1.0, 1e-12);
	cr_expect_float_eq(sim_ftree_level_fs(t, u[3]), 1.0 / 3, 1e-12);
	cr_expect_eq(sim_ftree_level_fs(t, u[4]), 0.0);
	static const uint32_t rank[5] = { 5, 5, 3, 2, 1 };
	for (int i = 0; i < 5; i++) {
		cr_expect_eq(sim_ftree_rank_of(t, u[i]), rank[i], "u%d: %u", i + 1,
			     sim_ftree_rank_of(t, u[i]));
		cr_expect_float_eq(sim_ftree_factor(t, u[i]), rank[i] / 5.0,
				   1e-15);
	}
	sim_ftree_free(t);
}

Test(fairtree, tied_accounts_merge_their_children)
{
	/* root -> X (1 share), Y (1), Z (2).  X: x1 usage 5, x2 15; Y: y1
	 * 10, y2 10; Z: z1 60; users 1 share each.  Root: X 20, Y 20, Z 60
	 * of 100: X and Y 0.25 / 0.2 = 1.25, tied; Z 0.5 / 0.6 = 0.8333.
	 * X's and Y's children merged and sorted by their own LF: x1 0.5 /
	 * 0.25 = 2, y1 = y2 = 0.5 / 0.5 = 1, x2 0.5 / 0.75 = 0.6667.  Ranks
	 * (N = 5): x1 5, y1 and y2 4 (tied), x2 2, then z1 1.  Walking X
	 * before Y instead would give x2 rank 4 and y1, y2 3. */
	struct sim_ftree *t = sim_ftree_new();
	size_t x = sim_ftree_account(t, -1, 1);
	size_t y = sim_ftree_account(t, -1, 1);
	size_t z = sim_ftree_account(t, -1, 2);
	size_t x1 = sim_ftree_user(t, (long)x, 1, 1);
	size_t x2 = sim_ftree_user(t, (long)x, 2, 1);
	size_t y1 = sim_ftree_user(t, (long)y, 3, 1);
	size_t y2 = sim_ftree_user(t, (long)y, 4, 1);
	size_t z1 = sim_ftree_user(t, (long)z, 5, 1);
	sim_ftree_set_usage(t, x1, 5);
	sim_ftree_set_usage(t, x2, 15);
	sim_ftree_set_usage(t, y1, 10);
	sim_ftree_set_usage(t, y2, 10);
	sim_ftree_set_usage(t, z1, 60);
	sim_ftree_rank(t);
	cr_expect_eq(sim_ftree_level_fs(t, x), sim_ftree_level_fs(t, y));
	cr_expect_float_eq(sim_ftree_level_fs(t, x), 1.25, 1e-12);
	cr_expect_eq(sim_ftree_rank_of(t, x1), 5u);
	cr_expect_eq(sim_ftree_rank_of(t, y1), 4u);
	cr_expect_eq(sim_ftree_rank_of(t, y2), 4u);
	cr_expect_eq(sim_ftree_rank_of(t, x2), 2u);
	cr_expect_eq(sim_ftree_rank_of(t, z1), 1u);
	sim_ftree_free(t);
}

Test(fairtree, without_usage_every_user_ties_at_1)
{
	/* root -> D1 (shares 2) -> P1 (1) -> u1, u2; root -> D2 (1) -> P2
	 * (3) -> u3; no usage anywhere (the start of a run): every LF is
	 * infinity, D1 and D2 tie and merge, P1 and P2 tie and merge, and
	 * u1, u2, u3 tie: all rank 3 of 3, factor 1, whatever the shares. */
	struct sim_ftree *t = sim_ftree_new();
	size_t d1 = sim_ftree_account(t, -1, 2);
	size_t d2 = sim_ftree_account(t, -1, 1);
	size_t p1 = sim_ftree_account(t, (long)d1, 1);
	size_t p2 = sim_ftree_account(t, (long)d2, 3);
	size_t u[3] = { sim_ftree_user(t, (long)p1, 1, 1),
			sim_ftree_user(t, (long)p1, 2, 1),
			sim_ftree_user(t, (long)p2, 1, 1) };
	cr_assert_neq(u[0], u[2], "user 1 in two projects: two associations");
	sim_ftree_rank(t);
	cr_expect(isinf(sim_ftree_level_fs(t, d1)));
	cr_expect(isinf(sim_ftree_level_fs(t, p2)));
	for (int i = 0; i < 3; i++) {
		cr_expect_eq(sim_ftree_rank_of(t, u[i]), 3u);
		cr_expect_eq(sim_ftree_factor(t, u[i]), 1.0);
	}
	sim_ftree_free(t);
}

Test(fairtree, a_user_tied_with_an_account_shares_its_first_rank)
{
	/* root -> user u (1 share, usage 10), account A (1 share; a1 usage
	 * 10, a2 none), user v (2 shares, usage 40).  Root usage 60, shares
	 * 4: u 0.25 / (1/6) = 1.5, A the same, v 0.5 / (2/3) = 0.75.  u
	 * sorts before A (a user first on a tie) and gets rank N = 4; A is
	 * tied with u, so its first user, a2 (no usage: infinity), gets 4
	 * too; a1 (0.5 / 1 = 0.5) gets 4 - 2 = 2; v gets 1. */
	struct sim_ftree *t = sim_ftree_new();
	size_t u = sim_ftree_user(t, -1, 1, 1);
	size_t a = sim_ftree_account(t, -1, 1);
	size_t a1 = sim_ftree_user(t, (long)a, 2, 1);
	size_t a2 = sim_ftree_user(t, (long)a, 3, 1);
	size_t v = sim_ftree_user(t, -1, 4, 2);
	sim_ftree_set_usage(t, u, 10);
	sim_ftree_set_usage(t, a1, 10);
	sim_ftree_set_usage(t, v, 40);
	sim_ftree_rank(t);
	cr_expect_float_eq(sim_ftree_level_fs(t, u), 1.5, 1e-12);
	cr_expect_eq(sim_ftree_level_fs(t, a), sim_ftree_level_fs(t, u));
	cr_expect(isinf(sim_ftree_level_fs(t, a2)));
	cr_expect_eq(sim_ftree_rank_of(t, u), 4u);
	cr_expect_eq(sim_ftree_rank_of(t, a2), 4u);
	cr_expect_eq(sim_ftree_rank_of(t, a1), 2u);
	cr_expect_eq(sim_ftree_rank_of(t, v), 1u);
	cr_expect_float_eq(sim_ftree_factor(t, a1), 0.5, 1e-15);
	sim_ftree_free(t);
}

Test(fairtree, usage_grows_at_its_rate_and_decays_by_half_lives)
{
	/* Rate 4 for 100 s with half-life 100: 4 x 100 / ln 2 x (1 - 1/2)
	 * = 288.54; then 100 s at rate 0: half of it, 144.27. */
	struct sim_ftree *t = sim_ftree_new();
	size_t u = sim_ftree_user(t, -1, 7, 1);
	sim_ftree_add_rate(t, u, 4);
	sim_ftree_advance(t, 100, 100);
	sim_ftree_rank(t);
	cr_expect_float_eq(sim_ftree_usage(t, u), 200 / M_LN2, 1e-9);
	sim_ftree_add_rate(t, u, -4);
	sim_ftree_advance(t, 100, 100);
	sim_ftree_rank(t);
	cr_expect_float_eq(sim_ftree_usage(t, u), 100 / M_LN2, 1e-9);
	cr_expect_float_eq(sim_ftree_factor(t, u), 1.0, 1e-15);
	sim_ftree_free(t);
}

/* ---- the policy ------------------------------------------------------- */

/* Runs multifactor on a workload and cluster with weight_fairshare 1000,
 * the given fairshare and half_life_s. */
static struct sim *ft_run(struct workload *w, struct cluster_spec *c,
			  const char *fs, double half_life, int project_from)
{
	struct param_value pv[3] = {
		{ .key = (char *)"weight_fairshare", .json_path = (char *)"$.p",
		  .type = PV_NUMBER, .num = 1000 },
		{ .key = (char *)"half_life_s", .json_path = (char *)"$.p",
		  .type = PV_NUMBER, .num = half_life },
		{ .key = (char *)"fairshare", .json_path = (char *)"$.p",
		  .type = PV_STRING, .str = (char *)fs },
	};
	struct sim_config base = { .workload = w, .cluster = c,
				   .project_from = project_from };
	return tl_run_cfg("multifactor", pv, 3, &base);
}

Test(fairtree, decay_over_two_half_lives_changes_the_order)
{
	/*
	 * 4 CPUs, root -> users 1 and 2 (1 share each), half-life 100 s.
	 * User 1's A (4 CPUs) runs 0-100: its usage at 100 is 4 x 100 /
	 * ln 2 x (1 - 1/2) = 200 / ln 2.  User 2's B (1 CPU) runs from 100
	 * for `run` s.  User 1's C and user 2's D (4 CPUs, 10 s each, at 150
	 * and 160) wait for B.
	 *   run 100 (one half-life): at 200 user 1 has 100 / ln 2, user 2
	 *   100 / ln 2 x (1 - 1/2) = 50 / ln 2: user 2's LF is the higher
	 *   (0.5 / (1/3) = 1.5 against 0.75), rank 2, factor 1 (priority
	 *   1000 against 500): D at 200, C at 210.
	 *   run 200 (two half-lives): at 300 user 1 has 50 / ln 2, user 2
	 *   100 / ln 2 x (1 - 1/4) = 75 / ln 2: now user 1's LF is the higher
	 *   (0.5 / 0.4 = 1.25 against 0.8333): C at 300, D at 310.
	 * Without decay (half_life_s 0) user 1 has 400 and user 2 200 at 300:
	 * user 2 first, D at 300, C at 310.
	 */
	for (int k = 0; k < 3; k++) {
		double run = k == 0 ? 100 : 200, hl = k == 2 ? 0 : 100;
		struct tjob t[] = {
			{ 1, 0, 100, 100, 4 }, { 2, 100, run, run, 1 },
			{ 3, 150, 10, 10, 4 }, { 4, 160, 10, 10, 4 },
		};
		struct workload w;
		struct cluster_spec c;
		tl_cluster(&c, 1, 4);
		tl_workload(&w, t, 4);
		for (size_t i = 0; i < w.n; i++)
			w.jobs[i].user = w.jobs[i].id % 2 ? 1 : 2;
		struct sim *s = ft_run(&w, &c, "fair_tree", hl, 0);
		double end = 100 + run;
		bool user1_first = k == 1;
		cr_expect_float_eq(tl_start(s, 3), user1_first ? end : end + 10,
				   1e-9, "case %d", k);
		cr_expect_float_eq(tl_start(s, 4), user1_first ? end + 10 : end,
				   1e-9, "case %d", k);
		sim_free(s);
		workload_release(&w);
		cluster_spec_release(&c);
	}
}

/* A GPU cluster of `gpus` GPUs with departments D1 (P1) and D2 (P2,
 * P3), weights as given (D1, P1, D2, P2, P3); job i's project is
 * proj[i] (a tenant index), its user user[i]. */
static void ft_tenants(struct workload *w, struct cluster_spec *c,
		       uint32_t gpus, const double *weight,
		       const struct tjob *t, const uint32_t *g, size_t n,
		       const int *proj, const int *user)
{
	static const char *const name[5] = { "D1", "P1", "D2", "P2", "P3" };
	static const int parent[5] = { -1, 0, -1, 2, 2 };
	memset(c, 0, sizeof(*c));
	tl_gpu_cluster(c, 1, gpus, NULL, 0);
	c->tenants = xcalloc(5, sizeof(*c->tenants));
	c->ntenants = 5;
	for (int i = 0; i < 5; i++)
		c->tenants[i] = (struct tenant_spec){
			.name = xstrdup(name[i]), .parent = parent[i],
			.quota = 0, .borrow_limit = TENANT_NO_LIMIT,
			.lend_limit = TENANT_NO_LIMIT, .weight = weight[i],
		};
	tl_r50_jobs(w, t, n, g);
	w->groups = xcalloc(5, sizeof(*w->groups));
	w->ngroups = 5;
	for (int i = 0; i < 5; i++)
		w->groups[i] = xstrdup(name[i]);
	for (size_t i = 0; i < w->n; i++) {
		struct job *j = &w->jobs[i];
		j->group = proj[j->id - 1];
		j->user = user[j->id - 1];
	}
}

Test(fairtree, classic_fairshare_charges_tenant_projects_by_weight)
{
	/*
	 * 5 GPUs; P1 (in D1, weight 3) and P2 (in D2, weight 1); classic
	 * charges projects alone, whatever their departments.  P1's A (3
	 * GPUs) and P2's B (2 GPUs) run 0-100: usage 3 : 2.  At 100 wait
	 * P2's C (5 GPUs, t=1) and P1's D (5 GPUs, t=2).  The accounts are
	 * the projects seen (P1, P2):
	 *   weights 3, 1: S = 0.75, 0.25; U = 0.6, 0.4.  P1: 2^(-0.6/0.75) =
	 *   2^-0.8 = 0.574 (priority 574), P2: 2^(-0.4/0.25) = 2^-1.6 =
	 *   0.330 (329): D first at 100, although C is older.
	 *   weights 1, 1: P1 2^(-0.6/0.5) = 0.435, P2 2^(-0.4/0.5) = 0.574:
	 *   C first at 100.
	 * The second starts when the first ends (ResNet-50 at reference
	 * speed on untyped GPUs: its 100 s).
	 */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 0, 100, 100, 1 },
		{ 3, 1, 100, 100, 1 }, { 4, 2, 100, 100, 1 },
	};
	static const uint32_t g[] = { 3, 2, 5, 5 };
	/* Tenants: D1, P1, D2, P2, P3. */
	static const int proj[] = { 1, 3, 3, 1 };
	static const int user[] = { 1, 2, 2, 1 };
	for (int k = 0; k < 2; k++) {
		double wt[5] = { 1, 3, 1, 1, 1 };
		if (k)
			wt[1] = 1;
		struct workload w;
		struct cluster_spec c;
		ft_tenants(&w, &c, 5, wt, t, g, 4, proj, user);
		struct sim *s = ft_run(&w, &c, "classic", 604800,
				       TENANT_FROM_VC);
		double c0 = tl_start(s, 3), d0 = tl_start(s, 4);
		cr_expect_float_eq(k ? c0 : d0, 100, 1e-9, "case %d", k);
		cr_expect_gt(k ? d0 : c0, 100, "case %d", k);
		sim_free(s);
		workload_release(&w);
		cluster_spec_release(&c);
	}
}

Test(fairtree, fair_tree_ranks_departments_before_their_projects)
{
	/*
	 * 10 GPUs; D1 (P1), D2 (P2, P3), every weight 1; users 1, 2, 3 in
	 * P1, P2, P3.  0-100: P1's A 4 GPUs, P2's B 1, P3's C 5: usage 4 : 1
	 * : 5.  At 100 wait P2's D (user 2, 10 GPUs, t=1) and P1's E (user
	 * 1, 10 GPUs, t=2).
	 *   fair_tree: root: D1 0.5 / 0.4 = 1.25 above D2 0.5 / 0.6 =
	 *   0.833, so user 1 ranks 3 of 3 (factor 1, priority 1000); in D2
	 *   P2 0.5 / (1/6) = 3 above P3: user 2 rank 2 (667).  E first at
	 *   100, although D is older and P2 used least.
	 *   classic: projects P1, P2, P3 of 1/3 each: P1 2^(-0.4 x 3) =
	 *   0.435, P2 2^(-0.1 x 3) = 0.812: D first at 100.
	 */
	static const struct tjob t[] = {
		{ 1, 0, 100, 100, 1 }, { 2, 0, 100, 100, 1 },
		{ 3, 0, 100, 100, 1 }, { 4, 1, 100, 100, 1 },
		{ 5, 2, 100, 100, 1 },
	};
	static const uint32_t g[] = { 4, 1, 5, 10, 10 };
	static const int proj[] = { 1, 3, 4, 3, 1 };
	static const int user[] = { 1, 2, 3, 2, 1 };
	static const double wt[5] = { 1, 1, 1, 1, 1 };
	for (int k = 0; k < 2; k++) {
		struct workload w;
		struct cluster_spec c;
		ft_tenants(&w, &c, 10, wt, t, g, 5, proj, user);
		struct sim *s = ft_run(&w, &c, k ? "classic" : "fair_tree",
				       604800, TENANT_FROM_VC);
		double d0 = tl_start(s, 4), e0 = tl_start(s, 5);
		cr_expect_float_eq(k ? d0 : e0, 100, 1e-9, "case %d", k);
		cr_expect_gt(k ? e0 : d0, 100, "case %d", k);
		sim_free(s);
		workload_release(&w);
		cluster_spec_release(&c);
	}
}

Test(fairtree, an_unknown_fairshare_is_refused)
{
	struct tjob t[] = { { 1, 0, 10, 10, 1 } };
	struct workload w;
	struct cluster_spec c;
	tl_cluster(&c, 1, 4);
	tl_workload(&w, t, 1);
	const struct policy_ops *ops = NULL;
	for (size_t i = 0; policy_builtin[i]; i++)
		if (!strcmp(policy_builtin[i]->name, "multifactor"))
			ops = policy_builtin[i];
	cr_assert(ops);
	struct param_value pv = { .key = (char *)"fairshare",
		.json_path = (char *)"$.p", .type = PV_STRING,
		.str = (char *)"tree" };
	struct pval *params;
	size_t np;
	struct sim_error err;
	cr_assert_eq(policy_params_resolve(ops, &pv, 1, "", &params, &np,
					   &err), 0, "%s", err.msg);
	struct sim_config cfg = { .workload = &w, .cluster = &c, .policy = ops,
				  .params = params, .nparams = np, .seed = 1 };
	struct sim *s = sim_new(&cfg);
	cr_expect_lt(sim_run(s, &err), 0);
	cr_expect(strstr(err.msg, "fairshare must be classic or fair_tree, "
			 "got 'tree'"), "%s", err.msg);
	sim_free(s);
	policy_params_free(params, np);
	workload_release(&w);
	cluster_spec_release(&c);
}
