/*
 * Tests of the shared input reader (sim/base/input.c) through every reader
 * that uses it: the five trace formats, the openb node and pod lists, and
 * the experiment and cluster files.  Each refuses the same things the same
 * way: what is not a regular file (a FIFO, /dev/zero, a folder) before
 * reading a byte, a file above the size limit, a gzip stream cut short,
 * bytes after the last gzip member, a NUL byte (FILE:LINE); and each keeps
 * the SHA-256 of the bytes it read, which the manifest records even when
 * the file is replaced after loading.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/input.h"
#include "base/util.h"
#include "exp/exp.h"
#include "exp/exp_json.h"
#include "fill/fill.h"
#include "report/out.h"
#include "sweep/sweep.h"
#include "workload/workload.h"

/* One reader: a good file of it, and the line where a NUL goes. */
struct in_fmt {
	const char *name;
	enum trace_format format; /* a trace format, unless openb */
	int openb;                /* 1 node list, 2 pod list, 0 a trace */
	const char *text;         /* a good file: a header (if any), jobs */
	int nul_line;             /* a line with a cell to cut */
};

#define SWF_ROW "1 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
#define GAVEL_ROW "ResNet-50 (batch size 64)\tpython3 main.py\tdir\t-n\t1" \
		  "\t2931\t1\t1\t-1\t0\n"

static const struct in_fmt in_fmts[] = {
	{ "swf", TRACE_SWF, 0, SWF_ROW "2 3 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 "
	  "-1 -1 -1\n", 2 },
	{ "csv", TRACE_CSV, 0, "id,submit,run,cpus\n1,0,100,1\n2,5,100,2\n",
	  3 },
	{ "philly", TRACE_PHILLY, 0, "timestamp,duration,num_gpus,gpu_time,"
	  "cluster\n2017-10-09 07:01:55,66.0,1,66.0,vcb\n"
	  "2017-10-09 07:02:55,60.0,1,60.0,vcb\n", 3 },
	{ "tiresias", TRACE_TIRESIAS, 0, "job_id,num_gpu,submit_time,"
	  "iterations,model_name,duration,interval\n1,1,0,100,vgg19,60,0\n"
	  "2,2,10,100,vgg19,60,0\n", 3 },
	{ "gavel", TRACE_GAVEL, 0, GAVEL_ROW GAVEL_ROW, 2 },
	{ "openb-nodes", TRACE_SWF, 1, "sn,cpu_milli,memory_mib,gpu,model\n"
	  "a,8000,1000,2,V100\nb,4000,500,1,V100\n", 3 },
	{ "openb-pods", TRACE_SWF, 2, "name,cpu_milli,memory_mib,num_gpu,"
	  "gpu_milli\np0,1000,10,1,500\np1,1000,10,1,1000\n", 3 },
};

static char in_dir[] = "/tmp/clustersim-input-XXXXXX";

static void in_setup(void)
{
	cr_assert_not_null(mkdtemp(in_dir));
}

static void in_teardown(void)
{
	char *cmd = xasprintf("rm -rf '%s'", in_dir);
	cr_assert_eq(system(cmd), 0);
	free(cmd);
}

TestSuite(input, .init = in_setup, .fini = in_teardown, .timeout = 30);

/* dir/name, new. */
static char *in_path(const char *name)
{
	return xasprintf("%s/%s", in_dir, name);
}

