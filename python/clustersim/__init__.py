"""clustersim's reinforcement-learning environment from Python (docs/rl.md).

A ctypes binding over build/pic/libclustersim.so (``make python``), with the
Gymnasium API by duck typing: ``Env(experiment, **options)`` and
``VectorEnv(experiment, num_envs, **options)`` have ``reset(seed=...)``,
``step(action)``, ``action_space`` and ``observation_space``; the action
mask is ``info["action_mask"]``.  Only the standard library and numpy are
used; when gymnasium is importable the environment is registered as
``clustersim/Env-v0``.  The library is found through $CLUSTERSIM_LIB, else
build/pic/libclustersim.so beside this package's repository.
"""
import ctypes
import json
import os

import numpy as np

__all__ = ["Env", "VectorEnv", "Box", "Discrete", "EnvError",
           "JOB_FEATURES"]

# Features per waiting-job slot of the observation (SIM_OBS_JOB_F in
# include/clustersim/policy.h; docs/rl.md, "State and observation").  The
# observation is K slots of them, then the context: the resource groups'
# and the global features.
JOB_FEATURES = 7


def _layout(lib, p):
    """What a model is trained for: the action mode ("select" or
    "place"), K, the features per job and of the context, backfill, and
    the cluster's GPU types (their names in its order; T = len(...), the
    "place" mode's actions 0 .. T-1)."""
    k = lib.env_k(p)
    types = [lib.env_gpu_type_name(p, t).decode()
             for t in range(lib.env_gpu_types(p))]
    return {"mode": lib.env_mode(p).decode(), "k": k,
            "job_features": JOB_FEATURES,
            "context_features": lib.env_obs_dim(p) - k * JOB_FEATURES,
            "backfill": bool(lib.env_backfill(p)),
            "types": len(types), "gpu_types": types}


class EnvError(ValueError):
    """A refused call: bad experiment, option or action (the C message)."""


class _Err(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * 1024)]


class _Options(ctypes.Structure):
    _fields_ = [("rl_json", ctypes.c_char_p), ("split", ctypes.c_char_p)]


def _find_lib():
    path = os.environ.get("CLUSTERSIM_LIB")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(here, "..", "..", "build", "pic",
                            "libclustersim.so")
    return ctypes.CDLL(path)


_lib = None


def _api():
    global _lib
    if _lib is not None:
        return _lib
    lib = _find_lib()
    P, E = ctypes.c_void_p, ctypes.POINTER(_Err)
    F = np.ctypeslib.ndpointer(np.float32, flags="C_CONTIGUOUS")
    U = np.ctypeslib.ndpointer(np.uint8, flags="C_CONTIGUOUS")
    I = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    sig = {
        "env_new": (P, [ctypes.c_char_p, ctypes.POINTER(_Options), E]),
        "env_free": (None, [P]),
        "env_obs_dim": (ctypes.c_size_t, [P]),
        "env_actions": (ctypes.c_size_t, [P]),
        "env_k": (ctypes.c_size_t, [P]),
        "env_mode": (ctypes.c_char_p, [P]),
        "env_gpu_types": (ctypes.c_size_t, [P]),
        "env_gpu_type_name": (ctypes.c_char_p, [P, ctypes.c_size_t]),
        "env_backfill": (ctypes.c_bool, [P]),
        "env_windows": (ctypes.c_size_t, [P]),
        "env_reset": (ctypes.c_int, [P, ctypes.c_uint64, ctypes.c_int64,
                                     F, U, E]),
        "env_step": (ctypes.c_int, [P, ctypes.c_int64, F, U,
                                    ctypes.POINTER(ctypes.c_float),
                                    ctypes.POINTER(ctypes.c_bool), E]),
        "env_batch_step": (ctypes.c_int, [ctypes.POINTER(P), ctypes.c_size_t,
                                          I, F, U, F, U, E]),
        "env_return": (ctypes.c_double, [P]),
        "env_decisions": (ctypes.c_uint64, [P]),
        "env_time": (ctypes.c_double, [P]),
        "env_jobs": (ctypes.c_size_t, [P, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_void_p]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    _lib = lib
    return lib


class Discrete:
    """Gymnasium's Discrete(n) by duck typing: actions 0 .. n-1."""

    def __init__(self, n, seed=None):
        self.n, self.shape, self.dtype = int(n), (), np.dtype(np.int64)
        self._rng = np.random.default_rng(seed)

    def sample(self, mask=None):
        if mask is None:
            return int(self._rng.integers(self.n))
        allowed = np.flatnonzero(mask)
        return int(self._rng.choice(allowed))

    def contains(self, x):
        return isinstance(x, (int, np.integer)) and 0 <= int(x) < self.n


class Box:
    """Gymnasium's Box(low, high, shape, dtype) by duck typing."""

    def __init__(self, low, high, shape, dtype=np.float32):
        self.low, self.high = low, high
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and x.dtype == self.dtype and
                bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))


def _new(experiment, split, options):
    lib = _api()
    err = _Err()
    opts = _Options(json.dumps(options).encode() if options else None,
                    split.encode() if split else None)
    p = lib.env_new(os.fsencode(experiment), ctypes.byref(opts),
                    ctypes.byref(err))
    if not p:
        raise EnvError(err.msg.decode())
    return p


