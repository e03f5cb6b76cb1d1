"""OpenCV VideoCapture cameras: usb:N (a live webcam) and video:PATH (a recorded video).

A video plays like a live camera sampled at the preview rate: every capture_preview()
reads the next video frame; capture_still() returns the frame the last preview came from
(or reads one when there was no preview since the last still). At the end: EndOfStream.
A USB camera reads a fresh frame for every call.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from firmware.camera.base import (PREVIEW_SIZE, CameraError, EndOfStream, Frame,
                                  preview_from_still)


class _CaptureCamera:
    source: str

    def __init__(self, preview_size: tuple[int, int] = PREVIEW_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        self.preview_size = preview_size
        self.clock = clock
        self._cap: Any = None
        self._index = 0

    def _open(self) -> Any:
        raise NotImplementedError

    def start(self) -> None:
        if self._cap is None:
            self._cap = self._open()

    def _read(self) -> NDArray[np.uint8]:
        self.start()
        ok, image = self._cap.read()
        if not ok or image is None:
            self._on_read_failure()
        self._index += 1
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        return np.ascontiguousarray(image[:, :, :3], dtype=np.uint8)

    def _on_read_failure(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class UsbCamera(_CaptureCamera):
    """A webcam through OpenCV (V4L2 on Linux). `resolution` is a request the driver may round."""

    def __init__(self, device: int = 0, resolution: tuple[int, int] | None = None,
                 preview_size: tuple[int, int] = PREVIEW_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(preview_size, clock)
        self.device = device
        self.resolution = resolution
        self.source = f"usb:{device}"

    def _open(self) -> Any:
        cap = cv2.VideoCapture(self.device)
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"usb:{self.device}: no camera at /dev/video{self.device}; "
                              "plug it in or pick another number (ls /dev/video*)")
        if self.resolution:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.resolution[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.resolution[1])
        # V4L2 queues several frames; with one buffer a still is the table now, not the
        # table of a few frames ago (ignored by drivers that cannot do it)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        return cap

    def _on_read_failure(self) -> None:
        self.close()   # reopen on the next call: the loop's back-off retries
        raise CameraError(f"usb:{self.device}: the camera stopped sending frames "
                          "(unplugged or busy)")

    def capture_still(self) -> Frame:
        return Frame(self._read(), self.clock(), self._index - 1, self.source)

    def capture_preview(self) -> NDArray[np.uint8]:
        return preview_from_still(self._read(), self.preview_size)


class VideoCamera(_CaptureCamera):
    """A video file played frame by frame (see the module docstring)."""

    def __init__(self, path: str, preview_size: tuple[int, int] = PREVIEW_SIZE,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(preview_size, clock)
        self.path = Path(path)
        self.source = str(path)
        self._last: NDArray[np.uint8] | None = None
        self._ended = False

    def _open(self) -> Any:
        if not self.path.is_file():
            raise CameraError(f"{self.path}: no such video file; check the path")
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise CameraError(f"{self.path}: not a readable video; use an MP4, AVI or MKV "
                              "file OpenCV can decode")
        return cap

    def _on_read_failure(self) -> None:
        self._ended = True
        raise EndOfStream(f"{self.path}: end of the video ({self._index} frames)")

    def _next(self) -> NDArray[np.uint8]:
        if self._ended:
            raise EndOfStream(f"{self.path}: end of the video ({self._index} frames)")
        self._last = self._read()
        return self._last

    def capture_preview(self) -> NDArray[np.uint8]:
        return preview_from_still(self._next(), self.preview_size)

    def capture_still(self) -> Frame:
        image = self._last if self._last is not None else self._next()
        self._last = None
        return Frame(image, self.clock(), self._index - 1, f"{self.source}#{self._index - 1}")
