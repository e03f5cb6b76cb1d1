"""Count the clips of one chain: a learnt detector finds clip ends (bends) along the
straightened chain, and a dynamic programme places rigid clips whose both ends it saw.

Why not length / pitch: slack varies from taut to bunched, so a chain's length does not
give its count. Each clip is a rigid wire loop of known length (learnt from the River)
whose two ends are bends of wire across the chain; a clip starting at row u ends at row
u + length. Why a learnt detector: a hand-made clip template or bend filter was measured
(firmware/bench/clip_count.py) and read a third of the links right; the look of a clip
end among overlapping neighbours, twisted clips, cubes and blur is learnt instead from
seeded synthetic chains (firmware/bench/clip_bends_train.py 2100 30 --own --also-true
--seed 2: dev seeds 2100-2129 at both resolutions, links only, 64 hidden units, 20 epochs
at a cosine-decayed rate; 2130-2139 kept for checking it). It learns from the strips the
reader itself cuts along its own traced paths (offsets, shortcuts, cover, centring), each
row labelled from the true clips projected onto them, and from strips along the true
paths. Why the reader's own strips: the detector trained on true paths alone misread the
ambiguous strips the reader gives it (R20: 37 of 119 wrong counts on dev had the true
layout open to the counter but scored lower); retrained so, dev 2100-2139 at 4608x2592
went from 344 to 364 exact counts of 525 links (2130-2139, unseen by the training: 86 ->
93 of 138), at 2304x1296 from 222 to 230, colour, ends and crossings unchanged. The River
has its own detector, trained on true paths of the River's chains (--river).
Why the counts at 2304x1296 stay weak: a table millimetre is only about 0.7 camera
pixels there (1.4 at 4608x2592), so the 1 mm wire is under a pixel and a clip's nested
loops, about 2 px apart, blur into one blob; a detector trained at that resolution
alone did no better (dev 2100-2139: 54.5 against 54.3% of links exact).
The detector is a small two-layer network over a window of the strip; it runs as one
matrix product per strip, both ways along (a clip's far end is a near end seen from the
other side).
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

F32 = NDArray[Any]

STEP_MM = 0.5                       # strip sampling along and across the chain
DETECTOR_FILE = Path(__file__).with_name("clip_bends.json")
RIVER_DETECTOR_FILE = Path(__file__).with_name("clip_bends_river.json")


@dataclass(frozen=True)
class CountResult:
    """The best clip sequence: count, clip start positions (mm along the strip), the
    change of the price per clip (either way) the count was checked to resist (0: it did
    not), the confidence, the share of the chain's rows marked covered, and the
    sequence's score."""

    count: int
    starts_mm: tuple[float, ...]
    margin: float
    confidence: float
    neutral_fraction: float
    score: float = 0.0


def oriented_evidence(evidence: F32) -> tuple[F32, F32]:
    """(across, along): wire running across the strip (the bends at clip ends) and wire
    running along it (the legs). A line along the strip looks the same one step further
    along, so it cancels in `across`, and vice versa."""
    e = evidence.astype(np.float32)
    k = 3
    across_box = cv2.blur(e, (k, 1), borderType=cv2.BORDER_REPLICATE)      # smooth across (cols)
    sh = 3
    up = np.vstack([across_box[:1].repeat(sh, 0), across_box[:-sh]])
    dn = np.vstack([across_box[sh:], across_box[-1:].repeat(sh, 0)])
    across = np.clip(across_box - np.maximum(up, dn), 0.0, 1.0)
    along_box = cv2.blur(e, (1, k), borderType=cv2.BORDER_REPLICATE)       # smooth along (rows)
    lf = np.hstack([along_box[:, :1].repeat(sh, 1), along_box[:, :-sh]])
    rt = np.hstack([along_box[:, sh:], along_box[:, -1:].repeat(sh, 1)])
    along = np.clip(along_box - 0.5 * (lf + rt), 0.0, 1.0)
    return across.astype(np.float32), along.astype(np.float32)


def normalised(evidence: F32, weight: F32) -> F32:
    """Evidence scaled so that clearly seen wire is 1 (its contrast varies with colour,
    table and resolution)."""
    ev = evidence.astype(np.float32)
    seen = ev[weight.min(axis=1) > 0] if weight.ndim == 2 else ev
    top = float(np.percentile(seen.max(axis=1), 75)) if len(seen) else 1.0
    return np.asarray(np.clip(ev / max(0.15, top), 0.0, 1.0), dtype=np.float32)


