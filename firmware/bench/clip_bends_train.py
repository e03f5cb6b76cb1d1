"""Train the clip counter's bend detector: `python -m firmware.bench.clip_bends_train SEED0 N OUT.json [WxH ...] [--river] [--own [--also-true]] [--seed K]`.

The shipped detectors: `python -m firmware.bench.clip_bends_train 2100 30 vision/railways/clip_bends.json
--own --also-true --seed 2` (the links'; 7 minutes with the renders cached, 9.6 GB) and
`... 2100 30 vision/railways/clip_bends_river.json --river` (the River's, the recipe below).

Why a tool and not code the reader runs: the detector (vision/railways/clip_bends.json)
is learnt once from seeded synthetic tables and shipped; this rebuilds it. Each true
link of the tables (the River only, with --river) is straightened exactly as the reader does (firmware.bench.clip_count's
wire maps, pipeline._chain_strip at the standard 32 mm), and every row is labelled
from the rendered clips: a clip's near end within one row, or no end within three rows.
Far ends are near ends of the strip read backwards. Train only on dev seeds (2100-2129, checked on 2130-2139);
the held-out seeds must stay unseen.

--own: the strips are the reader's OWN, cut along its own traced paths as it
counts them (vision.railways.reader.analyze on the rendered table, each link's strip as
pipeline._chain_strip makes it: carried and walked ends, shortcuts, cover, centring),
instead of strips along the true paths. Each strip is given to the true chain whose centre
line its seen rows lie nearest (a median within OWN_MATCH_MM, else it is no chain's: a
false link, and skipped), and its rows are labelled from that chain's rendered clip ends
projected onto the strip's (centred) centre line (reader_strips, own_labels).
--own --river: the River's own strip instead, exactly as the reader counts it (read_river's
count with the River's detector: the reader's River path, cut at the table's learnt clip
length, uncentred), labelled from the rendered River clips the same way.
--also-true: the true-path strips of the same tables (links, or the River with --river)
are added to the reader's own.
--seed: the network's initial weights and the order of its batches (default 0).
--more SEED0 N (repeatable): more training tables, seeds SEED0 to SEED0+N-1 after the first
range (the dev range and 2300-2369 for session 34's run; never evaluation seeds).
--samples DIR: each table's samples (own, and true-path with --also-true, per resolution)
are cut once and saved to DIR (float16 x, uint8 y, and each strip's counts of clip ends and
negatives), the render freed before the next table; a table already in DIR is not cut
again (a crash, or another network seed, reuses them). ALL negatives are saved, and the
recipe's half of them is drawn when they are stacked, in the recipe's own order, so the
stacked samples equal the in-memory ones bit for bit (tests/vision/test_railways_bends_samples.py;
on dev 2100-2101 at 2304x1296 checked against session 33's main, 20963 samples). They are
stacked into one preallocated float16 array and standardised a batch at a time (100 tables
at both resolutions do not fit in memory as float32); the mean and deviation are then taken
in float64, not float32, the only arithmetic difference from the in-memory path.
OUT.json "-" with --samples: cut only.
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
# Session 21 (R21): --own and --own --also-true against the old recipe, dev 2100-2139 at
# 4608x2592 through the whole reader (exact counts, 2100-2129 / 2130-2139 unseen / all;
# main's shipped detector 258 / 86 / 344): the old recipe retrained on today's wire maps
# 256 / 85 / 341; --own seeds 0 and 1: 275 / 88 / 363 and 268 / 91 / 359 (both lost
# test_an_end_clip_short_of_a_patch_of_its_colour_is_found: the last clip placed into the
# patch); --own --also-true seeds 0-3: 270 / 91 / 361, 267 / 92 / 359, 271 / 93 / 364,
# 270 / 94 / 364. Seeds 0 and 1 of the latter lost one case of the strip centring test
# (seed 4, 14 clips, 6.5 mm off: 13; main's detector counts 14 there with three clips
# misplaced); seed 2, the first to pass every test, is shipped. 7 minutes with the renders
# cached, peak 9.6 GB.
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


# --own: how a reader's strip is labelled from the true clips
OWN_MATCH_MM = 3.0      # a strip is a true chain's when its seen rows lie a median within this of the chain's centre line
OWN_NEAR_MM = 4.0       # a true clip end labels the strip where it lies within this of the strip's centre line
OWN_SEEN_MM = 12.0      # a clip end farther off than OWN_NEAR_MM but within this is partly in the strip: no label near it
OWN_OFF_SHARE = 0.25    # a link whose seen rows lie farther than OWN_NEAR_MM from its chain on more than this share is skipped
# Why 4 mm: the strip reaches 8.25 mm either side of its centre line (a 9 mm wide clip's half
# width, its wire and 2.5 mm; 32 mm clips) and a clip end's bend spans 4.5 mm either side
# of the chain's centre line, so a clip end within 4 mm of the strip's centre line lies whole
# in the strip (the detector sees it as the reader will), one farther off only in part. On
# dev 2100-2129 (4608x2592) 90% of the true clip ends of the reader's strips lie within
# 2.6 mm of the strip's centre line and 95% within 4.9 mm; beyond that they are shortcuts,
# other chains, and ends bending away from a strip carried straight into a card.


def _polyline_distance(pts: Any, line: Any) -> Any:
    """Each point's distance (mm) to the polyline."""
    a, b, p = line[:-1][None], line[1:][None], pts[:, None]
    ab = b - a
    t = np.clip(((p - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-9), 0.0, 1.0)
    q = a + t[..., None] * ab
    return np.hypot(p[..., 0] - q[..., 0], p[..., 1] - q[..., 1]).min(axis=1)


def reader_strips(seed: int, res: tuple[int, int],
                  river: bool = False) -> tuple[list[tuple[Any, Any, int, int, Any]], list[Any]]:
    """The reader's own link strips of one table, (evidence, weight, first and last seen
    rows, centred centre points), as it counts them, and the table's true chains (their
    rendered clip poses). river: the River's strip instead (the one read_river counts with
    the River's detector, uncentred: its path is centred already), and the River's clips.
    The reader sees the pixels only; the truth is read afterwards."""
    from calibration.geometry import locate_table
    from firmware.bench import clip_count as B
    from vision.api import AnalyzeOptions
    from vision.railways import pipeline as pl
    from vision.railways import reader
    from vision.synth import random_scene
    img, _, cam = B.scene(seed, res)
    prof = B.profile_for(cam)
    fit = locate_table(img, prof)
    got: list[tuple[Any, Any, int, int, Any]] = []
    last: dict[str, Any] = {}
    maps0, chain0 = getattr(pl, "strip_maps"), pl._chain_strip

    def maps(view: Any, pts: Any, nrm: Any, half: float) -> Any:     # the centring's points
        last["pts"] = np.asarray(pts, dtype=np.float64).copy()
        return maps0(view, pts, nrm, half)

    def chain(*a: Any, **k: Any) -> Any:
        last.clear()
        st = chain0(*a, **k)
        detector = a[7] if len(a) > 7 else k.get("detector")        # only the River's count passes one
        if st is not None and ((detector is not None) if river else bool(k.get("centre"))):
            got.append((st.evidence, st.weight, st.lo, st.hi, last.get("pts", st.points)))
        return st
    setattr(pl, "strip_maps", maps)
    setattr(pl, "_chain_strip", chain)
    try:
        reader.analyze(img, fit, AnalyzeOptions(profile=prof))
    finally:
        setattr(pl, "strip_maps", maps0)
        setattr(pl, "_chain_strip", chain0)
    pieces = random_scene("railways", seed, resolution=res)["pieces"]
    return got, [p["clips"] for p in pieces if p["kind"] == ("river" if river else "clip_chain")]


def own_labels(pts: Any, lo: int, hi: int, chains: list[Any]) -> tuple[list[int], list[int], Any] | None:
    """(near-end rows, far-end rows, rows that may be labelled) of one reader's strip
    (centred centre points pts, STEP_MM apart; wire seen from row lo to hi), or None when it
    is no true chain's or runs off its chain (OWN_* above). A row may be labelled where the
    strip lies within OWN_NEAR_MM of the chain's centre line, or past a chain end that lies
    in the strip (no clip there), and not within 3 rows of a clip end only partly in the strip."""
    pts = np.asarray(pts, dtype=np.float64)
    n = len(pts)
    seen = pts[lo:hi + 1] if hi > lo else pts
    lines = [np.asarray([c[0]["start"]] + [q["end"] for q in c], dtype=np.float64) for c in chains]
    if not lines:
        return None
    meds = [float(np.median(_polyline_distance(seen, ln))) for ln in lines]
    k = int(np.argmin(meds))
    if meds[k] > OWN_MATCH_MM:
        return None
    d_rows = _polyline_distance(pts, lines[k])
    if float(np.mean(d_rows[lo:hi + 1] > OWN_NEAR_MM)) > OWN_OFF_SHARE:
        return None

    def at(p: Any) -> tuple[int, float]:
        d = np.hypot(pts[:, 0] - p[0], pts[:, 1] - p[1])
        r = int(np.argmin(d))
        return r, float(d[r])
    use = d_rows <= OWN_NEAR_MM
    rows = np.arange(n)
    first, last = at(chains[k][0]["start"]), at(chains[k][-1]["end"])
    for (r, d), other in ((first, last[0]), (last, first[0])):
        if d <= OWN_NEAR_MM and 0 < r < n - 1:                    # the chain ends in the strip
            use |= (rows < r) if r < other else (rows > r)
    near: list[int] = []
    far: list[int] = []
    for q in chains[k]:
        (a, da), (b, db) = at(q["start"]), at(q["end"])
        (a, da), (b, db) = ((a, da), (b, db)) if a <= b else ((b, db), (a, da))
        for r, d, out in ((a, da, near), (b, db, far)):
            if d <= OWN_NEAR_MM and 0 < r < n - 1:
                out.append(r)
            elif d <= OWN_SEEN_MM:
                use[max(0, r - 3):r + 4] = False
    if not near or not far:
        return None
    return sorted(near), sorted(far), use


def _cut(seed: int, res: tuple[int, int], river: bool = False, own: bool = False) -> tuple[Any, Any, Any]:
    """Every candidate sample of one table: (x float16, y uint8, groups), each strip read
    both ways (forwards, then backwards) is a group of rows, its clip-end rows (label 1)
    first, then ALL its rows 3 or more from an end (label 0); groups holds each group's
    (positives, negatives). The recipe keeps about half the negatives (_keep), drawn from
    one generator over the tables in order, so they are kept here and chosen when stacked."""
    from vision.railways.clip_counter import bend_windows, normalised
    xs, ys, groups = [], [], []
    for e, w, near, far, use in (_own(seed, res, river) if own else
                                 [(e, w, nr, fr, None) for e, w, nr, fr in _strips(seed, res, river)]):
        ev = normalised(e, w)
        n = len(ev)
        for back in (False, True):
            strip = np.ascontiguousarray(ev[::-1]) if back else ev
            tips = np.array(sorted(n - 1 - np.array(far)) if back else near)
            d = np.abs(np.arange(n)[:, None] - tips[None, :]).min(axis=1)
            if use is None:
                rows = np.arange(max(0, tips.min() - 30), min(n, tips.max() + 90))
            else:
                rows = np.flatnonzero(use[::-1] if back else use)
            pos, neg = rows[d[rows] <= 1], rows[d[rows] >= 3]
            rr = np.concatenate([pos, neg])
            xs.append(bend_windows(strip, rr).astype(np.float16))
            ys.append(np.r_[np.ones(len(pos), np.uint8), np.zeros(len(neg), np.uint8)])
            groups.append((len(pos), len(neg)))
    from vision.railways.clip_counter import BEND_AFTER, BEND_BEFORE, BEND_COLS
    d_ = 2 * (BEND_BEFORE + BEND_AFTER) * BEND_COLS
    x = np.vstack(xs) if xs else np.zeros((0, d_), np.float16)
    y = np.concatenate(ys) if ys else np.zeros(0, np.uint8)
    return x, y, np.asarray(groups, dtype=np.int64).reshape(-1, 2)


def _keep(groups: Any, rng: Any) -> Any:
    """The rows of one table's _cut the recipe keeps: every clip end and about half the
    negatives, drawn group by group exactly as the recipe always drew them."""
    keep = []
    for npos, nneg in groups:
        keep.append(np.ones(int(npos), bool))
        keep.append(rng.uniform(size=int(nneg)) < 0.5)
    return np.concatenate(keep) if keep else np.zeros(0, bool)


def samples(seeds: Any, resolutions: list[tuple[int, int]], river: bool = False,
            own: bool = False) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    xs, ys = [], []
    for res in resolutions:
        for s in seeds:
            x, y, groups = _cut(s, res, river, own)
            k = _keep(groups, rng)
            xs.append(x[k])
            ys.append(y[k])
            print(f"  {res[0]} seed {s}: {sum(len(y) for y in ys)} samples", flush=True)
    x = np.vstack(xs)
    del xs
    return x.astype(np.float32), np.concatenate(ys).astype(np.float32)


def _saved(dirname: str, seed: int, res: tuple[int, int], river: bool, kind: str) -> str:
    import os
    return os.path.join(dirname, f"{'river' if river else 'links'}_{kind}_{seed}_{res[0]}x{res[1]}")


def _kinds(own: bool, also: bool) -> list[str]:
    """The sample kinds of one run, in the order main() stacks them."""
    return (["own"] if own else ["true"]) + (["true"] if also else [])


def cut_samples(dirname: str, seeds: Any, resolutions: list[tuple[int, int]], river: bool = False,
                own: bool = False, also: bool = False) -> None:
    """--samples: each table's _cut (own, then true-path with --also-true) saved to dirname
    (NAME.x.npy float16, NAME.npz with y and groups), a table already there not cut again.
    A render the cut made is removed from the clip bench's cache after its table (the cache
    is not the samples' store); renders cached before are left."""
    import gc
    import os
    from firmware.bench import clip_count as B
    os.makedirs(dirname, exist_ok=True)
    kinds = _kinds(own, also)
    for res in resolutions:
        for s in seeds:
            todo = [k for k in kinds if not os.path.exists(_saved(dirname, s, res, river, k) + ".npz")]
            if not todo:
                continue
            t0 = time.perf_counter()
            made = [p for p in (os.path.join(B.cache_dir(), f"{s}_{res[0]}{e}") for e in (".pkl", ".maps.pkl"))
                    if not os.path.exists(p)]
            rows = []
            for k in todo:
                x, y, groups = _cut(s, res, river, own=(k == "own"))
                base = _saved(dirname, s, res, river, k)
                np.save(base + ".x.tmp.npy", x)
                os.replace(base + ".x.tmp.npy", base + ".x.npy")
                np.savez(base + ".tmp.npz", y=y, groups=groups)
                os.replace(base + ".tmp.npz", base + ".npz")          # last: the table is saved
                rows.append(f"{k} {len(y)}")
                del x, y, groups
            for p in made:
                if os.path.exists(p):
                    os.remove(p)
            gc.collect()
            print(f"  {res[0]} seed {s}: {', '.join(rows)} rows cut in {time.perf_counter() - t0:.0f} s", flush=True)


def load_samples(dirname: str, seeds: Any, resolutions: list[tuple[int, int]], river: bool = False,
                 own: bool = False, also: bool = False) -> tuple[Any, Any]:
    """The saved tables stacked exactly as samples() stacks them (own, then true-path, each
    kind with its own generator default_rng(0) over resolution, then seed), into one
    preallocated float16 array (x, y float32): the rows are counted first."""
    kinds = _kinds(own, also)
    plan = []
    for k in kinds:
        rng = np.random.default_rng(0)
        for res in resolutions:
            for s in seeds:
                base = _saved(dirname, s, res, river, k)
                with np.load(base + ".npz") as z:
                    keep = np.flatnonzero(_keep(z["groups"], rng))
                    plan.append((base, keep, z["y"][keep]))
    total = int(sum(len(k) for _, k, _ in plan))
    first = np.load(plan[0][0] + ".x.npy", mmap_mode="r")
    x = np.empty((total, first.shape[1]), np.float16)
    y = np.empty(total, np.float32)
    at = 0
    for base, idx, yy in plan:
        xm = np.load(base + ".x.npy", mmap_mode="r")
        m = len(idx)
        x[at:at + m] = xm[idx]
        y[at:at + m] = yy
        at += m
        del xm
    return x, y


def _own(seed: int, res: tuple[int, int], river: bool = False) -> list[tuple[Any, Any, list[int], list[int], Any]]:
    """The reader's strips of one table (its links', or its River's) that can be labelled
    honestly, with their labels."""
    got, chains = reader_strips(seed, res, river)
    out = []
    for e, w, lo, hi, pts in got:
        lab = own_labels(pts, lo, hi, chains)
        if lab is not None:
            out.append((e, w, lab[0], lab[1], lab[2]))
    return out


def _stats(x: Any, chunk: int = 200_000) -> tuple[Any, Any]:
    """Each feature's mean and standard deviation (float32) over a float16 sample array,
    a chunk at a time in float64 (two passes: no float32 copy of the whole array)."""
    n = len(x)
    s = np.zeros(x.shape[1], np.float64)
    for i in range(0, n, chunk):
        s += x[i:i + chunk].astype(np.float64).sum(0)
    mu = s / n
    v = np.zeros(x.shape[1], np.float64)
    for i in range(0, n, chunk):
        v += ((x[i:i + chunk].astype(np.float64) - mu) ** 2).sum(0)
    return mu.astype(np.float32), np.sqrt(v / n).astype(np.float32)


TINY = 1e-30


def _flush(a: Any) -> None:
    """Values below TINY (nothing the training can feel) set to 0 in place: denormal floats
    make every operation on them (the matrix products above all) many times slower, and a
    long training reaches them (sure negatives' gradients, decayed moments). Session 34, 100
    tables: an epoch took 26 s, then 136 s and 450 s as they built up; flushed, 26-30 s
    throughout, the epochs' losses the same to four places."""
    a[np.abs(a) < TINY] = 0.0


def train(x: Any, y: Any, hidden: int = HIDDEN, epochs: int = EPOCHS, seed: int = 0) -> Any:
    """A two-layer network, class-balanced logistic loss, Adam; returns the detector with
    the standardisation and the mirror symmetry folded into its first layer."""
    from vision.railways.clip_counter import BEND_AFTER, BEND_BEFORE, BEND_COLS, BendDetector
    rng = np.random.default_rng(seed)
    n, d = x.shape
    if x.dtype == np.float16:       # --samples: 100 tables do not fit as float32; each batch is standardised
        mu, sd = _stats(x)
        sd += np.float32(1e-3)

        def rows(idx: Any) -> Any:
            return (x[idx].astype(np.float32) - mu) / sd
    else:
        mu, sd = x.mean(0), x.std(0) + 1e-3
        x -= mu         # in place: the samples take GBs
        x /= sd

        def rows(idx: Any) -> Any:
            return x[idx]
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
        t_ep = time.perf_counter()
        loss = 0.0
        for i in range(0, n, batch):
            idx = perm[i:i + batch]
            xb, yb = rows(idx), y[idx]
            z1 = xb @ w1 + b1
            h = np.maximum(z1, 0)
            p = 1 / (1 + np.exp(-(h @ w2 + b2[0])))
            sw = np.where(yb > 0, pw, 1).astype(np.float32)
            g = ((p - yb) * sw / len(idx)).astype(np.float32)
            _flush(g)
            loss += float(-np.sum(sw * (yb * np.log(p + 1e-7) + (1 - yb) * np.log(1 - p + 1e-7))))
            gh = np.outer(g, w2) * (z1 > 0)
            _flush(gh)
            grads = [xb.T @ gh + l2 * w1, gh.sum(0), h.T @ g + l2 * w2, np.array([g.sum()], np.float32)]
            t += 1
            for prm, gr, m_, v_ in zip(params, grads, ms, vs):
                m_ *= 0.9
                m_ += 0.1 * gr
                v_ *= 0.999
                v_ += 0.001 * gr * gr
                prm -= lr * (m_ / (1 - 0.9 ** t)) / (np.sqrt(v_ / (1 - 0.999 ** t)) + 1e-7)
                for a in (prm, m_, v_):
                    _flush(a)
        print(f"  epoch {ep}: loss {loss / n:.4f} ({time.perf_counter() - t_ep:.0f} s)", flush=True)
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
    river, own, also = "--river" in args, "--own" in args, "--also-true" in args
    seed = 0
    if "--seed" in args:
        at = args.index("--seed")
        seed = int(args[at + 1])
        del args[at:at + 2]
    more: list[int] = []
    while "--more" in args:
        at = args.index("--more")
        more += list(range(int(args[at + 1]), int(args[at + 1]) + int(args[at + 2])))
        del args[at:at + 3]
    store = None
    if "--samples" in args:
        at = args.index("--samples")
        store = args[at + 1]
        del args[at:at + 2]
    args = [a for a in args if a not in ("--river", "--own", "--also-true")]
    if len(args) < 3 or (also and not own):
        print("usage: python -m firmware.bench.clip_bends_train SEED0 N OUT.json [WxH ...] [--river]"
              " [--own [--also-true]] [--seed K] [--more SEED0 N ...] [--samples DIR]", file=sys.stderr)
        return 2
    seed0, n, out = int(args[0]), int(args[1]), args[2]
    seeds = list(range(seed0, seed0 + n)) + more
    resolutions = [(int(a.split("x")[0]), int(a.split("x")[1])) for a in args[3:]] or [(4608, 2592), (2304, 1296)]
    t0 = time.perf_counter()
    if store is not None:
        cut_samples(store, seeds, resolutions, river, own, also)
        print(f"samples cut in {time.perf_counter() - t0:.0f} s", flush=True)
        if out == "-":              # cut only, train nothing
            return 0
        x, y = load_samples(store, seeds, resolutions, river, own, also)
    else:
        x, y = samples(seeds, resolutions, river, own)
        if also:
            x2, y2 = samples(seeds, resolutions, river)
            x, y = np.vstack([x, x2]), np.concatenate([y, y2])
            del x2, y2
    print(f"{len(y)} samples, {y.mean():.1%} clip ends ({time.perf_counter() - t0:.0f} s)", flush=True)
    save_detector(train(x, y, seed=seed), out)
    print(f"wrote {out} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