static void in_write(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

/* data as one gzip member into a new buffer of *out_n bytes. */
static unsigned char *in_gzip(const char *data, size_t n, size_t *out_n)
{
	z_stream z = { 0 };
	size_t cap = n + 256;
	unsigned char *out = xmalloc(cap);
	cr_assert_eq(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8,
				  Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_n = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/* Appends data (n bytes) to the file at path. */
static void in_append(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "ab");
	cr_assert_not_null(f);
	cr_assert_eq(fwrite(data, 1, n, f), n);
	cr_assert_eq(fclose(f), 0);
}

/* Loads path with the reader of f: its code; the jobs (pods, nodes) in *n
 * and the digest in sha (may be NULL). */
static int in_load(const struct in_fmt *f, const char *path,
		   uint64_t max_bytes, size_t *n, char *sha,
		   struct sim_error *err)
{
	int rc;
	*n = 0;
	if (f->openb) {
		struct frag_cluster c;
		struct openb_opts bo = { .max_bytes = max_bytes };
		frag_cluster_init(&c);
		if (f->openb == 1) {
			rc = openb_load_nodes(path, &bo, NULL, &c, sha, err);
			*n = c.nnodes;
		} else {
			/* The pods need the models of a node list. */
			char *nodes = in_path("models.csv");
			const char *t = in_fmts[5].text;
			in_write(nodes, t, strlen(t));
			cr_assert_eq(openb_load_nodes(nodes, NULL, NULL, &c,
						      NULL, err), 0);
			free(nodes);
			struct score_pod *pods = NULL;
			uint32_t nk;
			rc = openb_load_pods(path, &bo, NULL, &c, &pods, n, &nk,
					     sha, err);
			free(pods);
		}
		frag_cluster_release(&c);
		return rc;
	}
	struct trace_opts o;
	struct workload w;
	trace_opts_default(&o);
	o.format = f->format;
	o.max_bytes = max_bytes;
	rc = trace_load(path, &o, &w, err);
	*n = w.n;
	if (sha)
		memcpy(sha, w.sha256, INPUT_SHA256_HEX);
	workload_release(&w);
	return rc;
}

/* The SHA-256 of n bytes, hex. */
static void in_sha(const void *data, size_t n, char *hex)
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_init(&ctx);
	sha256_update(&ctx, n, data);
	sha256_digest(&ctx, sizeof(d), d);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", d[i]);
}

Test(input, every_reader_refuses_what_is_not_a_regular_file)
{
	char *fifo = in_path("fifo");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	const char *paths[] = { fifo, "/dev/zero", in_dir };
	const char *kinds[] = { "a FIFO", "a character device", "a folder" };
	for (size_t k = 0; k < ARRAY_SIZE(in_fmts); k++) {
		for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
			struct sim_error err;
			size_t n;
			int rc = in_load(&in_fmts[k], paths[i], 0, &n, NULL,
					 &err);
			char *want = xasprintf("%s: not a regular file (%s)",
					       paths[i], kinds[i]);
			cr_assert_eq(rc, -SIM_EINPUT, "%s %s: %d", in_fmts[k].name,
				     paths[i], rc);
			cr_assert_str_eq(err.msg, want);
			free(want);
		}
	}
	free(fifo);
}

Test(input, every_reader_reads_plain_and_gzip_and_keeps_the_digest)
{
	for (size_t k = 0; k < ARRAY_SIZE(in_fmts); k++) {
		const struct in_fmt *f = &in_fmts[k];
		char *path = in_path(f->name);
		char sha[INPUT_SHA256_HEX], want[INPUT_SHA256_HEX];
		struct sim_error err;
		size_t n, gn;
		in_write(path, f->text, strlen(f->text));
		cr_assert_eq(in_load(f, path, 0, &n, sha, &err), 0, "%s: %s",
			     f->name, err.msg);
		cr_assert_eq(n, 2, "%s", f->name);
		in_sha(f->text, strlen(f->text), want);
		cr_assert_str_eq(sha, want, "%s", f->name);
		/* gzip: the digest is of the compressed bytes, as on disk. */
		unsigned char *gz = in_gzip(f->text, strlen(f->text), &gn);
		in_write(path, gz, gn);
		cr_assert_eq(in_load(f, path, 0, &n, sha, &err), 0, "%s: %s",
			     f->name, err.msg);
		cr_assert_eq(n, 2, "%s", f->name);
		in_sha(gz, gn, want);
		cr_assert_str_eq(sha, want, "%s", f->name);
		free(gz);
		free(path);
	}
}

