/*
 * SWF input-cleaning presets: the rules by which other simulators turn an
 * SWF line into the job they schedule, so that a comparison with one of
 * them starts from the same jobs.  Each preset rewrites the raw fields of
 * one line (submit, run, requested time, processors) before the loader's
 * own options (procs, drop_invalid, overrun) refine the result; a rule
 * the preset cannot express here (Batsim renumbers jobs, sizes its
 * platform to the largest job) is named in traces/README.md and left
 * out.  The rules, with the peer's file and commit:
 *
 *   pyss   dinesh121991/pyss 44a2423, src/base/prototype.py
 *          _job_input_to_job (and workload_parser.py's int() fields)
 *   cqsim  SPEAR-UIC/CQSim 16ce88e, src/Extend/SWF/Filter_job_SWF.py
 *          input_check; processors from reqProc (src/CqSim/Cqsim_sim.py
 *          start)
 *   batsim oar-team/batsim 0d1e642,
 *          tools/swf_to_batsim_workload_compute_only.py generate_workload
 *          at its defaults (job_walltime_factor 2, job_grain 1)
 */
#include "workload/workload.h"

const char *const swf_clean_names[SWF_CLEAN_N] = {
	[SWF_CLEAN_PWA] = "pwa",
	[SWF_CLEAN_PYSS] = "pyss",
	[SWF_CLEAN_CQSIM] = "cqsim",
	[SWF_CLEAN_BATSIM] = "batsim",
};

/* Python's int() of a time: whole seconds, toward zero. */
static sim_time_t clean_trunc(sim_time_t t)
{
	return t / SIM_SEC * SIM_SEC;
}

static sim_time_t clean_max(sim_time_t a, sim_time_t b)
{
	return a > b ? a : b;
}

static sim_time_t clean_min(sim_time_t a, sim_time_t b)
{
	return a < b ? a : b;
}

/* pyss: a line with run <= 0, allocated <= 0 or submit < 0 becomes a
 * 1-second job on max(1, allocated) processors submitted at max(submit,
 * 1); any other gets estimate max(requested, run, 1), run max(min(
 * requested, run), 1) (so no estimate makes a 1-second job) and
 * max(min(allocated, machine), 1) processors, all in whole seconds.
 * Nothing is dropped. */
static int clean_pyss(struct swf_fields *f, int64_t max_procs)
{
	const sim_time_t one = SIM_SEC;
	int64_t procs;

	if (f->run <= 0 || f->alloc <= 0 || f->submit < 0) {
		f->run = one;
		f->est = one;
		procs = f->alloc > 1 ? f->alloc : 1;
		f->submit = clean_max(clean_trunc(f->submit), one);
	} else {
		sim_time_t run = f->run, req = f->est;
		f->est = clean_trunc(clean_max(clean_max(req, run), one));
		f->run = clean_trunc(clean_max(clean_min(req, run), one));
		procs = f->alloc;
		if (max_procs > 0 && procs > max_procs)
			procs = max_procs;
		if (procs < 1)
			procs = 1;
		f->submit = clean_trunc(f->submit);
	}
	f->alloc = procs;
	f->req = procs;
	return 1;
}

/* CQSim: a run longer than the requested time (compared in whole
 * seconds) becomes the requested time; a line with id, run, requested
 * time or requested processors below 1, or a negative submit, is dropped;
 * jobs take their requested processors. */
static int clean_cqsim(struct swf_fields *f)
{
	if (f->run / SIM_SEC > f->est / SIM_SEC)
		f->run = f->est;
	if (f->id <= 0 || f->submit / SIM_SEC < 0 || f->run / SIM_SEC <= 0 ||
	    f->est / SIM_SEC <= 0 || f->req <= 0)
		return 0;
	f->alloc = f->req;
	return 1;
}

/* Batsim: submit max(0, submit); walltime max(2 x run, requested); kept
 * when allocated > 0, run > 0 and walltime > run; the job then computes
 * floor(run) + 1 seconds on its allocated processors. */
static int clean_batsim(struct swf_fields *f)
{
	sim_time_t wall = clean_max(2 * f->run, f->est);

	f->submit = clean_max(f->submit, 0);
	if (!(f->alloc > 0 && wall > f->run && f->run > 0))
		return 0;
	f->est = wall;
	f->run = clean_trunc(f->run) + SIM_SEC;
	f->req = f->alloc;
	return 1;
}

int swf_clean_job(enum swf_clean p, struct swf_fields *f, int64_t max_procs,
		  struct trace_report *r)
{
	struct swf_fields old = *f;
	int keep = 1;

	switch (p) {
	case SWF_CLEAN_PYSS:
		keep = clean_pyss(f, max_procs);
		break;
	case SWF_CLEAN_CQSIM:
		keep = clean_cqsim(f);
		break;
	case SWF_CLEAN_BATSIM:
		keep = clean_batsim(f);
		break;
	case SWF_CLEAN_PWA:
	case SWF_CLEAN_N:
		break;
	}
	if (!keep)
		r->clean_dropped++;
	else if (f->submit != old.submit || f->run != old.run ||
		 f->est != old.est || f->alloc != old.alloc)
		r->clean_changed++;
	return keep;
}

void swf_clean_end(enum swf_clean p, struct workload *w)
{
	sim_time_t first = SIM_TIME_MAX;

	if (p != SWF_CLEAN_BATSIM || !w->n)
		return;
	for (size_t i = 0; i < w->n; i++)
		first = clean_min(first, w->jobs[i].submit);
	for (size_t i = 0; i < w->n; i++)
		w->jobs[i].submit -= first;
}