BEND_COLS = 24          # the strip resampled to this many samples across
BEND_BEFORE = 8         # rows of the window before a bend's row
BEND_AFTER = 16         # and from it on


def bend_channels(ev: F32) -> list[F32]:
    """What the bend detector looks at: the evidence resampled to BEND_COLS across (so
    clips of any size look alike) and its wire running across the strip."""
    x = cv2.resize(np.ascontiguousarray(ev, dtype=np.float32), (BEND_COLS, ev.shape[0]),
                   interpolation=cv2.INTER_AREA)
    across, _ = oriented_evidence(x)
    return [np.asarray(x, np.float32), across]


def bend_windows(ev: F32, rows: NDArray[Any]) -> F32:
    """Feature vectors (one per row: every channel's window, mirrored and averaged so a
    clip lying face down reads the same) for training the detector."""
    out = []
    for ch in bend_channels(ev):
        pad = cv2.copyMakeBorder(ch, BEND_BEFORE, BEND_AFTER, 0, 0, cv2.BORDER_CONSTANT, value=(0.0,))
        win = np.stack([pad[r:r + BEND_BEFORE + BEND_AFTER] for r in rows])
        out.append(((win + win[:, :, ::-1]) / 2).reshape(len(rows), -1))
    return np.asarray(np.hstack(out), dtype=np.float32)


@dataclass(frozen=True)
class BendDetector:
    """h = relu(x @ w1 + b1); logit = h @ w2 + b2, x = bend_windows' features."""

    w1: F32
    b1: F32
    w2: F32
    b2: float


def _array(d: dict[str, Any]) -> F32:
    raw = base64.b64decode(d["data"])
    return np.frombuffer(raw, dtype=np.float32).reshape(d["shape"]).copy()


DEAD_WEIGHT = 1e-20
"""First-layer weights smaller than this are read as 0. Why: training leaves a fifth of
the link detector's weights dead, near 1e-38 (many subnormal), and a product with a
subnormal operand or result costs x86 a hundred times a normal one: the detector's one
matrix product per strip took a third of the reader's time. Their products (the inputs
are at most 2) are 1e-11 of a float32 step of any sum the detector sees, so its log-odds
are unchanged (checked to the bit on every strip of the issue tables)."""


def _flushed(w: F32) -> F32:
    """w with its dead weights (DEAD_WEIGHT) set to 0."""
    return np.where(np.abs(w) < DEAD_WEIGHT, np.float32(0.0), w).astype(np.float32)


