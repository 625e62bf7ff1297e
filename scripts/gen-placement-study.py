#!/usr/bin/env python3
"""Writes the two workloads of the placement study (experiments/data/):
the same 24 jobs - arrivals every 60 s, 2 or 4 GPUs each, 10 to 30 minutes
on V100s - as Gavel-format traces of a communication-heavy model
(Transformer, batch size 16: 260 MB of gradients per 0.09 s step) and a
compute-heavy one (ResNet-50, batch size 128: 102 MB per 0.40 s step).
total_steps = run time x the model's V100 throughput at its GPU count,
from Gavel's published table (the figures below, from
../shared/traces/gpu/gavel-throughputs.json, consolidated).  Deterministic:
no randomness, the sizes cycle through a fixed pattern."""
import os

MODELS = {
    "comm": "Transformer (batch size 16)",
    "compute": "ResNet-50 (batch size 128)",
}

def throughputs(path, name):
    """V100 consolidated steps/s at 2 and 4 GPUs ("null": alone)."""
    import json
    d = json.load(open(path))["v100"]
    return {s: d["('%s', %d)" % (name, s)]["null"] for s in (2, 4)}

def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "..", "shared", "traces", "gpu",
                       "gavel-throughputs.json")
    out = os.path.join(here, "..", "experiments", "data")
    os.makedirs(out, exist_ok=True)
    for key, name in MODELS.items():
        thr = throughputs(src, name)
        lines = []
        for i in range(24):
            gpus = 4 if i % 3 == 0 else 2
            minutes = 10 + (i * 7) % 21           # 10 .. 30 minutes
            steps = round(minutes * 60 * thr[gpus])
            lines.append("\t".join([name, "cmd", "dir", "--steps", "1",
                                    str(steps), str(gpus), "1", "-1",
                                    str(60 * i)]))
        with open(os.path.join(out, "placement-%s.trace" % key), "w") as f:
            f.write("\n".join(lines) + "\n")

if __name__ == "__main__":
    main()
