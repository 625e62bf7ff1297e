#!/usr/bin/env python3
"""FCFS on the Philly job summary, written the way the Python simulators
of this field are (a heapq of events, a list as the queue), as a yardstick
for `make bench` and as a second, independent computation of the mean wait
that clustersim reports for bench/philly-fcfs-pooled.json: 512 GPUs in one
pool, jobs in (submit, row) order, a job starts when it is at the head of
the queue and its GPUs are free.

    bench/py-fcfs.py ../shared/traces/gpu/philly.csv [gpus]

Prints: jobs, mean wait in seconds (to 6 decimals), and the seconds the
simulation itself took.
"""
import csv
import datetime
import heapq
import sys
import time


def load(path):
    jobs = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            t = datetime.datetime.strptime(row["timestamp"],
                                           "%Y-%m-%d %H:%M:%S")
            t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
            jobs.append((int(t), float(row["duration"]),
                         int(row["num_gpus"])))
    # Stable: equal submit times keep the file's order, as the reader does.
    jobs.sort(key=lambda j: j[0])
    return jobs


def fcfs(jobs, gpus):
    free = gpus
    ends = []   # (end, gpus)
    queue = []  # waiting job indexes, FIFO
    head = 0
    waits = 0.0
    i = 0
    now = 0
    n = len(jobs)
    while i < n or ends:
        # Next event: an end or a submit; ends first at equal times.
        if ends and (i >= n or ends[0][0] <= jobs[i][0]):
            now = ends[0][0]
            while ends and ends[0][0] == now:
                free += heapq.heappop(ends)[1]
        else:
            now = jobs[i][0]
        while i < n and jobs[i][0] == now:
            queue.append(i)
            i += 1
        while head < len(queue) and jobs[queue[head]][2] <= free:
            s, run, g = jobs[queue[head]]
            free -= g
            waits += now - s
            heapq.heappush(ends, (now + run, g))
            head += 1
    return waits / n


def main():
    path = sys.argv[1]
    gpus = int(sys.argv[2]) if len(sys.argv) > 2 else 512
    jobs = load(path)
    t0 = time.perf_counter()
    w = fcfs(jobs, gpus)
    t1 = time.perf_counter()
    print("%d %.6f %.3f" % (len(jobs), w, t1 - t0))


if __name__ == "__main__":
    main()
