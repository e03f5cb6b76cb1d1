"""The camera interface every backend implements."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
from numpy.typing import NDArray


class CameraError(RuntimeError):
    """The camera could not deliver a frame (unplugged, busy, end of a recording)."""


class EndOfStream(CameraError):
    """A recorded source (frames:, video:) has no more frames."""


@dataclass(frozen=True)
class Frame:
    """One capture: BGR uint8 pixels plus when and from where."""

    image: NDArray[np.uint8]
    timestamp: float
    index: int
    source: str = ""


class Camera(Protocol):
    """Full-resolution stills for analysis, a cheap low-resolution grey stream for motion."""

    def start(self) -> None: ...

    def capture_still(self) -> Frame:
        """A full-resolution BGR frame for analysis. Raises CameraError."""
        ...

    def capture_preview(self) -> NDArray[np.uint8]:
        """A low-resolution greyscale frame (about 320x180) for the motion check."""
        ...

    def close(self) -> None: ...
