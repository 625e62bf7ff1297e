/*
 * The InfiniBand fabric model: links, the jobs' ring streams on them, and
 * max-min fair sharing by progressive filling (see net.h and
 * docs/network.md for the model).
 *
 * Links are numbered: node i's NIC is link i, leaf r's aggregate uplink is
 * link nnodes + r.  Every link keeps the list of jobs crossing it (one
 * stream each) and every job the list of its links, each entry knowing
 * its place in the other list, so adding or removing a job costs
 * O(links it crosses).
 *
 * Progressive filling: all unfrozen jobs of a component grow together;
 * the link whose remaining capacity divided by its unfrozen jobs is the
 * smallest (the "level") saturates first, and its jobs freeze at that
 * level.  Every link whose level equals the minimum exactly is saturated
 * in the same step, and a link's remaining capacity drops by level x
 * (jobs frozen on it in the step), so the result depends on no iteration
 * order: it is the same bits whether one component or the whole fabric
 * is recomputed, and whatever order jobs were added in.  A level never
 * falls below the current water level (progressive filling is monotone;
 * rounding could otherwise make it dip).  A component of up to
 * SCAN_LINKS links finds each step's least level by a scan of its links
 * in play, O(I + S L) for I job-link incidences on L links filled in S
 * steps (cheaper on the few dozen links of a small cluster); a larger one
 * keeps them in a min-heap on (level, link), O(I log L) (cheaper when
 * there are hundreds of steps).  Both take the same steps.
 */
#include "speed/net.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/splitmix.h"
#include "base/util.h"

#include "speed/net_impl.h"

void net_spec_default(struct net_spec *s)
{
	*s = (struct net_spec){
		.rack_nodes = 20,
		.nic_gbps = 200,
		.uplinks = 20,
		.uplink_gbps = 200,
		.oversubscription = 0,
		.latency_usec = 0.5,
		.nvlink_gBps = 300,
	};
}

static bool positive(double v)
{
	return isfinite(v) && v > 0;
}

int net_spec_check(const struct net_spec *s, const char *prefix,
		   struct sim_error *err)
{
	const char *p = prefix ? prefix : "";
	const char *at = "$.cluster.network";

	if (s->rack_nodes == 0)
		return err_set(err, "%s%s.rack_nodes: must be at least 1, "
			       "got '0'", p, at);
	if (!positive(s->nic_gbps))
		return err_set(err, "%s%s.nic_gbps: must be a positive "
			       "number, got '%g'", p, at, s->nic_gbps);
	if (!(isfinite(s->latency_usec) && s->latency_usec >= 0))
		return err_set(err, "%s%s.latency_usec: must be a number at "
			       "least 0, got '%g'", p, at, s->latency_usec);
	if (!positive(s->nvlink_gBps))
		return err_set(err, "%s%s.nvlink_gBps: must be a positive "
			       "number, got '%g'", p, at, s->nvlink_gBps);
	bool links = s->uplinks != 0 || s->uplink_gbps != 0;
	bool ratio = s->oversubscription != 0;
	if (links && ratio)
		return err_set(err, "%s%s.oversubscription: give either "
			       "uplinks and uplink_gbps or oversubscription, "
			       "not both", p, at);
	if (!links && !ratio)
		return err_set(err, "%s%s: give uplinks and uplink_gbps, or "
			       "oversubscription", p, at);
	if (ratio && !positive(s->oversubscription))
		return err_set(err, "%s%s.oversubscription: must be a "
			       "positive number, got '%g'", p, at,
			       s->oversubscription);
	if (links && s->uplinks == 0)
		return err_set(err, "%s%s.uplinks: must be at least 1 with "
			       "uplink_gbps, got '0'", p, at);
	if (links && !positive(s->uplink_gbps))
		return err_set(err, "%s%s.uplink_gbps: must be a positive "
			       "number, got '%g'", p, at, s->uplink_gbps);
	double up = net_spec_leaf_up_gbps(s);
	if (!positive(up) || !isfinite(up * GBPS_TO_BPS) ||
	    !isfinite(s->nic_gbps * GBPS_TO_BPS) ||
	    !isfinite(s->nvlink_gBps * GBYTES_TO_BPS))
		return err_set(err, "%s%s: leaf uplink capacity '%g' Gb/s "
			       "is out of range", p, at, up);
	return 0;
}

