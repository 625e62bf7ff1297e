/*
 * Job progress: how much work a running job has done and how fast it goes
 * now, and the service it is charged for.
 *
 * While every job runs at reference speed the engine keeps no per-job
 * record (work done = now - start); the first rate change, shared start
 * or preemption makes one for every job (sim_ensure_prog), and from then
 * on each running job's work is brought up to date whenever its rate,
 * share or hold changes.  Work is run time at reference speed, in
 * microseconds; a job's end event is moved whenever its rate changes,
 * rounded up so that it never ends before its work is done.
 */
#include "engine/sim_impl.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "base/util.h"
#include "speed/jobclass.h"
/* From now on, track progress per job: every running job has run at
 * reference speed since it started.  A job that has not run yet has all
 * zeros (nothing restored, nothing run), which sim_job_service() reads
 * for a waiting job. */
void sim_ensure_prog(struct sim *s)
{
	if (s->prog)
		return;
	s->prog = xcalloc(s->njobs, sizeof(*s->prog));
	for (size_t i = 0; i < s->nrun; i++) {
		const struct job *r = &s->jobs[s->running[i].idx];
		s->prog[r->idx] = (struct progress){
			.since = r->start, .rate = 1.0, .started = r->start,
			.hold = r->start, .factor = 1.0, .hsince = r->start,
			.weight = 1.0, .ideal = 1.0,
		};
	}
}

/* Brings a running job's placement-slowdown sums up to now (before its
 * rate or ideal rate changes, or it stops).  Time spent restoring, and
 * the slowing of sharing GPUs, are not its placement's doing. */
void sim_pslow_account(struct progress *p, sim_time_t now)
{
	sim_time_t from = p->since > p->hold ? p->since : p->hold;
	if (now <= from)
		return;
	double dt = (double)(now - from);
	p->ran += dt;
	p->ran_ideal += dt * (p->rate / p->factor / p->ideal);
}

/* Brings a running job's progress up to now, before its rate, share or
 * hold changes. */
void sim_prog_sync(struct sim *s, const struct job *j)
{
	struct progress *p = &s->prog[j->idx];
	p->done = prog_work(s, j);
	sim_pslow_account(p, s->now);
	p->since = s->now;
}

/* A new run's progress: work done from `done` on, after `hold`. */
void sim_prog_begin(struct sim *s, const struct job *j, double done,
		       sim_time_t hold)
{
	/* A restart keeps its placement-slowdown sums. */
	struct progress *p = &s->prog[j->idx];
	bool restart = j->preemptions > 0;
	double ran = restart ? p->ran : 0;
	double ran_ideal = restart ? p->ran_ideal : 0;
	double restored = restart ? p->restored : 0;
	*p = (struct progress){
		.done = done, .since = s->now, .rate = 1.0, .started = s->now,
		.hold = hold, .factor = 1.0, .hsince = s->now, .weight = 1.0,
		.ideal = 1.0, .ran = ran, .ran_ideal = ran_ideal,
		.restored = restored,
	};
}

/* Counts a running job's service so far into attained (and the part of
 * it spent restoring). */
void sim_count_held(struct sim *s, struct job *j)
{
	if (s->prog)
		s->prog[j->idx].restored += held_restoring(s, j);
	j->attained += held(s, j);
}

/* Counts a running job's service so far and charges it `weight` of its
 * resources from now on. */
void sim_set_weight(struct sim *s, struct job *j, double weight)
{
	sim_count_held(s, j);
	s->prog[j->idx].hsince = s->now;
	s->prog[j->idx].weight = weight;
}

/* Gives a running job the rate it should have: its speed on its
 * placement (speed model) times its share when it shares its GPUs; and
 * notes its speed on an ideal placement. */
void sim_apply_rate(struct sim *s, const struct job *j)
{
	bool model = s->speed && j->gpus;
	double ideal = 1.0;
	double r = model ? speed_rate_pair(s->speed, j, &s->plc[j->idx],
					   &ideal)
			 : 1.0;
	if (s->prog)
		r *= s->prog[j->idx].factor;
	if (sim_set_job_rate(s, j, r) != 0)
		SIM_BUG("rate %g refused for job %lld", r, (long long)j->id);
	if (model)
		s->prog[j->idx].ideal = ideal;
}

