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
 * A model trained with the environment's "backfill" (its header's
 * "backfill": true) may choose a job that does not fit: the job is
 * reserved at its shadow time and the others backfilled around it (the
 * engine's sim_backfill_around) at each point until it starts, as in
 * training.
 *
 * A "place" model (its header's "mode": "place", for GPU clusters) is
 * one network, an MLP over the whole observation to T + 1 logits: the
 * head job's (the first waiting one's) GPU type t among the T the
 * header's "gpu_types" names (the cluster's, in its order; else refused
 * at init), or wait.  While the head fits on some type, the policy
 * starts it on the allowed type of highest logit (sim_job_start_on)
 * unless "wait" is higher, as the environment's "place" mode steps.
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

/* The most GPU types a "place" model names. */
#define RL_TYPES_MAX 256

struct rl {
	float *params;          /* every weight and bias, in file order */
	struct rl_net scorer;   /* candidate + context -> score */
	struct rl_net wait;     /* context -> score of waiting */
	bool place;             /* mode "place": the head job's GPU type */
	struct rl_net placer;   /* place: observation -> T + 1 logits */
	uint32_t ntypes;        /* place: T, the GPU types it chooses among */
	char *types[RL_TYPES_MAX]; /* place: their names, in order */
	uint32_t k, jf, cf;     /* K, features per candidate, context */
	bool backfill;          /* trained with backfill (the header's
	                           "backfill"): any waiting candidate may be
	                           chosen, one that does not fit is reserved
	                           and the others backfilled around it */
	const struct job *head; /* that job, until it starts */
	float *obs;             /* the observation (K jf + cf) */
	uint8_t *fit;           /* K + 1: what fits now (the engine's) */
	uint8_t *mask;          /* K + 1: the actions allowed */
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

/* The network's outputs for input x (n->l[0].in floats), in r's
 * buffers until the next call. */
static const float *net_out(const struct rl *r, const struct rl_net *n,
			    const float *x)
{
	const float *in = x;
	float *bufs[2] = { r->y, r->z };
	for (size_t i = 0; i < n->n; i++) {
		layer_apply(&n->l[i], in, bufs[i & 1]);
		in = bufs[i & 1];
	}
	return in;
}

/* The network's single output for input x. */
static float net_apply(const struct rl *r, const struct rl_net *n,
		       const float *x)
{
	return net_out(r, n, x)[0];
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
	r->placer.l = calloc(n, sizeof(*r->placer.l));
	if (!r->scorer.l || !r->wait.l || !r->placer.l)
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
		const char *name = net->valuestring;
		struct rl_net *to = r->place ?
			(strcmp(name, "place") == 0 ? &r->placer : NULL) :
			strcmp(name, "scorer") == 0 ? &r->scorer :
			strcmp(name, "wait") == 0 ? &r->wait : NULL;
		if (!to)
			return fail(err, path, r->place ?
				    "a layer's \"net\" must be \"place\" in "
				    "a \"place\" model" :
				    "a layer's \"net\" must be \"scorer\" or "
				    "\"wait\" in a \"select\" model");
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

/* Checks a network's ends: input width in, out outputs. */
static int net_ends(const struct rl_net *n, uint32_t in, uint32_t out,
		    const char *name, const char *path, struct sim_error *err)
{
	char what[160];
	if (!n->n || n->l[0].in != in || n->l[n->n - 1].out != out) {
		snprintf(what, sizeof(what), "the %s network must take %u "
			 "inputs and give %u output%s", name, in, out,
			 out == 1 ? "" : "s");
		return fail(err, path, what);
	}
	return 0;
}

/* A "place" model's header "gpu_types": the names of the T types its
 * actions place on, in the cluster's order. */
static int read_types(struct rl *r, const cJSON *types, const char *path,
		      struct sim_error *err)
{
	int n = cJSON_GetArraySize(types);
	if (!cJSON_IsArray(types) || n < 1 || n > RL_TYPES_MAX)
		return fail(err, path, "a \"place\" model needs \"gpu_types\": "
			    "an array of 1 to 256 GPU type names");
	const cJSON *it;
	cJSON_ArrayForEach(it, types) {
		if (!cJSON_IsString(it))
			return fail(err, path, "\"gpu_types\" must hold GPU "
				    "type names");
		r->types[r->ntypes] = strdup(it->valuestring);
		if (!r->types[r->ntypes++])
			return fail(err, path, "out of memory");
	}
	return 0;
}

/* The networks' ends: select's scorer and wait, or place's one MLP from
 * the observation to T + 1 logits. */
static int nets_ends(const struct rl *r, const char *path,
		     struct sim_error *err)
{
	if (r->place)
		return net_ends(&r->placer, r->k * r->jf + r->cf,
				r->ntypes + 1, "place", path, err);
	int rc = net_ends(&r->scorer, r->jf + r->cf, 1, "scorer", path, err);
	return rc ? rc : net_ends(&r->wait, r->cf, 1, "wait", path, err);
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
	struct rl_net *nets[3] = { &r->scorer, &r->wait, &r->placer };
	for (int k = 0; k < 3; k++)
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
		 (strcmp(mode->valuestring, "select") != 0 &&
		  strcmp(mode->valuestring, "place") != 0))
		rc = fail(err, path, "its \"mode\" is not \"select\" or "
			  "\"place\", the ones the rl policy runs");
	else if (!whole(h, "k", 1, 1 << 16, &r->k) ||
		 !whole(h, "job_features", 1, 1 << 10, &r->jf) ||
		 !whole(h, "context_features", 1, 1 << 16, &r->cf) ||
		 !whole(h, "obs_dim", 1, 1 << 30, &dim) ||
		 dim != (uint64_t)r->k * r->jf + r->cf)
		rc = fail(err, path, "\"k\", \"job_features\", "
			  "\"context_features\" and \"obs_dim\" must be whole "
			  "numbers with obs_dim = k x job_features + "
			  "context_features");
	else if (cJSON_GetObjectItemCaseSensitive(h, "backfill") &&
		 !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(h, "backfill")))
		rc = fail(err, path, "its \"backfill\" is not true or false");
	else if ((r->place = strcmp(mode->valuestring, "place") == 0) &&
		 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h,
							       "backfill")))
		rc = fail(err, path, "a \"place\" model has no backfill");
	else if (!(r->place && (rc = read_types(r,
			cJSON_GetObjectItemCaseSensitive(h, "gpu_types"),
			path, err))) &&
		 !(rc = read_layers(r, cJSON_GetObjectItemCaseSensitive(
					    h, "layers"), path, &nparams, err)) &&
		 !(rc = nets_ends(r, path, err)))
		rc = read_weights(r, (const unsigned char *)nl + 1,
				  len - (size_t)(nl + 1 - data), nparams, path,
				  err);
	r->backfill = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(h,
								   "backfill"));
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
	free(r->placer.l);
	for (uint32_t t = 0; t < r->ntypes; t++)
		free(r->types[t]);
	free(r->obs);
	free(r->mask);
	free(r->fit);
	free(r->x);
	free(r->y);
	free(r->z);
	free(r);
}

