"""Environment decisions per second through the Python binding (rows of
`make bench`): VectorEnv of NUM_ENVS (default 64) environments of an
experiment file (default experiments/kth.json: K = 128, windows of 1,024
jobs), each taking its first allowed action, for about SECONDS (default 3);
NUM_ENVS 1 is one Env through the plain Gymnasium step, one call a
decision.

    /usr/bin/python3 bench/env_bench.py [EXPERIMENT [SECONDS [NUM_ENVS]]]
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import clustersim  # noqa: E402

path = sys.argv[1] if len(sys.argv) > 1 else "experiments/kth.json"
secs = float(sys.argv[2]) if len(sys.argv) > 2 else 3.0
n = int(sys.argv[3]) if len(sys.argv) > 3 else 64
if n == 1:
    env = clustersim.Env(path)
    obs, info = env.reset(seed=1)
    steps = 0
    t0 = time.perf_counter()
    t = t0
    while t - t0 < secs:
        for _ in range(1000):
            obs, r, term, trunc, info = env.step(
                int(info["action_mask"].argmax()))
            if term or trunc:
                obs, info = env.reset(seed=steps)
        steps += 1000
        t = time.perf_counter()
    print("env-step-py1: decisions=%d wall_s=%.3f decisions_per_s=%.0f"
          % (steps, t - t0, steps / (t - t0)))
    env.close()
    sys.exit(0)
venv = clustersim.VectorEnv(path, n)
obs, info = venv.reset(seed=1)
masks = venv.masks
steps = 0
t0 = time.perf_counter()
t = t0
while t - t0 < secs:
    for _ in range(100):
        acts = masks.argmax(axis=1).astype(np.int64)
        venv.step(acts)
    steps += 100 * n
    t = time.perf_counter()
print("env-step-vec%d: decisions=%d wall_s=%.3f decisions_per_s=%.0f"
      % (n, steps, t - t0, steps / (t - t0)))
venv.close()
