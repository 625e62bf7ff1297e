/*
 * The "cluster" section of an experiment file (experiments/README.md):
 * node groups, the fabric and racks, given inline or as the path of a
 * JSON file of their own, checked key by key like the rest of the schema
 * (exp.c) and turned into the cluster_spec the run builds its cluster
 * from.  A file of its own because it is the one section that may be a
 * second file, with its own messages.
 */
#include "exp/exp_schema.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exp/exp_json.h"
#include "base/util.h"

static int parse_group(struct exp_ctx *c, const cJSON *v, size_t i,
		       struct node_group *g)
{
	static const char *const keys[] = { "name", "count", "cpus", "gpus",
					    "mem_gb", "gpu_type", "vc" };
	const cJSON *f[ARRAY_SIZE(keys)];
	const char *name = NULL, *gpu_type = NULL, *vc = NULL;
	char shown[EXP_SHOW_MAX];
	double mem_gb = 0;
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	for (size_t k = 1; k <= 2 && !rc; k++)
		rc = exp_require(c, f[k], keys[k]);
	if (!rc)
		rc = exp_get_string(c, "name", f[0], &name);
	if (!rc)
		rc = exp_get_u32(c, "count", f[1], 1, &g->count);
	if (!rc)
		rc = exp_get_u32(c, "cpus", f[2], 1, &g->cpus);
	if (!rc)
		rc = exp_get_u32(c, "gpus", f[3], 0, &g->gpus);
	if (!rc)
		rc = exp_get_number(c, "mem_gb", f[4], 0, false, &mem_gb);
	if (!rc)
		rc = exp_get_string(c, "gpu_type", f[5], &gpu_type);
	if (!rc)
		rc = exp_get_string(c, "vc", f[6], &vc);
	if (rc)
		return rc;
	if (mem_gb * 1024 > EXP_INT_MAX) {
		exp_show(f[4], shown);
		return exp_fail(c, "mem_gb", "too large, got '%s'", shown);
	}
	g->mem_mb = (uint64_t)llround(mem_gb * 1024);
	g->name = name ? xstrdup(name) : xasprintf("group%zu", i);
	g->gpu_type = gpu_type ? xstrdup(gpu_type) : NULL;
	g->vc = vc ? xstrdup(vc) : NULL;
	return 0;
}

/*
 * "network": the fabric.  Its figures are bounded so that every rate the
 * speed model derives is positive and finite (experiments/README.md,
 * "Ranges of the model"); a run whose job would still end past the
 * clock's end is stopped by the engine.
 *  Unless uplinks are given, leaves are
 * non-blocking (oversubscription 1); the rest are net_spec_default's
 * figures (docs/network.md).
 */