/* "type1', 'type2" of the model's types (from 0) or the cluster's. */
static void type_list(char *buf, size_t size, const struct rl *r,
		      const struct sim *sim)
{
	unsigned n = r ? r->ntypes : sim_gpu_types(sim);
	size_t len = 0;
	buf[0] = 0;
	for (unsigned t = 0; t < n && len + 1 < size; t++) {
		int w = snprintf(buf + len, size - len, "%s%s", t ? "', '" : "",
				 r ? r->types[t] : sim_gpu_type_name(sim, t));
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* A "place" model's GPU types against the cluster's: the same names in
 * the same order (its actions are their indices). */
static int check_types(const struct rl *r, const struct sim *sim,
		       const char *path, struct sim_error *err)
{
	char mine[200], theirs[200], what[520];
	type_list(mine, sizeof(mine), r, sim);
	if (!sim_gpu_types(sim)) {
		snprintf(what, sizeof(what), "a \"place\" model chooses the "
			 "GPU type of each job ('%s'), and this cluster has no "
			 "GPU types", mine);
		return fail(err, path, what);
	}
	bool same = sim_gpu_types(sim) == r->ntypes;
	for (unsigned t = 0; same && t < r->ntypes; t++)
		same = strcmp(r->types[t], sim_gpu_type_name(sim, t)) == 0;
	if (same)
		return 0;
	type_list(theirs, sizeof(theirs), NULL, sim);
	snprintf(what, sizeof(what), "it places on the GPU types ('%s'), this "
		 "cluster has ('%s') (a \"place\" model is trained for one "
		 "cluster's types, in its order)", mine, theirs);
	return fail(err, path, what);
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
	if (r->place && sim_job_count(sim) && check_types(r, sim, path, err))
		return -1;
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
	r->mask = calloc((size_t)(r->k > r->ntypes ? r->k : r->ntypes) + 1, 1);
	r->fit = calloc((size_t)r->k + 1, 1);
	r->x = calloc((size_t)r->jf + r->cf, sizeof(*r->x));
	r->y = calloc(r->width, sizeof(*r->y));
	r->z = calloc(r->width, sizeof(*r->z));
	if (!r->obs || !r->mask || !r->fit || !r->x || !r->y || !r->z)
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

/* As the environment steps (docs/rl.md, "Transition"): a decision at
 * each point where a candidate fits (with backfill: where one waits),
 * again after each start, until the agent waits.  With backfill a
 * chosen job that does not fit is reserved, the others are backfilled
 * around it at each point until it starts, and only then does the
 * agent choose again. */
/* Mode "place" (docs/rl.md): while the head job fits on some GPU type,
 * the network's arg max among the allowed types and "wait" (the first on
 * a tie, so "wait", the last action, only when above every type); the
 * head starts on the chosen type and the next job is the head.  Jobs
 * that ask no GPUs start as the engine places them when they are the
 * head and fit (sim_place_point). */
static void place_schedule(struct sim *sim, struct rl *r)
{
	while (sim_place_point(sim, r->mask)) {
		sim_observe_mask(sim, r->k, r->fit, NULL);
		sim_observe(sim, r->k, r->fit, r->obs);
		const float *lg = net_out(r, &r->placer, r->obs);
		int a = -1;
		for (uint32_t t = 0; t <= r->ntypes; t++)
			if (r->mask[t] && (a < 0 || lg[t] > lg[a]))
				a = (int)t;
		if (a < 0 || a == (int)r->ntypes ||
		    sim_job_start_on(sim, sim_queue_at(sim, 0), (unsigned)a))
			return;
	}
}

static void rl_schedule(struct sim *sim, void *state)
{
	struct rl *r = state;
	if (r->place) {
		place_schedule(sim, r);
		return;
	}
	if (r->head && !sim_backfill_around(sim, r->head))
		return;
	r->head = NULL;
	for (;;) {
		uint32_t nfit, n = sim_observe_mask(sim, r->k, r->fit, &nfit);
		if (r->backfill ? n == 0 : nfit == 0)
			return;
		memcpy(r->mask, r->fit, (size_t)r->k + 1);
		for (uint32_t i = 0; r->backfill && i < n; i++)
			r->mask[i] = 1;
		sim_observe(sim, r->k, r->fit, r->obs);
		int a = choose(r, n);
		if (a < 0)
			return;
		const struct job *j = sim_queue_at(sim, (size_t)a);
		if (!r->fit[a]) {
			if (!sim_backfill_around(sim, j)) {
				r->head = j;
				return;
			}
		} else if (sim_job_start(sim, j) != 0) {
			return;
		}
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
		   "highest (a place model: the head job on the GPU type it "
		   "chooses), or waits",
	.params = rl_params,
	.init = rl_init,
	.fini = rl_fini,
	.schedule = rl_schedule);
