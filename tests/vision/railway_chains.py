"""Seeded straight chains drawn top-down, as the strips the clip counter reads: shared by
the counter's, the clip length's and the River's tests (one drawing, not three copies)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.railways.clip_counter import STEP_MM
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth.canvas import TableCanvas
from vision.synth.colour import lin, linear_to_srgb

F32 = np.ndarray  # type: ignore[type-arg]


def red_evidence(canvas: TableCanvas) -> F32:
    """How red each pixel is (0..1): the wire evidence of a red chain."""
    img = (linear_to_srgb(canvas.image) * 255).astype(np.float32)
    return np.asarray(np.clip((img[..., 2] - np.maximum(img[..., 0], img[..., 1]) - 30) / 80, 0, 1), np.float32)


def river_evidence(canvas: TableCanvas) -> F32:
    """How blue or how silver each pixel is (0..1) on a dark table: the River's chain of
    blue and silver clips, as the reader reads it (the most of the two)."""
    img = (linear_to_srgb(canvas.image) * 255).astype(np.float32)
    blue = np.clip((img[..., 0] - np.maximum(img[..., 1], img[..., 2]) - 30) / 80, 0, 1)
    grey = img.mean(axis=2)
    chroma = img.max(axis=2) - img.min(axis=2)
    silver = np.clip((grey - 110) / 60, 0, 1) * (chroma < 30)
    return np.asarray(np.maximum(blue, silver), np.float32)


@dataclass
class SlackChain:
    """A chain's strip (rows STEP_MM apart along it), its clips' poses, and where its
    first clip starts and its last clip ends (mm along the strip)."""

    strip: F32
    poses: list[C.ClipPose]
    first_mm: float
    last_mm: float
    image: F32 | None = None        # the whole evidence (2 px/mm, table origin (0, 0); the chain along y 20)


def slack_chain(seed: int, n: int, length: float = 32.0, overlap: tuple[float, float] = (0.08, 0.48),
                margin_mm: float = 80.0, strip_clip_mm: float | None = None, patch_mm: float = 0.0,
                colours: list[str] | None = None, background: tuple[int, int, int] = (150, 160, 170)) -> SlackChain:
    """A straight chain of n clips of this length whose every joint has its own seeded
    slack (overlap a uniform share of a clip in `overlap`, taut to bunched, as
    vision.synth lays chains), drawn at 2 px/mm on a grey table starting 20 mm in; the
    strip is cut at the width of a strip_clip_mm clip (the reader cuts at the standard
    32 mm before it knows the length; default: this length). patch_mm: a solid patch of
    the chain's colour that long just past its last clip (a cube or a card's printing).
    colours: each clip's colour (default all red); with blue or silver clips the evidence
    is the River's (river_evidence)."""
    rng = np.random.default_rng(seed)
    width, wire = length * 9 / 32, 1.25 * length / 32
    ov = [float(length * rng.uniform(*overlap)) for _ in range(n - 1)]
    span = n * length - sum(ov)
    canvas = TableCanvas((0, 0), (span + margin_mm, 40), 2.0, background=lin(background))
    path = np.array([[20.0, 20.0], [span + margin_mm - 20.0, 20.0]])
    poses = C.layout_chain(path, n, length, ov, [float(abs(rng.normal(0, 6))) for _ in range(n)],
                           list(rng.uniform(size=n) < 0.5), list(rng.uniform(size=n) < 0.5))
    cols = colours or ["red"] * n
    R.draw_clip_chain(canvas, {"clips": [R._pose_dict(p) for p in poses], "colour": cols[0], "colours": cols,
                               "wire_mm": wire, "width_mm": width, "seed": seed})
    ev = red_evidence(canvas) if set(cols) == {"red"} else river_evidence(canvas)
    end = poses[-1].end[0]
    if patch_mm > 0:
        ev[32:49, int((end + 1) * 2):int((end + 1 + patch_mm) * 2)] = 1.0
    cut = length if strip_clip_mm is None else strip_clip_mm
    half = int((cut * 9 / 32 / 2 + 1.25 * cut / 32 + 2.5) / STEP_MM)
    s = np.ascontiguousarray(ev[40 - half:40 + half + 1, :].T).astype(np.float32)
    return SlackChain(s, poses, float(poses[0].start[0]), float(end), ev)
