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
 *              are 0
 *
 * The priority is sum(weight x factor), at least 1 (0 is a held job's),
 * truncated to an unsigned 32-bit integer as Slurm's (uint32_t) cast
 * does.  Usage decays by half every PriorityDecayHalfLife.
 */
#ifndef CLUSTERSIM_MULTIFACTOR_H
#define CLUSTERSIM_MULTIFACTOR_H

#include <math.h>
#include <stdbool.h>
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

#endif
