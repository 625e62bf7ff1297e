/*
 * Input files, read one way by every reader (traces, node and pod lists,
 * experiment and cluster files), so that each refuses the same things with
 * the same words:
 *
 *  - only a regular file is read ("-" for standard input, where the caller
 *    allows it): a folder, a FIFO or a device such as /dev/zero is refused
 *    before any byte is read, so that nothing hangs or fills the memory;
 *  - a file above a size limit is refused (INPUT_MAX_BYTES unless the
 *    caller gives another), and so is content that inflates beyond it;
 *  - gzip is recognised by content (the magic bytes) and inflated here:
 *    members follow each other (as gzip -c a b > c writes them), a stream
 *    cut short is an error, not an end, and so are bytes after the last
 *    member that do not start another valid member ("trailing garbage");
 *  - the line reader refuses a NUL byte, naming its file and line;
 *  - the SHA-256 of the file's bytes as read (compressed, as on disk) is
 *    kept, so that a manifest records what was read, not what the file
 *    holds later.
 *
 * Messages are "PATH: ..." (or "PATH:LINE: ..." from the line reader) with
 * -SIM_EINPUT for bad input and -SIM_EIO for an operating-system error.
 */
#ifndef CLUSTERSIM_INPUT_H
#define CLUSTERSIM_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nettle/sha2.h>
#include <zlib.h>

#include "clustersim/clustersim.h"

/* The default size limit of one input file, in bytes (16 GiB): raw, and
 * again once inflated. */
#define INPUT_MAX_BYTES ((uint64_t)16 << 30)
/* A SHA-256 as lowercase hex digits, with its NUL. */
#define INPUT_SHA256_HEX (2 * SHA256_DIGEST_SIZE + 1)

/* How a file is read. */
struct input_opts {
	uint64_t max_bytes; /* size limit, bytes; 0 = INPUT_MAX_BYTES */
	bool allow_stdin;   /* "-" is standard input (which may be a pipe) */
	bool threaded;      /* read and inflate in a helper thread, a block
	                       ahead of the lines (big traces) */
};

struct input_pipe;

struct input {
	const char *path;       /* for messages (not copied) */
	int fd;                 /* the file; -1 once closed */
	bool own_fd;            /* close fd at the end (not stdin's) */
	uint64_t max_bytes;     /* the size limit */
	uint64_t raw_bytes;     /* raw bytes read from fd */
	uint64_t out_bytes;     /* content bytes handed out */
	bool gzip;              /* the content is gzip (by its magic) */
	bool z_live;            /* z is initialised */
	bool member_end;        /* a gzip member just ended */
	bool eof;               /* fd is at its end */
	bool done;              /* the content ended and was checked */
	z_stream z;             /* the inflater of gzip content */
	unsigned char *raw;     /* raw bytes read, not yet used */
	size_t raw_cap;         /* allocated length of raw */
	struct sha256_ctx sha;  /* over the raw bytes */
	char sha256[INPUT_SHA256_HEX]; /* hex digest once done; "" before */
	/* The line reader. */
	char *buf;              /* content bytes not yet taken as lines */
	size_t cap;             /* allocated length of buf */
	size_t start, len;      /* unread bytes: buf[start .. len) */
	uint64_t line;          /* number of the last line returned */
	bool line_nl;           /* that line ended with '\n' */
	bool lines_end;         /* the content gave its last line */
	struct input_pipe *pipe; /* the helper thread, or NULL */
};

/*
 * Opens path (o NULL: the defaults) and checks that it is a regular file
 * within the size limit: 0, or a negative code with "PATH: ..." in err
 * (and nothing to close).  A FIFO is opened without blocking, refused.
 */
int input_open(struct input *in, const char *path,
	       const struct input_opts *o, struct sim_error *err);
/* What input_open() checks, without reading: 0, or a negative code with
 * "PATH: ..." in err (for validating an experiment's files). */
int input_check(const char *path, const struct input_opts *o,
		struct sim_error *err);
/*
 * Reads up to n bytes of content (inflated when gzip): the number read,
 * 0 at the end (the whole file read and checked, in->sha256 set), or a
 * negative code with "PATH: ..." in err.  Not with the line reader.
 */
long input_read(struct input *in, void *buf, size_t n, struct sim_error *err);
/*
 * The next line, without its '\n' (a CR before it is kept), NUL-terminated
 * in place, valid until the next call; *len its length, in->line its number
 * from 1, in->line_nl whether it had a '\n' (the last line may not).
 * Returns 1, 0 at the end (checked, in->sha256 set), or a negative code:
 * "PATH:LINE: NUL byte in the line" for a NUL byte.
 */
int input_line(struct input *in, char **line, size_t *len,
	       struct sim_error *err);
/* Closes the file and frees the buffers (the digest stays readable). */
void input_close(struct input *in);

/*
 * Reads a whole file into a new NUL-terminated buffer (*len without the
 * NUL), inflated when gzip, with its digest into sha256 (may be NULL).
 * 0 or a negative code with "PATH: ..." in err.
 */
int input_slurp(const char *path, const struct input_opts *o, char **out,
		size_t *len, char *sha256, struct sim_error *err);
/* The SHA-256 of a regular file's bytes (hex into sha256), read through
 * input_open: 0 or a negative code with "PATH: ..." in err. */
int input_sha256_file(const char *path, const struct input_opts *o,
		      char *sha256, struct sim_error *err);

/*
 * The public traces.  The shipped experiments name them by a path under
 * INPUT_TRACE_PREFIX, relative to the experiments/ folder (the traces
 * beside the checkout); traces/fetch-traces.sh fetches them into that
 * layout (hpc/, gpu/, ...).  INPUT_TRACE_DIR_ENV names another folder
 * holding the same layout.
 */
#define INPUT_TRACE_PREFIX "../../shared/traces/"
#define INPUT_TRACE_DIR_ENV "CLUSTERSIM_TRACE_DIR"
/* A path as an experiment file spells it (rel), joined to the file's folder
 * dir (path_join); when rel starts with INPUT_TRACE_PREFIX and
 * $CLUSTERSIM_TRACE_DIR is set and not empty, the rest of rel under that
 * folder instead.  The caller frees. */
char *input_trace_path(const char *dir, const char *rel);

#endif
