/*
 * The placement log: every interval a job held a placement (from a start
 * or a migration to its end, preemption or next migration), with the
 * extents of nodes it held, for allocations.csv and the Gantt chart.
 *
 * It is kept only when the run asks for it (sim_config.record_allocations):
 * the engine's hooks are one test of s->alog when it is off, so a run
 * without it costs what it did.  When on, an interval is one record and
 * its extents are copied into one growing array: a preempted or migrated
 * job simply has several records.
 */
#include "engine/sim_impl.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The log of one run. */
struct alloc_log {
	struct alloc_interval *v;   /* intervals in the order they opened */
	size_t n, cap;
	struct place_slot *slots;   /* the extents of every interval */
	size_t nslots, slotcap;
	uint32_t *open;             /* per job: its open interval + 1; 0 */
};

void sim_placelog_init(struct sim *s)
{
	if (!s->cfg.record_allocations)
		return;
	s->alog = xcalloc(1, sizeof(*s->alog));
	s->alog->open = xcalloc(s->njobs ? s->njobs : 1,
				sizeof(*s->alog->open));
}

void sim_placelog_release(struct sim *s)
{
	if (!s->alog)
		return;
	free(s->alog->v);
	free(s->alog->slots);
	free(s->alog->open);
	free(s->alog);
	s->alog = NULL;
}

void sim_placelog_open(struct sim *s, const struct job *j)
{
	struct alloc_log *l = s->alog;
	const struct placement *p = &s->plc[j->idx];
	SIM_ASSERT(!l->open[j->idx]);
	xgrow(&l->v, &l->cap, l->n + 1, sizeof(*l->v));
	xgrow(&l->slots, &l->slotcap, l->nslots + p->n + 1,
	      sizeof(*l->slots));
	if (p->n)
		memcpy(l->slots + l->nslots, p->slots,
		       p->n * sizeof(*p->slots));
	l->v[l->n] = (struct alloc_interval){
		.idx = j->idx, .start = s->now, .end = SIM_TIME_NONE,
		.slot0 = l->nslots, .nslots = p->n,
	};
	l->nslots += p->n;
	l->open[j->idx] = (uint32_t)++l->n;
}

void sim_placelog_close(struct sim *s, const struct job *j)
{
	struct alloc_log *l = s->alog;
	uint32_t k = l->open[j->idx];
	SIM_ASSERT(k);
	l->v[k - 1].end = s->now;
	l->open[j->idx] = 0;
}

const struct alloc_interval *sim_allocations(const struct sim *s,
					     size_t *n,
					     const struct place_slot **slots)
{
	if (!s->alog) {
		*n = 0;
		*slots = NULL;
		return NULL;
	}
	*n = s->alog->n;
	*slots = s->alog->slots;
	return s->alog->v;
}
