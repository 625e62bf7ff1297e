/*
 * Typed reading of a cJSON tree for the experiment loader (internal to
 * exp*.c).  A struct exp_ctx follows the JSON path of the value being read
 * ("$.workload.window.end") so that every message reads
 * "FILE: $.json.path: message", with the offending value quoted and a
 * "did you mean" for a mistyped key.  The getters know nothing of the
 * schema: exp.c says which keys exist and what they hold.
 */
#ifndef CLUSTERSIM_EXP_JSON_H
#define CLUSTERSIM_EXP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/util.h"

/* Largest integer a JSON number (a double) holds exactly: 2^53 - 1. */
#define EXP_INT_MAX 9007199254740991.0
/* The model's ranges for rates (experiments/README.md, "Ranges of the
 * model"): bandwidths in Gb/s or GB/s, a link's latency in microseconds,
 * throughputs in steps/s (a step takes 1 us to 1e6 s). */
#define EXP_BW_MIN 1e-6
#define EXP_BW_MAX 1e9
#define EXP_LATENCY_MAX 1e9
#define EXP_THR_MIN 1e-6
#define EXP_THR_MAX 1e6

/* Room for a value shown in a message (cut to 60 characters). */
#define EXP_SHOW_MAX 80

/* Parsing state for one file. */
struct exp_ctx {
	const char *file;       /* the file named in messages */
	const char *dir;        /* folder that relative paths start from */
	struct sim_error *err;  /* where messages go */
	char *jp;               /* JSON path of the value being read */
	size_t jplen;           /* its length */
	size_t jpcap;           /* its allocated size */
};

void exp_ctx_init(struct exp_ctx *c, const char *file, const char *dir,
		  struct sim_error *err);
void exp_ctx_release(struct exp_ctx *c);

/*
 * The JSON path: exp_jp_key() appends ".key" (or "['key']" when key is not
 * an identifier), exp_jp_index() "[i]"; both return the old length, which
 * exp_jp_pop() goes back to.
 */
size_t exp_jp_key(struct exp_ctx *c, const char *key);
size_t exp_jp_index(struct exp_ctx *c, size_t i);
void exp_jp_pop(struct exp_ctx *c, size_t len);

/*
 * "FILE: $.path.key: message" (key NULL: the current path itself);
 * returns -SIM_EINPUT.
 */
int exp_fail(struct exp_ctx *c, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "expected WANT, got TYPE" at key. */
int exp_fail_type(struct exp_ctx *c, const char *key, const char *want,
		  const cJSON *v);

/* A value or a string for a message (quoted by the caller); buf holds
 * EXP_SHOW_MAX bytes. */
void exp_show(const cJSON *v, char *buf);
void exp_show_str(const char *s, char *buf);

/*
 * Checks that v (at the current path) is an object whose keys are all in
 * keys[], none twice, and sets out[i] to the value of keys[i] or NULL.
 * An unknown key is named with the closest known key or the whole list.
 */
int exp_obj_fields(struct exp_ctx *c, const cJSON *v,
		   const char *const *keys, size_t nkeys, const cJSON **out);
/* Levenshtein distance of two short strings (for a "did you mean");
 * SIZE_MAX when either is longer than 64 bytes. */
size_t exp_edit_distance(const char *a, const char *b);
/* "missing key 'KEY'" when v is NULL. */
int exp_require(struct exp_ctx *c, const cJSON *v, const char *key);
/* The required key "name" (v its value): a non-empty string, copied
 * into *out (owned by the caller). */
int exp_get_name(struct exp_ctx *c, const cJSON *v, char **out);
/* Checks that v (at the current path) is an array, non-empty when asked;
 * *n is its length.  want names it in a type error ("an array"). */
int exp_array(struct exp_ctx *c, const cJSON *v, const char *want,
	      bool nonempty, size_t *n);

/*
 * Value getters: v is the value of key in the object at the current path
 * (key NULL: v is at the current path itself).  When v is NULL the key was
 * not given and *out keeps its default.  Each returns 0 or -SIM_EINPUT.
 */
int exp_get_bool(struct exp_ctx *c, const char *key, const cJSON *v,
		 bool *out);
/* A non-empty string, borrowed from the tree. */
int exp_get_string(struct exp_ctx *c, const char *key, const cJSON *v,
		   const char **out);
/* A finite number; min_excl: "> min" rather than ">= min". */
int exp_get_number(struct exp_ctx *c, const char *key, const cJSON *v,
		   double min, bool min_excl, double *out);
/* A finite number in [min, max] (or (min, max] with min_excl). */
int exp_get_number_in(struct exp_ctx *c, const char *key, const cJSON *v,
		      double min, bool min_excl, double max, double *out);
/* An integer in [min, max] (max at most 2^53 - 1). */
int exp_get_uint(struct exp_ctx *c, const char *key, const cJSON *v,
		 uint64_t min, uint64_t max, uint64_t *out);
int exp_get_u32(struct exp_ctx *c, const char *key, const cJSON *v,
		uint32_t min, uint32_t *out);
/* Seconds (a number, as exp_get_number()) to microseconds, at most
 * SIM_TIME_INPUT_MAX. */
int exp_get_seconds(struct exp_ctx *c, const char *key, const cJSON *v,
		    double min, bool min_excl, sim_time_t *out);
/* One of names[]; *out is its index. */
int exp_get_enum(struct exp_ctx *c, const char *key, const cJSON *v,
		 const char *const *names, size_t n, int *out);
/* A non-empty array of numbers into a new array of *n. */
int exp_get_numbers(struct exp_ctx *c, const char *key, const cJSON *v,
		    double **out, size_t *n);
/* A path relative to c->dir (input_trace_path: a public trace's folder
 * may be moved by $CLUSTERSIM_TRACE_DIR), newly allocated (an old *out is
 * freed); a path with a control character is refused. */
int exp_get_path(struct exp_ctx *c, const char *key, const cJSON *v,
		 char **out);

/*
 * Reads a whole file (NUL-terminated; *len without the NUL) through the
 * shared input reader (base/input.h): a regular file of at most max_bytes
 * (0 = INPUT_MAX_BYTES), gzip inflated; the SHA-256 of its bytes goes to
 * sha256 (INPUT_SHA256_HEX bytes; may be NULL).  Returns 0, or a negative
 * code with "PATH: ..." in err (which may be NULL).
 */
int exp_read_text(const char *path, uint64_t max_bytes, char **out,
		  size_t *len, char *sha256, struct sim_error *err);
/*
 * Parses JSON text (len bytes; a NUL inside is an error, a UTF-8 byte
 * order mark is skipped).  Errors are "FILE:LINE: invalid JSON near '...'".
 */
int exp_parse_json(const char *text, size_t len, const char *file,
		   cJSON **out, struct sim_error *err);

#endif