double net_spec_leaf_up_gbps(const struct net_spec *s)
{
	if (s->oversubscription != 0)
		return s->rack_nodes * s->nic_gbps / s->oversubscription;
	return s->uplinks * s->uplink_gbps;
}

/* ---- the id -> slot table (linear probing, backward-shift delete) ---- */

static size_t hash_id(int64_t id, size_t cap)
{
	return (size_t)(splitmix64_mix((uint64_t)id) & (cap - 1));
}

/* The table position of id, or of the empty entry where it would go. */
static size_t hash_pos(const struct net *net, int64_t id)
{
	size_t i = hash_id(id, net->hash_cap);
	while (net->hash[i] != NONE && net->jobs[net->hash[i]].id != id)
		i = (i + 1) & (net->hash_cap - 1);
	return i;
}

static uint32_t job_find(const struct net *net, int64_t id)
{
	return net->hash[hash_pos(net, id)];
}

static void hash_grow(struct net *net)
{
	uint32_t *old = net->hash;
	size_t oldcap = net->hash_cap;
	net->hash_cap = oldcap ? oldcap * 2 : 64;
	net->hash = xmalloc(net->hash_cap * sizeof(*net->hash));
	for (size_t i = 0; i < net->hash_cap; i++)
		net->hash[i] = NONE;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i] != NONE)
			net->hash[hash_pos(net, net->jobs[old[i]].id)] = old[i];
	free(old);
}

static void hash_del(struct net *net, int64_t id)
{
	size_t mask = net->hash_cap - 1;
	size_t i = hash_pos(net, id);
	SIM_ASSERT(net->hash[i] != NONE);
	/* Backward shift: pull later entries of the run into the hole when
	 * their home position does not lie cyclically in (hole, j]. */
	for (size_t j = (i + 1) & mask; net->hash[j] != NONE;
	     j = (j + 1) & mask) {
		size_t h = hash_id(net->jobs[net->hash[j]].id, net->hash_cap);
		bool stays = i <= j ? (i < h && h <= j) : (i < h || h <= j);
		if (!stays) {
			net->hash[i] = net->hash[j];
			i = j;
		}
	}
	net->hash[i] = NONE;
}

/* ---- construction ---- */

struct net *net_new(const struct net_spec *s, uint32_t nnodes)
{
	struct sim_error e;
	if (net_spec_check(s, "", &e) < 0)
		SIM_BUG("net_new: bad spec: %s", e.msg);
	struct net *net = xcalloc(1, sizeof(*net));
	net->spec = *s;
	net->nnodes = nnodes;
	net->nracks = (uint32_t)(((uint64_t)nnodes + s->rack_nodes - 1) /
				 s->rack_nodes);
	net->nlinks = nnodes + net->nracks;
	SIM_ASSERT(net->nlinks >= nnodes); /* no overflow */
	net->links = xcalloc(net->nlinks ? net->nlinks : 1,
			     sizeof(*net->links));
	double up_Bps = net_spec_leaf_up_gbps(s) * GBPS_TO_BPS;
	for (uint32_t i = 0; i < net->nlinks; i++) {
		net->links[i].cap_Bps = i < nnodes ? s->nic_gbps * GBPS_TO_BPS
						   : up_Bps;
	}
	net->nvlink_Bps = s->nvlink_gBps * GBYTES_TO_BPS;
	net->free_head = NONE;
	hash_grow(net);
	net->live = xmalloc((net->nlinks ? net->nlinks : 1) *
			    sizeof(*net->live));
	return net;
}

void net_free(struct net *net)
{
	if (!net)
		return;
	for (uint32_t i = 0; i < net->nlinks; i++)
		free(net->links[i].jobs);
	for (uint32_t i = 0; i < net->nslots; i++)
		free(net->jobs[i].links);
	free(net->links);
	free(net->jobs);
	free(net->hash);
	free(net->dirty);
	free(net->cand);
	free(net->changed);
	free(net->clinks);
	free(net->cjobs);
	free(net->live);
	free(net->touched);
	free(net->newly);
	free(net);
}

uint32_t net_nodes(const struct net *net)
{
	return net->nnodes;
}

const struct net_spec *net_get_spec(const struct net *net)
{
	return &net->spec;
}

