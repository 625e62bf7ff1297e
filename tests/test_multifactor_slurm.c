/*
 * The multifactor priority against the real Slurm (docs/tenants.md,
 * "Checks against Slurm"): a single-node slurmctld + slurmd on localhost
 * (as tests/test_sweep.c starts one) with PriorityType=priority/multifactor
 * and two partitions of PriorityJobFactor 1 and 4.  A job of all 8 CPUs
 * runs so that the others stay pending (held jobs are not listed by
 * sprio); jobs of 1 to 8 CPUs are submitted to both partitions, and
 * sprio's job size and partition factors and total priority must equal
 * what include/clustersim/multifactor.h computes for the same jobs (the
 * factors the policy uses).  Without a database (slurmdbd) Slurm ignores
 * PriorityWeightAge, QOS and fair-share ("PriorityWeightAge can only be
 * used with SlurmDBD"), so the age factor is checked to be 0 there and
 * weighted 0 here; the other factors are compared.  The test skips,
 * saying why, where Slurm cannot start (not root, not installed).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "clustersim/multifactor.h"
#include "testlib.h"

static char tmp[256], bin[512];

/* Its own ports (not the sweep test's), key, socket and state under tmp;
 * the node's 8 CPUs are the configuration's (config_overrides), whatever
 * the machine has. */
static const char start_sh[] =
	"set -e\n"
	"d=$(pwd); h=$(hostname -s)\n"
	"[ \"$(id -u)\" = 0 ] || { echo 'not root (slurmd runs as root)'; exit 1; }\n"
	"for c in munged mungekey slurmctld slurmd sbatch squeue sinfo sprio; do\n"
	"  command -v $c >/dev/null || { echo \"$c not found (apt-get install "
	"slurm-wlm munge)\"; exit 1; }\n"
	"done\n"
	"mkdir -p state spool\n"
	"mungekey -c -k \"$d/munge.key\" -b 1024\n"
	"chmod 600 \"$d/munge.key\"\n"
	"munged --force -S \"$d/munge.sock\" --key-file=\"$d/munge.key\" "
	"--pid-file=\"$d/munged.pid\" --log-file=\"$d/munged.log\" "
	"--seed-file=\"$d/munge.seed\" || { echo 'munged did not start'; exit 1; }\n"
	"cat > slurm.conf <<EOC\n"
	"ClusterName=csprio\nSlurmctldHost=$h\nSlurmUser=root\nSlurmdUser=root\n"
	"SlurmctldPort=16917\nSlurmdPort=16918\nAuthType=auth/munge\n"
	"CredType=cred/munge\nAuthInfo=socket=$d/munge.sock\n"
	"StateSaveLocation=$d/state\nSlurmdSpoolDir=$d/spool\n"
	"SlurmctldPidFile=$d/slurmctld.pid\nSlurmdPidFile=$d/slurmd.pid\n"
	"SlurmctldLogFile=$d/slurmctld.log\nSlurmdLogFile=$d/slurmd.log\n"
	"ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
	"JobAcctGatherType=jobacct_gather/none\n"
	"AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
	"MpiDefault=none\nSchedulerType=sched/backfill\n"
	"SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
	"ReturnToService=2\nSwitchType=switch/none\n"
	"SlurmdParameters=config_overrides\n"
	"PriorityType=priority/multifactor\nPriorityWeightAge=1000\n"
	"PriorityWeightJobSize=1000\nPriorityWeightPartition=1000\n"
	"PriorityMaxAge=00:10:00\n"
	"NodeName=$h CPUs=8 RealMemory=1000 State=UNKNOWN\n"
	"PartitionName=low Nodes=ALL Default=YES MaxTime=INFINITE State=UP "
	"PriorityJobFactor=1\n"
	"PartitionName=high Nodes=ALL MaxTime=INFINITE State=UP "
	"PriorityJobFactor=4\n"
	"EOC\n"
	"export SLURM_CONF=$d/slurm.conf\n"
	"slurmctld -i || { echo 'slurmctld did not start'; exit 1; }\n"
	"slurmd || { echo 'slurmd did not start'; exit 1; }\n"
	"for i in $(seq 60); do\n"
	"  sinfo -h -o %T 2>/dev/null | grep -q idle && exit 0\n"
	"  sleep 0.5\n"
	"done\n"
	"echo \"the node did not come up: $(tail -n 3 slurmctld.log slurmd.log "
	"2>/dev/null | tr '\\n' ' ')\"; exit 1\n";