@lru_cache(maxsize=2)
def load_detector(path: str = str(DETECTOR_FILE)) -> BendDetector:
    """The trained bend detector (written by firmware/bench/clip_bends_train.py)."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        return BendDetector(_flushed(_array(d["w1"])), _array(d["b1"]), _array(d["w2"]), float(d["b2"]))
    except (OSError, ValueError, KeyError) as e:
        raise RuntimeError(f"railways: clip end detector {path} is missing or damaged ({e}); "
                           "reinstall tableref") from e


def load_river_detector() -> BendDetector:
    """The River's own bend detector (its blue and silver clips; one detector trained on
    links and River together counted the links worse: firmware/bench/clip_bends_train.py)."""
    return load_detector(str(RIVER_DETECTOR_FILE))


def save_detector(det: BendDetector, path: str) -> None:
    def enc(a: F32) -> dict[str, Any]:
        a = np.ascontiguousarray(a, dtype=np.float32)
        return {"shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode("ascii")}
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"cols": BEND_COLS, "before": BEND_BEFORE, "after": BEND_AFTER,
                   "w1": enc(det.w1), "b1": enc(det.b1), "w2": enc(det.w2), "b2": det.b2}, f)


def _all_windows(ev: F32) -> F32:
    """bend_windows for every row at once (not mirrored: the weights are)."""
    k = BEND_BEFORE + BEND_AFTER
    out = []
    for ch in bend_channels(ev):
        pad = cv2.copyMakeBorder(ch, BEND_BEFORE, BEND_AFTER - 1, 0, 0, cv2.BORDER_CONSTANT, value=(0.0,))
        out.append(sliding_window_view(pad, (k, BEND_COLS))[:, 0].reshape(ev.shape[0], -1))
    return np.asarray(np.hstack(out), dtype=np.float32)


def _folds(det: BendDetector) -> bool:
    """Whether the detector's first layer is mirror-symmetric across the strip (training
    folds the mirrored features into it), so that bend_logits may fold each window."""
    key = id(det.w1)
    got = _FOLDS.get(key)
    if got is None or got[0] is not det.w1:
        chans = len(det.w1) // ((BEND_BEFORE + BEND_AFTER) * BEND_COLS)
        w = det.w1.reshape(chans, BEND_BEFORE + BEND_AFTER, BEND_COLS, -1)
        got = (det.w1, not BEND_COLS % 2 and bool(np.array_equal(w, w[:, :, ::-1])))
        _FOLDS[key] = got
    return got[1]


_FOLDS: dict[int, tuple[F32, bool]] = {}


def folded_channels(ev: F32) -> list[F32]:
    """bend_channels(ev), each folded across the strip (column c plus column
    BEND_COLS-1-c). Why apart: every row of a channel is made from that row alone (the
    across-resize, the across-blur) but for `across`'s shifts along, whose max of both
    ways is the same either way round, so the channels of the strip read backwards are
    these read backwards, to the bit: end_scores makes them once for both ways."""
    half = BEND_COLS // 2
    return [np.ascontiguousarray(ch[:, :half] + ch[:, ::-1][:, :half]) for ch in bend_channels(ev)]


def bend_logits(ev: F32, det: BendDetector, folded: list[F32] | None = None) -> F32:
    """Per row: the detector's log-odds that a clip's near end (its bend) lies there.
    folded: folded_channels(ev) when the caller has them."""
    if ev.shape[0] == 0:
        return np.zeros(0, np.float32)
    # the first layer's weights are mirror-symmetric across the strip (training folds the
    # mirrored features into them), so each window is folded first, column c plus column
    # BEND_COLS-1-c, against half the weights: half the product, the same sums but for
    # float rounding (_all_windows @ w1 is the unfolded form)
    chans = len(det.w1) // ((BEND_BEFORE + BEND_AFTER) * BEND_COLS)
    half = BEND_COLS // 2
    if ev.shape[0] < 3 or not _folds(det):                  # (fewer rows: as before)
        x, w1 = _all_windows(ev), det.w1
    else:
        w = det.w1.reshape(chans, BEND_BEFORE + BEND_AFTER, BEND_COLS, -1)
        k = BEND_BEFORE + BEND_AFTER
        n = ev.shape[0]
        x = np.empty((n, chans, k, half), np.float32)
        for i, fch in enumerate(folded if folded is not None else folded_channels(ev)):
            pad = cv2.copyMakeBorder(fch, BEND_BEFORE, BEND_AFTER - 1, 0, 0, cv2.BORDER_CONSTANT, value=(0.0,))
            x[:, i] = sliding_window_view(pad, (k, half))[:, 0]
        x = x.reshape(n, -1)
        w1 = np.ascontiguousarray(w[:, :, :half].reshape(-1, w.shape[-1]))
    h = np.maximum(x @ w1 + det.b1, 0.0)
    return np.asarray(h @ det.w2 + np.float32(det.b2), dtype=np.float32)


def end_scores(evidence: F32, weight: F32, det: BendDetector, cap: float) -> tuple[F32, F32]:
    """(near, far): per row, the capped log-odds of a clip's near end / far end there.

    Why not 0 (no opinion) where the chain is marked covered, as before: the evidence is
    the chain's own colour only, and the cover map marks a white chain hidden wherever
    the silver map also fires on it (a median white link was 'seen' on 26% of its rows).
    The detector was trained on such rows; trusting it there took dev 4608x2592 counts
    on true paths from 61.1% to 68.4% (2304x1296: 44.8 -> 46.7%)."""
    ev = normalised(evidence, weight)
    fwd: list[F32] | None = None
    back: list[F32] | None = None
    if ev.shape[0] >= 3 and _folds(det):
        fwd = folded_channels(ev)
        back = [np.ascontiguousarray(f[::-1]) for f in fwd]
    near = bend_logits(ev, det, fwd)
    far = bend_logits(np.ascontiguousarray(ev[::-1]), det, back)[::-1]
    return np.clip(near, -cap, cap).astype(np.float32), np.clip(far, -cap, cap).astype(np.float32)


def count_clips(evidence: F32, weight: F32, length_mm: float, width_mm: float, wire_mm: float,
                first_mm: float, last_mm: float, clip_cost: float = 2.5, cap: float = 3.0,
                pitch_range: tuple[float, float] = (0.5, 0.94), end_before_mm: float = 2.0,
                end_after_mm: float = 4.0, detector: BendDetector | None = None,
                ends: tuple[F32, F32] | None = None, end_slope: float = 0.0,
                end_free_mm: float = 1.0, margin_test: float = 1.0, sure_clip: float = 3.0,
                end_agree_mm: float = 2.0, bare_mm: tuple[float, float] = (2.0, 8.0),
                windows: tuple[tuple[float, float] | None, tuple[float, float] | None] = (None, None),
                pitch_change: float = 0.0, card_margin: float = 0.0, card_weakest: float = 1.0) -> CountResult:
    """Count the clips in a straightened chain strip (rows along, STEP_MM apart).

    first_mm / last_mm: where the chain's wire was seen to begin and end along the strip;
    the first clip starts between end_before_mm outside (before first_mm) and end_after_mm
    inside it, the last clip ends likewise about last_mm (outside = after it): the seen
    end may be a cube past the chain or stop short at a covered clip. Past end_free_mm
    an end costs end_slope per mm inside, and outside too where the strip past the end is
    seen bare (0: the window is all there is): on true paths the end clip lies at the seen
    end on most links but up to 30 mm inside it on a few (a cube or card printing of the
    chain's colour past it). width_mm / wire_mm are not needed by the detector (it sees
    the strip resampled to the clip's width).
    ends: the strip's end_scores when already computed (they do not depend on the length,
    and the table's clip length is learnt from them before any chain is counted).

    Confidence: a count is sure (confidence >= 0.5) only when it resists a change of the
    price per clip by margin_test either way, every placed clip has both ends seen with
    summed log-odds >= sure_clip, and the end clips lie within end_agree_mm of where the
    wire was seen to end (else the DP guessed an end). Without the last condition dev
    tables 2100-2139 (true paths) had no wrong sure count (139 of 1050) but held-out
    2200-2219 had 4 of 79, each with an end clip 3.5-14 mm from the seen end; with it,
    dev 85 of 1050 and held-out 44 of 660 sure, none wrong.
    windows: where the first clip's start and the last clip's end may lie (mm along the
    strip, (lo, hi)) when a station's card says so; they replace the window about the
    seen end (pipeline._card_windows).
    pitch_change: the slack's prior (_dp_smooth), log-odds per clip length a gap between
    two clips differs from the gap before it (0: none, the plain _dp). Why: a chain's
    slack changes slowly from joint to joint, while the detector's misses and stray peaks
    make the wrong layouts uneven: on dev 2100-2139 (the reader's own strips) 20 with a
    price per clip of 1.5 took exact counts from 287 to 322 of 525 links at 4608x2592
    and from 174 to 204 at 2304x1296 (14 and 2.0: 318 and 193); taut chains read long
    and bunched ones short before.
    card_margin / card_weakest: a count whose both end clips lie in a card's window (its
    ends are the stations', not where the wire was last seen) is also sure when it resists
    a change of the price per clip by card_margin either way and every clip's two ends sum
    to card_weakest (0: off). Why: the ends rule above flags almost none of these (the
    end clip lies inside the card, away from the seen wire's end): 1 of 442 matched links
    on dev 2100-2139 at 4608x2592. With 8 and 1 it flagged 29 of 525 dev links, all
    exact, but 20 of 330 held-out links with one wrong (2215: the reader's path leaves
    its chain by 20 mm at a station beside a crossing, and the card rule trusts the
    path's ends), so the reader has it off (RailwaysConfig.count_card_margin = 0).
    And the strip must be seen and bare from bare_mm[0] to bare_mm[1] past both end clips
    (the chain is seen to end there; (0, 0): not asked). Why: the seen wire ends start
    from the traced path's ends, and the reader's paths are not the truth's (the whole
    reader flagged 1 wrong of 3 at 4608x2592 on the bench). On dev 2100-2139 at 4608 with
    one end of the true path cut 40-120 mm short (a trace broken at a crossing or a cube)
    the last condition alone flagged 23 of 1050 such strips, all wrong; with it none."""
    m = int(round(length_mm / STEP_MM))
    n = evidence.shape[0] - m
    if n <= 0 or evidence.shape[0] < 4:
        return CountResult(0, (), 0.0, 0.0, 1.0)
    if ends is None:
        ends = end_scores(evidence, weight, detector if detector is not None else load_detector(), cap)
    near, far = ends
    scores = (near[:n] + far[m:m + n]).reshape(-1, 1).astype(np.float32)
    qmin = max(1, int(round(pitch_range[0] * length_mm / STEP_MM)))
    qmax = max(qmin, int(round(pitch_range[1] * length_mm / STEP_MM)))
    costs = np.zeros((1, 1, qmax - qmin + 1), dtype=np.float32)
    rows = np.arange(n)
    f, l_ = first_mm / STEP_MM, last_mm / STEP_MM
    b, a = end_before_mm / STEP_MM, end_after_mm / STEP_MM
    # past an end where the strip is seen and bare, the chain does not go on: an end
    # clip placed out there pays; past a covered end it may well go on
    out0 = weight[max(0, int(f) - 8):max(0, int(f)) + 1]
    out1 = weight[int(l_):int(l_) + 9]
    s0 = end_slope if len(out0) and float(out0.mean()) >= 0.5 else 0.0
    s1 = end_slope if len(out1) and float(out1.mean()) >= 0.5 else 0.0
    start_ok = _end_gain(rows - f, b, a, end_slope, end_free_mm, s0)
    end_ok = _end_gain(l_ - (rows + m), b, a, end_slope, end_free_mm, s1)
    # a station's card says where the end clip lies better than the wire seen does: the
    # end clip's window is then the card's, priced as before by its distance from the seen end
    if windows[0] is not None:
        start_ok = _in_window(rows, windows[0], _end_gain(rows - f, math.inf, math.inf, end_slope, end_free_mm, s0),
                              start_ok)
    if windows[1] is not None:
        end_ok = _in_window(rows + m, windows[1],
                            _end_gain(l_ - (rows + m), math.inf, math.inf, end_slope, end_free_mm, s1), end_ok)

    def solve(lam: float) -> tuple[float, list[tuple[int, int]]]:
        if pitch_change > 0:
            return _dp_smooth(scores[:, 0], qmin, qmax, lam, start_ok, end_ok, pitch_change * STEP_MM / length_mm)
        return _dp(scores, costs, qmin, qmax, lam, start_ok, end_ok, 1.0)

    total, seq = solve(clip_cost)
    if not seq:
        return CountResult(0, (), 0.0, 0.0, 1.0)
    count = len(seq)
    # the optimal count can only fall as the price rises, so resisting +-margin_test
    # means resisting every smaller change too
    stable = all(len(solve(clip_cost + sgn * margin_test)[1]) == count for sgn in (-1.0, 1.0))
    lo, hi = int(max(0, f)), int(min(len(weight), l_))
    neutral = float(1.0 - (weight[lo:hi].min(axis=1) > 0).mean()) if hi > lo else 1.0
    weakest = float(min(scores[u, 0] for u, _ in seq))
    # (resisting the wide change implies resisting +-margin_test: asked only then)
    wide = (stable and windows[0] is not None and windows[1] is not None and card_margin > margin_test
            and weakest >= card_weakest
            and all(len(solve(clip_cost + sgn * card_margin)[1]) == count for sgn in (-1.0, 1.0)))
    agree = end_agree_mm / STEP_MM
    ends_seen = abs(seq[0][0] - f) <= agree and abs(seq[-1][0] + m - l_) <= agree
    if bare_mm[1] > bare_mm[0]:
        ends_seen = ends_seen and _bare_beyond(evidence, weight, seq[0][0], seq[-1][0] + m, bare_mm)
    if stable and weakest >= sure_clip and ends_seen:
        conf = 0.5 + 0.5 * min(1.0, (weakest - sure_clip) / max(1e-6, 2.0 * cap - sure_clip))
    elif wide:
        conf = 0.5 + 0.5 * min(1.0, max(0.0, weakest - card_weakest) / max(1e-6, 2.0 * cap - card_weakest))
    else:
        conf = 0.45 * min(1.0, max(0.0, weakest / sure_clip)) * (1.0 if stable else 0.5) * (1.0 if ends_seen else 0.5)
    return CountResult(count, tuple(u * STEP_MM for u, _ in seq), card_margin if wide else margin_test if stable else 0.0,
                       float(conf),
                       neutral, float(total))


def _bare_beyond(evidence: F32, weight: F32, first: int, last: int, bare_mm: tuple[float, float]) -> bool:
    """Whether the strip is seen and bare of wire from bare_mm[0] to bare_mm[1] past both
    end clips (rows first and last): the chain really ends there. Why not trust the seen
    wire ends alone: they start from the traced path's ends, and the reader's ends lie
    a median 9 mm (4608x2592) to 13 mm (2304x1296) off the truth, so a path cut short
    by a crossing or a cube gives a strip that stops inside the chain."""
    cols = evidence.shape[1]
    mid = slice(max(0, cols // 2 - 8), min(cols, cols // 2 + 9))
    pres = (np.where(weight > 0, evidence, 0.0)[:, mid] > 0.3).max(axis=1)
    seen = weight[:, mid].min(axis=1) > 0
    k0, k1 = int(round(bare_mm[0] / STEP_MM)), int(round(bare_mm[1] / STEP_MM))
    for a, b in ((first - k1, first - k0), (last + k0 + 1, last + k1 + 1)):
        if a < 0 or b > len(pres):
            return False        # the strip stops before the chain is seen to end
        if float(seen[a:b].mean()) < 0.8 or float(pres[a:b].mean()) > 0.1:
            return False
    return True


def _in_window(at: NDArray[Any], window: tuple[float, float], gain: F32, fallback: F32) -> F32:
    """gain where `at` (rows) lies within window (mm along the strip), else ruled out; the
    fallback when the window holds no row at all (the strip does not reach it)."""
    inside = (at >= window[0] / STEP_MM) & (at <= window[1] / STEP_MM)
    if not inside.any():
        return fallback
    return np.where(inside, gain, np.float32(-1e9)).astype(np.float32)


def _end_gain(inside: NDArray[Any], before: float, after: float, slope: float, free_mm: float,
              slope_out: float) -> F32:
    """Score of the chain's first (last) clip end lying `inside` rows inside the wire's
    seen end: allowed from `before` rows outside to `after` inside, and past free_mm
    it costs `slope` per mm inside, `slope_out` outside (the seen end is usually right,
    but a cube or a card's printing past the end clip can carry it on, and a covered end
    clip can stop it short: the DP must then find the end)."""
    free = free_mm / STEP_MM
    g = -(np.float32(slope) * np.maximum(0.0, inside - free) + np.float32(slope_out) * np.maximum(0.0, -inside - free)) * STEP_MM
    return np.where((inside >= -before) & (inside <= after), g, np.float32(-1e9)).astype(np.float32)


def _dp(scores: F32, costs: F32, qmin: int, qmax: int, lam: float, start_ok: F32,
        end_ok: F32, kappa: float) -> tuple[float, list[tuple[int, int]]]:
    """Best sequence score and its (row, pose) list; rows increase by qmin..qmax."""
    n, P = scores.shape
    Q = qmax - qmin + 1
    neg = np.float32(-1e9)
    best = np.full((n, P), neg, dtype=np.float32)
    back = np.full((n, P, 2), -1, dtype=np.int32)
    gain = scores - np.float32(lam)
    cost = (costs * np.float32(kappa)).transpose(2, 0, 1)     # (Q, P', P)
    best[: min(qmin, n)] = np.maximum(start_ok[: min(qmin, n), None] + gain[: min(qmin, n)], neg)
    qs = np.arange(qmin, qmax + 1)
    for b0 in range(qmin, n, qmin):
        b1 = min(n, b0 + qmin)
        us = np.arange(b0, b1)
        prev = us[:, None] - qs[None, :]                        # (B, Q)
        valid = prev >= 0
        pv = best[np.clip(prev, 0, n - 1)]                      # (B, Q, P')
        pv = np.where(valid[..., None], pv, neg)
        cand = pv[..., None] - cost[None]                       # (B, Q, P', P)
        flat = cand.reshape(len(us), Q * P, P)
        arg = flat.argmax(axis=1)                               # (B, P)
        val = np.take_along_axis(flat, arg[:, None, :], axis=1)[:, 0, :]
        startv = np.broadcast_to(start_ok[us, None], (len(us), P))
        use_start = startv >= val
        tot = np.maximum(val, startv) + gain[us]
        best[us] = np.maximum(tot, neg)
        qi, pi = arg // P, arg % P
        back[us, :, 0] = np.where(use_start, -1, us[:, None] - qs[qi])
        back[us, :, 1] = np.where(use_start, -1, pi)
    fin = np.maximum(best + end_ok[:, None], neg)
    idx = int(np.argmax(fin))
    u, p = divmod(idx, P)
    total = float(fin[u, p])
    if total <= -1e8:
        return -math.inf, []
    seq = [(u, p)]
    while True:
        pu, pp = int(back[u, p, 0]), int(back[u, p, 1])
        if pu < 0:
            break
        u, p = pu, pp
        seq.append((u, p))
    seq.reverse()
    return total, seq


def _dp_smooth(scores: F32, qmin: int, qmax: int, lam: float, start_ok: F32, end_ok: F32,
               per_row: float) -> tuple[float, list[tuple[int, int]]]:
    """_dp with the slack's prior: a clip's gap to the next (qmin..qmax rows) costs
    per_row per row it differs from the gap before it (a chain's slack changes slowly
    from joint to joint, so the detector's stray peaks between true ends, which make
    one gap short and the next long, pay for it). The state is (row of the clip's near
    end, the gap that led to it); the first clip has no gap before it (and pays none).
    Returns (total, [(row, 0), ...])."""
    n = len(scores)
    Q = qmax - qmin + 1
    neg = np.float32(-1e9)
    qs = np.arange(qmin, qmax + 1)
    gain = (scores - np.float32(lam)).astype(np.float32)
    first = np.full(n, neg, np.float32)
    k = min(n, len(start_ok))
    first[:k] = np.maximum(start_ok[:k] + gain[:k], neg)
    change = (np.float32(per_row) * np.abs(qs[:, None] - qs[None, :])).astype(np.float32)     # (q, q')
    # Why this form: row u's best from gap q is max over q' of best[u - q, q'] - change[q, q'];
    # that max over q' is made once per row (u - q) as soon as the row is final
    # (`reach`, reduced over a leading axis), and the argmax only for the few states the
    # best sequence passes through (at the traceback), where the whole-block argmax along
    # a 27-long last axis was most of the counter's time. Same float operations, same
    # values, the same first argmax: the same sequences (a test pins it against _dp_smooth_ref)
    change_t = np.ascontiguousarray(change.T)[:, None, :]                                    # (q', 1, q)
    best_t = np.full((Q, n), neg, np.float32)           # best transposed: [last gap q, row u]
    reach = np.empty((n, Q), np.float32)                # max over q' of best[r, q'] - change[q, q']

    def fill(r0: int, r1: int) -> None:
        reach[r0:r1] = (best_t[:, r0:r1, None] - change_t).max(axis=0)
    fill(0, min(qmin, n))
    back_rows = np.arange(qmin)[:, None] - qs[None, :]   # (B, Q): row of the clip before, less b0
    qcol = np.arange(Q)[None, :]
    for b0 in range(qmin, n, qmin):
        b1 = min(n, b0 + qmin)
        prev = back_rows[:b1 - b0] + b0
        early = b0 < qmax                                # some rows before the table's first
        pc = np.clip(prev, 0, n - 1) if early else prev
        val = reach[pc, qcol]
        np.maximum(val, first[pc], out=val)
        if early:
            val[prev < 0] = neg
        val += gain[b0:b1, None]
        np.maximum(val, neg, out=val)
        best_t[:, b0:b1] = val.T
        if b1 < n:
            fill(b0, b1)
    best = np.ascontiguousarray(best_t.T)
    fin_first = np.maximum(first + end_ok, neg)
    fin = np.maximum(best + end_ok[:, None], neg)
    u1 = int(np.argmax(fin_first))
    idx = int(np.argmax(fin))
    u, qi = divmod(idx, Q)
    if float(fin_first[u1]) >= float(fin[u, qi]):
        total = float(fin_first[u1])
        return (total, [(u1, 0)]) if total > -1e8 else (-math.inf, [])
    total = float(fin[u, qi])
    if total <= -1e8:
        return -math.inf, []
    seq = [(u, 0)]
    while True:
        r = u - int(qs[qi])
        row = best[r] - change[qi]                       # the forward pass's candidates for (u, q)
        arg = int(np.argmax(row))
        pq = -1 if first[r] >= row[arg] else arg         # -1: from the first clip
        u = r
        seq.append((u, 0))
        if pq < 0:
            break
        qi = pq
    seq.reverse()
    return total, seq
