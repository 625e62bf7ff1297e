/*
 * rl: a scheduling agent trained by reinforcement learning, run as a
 * policy, so that it meets easy, sjf or f1 in one experiment's tables.
 *
 * What it does: at each scheduling point it sees what the environment of
 * docs/rl.md shows its agent (sim_observe: the first K waiting jobs in
 * submit order, which of them fit now, the cluster's free and soon-free
 * units), scores every candidate with the trained network and "wait"
 * with a second one, and starts the allowed candidate of highest score;
 * then it looks again (one job fewer, the cluster changed), until "wait"
 * scores highest or nothing fits.  Ties go to the earlier candidate.
 *
 * The networks are those python/train_ppo.py trains (RLScheduler's
 * per-job scorer, Zhang et al., SC'20): the scorer maps one candidate's
 * features with the context (the group and global features) to a score;
 * the wait network maps the context alone.  Linear layers with ReLU
 * between them, in float32, the forward pass of PyTorch's nn.Linear
 * (y = W x + b, W stored out x in, row-major).  Summed in another order
 * than PyTorch's, the scores differ in their last bits: the same action
 * but where two scores are within about 1e-6 of each other
 * (tests/test_rl_policy.c checks recorded decisions).
 *
 * The model file (docs/rl.md, "The model file"): one line of JSON, the
 * header: "format": "clustersim-rl-model", "version": 1, "mode":
 * "select", "k", "job_features", "context_features", "obs_dim", and
 * "layers", each {"net": "scorer" or "wait", "in", "out", "relu"} in
 * order; then a newline and every layer's weights (out x in) and biases
 * (out) as little-endian float32, in the header's order.  A model whose
 * layout differs from what the engine observes (another K, feature
 * counts or observation size) is refused at init.
 *
 * Parameters: model (a file, required): the path of model.bin, relative
 * to the experiment file's folder, hashed among the manifest's inputs.
 *
 * Example: a model whose scorer gives -(estimate feature) and whose wait
 * network gives -1e9 behaves as SJF among the jobs that fit now.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clustersim/policy.h"

#define RL_MODEL_FORMAT "clustersim-rl-model"

/* One linear layer: y = W x + b, then ReLU when relu. */
struct rl_layer {
	uint32_t in, out;
	bool relu;
	size_t off;      /* where its weights start among the file's */
	const float *w;  /* out x in, row-major */
	const float *b;  /* out */
};

/* A network: its layers in order. */
struct rl_net {
	struct rl_layer *l;
	size_t n;
};

struct rl {
	float *params;          /* every weight and bias, in file order */
	struct rl_net scorer;   /* candidate + context -> score */
	struct rl_net wait;     /* context -> score of waiting */
	uint32_t k, jf, cf;     /* K, features per candidate, context */
	float *obs;             /* the observation (K jf + cf) */
	uint8_t *mask;          /* K + 1 */
	float *x, *y, *z;       /* the forward pass's vectors */
	uint32_t width;         /* the widest layer */
};

/* y = layer(x). */
static void layer_apply(const struct rl_layer *l, const float *x, float *y)
{
	for (uint32_t o = 0; o < l->out; o++) {
		const float *w = l->w + (size_t)o * l->in;
		float s = 0;
		for (uint32_t i = 0; i < l->in; i++)
			s += w[i] * x[i];
		s += l->b[o];
		y[o] = l->relu && s < 0 ? 0 : s;
	}
}

/* The network's single output for input x (n->l[0].in floats). */
static float net_apply(const struct rl *r, const struct rl_net *n,
		       const float *x)
{
	const float *in = x;
	float *bufs[2] = { r->y, r->z };
	for (size_t i = 0; i < n->n; i++) {
		layer_apply(&n->l[i], in, bufs[i & 1]);
		in = bufs[i & 1];
	}
	return in[0];
}

/* ---- The model file ---------------------------------------------------- */

static int fail(struct sim_error *err, const char *path, const char *what)
{
	snprintf(err->msg, sizeof(err->msg), "model '%s': %s", path, what);
	return -1;
}

/* A header field that must be a whole number in [lo, hi]. */
static bool whole(const cJSON *o, const char *key, double lo, double hi,
		  uint32_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < lo || v->valuedouble > hi)
		return false;
	*out = (uint32_t)v->valuedouble;
	return true;
}

/* The layers of the header into r->scorer and r->wait; their float
 * count into *nparams. */
