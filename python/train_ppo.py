#!/usr/bin/python3
"""Train a scheduling agent with PPO in clustersim's environment.

The agent sees the first K waiting jobs and the cluster (docs/rl.md gives
the observation exactly) and, in the "rl" mode "select", picks one job to
start, or waits; in mode "place" (GPU clusters) it picks the GPU type of
the head job (the first waiting one), or waits.  Its policy
is the per-job scoring network of RLScheduler (Zhang et al., SC'20): one
small network scores every waiting job from that job's features and the
cluster's, a second scores "wait" from the cluster's alone, and a softmax
over the allowed actions (the mask) gives the probabilities.  So the
policy does not depend on where a job sits among the K, and K can be
large.  A separate network estimates the state's value for the advantage.  In
mode "place" the policy is one MLP over the whole observation to T + 1
logits (the cluster's T GPU types, then wait), masked the same way.

Training is PPO with the clipped objective (Schulman et al., 2017) and
generalised advantage estimation (Schulman et al., 2016), over B
environments stepped together (clustersim.VectorEnv).  Each iteration
collects T steps of every environment, then makes E passes over them in
minibatches.  Masked actions get no probability: their logits are set far
below the rest before the softmax, in the rollout and in the update alike.

Outputs, in --out (default: the experiment's name under results/rl-train):
  progress.csv     iteration, environment steps, episodes ended, mean
                   return of those episodes, mean return of the last 100
                   episodes, mean entropy, seconds
  training.png     the training curve drawn from it (plots/rl/training.gp,
                   when gnuplot is installed)
  checkpoint.pt    the networks and optimiser, every --checkpoint-every
                   iterations and at the end (--resume continues from it)
  model.bin        the trained policy for the `rl` policy: one line of
                   JSON (the format, the action mode, K, the observation
                   layout, the layers), a newline, then every layer's
                   weights and biases as little-endian float32 in the order
                   the header lists them (docs/rl.md, "The model file")

Run it with Debian's Python, which has numpy and torch:

  /usr/bin/python3 python/train_ppo.py experiments/rl-lublin.json \\
      --minutes 30 --envs 16

Stopping: after --iterations, or once --minutes of wall time have passed
(checked after each iteration), whichever comes first.  The same seed
and options give the same networks on one machine and torch build.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

try:
    import torch
    from torch import nn
except ImportError:  # pragma: no cover - said once, clearly
    sys.exit("train_ppo: PyTorch is missing: install Debian's python3-torch "
             "and run this with /usr/bin/python3")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clustersim  # noqa: E402  (the binding beside this script)

MODEL_FORMAT = "clustersim-rl-model"
MODEL_VERSION = 1


def mlp(sizes):
    """Linear layers of the given widths with ReLU between them."""
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class Agent(nn.Module):
    """The per-job scorer, the wait scorer and the value network."""

    def __init__(self, k, job_f, ctx_f, hidden):
        super().__init__()
        self.k, self.job_f, self.ctx_f = k, job_f, ctx_f
        self.scorer = mlp([job_f + ctx_f] + hidden + [1])
        self.waiter = mlp([ctx_f] + hidden + [1])
        self.value = mlp([k * job_f + ctx_f, 64, 32, 1])

    def split(self, obs):
        n = obs.shape[0]
        jobs = obs[:, :self.k * self.job_f].reshape(n, self.k, self.job_f)
        return jobs, obs[:, self.k * self.job_f:]

    def logits(self, obs, mask):
        jobs, ctx = self.split(obs)
        both = torch.cat([jobs, ctx.unsqueeze(1).expand(-1, self.k, -1)], 2)
        scores = self.scorer(both).squeeze(2)
        logits = torch.cat([scores, self.waiter(ctx)], 1)
        return logits.masked_fill(~mask, -1e9)

    def export(self, path, mode, backfill=False):
        """Writes model.bin (the header, then float32 weights)."""
        write_model(path, self, {"mode": mode, "backfill": bool(backfill)},
                    (("scorer", self.scorer), ("wait", self.waiter)))


class PlaceAgent(nn.Module):
    """Mode "place": one MLP over the whole observation (the K waiting
    jobs and the context) to T + 1 logits, the head job's GPU type t
    (0 .. T-1, the cluster's types in its order) or wait (T); masked
    actions get no probability, as in select.  The value network is
    Agent's."""

    def __init__(self, k, job_f, ctx_f, gpu_types, hidden):
        super().__init__()
        self.k, self.job_f, self.ctx_f = k, job_f, ctx_f
        self.gpu_types = list(gpu_types)
        dim = k * job_f + ctx_f
        self.placer = mlp([dim] + hidden + [len(self.gpu_types) + 1])
        self.value = mlp([dim, 64, 32, 1])

    def logits(self, obs, mask):
        return self.placer(obs).masked_fill(~mask, -1e9)

    def export(self, path, mode="place", backfill=False):
        """Writes model.bin: the header names the GPU types."""
        write_model(path, self, {"mode": "place",
                                 "gpu_types": self.gpu_types},
                    (("place", self.placer),))


def write_model(path, agent, keys, nets):
    """model.bin (docs/rl.md, "The model file"): one line of JSON, the
    header (the format, keys, the layout and the layers of nets, each a
    (name, nn.Sequential) pair), a newline, then each layer's weights
    (out x in) and biases as little-endian float32, in the header's order;
    written to a temporary name, then renamed."""
    layers, blobs = [], []
    for name, net in nets:
        linears = [m for m in net if isinstance(m, nn.Linear)]
        for i, lin in enumerate(linears):
            layers.append({"net": name, "in": lin.in_features,
                           "out": lin.out_features,
                           "relu": i < len(linears) - 1})
            blobs.append(lin.weight.detach().numpy().astype("<f4"))
            blobs.append(lin.bias.detach().numpy().astype("<f4"))
    header = dict(keys)
    header.update({"format": MODEL_FORMAT, "version": MODEL_VERSION,
                   "k": agent.k, "job_features": agent.job_f,
                   "context_features": agent.ctx_f,
                   "obs_dim": agent.k * agent.job_f + agent.ctx_f,
                   "layers": layers})
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        for b in blobs:
            f.write(np.ascontiguousarray(b).tobytes())
    os.replace(tmp, path)


def make_agent(layout, hidden=None):
    """The agent for an environment's layout: Agent in mode "select",
    PlaceAgent in mode "place"; hidden: the policy network's hidden
    widths (default 32,16 for select's scorers, 64,32 for place's MLP)."""
    if layout["mode"] == "place":
        return PlaceAgent(layout["k"], layout["job_features"],
                          layout["context_features"], layout["gpu_types"],
                          hidden or [64, 32])
    return Agent(layout["k"], layout["job_features"],
                 layout["context_features"], hidden or [32, 16])


def gae(rewards, values, dones, last_value, gamma, lam):
    """Advantages and returns of T x B rollouts (dones: the step ended an
    episode, so nothing after it is bootstrapped into it)."""
    t_len = rewards.shape[0]
    adv = np.zeros_like(rewards)
    nxt = last_value
    run = np.zeros_like(last_value)
    for t in range(t_len - 1, -1, -1):
        live = 1.0 - dones[t]
        delta = rewards[t] + gamma * nxt * live - values[t]
        run = delta + gamma * lam * live * run
        adv[t] = run
        nxt = values[t]
    return adv, adv + values


class Progress:
    """One line on stderr, rewritten: a bar, the iteration, the mean
    return of the episodes that ended lately, steps per second."""

    def __init__(self, total, quiet):
        self.total, self.quiet = total, quiet
        self.start = time.monotonic()

    def show(self, it, steps, ret):
        if self.quiet:
            return
        done = min(1.0, it / self.total) if self.total else 0.0
        bar = "#" * int(done * 30)
        rate = steps / max(1e-9, time.monotonic() - self.start)
        ret_s = "   n/a" if ret is None else "%8.3f" % ret
        sys.stderr.write("\r[%-30s] it %d/%d  steps %d  return %s  "
                         "%.0f steps/s " % (bar, it, self.total, steps,
                                            ret_s, rate))
        sys.stderr.flush()

    def end(self):
        if not self.quiet:
            sys.stderr.write("\n")


def collect(envs, agent, obs, mask, t_len):
    """T steps of every environment with the current policy."""
    n = obs.shape[0]
    buf = {"obs": np.zeros((t_len,) + obs.shape, np.float32),
           "mask": np.zeros((t_len,) + mask.shape, bool),
           "act": np.zeros((t_len, n), np.int64),
           "logp": np.zeros((t_len, n), np.float32),
           "val": np.zeros((t_len, n), np.float32),
           "rew": np.zeros((t_len, n), np.float32),
           "done": np.zeros((t_len, n), np.float32)}
    ended = []
    returns = np.zeros(n)
    for t in range(t_len):
        with torch.no_grad():
            o = torch.from_numpy(obs)
            m = torch.from_numpy(mask)
            dist = torch.distributions.Categorical(
                logits=agent.logits(o, m))
            a = dist.sample()
            buf["logp"][t] = dist.log_prob(a).numpy()
            buf["val"][t] = agent.value(o).squeeze(1).numpy()
        buf["obs"][t], buf["mask"][t], buf["act"][t] = obs, mask, a.numpy()
        obs, rew, term, trunc, info = envs.step(a.numpy())
        done = np.logical_or(term, trunc)
        buf["rew"][t], buf["done"][t] = rew, done
        returns += rew
        for i in np.flatnonzero(done):
            ended.append(returns[i])
            returns[i] = 0
        mask = np.asarray(info["action_mask"], bool)
    with torch.no_grad():
        last = agent.value(torch.from_numpy(obs)).squeeze(1).numpy()
    return buf, obs, mask, last, ended


def update(agent, opt, buf, adv, ret, args):
    """E passes of PPO's clipped objective over the rollout."""
    t_len, n = buf["act"].shape
    flat = {k: torch.from_numpy(v.reshape((t_len * n,) + v.shape[2:]))
            for k, v in buf.items()}
    adv_t = torch.from_numpy(adv.reshape(-1))
    adv_t = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)
    ret_t = torch.from_numpy(ret.reshape(-1))
    total = t_len * n
    entropies = []
    gen = torch.Generator().manual_seed(args.seed)
    for _ in range(args.epochs):
        order = torch.randperm(total, generator=gen)
        for s in range(0, total, args.minibatch):
            idx = order[s:s + args.minibatch]
            dist = torch.distributions.Categorical(
                logits=agent.logits(flat["obs"][idx], flat["mask"][idx]))
            logp = dist.log_prob(flat["act"][idx])
            ratio = torch.exp(logp - flat["logp"][idx])
            a = adv_t[idx]
            pg = -torch.min(ratio * a, torch.clamp(
                ratio, 1 - args.clip, 1 + args.clip) * a).mean()
            v = agent.value(flat["obs"][idx]).squeeze(1)
            vloss = ((v - ret_t[idx]) ** 2).mean()
            ent = dist.entropy().mean()
            loss = pg + args.vf_coef * vloss - args.ent_coef * ent
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
            opt.step()
            entropies.append(float(ent))
    return float(np.mean(entropies)) if entropies else 0.0


