/*
 * The fast formatters of the result files that hold a row per job
 * (jobs.csv, jobs.swf, allocations.csv): integers, exact times and ratios
 * written with the same text as base/util.h's fmt_time and fmt_double,
 * without printf.  Each writes at p and returns the new end.  Private to
 * the report wing.
 */
#ifndef CLUSTERSIM_OUT_FMT_H
#define CLUSTERSIM_OUT_FMT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "clustersim/clustersim.h"

/* ---- fast formatters: each writes at p and returns the new end ---- */

static const char out_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233"
	"34353637383940414243444546474849505152535455565758596061626364656667"
	"6869707172737475767778798081828384858687888990919293949596979899";

static inline char *put_u64(char *p, uint64_t v)
{
	char tmp[24];
	char *q = tmp + sizeof(tmp);
	while (v >= 100) {
		q -= 2;
		memcpy(q, out_digits2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, out_digits2 + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof(tmp) - q);
	memcpy(p, q, n);
	return p + n;
}

static inline char *put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return put_u64(p, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* The same text as fmt_time (exact seconds, trailing zeros trimmed), two
 * digits at a time: jobs.csv has seven times per row. */
static inline char *put_time(char *p, sim_time_t t)
{
	uint64_t m = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
	uint32_t frac = (uint32_t)(m % 1000000u);
	if (t < 0)
		*p++ = '-';
	p = put_u64(p, m / 1000000u);
	if (frac) {
		*p++ = '.';
		memcpy(p, out_digits2 + 2 * (frac / 10000), 2);
		memcpy(p + 2, out_digits2 + 2 * (frac / 100 % 100), 2);
		memcpy(p + 4, out_digits2 + 2 * (frac % 100), 2);
		p += 6;
		while (p[-1] == '0')
			p--;
	}
	return p;
}

/*
 * The same text as fmt_double (six decimals, "%.6f", trimmed) without
 * printf in the common case.  s = v x 10^6 is off from the exact product
 * by at most half an ulp (< 10^-4 below 10^12), so where s is farther than
 * that from a rounding tie, rounding s and rounding the exact value agree,
 * and the digits are those of an integer count of millionths.
 */
static inline char *put_ratio(char *p, double v)
{
	if (fabs(v) < 1e9) {
		/* v x 1e6 carries a rounding error of a few ulps: only when
		 * its fraction is clearly away from one half is rounding it
		 * the same as printf's exact decimal rounding. */
		double s = v * 1e6;
		double fl = floor(s);
		double frac = s - fl;
		if (fabs(frac - 0.5) > 1e-3 + fabs(s) * 4e-16)
			return put_time(p, (int64_t)fl + (frac > 0.5));
	}
	return p + fmt_double(p, v);
}

/* A cell of text, quoted when it holds a comma or a quote (RFC 4180),
 * cut to 200 bytes so that a row stays within its buffer margin. */
static inline char *put_text(char *p, const char *s)
{
	size_t n = strlen(s);
	if (n > 200)
		n = 200;
	if (!memchr(s, ',', n) && !memchr(s, '"', n)) {
		memcpy(p, s, n);
		return p + n;
	}
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			*p++ = '"';
		*p++ = s[i];
	}
	*p++ = '"';
	return p;
}

#endif