uint32_t net_racks(const struct net *net)
{
	return net->nracks;
}

size_t net_jobs(const struct net *net)
{
	return net->njobs;
}

/* ---- jobs ---- */

static void mark_dirty(struct net *net, uint32_t l)
{
	if (net->links[l].dirty)
		return;
	net->links[l].dirty = true;
	xgrow(&net->dirty, &net->dirty_cap, net->ndirty + 1,
	      sizeof(*net->dirty));
	net->dirty[net->ndirty++] = l;
}

static void mark_cand(struct net *net, uint32_t slot)
{
	if (net->jobs[slot].in_cand)
		return;
	net->jobs[slot].in_cand = true;
	xgrow(&net->cand, &net->cand_cap, net->ncand + 1, sizeof(*net->cand));
	net->cand[net->ncand++] = slot;
}

/* The job's bandwidth from its fair share. */
static double job_bw(const struct net *net, const struct net_job *j)
{
	if (j->gpus <= 1)
		return INFINITY;
	if (j->nnodes == 1)
		return net->nvlink_Bps;
	return j->nvlink ? fmin(j->share_Bps, net->nvlink_Bps) : j->share_Bps;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* A free job slot (the id table grown first, kept at most half full). */
static uint32_t take_slot(struct net *net)
{
	if ((net->njobs + 1) * 2 > net->hash_cap)
		hash_grow(net);
	uint32_t slot = net->free_head;
	if (slot != NONE) {
		net->free_head = net->jobs[slot].next_free;
	} else {
		SIM_ASSERT(net->nslots < NONE);
		xgrow(&net->jobs, &net->njobs_cap, net->nslots + 1,
		      sizeof(*net->jobs));
		slot = net->nslots++;
		net->jobs[slot] = (struct net_job){ .in_cand = false };
	}
	return slot;
}

/*
 * The streams of the job in slot, on its k nodes (sorted, in nracks
 * racks): one on each node's NIC and, across racks, one on each rack's
 * uplink; a single-node job crosses no link.  Each link is marked dirty;
 * returns the number of streams.
 */
static uint32_t attach_links(struct net *net, uint32_t slot,
			     const uint32_t *sorted, uint32_t k,
			     uint32_t nracks)
{
	struct net_job *j = &net->jobs[slot];
	uint32_t n = k > 1 ? k + (nracks > 1 ? nracks : 0) : 0;
	j->nlinks = n;
	j->links = n ? xmalloc(2 * (size_t)n * sizeof(*j->links)) : NULL;
	j->at = n ? j->links + n : NULL; /* NULL + 0 is undefined */
	uint32_t nl = 0;
	for (uint32_t i = 0; n && i < k; i++)
		j->links[nl++] = sorted[i];
	for (uint32_t i = 0; n && nracks > 1 && i < k; i++) {
		uint32_t leaf = net->nnodes + sorted[i] / net->spec.rack_nodes;
		if (i == 0 || j->links[nl - 1] != leaf)
			j->links[nl++] = leaf;
	}
	SIM_ASSERT(nl == n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t li = j->links[i];
		struct net_link *l = &net->links[li];
		if (l->njobs == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 4;
			l->jobs = xrealloc(l->jobs, l->cap * sizeof(*l->jobs));
		}
		j->at[i] = l->njobs;
		l->jobs[l->njobs++] = (struct net_inc){ slot, i };
		mark_dirty(net, li);
	}
	return n;
}

int net_job_add(struct net *net, int64_t job_id, const uint32_t *nodes,
		const uint32_t *gpus_per_node, uint32_t k,
		struct sim_error *err)
{
	uint32_t *sorted = NULL;
	int rc = 0;

	if (k == 0) {
		rc = err_setc(err, -SIM_ESTATE, "net: job '%" PRId64 "' has "
			      "no nodes", job_id);
		goto out;
	}
	if (job_find(net, job_id) != NONE) {
		rc = err_setc(err, -SIM_ESTATE, "net: job '%" PRId64 "' is "
			      "already on the fabric", job_id);
		goto out;
	}
	uint64_t gpus = 0;
	bool nvlink = false;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t g = gpus_per_node ? gpus_per_node[i] : 1;
		if (nodes[i] >= net->nnodes) {
			rc = err_setc(err, -SIM_ESTATE, "net: job '%" PRId64
				      "': node '%" PRIu32 "' out of range",
				      job_id, nodes[i]);
			goto out;
		}
		if (g == 0) {
			rc = err_setc(err, -SIM_ESTATE, "net: job '%" PRId64
				      "': no GPUs on node '%" PRIu32 "'",
				      job_id, nodes[i]);
			goto out;
		}
		gpus += g;
		nvlink |= g > 1;
	}
	if (gpus > UINT32_MAX) {
		rc = err_setc(err, -SIM_ESTATE, "net: job '%" PRId64 "': too "
			      "many GPUs '%" PRIu64 "'", job_id, gpus);
		goto out;
	}
	sorted = xmalloc(k * sizeof(*sorted));
	memcpy(sorted, nodes, k * sizeof(*sorted));
	qsort(sorted, k, sizeof(*sorted), cmp_u32);
	uint32_t nracks = 1;
	for (uint32_t i = 1; i < k; i++) {
		if (sorted[i] == sorted[i - 1]) {
			rc = err_setc(err, -SIM_ESTATE, "net: job '%" PRId64
				      "': node '%" PRIu32 "' given twice",
				      job_id, sorted[i]);
			goto out;
		}
		nracks += sorted[i] / net->spec.rack_nodes !=
			  sorted[i - 1] / net->spec.rack_nodes;
	}

	uint32_t slot = take_slot(net);
	struct net_job *j = &net->jobs[slot];
	bool in_cand = j->in_cand; /* a listing of the slot's last job */
	*j = (struct net_job){
		.id = job_id,
		.gpus = (uint32_t)gpus,
		.nnodes = k,
		.nracks = nracks,
		.nvlink = nvlink,
		.used = true,
		.fresh = true,
		.in_cand = in_cand,
		.share_Bps = INFINITY,
	};
	net->hash[hash_pos(net, job_id)] = slot;
	net->njobs++;

	uint32_t n = attach_links(net, slot, sorted, k, nracks);
	if (n == 0)
		j->bw_Bps = job_bw(net, j);
	else
		j->bw_Bps = NAN; /* until the update */
	mark_cand(net, slot);
out:
	free(sorted);
	return rc;
}