def greedy(agent, obs, mask):
    """The agent's action of highest probability (the first on a tie),
    as the rl policy takes it."""
    with torch.no_grad():
        logits = agent.logits(torch.from_numpy(obs[None, :]),
                              torch.from_numpy(mask[None, :]))
    return int(torch.argmax(logits[0]))


def evaluate(experiment, agent, split="test", options=None):
    """The agent's greedy return on every window of a split, in order,
    and their mean: the figure that says whether training helped."""
    env = clustersim.Env(experiment, split=split, **(options or {}))
    returns = []
    for w in range(env.n_windows):
        obs, info = env.reset(seed=0, options={"window": w})
        total, done = 0.0, False
        while not done:
            a = greedy(agent, obs, info["action_mask"])
            obs, r, term, trunc, info = env.step(a)
            total += r
            done = term or trunc
        returns.append(total)
    env.close()
    return returns, float(np.mean(returns)) if returns else float("nan")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("experiment", help="experiment file with an \"rl\" "
                   "section")
    p.add_argument("--out", help="folder for progress.csv, checkpoint.pt "
                   "and model.bin")
    p.add_argument("--envs", type=int, default=8, help="environments "
                   "stepped together (default 8)")
    p.add_argument("--steps", type=int, default=256, help="steps of each "
                   "environment per iteration (default 256)")
    p.add_argument("--iterations", type=int, default=200)
    p.add_argument("--minutes", type=float, default=0, help="stop after "
                   "this much wall time (0: no limit)")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatch", type=int, default=256)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0)
    p.add_argument("--lam", type=float, default=0.97)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--hidden", default="", help="widths of the policy "
                   "network's hidden layers (default 32,16 for the "
                   "scorers of mode select, 64,32 for the MLP of mode "
                   "place)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--checkpoint-every", type=int, default=10)
    p.add_argument("--resume", action="store_true")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--set", default=None, help="a JSON object of \"rl\" "
                   "keys that replace the file's, e.g. '{\"k\": 64}'")
    args = p.parse_args(argv)
    for name in ("envs", "steps", "iterations", "epochs", "minibatch"):
        if getattr(args, name) < 1:
            p.error("--%s must be at least 1" % name)
    try:
        args.hidden = [int(x) for x in args.hidden.split(",") if x] \
            or None
    except ValueError:
        p.error("--hidden must be widths separated by commas, got '%s'"
                % args.hidden)
    try:
        args.set = json.loads(args.set) if args.set else {}
    except ValueError as e:
        p.error("--set is not JSON: %s" % e)
    if not isinstance(args.set, dict):
        p.error("--set must be a JSON object of \"rl\" keys")
    return args


