/*
 * The Open MPI sweep driver: `mpirun -np N clustersim sweep FILE`.
 *
 * Built when the Makefile finds mpicc (HAVE_MPI); chosen at run time when
 * the process was started by mpirun (Open MPI's or PMIx's environment
 * variables are set).  Every rank loads and checks the sweep.  Rank 0
 * takes the results folder (its lock, sweep_claim()) and writes the sweep
 * manifest, then hands out runs one at a time (dynamic, so long and short
 * runs balance) and merges at the end; ranks 1..N-1 execute each run in a
 * forked child of the worker pool (sweep_pool(), as the local driver does:
 * the child calls no MPI), so a run that crashes is recorded in its
 * error.txt (the results folder is on a shared file system, as on any
 * cluster) and the sweep goes on.  One rank alone runs the local driver.
 *
 * Dying together: every rank dies with the process that started it
 * (mpirun or its daemon, PR_SET_PDEATHSIG), and each run's child with its
 * rank; when one rank dies, mpirun ends the others.  So a killed driver,
 * whether mpirun or rank 0, leaves no run writing.
 *
 * Messages: a worker sends {run, code} (run -1: nothing done yet), rank 0
 * answers with the next run index, or -1 when there is none left (at
 * once, when the folder could not be taken).
 */
#include "sweep/sweep.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/outdir.h"
#include "base/util.h"

#ifdef HAVE_MPI
#include <mpi.h>

#define TAG_DONE 1  /* worker -> rank 0: {run, code} */
#define TAG_WORK 2  /* rank 0 -> worker: run index or -1 */

bool sweep_have_mpi(void)
{
	return true;
}

static bool under_mpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") ||
	       getenv("PMI_SIZE");
}

/* Rank 0 when the folder cannot be taken: stops every worker. */
static void stop_workers(int size)
{
	for (int active = size - 1; active > 0; active--) {
		int msg[2], none = -1;
		MPI_Status st;
		MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, TAG_DONE,
			 MPI_COMM_WORLD, &st);
		MPI_Send(&none, 1, MPI_INT, st.MPI_SOURCE, TAG_WORK,
			 MPI_COMM_WORLD);
	}
}

/* Rank 0: hands out this shard's runs in order, then stops the workers. */
static int master(const struct sweep *sw, const struct sweep_opts *so,
		  int size, struct sim_error *err)
{
	struct sweep_tally t = { .t0 = mono_seconds(),
				 .tty = isatty(fileno(so->msg)) };
	size_t next = 0;
	int active = size - 1;
	t.last = t.t0;
	for (size_t k = 0; k < sw->nruns; k++)
		t.total += sweep_in_shard(so, k);
	while (active > 0) {
		int msg[2];
		MPI_Status st;
		MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, TAG_DONE,
			 MPI_COMM_WORLD, &st);
		if (msg[0] >= 0) {
			t.done++;
			if (msg[1] == 0)
				t.ran++;
			else if (msg[1] == SWEEP_SKIPPED)
				t.skipped++;
			else
				t.failed++;
			if (!so->quiet)
				sweep_progress(so->msg, &t, t.done == t.total);
		}
		while (next < sw->nruns && !sweep_in_shard(so, next))
			next++;
		int work = next < sw->nruns ? (int)next++ : -1;
		MPI_Send(&work, 1, MPI_INT, st.MPI_SOURCE, TAG_WORK,
			 MPI_COMM_WORLD);
		if (work < 0)
			active--;
	}
	return sweep_finish(sw, so, &t, err);
}

static void worker(const struct sweep *sw, const struct sweep_opts *so)
{
	int msg[2] = { -1, 0 };
	for (;;) {
		int work;
		MPI_Send(msg, 2, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD);
		MPI_Recv(&work, 1, MPI_INT, 0, TAG_WORK, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		if (work < 0)
			return;
		struct sim_error e = { .msg = "" };
		size_t run = (size_t)work;
		msg[0] = work;
		msg[1] = 1; /* stays when it cannot fork: the run failed */
		sweep_pool(sw, so, &run, 1, 1, NULL, &msg[1], &e);
	}
}

int sweep_run_mpi(const struct sweep *sw, const struct sweep_opts *so,
		  struct sim_error *err)
{
	int rank, size, code = 0;
	if (!under_mpirun())
		return -1;
	/* Dies with mpirun (or its daemon): a rank whose launcher is gone
	 * must not go on writing. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	MPI_Init(NULL, NULL);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size == 1) {
		MPI_Finalize();
		return sweep_run_local(sw, so, err);
	}
	if (rank == 0) {
		/* Taken, and the manifest written, before any run is handed
		 * out. */
		struct outdir od = { .fd = -1 };
		int rc = sweep_claim(sw, so, &od, err);
		if (rc == 0) {
			code = master(sw, so, size, err);
		} else {
			stop_workers(size);
			code = rc == -SIM_EINPUT ? 2 : 1;
		}
		outdir_unlock(&od);
	} else {
		worker(sw, so);
	}
	MPI_Finalize();
	return code;
}

#else

bool sweep_have_mpi(void)
{
	return false;
}

int sweep_run_mpi(const struct sweep *sw, const struct sweep_opts *so,
		  struct sim_error *err)
{
	return -1;
}

#endif
