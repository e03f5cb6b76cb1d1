"""When to look: the motion check on the camera's low-resolution grey stream, and the
guard that refuses to read a table with something on it that is not a piece.

The motion check compares each preview frame (about 320x180) with the previous one,
after halving it with INTER_AREA (a cheap blur that also kills sensor noise), and calls
it motion when more than `min_fraction` of the pixels changed by more than
`pixel_threshold` grey levels. Slow light changes move every pixel by a level or two per
frame and never count. The table is still once no motion was seen for `still_seconds`.

The foreign-object guard works on the rectified play area of full frames: the change
since the last accepted frame must be explained by the move (the footprint of the cells
it touches); a hand, arm or cup leaves change outside that footprint, and the move waits.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterable

import cv2
import numpy as np
from numpy.typing import NDArray

GreyImage = NDArray[np.uint8]


@dataclass(frozen=True)
class MotionConfig:
    """Thresholds ([motion] in the device config)."""

    pixel_threshold: int = 20        # grey levels a pixel must change by to count
    min_fraction: float = 0.004      # fraction of changed pixels that makes "motion"
    still_seconds: float = 1.0       # how long the table must stay still before a look
    guard_threshold: int = 28        # grey levels, in the rectified play area
    guard_fraction: float = 0.004    # changed fraction outside the move that means "not clear"
    guard_px_per_mm: float = 0.5     # resolution of the guard's rectified view
    change_threshold: int = 12       # grey levels that mean a cell changed (a tile about the
                                     # table's colour still changes its cell by this much)


@dataclass(frozen=True)
class MotionState:
    moving: bool            # this frame differed from the previous one
    changed: float          # fraction of pixels that changed
    still_for: float        # seconds since the last motion (0 while moving)


class MotionDetector:
    """Feed preview frames with their time; ask whether the table has been still long enough."""

    def __init__(self, config: MotionConfig | None = None) -> None:
        self.config = config or MotionConfig()
        self._prev: GreyImage | None = None
        self._last_motion: float | None = None
        self._diff: GreyImage | None = None

    def reset(self, now: float) -> None:
        """Forget the previous frame (after a camera restart) and count stillness from now."""
        self._prev = None
        self._last_motion = now

    def update(self, frame: GreyImage, now: float) -> MotionState:
        small = _prepare(frame)
        if self._prev is None or self._prev.shape != small.shape:
            self._prev = small
            self._last_motion = now
            return MotionState(True, 1.0, 0.0)
        if self._diff is None or self._diff.shape != small.shape:
            self._diff = np.empty_like(small)
        cv2.absdiff(small, self._prev, dst=self._diff)
        self._prev = small
        count = int(np.count_nonzero(self._diff > self.config.pixel_threshold))
        frac = count / self._diff.size
        if frac > self.config.min_fraction or self._last_motion is None:
            self._last_motion = now
            return MotionState(True, frac, 0.0)
        return MotionState(False, frac, now - self._last_motion)

    @property
    def last_motion(self) -> float | None:
        """When motion was last seen (the still period ends still_seconds later)."""
        return self._last_motion

    def is_still(self, now: float) -> bool:
        return self._last_motion is not None and self._prev is not None and \
            now - self._last_motion >= self.config.still_seconds


def _prepare(frame: GreyImage) -> GreyImage:
    g = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = g.shape[:2]
    return np.asarray(cv2.resize(g, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA))


# --- the foreign-object guard ------------------------------------------------------------

Rect = tuple[float, float, float, float]   # x0, y0, x1, y1 in table mm


def normalise(view: NDArray[np.uint8]) -> NDArray[np.uint16]:
    """Blur and equalise overall brightness per channel, so a cloud passing is not "change".

    The levels are scaled to put each channel's median at 128 and kept above 255 (16 bit):
    on a dark mat (median 50) a tile's white face is 2.5x brighter than 128 would allow,
    and clipped at 255 a tile laid in a lamp's glare was the glare's own level, no change."""
    v = cv2.GaussianBlur(view, (5, 5), 0)
    if v.ndim == 2:
        v = v[:, :, None]
    med = np.array([_median_u8(np.ascontiguousarray(v[:, :, c])) for c in range(v.shape[2])],
                   dtype=np.float32)
    gain = np.where(med > 1.0, 128.0 / np.maximum(med, 1.0), 1.0).astype(np.float32)
    out = np.clip(v.astype(np.float32) * gain, 0, 65535).astype(np.uint16)
    return np.asarray(out)


def _median_u8(channel: NDArray[np.uint8]) -> float:
    """The median of a uint8 image from its histogram (a sort of the view cost more than
    the whole guard comparison), read between levels as if each level's pixels spread
    evenly over it. On a dark channel a whole level is much of the gain: a blue mat's red
    median of 24 or 25 by the looks' noise scaled every white tile on it 40 levels apart,
    and every tile on the table "changed" (bench Challenge game 104)."""
    hist = cv2.calcHist([channel], [0], None, [256], [0, 256]).ravel()
    cum = np.cumsum(hist)
    half = float(cum[-1]) / 2.0
    level = int(np.searchsorted(cum, half))
    below = float(cum[level - 1]) if level > 0 else 0.0
    return level - 0.5 + (half - below) / max(float(hist[level]), 1.0)


def _nearest(a: NDArray[np.uint16], b: NDArray[np.uint16]) -> GreyImage:
    """Per pixel of a: the least difference (largest channel) to a pixel of b within 1 px,
    at most 255. (OpenCV's per-channel max and min: numpy's reduction over the channel
    axis made this the loop's costliest step after the reader.)"""
    h, w = a.shape[:2]
    pad = cv2.copyMakeBorder(b, 1, 1, 1, 1, cv2.BORDER_REPLICATE)
    best: NDArray[np.uint16] | None = None
    for dy in range(3):
        for dx in range(3):
            d = np.asarray(cv2.absdiff(a, pad[dy:dy + h, dx:dx + w]), dtype=np.uint16)
            if d.ndim == 3:
                channels = cv2.split(d)
                d = np.asarray(channels[0], dtype=np.uint16)
                for c in channels[1:]:
                    d = np.asarray(cv2.max(d, c), dtype=np.uint16)
            best = d if best is None else np.asarray(cv2.min(best, d), dtype=np.uint16)
    assert best is not None
    return np.asarray(np.minimum(best, 255), dtype=np.uint8)


def difference(reference: NDArray[np.uint8], current: NDArray[np.uint8]) -> GreyImage:
    """How many levels (largest channel) two rectified views of the table differ by at
    each pixel, after equalising overall brightness (so a cloud passing is not change).

    Each pixel is compared with the best-matching pixel of the other view's 3x3
    neighbourhood, both ways (what appeared and what left): two fits of the same markers
    differ by a fraction of a millimetre, which at a marker's white paper or a tile's
    edge is a change of a hundred levels, but not a change of the table. (Comparing with
    the neighbourhood's range instead hid a new tile whose symbol's edges spanned its
    face's levels.)"""
    return normalised_difference(normalise(reference), normalise(current))


def normalised_difference(a: NDArray[np.uint16], b: NDArray[np.uint16]) -> GreyImage:
    """difference() of two views already through normalise() (the loop normalises each
    view once, though it compares it with up to three others)."""
    return np.asarray(np.maximum(_nearest(a, b), _nearest(b, a)), dtype=np.uint8)


def change_mask(reference: NDArray[np.uint8], current: NDArray[np.uint8],
                threshold: int, diff: GreyImage | None = None) -> GreyImage:
    """1 where two rectified views of the table differ by more than `threshold` levels
    (see difference; pass its result as `diff` to threshold one pair twice)."""
    if diff is None:
        diff = difference(reference, current)
    raw = (diff > threshold).astype(np.uint8)
    # open: single noisy pixels and edge shimmer are not objects
    return np.asarray(cv2.morphologyEx(raw, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), dtype=np.uint8)


@dataclass(frozen=True)
class ChangeMap:
    """Where the table changed since the last accepted look, asked in table mm.

    A game session uses it as the strongest prior it has: a cell whose pixels did not
    change still holds what the game state says, whatever the reader makes of it this
    time (a tile read in another group, a phantom in the grain, a tile missed)."""

    mask: GreyImage
    origin_mm: tuple[float, float]
    px_per_mm: float

    @classmethod
    def between(cls, reference: NDArray[np.uint8], current: NDArray[np.uint8],
                origin_mm: tuple[float, float], px_per_mm: float, threshold: int,
                diff: GreyImage | None = None) -> ChangeMap:
        return cls(change_mask(reference, current, threshold, diff), origin_mm, px_per_mm)

    def fraction(self, rect: Rect, outside: float = 1.0) -> float:
        """Changed share of a table-mm rectangle, or `outside` when it reaches off the
        view (by default unknown ground counts as changed, so the reader decides there)."""
        r0, r1, c0, c1 = self._span(rect)
        h, w = self.mask.shape
        if c0 < 0 or r0 < 0 or c1 > w or r1 > h or c1 <= c0 or r1 <= r0:
            return outside
        return float(np.count_nonzero(self.mask[r0:r1, c0:c1])) / float((r1 - r0) * (c1 - c0))

    def share_within(self, rect: Rect, least: float = 0.5) -> float | None:
        """Changed share of the part of a table-mm rectangle the view holds, or None when
        it holds less than `least` of it. A pile's top by the marked table's edge is
        mostly in view (bench game 168: a tall pile's top 13 mm from the edge counted as
        wholly changed by `fraction`, and the tile laid from the pile beside it was given
        to it)."""
        r0, r1, c0, c1 = self._span(rect)
        h, w = self.mask.shape
        a0, a1, b0, b1 = max(r0, 0), min(r1, h), max(c0, 0), min(c1, w)
        if r1 <= r0 or c1 <= c0 or a1 <= a0 or b1 <= b0 or (a1 - a0) * (b1 - b0) < least * (r1 - r0) * (c1 - c0):
            return None
        return float(np.count_nonzero(self.mask[a0:a1, b0:b1])) / float((a1 - a0) * (b1 - b0))

    def _span(self, rect: Rect) -> tuple[int, int, int, int]:
        """(r0, r1, c0, c1): the mask pixels covering a table-mm rectangle, unclipped."""
        x0, y0, x1, y1 = rect
        return (int(np.floor((y0 - self.origin_mm[1]) * self.px_per_mm)),
                int(np.ceil((y1 - self.origin_mm[1]) * self.px_per_mm)),
                int(np.floor((x0 - self.origin_mm[0]) * self.px_per_mm)),
                int(np.ceil((x1 - self.origin_mm[0]) * self.px_per_mm)))

    @functools.cached_property
    def _regions(self) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
        """Connected changed regions, labelled once per map: (labels, areas in pixels)."""
        _, labels, stats, _ = cv2.connectedComponentsWithStats(self.mask, connectivity=8)
        return np.asarray(labels, np.int32), np.asarray(stats[:, cv2.CC_STAT_AREA], np.int32)

    def regions(self, rect: Rect) -> frozenset[int]:
        """The connected changed regions that reach into a table-mm rectangle."""
        r0, r1, c0, c1 = self._span(rect)
        h, w = self.mask.shape
        r0, r1, c0, c1 = max(0, r0), min(h, r1), max(0, c0), min(w, c1)
        if c1 <= c0 or r1 <= r0:
            return frozenset()
        return frozenset(int(v) for v in np.unique(self._regions[0][r0:r1, c0:c1]) if v > 0)

    def largest_mm2(self, excluding: Iterable[Rect] = ()) -> float:
        """How big (mm^2) the largest changed region is, leaving out the regions that reach
        into the `excluding` rectangles (where a change is explained otherwise)."""
        areas = self._regions[1].copy()
        for rect in excluding:
            areas[list(self.regions(rect))] = 0
        areas = areas[1:]
        return float(areas.max()) / (self.px_per_mm * self.px_per_mm) if areas.size else 0.0

    def area_mm2(self, regions: frozenset[int]) -> float:
        """How big (mm^2) the changed regions are together: a tile, or a cup beside it."""
        areas = self._regions[1]
        return float(sum(int(areas[r]) for r in regions)) / (self.px_per_mm * self.px_per_mm)


def foreign_change(reference: NDArray[np.uint8], current: NDArray[np.uint8],
                   explained: Iterable[Rect], origin_mm: tuple[float, float], px_per_mm: float,
                   threshold: int, diff: GreyImage | None = None) -> tuple[float, GreyImage]:
    """The fraction of the view that changed outside the `explained` rectangles, and the mask.

    Both views are rectified images (BGR or grey) of the same table rectangle starting
    at `origin_mm`; `explained` are table-mm rectangles the move is allowed to change.
    Colour counts: a tile can be as bright as the cloth and still a different hue.
    """
    mask = change_mask(reference, current, threshold, diff)
    _clear(mask, explained, origin_mm, px_per_mm)
    return float(np.count_nonzero(mask)) / float(mask.size), np.asarray(mask)


def _clear(mask: GreyImage, rects: Iterable[Rect], origin_mm: tuple[float, float],
           px_per_mm: float) -> None:
    """Zero the table-mm rectangles `rects` of a guard-view mask, in place."""
    h, w = mask.shape
    for x0, y0, x1, y1 in rects:
        c0 = max(0, int((x0 - origin_mm[0]) * px_per_mm))
        r0 = max(0, int((y0 - origin_mm[1]) * px_per_mm))
        c1 = min(w, int(np.ceil((x1 - origin_mm[0]) * px_per_mm)))
        r1 = min(h, int(np.ceil((y1 - origin_mm[1]) * px_per_mm)))
        if c1 > c0 and r1 > r0:
            mask[r0:r1, c0:c1] = 0


def table_behind(reference: NDArray[np.uint8], current: NDArray[np.uint8], mask: GreyImage,
                 extent: GreyImage, explained: Iterable[Rect], origin_mm: tuple[float, float],
                 px_per_mm: float, grow_px: int) -> NDArray[np.uint8]:
    """The current view with the things `mask` found (the guard's foreign change) taken
    from `reference`, except inside the `explained` rectangles. Each thing reaches as far
    as its part of `extent` (the finer change mask: its shadow and soft rim), grown by
    `grow_px`.

    A move applied while a hand rests away from it must not make the hand part of the
    table the next move is compared with: when the hand goes, the table it uncovers
    would read as a change as large as the hand, and a tile laid there with it taken
    for something else."""
    rects = list(explained)
    seed = mask > 0
    _, labels = cv2.connectedComponents((seed | (extent > 0)).astype(np.uint8), connectivity=8)
    ids = np.unique(labels[seed])
    keep: GreyImage = np.isin(labels, ids[ids > 0]).astype(np.uint8)
    if grow_px > 0:
        keep = np.asarray(cv2.dilate(keep, cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1))), dtype=np.uint8)
    _clear(keep, rects, origin_mm, px_per_mm)
    out = current.copy()
    out[keep > 0] = reference[keep > 0]
    return out


