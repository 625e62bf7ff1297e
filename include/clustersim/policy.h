/*
 * The policy contract: what a scheduling policy is, and the engine calls it
 * may make.
 *
 * A policy is one table of callbacks, declared at the end of its own file
 * with CLUSTERSIM_POLICY().  The engine calls them; the policy acts only
 * through the sim_*() calls below, each of which is validated (a refused
 * call returns a negative code and is counted in the run's "bad_calls").
 * Policies see jobs through const pointers and keep their own state in the
 * block and per-job slots the engine allocates for them (or in what init()
 * sets), never in globals, so many simulations can run in one process.
 * (The placement of GPU-sharing pods in fill and replay experiments is
 * another kind of plug-in, with its own table: score.h.)
 *
 * Compatibility (SQLite's habit): abi is the first field and size, the
 * size of the table the policy was built with, the second; both are set
 * by CLUSTERSIM_POLICY().  Fields are only ever appended, so a table
 * built against an older header is shorter: the loader copies only its
 * `size` bytes into a zeroed table, and the fields it did not have read
 * as NULL or 0.  CLUSTERSIM_ABI_VERSION changes only when an existing
 * field or call changes meaning; a plug-in built for another version is
 * refused by name.  Version 2 added size, the engine-allocated state
 * (state_size, job_state_size), job_started and job_preempted, and gave
 * order() the policy's state.
 *
 * Ownership: the engine allocates the policy's state and one slot per job
 * when the table asks for them, zeroed, and frees them after fini(); a
 * policy that allocates anything itself frees it in fini().  Memory from
 * sim_alloc() is the engine's too.  Out of memory in the engine aborts,
 * so a policy built on these has no out-of-memory path of its own.
 */
#ifndef CLUSTERSIM_POLICY_H
#define CLUSTERSIM_POLICY_H

#include <stdlib.h>

#include "clustersim.h"

#define CLUSTERSIM_ABI_VERSION 2u

struct sim;
struct profile;

/* A parameter a policy accepts, given in the experiment file as
 * "params": { name: value }.  Unknown names are errors.
 *
 * PARAM_FILE (appended): a file the policy reads, such as a trained
 * model, given as a path relative to the experiment file's folder.  The
 * engine reads it before any run by the rules of every input file (a
 * regular file, plain or gzip), records its SHA-256 among the manifest's
 * inputs, and hands the policy its bytes (sim_param_file); a file that
 * cannot be read is an input error (exit 2) with the parameter's JSON
 * path.  Its default is "" (no file) or a path. */
enum policy_param_type {
	PARAM_INT, PARAM_DOUBLE, PARAM_BOOL, PARAM_STRING, PARAM_FILE
};

struct policy_param {
	const char *name;            /* NULL ends the list */
	enum policy_param_type type;
	const char *def;             /* default, as text ("1", "true") */
	const char *help;            /* one line, with the unit */
};

struct policy_ops {
	/* Always CLUSTERSIM_ABI_VERSION; set by CLUSTERSIM_POLICY. */
	uint32_t abi;
	/* sizeof(struct policy_ops) where the policy was built; set by
	 * CLUSTERSIM_POLICY.  The loader reads no further. */
	uint32_t size;
	/* Name in experiment files; the file stem for built-in policies. */
	const char *name;
	/* One line for `clustersim policies`. */
	const char *summary;
	/* Accepted parameters, ended by an entry with a NULL name (or NULL). */
	const struct policy_param *params;

	/*
	 * Order of the pending queue that sim_queue_at() walks: negative when
	 * a goes before b.  NULL keeps submit order.  Called whenever a job
	 * joins or leaves the queue, with the policy's state (after init();
	 * never during it).  The engine breaks every tie by submit time,
	 * then job id.  The key must not change while a job is pending.  It
	 * may read jobs and state; it may not call the engine.
	 */
	int (*order)(void *state, const struct job *a, const struct job *b);

	/*
	 * Called once before the first event, with *state the engine's
	 * zeroed block of state_size bytes (NULL when state_size is 0).
	 * May read parameters, fill the state, or, when state_size is 0,
	 * allocate its own and set *state (it must not replace the engine's
	 * block).  On failure returns non-zero with a message in err; fini()
	 * is still called.
	 */
	int (*init)(struct sim *sim, void **state, struct sim_error *err);
	/* Called once at the end, even when init() failed (then with the
	 * state as init() left it).  Frees what the policy allocated, not
	 * the engine's state. */
	void (*fini)(struct sim *sim, void *state);

	/*
	 * Notifications, after the fact, whatever caused them.  They may read
	 * the engine and their state, and may not start, preempt or migrate
	 * jobs (such calls are refused and counted).  job_started and
	 * job_preempted are below, with the fields version 2 appended.
	 *
	 * job_submitted: a job has joined the pending queue (a job that can
	 *   never fit is rejected, not submitted).
	 * job_finished: a running job has ended (finished, or killed at its
	 *   estimate) and given its resources back.
	 */
	void (*job_submitted)(struct sim *sim, void *state,
			      const struct job *job);
	void (*job_finished)(struct sim *sim, void *state,
			     const struct job *job);

	/*
	 * The one decision point.  Called once after every timestamp's events
	 * have been applied (and again while it creates new events at the same
	 * timestamp).  Starts jobs with sim_job_start(); may ask to be called
	 * again later with sim_wakeup_at().
	 */
	void (*schedule)(struct sim *sim, void *state);

	/* ---- Appended in version 2 ---- */

	/*
	 * Bytes of state the engine allocates for the policy, zeroed, before
	 * init() (0: none; init() may then allocate its own and set *state).
	 * The engine frees it after fini().
	 */
	size_t state_size;
	/*
	 * Bytes of the slot the engine keeps for every job, zeroed before
	 * init() and freed after fini() (0: none): the policy's per-job
	 * record, read and written through sim_job_state().
	 */
	size_t job_state_size;

