/*
 * Fair Tree, Slurm's fair-share algorithm, over an association tree of
 * accounts and users (include/clustersim/multifactor.h has the rules and
 * the API; docs/tenants.md the tree the multifactor policy builds).  It
 * knows nothing of the simulation: the policy adds the accounts, finds a
 * job's user association, charges it usage and asks for the factors.
 *
 * Ranking is a depth-first walk of the tree with each account's children
 * sorted by Level Fairshare; users are ranked as they are met.  Sorting
 * by LF and ranking, rather than multiplying factors down the tree, is
 * what keeps an account's users together: no precision is lost at depth.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "clustersim/multifactor.h"

/* One association. */
struct ft_node {
	long parent;     /* its account's index; -1: a child of the root */
	bool user;       /* a user association (a leaf, ranked) */
	int64_t key;     /* a user's id; -1 for an account */
	double shares;   /* raw shares */
	double usage;    /* a user's raw usage; an account's: its users' */
	double rate;     /* a user's usage per second now */
	double lf;       /* Level Fairshare among its siblings */
	double factor;   /* a user's fair-share factor */
	uint32_t rank;   /* a user's rank, N down to 1 */
};

struct sim_ftree {
	struct ft_node *a;    /* associations, parents before children */
	size_t n, cap;
	size_t users;         /* user associations among them */
	/* Users by (parent, user): open addressing, value index + 1. */
	int64_t *hpar, *huser;
	size_t *hval;
	size_t hcap;
	/* Scratch of sim_ftree_rank, by parent + 1 (0: the root). */
	double *ssum, *usum;
	size_t *off, *kids;
	size_t scap;
};

struct sim_ftree *sim_ftree_new(void)
{
	return xcalloc(1, sizeof(struct sim_ftree));
}

void sim_ftree_free(struct sim_ftree *t)
{
	if (!t)
		return;
	free(t->a);
	free(t->hpar);
	free(t->huser);
	free(t->hval);
	free(t->ssum);
	free(t->usum);
	free(t->off);
	free(t->kids);
	free(t);
}

static size_t ft_add(struct sim_ftree *t, long parent, bool user,
		     int64_t key, double shares)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->a = xrealloc(t->a, t->cap * sizeof(*t->a));
	}
	/* A parent must be an account added before; else the root. */
	if (parent < 0 || parent >= (long)t->n || t->a[parent].user)
		parent = -1;
	t->a[t->n] = (struct ft_node){
		.parent = parent, .user = user, .key = key,
		.shares = shares > 0 ? shares : 0,
	};
	t->users += user;
	return t->n++;
}

size_t sim_ftree_account(struct sim_ftree *t, long parent, double shares)
{
	return ft_add(t, parent, false, -1, shares);
}

