"""Plane geometry for the simulator: segments, axis-aligned rectangles, distances.

Pure Python (rules/ may not use numpy); sizes are small, speed is ample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle by centre and size, millimetres."""

    cx: float
    cy: float
    w: float
    h: float

    @property
    def x0(self) -> float:
        return self.cx - self.w / 2

    @property
    def x1(self) -> float:
        return self.cx + self.w / 2

    @property
    def y0(self) -> float:
        return self.cy - self.h / 2

    @property
    def y1(self) -> float:
        return self.cy + self.h / 2

    def contains(self, p: Point) -> bool:
        return self.x0 <= p[0] <= self.x1 and self.y0 <= p[1] <= self.y1

    def edges(self) -> list[tuple[Point, Point]]:
        a, b, c, d = (self.x0, self.y0), (self.x1, self.y0), (self.x1, self.y1), (self.x0, self.y1)
        return [(a, b), (b, c), (c, d), (d, a)]

    def gap(self, other: Rect) -> float:
        """Distance between the two rectangles, 0 when they touch or overlap."""
        dx = max(0.0, max(self.x0, other.x0) - min(self.x1, other.x1))
        dy = max(0.0, max(self.y0, other.y0) - min(self.y1, other.y1))
        return math.hypot(dx, dy)

    def exit_distance(self, angle: float) -> float:
        """How far from the centre a ray at `angle` leaves the rectangle."""
        c, s = abs(math.cos(angle)), abs(math.sin(angle))
        return min(self.w / 2 / c if c > 1e-9 else math.inf, self.h / 2 / s if s > 1e-9 else math.inf)


def point_segment_distance(p: Point, a: Point, b: Point) -> float:
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / length2))
    return math.hypot(p[0] - (ax + t * dx), p[1] - (ay + t * dy))


def _cross(o: Point, a: Point, b: Point) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def segments_intersect(a: Point, b: Point, c: Point, d: Point) -> bool:
    d1, d2 = _cross(c, d, a), _cross(c, d, b)
    d3, d4 = _cross(a, b, c), _cross(a, b, d)
    return (d1 * d2 < 0) and (d3 * d4 < 0)


def segment_distance(a: Point, b: Point, c: Point, d: Point) -> float:
    if segments_intersect(a, b, c, d):
        return 0.0
    return min(point_segment_distance(a, c, d), point_segment_distance(b, c, d),
               point_segment_distance(c, a, b), point_segment_distance(d, a, b))


def segment_rect_distance(a: Point, b: Point, r: Rect) -> float:
    if r.contains(a) or r.contains(b):
        return 0.0
    return min(segment_distance(a, b, e0, e1) for e0, e1 in r.edges())


def polyline_segments(points: tuple[Point, ...]) -> list[tuple[Point, Point]]:
    return [(points[i], points[i + 1]) for i in range(len(points) - 1)]


def polyline_length(points: tuple[Point, ...]) -> float:
    return sum(math.dist(a, b) for a, b in polyline_segments(points))


def trim(points: tuple[Point, ...], start: float, end: float) -> tuple[Point, ...]:
    """The polyline without its first `start` and last `end` millimetres."""
    total = polyline_length(points)
    if start + end >= total:
        return ()
    return _cut(_cut(points, start)[::-1], end)[::-1]


def _cut(points: tuple[Point, ...], length: float) -> tuple[Point, ...]:
    left = length
    for i, (a, b) in enumerate(polyline_segments(points)):
        seg = math.dist(a, b)
        if seg >= left and seg > 0:
            t = left / seg
            return ((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])),) + points[i + 1:]
        left -= seg
    return points[-1:]


def polyline_distance(p: tuple[Point, ...], q: tuple[Point, ...]) -> float:
    return min((segment_distance(a, b, c, d) for a, b in polyline_segments(p)
                for c, d in polyline_segments(q)), default=math.inf)


def polyline_rect_distance(p: tuple[Point, ...], r: Rect) -> float:
    return min((segment_rect_distance(a, b, r) for a, b in polyline_segments(p)), default=math.inf)


def polyline_contacts(p: tuple[Point, ...], q: tuple[Point, ...], reach: float) -> int:
    """Separate stretches of `p` that come within `reach` of `q` (each touch or crossing)."""
    count, inside = 0, False
    for a, b in polyline_segments(p):
        near = min(segment_distance(a, b, c, d) for c, d in polyline_segments(q)) < reach
        if near and not inside:
            count += 1
        inside = near and min(point_segment_distance(b, c, d) for c, d in polyline_segments(q)) < reach
    return count


def _bbox(points: tuple[Point, ...]) -> Rect:
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return Rect((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(xs) - min(xs), max(ys) - min(ys))


def polyline_near_rect(p: tuple[Point, ...], r: Rect, reach: float) -> bool:
    """Whether the polyline comes closer than `reach` to the rectangle (bounding boxes first)."""
    if not p or _bbox(p).gap(r) >= reach:
        return False
    return polyline_rect_distance(p, r) < reach


def polylines_near(p: tuple[Point, ...], q: tuple[Point, ...], reach: float) -> bool:
    """Whether two polylines come closer than `reach` (bounding boxes first)."""
    if not p or not q or _bbox(p).gap(_bbox(q)) >= reach:
        return False
    return polyline_distance(p, q) < reach


def clips_for_distance(distance_mm: float, pitch_mm: float, clip_length_mm: float | None = None) -> int:
    """The fewest clips whose straight chain spans `distance_mm` (the measure screen).

    A chain of n clips is n x pitch long, or (n - 1) x pitch + clip length when the
    length of one clip is given.
    """
    if pitch_mm <= 0:
        raise ValueError(f"clip pitch must be positive, got {pitch_mm}")
    if clip_length_mm is None:
        return max(0, math.ceil(distance_mm / pitch_mm - 1e-9))
    if distance_mm <= 0:
        return 0
    return max(1, math.ceil((distance_mm - clip_length_mm) / pitch_mm - 1e-9) + 1)
