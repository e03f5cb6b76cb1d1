"""Paperclips as real wire: the Gem clip's three bends, chains of interlocked clips laid
along a centre curve with per-joint slack and twist, and their drawing on a canvas.

Why wire and not a rectangle: a reader that counts clips must see what a camera sees,
the loops' thin wire, the bends at each end, clips bunched into each other, clips on
their edge that show as one line. Lengths here are millimetres in the clip's own frame:
x along the clip (0..length), y across it, z up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

F64 = NDArray[np.float64]

STANDARD_LENGTH_MM = 32.0
STANDARD_WIDTH_MM = 9.0
WIRE_MM = 1.0
COATED_WIRE_MM = 1.25

# Overlap of consecutive clips as a fraction of the clip length: taut .. bunched.
OVERLAP_MIN = 0.08
OVERLAP_MAX = 0.48


class Canvas(Protocol):
    """The part of vision.synth.canvas.TableCanvas the clip drawer needs."""

    def polyline(self, pts_mm: ArrayLike, width_mm: float, colour: tuple[float, float, float],
                 height_mm: float | None = 0.0, closed: bool = False,
                 opacity: float = 1.0) -> object: ...


def _arc(cx: float, cy: float, r: float, a0: float, a1: float, step: float) -> F64:
    n = max(3, int(abs(a1 - a0) * r / step) + 1)
    t = np.linspace(a0, a1, n)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def _line(p: Sequence[float], q: Sequence[float], step: float) -> F64:
    d = math.hypot(q[0] - p[0], q[1] - p[1])
    n = max(2, int(d / step) + 1)
    t = np.linspace(0.0, 1.0, n)[:, None]
    out: F64 = np.asarray(np.asarray(p, dtype=np.float64) * (1 - t) + np.asarray(q, dtype=np.float64) * t, dtype=np.float64)
    return out


def clip_wire(length_mm: float = STANDARD_LENGTH_MM, width_mm: float = STANDARD_WIDTH_MM,
              wire_mm: float = WIRE_MM, step_mm: float = 0.5) -> F64:
    """The wire centre line of one Gem clip, Nx2 in the clip frame.

    Three bends: the big outer bend at x = length, the middle bend at x = 0 and the small
    inner bend inside the big one; the wire starts and ends part-way along the clip.
    """
    L, W = length_mm, width_mm
    r1 = (W - wire_mm) / 2.0                  # outer bend radius (wire centre)
    y_top, y_bot = r1, -r1
    y_in = y_bot + 0.30 * W                   # inner long leg
    y_mid = y_in + 0.36 * W                   # last leg (the free end)
    r2 = (y_top - y_in) / 2.0                 # middle bend (x = 0 end)
    r3 = (y_mid - y_in) / 2.0                 # small inner bend
    x3 = L - r1 - 0.15 * L                    # centre of the small inner bend
    parts = [
        _line((0.36 * L, y_mid), (x3, y_mid), step_mm),
        _arc(x3, (y_mid + y_in) / 2, r3, math.pi / 2, -math.pi / 2, step_mm),
        _line((x3, y_in), (r2, y_in), step_mm),
        _arc(r2, (y_top + y_in) / 2, r2, -math.pi / 2, -3 * math.pi / 2, step_mm),
        _line((r2, y_top), (L - r1, y_top), step_mm),
        _arc(L - r1, 0.0, r1, math.pi / 2, -math.pi / 2, step_mm),
        _line((L - r1, y_bot), (0.62 * L, y_bot), step_mm),
    ]
    return np.vstack(parts)


@dataclass(frozen=True)
class ClipPose:
    """One clip on the table: its axis from `start` to `end` (mm), how it lies."""

    start: tuple[float, float]
    end: tuple[float, float]
    twist_deg: float = 0.0        # turn about its own axis: 0 flat, 90 on its edge
    flipped: bool = False         # the big bend at the start instead of the end
    mirrored: bool = False        # turned face down
    lift_mm: float = 0.0          # height of its lowest wire above the table

    @property
    def length(self) -> float:
        return math.hypot(self.end[0] - self.start[0], self.end[1] - self.start[1])


def clip_points(pose: ClipPose, width_mm: float = STANDARD_WIDTH_MM, wire_mm: float = WIRE_MM,
                step_mm: float = 0.5) -> tuple[F64, F64]:
    """The wire of a posed clip: (Nx2 table mm, N heights mm above the table)."""
    wire = clip_wire(pose.length, width_mm, wire_mm, step_mm)
    x, y = wire[:, 0].copy(), wire[:, 1].copy()
    if pose.flipped:
        x = pose.length - x
    if pose.mirrored:
        y = -y
    t = math.radians(pose.twist_deg)
    yy = y * math.cos(t)
    z = pose.lift_mm + wire_mm / 2 + (y + width_mm / 2) * abs(math.sin(t))
    ax = np.array(pose.end) - np.array(pose.start)
    u = ax / max(1e-9, float(np.linalg.norm(ax)))
    n = np.array([-u[1], u[0]])
    pts = np.asarray(pose.start) + x[:, None] * u + yy[:, None] * n
    return np.asarray(pts, dtype=np.float64), np.asarray(z, dtype=np.float64)


def clip_outline(pose: ClipPose, width_mm: float = STANDARD_WIDTH_MM, wire_mm: float = WIRE_MM) -> F64:
    """The footprint of a posed clip (a stadium, narrowed by its twist), Nx2 mm:
    what 'touches' is measured against."""
    L = pose.length
    w = max(wire_mm, width_mm * abs(math.cos(math.radians(pose.twist_deg))) + wire_mm * 0.0)
    r = w / 2.0
    a = np.linspace(-math.pi / 2, math.pi / 2, 9)
    right = np.stack([L - r + r * np.cos(a), r * np.sin(a)], axis=1)
    left = np.stack([r - r * np.cos(a), -r * np.sin(a)], axis=1)
    local = np.vstack([right[::-1], left[::-1]])
    ax = np.array(pose.end) - np.array(pose.start)
    u = ax / max(1e-9, float(np.linalg.norm(ax)))
    n = np.array([-u[1], u[0]])
    return np.asarray(np.asarray(pose.start) + local[:, :1] * u + local[:, 1:] * n, dtype=np.float64)


# ----- chains --------------------------------------------------------------------------

def _cumlen(path: F64) -> F64:
    d = np.hypot(*np.diff(path, axis=0).T)
    return np.concatenate([[0.0], np.cumsum(d)])


def _at_chord(path: F64, cum: F64, s0: float, p0: F64, chord: float) -> tuple[float, F64] | None:
    """First point along the path after arc length s0 whose straight distance from p0 is chord."""
    i = int(np.searchsorted(cum, s0, side="right"))
    if i >= len(path):
        return None
    d = np.hypot(path[i:, 0] - p0[0], path[i:, 1] - p0[1])
    k = int(np.argmax(d >= chord))
    if d[k] < chord:
        return None
    j = i + k
    prev_s, prev_p = (s0, p0) if k == 0 else (float(cum[j - 1]), path[j - 1])
    q = path[j]
    # solve |prev_p + t (q - prev_p) - p0| = chord for t in [0, 1]
    e, f = prev_p - p0, q - prev_p
    a2, b2, c2 = float(f @ f), 2.0 * float(e @ f), float(e @ e) - chord * chord
    disc = max(0.0, b2 * b2 - 4 * a2 * c2)
    t = (-b2 + math.sqrt(disc)) / (2 * a2) if a2 > 0 else 0.0
    t = min(1.0, max(0.0, t))
    return prev_s + (float(cum[j]) - prev_s) * t, np.asarray(prev_p + f * t, dtype=np.float64)


def chain_fits(path_mm: ArrayLike, count: int, length_mm: float,
               overlaps: Sequence[float]) -> float:
    """How far along the path the chain's last clip ends (mm), or -1 if it runs off."""
    poses = layout_chain(path_mm, count, length_mm, overlaps)
    if len(poses) < count:
        return -1.0
    path = np.asarray(path_mm, dtype=np.float64)
    end = np.array(poses[-1].end)
    return float(np.hypot(*(end - path[-1])))