static void slurm_stop(void)
{
	/* Our jobs first, then only the daemons this test started, by
	 * their pid files. */
	tl_sh(tmp, "SLURM_CONF=$PWD/slurm.conf scancel --user=root; sleep 1; "
	      "for p in slurmd slurmctld munged; do [ -f $p.pid ] && "
	      "kill $(cat $p.pid); done; sleep 1; true");
}

/* The jobs: partition and CPUs (1 node each). */
static const struct {
	const char *part;
	unsigned pjf, cpus;
} jobs[] = {
	{ "low", 1, 1 }, { "low", 1, 2 }, { "high", 4, 4 },
	{ "high", 4, 6 }, { "low", 1, 8 }, { "high", 4, 1 },
};
#define NJOBS (sizeof(jobs) / sizeof(jobs[0]))

Test(multifactor_slurm, sprio_agrees_on_size_partition_and_priority,
     .timeout = 120)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "mfslurm");
	tl_put(tmp, "start.sh", start_sh);
	if (tl_sh(tmp, "sh start.sh") != 0) {
		char *why = tl_slurp(tmp, "out.txt");
		why[strcspn(why, "\n")] = '\0';
		slurm_stop();
		tl_rmtree(tmp);
		cr_skip_test("Slurm cannot start here: %s", why);
	}
	/* The node busy with all its CPUs, then the pending jobs. */
	int rc = tl_sh(tmp, "export SLURM_CONF=$PWD/slurm.conf; "
		       "sbatch -p low -n 8 -t 5 -o /dev/null --wrap 'sleep 60' "
		       "&& for i in $(seq 100); do squeue -h -t R | grep -q . "
		       "&& exit 0; sleep 0.2; done; exit 1");
	cr_assert_eq(rc, 0, "the first job did not start: %s",
		     tl_slurp(tmp, "err.txt"));
	for (size_t i = 0; i < NJOBS; i++) {
		rc = tl_sh(tmp, "SLURM_CONF=$PWD/slurm.conf sbatch -p %s -n %u "
			   "-t 5 -o /dev/null --wrap 'sleep 1'", jobs[i].part,
			   jobs[i].cpus);
		cr_assert_eq(rc, 0, "%s", tl_slurp(tmp, "err.txt"));
	}
	/* id, priority, normalised age, size, partition; then the weighted
	 * priority as an integer. */
	rc = tl_sh(tmp, "SLURM_CONF=$PWD/slurm.conf sprio -h -n -o "
		   "'%%i %%a %%j %%p' && SLURM_CONF=$PWD/slurm.conf sprio -h "
		   "-o '%%i %%Y'");
	char *out = tl_slurp(tmp, "out.txt");
	cr_assert_eq(rc, 0, "%s", tl_slurp(tmp, "err.txt"));
	struct mf_weights w = { .age = 0, .size = 1000, .partition = 1000 };
	size_t seen = 0, seen_prio = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned id;
		double age, size, part;
		unsigned prio;
		int n = sscanf(line, "%u %lf %lf %lf", &id, &age, &size, &part);
		cr_assert(id >= 2 && id < 2 + NJOBS, "%s", line);
		unsigned k = id - 2; /* job 1 occupies the node */
		/* One node of 8 CPUs, a one-node job: (1 + cpus / 8) / 2. */
		double want_size = mf_size_factor(1, jobs[k].cpus, 1, 8, false);
		double want_part = mf_norm(jobs[k].pjf, 4);
		if (n == 4) {
			cr_expect_float_eq(age, 0.0, 1e-9, "%s", line);
			cr_expect_float_eq(size, want_size, 1e-6, "%s", line);
			cr_expect_float_eq(part, want_part, 1e-6, "%s", line);
			seen++;
		} else {
			cr_assert_eq(sscanf(line, "%u %u", &id, &prio), 2, "%s",
				     line);
			struct mf_factors f = { .size = want_size,
						.partition = want_part };
			cr_expect_eq(prio, mf_priority(&w, &f),
				     "job %u: sprio %u, clustersim %u", id,
				     prio, mf_priority(&w, &f));
			seen_prio++;
		}
	}
	cr_expect_eq(seen, NJOBS, "sprio listed %zu jobs", seen);
	cr_expect_eq(seen_prio, NJOBS, "sprio gave %zu priorities", seen_prio);
	free(out);
	slurm_stop();
	tl_rmtree(tmp);
}
