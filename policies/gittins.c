/*
 * gittins: Tiresias' discretised 2D-Gittins index, preemptive.
 *
 * It is las with one rule changed: inside each queue, jobs go by their
 * Gittins index (from the distribution of finished jobs' service) rather
 * than first come first served.  Every other rule - the 2D attained
 * service, the thresholds, demotion, starvation promotion (Tiresias'
 * STARVELIMIT, las' promote_knob) and the engine's preemptive allocation
 * - is las', so the code is las': policies/las.c defines this policy's
 * table, clustersim_policy_gittins, beside its own, and documents the
 * index and its parameters.  This file gives the policy its file stem,
 * by which the build registers it (scripts/gen-registry.sh).
 *
 * The continuous index this policy had before (no queues: an index over
 * the exact service, woken at every sample crossed) is gittins_cont.
 */
#include "clustersim/policy.h"
