/*
 * The free-resource profile of a cluster partitioned into virtual
 * clusters (profile_vc.c): one step function of free GPUs per VC and one
 * for the shared pool.  profile.c hands the profile_* calls of policy.h
 * to these when the cluster has VCs; the rules are at the top of
 * profile_vc.c.
 */
#ifndef CLUSTERSIM_PROFILE_VC_H
#define CLUSTERSIM_PROFILE_VC_H

#include "cluster/cluster.h"
#include "engine/sim.h"

struct pprof;

struct pprof *pprof_new(void);
void pprof_free(struct pprof *pp);
/* Resets pp to time now: the free GPUs of each partition, plus each
 * running job's GPUs given back, at its expected end, to the partitions
 * its placement (plc, indexed by job idx) holds them in. */
void pprof_build(struct pprof *pp, const struct cluster *c, sim_time_t now,
		 const struct job *jobs, const struct run_entry *running,
		 size_t n, const struct placement *plc);
uint64_t pprof_free_at(struct pprof *pp, sim_time_t t);
sim_time_t pprof_earliest(struct pprof *pp, const struct job *job,
			  sim_time_t duration);
bool pprof_fits(struct pprof *pp, const struct job *job, sim_time_t t,
		sim_time_t duration);
void pprof_reserve(struct pprof *pp, const struct job *job, sim_time_t t,
		   sim_time_t duration);
/* again: a reservation of an earlier build put back at the same t, with
 * the split it took then (if it is known). */
void pprof_reserve_kept(struct pprof *pp, const struct job *job,
			sim_time_t t, sim_time_t duration, bool again);
void pprof_release(struct pprof *pp, const struct job *job, sim_time_t t,
		   sim_time_t duration);

#endif