Test(input, every_reader_refuses_a_truncated_gzip)
{
	for (size_t k = 0; k < ARRAY_SIZE(in_fmts); k++) {
		const struct in_fmt *f = &in_fmts[k];
		char *path = in_path(f->name);
		size_t gn, n;
		unsigned char *gz = in_gzip(f->text, strlen(f->text), &gn);
		/* Cut in the compressed data, and in the 8-byte trailer. */
		const size_t cuts[] = { gn / 2, gn - 4, gn - 1 };
		for (size_t i = 0; i < ARRAY_SIZE(cuts); i++) {
			struct sim_error err;
			in_write(path, gz, cuts[i]);
			int rc = in_load(f, path, 0, &n, NULL, &err);
			char *want = xasprintf("%s: cannot read: gzip data cut "
					       "short (unexpected end of "
					       "file)", path);
			cr_assert_eq(rc, -SIM_EINPUT, "%s cut at %zu of %zu",
				     f->name, cuts[i], gn);
			cr_assert_str_eq(err.msg, want);
			free(want);
		}
		free(gz);
		free(path);
	}
}

Test(input, gzip_members_follow_each_other_and_trailing_garbage_is_an_error)
{
	for (size_t k = 0; k < ARRAY_SIZE(in_fmts); k++) {
		const struct in_fmt *f = &in_fmts[k];
		char *path = in_path(f->name);
		struct sim_error err;
		size_t n1, n2, n;
		/* Two members, cut between the last two lines: as one. */
		size_t len = strlen(f->text);
		size_t cut = (size_t)(strrchr(f->text, '\n') - f->text);
		while (f->text[cut - 1] != '\n')
			cut--;
		unsigned char *a = in_gzip(f->text, cut, &n1);
		unsigned char *b = in_gzip(f->text + cut, len - cut, &n2);
		in_write(path, a, n1);
		in_append(path, b, n2);
		cr_assert_eq(in_load(f, path, 0, &n, NULL, &err), 0, "%s: %s",
			     f->name, err.msg);
		cr_assert_eq(n, 2, "%s", f->name);
		/* Then bytes that are not a member. */
		static const char *const tails[] = { "garbage\n", "\0\0\0\0",
						     "\x1f" };
		static const size_t tail_len[] = { 8, 4, 1 };
		for (size_t i = 0; i < ARRAY_SIZE(tails); i++) {
			in_write(path, a, n1);
			in_append(path, b, n2);
			in_append(path, tails[i], tail_len[i]);
			char *want = xasprintf("%s: trailing garbage after the "
					       "gzip data (byte %zu)", path,
					       n1 + n2);
			cr_assert_eq(in_load(f, path, 0, &n, NULL, &err),
				     -SIM_EINPUT, "%s", f->name);
			cr_assert_str_eq(err.msg, want);
			free(want);
		}
		/* A second magic with a broken header: not a member either. */
		in_write(path, a, n1);
		in_append(path, "\x1f\x8b\x00\x00", 4);
		cr_assert_eq(in_load(f, path, 0, &n, NULL, &err), -SIM_EINPUT);
		cr_assert(strstr(err.msg, ": cannot read: "), "%s", err.msg);
		free(a);
		free(b);
		free(path);
	}
}

Test(input, every_reader_refuses_a_nul_byte_with_its_line)
{
	for (size_t k = 0; k < ARRAY_SIZE(in_fmts); k++) {
		const struct in_fmt *f = &in_fmts[k];
		char *path = in_path(f->name);
		size_t len = strlen(f->text), at = 0, n;
		for (int l = 1; l < f->nul_line; l++)
			at = (size_t)(strchr(f->text + at, '\n') - f->text) + 1;
		/* "1<NUL>00": a cell cut by a NUL after its first byte. */
		char *t = xmalloc(len + 1);
		memcpy(t, f->text, at + 1);
		t[at + 1] = '\0';
		memcpy(t + at + 2, f->text + at + 1, len - at - 1);
		for (int gz = 0; gz < 2; gz++) {
			struct sim_error err;
			size_t gn;
			unsigned char *g = gz ? in_gzip(t, len + 1, &gn) : NULL;
			in_write(path, gz ? (void *)g : t, gz ? gn : len + 1);
			free(g);
			char *want = xasprintf("%s:%d: NUL byte in the line",
					       path, f->nul_line);
			cr_assert_eq(in_load(f, path, 0, &n, NULL, &err),
				     -SIM_EINPUT, "%s", f->name);
			cr_assert_str_eq(err.msg, want);
			free(want);
		}
		free(t);
		free(path);
	}
}

