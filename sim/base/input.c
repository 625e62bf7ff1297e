/*
 * Input files (input.h): the checks every reader shares, in one place.
 *
 * gzip is inflated here with zlib's inflate rather than gzread, because
 * gzread hides two things a reader must see: after a member it skips any
 * bytes that are not another member ("trailing garbage"), and a stream cut
 * short reads as a plain end unless gzerror is asked.  Members are chained
 * by hand: at the end of one, the next bytes must be the gzip magic of the
 * next (inflate then checks its header), or the end of the file.
 *
 * The line reader keeps one buffer: lines are found with memchr and handed
 * out where they lie; a partial last line is moved to the front before the
 * next block is read behind it.  With opts.threaded a helper thread reads,
 * hashes and inflates one block ahead (inflating costs about as much as
 * parsing), so that the two overlap; the bytes and their order are the
 * same either way.
 */
#include "base/input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"

#define INPUT_BLOCK (1u << 20) /* content bytes read at a time */
#define INPUT_RAW (1u << 18)   /* raw bytes read at a time (gzip) */

static void pipe_start(struct input *in);

/* The helper thread's double buffer. */
struct input_pipe {
	pthread_t thread;
	pthread_mutex_t mu;     /* guards full, len, stop */
	pthread_cond_t cv;      /* signalled when full[] or stop changes */
	char *blk[2];           /* blocks, filled in turn by the thread */
	long len[2];            /* bytes in a full block; 0 end, < 0 error */
	bool full[2];           /* block ready for the reader */
	bool stop;              /* the reader is done: the thread ends */
	int next;               /* block the reader takes from next */
	size_t off;             /* bytes of blk[next] already taken */
	struct sim_error err;   /* the thread's message after an error */
};

static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a folder" : S_ISFIFO(m) ? "a FIFO" :
	       S_ISCHR(m) ? "a character device" :
	       S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" :
	       "not a plain file";
}

/* A file (or its inflated content: what = " once inflated") above the
 * size limit. */
static int too_big(const struct input *in, const char *what,
		   struct sim_error *err)
{
	return err_set(err, "%s: more than the input size limit of %" PRIu64
		       " bytes%s", in->path, in->max_bytes, what);
}

