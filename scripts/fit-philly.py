#!/usr/bin/env python3
"""Fits the "philly" generator preset to the Philly job summary.

Run from the repository root when the trace or the method changes:

    scripts/fit-philly.py [../shared/traces/gpu/philly.csv] > sim/workload/gen_philly_fit.c
    scripts/fit-philly.py --json [TRACE]      # the same figures as JSON

Input: philly.csv (Microsoft Philly, Sep-Dec 2017, as summarised by the
Pollux OSDI'21 artifact), columns timestamp,duration,num_gpus,gpu_time,
cluster; kept in ../shared/traces/gpu/ and never copied into this
repository.  Python 3 standard library only.

Method (docs/workloads.md says the same, with the figures):
  * Rows whose duration is not a finite number > 0, whose num_gpus is not
    an integer >= 1 or whose timestamp does not parse are dropped (counted).
  * GPUs per job: the empirical probability of every observed count (no
    merging: the rare sizes are kept as they are, so the GPU demand of the
    biggest jobs is not moved).
  * Duration, per GPU bucket (1, 2-4, 8, >8 GPUs): a lognormal by maximum
    likelihood (mu = mean of ln d, sigma = sqrt(mean of (ln d - mu)^2)),
    and a two-component lognormal mixture (a Gaussian mixture on ln d) by
    EM started from the lower and upper halves of the sorted logs.  The
    mixture is kept when the single lognormal is clearly poor (its
    Kolmogorov-Smirnov distance exceeds 0.05) and the mixture's distance
    is smaller.  The KS distance of both fits is printed.
  * Arrivals: Poisson; the mean interarrival is the span of the sorted
    submit times over (jobs - 1).  The KS distance of that exponential
    against the observed gaps, and the hour-of-day and day-of-week rate
    profiles (relative to the mean), are printed for the record; the
    generator does not model them.
"""
import csv
import datetime
import hashlib
import json
import math
import sys

# GPU buckets: (name, smallest, largest GPU count); None = no bound.
BUCKETS = [("1", 1, 1), ("2-4", 2, 4), ("8", 5, 8), (">8", 9, None)]
KS_POOR = 0.05      # a single lognormal with a larger KS distance is poor
EM_ITER = 2000
EM_TOL = 1e-10


def read_trace(path):
    """Returns (jobs, dropped, sha256) with jobs = [(t_s, dur_s, gpus)]."""
    jobs, dropped = [], 0
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                t = datetime.datetime.strptime(row["timestamp"],
                                               "%Y-%m-%d %H:%M:%S")
                d = float(row["duration"])
                g = int(row["num_gpus"])
            except (ValueError, TypeError, KeyError):
                dropped += 1
                continue
            if not (math.isfinite(d) and d > 0) or g < 1:
                dropped += 1
                continue
            t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
            jobs.append((t, d, g))
    return jobs, dropped, h.hexdigest()