int net_job_remove(struct net *net, int64_t job_id, struct sim_error *err)
{
	uint32_t slot = job_find(net, job_id);
	if (slot == NONE)
		return err_setc(err, -SIM_ESTATE, "net: no job '%" PRId64
				"' on the fabric", job_id);
	struct net_job *j = &net->jobs[slot];
	for (uint32_t i = 0; i < j->nlinks; i++) {
		struct net_link *l = &net->links[j->links[i]];
		uint32_t at = j->at[i];
		struct net_inc last = l->jobs[--l->njobs];
		if (at != l->njobs) {
			l->jobs[at] = last;
			net->jobs[last.job].at[last.at] = at;
		}
		mark_dirty(net, j->links[i]);
	}
	hash_del(net, job_id);
	free(j->links);
	bool in_cand = j->in_cand;
	*j = (struct net_job){ .in_cand = in_cand, .next_free = net->free_head };
	net->free_head = slot;
	net->njobs--;
	return 0;
}

/* ---- progressive filling ---- */

/* Components of up to this many links scan their links in play for the
 * least level; larger ones keep them in a heap (the same steps). */
#define SCAN_LINKS 128

static bool heap_less(const struct net *net, uint32_t a, uint32_t b)
{
	double x = net->links[a].level_Bps, y = net->links[b].level_Bps;
	return x < y || (x == y && a < b);
}

static void heap_set(struct net *net, uint32_t i, uint32_t l)
{
	net->live[i] = l;
	net->links[l].heap = i;
}

static void heap_up(struct net *net, uint32_t i)
{
	uint32_t l = net->live[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!heap_less(net, l, net->live[p]))
			break;
		heap_set(net, i, net->live[p]);
		i = p;
	}
	heap_set(net, i, l);
}

static void heap_down(struct net *net, uint32_t i)
{
	uint32_t l = net->live[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= net->nlive)
			break;
		if (c + 1 < net->nlive &&
		    heap_less(net, net->live[c + 1], net->live[c]))
			c++;
		if (!heap_less(net, net->live[c], l))
			break;
		heap_set(net, i, net->live[c]);
		i = c;
	}
	heap_set(net, i, l);
}

