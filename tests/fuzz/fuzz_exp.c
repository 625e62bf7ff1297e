/*
 * libFuzzer harness for the experiment loader (exp_parse): whatever the
 * text, it must return 0 with a complete experiment, or a negative code
 * with a "FILE: $.path: message" - never crash, leak, hit undefined
 * behaviour or abort.  The loader works on text in memory; only a
 * "cluster" given as a file name makes it read a file.
 *
 * Checked on success: the fields every run relies on are filled in
 * (name, at least one policy with a unique label, at least one seed,
 * the resolved configuration), and that resolved configuration - which
 * goes into manifest.json to reproduce the result - loads again into the
 * same configuration (but for where a default output folder is).  On
 * failure: the code, the message and that nothing is left allocated
 * (LeakSanitizer).
 *
 * Relative paths resolve against the folder of FUZZ_EXP_PATH, which does
 * not exist, so no relative cluster file is ever found.  Inputs that could
 * name an absolute device file (an endless /dev/zero, a /dev/stdin that
 * blocks) are skipped: anything containing "dev", "proc", "sys", "fd" or a
 * "\u" escape (which could spell them).
 *
 * fuzz_exp_one() is linked into the Criterion binary, which replays
 * tests/fuzz/corpus/exp/ (tests/test_fuzz_corpus.c); the libFuzzer entry
 * point is compiled only with -DFUZZ_TARGET_EXP, as `make fuzz` does.
 */
#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp.h"
#include "fuzz.h"
#include "fuzzlib.h"
#include "base/util.h"

#define FUZZ_EXP_DIR "/nonexistent-clustersim-fuzz"
#define FUZZ_EXP_PATH FUZZ_EXP_DIR "/exp.json"

/* Whether text could make the loader open a device or proc file. */
static bool fuzz_exp_unsafe(const char *text)
{
	static const char *const bad[] = { "dev", "proc", "sys", "fd", "\\u" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (strstr(text, bad[i]))
			return true;
	return false;
}

static void fuzz_exp_check(const struct experiment *e)
{
	FUZZ_CHECK(e->path && strcmp(e->path, FUZZ_EXP_PATH) == 0);
	FUZZ_CHECK(e->name && e->name[0]);
	FUZZ_CHECK(e->npolicies >= 1 && e->policies);
	for (size_t i = 0; i < e->npolicies; i++) {
		const struct policy_spec *p = &e->policies[i];
		FUZZ_CHECK(p->name && p->name[0] && p->label && p->label[0]);
		FUZZ_CHECK(p->json_path);
		FUZZ_CHECK(p->nparams == 0 || p->params);
		for (size_t k = 0; k < p->nparams; k++)
			FUZZ_CHECK(p->params[k].key && p->params[k].json_path);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(e->policies[j].label, p->label) != 0);
	}
	FUZZ_CHECK(e->nseeds >= 1 && e->seeds);
	for (size_t i = 0; i < e->nseeds; i++)
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(e->seeds[i] != e->seeds[j]);
	FUZZ_CHECK(e->workload.generated || e->workload.trace);
	FUZZ_CHECK(!e->workload.generated || e->workload.gen.jobs >= 1);
	FUZZ_CHECK(e->nplugins == 0 || e->plugins);
	FUZZ_CHECK(e->bsld_tau >= 0 && e->timeline_interval >= 0);
	FUZZ_CHECK(e->resolved_json && e->resolved_json[0] == '{');
}

/*
 * b was loaded from a's resolved configuration: the same but for the
 * output folder, which by default is relative to the current directory
 * and written back as such, while an output given in a file is relative
 * to the file's folder (experiments/README.md): so a relative default
 * comes back anchored there.
 */
static void fuzz_exp_same(const struct experiment *a,
			  const struct experiment *b)
{
	cJSON *x = cJSON_Parse(a->resolved_json);
	cJSON *y = cJSON_Parse(b->resolved_json);
	char *out;
	bool same;

	FUZZ_CHECK(x && y);
	cJSON_DeleteItemFromObjectCaseSensitive(x, "output");
	cJSON_DeleteItemFromObjectCaseSensitive(y, "output");
	same = cJSON_Compare(x, y, true);
	if (!same)
		fprintf(stderr, "resolved config changed:\n%s\nthen:\n%s\n",
			a->resolved_json, b->resolved_json);
	FUZZ_CHECK(same);
	cJSON_Delete(x);
	cJSON_Delete(y);

	FUZZ_CHECK(a->output && b->output);
	out = path_join(FUZZ_EXP_DIR, a->output);
	FUZZ_CHECK(strcmp(b->output, a->output) == 0 ||
		   strcmp(b->output, out) == 0);
	free(out);
}

int fuzz_exp_one(const uint8_t *data, size_t size)
{
	struct experiment e, again;
	struct sim_error err;
	char *text = xmalloc(size + 1);
	int rc;

	memcpy(text, data, size);
	text[size] = '\0';
	if (fuzz_exp_unsafe(text))
		goto out;
	memset(&err, 0, sizeof(err));
	rc = exp_parse(text, FUZZ_EXP_PATH, &e, &err);
	if (rc != 0) {
		FUZZ_CHECK(rc < 0);
		FUZZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL);
		/* "FILE: $.path: message"; a cluster file names itself */
		FUZZ_CHECK((strncmp(err.msg, FUZZ_EXP_PATH,
				    strlen(FUZZ_EXP_PATH)) == 0 &&
			    err.msg[strlen(FUZZ_EXP_PATH)] == ':') ||
			   err.msg[0] == '/');
		FUZZ_CHECK(e.path == NULL && e.policies == NULL &&
			   e.resolved_json == NULL);
		goto out;
	}
	fuzz_exp_check(&e);

	/* The resolved configuration reproduces itself. */
	memset(&err, 0, sizeof(err));
	rc = exp_parse(e.resolved_json, FUZZ_EXP_PATH, &again, &err);
	if (rc != 0)
		fprintf(stderr, "resolved config refused: %s\n%s\n", err.msg,
			e.resolved_json);
	FUZZ_CHECK(rc == 0);
	fuzz_exp_check(&again);
	fuzz_exp_same(&e, &again);
	exp_release(&again);
	exp_release(&e);
out:
	free(text);
	return 0;
}

#ifdef FUZZ_TARGET_EXP
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_exp_one(data, size);
}
#endif