def layout_chain(path_mm: ArrayLike, count: int, length_mm: float, overlaps: Sequence[float],
                 twists: Sequence[float] | None = None, flips: Sequence[bool] | None = None,
                 mirrors: Sequence[bool] | None = None) -> list[ClipPose]:
    """Rigid clips along a centre curve: each clip is a chord of the curve `length_mm` long,
    the next one starts `length - overlap` (chord) after it. Stops early if the curve ends."""
    path = np.asarray(path_mm, dtype=np.float64)
    d = path[-1] - path[-2]
    # a short straight run-on past the end, so a chain that fits exactly is not cut short
    path = np.vstack([path, path[-1] + d / max(1e-9, float(np.linalg.norm(d))) * 2.0])
    cum = _cumlen(path)
    poses: list[ClipPose] = []
    s, p = 0.0, path[0].copy()
    for i in range(count):
        hit = _at_chord(path, cum, s, p, length_mm)
        if hit is None:
            break
        _, end = hit
        poses.append(ClipPose((float(p[0]), float(p[1])), (float(end[0]), float(end[1])),
                              float(twists[i]) if twists is not None else 0.0,
                              bool(flips[i]) if flips is not None else False,
                              bool(mirrors[i]) if mirrors is not None else False))
        if i == count - 1:
            break
        nxt = _at_chord(path, cum, s, p, length_mm - overlaps[i])
        if nxt is None:
            break
        s, p = nxt[0], nxt[1]
    return poses