void sim_speed_started(struct sim *s, const struct job *j)
{
	const struct placement *plc = &s->plc[j->idx];
	struct place_shape shape;
	speed_job_started(s->speed, j, plc);
	if (!j->llm)
		return;
	uint32_t *rank_node = xmalloc(j->gpus * sizeof(*rank_node));
	/* The launcher's rank order: by the shape, unless the placement
	 * ignored it (then in node order). */
	if (s->placement != PLACE_SHAPE_BLIND && job_shape(j, &shape))
		cluster_shape_ranks(s->cluster, plc, &shape, rank_node);
	else
		place_shape_ranks(plc, rank_node);
	speed_llm_started(s->speed, j, plc, rank_node);
	free(rank_node);
}

/* What restoring a job's checkpoint costs (restart or migration):
 * fixed, per GPU, and its model state written and read back at the
 * storage bandwidth. */
sim_time_t sim_restore_cost(const struct sim *s, const struct job *j)
{
	double t = (double)s->cfg.restore_overhead +
		   (double)s->cfg.restore_per_gpu * j->gpus;
	if (s->cfg.storage_Bps > 0 && j->job_class != JOB_CLASS_NONE)
		t += 2.0 * (double)jobclass_grad_bytes(j->job_class) /
		     s->cfg.storage_Bps * SIM_SEC;
	/* Past the horizon, the start that pays it stops the run. */
	return t < (double)SIM_TIME_HORIZON ? (sim_time_t)ceil(t)
					    : SIM_TIME_HORIZON;
}

void sim_note_service(struct sim *s, struct job *j)
{
	if (j->preemptions)
		return;
	double r = speed_rate_alone(s->speed, j, &s->plc[j->idx]);
	double t = (double)j->run / r;
	/* Whole microseconds, rounded up as the engine ends a job. */
	j->service = t < (double)SIM_TIME_HORIZON ? (sim_time_t)ceil(t)
						  : SIM_TIME_HORIZON;
}

/* Gives the jobs whose speed may have changed their new rates. */
void sim_update_rates(struct sim *s)
{
	if (s->defer_rates) {
		s->rates_due = true;
		return;
	}
	const int64_t *ids;
	size_t n = speed_changed(s->speed, &ids);
	for (size_t i = 0; i < n; i++) {
		const struct job *j = &s->jobs[ids[i]];
		if (j->state == JOB_RUNNING)
			sim_apply_rate(s, j);
	}
}


int sim_set_job_rate(struct sim *s, const struct job *cj, double rate)
{
	if (!own_job(s, cj) || cj->state != JOB_RUNNING || !(rate > 0) ||
	    !isfinite(rate))
		return -SIM_ESTATE;
	sim_ensure_prog(s);
	struct progress *p = &s->prog[cj->idx];
	sim_prog_sync(s, cj);
	p->rate = rate;
	double left = (double)cj->run - p->done;
	/* Whole microseconds, rounded up: a job never ends before its work
	 * is done. */
	evq_move(&s->q, s->end_ev[cj->idx],
		 sim_time_after(s, p->hold > s->now ? p->hold : s->now,
				left > 0 ? left / rate : 0, cj));
	return 0;
}

const struct placement *sim_job_placement(const struct sim *s,
					  const struct job *j)
{
	if (!check_job(s, j, "sim_job_placement"))
		return NULL;
	return j->state == JOB_RUNNING ? &s->plc[j->idx] : NULL;
}

double sim_job_work_done(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_work_done"))
		return 0;
	if (j->state == JOB_PENDING && s->resume)
		return s->resume[j->idx].kept;
	if (j->state != JOB_RUNNING)
		return j->state == JOB_FINISHED || j->state == JOB_KILLED
			       ? (double)j->run
			       : 0;
	return prog_work(s, j);
}


double sim_job_attained(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_attained"))
		return 0;
	return j->attained + (j->state == JOB_RUNNING ? held(s, j) : 0);
}

sim_time_t sim_job_restored_at(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_restored_at") ||
	    j->state != JOB_RUNNING)
		return SIM_TIME_NONE;
	sim_time_t h = s->prog ? s->prog[j->idx].hold : s->now;
	return h > s->now ? h : s->now;
}

double sim_job_service(const struct sim *s, const struct job *j)
{
	if (!check_job(s, j, "sim_job_service"))
		return 0;
	double a = sim_job_attained(s, j);
	if (!s->prog)
		return a;
	a -= s->prog[j->idx].restored;
	if (j->state == JOB_RUNNING)
		a -= held_restoring(s, j);
	return a > 0 ? a : 0;
}


