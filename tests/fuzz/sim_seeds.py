#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_sim (tests/fuzz/corpus/sim/seed-*.bin).

fuzz_sim decodes its bytes into a cluster, a workload and a policy with
parameters (the layout is in tests/fuzz/README.md, "fuzz_sim").  This
script spells cases in that layout, so that the seeds cover every built-in
policy on a CPU cluster and on a GPU cluster (types, racks, a fabric, GPU
jobs of known classes, checkpoint and restore costs), and a few shapes
besides.  Run it from the repository root after the layout changes:

    tests/fuzz/sim_seeds.py tests/fuzz/corpus/sim

The findings kept in the same folder (named after what they found) are
written by hand, not by this script.
"""
import glob
import os
import sys

# Policies by index, as the generated registry lists them (file stems in
# name order).
POLICIES = sorted(os.path.basename(p)[:-2] for p in glob.glob("policies/*.c"))


def shape(gpus=False, exclusive=False, groups=1, speed=False, vcs=False,
          costs=False):
    return (gpus | exclusive << 1 | (groups - 1) << 2 | speed << 4 |
            vcs << 5 | costs << 6)


GPUS = {0: 0, 1: 1, 2: 2, 4: 3, 8: 4, 3: 6, 6: 7}
TYPES = {None: 0, "k80": 1, "p100": 2, "v100": 3}
VCS = {None: 0, "a": 1, "b": 2}


def group(count, cpus, gpus=None, gtype=None, vc=None):
    """count 1..8 nodes of cpus 1..32; gpus only on GPU clusters."""
    out = [(count - 1) | (cpus - 1) << 3]
    if gpus is not None:
        out.append(GPUS[gpus] | TYPES[gtype] << 3 | VCS[vc] << 5)
    return out


def network(nic=0, lat=0, over=0, nvlink=0, ref=2, draw=False):
    """Indexes into the harness's tables (0: 100 Gb/s, 0.5 us, 1:1,
    300 GB/s); ref 0 k80, 1 p100, 2 v100."""
    return [nic | lat << 3 | over << 5, nvlink | ref << 2 | draw << 4]


def costs(ckpt=0, restore=0, per_gpu=0, storage=0):
    """Indexes: checkpoint (0 0 1 10 60 300 600 3600 s), restore (0 0 1
    10 30 120 600 3600 s), per GPU (0 1 5 30 s), storage (0 0 .01 .1 1
    10 100 1000 GB/s)."""
    return [ckpt | restore << 3 | per_gpu << 6, storage]


def job(gap=0, size=0, aux=0, run=0, est=0, cls=0, ugt=0):
    """Seven raw bytes (the README gives their bits)."""
    return [gap, size, aux, run, est, cls, ugt]


def case(policy, seed, shape_byte, groups, rack=0, net=(), cost=(), jobs=(),
         params=()):
    out = [POLICIES.index(policy), seed, shape_byte]
    for g in groups:
        out += g
    out.append(rack)
    out += list(net) + list(cost)
    out.append((len(jobs) - 1) % 40)
    for j in jobs:
        out += j
    out += list(params)
    return bytes(out)


def cpu_jobs(n, seed):
    """n CPU jobs of mixed sizes, runs and estimates."""
    out = []
    x = seed * 2654435761 % 2**32
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        out.append(job(gap=x % 16 if i else 0, size=x >> 8 & 0x7f,
                       run=x >> 4 & 31, est=x >> 12 & 0x3f,
                       ugt=x >> 16 & 0x1f))
    return out


def gpu_jobs(n, seed):
    """n GPU jobs of classes 1.. with 1, 2, 4, 8 GPUs, some CPU jobs."""
    out = []
    x = seed * 2654435761 % 2**32
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        size = 0x40 | (x & 3) if x & 8 else x >> 3 & 0x3f
        if i % 7 == 6:
            size = 0x80 | (x >> 9 & 0x0f)
        out.append(job(gap=x % 16 if i else 0, size=size, aux=x >> 5 & 7,
                       run=x >> 10 & 31, est=x >> 15 & 0x3f,
                       cls=1 + (x >> 20) % 26, ugt=x >> 22 & 0xff))
    return out


def seeds():
    out = {}
    for k, p in enumerate(POLICIES):
        out[f"seed-{p}-cpu.bin"] = case(
            p, k, shape(groups=2), [group(4, 8), group(2, 16)], rack=2,
            jobs=cpu_jobs(24, k + 1))
        out[f"seed-{p}-gpu.bin"] = case(
            p, k, shape(gpus=True, groups=3, speed=True, costs=True),
            [group(4, 16, 4, "v100"), group(4, 16, 8, "p100"),
             group(2, 8, 2, "k80")],
            rack=2, net=network(nic=1, lat=1, over=1, ref=2),
            cost=costs(ckpt=3, restore=2, per_gpu=1, storage=4),
            jobs=gpu_jobs(20, k + 7))
    out["seed-easy-exclusive.bin"] = case(
        "easy", 3, shape(exclusive=True), [group(8, 4)],
        jobs=cpu_jobs(30, 3))
    out["seed-fcfs-vcs.bin"] = case(
        "fcfs", 4, shape(gpus=True, groups=3, vcs=True),
        [group(2, 8, 4, "v100", "a"), group(2, 8, 4, "v100", "b"),
         group(2, 8, 2, "k80")], jobs=gpu_jobs(16, 5))
    out["seed-gandiva-shared.bin"] = case(
        "gandiva", 5, shape(gpus=True, speed=True),
        [group(2, 16, 4, "v100")], rack=1, net=network(nic=2, over=2),
        jobs=gpu_jobs(12, 6))
    out["seed-themis-uplinks.bin"] = case(
        "themis", 6, shape(gpus=True, groups=2, speed=True, costs=True),
        [group(8, 8, 1, "k80"), group(8, 8, 2, "v100")], rack=3,
        net=[4 | 2 << 3 | 0x80 | 1 << 5, 1 | 1 << 2 | 0x10],
        cost=costs(ckpt=2, restore=3), jobs=gpu_jobs(24, 8))
    out["seed-las-long-checkpoint.bin"] = case(
        "las", 7, shape(gpus=True, costs=True), [group(1, 4, 2)],
        cost=costs(ckpt=6, restore=0), jobs=gpu_jobs(4, 9),
        params=[3, 0, 0])
    return out


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "tests/fuzz/corpus/sim"
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