static void heap_remove(struct net *net, uint32_t l)
{
	uint32_t i = net->links[l].heap;
	uint32_t last = net->live[--net->nlive];
	net->links[l].heap = NONE;
	if (i == net->nlive)
		return;
	heap_set(net, i, last);
	heap_up(net, i);
	heap_down(net, net->links[last].heap);
}

/* The least level of the links in play; a scan drops those whose jobs
 * are all frozen (the heap has dropped them already). */
static double least_level(struct net *net)
{
	if (net->use_heap)
		return net->nlive ? net->links[net->live[0]].level_Bps
				  : INFINITY;
	double x = INFINITY;
	uint32_t w = 0;
	for (uint32_t i = 0; i < net->nlive; i++) {
		struct net_link *l = &net->links[net->live[i]];
		if (l->unfrozen == 0) {
			l->heap = NONE;
			continue;
		}
		net->live[w++] = net->live[i];
		if (l->level_Bps < x)
			x = l->level_Bps;
	}
	net->nlive = w;
	return x;
}

/* Link l saturates at level x: its unfrozen jobs freeze at x (listed in
 * net->newly). */
static void freeze_jobs(struct net *net, const struct net_link *l, double x)
{
	for (uint32_t k = 0; k < l->njobs; k++) {
		struct net_job *j = &net->jobs[l->jobs[k].job];
		if (j->frozen)
			continue;
		j->frozen = true;
		j->share_Bps = x;
		net->newly[net->nnewly++] = l->jobs[k].job;
	}
}

/* Saturates every link in play at level x; they leave play. */
static void saturate(struct net *net, double x)
{
	net->nnewly = 0;
	while (net->use_heap && net->nlive &&
	       net->links[net->live[0]].level_Bps == x) {
		struct net_link *l = &net->links[net->live[0]];
		heap_remove(net, net->live[0]);
		freeze_jobs(net, l, x);
	}
	if (net->use_heap)
		return;
	uint32_t w = 0;
	for (uint32_t i = 0; i < net->nlive; i++) {
		struct net_link *l = &net->links[net->live[i]];
		if (l->level_Bps != x) {
			net->live[w++] = net->live[i];
			continue;
		}
		l->heap = NONE;
		freeze_jobs(net, l, x);
	}
	net->nlive = w;
}

/*
 * Progressive filling over the links in net->clinks and the jobs in
 * net->cjobs (whole components: every job on these links is in cjobs).
 * Sets each job's share_Bps.
 */
static void fill(struct net *net)
{
	/* Room up front: each job freezes once, each link is touched at
	 * most once a step. */
	xgrow(&net->newly, &net->newly_cap, net->ncjobs + 1,
	      sizeof(*net->newly));
	xgrow(&net->touched, &net->touched_cap, net->nclinks + 1,
	      sizeof(*net->touched));
	net->nlive = 0;
	net->use_heap = net->nclinks > SCAN_LINKS;
	for (size_t i = 0; i < net->nclinks; i++) {
		uint32_t li = net->clinks[i];
		struct net_link *l = &net->links[li];
		l->rem_Bps = l->cap_Bps;
		l->unfrozen = l->njobs;
		l->m = 0;
		l->heap = NONE;
		if (!l->njobs)
			continue;
		l->level_Bps = l->cap_Bps / l->njobs;
		l->heap = net->nlive;
		net->live[net->nlive++] = li;
		if (net->use_heap)
			heap_up(net, l->heap);
	}
	for (size_t i = 0; i < net->ncjobs; i++)
		net->jobs[net->cjobs[i]].frozen = false;

	for (;;) {
		double x = least_level(net);
		if (net->nlive == 0)
			break;
		saturate(net, x);
		/* Take the frozen streams off every link they cross. */
		net->ntouched = 0;
		for (size_t i = 0; i < net->nnewly; i++) {
			struct net_job *j = &net->jobs[net->newly[i]];
			for (uint32_t k = 0; k < j->nlinks; k++) {
				uint32_t li = j->links[k];
				if (net->links[li].m++ > 0)
					continue;
				net->touched[net->ntouched++] = li;
			}
		}
		for (size_t i = 0; i < net->ntouched; i++) {
			uint32_t li = net->touched[i];
			struct net_link *l = &net->links[li];
			SIM_ASSERT(l->m <= l->unfrozen);
			l->unfrozen -= l->m;
			l->rem_Bps -= x * l->m;
			l->m = 0;
			if (l->heap == NONE) {
				SIM_ASSERT(l->unfrozen == 0);
				continue;
			}
			/* None left: out of play (a scan drops it at the
			 * next).  Else fmax, inline: both are positive. */
			if (l->unfrozen == 0) {
				if (net->use_heap)
					heap_remove(net, li);
				continue;
			}
			double lv = l->rem_Bps / l->unfrozen;
			l->level_Bps = lv > x ? lv : x;
			if (net->use_heap) {
				heap_up(net, l->heap);
				heap_down(net, l->heap);
			}
		}
	}
}

