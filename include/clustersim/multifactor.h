/*
 * Slurm's multifactor job priority, the arithmetic alone (the
 * multifactor policy, policies/multifactor.c, and the tests use it; the
 * tests compare it with a real slurmctld's sprio).
 *
 * Source: Slurm's priority/multifactor plugin
 * (src/plugins/priority/multifactor/priority_multifactor.c, functions
 * set_priority_factors and _get_priority_internal) and its page
 * slurm.schedmd.com/priority_multifactor.html.  Each factor is in [0, 1]:
 *
 *   age        min(whole seconds since eligible / PriorityMaxAge, 1)
 *   job size   (min_nodes / nodes + cpus / cluster cpus) / 2, or with
 *              PriorityFavorSmall ((nodes - min_nodes) / nodes +
 *              (cluster cpus - cpus) / cluster cpus) / 2, the node term 0
 *              when min_nodes >= nodes; the CPU term dropped (and no
 *              halving) for a job of 0 CPUs
 *   partition  PriorityJobFactor / the largest of the partitions'
 *   QOS        Priority / the largest of the QOS'
 *   fair-share classic: 2^(-usage_norm / shares_norm), 0 when the shares
 *              are 0; Fair Tree: rank / user associations (below)
 *
 * The priority is sum(weight x factor), at least 1 (0 is a held job's),
 * truncated to an unsigned 32-bit integer as Slurm's (uint32_t) cast
 * does.  Usage decays by half every PriorityDecayHalfLife.
 */
#ifndef CLUSTERSIM_MULTIFACTOR_H
#define CLUSTERSIM_MULTIFACTOR_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The weights (PriorityWeight*). */
struct mf_weights {
	uint32_t age, size, partition, qos, fairshare;
};

/* The five factors of one job, each in [0, 1]. */
struct mf_factors {
	double age, size, partition, qos, fairshare;
};

/* Age factor: age_s whole seconds waited, max_age_s PriorityMaxAge. */
static inline double mf_age_factor(int64_t age_s, int64_t max_age_s)
{
	if (age_s <= 0)
		return 0;
	if (max_age_s <= 0 || age_s >= max_age_s)
		return 1;
	return (double)age_s / (double)max_age_s;
}

/* Job size factor of a job of min_nodes nodes and cpus CPUs on a cluster
 * of nodes nodes and cluster_cpus CPUs. */