def main(argv):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    try:
        envs = clustersim.VectorEnv(args.experiment, args.envs,
                                    split="train", **args.set)
    except clustersim.EnvError as e:
        sys.stderr.write("train_ppo: %s\n" % e)
        return 2
    lay = envs.layout
    agent = make_agent(lay, args.hidden)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr)
    name = os.path.splitext(os.path.basename(args.experiment))[0]
    out = args.out or os.path.join("results", "rl-train", name)
    os.makedirs(out, exist_ok=True)
    ckpt = os.path.join(out, "checkpoint.pt")
    first = 0
    rows = []
    if args.resume and os.path.exists(ckpt):
        state = torch.load(ckpt)
        agent.load_state_dict(state["agent"])
        opt.load_state_dict(state["opt"])
        first, rows = state["iteration"], state["rows"]
    obs, info = envs.reset(seed=args.seed)
    mask = np.asarray(info["action_mask"], bool)
    bar = Progress(args.iterations, args.quiet)
    start = time.monotonic()
    steps = sum(r[1] for r in rows[-1:]) if rows else 0
    recent = []
    for it in range(first, args.iterations):
        buf, obs, mask, last, ended = collect(envs, agent, obs, mask,
                                              args.steps)
        adv, ret = gae(buf["rew"], buf["val"], buf["done"], last,
                       args.gamma, args.lam)
        ent = update(agent, opt, buf, adv, ret, args)
        steps += args.steps * args.envs
        recent = (recent + ended)[-100:]
        mean = float(np.mean(ended)) if ended else None
        rows.append((it + 1, steps, len(ended), mean,
                     float(np.mean(recent)) if recent else None, ent,
                     time.monotonic() - start))
        bar.show(it + 1, steps, float(np.mean(recent)) if recent else None)
        last_it = it + 1 == args.iterations
        out_of_time = args.minutes and \
            time.monotonic() - start >= args.minutes * 60
        if (it + 1) % args.checkpoint_every == 0 or last_it or out_of_time:
            save(ckpt, agent, opt, it + 1, rows)
            write_progress(os.path.join(out, "progress.csv"), rows)
            agent.export(os.path.join(out, "model.bin"), lay["mode"],
                         lay["backfill"])
        if out_of_time:
            break
    bar.end()
    plot_training(out, name)
    print("trained: %d iterations, %d steps, %.0f s; model: %s"
          % (rows[-1][0] if rows else 0, steps, time.monotonic() - start,
             os.path.join(out, "model.bin")))
    return 0


def plot_training(out, name):
    """training.png from progress.csv, when gnuplot is there."""
    gp = shutil.which("gnuplot")
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                          "plots", "rl", "training.gp")
    if not gp or not os.path.exists(script):
        return
    tmp = os.path.join(out, "training.png.tmp")
    rc = subprocess.run([gp, "-e", "in='%s'; out='%s'; title='%s'" % (
        os.path.join(out, "progress.csv"), tmp, name), script],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    if rc == 0 and os.path.exists(tmp):
        os.replace(tmp, os.path.join(out, "training.png"))


def save(path, agent, opt, iteration, rows):
    tmp = path + ".tmp"
    torch.save({"agent": agent.state_dict(), "opt": opt.state_dict(),
                "iteration": iteration, "rows": rows}, tmp)
    os.replace(tmp, path)


def write_progress(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("iteration,steps,episodes,mean_return,last100_return,"
                "entropy,seconds\n")
        for it, steps, n, mean, last, ent, sec in rows:
            f.write("%d,%d,%d,%s,%s,%.6f,%.3f\n" % (
                it, steps, n, "" if mean is None else "%.6f" % mean,
                "" if last is None else "%.6f" % last, ent, sec))
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