Test(input, the_size_limit_is_the_callers)
{
	/* Lines enough to compress well below what they inflate to. */
	char *big = xmalloc(64 * 1024);
	strcpy(big, "id,submit,run,cpus\n");
	for (int i = 1; i <= 1000; i++)
		sprintf(big + strlen(big), "%d,0,100,1\n", i);
	const struct in_fmt f = { "csv", TRACE_CSV, 0, big, 0 };
	char *path = in_path("big.csv");
	struct sim_error err;
	size_t n, gn;
	size_t len = strlen(big);
	in_write(path, big, len);
	cr_assert_eq(in_load(&f, path, len, &n, NULL, &err), 0, "%s",
		     err.msg);
	cr_assert_eq(n, 1000);
	char *want = xasprintf("%s: more than the input size limit of %zu "
			       "bytes", path, len - 1);
	cr_assert_eq(in_load(&f, path, len - 1, &n, NULL, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, want);
	free(want);
	/* Compressed within the limit, inflated beyond it. */
	unsigned char *gz = in_gzip(big, len, &gn);
	cr_assert_lt(gn, len / 4);
	in_write(path, gz, gn);
	want = xasprintf("%s: more than the input size limit of %zu bytes "
			 "once inflated", path, len / 2);
	cr_assert_eq(in_load(&f, path, len / 2, &n, NULL, &err), -SIM_EINPUT);
	cr_assert_str_eq(err.msg, want);
	free(want);
	/* The default admits it, and so does trace_opts_default. */
	struct trace_opts o;
	trace_opts_default(&o);
	cr_assert_eq(o.max_bytes, INPUT_MAX_BYTES);
	cr_assert_eq(INPUT_MAX_BYTES, (uint64_t)16 << 30);
	cr_assert_eq(in_load(&f, path, 0, &n, NULL, &err), 0, "%s", err.msg);
	free(gz);
	free(path);
	free(big);
}

/* An experiment naming a cluster file and a trace. */
static char *in_experiment(const char *cluster)
{
	char *path = in_path("e.json");
	char *text = xasprintf("{\"cluster\": %s,\n \"workload\": {\"trace\": "
			       "\"t.swf\"},\n \"policies\": [\"fcfs\"]}\n",
			       cluster);
	in_write(path, text, strlen(text));
	free(text);
	return path;
}

Test(input, experiment_and_cluster_files_that_are_not_regular_files)
{
	char *fifo = in_path("fifo.json");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	const char *paths[] = { fifo, "/dev/zero", in_dir };
	const char *kinds[] = { "a FIFO", "a character device", "a folder" };
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct experiment e;
		struct sim_error err;
		char *want = xasprintf("%s: not a regular file (%s)", paths[i],
				       kinds[i]);
		cr_assert_eq(exp_load(paths[i], &e, &err), -SIM_EINPUT);
		cr_assert_str_eq(err.msg, want);
		free(want);
		/* The same file as the experiment's cluster. */
		char *q = xasprintf("\"%s\"", paths[i]);
		char *ep = in_experiment(q);
		want = xasprintf("%s: $.cluster: '%s': not a regular file (%s)",
				 ep, paths[i], kinds[i]);
		cr_assert_eq(exp_load(ep, &e, &err), -SIM_EINPUT);
		cr_assert_str_eq(err.msg, want);
		free(want);
		free(ep);
		free(q);
	}
	free(fifo);
}