static int read_layers(struct rl *r, const cJSON *layers, const char *path,
		       size_t *nparams, struct sim_error *err)
{
	size_t n = (size_t)cJSON_GetArraySize(layers);
	if (!cJSON_IsArray(layers) || n == 0 || n > 64)
		return fail(err, path, "\"layers\" must be an array of 1 to "
			    "64 layers");
	r->scorer.l = calloc(n, sizeof(*r->scorer.l));
	r->wait.l = calloc(n, sizeof(*r->wait.l));
	if (!r->scorer.l || !r->wait.l)
		return fail(err, path, "out of memory");
	*nparams = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, layers) {
		const cJSON *net = cJSON_GetObjectItemCaseSensitive(it, "net");
		const cJSON *relu = cJSON_GetObjectItemCaseSensitive(it,
								     "relu");
		struct rl_layer l = { 0 };
		if (!cJSON_IsString(net) || !cJSON_IsBool(relu) ||
		    !whole(it, "in", 1, 1 << 16, &l.in) ||
		    !whole(it, "out", 1, 1 << 16, &l.out))
			return fail(err, path, "a layer needs \"net\", \"in\", "
				    "\"out\" (1 .. 65536) and \"relu\"");
		l.relu = cJSON_IsTrue(relu);
		l.off = *nparams;
		struct rl_net *to = strcmp(net->valuestring, "scorer") == 0 ?
				    &r->scorer :
				    strcmp(net->valuestring, "wait") == 0 ?
				    &r->wait : NULL;
		if (!to)
			return fail(err, path, "a layer's \"net\" must be "
				    "\"scorer\" or \"wait\"");
		if (to->n && to->l[to->n - 1].out != l.in)
			return fail(err, path, "a layer's \"in\" differs from "
				    "the last layer's \"out\"");
		to->l[to->n++] = l;
		*nparams += (size_t)l.in * l.out + l.out;
		if (l.out > r->width)
			r->width = l.out;
	}
	return 0;
}

/* Checks a network's ends: input width in, one output. */
static int net_ends(const struct rl_net *n, uint32_t in, const char *name,
		    const char *path, struct sim_error *err)
{
	char what[160];
	if (!n->n || n->l[0].in != in || n->l[n->n - 1].out != 1) {
		snprintf(what, sizeof(what), "the %s network must take %u "
			 "inputs and give 1 output", name, in);
		return fail(err, path, what);
	}
	return 0;
}

/* The weights after the header: exactly nparams little-endian float32,
 * each finite; the layers' pointers set into r->params. */
static int read_weights(struct rl *r, const unsigned char *p, size_t len,
			size_t nparams, const char *path,
			struct sim_error *err)
{
	if (len != nparams * 4) {
		char what[160];
		snprintf(what, sizeof(what), "its layers need %zu bytes of "
			 "weights after the header, the file has %zu", 4 *
			 nparams, len);
		return fail(err, path, what);
	}
	r->params = malloc((nparams ? nparams : 1) * sizeof(float));
	if (!r->params)
		return fail(err, path, "out of memory");
	for (size_t i = 0; i < nparams; i++, p += 4) {
		uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
			     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		memcpy(&r->params[i], &u, 4);
		if (!isfinite(r->params[i]))
			return fail(err, path, "a weight is not finite");
	}
	struct rl_net *nets[2] = { &r->scorer, &r->wait };
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < nets[k]->n; i++) {
			struct rl_layer *l = &nets[k]->l[i];
			l->w = r->params + l->off;
			l->b = l->w + (size_t)l->in * l->out;
		}
	return 0;
}

/* Reads the model file's bytes into r (sizes checked against each
 * other; against the cluster at init). */
static int load_model(struct rl *r, const char *data, size_t len,
		      const char *path, struct sim_error *err)
{
	const char *nl = memchr(data, '\n', len);
	if (!nl)
		return fail(err, path, "no header line (a JSON object, then "
			    "a newline, then the weights)");
	cJSON *h = cJSON_ParseWithLength(data, (size_t)(nl - data));
	int rc = 0;
	const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(h, "format");
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(h, "mode");
	uint32_t version = 0, dim = 0;
	size_t nparams = 0;
	if (!cJSON_IsObject(h) || !cJSON_IsString(fmt) ||
	    strcmp(fmt->valuestring, RL_MODEL_FORMAT) != 0)
		rc = fail(err, path, "not a model file (its header's "
			  "\"format\" is not \"" RL_MODEL_FORMAT "\")");
	else if (!whole(h, "version", 1, 1, &version))
		rc = fail(err, path, "its \"version\" is not 1, the one this "
			  "clustersim reads");
	else if (!cJSON_IsString(mode) ||
		 strcmp(mode->valuestring, "select") != 0)
		rc = fail(err, path, "its \"mode\" is not \"select\", the one "
			  "the rl policy runs");
	else if (!whole(h, "k", 1, 1 << 16, &r->k) ||
		 !whole(h, "job_features", 1, 1 << 10, &r->jf) ||
		 !whole(h, "context_features", 1, 1 << 16, &r->cf) ||
		 !whole(h, "obs_dim", 1, 1 << 30, &dim) ||
		 dim != (uint64_t)r->k * r->jf + r->cf)
		rc = fail(err, path, "\"k\", \"job_features\", "
			  "\"context_features\" and \"obs_dim\" must be whole "
			  "numbers with obs_dim = k x job_features + "
			  "context_features");
	else if (!(rc = read_layers(r, cJSON_GetObjectItemCaseSensitive(
					    h, "layers"), path, &nparams, err)) &&
		 !(rc = net_ends(&r->scorer, r->jf + r->cf, "scorer", path,
				 err)) &&
		 !(rc = net_ends(&r->wait, r->cf, "wait", path, err)))
		rc = read_weights(r, (const unsigned char *)nl + 1,
				  len - (size_t)(nl + 1 - data), nparams, path,
				  err);
	cJSON_Delete(h);
	return rc;
}