/* Lists a link of the components (room for every link was made). */
static void push_clink(struct net *net, uint32_t li)
{
	net->links[li].stamp = net->stamp;
	net->clinks[net->nclinks++] = li;
}

/* Recomputes the components of the dirty links. */
static void update(struct net *net)
{
	if (net->ndirty == 0)
		return;
	if (++net->stamp == 0) {
		/* The mark wrapped: clear the old ones. */
		for (uint32_t i = 0; i < net->nlinks; i++)
			net->links[i].stamp = 0;
		for (uint32_t i = 0; i < net->nslots; i++)
			net->jobs[i].stamp = 0;
		net->stamp = 1;
	}
	net->nclinks = 0;
	net->ncjobs = 0;
	/* Room for every link and job slot: each is listed once. */
	xgrow(&net->clinks, &net->clinks_cap, (size_t)net->nlinks + 1,
	      sizeof(*net->clinks));
	xgrow(&net->cjobs, &net->cjobs_cap, (size_t)net->nslots + 1,
	      sizeof(*net->cjobs));
	for (size_t i = 0; i < net->ndirty; i++) {
		uint32_t li = net->dirty[i];
		net->links[li].dirty = false;
		if (net->links[li].stamp != net->stamp)
			push_clink(net, li);
	}
	net->ndirty = 0;
	/* Breadth first over links and the jobs crossing them. */
	for (size_t q = 0; q < net->nclinks; q++) {
		struct net_link *l = &net->links[net->clinks[q]];
		for (uint32_t k = 0; k < l->njobs; k++) {
			uint32_t slot = l->jobs[k].job;
			struct net_job *j = &net->jobs[slot];
			if (j->stamp == net->stamp)
				continue;
			j->stamp = net->stamp;
			net->cjobs[net->ncjobs++] = slot;
			for (uint32_t i = 0; i < j->nlinks; i++)
				if (net->links[j->links[i]].stamp !=
				    net->stamp)
					push_clink(net, j->links[i]);
		}
	}
	fill(net);
	for (size_t i = 0; i < net->ncjobs; i++) {
		struct net_job *j = &net->jobs[net->cjobs[i]];
		j->bw_Bps = job_bw(net, j);
		mark_cand(net, net->cjobs[i]);
	}
}

