"""Count the clips of one chain by fitting rigid clip templates along its centre line.

Why a fit and not length / pitch: slack varies from taut to bunched, so a chain's length
does not give its count. Each clip is a rigid wire loop of known length (learnt from the
River); its rounded ends (the bends) are where consecutive clips differ from one long
clip. A dynamic programme places a sequence of clips along the straightened chain, each
overlapping its neighbours by a physically possible amount, that best explains the wire
evidence (pixels of the chain's colour); double-covered wire is paid for, so an extra
clip is only worth it when its own bends are seen. The count is the length of the best
sequence; its confidence is how much the score would have to change to add or drop one.
"""

from __future__ import annotations

from typing import Any
import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from numpy.typing import NDArray

F32 = NDArray[Any]

STEP_MM = 0.5                       # strip sampling along and across the chain
WIDTH_FACTORS = (1.0, 0.72, 0.45, 0.2, 0.0)   # a clip turned about its axis looks narrower


@dataclass(frozen=True)
class CountResult:
    """The best clip sequence: count, clip start positions (mm along the strip), poses,
    the score margin to a sequence one clip longer / shorter, and the confidence."""

    count: int
    starts_mm: tuple[float, ...]
    poses: tuple[int, ...]
    margin: float
    confidence: float
    neutral_fraction: float
    score: float = 0.0


