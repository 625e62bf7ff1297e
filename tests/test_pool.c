/*
 * The worker pool (sim/base/pool.c): every task runs once in a child and
 * hands back its slot; the failure reported is that of the lowest task
 * index, whichever ended first; a failure stops the tasks after it, not
 * those before; a child killed by a signal is said so.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/pool.h"
#include "base/util.h"

/* What the parent saw. */
struct seen {
	int ended[16];      /* times each task's ended() came */
	long value[16];     /* the slot each handed back */
	int status[16];
	int fail_at;        /* this task fails late (after a sleep) ... */
	int fail_fast;      /* ... and this one at once; -1: none */
	bool crash;         /* fail_fast aborts instead */
};

static int task(void *ctx, size_t k, void *slot, struct sim_error *err)
{
	const struct seen *s = ctx;
	*(long *)slot = (long)(k * k + 1);
	if ((int)k == s->fail_at) {
		usleep(200000);
		return err_set(err, "task %zu failed late", k), 3;
	}
	if ((int)k == s->fail_fast) {
		if (s->crash)
			abort();
		return err_set(err, "task %zu failed at once", k), 5;
	}
	if ((int)k > s->fail_fast && s->fail_fast >= 0)
		usleep(2000000); /* still running when fail_fast fails */
	return 0;
}

static void ended(void *ctx, size_t k, int status, const void *slot,
		  const struct sim_error *err)
{
	struct seen *s = ctx;
	(void)err;
	s->ended[k]++;
	s->value[k] = *(const long *)slot;
	s->status[k] = status;
}

static int run_pool(struct seen *s, unsigned jobs, size_t n, bool stop,
		    size_t *failed, struct sim_error *err)
{
	struct pool p = { .jobs = jobs, .ntasks = n, .slot_size = sizeof(long),
			  .stop_on_failure = stop, .run = task,
			  .ended = ended, .ctx = s };
	return pool_run(&p, failed, err);
}

Test(pool, every_task_runs_once_and_hands_back_its_slot)
{
	struct seen s = { .fail_at = -1, .fail_fast = -1 };
	struct sim_error err = { .msg = "" };
	cr_assert_eq(run_pool(&s, 3, 10, true, NULL, &err), 0, "%s",
		     err.msg);
	for (int k = 0; k < 10; k++) {
		cr_expect_eq(s.ended[k], 1, "task %d", k);
		cr_expect_eq(s.value[k], k * k + 1, "task %d", k);
	}
}

Test(pool, the_first_failure_in_task_order_is_reported)
{
	/* Task 4 fails first in time, task 2 later: 2 is the one reported,
	 * as running them in order would meet it. */
	struct seen s = { .fail_at = 2, .fail_fast = 4 };
	struct sim_error err = { .msg = "" };
	size_t failed = 99;
	int rc = run_pool(&s, 6, 8, true, &failed, &err);
	cr_expect_eq(rc, 3);
	cr_expect_eq(failed, 2);
	cr_expect_str_eq(err.msg, "task 2 failed late");
	/* Those before the first failure ran to their end, ... */
	cr_expect_eq(s.ended[0] + s.ended[1] + s.ended[2] + s.ended[3], 4);
	cr_expect_eq(s.value[1], 2);
	/* ... the ones after task 4 were stopped (never reported), and
	 * none after the six first was started. */
	cr_expect_eq(s.ended[5], 0);
	cr_expect_eq(s.ended[6] + s.ended[7], 0);
}

Test(pool, without_stop_every_task_runs)
{
	/* Tasks 1 and 4 fail; all five run. */
	struct seen s = { .fail_at = 1, .fail_fast = 4 };
	struct sim_error err = { .msg = "" };
	size_t failed = 99;
	int rc = run_pool(&s, 2, 5, false, &failed, &err);
	cr_expect_eq(rc, 3);
	cr_expect_eq(failed, 1);
	for (int k = 0; k < 5; k++)
		cr_expect_eq(s.ended[k], 1, "task %d", k);
	cr_expect(WIFEXITED(s.status[4]) && WEXITSTATUS(s.status[4]) == 5);
}

Test(pool, a_killed_child_is_said_so)
{
	struct seen s = { .fail_at = -1, .fail_fast = 0, .crash = true };
	struct sim_error err = { .msg = "" };
	size_t failed = 99;
	int rc = run_pool(&s, 1, 1, true, &failed, &err);
	cr_expect_eq(rc, 1);
	cr_expect_eq(failed, 0);
	cr_expect(strstr(err.msg, "killed by signal 6"), "%s", err.msg);
	cr_expect(WIFSIGNALED(s.status[0]));
}