def fit_overlaps(path_mm: ArrayLike, count: int, length_mm: float, weights: ArrayLike,
                 lo: float = OVERLAP_MIN, hi: float = OVERLAP_MAX) -> list[float] | None:
    """Per-joint overlaps (mm), shaped by `weights` (0..1 per joint, the slack pattern),
    scaled so that `count` clips end exactly at the path's end; None if impossible."""
    path = np.asarray(path_mm, dtype=np.float64)
    if count == 1:
        return []
    w = np.clip(np.asarray(weights, dtype=np.float64)[: count - 1], 0.0, 1.0)

    def ov(k: float) -> list[float]:
        return [float(length_mm * (lo + (hi - lo) * min(1.0, max(0.0, wi * k)))) for wi in w]

    # extend the path straight past its end so a loose chain runs on instead of stopping
    d = path[-1] - path[-2]
    d = d / max(1e-9, float(np.linalg.norm(d)))
    ext = np.vstack([path, path[-1] + d * length_mm * (count + 1)])
    cum = _cumlen(ext)
    end_s = float(cum[len(path) - 1])

    def reach(k: float) -> float:
        poses = layout_chain(ext, count, length_mm, ov(k))
        e = np.array(poses[-1].end)
        j = int(np.argmin(np.hypot(*(ext - e).T)))
        if j >= len(path) - 1:     # on the extension: exact distance past the end
            return float(np.dot(e - path[-1], d))
        return float(cum[j] - end_s)

    klo, khi = 0.0, 1.0 / max(0.02, float(w.min(initial=1.0)))
    if reach(klo) < -0.5 or reach(khi) > 0.5:
        return None
    for _ in range(24):
        m = (klo + khi) / 2
        if reach(m) > 0:
            klo = m
        else:
            khi = m
    return ov((klo + khi) / 2)


# ----- drawing -------------------------------------------------------------------------

Colour = tuple[float, float, float]


@dataclass(frozen=True)
class ClipLook:
    """How a clip's wire looks: body colour (linear BGR), highlight, wire width."""

    colour: Colour
    highlight: Colour
    wire_mm: float = WIRE_MM
    metal: bool = False


def draw_clip(canvas: Canvas, pose: ClipPose, look: ClipLook, base_height_mm: float = 0.0,
              width_mm: float = STANDARD_WIDTH_MM, rng: np.random.Generator | None = None) -> None:
    """Wire body, then a thin specular streak (long and sharp on metal, soft on plastic)."""
    pts, z = clip_points(pose, width_mm, look.wire_mm, step_mm=0.5)
    h = base_height_mm + float(np.max(z))
    dark = (look.colour[0] * 0.55, look.colour[1] * 0.55, look.colour[2] * 0.55)
    canvas.polyline(pts, look.wire_mm, dark, h)
    canvas.polyline(pts, look.wire_mm * 0.7, look.colour, h)
    # highlight: on the legs facing the light, broken into streaks
    g = rng if rng is not None else np.random.default_rng(0)
    n = len(pts)
    for _ in range(3 if look.metal else 2):
        a = int(g.integers(0, max(1, n - 6)))
        b = min(n, a + int(g.integers(4, 14 if look.metal else 8)))
        canvas.polyline(pts[a:b], look.wire_mm * (0.3 if look.metal else 0.35), look.highlight, h,
                        opacity=0.9 if look.metal else 0.5)


def draw_chain(canvas: Canvas, poses: Sequence[ClipPose], looks: Sequence[ClipLook],
               base_height_mm: float = 0.0, width_mm: float = STANDARD_WIDTH_MM,
               rng: np.random.Generator | None = None, order: Sequence[int] | None = None) -> None:
    """Clips in `order` (which clip lies on top at each interlock)."""
    idx = list(order) if order is not None else list(range(len(poses)))
    for i in idx:
        draw_clip(canvas, poses[i], looks[i], base_height_mm, width_mm, rng)
