"""Train the clip counter's bend detector: `python -m firmware.bench.clip_bends_train SEED0 N OUT.json [WxH ...] [--river]`.

The shipped detectors: `python -m firmware.bench.clip_bends_train 2100 30 vision/railways/clip_bends.json`
(the links') and `... 2100 30 vision/railways/clip_bends_river.json --river` (the River's).

Why a tool and not code the reader runs: the detector (vision/railways/clip_bends.json)
is learnt once from seeded synthetic tables and shipped; this rebuilds it. Each true
link of the tables (the River only, with --river) is straightened exactly as the reader does (firmware.bench.clip_count's
wire maps, pipeline._chain_strip at the standard 32 mm), and every row is labelled
from the rendered clips: a clip's near end within one row, or no end within three rows.
Far ends are near ends of the strip read backwards. Train only on dev seeds (2100-2129, checked on 2130-2139);
the held-out seeds must stay unseen.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

# Session 13 (R10): retrained on seeds 9000-9029 only (both resolutions, this recipe,
# 870 s, peak about 8 GB), and compared with the shipped detector (trained on dev
# 2100-2129) on the reader's own strips of dev 2130-2139, which neither saw: exact counts
# 79 -> 82 of 113 matched links at 4608x2592, 49 -> 48 of 101 at 2304x1296; on 2100-2129
# 243 -> 231 and 155 -> 138 (the shipped one has seen those). Not shipped: no clear gain.
HIDDEN = 64
EPOCHS = 20
# Why the River has a detector of its own: one detector trained on the links and the River
# together (20 epochs, dev 2100-2129) counted the River better on true paths (dev 2100-2139,
# 4608x2592: 32.5 -> 40.0%) but the links worse (77.7 -> 74.1%; 2304x1296: 55.0 -> 51.8%).


def _strips(seed: int, res: tuple[int, int], river: bool = False) -> list[tuple[Any, Any, list[int], list[int]]]:
    """(evidence, weight, near-end rows, far-end rows) of every true link (or of the River
    only) of one table,
    straightened exactly as the reader does (pipeline._chain_strip at the standard clip
    length, before the table's length is known)."""
    from firmware.bench import clip_count as B
    from vision.railways import pipeline as pl
    from vision.railways.chains import LazyMap
    from vision.railways.config import RailwaysConfig
    from vision.railways.frame import blind_full
    from vision.synth import random_scene
    cfg = RailwaysConfig()
    _, truth, _ = B.scene(seed, res)
    tm = B.table_maps(seed, res, cfg)
    pieces = random_scene("railways", seed, resolution=res)["pieces"]
    chains: list[tuple[Any, Any, Any, Any, Any]] = []
    for lk in ([] if river else truth["links"]):
        poses = next(p["clips"] for p in pieces if p["kind"] == "clip_chain" and p["colour"] == lk["colour"]
                     and np.allclose(p["clips"][0]["start"], lk["path_mm"][0], atol=0.01))
        chains.append((LazyMap.over255(tm.wires[lk["colour"]]), pl._cover(tm.wires, lk["colour"]),
                       LazyMap.of(blind_full(tm.blind[lk["colour"]], tm.size)), lk["path_mm"], poses))
    if river:
        rw = np.maximum(tm.wires["blue"], tm.wires["silver"])
        nothing = LazyMap(rw.shape, lambda r, c: np.zeros((r.stop - r.start, c.stop - c.start), np.float32))
        chains.append((LazyMap.over255(rw), nothing, None, truth["river"]["path_mm"],
                       next(p["clips"] for p in pieces if p["kind"] == "river")))
    out = []
    for wire, cover, same, path, poses in chains:
        st = pl._chain_strip(tm.view, wire, cover, same, np.asarray(path, dtype=np.float64), cfg.default_clip_mm, cfg)
        if st is None:
            continue
        pts = st.points

        def row(p: Any) -> int:
            return int(np.argmin(np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])))
        ends = [(min(row(p["start"]), row(p["end"])), max(row(p["start"]), row(p["end"]))) for p in poses]
        out.append((st.evidence, st.weight, sorted(a for a, _ in ends), sorted(b for _, b in ends)))
    return out