static inline double mf_size_factor(uint64_t min_nodes, uint64_t cpus,
				    uint64_t nodes, uint64_t cluster_cpus,
				    bool favor_small)
{
	double f;
	if (!nodes || !cluster_cpus)
		return 0;
	if (favor_small) {
		f = nodes > min_nodes
			    ? (double)(nodes - min_nodes) / (double)nodes : 0;
		if (cpus) {
			f += (double)((int64_t)cluster_cpus - (int64_t)cpus) /
			     (double)cluster_cpus;
			f /= 2;
		}
	} else {
		f = (double)min_nodes / (double)nodes;
		if (cpus) {
			f += (double)cpus / (double)cluster_cpus;
			f /= 2;
		}
	}
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* A normalised factor: value over the largest (0 when the largest is 0). */
static inline double mf_norm(double value, double largest)
{
	return largest > 0 ? value / largest : 0;
}

/* Classic fair-share: usage_norm is the account's share of all usage,
 * shares_norm its share of all shares. */
static inline double mf_fairshare(double usage_norm, double shares_norm)
{
	if (!(shares_norm > 0))
		return 0;
	return exp2(-usage_norm / shares_norm);
}

/* Fair Tree's Level Fairshare of an association (slurm.schedmd.com/
 * fair_tree.html): LF = S / U, S its shares over its siblings' and its
 * own, U its usage over its siblings' and its own (0 when they have none).
 * Above 1: under-served; below 1: over-served; 0 without shares;
 * infinity with shares and no usage. */
static inline double mf_level_fs(double shares_norm, double usage_norm)
{
	if (!(shares_norm > 0))
		return 0;
	if (!(usage_norm > 0))
		return INFINITY;
	return shares_norm / usage_norm;
}

/* What usage u becomes after dt seconds with half-life h seconds, while
 * rate r (units x usage factor, per second) is added all along:
 * u 2^(-dt/h) + r h / ln 2 (1 - 2^(-dt/h)).  h <= 0: no decay. */
static inline double mf_decay(double u, double r, double dt, double h)
{
	if (!(h > 0))
		return u + r * dt;
	double d = exp2(-dt / h);
	return u * d + r * h / 0.69314718055994530942 * (1 - d);
}

/* The integer priority, as Slurm's _get_priority_internal computes it. */
static inline uint32_t mf_priority(const struct mf_weights *w,
				   const struct mf_factors *f)
{
	/* Slurm's order of the sum: age, fair-share, size, partition, QOS. */
	double p = f->age * (double)w->age + f->fairshare * (double)w->fairshare +
		   f->size * (double)w->size +
		   f->partition * (double)w->partition +
		   f->qos * (double)w->qos;
	if (p < 1)
		p = 1;
	if (p > 4294967295.0)
		p = 4294967295.0;
	return (uint32_t)p;
}

/*
 * Fair Tree (Slurm's default fair-share since 19.05; its page
 * slurm.schedmd.com/fair_tree.html, the plugin's fair_tree.c).  The
 * associations form a tree: accounts, and users (leaves) under them.
 * Each association's Level Fairshare (mf_level_fs) compares it with its
 * siblings only.  The children of every account are sorted by LF, the
 * highest first, and the tree is walked depth first in that order: the
 * users get ranks in the order they are met, from N (the number of user
 * associations, active or not) down, and a user's fair-share factor is
 * rank / N, so the first user gets 1.  Hence if account A's LF is above
 * its sibling B's, every user below A ranks above every user below B.
 * Ties (equal LF):
 *   - sibling users share a rank; the next user's rank is N minus the
 *     users met so far (ranks 4, 4, 2, 1);
 *   - a user tied with a sibling account is placed before it, and the
 *     account's first user gets that user's rank;
 *   - sibling accounts tied with each other have their children lists
 *     merged (each child keeps the LF among its own siblings), sorted and
 *     walked as one.
 * An account's usage is the sum of its users'.  Order among exact equals
 * is by index, which changes no rank.
 *
 * Implemented in the engine (sim/engine/sim_ftree.c), for the
 * multifactor policy, a plug-in and the tests.  Indices are given in the
 * order of adding; a parent is added before its children.
 */
struct sim_ftree;

struct sim_ftree *sim_ftree_new(void);
void sim_ftree_free(struct sim_ftree *t);
/* Adds an account below account `parent` (-1: the root) with `shares`
 * raw shares (>= 0); returns its index. */
size_t sim_ftree_account(struct sim_ftree *t, long parent, double shares);
/* The user association of user `user` below account `parent` (-1: the
 * root), added with `shares` raw shares when new; returns its index. */
size_t sim_ftree_user(struct sim_ftree *t, long parent, int64_t user,
		      double shares);
/* Associations so far, and user associations among them. */
size_t sim_ftree_count(const struct sim_ftree *t);
size_t sim_ftree_users(const struct sim_ftree *t);
/* A user association's raw usage: set it, or change the rate (units x
 * usage factor, per second) at which it grows. */
void sim_ftree_set_usage(struct sim_ftree *t, size_t user, double usage);
void sim_ftree_add_rate(struct sim_ftree *t, size_t user, double rate);
/* Every user's usage dt seconds later: mf_decay with half-life h. */
void sim_ftree_advance(struct sim_ftree *t, double dt, double h);
/* Computes every association's LF and every user's rank and factor
 * from the usage now. */
void sim_ftree_rank(struct sim_ftree *t);
/* After sim_ftree_rank: an association's usage (an account's: its
 * users' together) and LF; a user's rank (N down to 1) and factor. */
double sim_ftree_usage(const struct sim_ftree *t, size_t i);
double sim_ftree_level_fs(const struct sim_ftree *t, size_t i);
uint32_t sim_ftree_rank_of(const struct sim_ftree *t, size_t user);
double sim_ftree_factor(const struct sim_ftree *t, size_t user);

#endif
