#!/usr/bin/env python3
"""Sizes one partition per Philly virtual cluster (VC) from the trace and
writes experiments/philly-vc.json (docs/philly.md explains the choice).

Each job of the Philly summary (timestamp,duration,num_gpus,gpu_time,
cluster) holds num_gpus GPUs during [timestamp, timestamp + duration):
its run as if it had started when submitted (the timestamp is the submit
time, as sim/workload/trace_philly.c reads it; the summary has no start time).  A
VC's concurrent GPU demand is a step function of time; its size is the
QUANTILE (default 0.99) of that function, weighted by time, over the VC's
active span (its first submit to its last end), at least its largest job,
rounded up to whole nodes of 8 GPUs.  Why not the peak: with no queueing
the peak is one burst (a VC's peak is up to 3.2 times its 0.99 point),
and a cluster sized to it would never make a job wait.

Usage: scripts/size-philly-vcs.py [--trace FILE] [--out FILE]
       [--quantile Q] [--print]
Python 3 standard library only; output is deterministic.
"""
import argparse
import calendar
import csv
import json
import math
import os
import sys
import time

GPUS_PER_NODE = 8
CPUS_PER_NODE = 32
GPU_TYPE = "p100"


def parse_time(s):
    """Seconds since the Unix epoch of "YYYY-MM-DD HH:MM:SS" taken as UTC."""
    return calendar.timegm(time.strptime(s.strip(), "%Y-%m-%d %H:%M:%S"))


def read_trace(path):
    """{vc: [(start, end, gpus)]}, skipping rows the simulator drops too
    (no GPUs, no positive duration)."""
    jobs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                t = parse_time(row["timestamp"])
                d = float(row["duration"])
                g = int(row["num_gpus"])
            except (KeyError, ValueError):
                continue
            if g <= 0 or d <= 0:
                continue
            jobs.setdefault(row["cluster"], []).append((t, t + d, g))
    return jobs


def demand_quantile(intervals, q):
    """(time-weighted q-quantile, peak) of the concurrent GPU demand over
    the active span [first start, last end)."""
    ev = []
    for s, e, g in intervals:
        ev.append((s, g))
        ev.append((e, -g))
    ev.sort()
    weight = {}  # demand level -> seconds spent at it
    cur = peak = 0
    last = ev[0][0]
    for t, g in ev:
        if t > last:
            weight[cur] = weight.get(cur, 0.0) + (t - last)
            last = t
        cur += g
        peak = max(peak, cur)
    span = sum(weight.values())
    acc = 0.0
    for level in sorted(weight):
        acc += weight[level]
        if acc >= q * span:
            return level, peak
    return peak, peak


def size_vcs(jobs, q):
    """[(vc, nodes, quantile demand, peak, largest job, jobs)], by name."""
    out = []
    for vc in sorted(jobs):
        level, peak = demand_quantile(jobs[vc], q)
        largest = max(g for _, _, g in jobs[vc])
        gpus = max(level, largest)
        nodes = max(1, math.ceil(gpus / GPUS_PER_NODE))
        out.append((vc, nodes, level, peak, largest, len(jobs[vc])))
    return out


def experiment(sizes, trace_rel):
    nodes = [{"name": "vc-" + vc, "count": n, "cpus": CPUS_PER_NODE,
              "gpus": GPUS_PER_NODE, "gpu_type": GPU_TYPE, "vc": vc}
             for vc, n, _, _, _, _ in sizes]
    return {
        "name": "philly-vc",
        "cluster": {"nodes": nodes, "rack_nodes": 16},
        "workload": {"trace": trace_rel, "format": "philly",
                     "reference_gpu": GPU_TYPE},
        "policies": [
            "fcfs",
            "sjf",
            "easy",
            "conservative",
            {"name": "las", "params": {"thresholds_s": "3600,36000"}},
        ],
        "preemption": {"restore_overhead": 30},
        "seeds": [1],
        "output": "../results/philly-vc",
    }


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tdir = os.environ.get("CLUSTERSIM_TRACE_DIR",
                          os.path.join(root, "..", "shared", "traces"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=os.path.join(tdir, "gpu",
                                                    "philly.csv"))
    ap.add_argument("--out", default=os.path.join(root, "experiments",
                                                  "philly-vc.json"))
    ap.add_argument("--quantile", type=float, default=0.99)
    ap.add_argument("--print", action="store_true",
                    help="print the table, write nothing")
    a = ap.parse_args()
    if not 0 < a.quantile <= 1:
        sys.exit("size-philly-vcs: --quantile must be in (0, 1], got '%s'"
                 % a.quantile)
    try:
        jobs = read_trace(a.trace)
    except OSError as e:
        sys.exit("size-philly-vcs: %s: cannot read: %s" % (a.trace,
                                                           e.strerror))
    if not jobs:
        sys.exit("size-philly-vcs: %s: no jobs" % a.trace)
    sizes = size_vcs(jobs, a.quantile)
    print("%-8s %6s %6s %10s %6s %7s %6s" % ("vc", "jobs", "largest",
          "q-demand", "peak", "nodes", "gpus"))
    for vc, n, level, peak, largest, nj in sizes:
        print("%-8s %6d %6d %10d %6d %7d %6d" % (vc, nj, largest, level,
              peak, n, n * GPUS_PER_NODE))
    total = sum(s[1] for s in sizes)
    print("total: %d nodes, %d gpus" % (total, total * GPUS_PER_NODE))
    if a.print:
        return
    # The experiment file names the trace relative to its own folder, as
    # experiments/philly.json does.
    rel = os.path.relpath(os.path.abspath(a.trace),
                          os.path.dirname(os.path.abspath(a.out)))
    if os.path.abspath(a.trace) == os.path.abspath(
            os.path.join(root, "..", "shared", "traces", "gpu",
                         "philly.csv")):
        rel = "../../shared/traces/gpu/philly.csv"
    with open(a.out + ".tmp", "w") as f:
        json.dump(experiment(sizes, rel), f, indent="\t")
        f.write("\n")
    os.replace(a.out + ".tmp", a.out)


if __name__ == "__main__":
    main()
