/*
 * The pool of worker processes (pool.h): fork, wait, and the first
 * failure in task order.
 *
 * Each of the N child slots owns a piece of one shared anonymous mapping:
 * a struct sim_error, then the task's result slot.  The piece is zeroed
 * before each fork and read by the parent once the child is reaped, so a
 * task's results travel without pipes or files.  With stop_on_failure,
 * the failure reported is that of the lowest task index, as one process
 * running the tasks in order would meet it: a failing task stops the
 * tasks after it, and the tasks before it (all started, since tasks start
 * in order) are waited for, as one of them may fail too.
 */
#include "base/pool.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"

/* The state of one pool_run(). */
struct pool_state {
	const struct pool *p;
	unsigned jobs;          /* child slots */
	pid_t *pid;             /* by slot: the running child, 0 = free */
	size_t *task;           /* by slot: its task */
	char *mem;              /* the shared mapping */
	size_t stride;          /* bytes of one slot's piece of it */
	unsigned running;       /* children not yet reaped */
	size_t next;            /* the next task to start */
	bool halt;              /* start no more tasks */
	size_t first;           /* the first failed task, SIZE_MAX = none */
	int code;               /* its exit code */
	struct sim_error msg;   /* its message */
};

void pool_status_text(int status, char *buf, size_t n)
{
	if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, n, "exited with status %d",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

static struct sim_error *slot_err(const struct pool_state *st, unsigned s)
{
	return (struct sim_error *)(void *)(st->mem + (size_t)s * st->stride);
}

static void *slot_data(const struct pool_state *st, unsigned s)
{
	return st->mem + (size_t)s * st->stride + sizeof(struct sim_error);
}

/* The child of task k in slot s: never returns. */
static void child(const struct pool_state *st, unsigned s, size_t k,
		  pid_t parent)
{
	/* A task dies with its parent, and one whose parent is gone already
	 * does not start: no orphan writes the results. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
		_exit(1);
	/* A crash is the parent's to record: no handler of the parent's (an
	 * MPI library's) runs in the child. */
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				     SIGABRT };
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		signal(fatal[i], SIG_DFL);
	int rc = st->p->run(st->p->ctx, k, slot_data(st, s), slot_err(st, s));
	fflush(NULL);
	_exit(rc < 0 || rc > 255 ? 1 : rc);
}

/* Starts the next task in the free slot s. */
static int spawn(struct pool_state *st, unsigned s, struct sim_error *err)
{
	size_t k = st->next;
	pid_t parent = getpid();
	memset(st->mem + (size_t)s * st->stride, 0, st->stride);
	fflush(NULL); /* nothing buffered is written twice */
	pid_t pid = fork();
	if (pid < 0)
		return err_setc(err, -SIM_EIO, "cannot fork: %s",
				strerror(errno));
	if (pid == 0)
		child(st, s, k, parent);
	st->pid[s] = pid;
	st->task[s] = k;
	st->next++;
	st->running++;
	return 0;
}

/* Task k failed: it is the first so far in task order; stop those after
 * it. */
static void failed(struct pool_state *st, size_t k, int status,
		   const struct sim_error *e)
{
	if (k >= st->first)
		return;
	st->first = k;
	st->code = WIFEXITED(status) && WEXITSTATUS(status) ?
		   WEXITSTATUS(status) : 1;
	if (e->msg[0] && WIFEXITED(status)) {
		st->msg = *e;
		st->msg.msg[sizeof(st->msg.msg) - 1] = '\0';
	} else {
		pool_status_text(status, st->msg.msg, sizeof(st->msg.msg));
	}
	if (!st->p->stop_on_failure)
		return;
	st->halt = true;
	for (unsigned s = 0; s < st->jobs; s++)
		if (st->pid[s] > 0 && st->task[s] > k) {
			kill(st->pid[s], SIGKILL);
			st->pid[s] = -st->pid[s]; /* stopped: reaped quietly */
		}
}

/* Reaps one child.  Returns 0, or a negative code when there is none
 * left to wait for. */
static int reap(struct pool_state *st, struct sim_error *err)
{
	int status;
	pid_t pid = waitpid(-1, &status, 0);
	if (pid < 0) {
		if (errno == EINTR)
			return 0;
		return err_setc(err, -SIM_EIO, "waiting for a task: %s",
				strerror(errno));
	}
	for (unsigned s = 0; s < st->jobs; s++) {
		if (st->pid[s] != pid && st->pid[s] != -pid)
			continue;
		bool stopped = st->pid[s] < 0;
		size_t k = st->task[s];
		st->pid[s] = 0;
		st->running--;
		if (stopped)
			return 0;
		const struct sim_error *e = slot_err(st, s);
		slot_err(st, s)->msg[sizeof(e->msg) - 1] = '\0';
		if (st->p->ended)
			st->p->ended(st->p->ctx, k, status, slot_data(st, s), e);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed(st, k, status, e);
		return 0;
	}
	return 0; /* not one of ours */
}

int pool_run(const struct pool *p, size_t *failed_task, struct sim_error *err)
{
	struct pool_state st = {
		.p = p, .jobs = p->jobs ? p->jobs : 1, .first = SIZE_MAX,
	};
	int rc = 0;
	if (st.jobs > p->ntasks && p->ntasks)
		st.jobs = (unsigned)p->ntasks;
	st.stride = (sizeof(struct sim_error) + p->slot_size + 63) & ~(size_t)63;
	st.mem = mmap(NULL, st.stride * st.jobs, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st.mem == MAP_FAILED)
		return err_setc(err, -SIM_EIO, "cannot share memory with the "
				"worker processes: %s", strerror(errno));
	st.pid = xcalloc(st.jobs, sizeof(*st.pid));
	st.task = xcalloc(st.jobs, sizeof(*st.task));
	while (st.running || (!st.halt && st.next < p->ntasks)) {
		for (unsigned s = 0; s < st.jobs && !st.halt &&
		     st.next < p->ntasks; s++)
			if (!st.pid[s] && (rc = spawn(&st, s, err)) != 0)
				st.halt = true; /* the started ones end */
		struct sim_error werr;
		int wrc = st.running ? reap(&st, &werr) : 0;
		if (wrc) { /* no child left to wait for: cannot happen */
			if (!rc)
				*err = werr;
			rc = rc ? rc : wrc;
			break;
		}
	}
	if (!rc && st.first != SIZE_MAX) {
		rc = st.code;
		*err = st.msg;
		if (failed_task)
			*failed_task = st.first;
	}
	free(st.task);
	free(st.pid);
	munmap(st.mem, st.stride * st.jobs);
	return rc;
}
