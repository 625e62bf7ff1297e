/*
 * Small shared helpers: allocation that aborts on exhaustion, error
 * messages, exact time formatting and atomic file writes.
 */
#ifndef CLUSTERSIM_UTIL_H
#define CLUSTERSIM_UTIL_H

#include <stdio.h>

#include "clustersim/clustersim.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Error codes returned (negated) by library functions. */
enum {
	SIM_EINPUT = 2, /* bad input: a trace, experiment or cluster */
	SIM_EIO = 3,    /* an operating-system error reading or writing */
	SIM_ESTATE = 4, /* a call that is not valid now (policy errors) */
};

/* Out of memory aborts with a message: there is nothing sensible to do. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (an array of *cap elements of size sz) to hold at least want. */
void xgrow(void *pp, size_t *cap, size_t want, size_t sz);
char *xstrdup(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Does s hold a control character (below 0x20, or DEL)?  Such a string
 * cannot go on one line of a generated script. */
bool str_has_control(const char *s);
/* Does s end with suffix? */
bool str_ends_with(const char *s, const char *suffix);

/* Fills err (if not NULL) and returns -SIM_EINPUT. */
int err_set(struct sim_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Same, with an explicit negative return code. */
int err_setc(struct sim_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The code of a failed file operation: -SIM_EIO for a failing disk
 * (full, over quota, an I/O error), -SIM_EINPUT for a path that cannot be
 * used (not writable, not a folder, a file in the way): bad usage. */
int err_io_code(int errnum);

/* A broken invariant: prints and aborts.  Never compiled out. */
_Noreturn void sim_bug(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define SIM_BUG(...) sim_bug(__FILE__, __LINE__, __VA_ARGS__)
#define SIM_ASSERT(cond)                                                     \
	do {                                                                 \
		if (!(cond))                                                 \
			SIM_BUG("assertion failed: %s", #cond);              \
	} while (0)

/* Seconds on the monotonic clock, for timing (never in results). */
double mono_seconds(void);

/*
 * Writes t (microseconds) as seconds, an exact decimal with trailing zeros
 * trimmed: 10000000 -> "10", 10500000 -> "10.5", -1 -> "-0.000001".
 * buf must hold 32 bytes.  Returns the length.
 */
int fmt_time(char *buf, sim_time_t t);
/* A ratio or fraction: six decimals, trailing zeros trimmed ("1.25"),
 * exponent form when that would not fit.  buf must hold 32 bytes. */
int fmt_double(char *buf, double v);

/* The largest integer every JSON reader reads exactly (a double's 53-bit
 * significand): a seed past it is written as a string of its digits. */
#define JSON_EXACT_MAX UINT64_C(9007199254740991)
/* seed as JSON text, read back exactly by any JSON reader: the number up
 * to JSON_EXACT_MAX, past it the digits in quotes ("18446744073709551615"),
 * the two forms an experiment's "seeds" take.  buf holds 24 bytes;
 * returns the length. */
int fmt_seed_json(char *buf, uint64_t seed);
/* Parses seconds given as a decimal string ("1.5", "-1", "2e3") into
 * microseconds, rounding to the nearest microsecond.  0 or -1 on error. */
int parse_seconds(const char *s, sim_time_t *out);
/* Seconds as a double to microseconds, rounded; -1 if out of range. */
int seconds_to_time(double s, sim_time_t *out);

/*
 * The largest time one input may give (a submit, a run time, an estimate,
 * a cost, an interval): 2^53 microseconds, about 9,007,199,254 s or 285
 * years.  Work is kept in doubles, exact up to here, and a sum of a few
 * such times stays far below the int64 clock's end (2^63 - 1).
 */
#define SIM_TIME_INPUT_MAX ((sim_time_t)1 << 53)

/*
 * Atomic file writes: output goes to "PATH.tmp.PID" and is renamed over
 * PATH by afile_commit(), so a crash never leaves a half-written file that
 * looks whole.  afile_abort() removes the temporary.
 */
struct afile {
	FILE *f;    /* write here */
	char *path; /* final name */
	char *tmp;  /* temporary name */
};
int afile_open(struct afile *af, const char *path, struct sim_error *err);
/* afile_open of dir/name. */
int afile_open_in(struct afile *af, const char *dir, const char *name,
		  struct sim_error *err);
int afile_commit(struct afile *af, struct sim_error *err);
void afile_abort(struct afile *af);
/* Writes a whole string to path atomically. */
int write_file_atomic(const char *path, const char *text,
		      struct sim_error *err);

/* mkdir -p; 0, or err_io_code() of what failed ("not a folder" for a
 * file in the way is -SIM_EINPUT). */
int mkdir_p(const char *path, struct sim_error *err);
/* Joins a directory and a relative path; an absolute path is returned as
 * is.  The caller frees. */
char *path_join(const char *dir, const char *rel);
/* The directory part of path ("." when none).  The caller frees. */
char *path_dirname(const char *path);
/* path as seen from the folder dir, both as the user wrote them (relative
 * ones to the working directory), without following symlinks: "../t/x"
 * for t/x from e/; an absolute path when the two share nothing but "/".
 * The caller frees. */
char *path_relative_to(const char *dir, const char *path);
/* The last component of path (a pointer into it). */
const char *path_basename(const char *path);

#endif
