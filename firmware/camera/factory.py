"""open_camera(spec): pick and build a camera backend from a spec string.

Order of choice (like gpiozero's pin factories): the `spec` argument (--camera) >
$TABLEREF_CAMERA > the config file's camera.spec > "auto". "auto" means the Pi camera
when one is attached, else /dev/video0 when OpenCV can read it, else (on a Pi) the Pi
camera anyway so the loop reports it missing, else (not a Pi) the synthetic table.
"""

from __future__ import annotations

import os
import time
from typing import Callable, Mapping
from urllib.parse import parse_qsl

import cv2

from firmware.camera.base import Camera, CameraSpecError
from firmware.camera.capture import UsbCamera, VideoCamera
from firmware.camera.files import FileCamera, FramesCamera
from firmware.camera.picam import PiCamera, picamera_present
from firmware.camera.synthetic import SyntheticCamera, parse_option
from firmware.buttons.factory import is_raspberry_pi
from firmware.config import DeviceConfig, resolve_spec

SPEC_HELP = ("picamera, usb:N, file:PATH, frames:DIR, video:PATH or synthetic:GAME[?seed=S]")


def usb_camera_present(device: int = 0) -> bool:
    """True when /dev/videoN exists and OpenCV reads a frame from it."""
    if not os.path.exists(f"/dev/video{device}"):
        return False
    cap = cv2.VideoCapture(device)
    try:
        return bool(cap.isOpened() and cap.read()[0])
    finally:
        cap.release()


def real_camera_present() -> bool:
    """A Pi camera libcamera can see, or a readable /dev/video0 (`tableref camera-present`)."""
    return picamera_present() or usb_camera_present(0)


def auto_camera_spec(config: DeviceConfig | None = None) -> str:
    """What "auto" means here and now.

    On a Raspberry Pi with no camera seen yet, still "picamera": the loop then shows
    "Camera lost" and retries until the ribbon is fixed, rather than quietly refereeing
    a synthetic table. Only machines that are not Pis fall back to the synthetic table.
    """
    if picamera_present():
        return "picamera"
    if usb_camera_present(0):
        return "usb:0"
    if is_raspberry_pi():
        return "picamera"
    game = (config.game if config and config.game else "town77")
    return f"synthetic:{game}"


def open_camera(spec: str | None = None, config: DeviceConfig | None = None, *,
                clock: Callable[[], float] = time.time,
                environ: Mapping[str, str] | None = None) -> Camera:
    """The camera for `spec` (see the module docstring); not started until first used.

    Raises CameraSpecError for a malformed spec; CameraError subclasses for the rest
    come from start() or the first capture (missing file, no camera...).
    """
    cfg = config or DeviceConfig()
    chosen = resolve_spec("camera", spec, cfg, environ)
    if chosen == "auto":
        chosen = auto_camera_spec(cfg)
    kind, _, rest = chosen.partition(":")
    kind = kind.strip().lower()
    preview = cfg.camera.preview
    if kind == "picamera":
        num = _int(rest or "0", chosen)
        return PiCamera(cfg.camera.resolution, preview, cfg.camera.lock_exposure,
                        cfg.camera.settle_seconds, cfg.camera.rotation, num, clock)
    if kind == "usb":
        return UsbCamera(_int(rest or "0", chosen), cfg.camera.resolution, preview, clock)
    if kind in ("file", "frames", "video"):
        if not rest:
            raise CameraSpecError(f"camera spec {chosen!r}: missing the path; e.g. "
                                  f"{kind}:{'DIR' if kind == 'frames' else 'PATH'}")
        path = os.path.expanduser(rest)
        if kind == "file":
            return FileCamera(path, preview, clock)
        if kind == "frames":
            return FramesCamera(path, preview, clock)
        return VideoCamera(path, preview, clock)
    if kind == "synthetic":
        game, _, query = rest.partition("?")
        options = {k: parse_option(v) for k, v in parse_qsl(query, keep_blank_values=True)}
        seed = options.pop("seed", 0)
        count = options.pop("count", None)
        if not isinstance(seed, int) or (count is not None and not isinstance(count, int)):
            raise CameraSpecError(f"camera spec {chosen!r}: seed and count must be whole "
                                  "numbers")
        return SyntheticCamera(game or (cfg.game or "town77"), seed, options, count,
                               preview_size=preview, clock=clock)
    raise CameraSpecError(f"camera spec {chosen!r}: unknown camera; use {SPEC_HELP}")


def _int(text: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise CameraSpecError(f"camera spec {spec!r}: {text!r} is not a camera number; "
                              "e.g. usb:0") from None
