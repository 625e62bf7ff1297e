/*
 * File parameters (PARAM_FILE, policy.h): a policy that reads a file, such
 * as a trained model, names it by a path relative to the experiment's
 * folder; the engine reads it before the run, by the input rules (plain
 * or gzip), hands the policy its bytes, and refuses what it cannot read
 * with the parameter's JSON path.  Checked here on a policy table of the
 * test's own, whose init() records what it was given.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "policy/registry.h"
#include "testlib.h"

static const struct policy_param pf_params[] = {
	{ "model", PARAM_FILE, "", "the file to read" },
	{ NULL, PARAM_INT, NULL, NULL },
};

/* What init() saw. */
static char seen[64];
static size_t seen_len;
static bool seen_none;
static char seen_path[64];

static int pf_init(struct sim *sim, void **state, struct sim_error *err)
{
	size_t len = 99;
	const char *d = sim_param_file(sim, "model", &len);
	seen_none = d == NULL;
	seen_len = len;
	snprintf(seen, sizeof(seen), "%s", d ? d : "");
	snprintf(seen_path, sizeof(seen_path), "%s",
		 sim_param_str(sim, "model"));
	return 0;
}

static void pf_schedule(struct sim *sim, void *state)
{
	sim_start_head(sim);
}

static const struct policy_ops pf_ops = {
	.abi = CLUSTERSIM_ABI_VERSION, .name = "pf", .params = pf_params,
	.init = pf_init, .schedule = pf_schedule,
};

/* Resolves model = value (NULL: not given), reads the files from dir,
 * runs one job; returns the load's code, err filled. */
static int pf_run(const char *value, const char *dir, struct sim_error *err)
{
	struct param_value pv = {
		.key = (char *)"model",
		.json_path = (char *)"$.policies[0].params.model",
		.type = PV_STRING, .str = (char *)value,
	};
	struct pval *v;
	size_t n;
	int rc = policy_params_resolve(&pf_ops, &pv, value ? 1 : 0, "e.json: ",
				       &v, &n, err);
	if (rc)
		return rc;
	rc = policy_params_load_files(v, n, dir, &pv, value ? 1 : 0,
				      "e.json: ", err);
	if (!rc) {
		struct workload w;
		struct cluster_spec c;
		static const struct tjob t[] = { { 1, 0, 10, 10, 1 } };
		tl_workload(&w, t, 1);
		tl_cluster(&c, 1, 1);
		struct sim_config cfg = {
			.workload = &w, .cluster = &c, .policy = &pf_ops,
			.params = v, .nparams = n, .seed = 1, .check = true,
		};
		struct sim *s = sim_new(&cfg);
		cr_assert_eq(sim_run(s, err), 0, "%s", err->msg);
		sim_free(s);
		workload_release(&w);
		cluster_spec_release(&c);
	}
	policy_params_free(v, n);
	return rc;
}

static char dir[] = "/tmp/clustersim-pf-XXXXXX";

static void pf_setup(void)
{
	strcpy(dir, "/tmp/clustersim-pf-XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void pf_teardown(void)
{
	tl_rmtree(dir);
}

TestSuite(param_file, .init = pf_setup, .fini = pf_teardown);

/* The bytes of a file beside the experiment reach init(), and the path
 * reads as the experiment wrote it. */
Test(param_file, relative_to_the_experiment)
{
	tl_put(dir, "m.txt", "weights 1 2 3\n");
	struct sim_error err = { "" };
	cr_assert_eq(pf_run("m.txt", dir, &err), 0, "%s", err.msg);
	cr_expect_str_eq(seen, "weights 1 2 3\n");
	cr_expect_eq(seen_len, 14);
	cr_expect_str_eq(seen_path, "m.txt");
}

/* gzip content is inflated, as for every input: "abc" compressed. */
Test(param_file, gzip_is_inflated)
{
	cr_assert_eq(tl_sh(dir, "printf abc | gzip -n > m.gz"), 0);
	struct sim_error err = { "" };
	cr_assert_eq(pf_run("m.gz", dir, &err), 0, "%s", err.msg);
	cr_expect_str_eq(seen, "abc");
	cr_expect_eq(seen_len, 3);
}

/* Not given: no bytes, length 0, and nothing read. */
Test(param_file, not_given_is_none)
{
	struct sim_error err = { "" };
	cr_assert_eq(pf_run(NULL, dir, &err), 0, "%s", err.msg);
	cr_expect(seen_none);
	cr_expect_eq(seen_len, 0);
}

/* A file that is not there: the JSON path, then the file's own message. */
Test(param_file, missing_file_names_the_parameter)
{
	struct sim_error err = { "" };
	cr_assert_neq(pf_run("absent.bin", dir, &err), 0);
	char *want = xasprintf("e.json: $.policies[0].params.model: %s/"
			       "absent.bin: ", dir);
	cr_expect(strncmp(err.msg, want, strlen(want)) == 0, "%s", err.msg);
	free(want);
}

/* A folder is not a regular file; an empty path and a number are not a
 * file's path. */
Test(param_file, bad_values)
{
	struct sim_error err = { "" };
	cr_assert_neq(pf_run(".", dir, &err), 0);
	cr_expect(strstr(err.msg, "not a regular file"), "%s", err.msg);
	cr_assert_neq(pf_run("", dir, &err), 0);
	cr_expect(strstr(err.msg, "$.policies[0].params.model: expected a "
			 "file's path"), "%s", err.msg);
	struct param_value pv = {
		.key = (char *)"model", .json_path = (char *)"$.p",
		.type = PV_NUMBER, .num = 3,
	};
	struct pval *v;
	size_t n;
	cr_assert_neq(policy_params_resolve(&pf_ops, &pv, 1, "", &v, &n,
					    &err), 0);
}
