"""Recorded cameras from image files: file:PATH (one picture forever) and frames:DIR.

frames:DIR replays a folder as a game: each file is one moment of the table. The current
frame is what capture_preview() shows (so the motion check sees it still), capture_still()
returns it and then moves on to the next file; a new file therefore looks like motion
followed by stillness, exactly what the loop waits for. Files are taken in natural name
order (frame2 before frame10). A corrupt file raises UnreadableFrame naming it and is
skipped by the next call; after the last file every call raises EndOfStream.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from firmware.camera.base import (PREVIEW_SIZE, CameraError, EndOfStream, Frame,
                                  UnreadableFrame, preview_from_still)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def read_image(path: Path) -> NDArray[np.uint8]:
    """cv2.imread that raises UnreadableFrame instead of returning None."""
    try:
        data = np.fromfile(str(path), dtype=np.uint8)
    except OSError as e:
        raise UnreadableFrame(str(path), f"cannot read ({e.strerror or e})") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UnreadableFrame(str(path), "not a readable image (corrupt or truncated)")
    return np.ascontiguousarray(image, dtype=np.uint8)


def _natural_key(path: Path) -> list[object]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


class FileCamera:
    """The same picture for every capture: for trying a reader on one photo."""

    def __init__(self, path: str, preview_size: tuple[int, int] = PREVIEW_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.preview_size = preview_size
        self.clock = clock
        self._image: NDArray[np.uint8] | None = None
        self._index = 0

    def start(self) -> None:
        if self._image is None:
            if not self.path.is_file():
                raise CameraError(f"{self.path}: no such image file; check the path")
            try:
                self._image = read_image(self.path)
            except UnreadableFrame:
                raise CameraError(f"{self.path}: not a readable image; use a JPEG or PNG "
                                  "photo") from None

    def capture_still(self) -> Frame:
        self.start()
        assert self._image is not None
        self._index += 1
        return Frame(self._image.copy(), self.clock(), self._index - 1, str(self.path))

    def capture_preview(self) -> NDArray[np.uint8]:
        self.start()
        assert self._image is not None
        return preview_from_still(self._image, self.preview_size)

    def close(self) -> None:
        self._image = None


class FramesCamera:
    """A folder of frames played once, in natural name order (see the module docstring)."""

    def __init__(self, folder: str, preview_size: tuple[int, int] = PREVIEW_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        self.folder = Path(folder)
        self.preview_size = preview_size
        self.clock = clock
        self.files: list[Path] | None = None
        self._pos = 0                                  # index into files of the current frame
        self._current: NDArray[np.uint8] | None = None
        self._preview: NDArray[np.uint8] | None = None

    def start(self) -> None:
        if self.files is not None:
            return
        if not self.folder.is_dir():
            raise CameraError(f"{self.folder}: no such folder of frames; check the path")
        self.files = sorted((p for p in self.folder.iterdir()
                             if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()),
                            key=_natural_key)
        if not self.files:
            raise CameraError(f"{self.folder}: no image files (.jpg, .png) in the folder; "
                              "record some frames or render them with tableref render")

    @property
    def remaining(self) -> int:
        """Frames not yet returned by capture_still (the current one included)."""
        self.start()
        assert self.files is not None
        return len(self.files) - self._pos

    def _load_current(self) -> NDArray[np.uint8]:
        self.start()
        assert self.files is not None
        if self._current is None:
            if self._pos >= len(self.files):
                raise EndOfStream(f"{self.folder}: end of the recording "
                                  f"({len(self.files)} frames)")
            path = self.files[self._pos]
            try:
                self._current = read_image(path)
            except UnreadableFrame:
                self._pos += 1          # the next call moves past the bad file
                raise
            self._preview = None
        return self._current

    def capture_preview(self) -> NDArray[np.uint8]:
        image = self._load_current()
        if self._preview is None:
            self._preview = preview_from_still(image, self.preview_size)
        return self._preview.copy()

    def capture_still(self) -> Frame:
        image = self._load_current()
        assert self.files is not None
        frame = Frame(image, self.clock(), self._pos, str(self.files[self._pos]))
        self._pos += 1
        self._current = None
        self._preview = None
        return frame

    def close(self) -> None:
        self._current = None
        self._preview = None
