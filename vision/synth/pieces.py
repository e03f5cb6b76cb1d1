"""The piece registry: scene["pieces"] and scene["occluders"] entries are drawn by the
function registered for their "kind".

Another module adds a kind without touching this package's files:

    from vision.synth.pieces import register_piece
    def draw_clip_chain(canvas, piece, ctx): ...; return {"kind": "clip_chain", ...}
    register_piece("clip_chain", draw_clip_chain)

Kinds living in modules that may not be imported yet are listed in LAZY_KINDS and
imported on first use, so a scene JSON file renders without any import ceremony.
"""

from __future__ import annotations

import importlib
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import numpy as np

from calibration.profile import TableProfile
from vision.synth.canvas import TableCanvas


@dataclass
class DrawContext:
    """What a draw function may use besides its own piece dict.

    rng is seeded from the scene seed and the piece's index, so adding a piece does not
    change how the others look; `scene` is the whole (read-only) scene dict."""

    rng: random.Random
    nprng: np.random.Generator
    scene: dict[str, Any]
    profile: TableProfile
    index: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class DrawFn(Protocol):
    def __call__(self, canvas: TableCanvas, piece: dict[str, Any],
                 ctx: DrawContext) -> dict[str, Any] | None: ...


PIECES: dict[str, Callable[[TableCanvas, dict[str, Any], DrawContext], dict[str, Any] | None]] = {}

LAZY_KINDS: dict[str, str] = {
    "tile": "vision.synth.tiles", "stack": "vision.synth.tiles",
    "card": "vision.synth.props", "meeple": "vision.synth.props", "cube": "vision.synth.props",
    "token": "vision.synth.props",
    "hand": "vision.synth.occluders", "arm": "vision.synth.occluders", "cup": "vision.synth.occluders",
    "charuco": "vision.synth.charuco",
    "clip_chain": "vision.synth.clips", "clip": "vision.synth.clips",
    "river": "vision.synth.railways", "station": "vision.synth.railways",
    "obstacle": "vision.synth.railways", "metropolis": "vision.synth.railways",
    "rail_cube": "vision.synth.railways",
}


class SceneError(ValueError):
    """A scene dict that cannot be rendered; the message names the key and the fix."""


class UnknownPiece(SceneError):
    """A scene names a piece kind nobody registered."""


def register_piece(kind: str,
                   draw_fn: Callable[[TableCanvas, dict[str, Any], DrawContext], dict[str, Any] | None]) -> None:
    """Register (or replace) the draw function for a piece kind."""
    PIECES[kind] = draw_fn


def get_piece(kind: str) -> Callable[[TableCanvas, dict[str, Any], DrawContext], dict[str, Any] | None]:
    if kind not in PIECES and kind in LAZY_KINDS:
        try:
            importlib.import_module(LAZY_KINDS[kind])
        except ModuleNotFoundError as e:
            raise UnknownPiece(f"piece kind '{kind}' needs module {LAZY_KINDS[kind]}, "
                               f"which is not available ({e.name})") from None
    if kind not in PIECES:
        known = ", ".join(sorted(set(PIECES) | set(LAZY_KINDS)))
        raise UnknownPiece(f"unknown piece kind '{kind}'; use one of: {known} "
                           "(or register_piece it)")
    return PIECES[kind]