	/*
	 * Notifications as above.
	 *
	 * job_started: a pending job has started running, by any call:
	 *   sim_job_start(), sim_job_start_on(), sim_start_head(), the
	 *   ranking calls, or sim_job_start_shared() (for the job that joins
	 *   another's GPUs; the host goes on running).  Called at once, inside
	 *   the call that started it, with its placement set; inside a
	 *   ranking, before the ranking's later starts, and the speeds of
	 *   other jobs are brought up to date at the ranking's end.
	 * job_preempted: a running job has been preempted (sim_job_preempt()
	 *   or a ranking) and is pending again, its kept work recorded.
	 *   Called at once, inside the call that preempted it.
	 * A migration (sim_job_migrate()) is neither: the job goes on
	 *   running, on other GPUs.
	 */
	void (*job_started)(struct sim *sim, void *state,
			    const struct job *job);
	void (*job_preempted)(struct sim *sim, void *state,
			      const struct job *job);
};

/* Declares a policy at the end of its file.  Built in, it becomes
 * clustersim_policy_<name> and the Makefile registers it; built with
 * -DCLUSTERSIM_PLUGIN as a shared object, it is the one exported symbol
 * "clustersim_policy" that --plugin loads. */
#ifdef CLUSTERSIM_PLUGIN
#define CLUSTERSIM_POLICY(pname, ...)                                        \
	__attribute__((visibility("default")))                               \
	const struct policy_ops clustersim_policy = {                        \
		.abi = CLUSTERSIM_ABI_VERSION,                               \
		.size = sizeof(struct policy_ops), .name = #pname, __VA_ARGS__ }
#else
#define CLUSTERSIM_POLICY(pname, ...)                                        \
	const struct policy_ops clustersim_policy_##pname = {                \
		.abi = CLUSTERSIM_ABI_VERSION,                               \
		.size = sizeof(struct policy_ops), .name = #pname, __VA_ARGS__ }
#endif

/*
 * Grows the array *pp (items of size sz, capacity *cap) to hold at least
 * want items, doubling; false when out of memory, and then *pp and *cap
 * are unchanged.  For the arrays a policy grows itself: a policy never
 * aborts, so it degrades (e.g. to sim_start_head) instead.  A policy that
 * needs only per-job records, state sized at init (sim_alloc) or a
 * ranking has no use for it: the engine's own allocate or abort.
 */
static inline bool clustersim_grow(void *pp, size_t *cap, size_t want,
				   size_t sz)
{
	if (want <= *cap)
		return true;
	size_t n = want < 16 ? 16 : 2 * want;
	void *q = realloc(*(void **)pp, n * sz);
	if (!q)
		return false;
	*(void **)pp = q;
	*cap = n;
	return true;
}

/*
 * Intrusive doubly linked lists of a policy's job slots, for the queues a
 * policy keeps itself (las, gittins): ls is any struct with `head` and
 * `tail`, s a slot with `prev` and `next` of the slot's own type.  Push
 * appends at the tail; remove unlinks s and clears its links; insert
 * after links s in just after o, a slot of ls (NULL: at the head), as a
 * sorted insert found from the back does (las, quota).
 */
#define CLUSTERSIM_LIST_PUSH(ls, s)                                           \
	do {                                                                 \
		(s)->prev = (ls)->tail;                                      \
		(s)->next = NULL;                                            \
		if ((ls)->tail)                                              \
			(ls)->tail->next = (s);                              \
		else                                                         \
			(ls)->head = (s);                                    \
		(ls)->tail = (s);                                            \
	} while (0)
#define CLUSTERSIM_LIST_REMOVE(ls, s)                                         \
	do {                                                                 \
		if ((s)->prev)                                               \
			(s)->prev->next = (s)->next;                         \
		else                                                         \
			(ls)->head = (s)->next;                              \
		if ((s)->next)                                               \
			(s)->next->prev = (s)->prev;                         \
		else                                                         \
			(ls)->tail = (s)->prev;                              \
		(s)->prev = (s)->next = NULL;                                \
	} while (0)
#define CLUSTERSIM_LIST_INSERT_AFTER(ls, o, s)                                \
	do {                                                                 \
		(s)->prev = (o);                                             \
		(s)->next = (o) ? (o)->next : (ls)->head;                    \
		if ((o))                                                     \
			(o)->next = (s);                                     \
		else                                                         \
			(ls)->head = (s);                                    \
		if ((s)->next)                                               \
			(s)->next->prev = (s);                               \
		else                                                         \
			(ls)->tail = (s);                                    \
	} while (0)

/* ---- Engine calls a policy may make ------------------------------------ */

/* The current simulated time. */
sim_time_t sim_now(const struct sim *sim);

/* Pending jobs in the policy's order; i < sim_queue_len() (past it:
 * NULL, and a bad call). */
size_t sim_queue_len(const struct sim *sim);
const struct job *sim_queue_at(const struct sim *sim, size_t i);

/* Running jobs in order of start + estimate (ties by submit order);
 * i < sim_running_len() (past it: NULL, and a bad call). */
size_t sim_running_len(const struct sim *sim);
const struct job *sim_running_at(const struct sim *sim, size_t i);

/*
 * When the engine expects a running job to end, from its estimate:
 * start + estimate, or the next microsecond when the job is already past
 * its estimate.  This is what backfilling plans with.
 */
sim_time_t sim_expected_end(const struct sim *sim, const struct job *job);

/* Free allocation units now: GPUs on a cluster with GPUs, else CPUs, or
 * idle nodes when nodes are exclusive.  sim_demand() is a job's demand in
 * the same unit (the unit of the free-resource profile). */
uint64_t sim_free_units(const struct sim *sim);
uint64_t sim_demand(const struct sim *sim, const struct job *job);

/* Would the job fit now (with the cluster's placement rule)? */
bool sim_job_fits(const struct sim *sim, const struct job *job);

/*
 * Starts a pending job now, placed by the cluster's placement rule.
 * Returns 0, or a negative code (not pending, does not fit) and counts a
 * bad call.  Invalidates queue indexes: the job leaves the queue.
 */
int sim_job_start(struct sim *sim, const struct job *job);

/*
 * Starts pending jobs from the head of the queue, in order, while the head
 * fits; stops at the first that does not.  Returns how many started.  The
 * first step of FCFS, SJF and the backfilling policies.  On a cluster
 * with virtual clusters each VC's jobs are a queue of their own: a job
 * that does not fit stops only the later jobs of its VC.
 */
size_t sim_start_head(struct sim *sim);

/*
 * Preempts a running job: it stops now, gives its resources back and
 * waits in the queue again.  What it keeps of its work follows the
 * experiment's checkpointing (work since the last checkpoint is lost), and
 * when it starts again it first spends the restore overhead.  Only from
 * schedule().  Returns 0, or a negative code (not running, or protected
 * by min_run_s: below) and counts a bad call.
 */
int sim_job_preempt(struct sim *sim, const struct job *job);

/*
 * Minimum run: a policy that declares a parameter "min_run_s" (PARAM_DOUBLE,
 * seconds, default "0") gets it from the engine: a job that (re)starts is
 * not preempted again before it has run that long.  The rankings below
 * keep such a job running (it keeps its units first, the list shares the
 * rest in its order) and wake the policy when it may be preempted;
 * sim_job_preempt() refuses it.  It is the cure for a preemption livelock,
 * where jobs are stopped again and again before they reach a checkpoint.
 * sim_job_preemptible() says whether a running job may be preempted now
 * (false for a protected job, or one that is not running), for a policy
 * that preempts job by job.
 */
bool sim_job_preemptible(const struct sim *sim, const struct job *job);

/*
 * The preemptive allocation step that priority schedulers share: given
 * running and waiting jobs in priority order, gives each the resources it
 * asks for while they last (a job that does not fit is skipped, not a
 * barrier), preempts the running jobs of the list that did not make the
 * cut and starts the waiting ones that did.  Running jobs not in the list
 * keep what they hold.  Returns the number of jobs started.
 */
size_t sim_apply_ranking(struct sim *sim, const struct job *const *ranked,
			 size_t n);

/*
 * The same step with the list built in the engine's own scratch, for
 * policies that walk their queues in priority order: sim_rank_begin(),
 * then sim_rank_add() for each job, highest priority first, then
 * sim_rank_apply() (as sim_apply_ranking() on that list; returns the
 * number of jobs started).  Add every running job the ranking may
 * preempt: a running job left out keeps what it holds.  Where the
 * cluster is one pool of units (no virtual clusters), a waiting job that
 * could not be given its units at its place in the list is left out at
 * once, and sim_rank_full() says when no waiting job added from now on
 * could start (the units the jobs so far leave are fewer than any
 * waiting job asks for): a policy may then stop walking its waiting
 * jobs and add only the running ones.  Only from schedule(); a job that is neither running
 * nor pending is refused and counted.
 */
void sim_rank_begin(struct sim *sim);
void sim_rank_add(struct sim *sim, const struct job *job);
bool sim_rank_full(const struct sim *sim);
size_t sim_rank_apply(struct sim *sim);

/*
 * sim_rank_begin() for a policy that knows which running jobs rank ahead
 * of every waiting job: only the n running jobs of inplay are in play
 * (each must then be added, in its place); every other running job
 * counts as ranked first, keeps its units and is not added.  The outcome
 * is that of the whole list, without walking the running jobs that no
 * waiting job can pass.  Returns false, and begins nothing, where the
 * engine needs every running job in the list (virtual clusters,
 * min_run_s, shared GPUs): the policy then uses sim_rank_begin().
 */
bool sim_rank_begin_with(struct sim *sim, const struct job *const *inplay,
			 size_t n);

/* A job's key for sim_rank_by(): lower goes first. */
typedef double (*sim_rank_key_fn)(struct sim *sim, void *state,
				  const struct job *job);
/*
 * Ranks every running and waiting job by key (computed once per job and
 * call, lower first, ties by submit time then job id) and applies the
 * ranking as sim_apply_ranking() does.  Returns the number of jobs
 * started.  Only from schedule().
 */
size_t sim_rank_by(struct sim *sim, sim_rank_key_fn key);

/*
 * The policy's slot for a job (job_state_size bytes, zeroed at the start
 * of the run, kept until its end), or NULL when the table asks for no
 * slots or the job is not one of this run's.
 */
void *sim_job_state(const struct sim *sim, const struct job *job);
/* All the slots: one array of job_state_size items in job->idx order
 * (for a policy that walks its own lists of jobs and would rather index
 * than call); NULL when the table asks for no slots. */
void *sim_job_states(const struct sim *sim);

/*
 * n zeroed items of the given size, for state whose size the parameters
 * decide (a sample window, a table of quantiles): the engine owns it and
 * frees it after fini().  NULL for n or size 0; aborts when out of
 * memory, as every allocation of the engine does.
 */
void *sim_alloc(struct sim *sim, size_t n, size_t size);

/*
 * A sliding window of the last `cap` values a policy learns from (the
 * services of its last finished jobs), kept sorted as values come and
 * go: sim_window_add() is a binary search and a move, the oldest value
 * leaving once there are cap (cap 0 counts as 1).  The engine owns it,
 * as it owns sim_alloc()'s memory.  sim_window_sorted() gives the values
 * in ascending order and their count in *n; the pointer stays valid, its
 * contents change with each add.
 */
struct sim_window;
struct sim_window *sim_window_new(struct sim *sim, size_t cap);
void sim_window_add(struct sim_window *w, double v);
const double *sim_window_sorted(const struct sim_window *w, size_t *n);

/*
 * A min-heap of jobs (by job index) ordered by a key the policy sets,
 * ties by job index, upwards or (ties_down) downwards; each job knows its
 * place, so sim_heap_set() (insert, or move to a new key) and
 * sim_heap_remove() (no-op for a job not in it) are O(log n).
 * sim_heap_top() gives the least (false when empty).  sim_heap_upto()
 * lists, in no set order, every job that does not come after (key, job)
 * in the heap's order, visiting only them and the places just past
 * them; the array is the heap's and is valid until its next call.  The
 * engine owns the memory, as sim_alloc()'s, sized to the run's jobs.
 */
struct sim_heap;
struct sim_heap *sim_heap_new(struct sim *sim, bool ties_down);
void sim_heap_set(struct sim_heap *h, uint32_t job, double key);
void sim_heap_remove(struct sim_heap *h, uint32_t job);
bool sim_heap_top(const struct sim_heap *h, uint32_t *job, double *key);
size_t sim_heap_len(const struct sim_heap *h);
void sim_heap_clear(struct sim_heap *h);
const uint32_t *sim_heap_upto(const struct sim_heap *h, double key,
			      uint32_t job, size_t *n);

/*
 * GPU sharing (Gandiva's packing and time-slicing): starts a pending job
 * now on the GPUs of a running job with the same GPU count, which no
 * other job shares; the two run side by side on those GPUs, at `factor`
 * and `host_factor` of the speed each would have alone there (in (0, 1]:
 * e.g. measured co-location speeds for packing, or a half less switching
 * costs for time-slicing).  GPUs are shared, CPUs are not: the job takes
 * its own CPUs on the host's nodes, split over them as a placement of its
 * own would be (cluster.h), and needs them free.  Each is charged half
 * the GPUs' time as attained service.  When either ends or is preempted,
 * it gives back its CPUs and the other keeps the GPUs and runs alone at
 * full speed again.  Returns 0, or a negative code and counts a bad call
 * when sim_job_can_share() says no, or a factor is out of range.
 */
int sim_job_start_shared(struct sim *sim, const struct job *job,
			 const struct job *host, double factor,
			 double host_factor);
/* Could sim_job_start_shared() start job on host's GPUs now: job
 * pending, host running and shared by nobody, the same GPU counts, a GPU
 * type job may use, and job's CPUs free beside host's GPUs? */
bool sim_job_can_share(const struct sim *sim, const struct job *job,
		       const struct job *host);
/* The job sharing a running job's GPUs, or NULL. */
const struct job *sim_job_partner(const struct sim *sim,
				  const struct job *job);

/*
 * The measured co-location speed of job a with job b: the fraction of
 * its speed alone that a keeps while b runs on the same GPUs (Gavel's
 * pairwise measurements, for the GPU type of whichever of the two is
 * running: b when both are); NaN when not
 * measured (a job of no class, a class or GPU count outside the table),
 * 0 when the pair cannot share (out of memory).
 */
double sim_coloc_speed(const struct sim *sim, const struct job *a,
		       const struct job *b);

/*
 * Migration (Gandiva's): moves a running GPU job to free GPUs that the
 * consolidate strategy finds - for a job that shares its GPUs, to run
 * alone there (the other keeps the GPUs they shared); for one that does
 * not, only when they span fewer nodes than its placement now.  The job
 * checkpoints (nothing is lost) and restores on its new GPUs, which
 * costs the experiment's restore overhead for its size.  Returns 1 when
 * it moved, 0 when there was no such place, or a negative code (a job
 * that is not running or has no GPUs) and counts a bad call.
 */
int sim_job_migrate(struct sim *sim, const struct job *job);

/*
 * Adaptive jobs (Pollux-style: a job whose trace names an application of
 * the goodput model, docs/pollux.md): a policy may change the GPUs and
 * the total batch size of such a job while it is pending - to change a
 * running one, preempt it, resize it and start it again, which pays the
 * experiment's restore overhead (the restart cost).  Its work stays
 * counted in its reference configuration (the trace's), and it runs at
 * the goodput model's speed of its new one.  Only from schedule().
 * Returns 0, or a negative code (not pending, no model, 0 GPUs or more
 * than the cluster or its application allows, a batch the application
 * did not measure at that width) and counts a bad call.
 */
int sim_job_resize(struct sim *sim, const struct job *job, uint32_t gpus,
		   uint32_t batch);

/*
 * The seconds a job of the goodput model still needs to its target with
 * gpus GPUs packed into nodes of 4 and total batch `batch` (its work left
 * in that configuration, restart costs not counted): what Optimus' oracle
 * knows.  NaN where sim_job_resize would refuse that configuration.
 */
double sim_job_time_to_target(const struct sim *sim, const struct job *job,
			      uint32_t gpus, uint32_t batch);

/* Work a job has done so far, in microseconds at reference speed (what a
 * preempted job kept while it waits; its run time once it ended).  Its
 * remaining time by estimate is job->estimate minus this. */
double sim_job_work_done(const struct sim *sim, const struct job *job);

/* Service a job has received so far, in resource-seconds (GPU-seconds for
 * a job with GPUs, else CPU-seconds), including its current run: the
 * resources it held, restoring checkpoints included (jobs.csv's
 * attained). */
double sim_job_attained(const struct sim *sim, const struct job *job);

/* The part of sim_job_attained() that was not spent restoring a
 * checkpoint (after a restart or a migration): the service of its useful
 * run time, what least-attained-service policies order by.  With a
 * restore longer than a queue's quantum, counting the restore would demote
 * a resumed job before it did any work. */
double sim_job_service(const struct sim *sim, const struct job *job);

/* When a running job does useful work again: the end of the checkpoint
 * restore it is in (after a restart or a migration), or now when it is
 * not restoring; SIM_TIME_NONE for a job that is not running.  Its
 * service does not grow before then: a policy that wakes itself when a
 * job's service reaches a mark counts from here. */
sim_time_t sim_job_restored_at(const struct sim *sim, const struct job *job);

/* Calls schedule() again at time t (t > now).  Returns 0 or negative: t
 * not after now (a bad call), or every job has ended (nothing armed, not
 * a bad call: the run ends once the wake-ups armed before have fired). */
int sim_wakeup_at(struct sim *sim, sim_time_t t);

/* Parameters, already checked against the policy's declaration.  A name
 * the policy does not declare, or reads with another type, is a bad call
 * with its reason in a warning, and reads 0, false or NULL. */
int64_t sim_param_int(const struct sim *sim, const char *name);
double sim_param_double(const struct sim *sim, const char *name);
bool sim_param_bool(const struct sim *sim, const char *name);
const char *sim_param_str(const struct sim *sim, const char *name);
/* A PARAM_FILE parameter's content (NUL-terminated; *len without the
 * NUL), the engine's until the run ends, or NULL when none was given.
 * sim_param_str() of it gives the path as the experiment wrote it. */
const char *sim_param_file(const struct sim *sim, const char *name,
			   size_t *len);

/* The cluster's CPUs and GPUs in all. */
uint64_t sim_capacity_cpus(const struct sim *sim);
uint64_t sim_capacity_gpus(const struct sim *sim);
/* The cluster's nodes. */
uint64_t sim_capacity_nodes(const struct sim *sim);

/* The run's seed, for randomised policies. */
uint64_t sim_seed(const struct sim *sim);

/* ---- GPU types (heterogeneity-aware policies) -------------------------
 *
 * The cluster's named GPU types, indexed 0 .. sim_gpu_types() - 1 in the
 * order their node groups first name them (a job's gpu_type constraint
 * is such an index + 1).  A running GPU job started by any call is on
 * type job->gpu_type_used - 1 (the type of its first node; every node of
 * a job started with sim_job_start_on() is of that type).  GPUs of a
 * group with no type are not one of these types.
 */

/* Named GPU types of the cluster (0 on a CPU cluster or one whose GPUs
 * have no type). */
unsigned sim_gpu_types(const struct sim *sim);
/* The name of type t ("v100"); NULL when t is out of range. */
const char *sim_gpu_type_name(const struct sim *sim, unsigned t);
/* GPUs of type t in all, and free now (0 when t is out of range). */
uint64_t sim_gpu_type_capacity(const struct sim *sim, unsigned t);
uint64_t sim_gpu_type_free(const struct sim *sim, unsigned t);
/*
 * The speed a GPU job would run at on GPUs of type t, relative to the
 * reference type (work per second), with no communication: the ratio of
 * its class's one-GPU throughputs on t and on the reference type from the
 * throughput table (with the experiment's overrides) - what the speed
 * model gives a single-GPU job there.
 * 1 when the run has no speed model, for a job of no class (unless the
 * experiment draws classes: then the class it will be given), and where
 * the table has no positive figure (the speed model runs such a job at
 * the reference speed too).  0 when t is out of range.
 * A large-model job (a trace's `model`) has no class: its rate is its
 * step time on the reference type over its step time on t, both on an
 * ideal placement of t's nodes, and 0 where its memory per GPU does not
 * fit t (docs/parallelism.md, "No job class").
 */
double sim_job_type_rate(const struct sim *sim, const struct job *job,
			 unsigned t);
/* Would the pending GPU job fit now on GPUs of type t only? */
bool sim_job_fits_on(const struct sim *sim, const struct job *job,
		     unsigned t);
/*
 * sim_job_start() on GPUs of type t only, placed by the cluster's
 * placement strategy among that type's nodes.  Returns 0, or a negative
 * code and counts a bad call: not a pending GPU job, t out of range, the
 * job's own gpu_type constraint names another type, or it does not fit.
 */
int sim_job_start_on(struct sim *sim, const struct job *job, unsigned t);
/*
 * Would the pending job fit (on GPU type t; t < 0: on any) if the running
 * jobs vict[0 .. n) were preempted now?  The cluster's own placement
 * rules answer (shape, CPUs beside the GPUs, GPU type): the victims'
 * GPUs are released for the question and taken back, leaving the
 * cluster as it was.  Where a victim's placement cannot be taken back
 * exactly (it shares GPUs, or holds whole nodes), the answer counts
 * GPUs: the free GPUs (of type t) and the victims' are at least the
 * job's.  A fractional job is not narrowed to t (it has no type until
 * placed); t then picks the victims the count takes.  false for a bad
 * call (not a pending job, a victim not running).
 */
bool sim_job_fits_after(struct sim *sim, const struct job *job,
			const struct job *const *vict, size_t n, int t);

/* ---- Tenants: quotas, borrowing and reclaim (docs/tenants.md) ---------
 *
 * A cluster may have tenants (the experiment's cluster.tenants): each
 * department and each of its projects has a guaranteed quota of GPUs,
 * optional borrowing and lending limits and a weight for the over-quota
 * share.  Every job of such a run belongs to one project.  The engine
 * keeps the books (the milli-GPUs each tenant's running jobs hold, a
 * fractional job counting its share) for every policy; the quota policy
 * (policies/quota.c) decides with them.  Amounts are milli-GPUs.
 */

/* "No limit" for borrow_limit and lend_limit. */
#define SIM_TENANT_NO_LIMIT UINT64_MAX

/* One tenant, as the engine sees it now. */
struct sim_tenant {
	const char *name;      /* as the experiment names it */
	int parent;            /* its department's tenant index; -1: it is
	                          a department */
	uint64_t quota;        /* guaranteed milli-GPUs */
	uint64_t borrow_limit; /* most milli-GPUs it may hold above its
	                          quota; SIM_TENANT_NO_LIMIT = none */
	uint64_t lend_limit;   /* most of its unused quota that other
	                          tenants may borrow; SIM_TENANT_NO_LIMIT */
	double weight;         /* its share of the over-quota GPUs */
	uint64_t used;         /* milli-GPUs its running jobs hold now (a
	                          department: its projects' together) */
	/* Quotas per GPU type (the experiment's {gpu_type: N}): arrays by
	 * GPU type index (sim_gpu_types()), NULL when the quotas are one
	 * number.  Then quota is their quotas' sum, borrow_limit and
	 * lend_limit are SIM_TENANT_NO_LIMIT, and a job counts against the
	 * type it runs on (its gpu_type constraint's, or its placement's). */
	const uint64_t *type_quota, *type_borrow_limit, *type_lend_limit;
	const uint64_t *type_used;
};

/* The run's tenants (0: none), departments and projects in the order
 * the experiment gives them, each department before its projects. */
unsigned sim_tenant_count(const struct sim *sim);
/* Tenant t (NULL when out of range); valid until the run ends, its used
 * field brought up to date by every start and stop. */
const struct sim_tenant *sim_tenant(const struct sim *sim, unsigned t);
/* The project of a job (a tenant index), or -1 when the run has no
 * tenants. */
int sim_job_tenant(const struct sim *sim, const struct job *job);
/* A job's demand against its quota: 1000 per whole GPU, its gpu_milli
 * for a fractional job, 0 for a CPU job. */
uint64_t sim_job_milli(const struct sim *sim, const struct job *job);
/* The GPU type a running job counts against in per-type quotas (the
 * type of its placement's first node), -1 when it holds no typed GPU
 * or the run's quotas are not per type. */
int sim_job_quota_type(const struct sim *sim, const struct job *job);
/* Work a running job would lose if preempted now: microseconds of work
 * (at reference speed) since its last checkpoint, by the experiment's
 * checkpoint_interval (0 for a job that is not running). */
double sim_job_unsaved(const struct sim *sim, const struct job *job);

/* ---- Slurm-style partitions and QOS (docs/tenants.md) ------------------
 *
 * A cluster may have partitions (cluster.partitions: node sets, which
 * may overlap, with a time limit and Slurm's PriorityTier and
 * PriorityJobFactor) and the experiment QOS (its root "qos": a priority,
 * a usage factor and limits).  Every job of such a run belongs to one
 * partition (and one QOS where QOS are given).  The engine places a job
 * on its partition's nodes alone (sim_job_fits and sim_job_start say so
 * for every policy), and refuses at submit a job whose estimate exceeds
 * its partition's max_time (counted, state rejected); the multifactor
 * policy (policies/multifactor.c) plans each partition on its own.
 */

/* "No limit" for the QOS limits. */
#define SIM_QOS_NO_LIMIT UINT64_MAX

struct sim_partition {
	const char *name;
	uint64_t units;          /* its allocation units (sim_demand's), on
	                            its nodes, each node once */
	sim_time_t max_time;     /* 0 = none */
	uint32_t priority_tier;
	uint32_t priority_job_factor;
	bool preempt_requeue;    /* its running jobs may be preempted by
	                            higher-tier partitions' waiting jobs
	                            (Slurm's PreemptMode=REQUEUE) */
};

struct sim_qos {
	const char *name;
	uint32_t priority;
	double usage_factor;
	uint64_t max_jobs_per_user;  /* running jobs; SIM_QOS_NO_LIMIT */
	uint64_t max_jobs_per_group;
	uint64_t max_units_per_user; /* allocation units held */
	uint64_t preempt;            /* bit q: its jobs may preempt running
	                                jobs of QOS q (requeued) */
};

/* The run's partitions (0: none); partition p (NULL out of range). */
unsigned sim_partition_count(const struct sim *sim);
const struct sim_partition *sim_partition(const struct sim *sim, unsigned p);
/* A job's partition, or -1 when the run has none. */
int sim_job_partition(const struct sim *sim, const struct job *job);
/* Partition p's free units now, on its nodes (0 out of range). */
uint64_t sim_partition_free(const struct sim *sim, unsigned p);
/* The units a running job holds on partition p's nodes (0 when it is
 * not running, or out of range). */
uint64_t sim_job_units_in(const struct sim *sim, const struct job *job,
			  unsigned p);
/* The run's QOS (0: none); QOS q (NULL out of range); a job's, or -1. */
unsigned sim_qos_count(const struct sim *sim);
const struct sim_qos *sim_qos(const struct sim *sim, unsigned q);
int sim_job_qos(const struct sim *sim, const struct job *job);

/*
 * One free-resource profile per partition, for a policy that backfills
 * each partition alone (Slurm's backfill; multifactor).  Builds them and
 * returns how many: the run's partitions, or 1 (the whole cluster) when
 * it has none.  Partition p's profile starts with its units less those
 * its running jobs hold, and each of them gives its demand back at its
 * expected end (sim_expected_end) rounded up to a multiple of resolution
 * after now (0: exact; Slurm's bf_resolution).  sim_partition_profile()
 * gives partition p's (NULL and a bad call out of range); they answer
 * the profile_* calls below as sim_profile()'s does and stay valid until
 * the next sim_partition_profiles(); sim_profile() leaves them alone.
 */
unsigned sim_partition_profiles(struct sim *sim, sim_time_t resolution);
struct profile *sim_partition_profile(struct sim *sim, unsigned p);

/* ---- Virtual clusters (docs/philly.md) ---------------------------------- */

/* The cluster's virtual clusters (0: none, one shared pool). */
unsigned sim_vc_count(const struct sim *sim);
/* A job's VC, 0 .. sim_vc_count() - 1, or -1: the shared pool only.  On
 * a cluster with VCs, sim_start_head keeps one queue per VC and one for
 * the jobs of no VC, and the profile plans each job against its VC and
 * the pool. */
int sim_job_vc(const struct sim *sim, const struct job *job);

/* ---- Free-resource profile (for backfilling) --------------------------- */

/*
 * A step function of free resources over time from now on, built from the
 * running jobs' expected ends.  Units are the cluster's allocation unit
 * (GPUs on a cluster with GPUs, else CPUs, or whole nodes when nodes are
 * exclusive); sim_demand() gives a job's.  The profile is the engine's
 * scratch space: it stays valid until the next call of sim_profile() and
 * is not updated by sim_job_start(), so a policy records what it starts
 * with profile_reserve(p, job, now, duration).
 *
 * On a cluster with virtual clusters the profile is one step function per
 * VC and one for the shared pool, and each call answers for the job
 * against what it may use (its VC and the pool).  A job that could be
 * placed in either is planned for any split the placement may choose, so
 * a fit or a reservation is never broken by where a job lands (it may be
 * conservative; sim/engine/profile_vc.c says when).  A job that is already
 * running reserved at now takes exactly the GPUs it holds.
 * profile_free_at() is then the sum over the partitions.
 */
struct profile *sim_profile(struct sim *sim);
/*
 * The profile as the last sim_profile() and the calls on it since left
 * it, moved on to now without a rebuild, or NULL when that would not be
 * the profile sim_profile() builds now: a running job is past its
 * estimate, the cluster has VCs or jobs sharing GPUs, or thousands of
 * jobs left the running set since.  The room of the jobs that left it
 * (ended or preempted) is given back, from now to their expected ends.
 * The caller vouches for the rest:
 * every job it started since it reserved with profile_reserve(p, job,
 * now, estimate), and every reservation it left in is one it would put
 * back.  For a policy that keeps reservations from pass to pass
 * (conservative), a pass that has nothing to move then costs the new
 * jobs only, not a rebuild of every promise.
 */
struct profile *sim_profile_kept(struct sim *sim);
/* Free units at time t (t >= now). */
uint64_t profile_free_at(struct profile *p, sim_time_t t);
/*
 * The earliest time t >= now at which the job's demand is free during the
 * whole of [t, t + duration).  Always exists for a job that fits the
 * empty cluster (SIM_TIME_MAX otherwise).
 */
sim_time_t profile_earliest(struct profile *p, const struct job *job,
			    sim_time_t duration);
/* Does the job fit during [t, t + duration)? */
bool profile_fits(struct profile *p, const struct job *job,
		  sim_time_t t, sim_time_t duration);
/* Takes the job's demand during [t, t + duration). */
void profile_reserve(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration);
/* Takes units during [t, t + duration): a job started in a pass holding
 * units on the nodes of another partition's profile
 * (sim_job_units_in).  Nothing on a cluster with VCs. */
void profile_reserve_units(struct profile *p, uint64_t units, sim_time_t t,
			   sim_time_t duration);
/*
 * EASY's reservation for a shaped head job (tp x pp x dp, placed in
 * whole tp slots inside nodes: docs/placement.md, "Reservations of shaped
 * jobs").  The profile counts GPUs, so its shadow time *t (from
 * profile_earliest on p, which has no reservation yet) can come while the
 * free GPUs hold too few tp slots.  For such a head this moves *t on to
 * the first of the running jobs' expected ends, from *t on, by which the
 * nodes the head may use hold pp x dp slots (each node's free GPUs now
 * plus those of the jobs ending by then, over tp, rounded down), and
 * makes *extra (the GPUs a job running past *t may take) no more than
 * the spare slots then: a GPU taken breaks at most one slot.  Any other
 * job, a shape-blind placement, a cluster with VCs or jobs sharing GPUs:
 * *t and *extra are left as they are.  sim_backfill_easy() and the easy
 * policy call it.
 */
void sim_shape_shadow(struct sim *sim, struct profile *p,
		      const struct job *head, sim_time_t *t, uint64_t *extra);
/* Puts back a reservation made in an earlier pass (a promise, below) at
 * the same t: on a cluster with VCs it takes the split of VC and pool GPUs
 * it took then, not one drawn from what is free now, so that what was
 * planned around it still fits.  Elsewhere the same as profile_reserve. */
void profile_reserve_again(struct profile *p, const struct job *job,
			   sim_time_t t, sim_time_t duration);
/* Gives back a reservation made by profile_reserve(p, job, t, duration)
 * since this profile was built (the same job, t and duration). */
void profile_release(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration);

/*
 * Could the job, whose reservation [t, t + duration) is in the profile
 * (made with profile_reserve), start earlier than t if it gave that
 * reservation back?  false tells that profile_release() then
 * profile_earliest() would answer t again, without either; a policy that
 * compresses its reservations skips such a job.  Always true on a
 * cluster with VCs (it cannot tell cheaply there).
 */
bool profile_earlier(struct profile *p, const struct job *job, sim_time_t t,
		     sim_time_t duration);

/* ---- Promised starts (reservations kept between passes) --------------- */

/*
 * A policy that plans every waiting job may promise each a start, which
 * the engine keeps from pass to pass (the profile does not outlive one).
 * sim_job_promised() gives the job's promise, SIM_TIME_NONE if it has
 * none (never promised, started, or preempted since).  sim_job_promise()
 * sets it (t >= now, a waiting job; else a bad call).  A promise still
 * to come that moves later is broken: counted in the run's
 * promises_broken, and under --check the run stops with an error.  One
 * whose time came without a start (a job past its estimate held the
 * room) is missed, counted in promises_missed.  sim/engine/sim_promise.c
 * says more.
 */
sim_time_t sim_job_promised(const struct sim *sim, const struct job *job);
int sim_job_promise(struct sim *sim, const struct job *job, sim_time_t t);

/* Hyperparameter searches (experiments/README.md, "searches"): the rung
 * a trial has reached, the number of rungs at which it was promoted
 * (0 before its first decision), or -1 for a job that is no trial. */
int sim_job_rung(const struct sim *sim, const struct job *job);

/* ---- Starting in a policy's order; EASY backfilling around it --------- */

/*
 * Starts the waiting jobs order[0 .. n) in that order while each fits;
 * stops at the first that does not.  Returns how many started.  Where
 * sim_start_head walks the queue's own order, this walks any order the
 * policy gives (a ranking it computed this pass); order NULL is the
 * queue's order, and then it is sim_start_head.  Each entry must be a
 * waiting job of the run, listed once: another is skipped and counted
 * as a bad call.  On a cluster with virtual clusters each VC's jobs,
 * and the jobs of no VC, are a queue of their own, as in
 * sim_start_head.  Only from schedule().
 */
size_t sim_start_in_order(struct sim *sim, const struct job *const *order,
			  size_t n);

/*
 * EASY backfilling around an order: starts order[0], order[1], ... while
 * each fits, as sim_start_in_order; the first that does not is the head
 * and gets a reservation at its shadow time (the earliest time the
 * free-resource profile has room for its demand for its estimate); then
 * every later job of the order, in the order, starts now if it fits now
 * and cannot delay that reservation: it ends by its estimate by the
 * shadow time, or it takes only extra units (free at the shadow time
 * beside the head, less what earlier such starts took).  Only the head
 * is protected.  Returns how many started.  order NULL is the queue's
 * order (n is then ignored), for a policy whose order() keeps the queue
 * as it wants it.  For "given the job chosen as head, backfill the
 * others in this order", put the chosen job first.  Entries as for
 * sim_start_in_order.  On a cluster with virtual clusters it is a bad
 * call, and starts as sim_start_in_order (no backfilling).  Only from
 * schedule().
 */
size_t sim_backfill_easy(struct sim *sim, const struct job *const *order,
			 size_t n);

/*
 * Ranks the waiting jobs by key (called once per job and call, lower
 * first, ties by submit time then job id; a NaN key counts as
 * +infinity) and starts them in that order: with sim_backfill_easy when
 * backfill is true, else sim_start_in_order.  For policies whose order
 * changes with time (a score of the wait so far), which order() cannot
 * give.  Returns how many started.  Only from schedule().
 */
size_t sim_start_by(struct sim *sim, sim_rank_key_fn key, bool backfill);

/*
 * The "backfill" parameter of a policy that orders the queue and may
 * backfill around its order (sjf, wfp3, unicep, f1-f4): the
 * parameter's value into *backfill, refused (-1, the reason in err) on a
 * cluster with virtual clusters, where sim_backfill_easy does not
 * backfill.  Call it from init().  sim_start_queue() is then the
 * policy's step: sim_backfill_easy over the queue's order when backfill
 * is true, else sim_start_head.
 */
int sim_backfill_param(struct sim *sim, bool *backfill, struct sim_error *err);
size_t sim_start_queue(struct sim *sim, bool backfill);

/*
 * EASY backfilling around one chosen job: sim_backfill_easy with head
 * first and the other waiting jobs in queue order.  head starts if it
 * fits; else it is reserved at its shadow time and the others start
 * around it if they cannot delay it.  Returns true when head started.
 * For an agent that chose a job that may not fit now (the `rl` policy
 * and the environment's "backfill", docs/rl.md): it calls this again at
 * the next points until head starts.  head must be waiting (else a bad
 * call).  Only from schedule().
 */
bool sim_backfill_around(struct sim *sim, const struct job *head);

/* ---- Observation (learning agents) -------------------------------------
 *
 * A decision point as the reinforcement-learning environment shows it to
 * its agent (docs/rl.md, "State and observation", "Action and mask"), so
 * that a policy running a trained agent sees exactly what it was trained
 * on.  The candidates are the first k waiting jobs in queue order
 * (sim_queue_at 0 .. n-1).  sim_observe_mask() writes k + 1 bytes: mask[i]
 * = 1 for a candidate that fits now, mask[k] = 1 when waiting is allowed
 * (always, but when nothing is running or to come while a candidate
 * fits); it returns n and the candidates that fit in *nfit (may be NULL).
 * sim_observe() then writes the sim_observe_dim() floats of that point,
 * each in [0, 1]: k slots of SIM_OBS_JOB_F, 1 + (named GPU types) groups
 * of SIM_OBS_GROUP_F, SIM_OBS_GLOBAL_F.  sim_job_count() is the run's
 * workload's jobs.
 */
#define SIM_OBS_JOB_F 7
#define SIM_OBS_GROUP_F 4
#define SIM_OBS_GLOBAL_F 2
size_t sim_observe_dim(const struct sim *sim, uint32_t k);
uint32_t sim_observe_mask(const struct sim *sim, uint32_t k, uint8_t *mask,
			  uint32_t *nfit);
void sim_observe(const struct sim *sim, uint32_t k, const uint8_t *mask,
		 float *obs);
size_t sim_job_count(const struct sim *sim);
/*
 * The "place" decision point (docs/rl.md, "Action and mask"): the head is
 * the first waiting job (sim_queue_at 0), the actions its GPU type.
 * sim_place_point() first starts heads that ask no GPUs, one after
 * another while they fit, as the engine places them (sim_job_start: no
 * decision is asked for them); then writes sim_gpu_types() + 1 bytes:
 * mask[t] = 1 when the head fits now on GPU type t (sim_job_fits_on; a
 * job with a gpu_type constraint fits on its own type only), mask[T] = 1
 * when waiting is allowed (as sim_observe_mask's).  Returns the types the
 * head fits on: 0 (no head, or it fits nowhere now) is no decision.  It
 * starts jobs: only from schedule().
 */
uint32_t sim_place_point(struct sim *sim, uint8_t *mask);

#endif