/* ---- Progress detection ---------------------------------------------
 *
 * Net progress is work kept: a job ends (its work is complete), or a job
 * keeps work it had not kept before - a preemption keeps more than the
 * job's last one did (its checkpointed work, every checkpoint_interval
 * of work; all of it with no interval), or a running job has passed a
 * checkpoint beyond what its run began with.  A job that has run, past
 * its restore, for a whole span without being stopped counts as well:
 * it will keep its work at its next checkpoint (with a checkpoint
 * interval longer than the span, an undisturbed long job is not stuck).
 * Time with no job pending or running does not count.  No net progress
 * for the span is an error: the policy keeps stopping its jobs before
 * they keep anything (a preemption livelock), or never starts them while
 * it keeps waking up.  The look costs nothing until a span has passed
 * with no job ending; then one pass over the running jobs.
 */

void sim_progress_start(struct sim *s)
{
	sim_time_t span = s->cfg.progress_timeout;
	s->progress_span = span < 0 ? 0 : span ? span : SIM_PROGRESS_TIMEOUT;
	s->progress_due = SIM_TIME_MAX;
	note_progress(s);
}

/* Has a running job made net progress (above), or, in *last, when did
 * the latest one start to work (its restore over)? */
static bool running_progressed(const struct sim *s, sim_time_t *last)
{
	*last = 0;
	if (!s->prog)
		return s->nrun > 0; /* all at reference speed since they began */
	double iv = (double)s->cfg.checkpoint_interval;
	for (size_t i = 0; i < s->nrun; i++) {
		const struct job *j = &s->jobs[s->running[i].idx];
		const struct progress *p = &s->prog[j->idx];
		if (p->hold <= s->now && s->now - p->hold >= s->progress_span)
			return true;
		double w = prog_work(s, j);
		double c = iv > 0 ? floor(w / iv) * iv : w;
		if (c > (s->resume ? s->resume[j->idx].kept : 0))
			return true;
		if (p->hold > *last)
			*last = p->hold;
	}
	return false;
}

/* The ids of the first running (or waiting) jobs, into buf. */
static void list_ids(const struct sim *s, bool running, char *buf,
		     size_t size)
{
	size_t n = running ? s->nrun : s->qlen, len = 0, max = 8;
	snprintf(buf, size, "none");
	for (size_t i = 0; i < n && i < max && len < size; i++) {
		uint32_t idx = running ? s->running[i].idx
				       : s->queue[s->qhead + i];
		len += (size_t)snprintf(buf + len, size - len, "%s%lld",
					i ? ", " : "job ",
					(long long)s->jobs[idx].id);
	}
	if (n > max && len < size)
		snprintf(buf + len, size - len, " and %zu more", n - max);
}

/* Called when progress_due has come: 0 (net progress, or none needed),
 * or -SIM_ESTATE with a message naming the policy and the jobs. */
int sim_progress_check(struct sim *s, struct sim_error *err)
{
	sim_time_t last;
	if (!s->progress_span)
		return 0;
	if (s->qlen + s->nrun == 0 || running_progressed(s, &last)) {
		note_progress(s);
		return 0;
	}
	if (!s->progress_late && s->nrun) {
		/* The jobs running now started inside the span: look again
		 * when the latest of them has run a whole span. */
		s->progress_late = true;
		s->progress_since = s->progress_due - s->progress_span;
		s->progress_due = s->progress_span > SIM_TIME_MAX - last
			? SIM_TIME_MAX : last + s->progress_span;
		return 0;
	}
	sim_time_t since = s->progress_late
		? s->progress_since : s->progress_due - s->progress_span;
	char run[200], wait[200];
	list_ids(s, true, run, sizeof(run));
	list_ids(s, false, wait, sizeof(wait));
	return err_setc(err, -SIM_ESTATE,
			"policy '%s' made no progress from %g s to %g s: "
			"no job ended or kept work it had not kept before "
			"(%" PRIu64 " preemptions so far; running: %s; "
			"waiting: %s); a livelock: see the policy's "
			"min_run_s, or progress_timeout",
			s->ops->name, (double)since / SIM_SEC,
			(double)s->now / SIM_SEC, s->counters.preemptions,
			run, wait);
}
