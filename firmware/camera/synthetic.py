"""The synthetic table as a camera (vision.synth): demos and tests without hardware.

    synthetic:town77?seed=3&resolution=640x360    one random table, the same every capture
    synthetic:town77?seed=3&count=5                5 random tables (seeds 3..7), then EndOfStream

Other query options go to vision.synth.random_scene(game, seed, **options) as numbers
when they look like numbers, [W, H] for "WxH", and text otherwise.

From Python, pass `scenes` (any iterable of scene dicts, e.g. a scripted game built with
vision.synth.town77.city_scene) to play them like frames:DIR: capture_preview() shows the
current scene, capture_still() returns it and moves on; EndOfStream after the last one.
"""

from __future__ import annotations

import importlib
import re
import time
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np
from numpy.typing import NDArray

from firmware.camera.base import (PREVIEW_SIZE, CameraSpecError, EndOfStream, Frame,
                                  preview_from_still)


def parse_option(value: str) -> Any:
    """"3" -> 3, "0.5" -> 0.5, "640x360" -> [640, 360], "true" -> True, else the text."""
    v = value.strip()
    if re.fullmatch(r"[+-]?\d+", v):
        return int(v)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", v):
        return float(v)
    m = re.fullmatch(r"(\d+)[xX](\d+)", v)
    if m:
        return [int(m.group(1)), int(m.group(2))]
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    return v


def _synth() -> Any:
    """vision.synth, imported on first use: it is heavy and only the demo and tests need it."""
    return importlib.import_module("vision.synth")


class SyntheticCamera:
    def __init__(self, game: str = "town77", seed: int = 0,
                 options: Mapping[str, Any] | None = None, count: int | None = None,
                 scenes: Iterable[Mapping[str, Any]] | None = None,
                 preview_size: tuple[int, int] = PREVIEW_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        self.game = game
        self.seed = seed
        self.options = dict(options or {})
        self.count = count
        self.preview_size = preview_size
        self.clock = clock
        self.source = f"synthetic:{game}?seed={seed}"
        self._scenes: Iterator[Mapping[str, Any]] | None = iter(scenes) if scenes is not None \
            else None
        self._static = scenes is None and count is None
        self._made = 0
        self._index = 0
        self._current: NDArray[np.uint8] | None = None
        self._preview: NDArray[np.uint8] | None = None
        self._ended = False

    def start(self) -> None:
        pass

    def _next_scene(self) -> Mapping[str, Any]:
        if self._scenes is not None:
            try:
                return next(self._scenes)
            except StopIteration:
                self._ended = True
                raise EndOfStream(f"{self.source}: end of the scripted scenes "
                                  f"({self._made} frames)") from None
        if self.count is not None and self._made >= self.count:
            self._ended = True
            raise EndOfStream(f"{self.source}: end of the {self.count} synthetic tables")
        try:
            scene: Mapping[str, Any] = _synth().random_scene(self.game, self.seed + self._made,
                                                             **self.options)
            return scene
        except (TypeError, KeyError, ValueError) as e:
            raise CameraSpecError(f"{self.source}: {e}; check the game name and the "
                                  "options") from None

    def _load(self) -> NDArray[np.uint8]:
        if self._ended:
            raise EndOfStream(f"{self.source}: no more synthetic frames")
        if self._current is None:
            scene = self._next_scene()
            self._made += 1
            image = _synth().render_scene(dict(scene)).image
            self._current = np.ascontiguousarray(image, dtype=np.uint8)
            self._preview = None
        return self._current

    def capture_preview(self) -> NDArray[np.uint8]:
        image = self._load()
        if self._preview is None:
            self._preview = preview_from_still(image, self.preview_size)
        return self._preview.copy()

    def capture_still(self) -> Frame:
        image = self._load()
        frame = Frame(image.copy() if self._static else image, self.clock(), self._index,
                      f"{self.source}#{self._made - 1}")
        self._index += 1
        if not self._static:
            self._current = None
            self._preview = None
        return frame

    def close(self) -> None:
        self._current = None
        self._preview = None