@lru_cache(maxsize=16)
def templates(length_mm: float, width_mm: float, wire_mm: float,
              half_height_mm: float) -> tuple[F32, ...]:
    """One template per width factor: the clip's outer loop (a stadium of wire), blurred by
    about half a wire, in strip samples (rows along the clip, columns across)."""
    rows = int(round(length_mm / STEP_MM))
    cols = int(round(2 * half_height_mm / STEP_MM)) + 1
    out = []
    ss = 4
    for f in WIDTH_FACTORS:
        img = np.zeros((rows * ss, cols * ss), dtype=np.uint8)
        w = max(0.0, (width_mm - wire_mm) * f)
        r = w / 2.0
        cx = (cols * ss) / 2.0
        th = max(1, int(round(wire_mm / STEP_MM * ss)))

        def px(x_mm: float, y_mm: float) -> tuple[int, int]:
            return (int(round(cx + y_mm / STEP_MM * ss)), int(round((x_mm / STEP_MM) * ss)))

        x0, x1 = wire_mm / 2 + r, length_mm - wire_mm / 2 - r
        pts = []
        for a in np.linspace(math.pi, 2 * math.pi, 12):          # bend at x = 0
            pts.append(px(x0 + r * math.sin(a), r * math.cos(a)))
        for a in np.linspace(0.0, math.pi, 12):                    # bend at x = length
            pts.append(px(x1 + r * math.sin(a), r * math.cos(a)))
        cv2.polylines(img, [np.array(pts, dtype=np.int32).reshape(-1, 1, 2)], True, (255,), th, cv2.LINE_AA)
        t: F32 = cv2.resize(img, (cols, rows), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        t = cv2.GaussianBlur(t, (0, 0), 0.7)
        out.append(np.ascontiguousarray(t / max(1e-6, float(t.max())), dtype=np.float32))
    return tuple(out)


@lru_cache(maxsize=16)
def overlap_costs(length_mm: float, width_mm: float, wire_mm: float, half_height_mm: float,
                  qmin: int, qmax: int) -> F32:
    """C[p, p2, q]: template mass two clips share when the second starts q samples after the
    first (the wire both would explain; paid once so it is not counted twice)."""
    ts = templates(length_mm, width_mm, wire_mm, half_height_mm)
    n = len(ts)
    m = ts[0].shape[0]
    out = np.zeros((n, n, qmax - qmin + 1), dtype=np.float32)
    for a in range(n):
        for b in range(n):
            for k, q in enumerate(range(qmin, qmax + 1)):
                if q >= m:
                    continue
                out[a, b, k] = float(np.minimum(ts[a][q:], ts[b][: m - q]).sum())
    return out


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


def pose_scores(evidence: F32, weight: F32, length_mm: float, width_mm: float, wire_mm: float,
                tau: float, bend_weight: float = 10.0, leg_weight: float = 4.0,
                bend_tau: float = 0.45, shift_mm: float = 2.5) -> F32:
    """S[u, p]: how well a clip of width factor p whose first bend is at row u explains the
    strip: the bends seen at both ends (most of the weight) and its legs. Unknown
    (covered) parts of the strip score as if exactly at the thresholds."""
    # the wire's contrast varies with colour, table and resolution: scale the evidence so
    # that a clearly seen wire is 1 and a clearly seen bend is 1
    ev = evidence.astype(np.float32)
    seen_rows = ev[weight.min(axis=1) > 0] if weight.ndim == 2 else ev
    top = float(np.percentile(seen_rows.max(axis=1), 75)) if len(seen_rows) else 1.0
    ev = np.clip(ev / max(0.15, top), 0.0, 1.0)
    across, along = oriented_evidence(ev)
    rows_a = across.max(axis=1)
    top_a = float(np.percentile(rows_a, 90)) if len(rows_a) else 1.0
    across = np.clip(across / max(0.1, top_a), 0.0, 1.0)
    wv = weight.astype(np.float32)
    m = int(round(length_mm / STEP_MM))
    n = evidence.shape[0] - m
    if n <= 0:
        return np.full((0, len(WIDTH_FACTORS)), -1e9, dtype=np.float32)
    cols = evidence.shape[1]
    cc = (cols - 1) / 2.0
    shift = int(round(shift_mm / STEP_MM))
    centres = [int(round(cc)) + k for k in range(-shift, shift + 1)]
    acc: F32 = np.where(wv > 0, across, bend_tau).astype(np.float32)
    acc = cv2.dilate(acc, np.ones((3, 1), np.uint8))
    lng = np.where(wv > 0, along, tau).astype(np.float32)
    a0, a1 = int(0.22 * m), int(0.78 * m)
    csum = np.vstack([np.zeros((1, cols), np.float32), np.cumsum(lng, axis=0, dtype=np.float32)])
    out = np.empty((n, len(WIDTH_FACTORS)), dtype=np.float32)
    for p, f in enumerate(WIDTH_FACTORS):
        hw = max(1, int(round(0.32 * width_mm * f / STEP_MM)))
        d = int(round((width_mm - wire_mm) / 2 * f / STEP_MM))
        if f < 0.3:       # on its edge: no bend to see
            b0 = b1 = np.full(n, bend_tau * 0.75, dtype=np.float32)
        else:
            box = cv2.blur(acc, (2 * hw + 1, 1), borderType=cv2.BORDER_REPLICATE)
            bend = box[:, centres].max(axis=1)
            b0, b1 = bend[:n], bend[m:m + n]
        seg = (csum[a1:a1 + n] - csum[a0:a0 + n]) / float(a1 - a0)   # (n, cols)
        legs = []
        for c in centres:
            lo, hi = max(0, c - d), min(cols - 1, c + d)
            legs.append(0.5 * (seg[:, lo] + seg[:, hi]))
        leg = np.max(np.stack(legs, axis=1), axis=1)
        out[:, p] = bend_weight * (b0 + b1 - 2 * bend_tau) + leg_weight * (leg - tau)
    return out


def _dp(scores: F32, costs: F32, qmin: int, qmax: int, lam: float, start_ok: NDArray[np.bool_],
        end_ok: NDArray[np.bool_], kappa: float) -> tuple[float, list[tuple[int, int]]]:
    """Best sequence score and its (row, pose) list; rows increase by qmin..qmax."""
    n, P = scores.shape
    Q = qmax - qmin + 1
    neg = np.float32(-1e9)
    best = np.full((n, P), neg, dtype=np.float32)
    back = np.full((n, P, 2), -1, dtype=np.int32)
    gain = scores - np.float32(lam)
    cost = (costs * np.float32(kappa)).transpose(2, 0, 1)     # (Q, P', P)
    best[: min(qmin, n)] = np.where(start_ok[: min(qmin, n), None], gain[: min(qmin, n)], neg)
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
        startv = np.where(start_ok[us, None], np.float32(0.0), neg)
        use_start = startv >= val
        tot = np.maximum(val, startv) + gain[us]
        best[us] = np.maximum(tot, neg)
        qi, pi = arg // P, arg % P
        back[us, :, 0] = np.where(use_start, -1, us[:, None] - qs[qi])
        back[us, :, 1] = np.where(use_start, -1, pi)
    fin = np.where(end_ok[:, None], best, neg)
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


def count_clips(evidence: F32, weight: F32, length_mm: float, width_mm: float, wire_mm: float,
                first_mm: float, last_mm: float, tau: float = 0.3, clip_cost: float = 5.0,
                kappa: float = 1.0, pitch_range: tuple[float, float] = (0.44, 0.97),
                end_tolerance_mm: float = 4.0, margin_scale: float = 12.0) -> CountResult:
    """Count the clips in a straightened chain strip (rows along, STEP_MM apart).

    first_mm / last_mm: where the chain's wire begins and ends along the strip (the fit
    must cover them; unknown ends are given as ranges by widening end_tolerance_mm)."""
    scores = pose_scores(evidence, weight, length_mm, width_mm, wire_mm, tau)
    n = scores.shape[0]
    if n == 0:
        return CountResult(0, (), (), 0.0, 0.0, 1.0)
    m = int(round(length_mm / STEP_MM))
    qmin = max(1, int(round(pitch_range[0] * length_mm / STEP_MM)))
    qmax = int(round(pitch_range[1] * length_mm / STEP_MM))
    half = (evidence.shape[1] - 1) * STEP_MM / 2
    costs = np.zeros((len(WIDTH_FACTORS), len(WIDTH_FACTORS), qmax - qmin + 1), dtype=np.float32)
    rows = np.arange(n)
    tol = end_tolerance_mm / STEP_MM
    f, l_ = first_mm / STEP_MM, last_mm / STEP_MM
    start_ok = (rows <= f + tol) & (rows + m >= f + tol)
    end_ok = (rows + m >= l_ - tol) & (rows <= l_ - tol)
    total, seq = _dp(scores, costs, qmin, qmax, clip_cost, start_ok, end_ok, kappa)
    if not seq:
        return CountResult(0, (), (), 0.0, 0.0, 1.0)
    count = len(seq)
    # margin: the smallest change of the per-clip price that changes the count
    margin = math.inf
    for d in (margin_scale * 0.5, margin_scale, margin_scale * 2):
        changed = False
        for sgn in (-1.0, 1.0):
            t2, s2 = _dp(scores, costs, qmin, qmax, clip_cost + sgn * d, start_ok, end_ok, kappa)
            if len(s2) != count:
                changed = True
                break           # the margin is d whichever way the count changed
        if changed:
            margin = d
            break
    neutral = float(1.0 - weight[int(max(0, f)): int(min(len(weight), l_))].mean()) if l_ > f else 1.0
    conf = (1.0 - math.exp(-margin / margin_scale)) if math.isfinite(margin) else 1.0
    conf *= max(0.0, 1.0 - 1.5 * max(0.0, neutral - 0.1))
    return CountResult(count, tuple(u * STEP_MM for u, _ in seq), tuple(p for _, p in seq),
                       margin, float(conf), neutral, float(total))
