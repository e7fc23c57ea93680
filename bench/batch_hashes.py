"""Hashes of every VecEnv batch, to check that a speed change left the output byte-identical:
``VecEnv(64, seed=3)``, 300 steps of seeded random legal actions, in each encoder x action mode
x auto_pass; every field of every ``pending()`` batch and every ``drain_results()`` array.
Run it on the build before and after a change and compare the lines::

    .venv/bin/python bench/batch_hashes.py
"""
import hashlib

import numpy as np

import guandan_fast as gf


def batch_hash(encoder, mode, auto_pass, steps=300):
    h = hashlib.sha256()
    env = gf.VecEnv(64, seed=3, encoder=encoder, action_mode=mode, auto_pass=auto_pass)
    b = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(steps):
        counts = np.diff(b.cand_offsets)
        local = (rng.random(len(counts)) * counts).astype(np.int64)
        env.step(local if mode == "candidates" else b.cand_ids[b.cand_offsets[:-1] + local])
        b = env.pending()
        for arr in b:
            if arr is not None:
                h.update(np.ascontiguousarray(arr).tobytes())
        for k, v in sorted(env.drain_results().items()):
            h.update(k.encode())
            h.update(np.ascontiguousarray(v).tobytes())
    return h.hexdigest()[:16]


if __name__ == "__main__":
    total = hashlib.sha256()
    for enc in ("default", "danzero", "info", None):
        for mode in ("abstract", "candidates"):
            for ap in (False, True):
                d = batch_hash(enc, mode, ap)
                total.update(d.encode())
                print(enc, mode, ap, d, flush=True)
    print("TOTAL", total.hexdigest()[:20])