static int parse_network(struct exp_ctx *c, const cJSON *v,
			 struct net_spec *n)
{
	static const char *const keys[] = { "nic_gbps", "uplinks",
					    "uplink_gbps", "oversubscription",
					    "latency_usec", "nvlink_gBps" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t m = exp_jp_key(c, "network");
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	if (!rc && (f[1] || f[2]) && f[3])
		rc = exp_fail(c, NULL, "give either 'uplinks' and "
			      "'uplink_gbps', or 'oversubscription', not both");
	if (!rc && (f[1] || f[2])) {
		n->oversubscription = 0;
		rc = exp_require(c, f[1], "uplinks");
		if (!rc)
			rc = exp_require(c, f[2], "uplink_gbps");
		if (!rc)
			rc = exp_get_u32(c, "uplinks", f[1], 1, &n->uplinks);
		if (!rc)
			rc = exp_get_number_in(c, "uplink_gbps", f[2], EXP_BW_MIN,
					       false, EXP_BW_MAX,
					       &n->uplink_gbps);
	}
	if (!rc)
		rc = exp_get_number_in(c, "nic_gbps", f[0], EXP_BW_MIN, false,
				       EXP_BW_MAX, &n->nic_gbps);
	if (!rc && f[3])
		rc = exp_get_number_in(c, "oversubscription", f[3], 1e-6,
				       false, 1e6, &n->oversubscription);
	if (!rc)
		rc = exp_get_number_in(c, "latency_usec", f[4], 0, false,
				       EXP_LATENCY_MAX, &n->latency_usec);
	if (!rc)
		rc = exp_get_number_in(c, "nvlink_gBps", f[5], EXP_BW_MIN,
				       false, EXP_BW_MAX, &n->nvlink_gBps);
	exp_jp_pop(c, m);
	return rc;
}

/* The fabric when none is given: non-blocking leaves. */
static void network_default(struct net_spec *n)
{
	net_spec_default(n);
	n->uplinks = 0;
	n->uplink_gbps = 0;
	n->oversubscription = 1;
}

/* A cluster object at the current path. */
static int parse_cluster_obj(struct exp_ctx *c, const cJSON *v,
			     struct cluster_spec *s, bool *from_trace,
			     struct net_spec *net)
{
	static const char *const keys[] = { "nodes", "from_trace",
					    "exclusive", "rack_nodes",
					    "network", "tenants",
					    "partitions" };
	const cJSON *f[ARRAY_SIZE(keys)];
	size_t i = 0, m;
	int rc = exp_obj_fields(c, v, keys, ARRAY_SIZE(keys), f);
	network_default(net);
	if (!rc)
		rc = exp_get_bool(c, "exclusive", f[2], &s->exclusive);
	if (!rc)
		rc = exp_get_u32(c, "rack_nodes", f[3], 0, &s->rack_nodes);
	if (!rc && f[4])
		rc = parse_network(c, f[4], net);
	if (!rc && f[5])
		rc = exp_parse_tenants(c, f[5], s);
	if (!rc && f[6])
		rc = exp_parse_partitions(c, f[6], s);
	if (rc)
		return rc;
	if (f[0] && f[1])
		return exp_fail(c, NULL, "give either 'nodes' or "
				"'from_trace', not both");
	if (f[1]) {
		rc = exp_get_bool(c, "from_trace", f[1], from_trace);
		if (!rc && !*from_trace)
			rc = exp_fail(c, "from_trace", "must be true when "
				      "given (else give 'nodes'), got "
				      "'false'");
		return rc;
	}
	if (!f[0])
		return exp_fail(c, NULL, "missing key 'nodes' (or "
				"'from_trace': true)");
	m = exp_jp_key(c, "nodes");
	rc = exp_array(c, f[0], "an array", true, &s->ngroups);
	if (rc)
		goto out;
	s->groups = xcalloc(s->ngroups, sizeof(*s->groups));
	for (const cJSON *it = f[0]->child; it && !rc; it = it->next, i++) {
		size_t mi = exp_jp_index(c, i);
		rc = parse_group(c, it, i, &s->groups[i]);
		exp_jp_pop(c, mi);
	}
out:
	exp_jp_pop(c, m);
	return rc;
}

/*
 * cluster_spec_check() names paths "$.cluster..."; in a separate cluster
 * file the object is at "$", so "$.cluster" is cut from its message.
 */
static void strip_cluster_prefix(char *msg, const char *prefix)
{
	size_t n = strlen(prefix), k = strlen("$.cluster");
	if (strncmp(msg, prefix, n) != 0 ||
	    strncmp(msg + n, "$.cluster", k) != 0)
		return;
	char next = msg[n + k];
	if (next == '.' || next == '[' || next == ':' || next == '\0')
		memmove(msg + n + 1, msg + n + k, strlen(msg + n + k) + 1);
}

/*
 * "cluster": an object, or a path to a JSON file holding one (read with
 * its own context: its messages name that file and start at "$").
 */
int exp_parse_cluster(struct exp_ctx *c, const cJSON *v, struct experiment *e)
{
	struct exp_ctx fc = { 0 }, *oc = c;
	const cJSON *obj = v;
	cJSON *root = NULL;
	char *file = NULL, *text = NULL, *fdir = NULL, *prefix = NULL;
	size_t len = 0;
	size_t m = exp_jp_key(c, "cluster");
	int rc = 0;

	if (cJSON_IsString(v)) {
		rc = exp_get_path(c, NULL, v, &file);
		if (rc)
			goto out;
		struct sim_error ferr;
		char sha[INPUT_SHA256_HEX];
		rc = exp_read_text(file, e->limits.input_bytes, &text, &len,
				   sha, &ferr);
		if (!rc)
			exp_note_input(e, file, sha); /* the manifest's */
		if (rc) {
			/* ferr names the file first: said once here */
			const char *why = ferr.msg;
			size_t fl = strlen(file);
			if (!strncmp(why, file, fl) && why[fl] == ':')
				why += fl + 1 + (why[fl + 1] == ' ');
			/* "cannot open: why" reads "cannot open 'FILE': why" */
			const char *sep = strncmp(why, "cannot ", 7) ? NULL :
					  strstr(why, ": ");
			if (sep)
				exp_fail(c, NULL, "%.*s '%s': %s",
					 (int)(sep - why), why, file, sep + 2);
			else
				exp_fail(c, NULL, "'%s': %s", file, why);
			goto out; /* -SIM_EIO when unreadable, as exp_load() */
		}
		rc = exp_parse_json(text, len, file, &root, c->err);
		if (rc)
			goto out;
		fdir = path_dirname(file);
		exp_ctx_init(&fc, file, fdir, c->err);
		oc = &fc;
		obj = root;
	} else if (!cJSON_IsObject(v)) {
		rc = exp_fail_type(c, NULL, "an object or a file name", v);
		goto out;
	}
	rc = parse_cluster_obj(oc, obj, &e->cluster, &e->cluster_from_trace,
			       &e->network);
	if (rc || e->cluster_from_trace)
		goto out;
	prefix = xasprintf("%s: ", oc->file);
	rc = cluster_spec_check(&e->cluster, prefix, c->err);
	if (!rc && e->cluster.ntenants)
		rc = cluster_tenants_check(&e->cluster, prefix, c->err);
	if (rc && file && c->err)
		strip_cluster_prefix(c->err->msg, prefix);
out:
	exp_ctx_release(&fc);
	cJSON_Delete(root);
	free(prefix);
	free(fdir);
	free(text);
	free(file);
	exp_jp_pop(c, m);
	return rc;
}