static uint64_t ft_hash(int64_t parent, int64_t user)
{
	uint64_t z = (uint64_t)user * 0x9e3779b97f4a7c15ull ^
		     ((uint64_t)parent + 0x632be59bd9b4e019ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void ft_hash_put(struct sim_ftree *t, int64_t parent, int64_t user,
			size_t val)
{
	size_t h = ft_hash(parent, user) & (t->hcap - 1);
	while (t->hval[h])
		h = (h + 1) & (t->hcap - 1);
	t->hpar[h] = parent;
	t->huser[h] = user;
	t->hval[h] = val;
}

static void ft_hash_grow(struct sim_ftree *t)
{
	size_t ocap = t->hcap;
	int64_t *op = t->hpar, *ou = t->huser;
	size_t *ov = t->hval;
	t->hcap = ocap ? 2 * ocap : 64;
	t->hpar = xcalloc(t->hcap, sizeof(*t->hpar));
	t->huser = xcalloc(t->hcap, sizeof(*t->huser));
	t->hval = xcalloc(t->hcap, sizeof(*t->hval));
	for (size_t i = 0; i < ocap; i++)
		if (ov[i])
			ft_hash_put(t, op[i], ou[i], ov[i]);
	free(op);
	free(ou);
	free(ov);
}

size_t sim_ftree_user(struct sim_ftree *t, long parent, int64_t user,
		      double shares)
{
	if (t->hcap) {
		size_t h = ft_hash(parent, user) & (t->hcap - 1);
		for (; t->hval[h]; h = (h + 1) & (t->hcap - 1))
			if (t->hpar[h] == parent && t->huser[h] == user)
				return t->hval[h] - 1;
	}
	if (2 * (t->users + 1) > t->hcap)
		ft_hash_grow(t);
	size_t i = ft_add(t, parent, true, user, shares);
	ft_hash_put(t, parent, user, i + 1);
	return i;
}

size_t sim_ftree_count(const struct sim_ftree *t)
{
	return t->n;
}

size_t sim_ftree_users(const struct sim_ftree *t)
{
	return t->users;
}

void sim_ftree_set_usage(struct sim_ftree *t, size_t user, double usage)
{
	if (user < t->n && t->a[user].user)
		t->a[user].usage = usage;
}

void sim_ftree_add_rate(struct sim_ftree *t, size_t user, double rate)
{
	if (user >= t->n || !t->a[user].user)
		return;
	t->a[user].rate += rate;
	if (t->a[user].rate < 1e-9) /* the sum of +r and -r, rounded */
		t->a[user].rate = 0;
}

void sim_ftree_advance(struct sim_ftree *t, double dt, double h)
{
	if (!(dt > 0))
		return;
	for (size_t i = 0; i < t->n; i++)
		if (t->a[i].user)
			t->a[i].usage = mf_decay(t->a[i].usage, t->a[i].rate,
						 dt, h);
}

/* ---- ranking ---------------------------------------------------------- */

/* A sibling as sorted: its LF, kind and index. */
struct ft_key {
	double lf;
	bool user;
	size_t i;
};

/* The higher LF first; on equal LF users before accounts; then index. */
static int ft_cmp(const void *pa, const void *pb)
{
	const struct ft_key *x = pa, *y = pb;
	if (x->lf != y->lf)
		return x->lf > y->lf ? -1 : 1;
	if (x->user != y->user)
		return x->user ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void ft_sort(size_t *v, size_t k, const struct ft_node *a)
{
	struct ft_key *key = xmalloc((k ? k : 1) * sizeof(*key));
	for (size_t i = 0; i < k; i++)
		key[i] = (struct ft_key){ a[v[i]].lf, a[v[i]].user, v[i] };
	qsort(key, k, sizeof(*key), ft_cmp);
	for (size_t i = 0; i < k; i++)
		v[i] = key[i].i;
	free(key);
}

/* The ranking walk's counters. */
struct ft_walk {
	uint32_t rank;  /* the rank the last user got */
	uint32_t next;  /* N minus the users met so far */
};

/*
 * Walks the siblings v[0..k) (one account's children, or tied accounts'
 * children merged): sorts them, ranks each user, descends into each
 * account with the accounts tied with it merged.  tied: the first of
 * them is tied with the user met just before (its parent was).
 */
static void ft_walk(struct sim_ftree *t, size_t *v, size_t k, bool tied,
		    struct ft_walk *w)
{
	struct ft_node *a = t->a;
	ft_sort(v, k, a);
	for (size_t i = 0; i < k; i++) {
		struct ft_node *x = &a[v[i]];
		bool tie = i ? a[v[i - 1]].lf == x->lf : tied;
		if (x->user) {
			if (!tie)
				w->rank = w->next;
			x->rank = w->rank;
			x->factor = (double)w->rank / (double)t->users;
			w->next--;
			continue;
		}
		/* This account and the accounts tied with it after it. */
		size_t e = i + 1;
		while (e < k && !a[v[e]].user && a[v[e]].lf == x->lf)
			e++;
		size_t nk = 0;
		for (size_t m = i; m < e; m++)
			nk += t->off[v[m] + 2] - t->off[v[m] + 1];
		size_t *kids = xmalloc((nk ? nk : 1) * sizeof(*kids));
		nk = 0;
		for (size_t m = i; m < e; m++) {
			size_t p = v[m] + 1;
			memcpy(kids + nk, t->kids + t->off[p],
			       (t->off[p + 1] - t->off[p]) * sizeof(*kids));
			nk += t->off[p + 1] - t->off[p];
		}
		ft_walk(t, kids, nk, tie, w);
		free(kids);
		i = e - 1;
	}
}

/* Each account's usage (its users'), the siblings' sums and the LFs; the
 * children lists by parent + 1. */
static void ft_levels(struct sim_ftree *t)
{
	size_t n = t->n;
	if (n + 2 > t->scap) {
		t->scap = 2 * (n + 2);
		t->ssum = xrealloc(t->ssum, t->scap * sizeof(*t->ssum));
		t->usum = xrealloc(t->usum, t->scap * sizeof(*t->usum));
		t->off = xrealloc(t->off, t->scap * sizeof(*t->off));
		t->kids = xrealloc(t->kids, t->scap * sizeof(*t->kids));
	}
	for (size_t i = 0; i < n; i++)
		if (!t->a[i].user)
			t->a[i].usage = 0;
	for (size_t i = n; i-- > 0;) /* children after their parents */
		if (t->a[i].parent >= 0)
			t->a[t->a[i].parent].usage += t->a[i].usage;
	memset(t->ssum, 0, (n + 1) * sizeof(*t->ssum));
	memset(t->usum, 0, (n + 1) * sizeof(*t->usum));
	memset(t->off, 0, (n + 2) * sizeof(*t->off));
	for (size_t i = 0; i < n; i++) {
		size_t p = (size_t)(t->a[i].parent + 1);
		t->ssum[p] += t->a[i].shares;
		t->usum[p] += t->a[i].usage;
		t->off[p + 1]++;
	}
	for (size_t p = 0; p <= n; p++)
		t->off[p + 1] += t->off[p];
	/* off[p] is where p's children start: fill in index order with it
	 * as the cursor, which leaves it at p's end, then shift back. */
	for (size_t i = 0; i < n; i++)
		t->kids[t->off[t->a[i].parent + 1]++] = i;
	for (size_t p = n + 1; p > 0; p--)
		t->off[p] = t->off[p - 1];
	t->off[0] = 0;
	for (size_t i = 0; i < n; i++) {
		struct ft_node *x = &t->a[i];
		size_t p = (size_t)(x->parent + 1);
		double s = t->ssum[p] > 0 ? x->shares / t->ssum[p] : 0;
		double u = t->usum[p] > 0 ? x->usage / t->usum[p] : 0;
		x->lf = mf_level_fs(s, u);
	}
}

void sim_ftree_rank(struct sim_ftree *t)
{
	if (!t->n)
		return;
	ft_levels(t);
	size_t k = t->off[1] - t->off[0];
	size_t *v = xmalloc((k ? k : 1) * sizeof(*v));
	memcpy(v, t->kids, k * sizeof(*v));
	struct ft_walk w = { (uint32_t)t->users, (uint32_t)t->users };
	ft_walk(t, v, k, false, &w);
	free(v);
}

double sim_ftree_usage(const struct sim_ftree *t, size_t i)
{
	return i < t->n ? t->a[i].usage : 0;
}

double sim_ftree_level_fs(const struct sim_ftree *t, size_t i)
{
	return i < t->n ? t->a[i].lf : 0;
}

uint32_t sim_ftree_rank_of(const struct sim_ftree *t, size_t user)
{
	return user < t->n && t->a[user].user ? t->a[user].rank : 0;
}

double sim_ftree_factor(const struct sim_ftree *t, size_t user)
{
	return user < t->n && t->a[user].user ? t->a[user].factor : 0;
}