def large_parts(mask: GreyImage, min_px: float) -> GreyImage:
    """The changed pixels of connected parts of at least `min_px` pixels.

    A fist or a cup beside a new tile is a thing the size of a tile or more; what a tile
    laid a little off its cell adds outside the cell (its rim, its shadow) is a sliver."""
    if not np.any(mask):
        return mask
    _, labels, stats, _ = cv2.connectedComponentsWithStats((mask > 0).astype(np.uint8), connectivity=8)
    big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= min_px)
    big = big[big > 0]
    if big.size == 0:
        return np.zeros_like(mask)
    return np.where(np.isin(labels, big), mask, 0).astype(mask.dtype)


def touches(mask: GreyImage, rects: Iterable[Rect], origin_mm: tuple[float, float],
            px_per_mm: float, margin_mm: float) -> bool:
    """Whether changed pixels come within `margin_mm` of any rectangle (a hand near the
    move could be faking it; a cup across the table cannot)."""
    h, w = mask.shape
    for x0, y0, x1, y1 in rects:
        c0 = max(0, int((x0 - margin_mm - origin_mm[0]) * px_per_mm))
        r0 = max(0, int((y0 - margin_mm - origin_mm[1]) * px_per_mm))
        c1 = min(w, int(np.ceil((x1 + margin_mm - origin_mm[0]) * px_per_mm)))
        r1 = min(h, int(np.ceil((y1 + margin_mm - origin_mm[1]) * px_per_mm)))
        if c1 > c0 and r1 > r0 and np.any(mask[r0:r1, c0:c1]):
            return True
    return False


