"""The Python binding's Gymnasium conformance (run by `make test`'s plain
pass with /usr/bin/python3): shapes, dtypes, bounds, the mask in info,
terminated vs truncated, a refused action, determinism, and VectorEnv's
batch against single environments.  The hand-worked episode of
tests/test_rl.c is replayed here: rewards 0, 0, -3 (mean wait 9 s / 3)."""
import os
import sys
import tempfile

try:
    import numpy as np
except ImportError:
    print("test_env.py: skipped: numpy is missing (python3-numpy)")
    sys.exit(0)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "python"))
import clustersim  # noqa: E402

JOBS = "id,submit,run,cpus,estimate\n1,0,10,3,10\n2,1,5,2,5\n3,2,4,1,4\n"
GEN = ('{"cluster": {"nodes": [{"name": "c", "count": 4, "cpus": 4}]}, '
       '"workload": {"generate": {"jobs": 200, "interarrival": {"dist": '
       '"exponential", "mean": 60}, "runtime": {"dist": "lognormal", "mu": '
       '6, "sigma": 1}, "cpus": {"dist": "pow2", "min": 1, "max": 16}}}, '
       '"policies": ["fcfs"], "rl": {"k": 8, "window_jobs": 60}}')
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL:", what)


def main():
    d = tempfile.mkdtemp(prefix="clustersim-py-")
    with open(os.path.join(d, "jobs.csv"), "w") as f:
        f.write(JOBS)
    x = os.path.join(d, "x.json")
    with open(x, "w") as f:
        f.write('{"cluster": {"nodes": [{"name": "c", "count": 1, "cpus": '
                '4}]}, "workload": {"trace": "jobs.csv", "format": "csv"}, '
                '"policies": ["fcfs"], "rl": {"window_jobs": 0, '
                '"test_windows": 0, "reward": "wait"}}')
    g = os.path.join(d, "g.json")
    with open(g, "w") as f:
        f.write(GEN)

    env = clustersim.Env(x, k=2)
    check(env.observation_space.shape == (20,), "obs shape")
    check(env.action_space.n == 3, "3 actions")
    obs, info = env.reset(seed=7)
    check(obs.dtype == np.float32 and obs.shape == (20,), "obs dtype")
    check(env.observation_space.contains(obs), "obs in the box")
    check(list(info["action_mask"]) == [True, False, True], "first mask")
    rewards = []
    for a in (0, 1, 0):
        obs, r, term, trunc, info = env.step(a)
        check(isinstance(r, float) and trunc is False, "reward, truncated")
        rewards.append(r)
    check(rewards == [0.0, 0.0, -3.0], "rewards %r" % rewards)
    check(term is True and info["episode_return"] == -3.0, "terminated")
    try:
        env.step(0)
        check(False, "a step after the end is refused")
    except clustersim.EnvError as e:
        check("reset first" in str(e), str(e))
    env.reset(seed=7)
    try:
        env.step(1)
        check(False, "a masked action is refused")
    except clustersim.EnvError as e:
        check("only 1 jobs are waiting" in str(e), str(e))
    try:
        clustersim.Env(x, k=0)
        check(False, "k 0 is refused")
    except clustersim.EnvError as e:
        check("$.rl.k: must be > 0" in str(e), str(e))
    env.close()

    # truncation: max_episode_steps
    env = clustersim.Env(g, max_episode_steps=5)
    env.reset(seed=1)
    for i in range(5):
        _, _, term, trunc, info = env.step(
            env.action_space.sample(info["action_mask"]) if i else 8)
    check(trunc is True and term is False, "truncated at 5 steps")

    # determinism and the vector env against single ones
    def episode(seed):
        e = clustersim.Env(g)
        o, info = e.reset(seed=seed)
        out, term = [o], False
        while not term:
            a = int(np.flatnonzero(info["action_mask"])[-1])
            o, r, term, _, info = e.step(a)
            out += [o, np.float32(r)]
        e.close()
        return np.concatenate([np.ravel(v) for v in out]).tobytes()
    check(episode(3) == episode(3), "same seed, same episode bytes")

    n = 4
    venv = clustersim.VectorEnv(g, n)
    singles = [clustersim.Env(g) for _ in range(n)]
    vo, vinfo = venv.reset(seed=100)
    check(vo.shape == (n, 8 * 7 + 4 + 2) and vo.dtype == np.float32,
          "vector obs shape")
    seeds = list(range(100, 100 + n))
    so = [s.reset(seed=seeds[i])[0] for i, s in enumerate(singles)]
    sm = [s.action_masks() for s in singles]
    check(all(np.array_equal(vo[i], so[i]) for i in range(n)), "reset rows")
    ends = 0
    for _ in range(300):
        acts = np.array([int(np.flatnonzero(vinfo["action_mask"][i])[0])
                         for i in range(n)], np.int64)
        vo, vr, vt, vtr, vinfo = venv.step(acts)
        check(vtr.dtype == bool and not vtr.any(), "vector truncated")
        for i, s in enumerate(singles):
            o, r, t, _, info = s.step(int(acts[i]))
            if t:
                ends += 1
                seeds[i] += 1
                o, info = s.reset(seed=seeds[i])
            check(bool(vt[i]) == t and np.float32(r) == vr[i],
                  "vector step %d" % i)
            check(np.array_equal(vo[i], o), "vector obs %d" % i)
            check(np.array_equal(vinfo["action_mask"][i],
                                 info["action_mask"]), "vector mask %d" % i)
    check(ends > 0, "an autoreset happened")
    venv.close()
    for s in singles:
        s.close()
    for f in ("jobs.csv", "x.json", "g.json"):
        os.remove(os.path.join(d, f))
    os.rmdir(d)
    if failed:
        print("test_env.py: %d checks failed" % failed)
        sys.exit(1)
    print("test_env.py: ok")


main()