static void to_hex(const uint8_t *d, char *hex)
{
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
		hex[2 * i] = "0123456789abcdef"[d[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[d[i] & 15];
	}
	hex[2 * SHA256_DIGEST_SIZE] = '\0';
}

char *input_trace_path(const char *dir, const char *rel)
{
	const char *env = getenv(INPUT_TRACE_DIR_ENV);
	size_t n = strlen(INPUT_TRACE_PREFIX);
	if (env && *env && strncmp(rel, INPUT_TRACE_PREFIX, n) == 0)
		return path_join(env, rel + n);
	return path_join(dir, rel);
}

/* Whether a missing file is one of the public traces: under the shipped
 * experiments' trace folder or $CLUSTERSIM_TRACE_DIR. */
static bool public_trace(const char *path)
{
	const char *env = getenv(INPUT_TRACE_DIR_ENV);
	size_t n = env ? strlen(env) : 0;
	if (n && strncmp(path, env, n) == 0 &&
	    (path[n] == '/' || env[n - 1] == '/'))
		return true;
	return strstr(path, INPUT_TRACE_PREFIX + strlen("../../")) != NULL;
}

/* Opens path without blocking (a FIFO would wait for a writer) and checks
 * what it is; the file is looked at (stat) before it is opened, so that
 * no device is opened at all. */
static int open_checked(struct input *in, const char *path,
			struct sim_error *err)
{
	struct stat st;

	if (stat(path, &st) != 0) {
		int en = errno;
		return err_setc(err, -SIM_EIO, "%s: cannot open: %s%s", path,
				strerror(en),
				en == ENOENT && public_trace(path)
					? "; fetch the public traces with "
					  "traces/fetch-traces.sh"
					: "");
	}
	if (!S_ISREG(st.st_mode))
		return err_set(err, "%s: not a regular file (%s)", path,
			       kind_of(st.st_mode));
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_setc(err, -SIM_EIO, "%s: cannot open: %s", path,
				strerror(errno));
	if (fstat(fd, &st) != 0) {
		int en = errno;
		close(fd);
		return err_setc(err, -SIM_EIO, "%s: cannot open: %s", path,
				strerror(en));
	}
	if (!S_ISREG(st.st_mode)) { /* replaced since the stat */
		close(fd);
		return err_set(err, "%s: not a regular file (%s)", path,
			       kind_of(st.st_mode));
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	in->fd = fd;
	in->own_fd = true;
	if ((uint64_t)st.st_size > in->max_bytes) {
		close(fd);
		in->fd = -1;
		return too_big(in, "", err);
	}
	return 0;
}

/* read(2) of up to n raw bytes into dst, hashed and counted: the number
 * read, 0 at the end, or a negative code. */
static long raw_read(struct input *in, void *dst, size_t n,
		     struct sim_error *err)
{
	ssize_t got;

	do
		got = read(in->fd, dst, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return err_setc(err, -SIM_EIO, "%s: cannot read: %s", in->path,
				strerror(errno));
	if (got == 0) {
		in->eof = true;
		return 0;
	}
	in->raw_bytes += (uint64_t)got;
	if (in->raw_bytes > in->max_bytes)
		return too_big(in, "", err);
	sha256_update(&in->sha, (size_t)got, dst);
	return (long)got;
}

/* Tops up the raw buffer behind the z.avail_in bytes still unread. */
static int raw_fill(struct input *in, struct sim_error *err)
{
	size_t keep = in->z.avail_in;
	if (keep && in->z.next_in != in->raw)
		memmove(in->raw, in->z.next_in, keep);
	long got = raw_read(in, in->raw + keep, in->raw_cap - keep, err);
	if (got < 0)
		return (int)got;
	in->z.next_in = in->raw;
	in->z.avail_in = (uInt)(keep + (size_t)got);
	return 0;
}

static void finish(struct input *in)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(&in->sha, sizeof(d), d);
	to_hex(d, in->sha256);
	in->done = true;
}

int input_open(struct input *in, const char *path,
	       const struct input_opts *o, struct sim_error *err)
{
	struct input_opts def = { 0 };
	int rc;

	if (!o)
		o = &def;
	memset(in, 0, sizeof(*in));
	in->path = path;
	in->fd = -1;
	in->max_bytes = o->max_bytes ? o->max_bytes : INPUT_MAX_BYTES;
	sha256_init(&in->sha);
	if (o->allow_stdin && strcmp(path, "-") == 0) {
		struct stat st;
		if (fstat(0, &st) == 0 && S_ISDIR(st.st_mode))
			return err_set(err, "%s: not a regular file (%s)", path,
				       kind_of(st.st_mode));
		in->fd = 0;
	} else if ((rc = open_checked(in, path, err)) != 0) {
		return rc;
	}
	in->raw_cap = INPUT_RAW;
	in->raw = xmalloc(in->raw_cap);
	/* The first bytes say whether it is gzip. */
	while (in->z.avail_in < 2 && !in->eof)
		if ((rc = raw_fill(in, err)) != 0)
			goto fail;
	in->gzip = in->z.avail_in >= 2 && in->raw[0] == 0x1f &&
		   in->raw[1] == 0x8b;
	if (in->gzip) {
		if (inflateInit2(&in->z, 16 + MAX_WBITS) != Z_OK)
			abort(); /* out of memory, as xmalloc */
		in->z_live = true;
	}
	if (o->threaded)
		pipe_start(in);
	return 0;
fail:
	input_close(in);
	return rc;
}

int input_check(const char *path, const struct input_opts *o,
		struct sim_error *err)
{
	struct input in = { .path = path, .fd = -1 };
	in.max_bytes = o && o->max_bytes ? o->max_bytes : INPUT_MAX_BYTES;
	if (o && o->allow_stdin && strcmp(path, "-") == 0)
		return 0;
	int rc = open_checked(&in, path, err);
	if (!rc)
		close(in.fd);
	return rc;
}

/* At the end of a gzip member: the end of the file, or the magic of the
 * next member.  1 to go on, 0 at the end, or a negative code. */
static int next_member(struct input *in, struct sim_error *err)
{
	int rc;
	while (in->z.avail_in < 2 && !in->eof)
		if ((rc = raw_fill(in, err)) != 0)
			return rc;
	if (in->z.avail_in == 0)
		return 0;
	if (in->z.avail_in < 2 || in->z.next_in[0] != 0x1f ||
	    in->z.next_in[1] != 0x8b)
		return err_set(err, "%s: trailing garbage after the gzip data "
			       "(byte %" PRIu64 ")", in->path,
			       in->raw_bytes - in->z.avail_in);
	inflateReset(&in->z);
	in->member_end = false;
	return 1;
}

/* Up to n bytes of gzip content into dst. */
static long gz_read(struct input *in, void *dst, size_t n,
		    struct sim_error *err)
{
	int rc;

	if (n > UINT32_MAX)
		n = UINT32_MAX;
	for (;;) {
		if (in->member_end) {
			rc = next_member(in, err);
			if (rc <= 0)
				return rc;
		}
		if (in->z.avail_in == 0 && !in->eof &&
		    (rc = raw_fill(in, err)) != 0)
			return rc;
		in->z.next_out = dst;
		in->z.avail_out = (uInt)n;
		int zr = inflate(&in->z, Z_NO_FLUSH);
		size_t got = n - in->z.avail_out;
		if (zr == Z_STREAM_END)
			in->member_end = true;
		else if (zr != Z_OK && zr != Z_BUF_ERROR)
			return err_set(err, "%s: cannot read: invalid gzip "
				       "data: %s", in->path,
				       in->z.msg ? in->z.msg : "error");
		if (got)
			return (long)got;
		if (!in->member_end && in->z.avail_in == 0 && in->eof)
			return err_set(err, "%s: cannot read: gzip data cut "
				       "short (unexpected end of file)",
				       in->path);
	}
}

/* Up to n content bytes, without the thread. */
static long content_read(struct input *in, void *dst, size_t n,
			 struct sim_error *err)
{
	long got;

	if (in->done)
		return 0;
	if (in->gzip) {
		got = gz_read(in, dst, n, err);
	} else if (in->z.avail_in) {
		/* The bytes read to look for the gzip magic. */
		got = (long)(n < in->z.avail_in ? n : in->z.avail_in);
		memcpy(dst, in->z.next_in, (size_t)got);
		in->z.next_in += got;
		in->z.avail_in -= (uInt)got;
	} else {
		got = raw_read(in, dst, n > INT32_MAX ? INT32_MAX : n, err);
	}
	if (got == 0)
		finish(in);
	if (got > 0) {
		in->out_bytes += (uint64_t)got;
		if (in->out_bytes > in->max_bytes)
			return too_big(in, " once inflated", err);
	}
	return got;
}

/* ---- the helper thread ------------------------------------------------ */

static void *pipe_main(void *arg)
{
	struct input *in = arg;
	struct input_pipe *p = in->pipe;

	for (int i = 0;; i ^= 1) {
		pthread_mutex_lock(&p->mu);
		while (p->full[i] && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		bool stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		long got = content_read(in, p->blk[i], INPUT_BLOCK, &p->err);
		pthread_mutex_lock(&p->mu);
		p->len[i] = got;
		p->full[i] = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		if (got <= 0)
			break;
	}
	return NULL;
}

/* Starts the helper thread; without one (it cannot start) the reader
 * reads for itself. */
static void pipe_start(struct input *in)
{
	struct input_pipe *p = xcalloc(1, sizeof(*p));
	if (pthread_mutex_init(&p->mu, NULL) != 0)
		goto fail_p;
	if (pthread_cond_init(&p->cv, NULL) != 0)
		goto fail_mu;
	p->blk[0] = xmalloc(INPUT_BLOCK);
	p->blk[1] = xmalloc(INPUT_BLOCK);
	in->pipe = p;
	if (pthread_create(&p->thread, NULL, pipe_main, in) == 0)
		return;
	in->pipe = NULL;
	free(p->blk[0]);
	free(p->blk[1]);
	pthread_cond_destroy(&p->cv);
fail_mu:
	pthread_mutex_destroy(&p->mu);
fail_p:
	free(p);
}

/* Up to n content bytes from the thread's blocks. */
static long pipe_read(struct input *in, char *dst, size_t n,
		      struct sim_error *err)
{
	struct input_pipe *p = in->pipe;
	pthread_mutex_lock(&p->mu);
	while (!p->full[p->next])
		pthread_cond_wait(&p->cv, &p->mu);
	long len = p->len[p->next];
	pthread_mutex_unlock(&p->mu);
	if (len < 0) {
		if (err)
			*err = p->err;
		return len; /* stays full: the error is sticky */
	}
	if (len == 0)
		return 0;
	size_t take = (size_t)len - p->off;
	if (take > n)
		take = n;
	memcpy(dst, p->blk[p->next] + p->off, take);
	p->off += take;
	if (p->off == (size_t)len) {
		pthread_mutex_lock(&p->mu);
		p->full[p->next] = false;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		p->next ^= 1;
		p->off = 0;
	}
	return (long)take;
}

static void pipe_stop(struct input *in)
{
	struct input_pipe *p = in->pipe;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->blk[0]);
	free(p->blk[1]);
	free(p);
	in->pipe = NULL;
}

/* ---- reading ---------------------------------------------------------- */

long input_read(struct input *in, void *buf, size_t n, struct sim_error *err)
{
	if (in->pipe)
		return pipe_read(in, buf, n, err);
	return content_read(in, buf, n, err);
}

/* Reads the next block behind the unread bytes: 1, 0 at the end, or a
 * negative code. */
static int line_fill(struct input *in, struct sim_error *err)
{
	size_t avail = in->len - in->start;
	if (in->start) {
		memmove(in->buf, in->buf + in->start, avail);
		in->start = 0;
		in->len = avail;
	}
	/* One byte is kept spare for the NUL after a last line. */
	if (in->cap - in->len < INPUT_BLOCK / 2 + 1)
		xgrow(&in->buf, &in->cap, in->len + INPUT_BLOCK + 1, 1);
	size_t want = in->cap - in->len - 1;
	if (want > INPUT_BLOCK)
		want = INPUT_BLOCK;
	long got = input_read(in, in->buf + in->len, want, err);
	if (got < 0)
		return (int)got;
	in->len += (size_t)got;
	return got > 0;
}

int input_line(struct input *in, char **line, size_t *len,
	       struct sim_error *err)
{
	char *p, *nl;
	size_t n;
	int rc;

	for (;;) {
		/* Nothing read yet: no buffer, and no offset to add to it. */
		p = in->buf ? in->buf + in->start : NULL;
		n = in->len - in->start;
		nl = n ? memchr(p, '\n', n) : NULL;
		if (nl) {
			n = (size_t)(nl - p);
			in->start += n + 1;
			in->line_nl = true;
			break;
		}
		if (in->lines_end) {
			if (!n)
				return 0;
			in->start = in->len;
			in->line_nl = false;
			break;
		}
		rc = line_fill(in, err);
		if (rc < 0)
			return rc;
		in->lines_end = rc == 0;
	}
	p[n] = '\0';
	in->line++;
	if (memchr(p, '\0', n))
		return err_set(err, "%s:%" PRIu64 ": NUL byte in the line",
			       in->path, in->line);
	*line = p;
	*len = n;
	return 1;
}

void input_close(struct input *in)
{
	pipe_stop(in);
	if (in->z_live)
		inflateEnd(&in->z);
	in->z_live = false;
	if (in->own_fd && in->fd >= 0)
		close(in->fd);
	in->fd = -1;
	free(in->raw);
	in->raw = NULL;
	free(in->buf);
	in->buf = NULL;
	in->cap = in->start = in->len = 0;
}

int input_slurp(const char *path, const struct input_opts *o, char **out,
		size_t *len, char *sha256, struct sim_error *err)
{
	struct input in;
	size_t cap = 0, n = 0;
	char *buf = NULL;
	long got;
	int rc = input_open(&in, path, o, err);

	if (rc)
		return rc;
	do {
		xgrow(&buf, &cap, n + 65536, 1);
		got = input_read(&in, buf + n, cap - n - 1, err);
		if (got > 0)
			n += (size_t)got;
	} while (got > 0);
	input_close(&in);
	if (got < 0) {
		free(buf);
		return (int)got;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	if (sha256)
		memcpy(sha256, in.sha256, INPUT_SHA256_HEX);
	return 0;
}

int input_sha256_file(const char *path, const struct input_opts *o,
		      char *sha256, struct sim_error *err)
{
	struct input in;
	int rc = input_open(&in, path, o, err);
	long got;

	if (rc)
		return rc;
	/* The raw bytes, as they are on disk (input_open read the first). */
	in.z.avail_in = 0;
	while ((got = raw_read(&in, in.raw, in.raw_cap, err)) > 0)
		;
	if (got == 0)
		finish(&in);
	input_close(&in);
	if (got < 0)
		return (int)got;
	memcpy(sha256, in.sha256, INPUT_SHA256_HEX);
	return 0;
}