void net_recompute_all(struct net *net)
{
	for (uint32_t i = 0; i < net->nlinks; i++)
		if (net->links[i].njobs)
			mark_dirty(net, i);
	update(net);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

size_t net_rates(struct net *net, const int64_t **changed)
{
	update(net);
	xgrow(&net->changed, &net->changed_cap, net->ncand + 1,
	      sizeof(*net->changed));
	size_t n = 0;
	for (size_t i = 0; i < net->ncand; i++) {
		struct net_job *j = &net->jobs[net->cand[i]];
		j->in_cand = false;
		if (!j->used)
			continue;
		/* Bit-exact comparison: the computation is deterministic. */
		if (j->fresh || j->bw_Bps != j->reported_Bps)
			net->changed[n++] = j->id;
		j->reported_Bps = j->bw_Bps;
		j->fresh = false;
	}
	net->ncand = 0;
	qsort(net->changed, n, sizeof(*net->changed), cmp_i64);
	*changed = net->changed;
	return n;
}

/* ---- queries ---- */

double net_job_bandwidth(struct net *net, int64_t job_id)
{
	update(net);
	uint32_t slot = job_find(net, job_id);
	return slot == NONE ? -1 : net->jobs[slot].bw_Bps;
}

double net_job_latency_usec(const struct net *net, int64_t job_id)
{
	uint32_t slot = job_find(net, job_id);
	if (slot == NONE)
		return -1;
	const struct net_job *j = &net->jobs[slot];
	if (j->nnodes == 1)
		return 0;
	return (j->nracks == 1 ? 2 : 4) * net->spec.latency_usec;
}

uint32_t net_job_gpus(const struct net *net, int64_t job_id)
{
	uint32_t slot = job_find(net, job_id);
	return slot == NONE ? 0 : net->jobs[slot].gpus;
}

double net_allreduce_seconds(uint32_t p, double bytes, double bandwidth_Bps,
			     double latency_usec)
{
	if (p <= 1)
		return 0;
	if (!(bandwidth_Bps > 0))
		return INFINITY;
	double steps = 2.0 * (p - 1);
	double t = steps * latency_usec * 1e-6;
	if (bytes > 0)
		t += steps / p * bytes / bandwidth_Bps;
	return t;
}

double net_job_allreduce_seconds(struct net *net, int64_t job_id,
				 double bytes)
{
	double bw = net_job_bandwidth(net, job_id);
	if (bw < 0)
		return -1;
	return net_allreduce_seconds(net_job_gpus(net, job_id), bytes, bw,
				     net_job_latency_usec(net, job_id));
}

double net_job_allreduce_alone(const struct net *net, int64_t job_id,
			       double bytes)
{
	double bw = net_job_bandwidth_alone(net, job_id);
	if (bw < 0)
		return -1;
	return net_allreduce_seconds(net_job_gpus(net, job_id), bytes, bw,
				     net_job_latency_usec(net, job_id));
}

double net_job_bandwidth_alone(const struct net *net, int64_t job_id)
{
	uint32_t slot = job_find(net, job_id);
	if (slot == NONE)
		return -1;
	const struct net_job *j = &net->jobs[slot];
	double bw = INFINITY;
	for (uint32_t i = 0; i < j->nlinks; i++)
		bw = fmin(bw, net->links[j->links[i]].cap_Bps);
	if (j->gpus <= 1)
		bw = INFINITY;
	else if (j->nnodes == 1)
		bw = net->nvlink_Bps;
	else if (j->nvlink)
		bw = fmin(bw, net->nvlink_Bps);
	return bw;
}

/* ---- invariants ---- */

int net_check(const struct net *net, struct sim_error *err)
{
	size_t inc = 0, used = 0;
	for (uint32_t s = 0; s < net->nslots; s++) {
		const struct net_job *j = &net->jobs[s];
		if (!j->used)
			continue;
		used++;
		if (job_find(net, j->id) != s)
			return err_setc(err, -SIM_ESTATE, "net: job '%" PRId64
					"' not found by its id", j->id);
		for (uint32_t i = 0; i < j->nlinks; i++) {
			const struct net_link *l = &net->links[j->links[i]];
			if (j->at[i] >= l->njobs ||
			    l->jobs[j->at[i]].job != s ||
			    l->jobs[j->at[i]].at != i)
				return err_setc(err, -SIM_ESTATE, "net: job '%"
						PRId64 "' and link '%" PRIu32
						"' disagree", j->id,
						j->links[i]);
		}
		inc += j->nlinks;
	}
	if (used != net->njobs)
		return err_setc(err, -SIM_ESTATE, "net: '%zu' jobs in slots, "
				"'%zu' counted", used, net->njobs);
	for (uint32_t li = 0; li < net->nlinks; li++) {
		const struct net_link *l = &net->links[li];
		double sum = 0;
		for (uint32_t k = 0; k < l->njobs; k++) {
			const struct net_job *j = &net->jobs[l->jobs[k].job];
			if (!j->used)
				return err_setc(err, -SIM_ESTATE, "net: link '%"
						PRIu32 "' lists a free slot",
						li);
			sum += j->share_Bps;
		}
		inc -= l->njobs;
		if (net->ndirty == 0 &&
		    sum > l->cap_Bps * (1 + 1e-9))
			return err_setc(err, -SIM_ESTATE, "net: link '%" PRIu32
					"' carries '%g' B/s over its capacity "
					"'%g'", li, sum, l->cap_Bps);
	}
	if (inc != 0)
		return err_setc(err, -SIM_ESTATE, "net: job and link "
				"incidence counts differ");
	return 0;
}