class Env:
    """One environment.  Options are "rl" keys of the experiment file
    (mode, k, window_jobs, reward, reward_at, ...) and
    split="train"|"test"; max_episode_steps truncates an episode
    (truncated=True).  The actions are K + 1 in mode "select", T + 1 in
    mode "place" (``layout`` says which, with K and the GPU types)."""

    metadata = {"render_modes": []}

    def __init__(self, experiment, split="train", max_episode_steps=None,
                 **options):
        self._lib = _api()
        self._p = _new(experiment, split, options)
        self.obs_dim = self._lib.env_obs_dim(self._p)
        self.n_actions = self._lib.env_actions(self._p)
        self.n_windows = self._lib.env_windows(self._p)
        self.action_space = Discrete(self.n_actions)
        self.observation_space = Box(0.0, 1.0, (self.obs_dim,), np.float32)
        self.max_episode_steps = max_episode_steps
        self.layout = _layout(self._lib, self._p)
        self._obs = np.zeros(self.obs_dim, np.float32)
        self._mask = np.zeros(self.n_actions, np.uint8)
        self._steps = 0
        self._err = _Err()

    def _info(self):
        return {"action_mask": self._mask.astype(bool),
                "time": self._lib.env_time(self._p),
                "decisions": self._lib.env_decisions(self._p)}

    def reset(self, seed=None, options=None):
        seed = 0 if seed is None else int(seed)
        window = -1 if not options or "window" not in options \
            else int(options["window"])
        if self._lib.env_reset(self._p, seed, window, self._obs, self._mask,
                               ctypes.byref(self._err)):
            raise EnvError(self._err.msg.decode())
        self._steps = 0
        return self._obs.copy(), self._info()

    def step(self, action):
        r, d = ctypes.c_float(), ctypes.c_bool()
        if self._lib.env_step(self._p, int(action), self._obs, self._mask,
                              ctypes.byref(r), ctypes.byref(d),
                              ctypes.byref(self._err)):
            raise EnvError(self._err.msg.decode())
        self._steps += 1
        terminated = bool(d.value)
        truncated = (not terminated and self.max_episode_steps is not None
                     and self._steps >= self.max_episode_steps)
        info = self._info()
        if terminated:
            info["episode_return"] = self._lib.env_return(self._p)
        return self._obs.copy(), float(r.value), terminated, truncated, info

    def action_masks(self):
        return self._mask.astype(bool)

    def jobs(self):
        """The episode's jobs: trace ids, start and end times in seconds
        since the window's first submit (NaN before they happen)."""
        n = self._lib.env_jobs(self._p, None, None, None)
        ids = np.zeros(n, np.int64)
        start, end = np.zeros(n), np.zeros(n)
        self._lib.env_jobs(self._p, ids.ctypes.data, start.ctypes.data,
                           end.ctypes.data)
        return ids, start, end

    def close(self):
        if getattr(self, "_p", None):
            self._lib.env_free(self._p)
            self._p = None

    def __del__(self):
        self.close()


class VectorEnv:
    """num_envs environments stepped in one C call (env_batch_step) into
    preallocated numpy arrays.  An environment whose episode ends is reset
    at once with its next seed: its row of the observations is then the new
    episode's first, its terminated flag True (same-step autoreset)."""

    def __init__(self, experiment, num_envs, split="train", **options):
        self._lib = _api()
        self.num_envs = int(num_envs)
        self._ps = [_new(experiment, split, options)
                    for _ in range(self.num_envs)]
        self._arr = (ctypes.c_void_p * self.num_envs)(*self._ps)
        d = self._lib.env_obs_dim(self._ps[0])
        na = self._lib.env_actions(self._ps[0])
        self.single_action_space = Discrete(na)
        self.single_observation_space = Box(0.0, 1.0, (d,), np.float32)
        self.observation_space = Box(0.0, 1.0, (self.num_envs, d),
                                     np.float32)
        self.action_space = Box(0, na - 1, (self.num_envs,), np.int64)
        self.layout = _layout(self._lib, self._ps[0])
        self.obs = np.zeros((self.num_envs, d), np.float32)
        self.masks = np.zeros((self.num_envs, na), np.uint8)
        self.rewards = np.zeros(self.num_envs, np.float32)
        self.dones = np.zeros(self.num_envs, np.uint8)
        self._err = _Err()

    def reset(self, seed=None, options=None):
        seed = 0 if seed is None else int(seed)
        for i, p in enumerate(self._ps):
            if self._lib.env_reset(p, seed + i, -1, self.obs[i],
                                   self.masks[i], ctypes.byref(self._err)):
                raise EnvError(self._err.msg.decode())
        return self.obs, {"action_mask": self.masks.astype(bool)}

    def step(self, actions):
        a = np.ascontiguousarray(actions, dtype=np.int64)
        if self._lib.env_batch_step(self._arr, self.num_envs, a, self.obs,
                                    self.masks, self.rewards, self.dones,
                                    ctypes.byref(self._err)):
            raise EnvError(self._err.msg.decode())
        term = self.dones.astype(bool)
        return (self.obs, self.rewards, term,
                np.zeros(self.num_envs, bool),
                {"action_mask": self.masks.astype(bool)})

    def close(self):
        for p in getattr(self, "_ps", []):
            self._lib.env_free(p)
        self._ps = []

    def __del__(self):
        self.close()


try:  # registered only where gymnasium is installed
    import gymnasium as _gym  # noqa: F401
    _gym.register(id="clustersim/Env-v0", entry_point="clustersim:Env")
except Exception:  # pragma: no cover - gymnasium absent or too old
    pass