Test(input, the_manifest_hashes_what_was_read_not_what_is_there_later)
{
	const char *trace = SWF_ROW;
	char *tpath = in_path("t.swf");
	in_write(tpath, trace, strlen(trace));
	char *epath = in_experiment("{\"nodes\": [{\"count\": 1, \"cpus\": 4}]}");
	struct experiment e;
	struct workload w;
	struct sim_error err;
	cr_assert_eq(exp_load(epath, &e, &err), 0, "%s", err.msg);
	cr_assert_eq(trace_load(e.workload.trace, &e.workload.opts, &w, &err),
		     0, "%s", err.msg);
	exp_note_input(&e, e.workload.trace, w.sha256);
	char esha[INPUT_SHA256_HEX], tsha[INPUT_SHA256_HEX];
	char *etext = NULL;
	size_t elen;
	cr_assert_eq(exp_read_text(epath, 0, &etext, &elen, esha, &err), 0);
	in_sha(trace, strlen(trace), tsha);
	cr_assert_str_eq(w.sha256, tsha);
	cr_assert_str_eq(exp_input_sha256(&e, epath), esha);
	/* Both files replaced after loading: the manifest keeps what was
	 * read. */
	in_write(tpath, "2 0 -1 5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n", 46);
	in_write(epath, "{}\n", 3);
	char *m = out_manifest_text(&e, NULL, 0, &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_assert(strstr(m, esha), "%s", m);
	cr_assert(strstr(m, tsha), "%s", m);
	/* A file never read (a plug-in) is hashed when the manifest is made,
	 * through the same checks: a FIFO does not hang it. */
	char *fifo = in_path("p.so");
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	e.plugins = xrealloc(e.plugins, (e.nplugins + 1) * sizeof(char *));
	e.plugins[e.nplugins++] = fifo;
	cr_assert_null(out_manifest_text(&e, NULL, 0, &err));
	char *want = xasprintf("%s: not a regular file (a FIFO)", fifo);
	cr_assert_str_eq(err.msg, want);
	free(want);
	free(m);
	free(etext);
	workload_release(&w);
	exp_release(&e);
	free(epath);
	free(tpath);
}

Test(input, a_cluster_file_is_an_input_read_within_the_limits)
{
	const char *cl = "{\"nodes\": [{\"count\": 2, \"cpus\": 4}]}\n";
	char *cpath = in_path("c.json"), *tpath = in_path("t.swf");
	in_write(cpath, cl, strlen(cl));
	in_write(tpath, SWF_ROW, strlen(SWF_ROW));
	char *epath = in_experiment("\"c.json\"");
	struct experiment e;
	struct sim_error err;
	cr_assert_eq(exp_load(epath, &e, &err), 0, "%s", err.msg);
	char csha[INPUT_SHA256_HEX];
	in_sha(cl, strlen(cl), csha);
	in_write(cpath, "{}\n", 3); /* replaced after loading */
	char *m = out_manifest_text(&e, NULL, 0, &err);
	cr_assert_not_null(m, "%s", err.msg);
	/* Named from the experiment's folder, which holds it. */
	char *want = xasprintf("\"path\":\t\"%s\",\n\t\t\t\"sha256\":\t\"%s\"",
			       path_basename(cpath), csha);
	cr_assert(strstr(m, want), "no %s in %s", want, m);
	free(want);
	free(m);
	exp_release(&e);
	/* $.limits.input_bytes bounds the cluster file too (37 bytes). */
	in_write(cpath, cl, strlen(cl));
	char *text = xasprintf("{\"cluster\": \"c.json\", \"limits\": "
			       "{\"input_bytes\": 36},\n \"workload\": "
			       "{\"trace\": \"t.swf\"},\n \"policies\": "
			       "[\"fcfs\"]}\n");
	in_write(epath, text, strlen(text));
	free(text);
	cr_assert_lt(exp_load(epath, &e, &err), 0);
	cr_assert(strstr(err.msg, "c.json") && strstr(err.msg, "36"), "%s",
		  err.msg);
	free(epath);
	free(cpath);
	free(tpath);
}

Test(input, standard_input_only_where_the_caller_allows_it)
{
	struct input in;
	struct sim_error err;
	/* "-" is a file name unless allowed. */
	cr_assert_eq(input_open(&in, "-", NULL, &err), -SIM_EIO);
	cr_assert_str_eq(err.msg, "-: cannot open: No such file or "
			 "directory");
	/* Allowed, a pipe reads to its end. */
	int fd[2], saved = dup(0);
	cr_assert_eq(pipe(fd), 0);
	cr_assert_eq(write(fd[1], "a\nb", 3), 3);
	close(fd[1]);
	dup2(fd[0], 0);
	close(fd[0]);
	struct input_opts io = { .allow_stdin = true };
	cr_assert_eq(input_open(&in, "-", &io, &err), 0, "%s", err.msg);
	char *line;
	size_t n;
	cr_assert_eq(input_line(&in, &line, &n, &err), 1);
	cr_assert_str_eq(line, "a");
	cr_assert(in.line_nl);
	cr_assert_eq(input_line(&in, &line, &n, &err), 1);
	cr_assert_str_eq(line, "b");
	cr_assert_not(in.line_nl);
	cr_assert_eq(input_line(&in, &line, &n, &err), 0);
	char want[INPUT_SHA256_HEX];
	in_sha("a\nb", 3, want);
	cr_assert_str_eq(in.sha256, want);
	input_close(&in);
	dup2(saved, 0);
	close(saved);
}

Test(input, a_sweep_manifest_hashes_the_file_as_it_was_loaded)
{
	char *tpath = in_path("t.swf");
	in_write(tpath, SWF_ROW, strlen(SWF_ROW));
	char *epath = in_experiment("{\"nodes\": [{\"count\": 1, \"cpus\": 4}]}");
	char *text = NULL, sha[INPUT_SHA256_HEX];
	size_t len;
	struct sim_error err;
	cr_assert_eq(exp_read_text(epath, 0, &text, &len, sha, &err), 0);
	struct sweep sw;
	cr_assert_eq(sweep_load(epath, &sw, &err), 0, "%s", err.msg);
	cr_assert_str_eq(sw.sha256, sha);
	in_write(epath, "{}\n", 3); /* replaced after loading */
	char *out = in_path("out");
	cr_assert_eq(sweep_write_manifest(&sw, out, &err), 0, "%s", err.msg);
	char *mpath = in_path("out/manifest.json"), *m = NULL;
	cr_assert_eq(exp_read_text(mpath, 0, &m, &len, NULL, &err), 0);
	cr_assert(strstr(m, sha), "%s", m);
	free(m);
	free(mpath);
	free(out);
	free(text);
	sweep_release(&sw);
	free(epath);
	free(tpath);
}

Test(input, openb_lists_are_bounded_by_the_node_and_job_limits)
{
	const char *nodes = in_fmts[5].text, *pods = in_fmts[6].text;
	char *np = in_path("nodes.csv"), *pp = in_path("pods.csv");
	in_write(np, nodes, strlen(nodes));
	in_write(pp, pods, strlen(pods));
	struct frag_cluster c;
	struct sim_error err;
	/* Two nodes and two pods: a limit of 2 admits them, 1 does not. */
	struct openb_opts bo = { .max_nodes = 1, .max_pods = 2 };
	frag_cluster_init(&c);
	cr_assert_lt(openb_load_nodes(np, &bo, NULL, &c, NULL, &err), 0);
	char *want = xasprintf("%s:3: more than 1 nodes, the limit: raise "
			       "$.limits.nodes", np);
	cr_assert_str_eq(err.msg, want);
	free(want);
	frag_cluster_release(&c);
	frag_cluster_init(&c);
	bo.max_nodes = 2;
	cr_assert_eq(openb_load_nodes(np, &bo, NULL, &c, NULL, &err), 0, "%s",
		     err.msg);
	struct score_pod *p = NULL;
	size_t n;
	uint32_t nk;
	cr_assert_eq(openb_load_pods(pp, &bo, NULL, &c, &p, &n, &nk, NULL,
				     &err), 0, "%s", err.msg);
	cr_assert_eq(n, 2);
	free(p);
	p = NULL;
	bo.max_pods = 1;
	cr_assert_lt(openb_load_pods(pp, &bo, NULL, &c, &p, &n, &nk, NULL,
				     &err), 0);
	cr_assert(strstr(err.msg, ":3: more than 1 pods, the limit: raise "
			 "$.limits.jobs"), "%s", err.msg);
	free(p);
	frag_cluster_release(&c);
	free(np);
	free(pp);
}