def samples(seeds: range, resolutions: list[tuple[int, int]], river: bool = False) -> tuple[Any, Any]:
    from vision.railways.clip_counter import bend_windows, normalised
    rng = np.random.default_rng(0)
    xs, ys = [], []
    for res in resolutions:
        for s in seeds:
            for e, w, near, far in _strips(s, res, river):
                ev = normalised(e, w)
                n = len(ev)
                for back in (False, True):
                    strip = np.ascontiguousarray(ev[::-1]) if back else ev
                    tips = np.array(sorted(n - 1 - np.array(far)) if back else near)
                    d = np.abs(np.arange(n)[:, None] - tips[None, :]).min(axis=1)
                    rows = np.arange(max(0, tips.min() - 30), min(n, tips.max() + 90))
                    pos, neg = rows[d[rows] <= 1], rows[d[rows] >= 3]
                    neg = neg[rng.uniform(size=len(neg)) < 0.5]
                    rr = np.concatenate([pos, neg])
                    xs.append(bend_windows(strip, rr).astype(np.float16))     # half the memory until stacked
                    ys.append(np.r_[np.ones(len(pos)), np.zeros(len(neg))])
            print(f"  {res[0]} seed {s}: {sum(len(y) for y in ys)} samples", flush=True)
    x = np.vstack(xs)
    del xs
    return x.astype(np.float32), np.concatenate(ys).astype(np.float32)


def train(x: Any, y: Any, hidden: int = HIDDEN, epochs: int = EPOCHS, seed: int = 0) -> Any:
    """A two-layer network, class-balanced logistic loss, Adam; returns the detector with
    the standardisation and the mirror symmetry folded into its first layer."""
    from vision.railways.clip_counter import BEND_AFTER, BEND_BEFORE, BEND_COLS, BendDetector
    rng = np.random.default_rng(seed)
    mu, sd = x.mean(0), x.std(0) + 1e-3
    x -= mu         # in place: the samples take GBs
    x /= sd
    n, d = x.shape
    pw = np.float32((1 - y.mean()) / y.mean())
    w1 = (rng.normal(0, 1, (d, hidden)) / np.sqrt(d)).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = (rng.normal(0, 1, hidden) / np.sqrt(hidden)).astype(np.float32)
    b2 = np.zeros(1, np.float32)
    params = [w1, b1, w2, b2]
    ms = [np.zeros_like(p) for p in params]
    vs = [np.zeros_like(p) for p in params]
    lr, l2, batch, t = 2e-3, 1e-4, 1024, 0
    lr0 = lr
    for ep in range(epochs):
        lr = lr0 * 0.5 * (1.0 + np.cos(np.pi * ep / epochs))     # cosine decay: settles the last epochs
        perm = rng.permutation(n)
        loss = 0.0
        for i in range(0, n, batch):
            idx = perm[i:i + batch]
            xb, yb = x[idx], y[idx]
            z1 = xb @ w1 + b1
            h = np.maximum(z1, 0)
            p = 1 / (1 + np.exp(-(h @ w2 + b2[0])))
            sw = np.where(yb > 0, pw, 1).astype(np.float32)
            g = ((p - yb) * sw / len(idx)).astype(np.float32)
            loss += float(-np.sum(sw * (yb * np.log(p + 1e-7) + (1 - yb) * np.log(1 - p + 1e-7))))
            gh = np.outer(g, w2) * (z1 > 0)
            grads = [xb.T @ gh + l2 * w1, gh.sum(0), h.T @ g + l2 * w2, np.array([g.sum()], np.float32)]
            t += 1
            for prm, gr, m_, v_ in zip(params, grads, ms, vs):
                m_ *= 0.9
                m_ += 0.1 * gr
                v_ *= 0.999
                v_ += 0.001 * gr * gr
                prm -= lr * (m_ / (1 - 0.9 ** t)) / (np.sqrt(v_ / (1 - 0.999 ** t)) + 1e-7)
        print(f"  epoch {ep}: loss {loss / n:.4f}", flush=True)
    w1f = w1 / sd[:, None]
    b1f = b1 - (mu[:, None] * w1f).sum(0)
    k = BEND_BEFORE + BEND_AFTER
    chans = d // (k * BEND_COLS)
    w = w1f.reshape(chans, k, BEND_COLS, hidden)
    w = (w + w[:, :, ::-1, :]) / 2            # features were mirrored and averaged
    return BendDetector(np.ascontiguousarray(w.reshape(d, hidden), dtype=np.float32),
                        b1f.astype(np.float32), w2.astype(np.float32), float(b2[0]))


def main(argv: list[str] | None = None) -> int:
    from vision.railways.clip_counter import save_detector
    args = list(sys.argv[1:] if argv is None else argv)
    river = "--river" in args
    args = [a for a in args if a != "--river"]
    if len(args) < 3:
        print("usage: python -m firmware.bench.clip_bends_train SEED0 N OUT.json [WxH ...] [--river]", file=sys.stderr)
        return 2
    seed0, n, out = int(args[0]), int(args[1]), args[2]
    resolutions = [(int(a.split("x")[0]), int(a.split("x")[1])) for a in args[3:]] or [(4608, 2592), (2304, 1296)]
    t0 = time.perf_counter()
    x, y = samples(range(seed0, seed0 + n), resolutions, river)
    print(f"{len(y)} samples, {y.mean():.1%} clip ends", flush=True)
    save_detector(train(x, y), out)
    print(f"wrote {out} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