/* ---- The policy ---------------------------------------------------------- */

static void rl_fini(struct sim *sim, void *state)
{
	struct rl *r = state;
	if (!r)
		return;
	free(r->params);
	free(r->scorer.l);
	free(r->wait.l);
	free(r->obs);
	free(r->mask);
	free(r->x);
	free(r->y);
	free(r->z);
	free(r);
}

static int rl_init(struct sim *sim, void **state, struct sim_error *err)
{
	struct rl *r = calloc(1, sizeof(*r));
	if (!r)
		return -1;
	*state = r;
	size_t len;
	const char *data = sim_param_file(sim, "model", &len);
	const char *path = sim_param_str(sim, "model");
	if (!data)
		return fail(err, "", "none given: the parameter \"model\" names "
			    "the file python/train_ppo.py wrote");
	if (load_model(r, data, len, path, err) != 0)
		return -1;
	if (r->jf != SIM_OBS_JOB_F)
		return fail(err, path, "its job features differ from the ones "
			    "this clustersim observes");
	/* The context depends on the cluster (its GPU types): checked when
	 * there are jobs to decide on (the check of the parameters before
	 * the runs has none, on a cluster of its own). */
	if (sim_job_count(sim) && sim_observe_dim(sim, r->k) !=
			     (size_t)r->k * r->jf + r->cf) {
		char what[200];
		snprintf(what, sizeof(what), "it observes %u context features, "
			 "this cluster gives %zu (a model is trained for "
			 "one cluster's GPU types)", r->cf,
			 sim_observe_dim(sim, r->k) - (size_t)r->k * r->jf);
		return fail(err, path, what);
	}
	size_t dim = (size_t)r->k * r->jf + r->cf;
	r->obs = calloc(dim, sizeof(*r->obs));
	r->mask = calloc((size_t)r->k + 1, 1);
	r->x = calloc((size_t)r->jf + r->cf, sizeof(*r->x));
	r->y = calloc(r->width, sizeof(*r->y));
	r->z = calloc(r->width, sizeof(*r->z));
	if (!r->obs || !r->mask || !r->x || !r->y || !r->z)
		return fail(err, path, "out of memory");
	return 0;
}

/* The allowed candidate of highest score (the earlier on a tie), or -1
 * to wait; its score in *best. */
static int choose(struct rl *r, uint32_t n)
{
	const float *ctx = r->obs + (size_t)r->k * r->jf;
	memcpy(r->x + r->jf, ctx, r->cf * sizeof(*ctx));
	int pick = -1;
	float best = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!r->mask[i])
			continue;
		memcpy(r->x, r->obs + (size_t)i * r->jf, r->jf * sizeof(float));
		float s = net_apply(r, &r->scorer, r->x);
		if (pick < 0 || s > best) {
			pick = (int)i;
			best = s;
		}
	}
	/* Waiting wins only above every job: the candidates come first in
	 * the action order, and an arg max takes the first maximum. */
	if (pick >= 0 && r->mask[r->k] && net_apply(r, &r->wait, ctx) > best)
		return -1;
	return pick;
}

static void rl_schedule(struct sim *sim, void *state)
{
	struct rl *r = state;
	for (;;) {
		uint32_t nfit, n = sim_observe_mask(sim, r->k, r->mask, &nfit);
		if (!nfit)
			return;
		sim_observe(sim, r->k, r->mask, r->obs);
		int a = choose(r, n);
		if (a < 0 || sim_job_start(sim, sim_queue_at(sim, (size_t)a)))
			return;
	}
}

static const struct policy_param rl_params[] = {
	{ "model", PARAM_FILE, "", "the trained agent: the model.bin file "
	  "python/train_ppo.py writes (docs/rl.md)" },
	{ NULL, PARAM_INT, NULL, NULL },
};

CLUSTERSIM_POLICY(rl,
	.summary = "a scheduling agent trained by reinforcement learning "
		   "(python/train_ppo.py): starts the job its network scores "
		   "highest, or waits",
	.params = rl_params,
	.init = rl_init,
	.fini = rl_fini,
	.schedule = rl_schedule);
