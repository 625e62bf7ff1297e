/*
 * conservative: conservative backfilling.
 *
 * What it does: every waiting job gets a reservation, in queue order, at
 * the earliest time its request is free for its whole estimate given the
 * running jobs and the reservations of the jobs ahead of it.  A job whose
 * reservation is now starts now; so a job may start early only if it
 * delays no other job's reservation.  Reservations are recomputed from
 * scratch at every scheduling point (in queue order), so when jobs end
 * before their estimates the schedule is compressed: no job's reservation
 * moves later than it was, since the profile only gains free resources.
 *
 * On a cluster partitioned into virtual clusters the profile plans each
 * job against its VC and the shared pool (policy.h), and the first step
 * is not sim_start_head: its per-VC queues would start a job of one VC on
 * pool GPUs reserved for an earlier job of another.  The loop below
 * starts every job whose reservation is now, in queue order, already.
 *
 * Source: Mu'alem and Feitelson, IEEE TPDS 2001 (section 2); Feitelson and
 * Weil, "Utilization and predictability in scheduling the IBM SP2 with
 * backfilling", IPPS 1998.
 *
 * Parameters: none.
 *
 * Example (10 CPUs, estimates exact): A runs on 6 CPUs until 100.  Queue:
 * B 8 CPUs for 50 s, C 4 CPUs for 200 s, D 2 CPUs for 20 s.  B is reserved
 * at 100 (until 150).  C fits now but would overlap B (4 + 8 > 10): its
 * earliest slot is 150.  D fits now and until 20 with B and C: starts now.
 */
#include "clustersim/policy.h"

static void conservative_schedule(struct sim *sim, void *state)
{
	(void)state;
	if (!sim_vc_count(sim)) {
		sim_start_head(sim);
		if (sim_queue_len(sim) < 2)
			return;
	}
	sim_time_t now = sim_now(sim);
	struct profile *p = sim_profile(sim);
	for (size_t i = 0; i < sim_queue_len(sim);) {
		const struct job *j = sim_queue_at(sim, i);
		sim_time_t t = profile_earliest(p, j, j->estimate);
		if (t == now && sim_job_fits(sim, j) &&
		    sim_job_start(sim, j) == 0) {
			profile_reserve(p, j, now, j->estimate);
			continue; /* j left the queue: i names the next */
		}
		profile_reserve(p, j, t, j->estimate);
		i++;
	}
}

CLUSTERSIM_POLICY(conservative,
	.summary = "conservative backfilling: every waiting job has a "
		   "reservation; a job starts early only if it delays none",
	.schedule = conservative_schedule);
