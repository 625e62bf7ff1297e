/*
 * Shared helpers: allocation, error messages, exact time formatting, and
 * atomic file writes.
 */
#include "base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

static _Noreturn void oom(size_t n)
{
	fprintf(stderr, "clustersim: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void xgrow(void *pp, size_t *cap, size_t want, size_t sz)
{
	void **p = pp;
	if (want <= *cap)
		return;
	size_t c = *cap ? *cap : 8;
	while (c < want)
		c *= 2;
	*p = xrealloc(*p, c * sz);
	*cap = c;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

bool str_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

bool str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return s;
}

__attribute__((format(printf, 3, 0)))
static int err_vset(struct sim_error *err, int code, const char *fmt,
		    va_list ap)
{
	if (err)
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int err_set(struct sim_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = err_vset(err, -SIM_EINPUT, fmt, ap);
	va_end(ap);
	return rc;
}

int err_setc(struct sim_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = err_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

int err_io_code(int errnum)
{
	switch (errnum) {
	case ENOSPC:
	case EDQUOT:
	case EIO:
	case EFBIG:
	case ENOMEM:
		return -SIM_EIO;
	default:
		return errnum ? -SIM_EINPUT : -SIM_EIO;
	}
}

void sim_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "clustersim: internal error at %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int fmt_time(char *buf, sim_time_t t)
{
	/* Work on the magnitude as unsigned so INT64_MIN is fine too. */
	uint64_t m = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
	uint64_t whole = m / 1000000u, frac = m % 1000000u;
	char *p = buf;
	if (t < 0)
		*p++ = '-';
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole);
	while (n)
		*p++ = tmp[--n];
	if (frac) {
		*p++ = '.';
		char d[6];
		for (int i = 5; i >= 0; i--) {
			d[i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		int len = 6;
		while (d[len - 1] == '0')
			len--;
		memcpy(p, d, (size_t)len);
		p += len;
	}
	*p = '\0';
	return (int)(p - buf);
}

int fmt_double(char *buf, double v)
{
	if (!isfinite(v))
		return sprintf(buf, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
	char tmp[400]; /* "%.6f" of DBL_MAX is 317 characters */
	int n = snprintf(tmp, sizeof(tmp), "%.6f", v);
	if (n >= 32) /* too large for a plain decimal: exponent form */
		return snprintf(buf, 32, "%.9e", v);
	while (tmp[n - 1] == '0')
		tmp[--n] = '\0';
	if (tmp[n - 1] == '.')
		tmp[--n] = '\0';
	if (strcmp(tmp, "-0") == 0)
		n = sprintf(tmp, "0");
	memcpy(buf, tmp, (size_t)n + 1);
	return n;
}

int fmt_seed_json(char *buf, uint64_t seed)
{
	if (seed <= JSON_EXACT_MAX)
		return sprintf(buf, "%" PRIu64, seed);
	return sprintf(buf, "\"%" PRIu64 "\"", seed);
}

int seconds_to_time(double s, sim_time_t *out)
{
	double us = s * 1e6;
	if (!isfinite(us) || us > 9.2e18 || us < -9.2e18)
		return -1;
	*out = (sim_time_t)llround(us);
	return 0;
}

int parse_seconds(const char *s, sim_time_t *out)
{
	/* Integers (the common case in traces) are converted exactly. */
	const char *p = s;
	int neg = 0;
	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (*p >= '0' && *p <= '9') {
		int64_t v = 0;
		while (*p >= '0' && *p <= '9') {
			if (v > (INT64_MAX / SIM_SEC - 10) / 10)
				return -1;
			v = v * 10 + (*p++ - '0');
		}
		if (*p == '\0') {
			*out = (neg ? -v : v) * SIM_SEC;
			return 0;
		}
	}
	char *end;
	errno = 0;
	double d = strtod(s, &end);
	if (end == s || *end != '\0' || errno)
		return -1;
	return seconds_to_time(d, out);
}

int afile_open(struct afile *af, const char *path, struct sim_error *err)
{
	af->path = xstrdup(path);
	af->tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	af->f = fopen(af->tmp, "w");
	if (!af->f) {
		int rc = err_setc(err, err_io_code(errno), "%s: cannot write: "
				  "%s", af->tmp, strerror(errno));
		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		return rc;
	}
	return 0;
}

int afile_open_in(struct afile *af, const char *dir, const char *name,
		  struct sim_error *err)
{
	char *path = path_join(dir, name);
	int rc = afile_open(af, path, err);
	free(path);
	return rc;
}

int afile_commit(struct afile *af, struct sim_error *err)
{
	int rc = 0;
	/* A failed write sets the stream's error and errno; fflush tells
	 * the errno of the last buffered bytes. */
	errno = 0;
	int flushed = fflush(af->f);
	int en = errno;
	int bad = ferror(af->f) || flushed != 0;
	if (fclose(af->f) != 0 && !bad) {
		bad = 1;
		en = errno;
	}
	if (bad) {
		/* Every write failure is the disk's, whatever errno says. */
		rc = err_setc(err, -SIM_EIO, "%s: write failed: %s", af->tmp,
			      strerror(en ? en : EIO));
		unlink(af->tmp);
	} else if (rename(af->tmp, af->path) != 0) {
		rc = err_setc(err, err_io_code(errno), "%s: cannot rename to "
			      "'%s': %s", af->tmp, af->path, strerror(errno));
		unlink(af->tmp);
	}
	af->f = NULL;
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	return rc;
}

void afile_abort(struct afile *af)
{
	if (af->f) {
		fclose(af->f);
		unlink(af->tmp);
	}
	af->f = NULL;
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
}

int write_file_atomic(const char *path, const char *text,
		      struct sim_error *err)
{
	struct afile af;
	int rc = afile_open(&af, path, err);
	if (rc)
		return rc;
	fputs(text, af.f);
	return afile_commit(&af, err);
}

int mkdir_p(const char *path, struct sim_error *err)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0777) != 0 && errno != EEXIST) {
				rc = err_setc(err, err_io_code(errno),
					      "%s: cannot create folder: %s", p,
					      strerror(errno));
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (!rc) {
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			rc = err_setc(err, -SIM_EINPUT, "%s: not a folder "
				      "(a file is in the way)", path);
	}
	free(p);
	return rc;
}

char *path_join(const char *dir, const char *rel)
{
	if (rel[0] == '/' || !dir || !*dir || strcmp(dir, ".") == 0)
		return xstrdup(rel);
	return xasprintf("%s/%s", dir, rel);
}

const char *path_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	size_t n = (size_t)(slash - path);
	char *d = xmalloc(n + 1);
	memcpy(d, path, n);
	d[n] = '\0';
	return d;
}

double mono_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* An absolute, lexically normal form of path: the working directory
 * prepended to a relative one, "." and "x/.." removed (no symlink is
 * followed: the name as the user wrote it). */
static char *path_absolute(const char *path)
{
	char *cwd = NULL, *full;
	if (path[0] != '/') {
		cwd = getcwd(NULL, 0);
		full = xasprintf("%s/%s", cwd ? cwd : "", path);
	} else {
		full = xstrdup(path);
	}
	free(cwd);
	char *out = xmalloc(strlen(full) + 2);
	size_t n = 0;
	for (char *save = NULL, *c = strtok_r(full, "/", &save); c;
	     c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		if (strcmp(c, "..") == 0) {
			while (n > 0 && out[--n] != '/')
				;
			continue;
		}
		out[n++] = '/';
		size_t k = strlen(c);
		memcpy(out + n, c, k);
		n += k;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	free(full);
	return out;
}

/* The length of the first component of s (s past its '/'). */
static size_t comp_len(const char *s)
{
	const char *e = strchr(s, '/');
	return e ? (size_t)(e - s) : strlen(s);
}

char *path_relative_to(const char *dir, const char *path)
{
	char *d = path_absolute(dir), *p = path_absolute(path);
	const char *a = d + 1, *b = p + 1; /* past the root */
	size_t shared = 0;
	/* Skip the components both share. */
	while (*a && *b) {
		size_t la = comp_len(a), lb = comp_len(b);
		if (la != lb || memcmp(a, b, la) != 0)
			break;
		a += la + (a[la] == '/');
		b += lb + (b[lb] == '/');
		shared++;
	}
	char *rel;
	if (shared == 0 && d[1] != '\0') {
		rel = p; /* nothing shared but the root: stays absolute */
		p = NULL;
		goto out;
	}
	size_t ups = *a ? 1 : 0;
	for (const char *s = a; *s; s++)
		ups += *s == '/';
	rel = xmalloc(3 * ups + strlen(b) + 2);
	rel[0] = '\0';
	for (size_t i = 0; i < ups; i++)
		strcat(rel, i + 1 < ups || *b ? "../" : "..");
	strcat(rel, *b || ups ? b : ".");
out:
	free(d);
	free(p);
	return rel;
}