def phi(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


def ks(sorted_x, cdf):
    """KS distance between the sample (sorted, ties allowed) and a
    continuous CDF: the largest gap at each distinct value, on either side
    of its jump."""
    n = len(sorted_x)
    d = 0.0
    i = 0
    while i < n:
        j = i
        while j < n and sorted_x[j] == sorted_x[i]:
            j += 1
        f = cdf(sorted_x[i])
        d = max(d, abs(f - i / n), abs(f - j / n))
        i = j
    return d


def lognormal_fit(logs):
    n = len(logs)
    mu = sum(logs) / n
    sd = math.sqrt(sum((y - mu) ** 2 for y in logs) / n)
    return mu, sd


def normpdf(y, mu, sd):
    z = (y - mu) / sd
    return math.exp(-0.5 * z * z) / (sd * math.sqrt(2 * math.pi))


def mixture_fit(logs):
    """Two-component Gaussian mixture on the logs by EM: (p, mu1, sd1,
    mu2, sd2), component 1 the one of smaller mu."""
    s = sorted(logs)
    half = len(s) // 2
    p = 0.5
    m1, s1 = lognormal_fit(s[:half])
    m2, s2 = lognormal_fit(s[half:])
    s1, s2 = max(s1, 1e-3), max(s2, 1e-3)
    prev = -math.inf
    for _ in range(EM_ITER):
        w1 = w1y = w1yy = 0.0
        ll = 0.0
        for y in logs:
            a = p * normpdf(y, m1, s1)
            b = (1 - p) * normpdf(y, m2, s2)
            t = a + b
            if t <= 0:
                r = 1.0 if abs(y - m1) < abs(y - m2) else 0.0
                t = 1e-300
            else:
                r = a / t
            ll += math.log(t)
            w1 += r
            w1y += r * y
            w1yy += r * y * y
        n = len(logs)
        ty = sum(logs)
        tyy = sum(y * y for y in logs)
        w2, w2y, w2yy = n - w1, ty - w1y, tyy - w1yy
        p = w1 / n
        m1, m2 = w1y / w1, w2y / w2
        s1 = math.sqrt(max(w1yy / w1 - m1 * m1, 1e-6))
        s2 = math.sqrt(max(w2yy / w2 - m2 * m2, 1e-6))
        if abs(ll - prev) < EM_TOL * abs(ll):
            break
        prev = ll
    if m2 < m1:
        p, m1, s1, m2, s2 = 1 - p, m2, s2, m1, s1
    return p, m1, s1, m2, s2


def fit_bucket(name, lo, hi, durs):
    x = sorted(durs)
    logs = [math.log(d) for d in x]
    mu, sd = lognormal_fit(logs)
    ks1 = ks(x, lambda v: phi((math.log(v) - mu) / sd))
    mix = mixture_fit(logs)
    p, m1, s1, m2, s2 = mix
    ksm = ks(x, lambda v: p * phi((math.log(v) - m1) / s1) +
             (1 - p) * phi((math.log(v) - m2) / s2))
    use_mix = ks1 > KS_POOR and ksm < ks1
    n = len(x)
    q = lambda f: x[min(n - 1, int(f * n))]
    return {
        "name": name, "min_gpus": lo, "max_gpus": hi or 0, "jobs": n,
        "mu": mu, "sigma": sd, "ks_lognormal": ks1,
        "mix": {"p": p, "mu1": m1, "sigma1": s1, "mu2": m2, "sigma2": s2},
        "ks_mixture": ksm, "use_mixture": use_mix,
        "ks": ksm if use_mix else ks1,
        "ks_critical_1pct": 1.63 / math.sqrt(n),
        "p25": q(0.25), "p50": q(0.5), "p90": q(0.9),
    }


def fit(path):
    jobs, dropped, sha = read_trace(path)
    n = len(jobs)
    counts = {}
    for _, _, g in jobs:
        counts[g] = counts.get(g, 0) + 1
    buckets = []
    for name, lo, hi in BUCKETS:
        durs = [d for _, d, g in jobs if g >= lo and (hi is None or g <= hi)]
        buckets.append(fit_bucket(name, lo, hi, durs))
    times = sorted(t for t, _, _ in jobs)
    mean_gap = (times[-1] - times[0]) / (n - 1)
    gaps = sorted(times[i + 1] - times[i] for i in range(n - 1))
    ks_gap = ks(gaps, lambda v: 1 - math.exp(-v / mean_gap))
    hours = [0] * 24
    days = [0] * 7
    for t in times:
        dt = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
        hours[dt.hour] += 1
        days[dt.weekday()] += 1
    # Rates relative to the mean (every hour and weekday occurs about
    # equally often over the 15 weeks).
    hour_rel = [h * 24 / n for h in hours]
    day_rel = [d * 7 / n for d in days]
    return {
        "source": path.rsplit("/", 1)[-1], "sha256": sha, "rows": n + dropped,
        "jobs": n, "dropped": dropped,
        "gpu_counts": sorted(counts.items()),
        "buckets": buckets,
        "interarrival_mean": mean_gap, "ks_interarrival": ks_gap,
        "zero_gaps": sum(1 for g in gaps if g == 0) / len(gaps),
        "span_s": times[-1] - times[0],
        "hour_rel": hour_rel, "weekday_rel": day_rel,
    }


def g17(v):
    return repr(float(v))


def emit_c(r):
    out = []
    w = out.append
    w("/*")
    w(" * GENERATED by scripts/fit-philly.py - do not edit; rerun it:")
    w(" *   scripts/fit-philly.py ../shared/traces/gpu/philly.csv \\")
    w(" *       > sim/workload/gen_philly_fit.c")
    w(" *")
    w(" * The \"philly\" preset of the workload generator (sim/workload/gen_dl.c):")
    w(" * distributions fitted to %s (Microsoft Philly, Sep-Dec 2017, the"
      % r["source"])
    w(" * Pollux OSDI'21 artifact's job summary), sha256 %s," % r["sha256"][:16])
    w(" * %d rows, %d dropped (duration <= 0 or GPUs < 1), %d jobs."
      % (r["rows"], r["dropped"], r["jobs"]))
    w(" *")
    w(" * GPUs per job: the empirical probability of each observed count.")
    w(" * Duration per GPU bucket: a lognormal by maximum likelihood (mu, sigma")
    w(" * of ln seconds), or a two-component lognormal mixture by EM where the")
    w(" * single lognormal's Kolmogorov-Smirnov distance exceeds %.2f and the"
      % KS_POOR)
    w(" * mixture's is smaller.  Arrivals: Poisson, mean interarrival =")
    w(" * span of submit times / (jobs - 1).  docs/workloads.md has the method")
    w(" * and the goodness of fit.")
    w(" *")
    w(" * bucket  jobs   KS lognormal  KS mixture  used")
    for b in r["buckets"]:
        w(" * %-6s %6d   %.4f        %.4f      %s"
          % (b["name"], b["jobs"], b["ks_lognormal"], b["ks_mixture"],
             "mixture" if b["use_mixture"] else "lognormal"))
    w(" * interarrival: mean %.3f s, KS of the exponential %.4f"
      % (r["interarrival_mean"], r["ks_interarrival"]))
    hr = r["hour_rel"]
    wr = r["weekday_rel"]
    w(" * (not modelled) hour-of-day rate %.2f-%.2f x mean, weekday %.2f-%.2f x"
      % (min(hr), max(hr), min(wr), max(wr)))
    w(" */")
    w('#include "gen_dl.h"')
    w("")
    w("const struct gen_fit gen_philly_fit = {")
    w('\t.name = "philly",')
    w("\t.jobs = %d," % r["jobs"])
    w("\t.interarrival_mean = %s," % g17(r["interarrival_mean"]))
    w("\t.ks_interarrival = %.4f," % r["ks_interarrival"])
    w("\t.nsizes = %d," % len(r["gpu_counts"]))
    w("\t.sizes = {")
    for g, c in r["gpu_counts"]:
        w("\t\t{ .gpus = %d, .jobs = %d }," % (g, c))
    w("\t},")
    w("\t.nbuckets = %d," % len(r["buckets"]))
    w("\t.buckets = {")
    for b in r["buckets"]:
        m = b["mix"]
        w("\t\t{ /* %s GPU(s): p25 %g s, p50 %g s, p90 %g s */"
          % (b["name"], b["p25"], b["p50"], b["p90"]))
        w("\t\t\t.min_gpus = %d, .max_gpus = %d, .jobs = %d,"
          % (b["min_gpus"], b["max_gpus"], b["jobs"]))
        w("\t\t\t.mu = %s, .sigma = %s," % (g17(b["mu"]), g17(b["sigma"])))
        w("\t\t\t.ks_lognormal = %.4f, .ks_mixture = %.4f,"
          % (b["ks_lognormal"], b["ks_mixture"]))
        w("\t\t\t.mixture = %s," % ("true" if b["use_mixture"] else "false"))
        w("\t\t\t.mix = { %s, /* p */" % g17(m["p"]))
        w("\t\t\t\t %s, %s, /* mu1, sigma1 */"
          % (g17(m["mu1"]), g17(m["sigma1"])))
        w("\t\t\t\t %s, %s }, /* mu2, sigma2 */"
          % (g17(m["mu2"]), g17(m["sigma2"])))
        w("\t\t},")
    w("\t},")
    w("};")
    return "\n".join(out) + "\n"


def main(argv):
    as_json = "--json" in argv
    args = [a for a in argv[1:] if a != "--json"]
    path = args[0] if args else "../shared/traces/gpu/philly.csv"
    r = fit(path)
    if as_json:
        json.dump(r, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(emit_c(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