def reaching_in(mask: GreyImage, px_per_mm: float, bridge_mm: float) -> GreyImage:
    """The changed pixels that belong to something reaching in from the edge of the view.

    A hand is held by an arm, and an arm crosses the table's edge; a cup or a phone put
    down lies on the table by itself. Gaps of up to `bridge_mm` (skin the colour of the
    cloth, a shadow) are bridged before deciding what is connected to the edge."""
    if not np.any(mask):
        return mask
    k = max(1, int(round(bridge_mm * px_per_mm / 2)))
    joined = cv2.dilate((mask > 0).astype(np.uint8), cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    _, labels = cv2.connectedComponents(joined, connectivity=8)
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    keep = np.isin(labels, edge[edge > 0])
    return np.where(keep, mask, 0).astype(mask.dtype)


def arm_reach(arms: GreyImage, extent: GreyImage | None) -> GreyImage:
    """How far the arms reach: with them, their connected parts of `extent` (the finer
    change mask). A hand's skin on a pale cloth differs from it by less than the guard's
    threshold, so the guard's mask may hold the sleeve alone, ending short of the fingers
    laid over the move (held-out game 153: the fingers read as a tile beside the city)."""
    if extent is None or not np.any(arms):
        return arms
    _, labels = cv2.connectedComponents((extent > 0).astype(np.uint8), connectivity=8)
    held = np.unique(labels[(arms > 0) & (labels > 0)])
    return np.asarray(((arms > 0) | np.isin(labels, held)).astype(np.uint8))

