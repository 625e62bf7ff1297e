"""The trained agent from PyTorch to the rl policy (run by `make test`'s
plain pass with /usr/bin/python3; skipped, saying so, without numpy or
torch).

1. The same agent, two ways (with and without backfilling around its
   choice): a network of python/train_ppo.py with fixed
   random weights is exported to model.bin; an episode of the environment
   is played with PyTorch's greedy choice at every decision, and
   `clustersim run` runs the rl policy on model.bin over the same trace.
   Every job must start at the same time in both: the C forward pass
   picks PyTorch's action at each of the episode's decisions (several
   hundred), and the policy observes what the environment showed.
   Mode "place" likewise (skipped without ../shared/traces/gpu/
   philly.csv): the PyTorch place network on the first 300 Philly jobs
   on a v100 + k80 cluster, and the rl policy on its model.bin; every job
   starts and ends at the same time (the drawn classes run at other
   speeds on the two types, so the end says the type); the model is
   refused with exit 2 on a cluster with its types in another order and
   on a CPU cluster.
2. Training helps: a short PPO run on a tiny instance (4 CPUs, windows of
   32 jobs, bounded-slowdown reward) raises the greedy return on the test
   windows, which training never sees, from the untrained network's.
3. A model.bin whose layout differs from the cluster's observation, or
   that is cut short, is refused with exit 2.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as e:
    print("test_rl_agent.py: skipped: %s (python3-numpy, python3-torch)" % e)
    sys.exit(0)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import clustersim  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "train_ppo", os.path.join(ROOT, "python", "train_ppo.py"))
tp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tp)
torch.set_num_threads(1)

BIN = os.environ.get("CLUSTERSIM_BIN", os.path.join(ROOT, "build",
                                                    "clustersim"))
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL:", what)


def trace(path, n=300, seed=5):
    """n jobs on up to 8 of 16 CPUs, estimates 1-3x the run time."""
    rng = np.random.RandomState(seed)
    t = 0.0
    with open(path, "w") as f:
        f.write("id,submit,run,cpus,estimate\n")
        for i in range(n):
            t += float(rng.exponential(40))
            run = float(rng.lognormal(5, 1))
            f.write("%d,%.0f,%.0f,%d,%.0f\n" % (
                i + 1, t, max(1, run), 2 ** rng.randint(0, 4),
                max(1, run) * rng.uniform(1, 3)))


def same_agent_two_ways(d, backfill):
    trace(os.path.join(d, "jobs.csv"))
    x = os.path.join(d, "x.json")
    with open(x, "w") as f:
        json.dump({"name": "agent",
                   "cluster": {"nodes": [{"name": "c", "count": 16,
                                          "cpus": 1}]},
                   "workload": {"trace": "jobs.csv", "format": "csv"},
                   "rl": {"k": 16, "window_jobs": 0, "backfill": backfill},
                   "policies": [{"name": "rl",
                                 "params": {"model": "model.bin"}}],
                   "output": "out"}, f)
    env = clustersim.Env(x)
    lay = env.layout
    torch.manual_seed(7)
    agent = tp.Agent(lay["k"], lay["job_features"],
                     lay["context_features"], [32, 16])
    agent.export(os.path.join(d, "model.bin"), "select", backfill)
    obs, info = env.reset(seed=0, options={"window": 0})
    decisions, gaps, done = 0, [], False
    while not done:
        mask = info["action_mask"]
        with torch.no_grad():
            lg = agent.logits(torch.from_numpy(obs[None, :]),
                              torch.from_numpy(mask[None, :]))[0]
        top = torch.topk(lg, 2).values if mask.sum() > 1 else None
        if top is not None:
            gaps.append(float(top[0] - top[1]))
        obs, r, term, trunc, info = env.step(int(torch.argmax(lg)))
        decisions += 1
        done = term or trunc
    ids, start, _ = env.jobs()
    check(decisions >= 300, "decisions: %d" % decisions)
    rc = subprocess.run([BIN, "run", x, "--no-plots", "--quiet"],
                        stdout=subprocess.DEVNULL).returncode
    check(rc == 0, "clustersim run with the rl policy: rc %d" % rc)
    if rc:
        return
    rows = {}
    with open(os.path.join(d, "out", "rl-s1", "jobs.csv")) as f:
        head = f.readline().strip().split(",")
        for line in f:
            v = dict(zip(head, line.strip().split(",")))
            rows[int(v["id"])] = (float(v["submit"]), float(v["start"]))
    first = min(s for s, _ in rows.values())
    diff = [i for i, s in zip(ids, start)
            if abs(rows[int(i)][1] - first - s) > 1e-6]
    check(not diff, "jobs started at other times by the policy: %s"
          % diff[:5])
    # Near-ties could let float sums in another order pick another job
    # (the starts above would then differ): say how close it came.
    print("same agent two ways%s: %d decisions, %d jobs, smallest gap %.3g"
          % (" (backfill)" if backfill else "", decisions, len(ids),
             min(g for g in gaps if g > 0)))
    if backfill:
        return
    # A model for another cluster (more context features) is refused.
    agent2 = tp.Agent(lay["k"], lay["job_features"],
                      lay["context_features"] + 4, [8])
    agent2.export(os.path.join(d, "model.bin"), "select")
    p = subprocess.run([BIN, "run", x, "--no-plots", "--quiet"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "context features" in p.stderr,
          "another layout: rc %d, %s" % (p.returncode, p.stderr))
    with open(os.path.join(d, "model.bin"), "rb") as f:
        blob = f.read()
    with open(os.path.join(d, "model.bin"), "wb") as f:
        f.write(blob[:-4])
    p = subprocess.run([BIN, "validate", x], capture_output=True, text=True)
    check(p.returncode == 2 and "bytes of weights" in p.stderr,
          "a cut model: rc %d, %s" % (p.returncode, p.stderr))


def philly_path():
    d = os.environ.get("CLUSTERSIM_TRACE_DIR",
                       os.path.join(ROOT, "..", "shared", "traces"))
    p = os.path.abspath(os.path.join(d, "gpu", "philly.csv"))
    return p if os.path.exists(p) else None


def same_place_agent_two_ways(d, philly):
    """Mode "place" on the first 300 jobs of the Philly trace, on 8 v100
    and 16 k80 GPUs, each GPU job of a class drawn from the seed (so the
    two types run it at different speeds): the PyTorch place agent's
    greedy choices in the environment and the rl policy on its model.bin
    give every job the same start and end (the end says the type too:
    the speeds differ)."""
    x = os.path.join(d, "p.json")
    with open(x, "w") as f:
        json.dump({"name": "place",
                   "cluster": {"nodes": [
                       {"name": "v", "count": 2, "cpus": 32, "gpus": 4,
                        "gpu_type": "v100"},
                       {"name": "k", "count": 4, "cpus": 32, "gpus": 4,
                        "gpu_type": "k80"}]},
                   "workload": {"trace": philly, "format": "philly",
                                "limit": 300},
                   "rl": {"mode": "place", "k": 16, "window_jobs": 0},
                   "policies": [{"name": "rl",
                                 "params": {"model": "model.bin"}}],
                   "output": "out"}, f)
    env = clustersim.Env(x)
    lay = env.layout
    check(lay["mode"] == "place" and lay["gpu_types"] == ["v100", "k80"]
          and env.action_space.n == 3, "place layout: %s" % lay)
    torch.manual_seed(7)
    agent = tp.make_agent(lay)
    check(isinstance(agent, tp.PlaceAgent), "make_agent: a PlaceAgent")
    agent.export(os.path.join(d, "model.bin"))
    # The run's seed (1) draws the classes: the episode's reset seed too.
    obs, info = env.reset(seed=1, options={"window": 0})
    counts, gaps, done = [0, 0, 0], [], False
    while not done:
        mask = info["action_mask"]
        with torch.no_grad():
            lg = agent.logits(torch.from_numpy(obs[None, :]),
                              torch.from_numpy(mask[None, :]))[0]
        if mask.sum() > 1:
            top = torch.topk(lg, 2).values
            gaps.append(float(top[0] - top[1]))
        a = int(torch.argmax(lg))
        counts[a] += 1
        obs, r, term, trunc, info = env.step(a)
        done = term or trunc
    ids, start, end = env.jobs()
    # The random network must exercise every action for the test to
    # mean something: both types and waiting.
    check(min(counts) > 0, "actions v100, k80, wait: %s" % counts)
    rc = subprocess.run([BIN, "run", x, "--no-plots", "--quiet"],
                        stdout=subprocess.DEVNULL).returncode
    check(rc == 0, "clustersim run with a place model: rc %d" % rc)
    if rc:
        return
    rows = {}
    with open(os.path.join(d, "out", "rl-s1", "jobs.csv")) as f:
        head = f.readline().strip().split(",")
        for line in f:
            v = dict(zip(head, line.strip().split(",")))
            rows[int(v["id"])] = (float(v["submit"]), float(v["start"]),
                                  float(v["end"]), v["gpu_type"])
    first = min(r[0] for r in rows.values())
    diff = [i for i, s, e in zip(ids, start, end)
            if abs(rows[int(i)][1] - first - s) > 1e-6 or
            abs(rows[int(i)][2] - first - e) > 1e-6]
    check(not diff, "jobs placed otherwise by the policy: %s" % diff[:5])
    used = sorted(set(r[3] for r in rows.values()))
    check(used == ["k80", "v100"], "types used: %s" % used)
    print("same place agent two ways: %d decisions (v100 %d, k80 %d, "
          "wait %d), %d jobs, smallest gap %.3g"
          % (sum(counts), counts[0], counts[1], counts[2], len(ids),
             min(g for g in gaps if g > 0)))
    # The same model on a cluster with its types in another order, and
    # on a CPU cluster (a select-mode experiment): refused, exit 2.
    with open(x) as f:
        spec = json.load(f)
    spec["cluster"]["nodes"].reverse()
    with open(x, "w") as f:
        json.dump(spec, f)
    p = subprocess.run([BIN, "run", x, "--no-plots", "--quiet"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "it places on the GPU types ('v100', "
          "'k80'), this cluster has ('k80', 'v100')" in p.stderr,
          "types in another order: rc %d, %s" % (p.returncode, p.stderr))
    spec["cluster"] = {"nodes": [{"name": "c", "count": 16, "cpus": 1}]}
    del spec["rl"]
    with open(x, "w") as f:
        json.dump(spec, f)
    p = subprocess.run([BIN, "run", x, "--no-plots", "--quiet"],
                       capture_output=True, text=True)
    check(p.returncode == 2 and "a \"place\" model chooses the GPU type "
          "of each job ('v100', 'k80'), and this cluster has no GPU types"
          in p.stderr, "a CPU cluster: rc %d, %s" % (p.returncode,
                                                       p.stderr))


def training_helps(d):
    x = os.path.join(d, "tiny.json")
    with open(x, "w") as f:
        json.dump({"name": "tiny",
                   "cluster": {"nodes": [{"name": "c", "count": 4,
                                          "cpus": 1}]},
                   "workload": {"generate": {
                       "jobs": 64,
                       "interarrival": {"dist": "exponential",
                                        "mean": 100},
                       "runtime": {"dist": "lognormal", "mu": 5,
                                   "sigma": 1.5},
                       "cpus": {"dist": "pow2", "min": 1, "max": 4}}},
                   "policies": ["fcfs"],
                   "rl": {"k": 8, "window_jobs": 32,
                          "reward": "bounded_slowdown"}}, f)
    out = os.path.join(d, "train")
    torch.manual_seed(1)
    lay = clustersim.Env(x).layout
    before = tp.evaluate(x, tp.Agent(lay["k"], lay["job_features"],
                                     lay["context_features"], [32, 16]))[1]
    rc = tp.main([x, "--iterations", "30", "--envs", "8", "--steps", "64",
                  "--out", out, "--quiet", "--seed", "1"])
    check(rc == 0, "train_ppo: rc %d" % rc)
    agent = tp.Agent(lay["k"], lay["job_features"], lay["context_features"],
                     [32, 16])
    agent.load_state_dict(torch.load(os.path.join(out,
                                                  "checkpoint.pt"))["agent"])
    after = tp.evaluate(x, agent)[1]
    print("training helps: greedy test return %.3f untrained, %.3f after "
          "30 iterations" % (before, after))
    check(after > before + 0.2 * abs(before),
          "return %.3f -> %.3f: not better by a fifth" % (before, after))
    for name in ("progress.csv", "checkpoint.pt", "model.bin"):
        check(os.path.exists(os.path.join(out, name)), name + " written")


def main():
    if not os.access(BIN, os.X_OK):
        print("test_rl_agent.py: skipped: %s is not built" % BIN)
        return 0
    for backfill in (False, True):
        with tempfile.TemporaryDirectory(prefix="clustersim-rl-") as d:
            same_agent_two_ways(d, backfill)
    philly = philly_path()
    if philly:
        with tempfile.TemporaryDirectory(prefix="clustersim-rl-") as d:
            same_place_agent_two_ways(d, philly)
    else:
        print("same place agent two ways: skipped: gpu/philly.csv not in "
              "$CLUSTERSIM_TRACE_DIR (../shared/traces)")
    with tempfile.TemporaryDirectory(prefix="clustersim-ppo-") as d:
        training_helps(d)
    print("test_rl_agent.py: %s" % ("ok" if not failed else
                                    "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
