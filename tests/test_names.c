/*
 * Names as the trace spells them: a Philly trace's virtual clusters reach
 * jobs.csv's group column by name ("11cb48"), though the engine numbers
 * them; and a GPU job's class is named in its job_class column.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "base/util.h"
#include "speed/jobclass.h"

static char tmp[256];
static char bin[512];

static void setup(void)
{
	tl_cli_setup(bin, sizeof(bin), tmp, sizeof(tmp), "names");
}

static void teardown(void)
{
	tl_rmtree(tmp);
}
TestSuite(names, .init = setup, .fini = teardown);

/* The cells of a CSV line without quotes, in place. */
static size_t cells(char *line, char **c, size_t max)
{
	size_t n = 0;
	for (char *p = line; n < max; p++) {
		c[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = '\0';
	}
	return n;
}

/* A tiny Philly-format trace: the VC names reach jobs.csv as written. */
Test(names, philly_vc_names_reach_jobs_csv)
{
	tl_cli_need_bin(bin);
	tl_put(tmp, "p.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"
			     "2017-10-09 07:00:10,60,1,60,11cb48\n"
			     "2017-10-09 07:00:00,30,2,60,0e4a51\n"
			     "2017-10-09 07:00:20,10,1,10,\n");
	tl_put(tmp, "x.json",
	       "{\"cluster\": {\"nodes\": [{\"name\": \"g\", \"count\": 1, "
	       "\"cpus\": 8, \"gpus\": 4, \"gpu_type\": \"v100\"}]}, "
	       "\"workload\": {\"trace\": \"p.csv\", \"format\": \"philly\"}, "
	       "\"policies\": [\"fcfs\"], \"output\": \"out\"}");
	int rc = tl_sh(tmp, "'%s' run x.json -q --no-plots", bin);
	char *err = tl_slurp(tmp, "err.txt");
	cr_assert_eq(rc, 0, "exit %d: %s", rc, err);
	free(err);
	char *j = tl_slurp(tmp, "out/fcfs-s1/jobs.csv");
	cr_assert(j);
	/* id 1 is the first row (VC 11cb48), id 2 the second; id 3 has no
	 * VC: an empty cell. */
	char *save = NULL, *line = strtok_r(j, "\n", &save);
	const char *want[] = { "1", "11cb48", "2", "0e4a51", "3", "" };
	for (size_t i = 0; i < 3; i++) {
		char *c[32];
		line = strtok_r(NULL, "\n", &save);
		cr_assert(line);
		cr_assert_eq(cells(line, c, 32), 27);
		cr_expect_str_eq(c[0], want[2 * i]);
		cr_expect_str_eq(c[12], want[2 * i + 1], "job %s", c[0]);
		/* The trace names no model: each GPU job was drawn a class
		 * ("job_classes": "draw", the default), which it names. */
		cr_expect(strchr(c[26], '(') && jobclass_lookup(c[26]) > 0,
			  "job %s class '%s'", c[0], c[26]);
	}
	free(j);
	/* jobs.swf numbers the groups, and its header names them. */
	char *swf = tl_slurp(tmp, "out/fcfs-s1/jobs.swf");
	cr_expect(swf && strstr(swf, "; Note: group 0 (field 13) is 0e4a51\n"
				     "; Note: group 1 (field 13) is 11cb48\n"));
	free(swf);
}
