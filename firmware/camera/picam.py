"""The Raspberry Pi camera (Camera Module 3, HQ) through picamera2.

picamera2 only exists on Raspberry Pi OS (apt install python3-picamera2; the venv must be
made with --system-site-packages to see it), so it is imported HERE, lazily, inside
start() and picamera_present(), and nowhere else in tableref.

One Picamera2 instance, one still configuration with two streams, started once:
  main   full resolution, format "RGB888" (which picamera2 delivers as B,G,R bytes, i.e.
         exactly OpenCV's BGR order) for analysis;
  lores  ~320x180 YUV420 for the motion check: its first `height` rows are the Y
         (luma) plane, so the grey preview costs nothing.
Keeping one mode means no switch_mode between motion checks and stills (a mode switch
restarts the pipeline and the auto algorithms). After `settle_seconds` the current
exposure, gain and colour gains are read from the frame metadata and frozen
(AeEnable/AwbEnable off): the same piece then has the same colour all evening, which
the colour readers rely on more than on perfect exposure.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from firmware.camera.base import PREVIEW_SIZE, CameraError, Frame

INSTALL_HINT = ("install it with: sudo apt install python3-picamera2 (and make the venv "
                "with --system-site-packages)")


def _import_picamera2() -> Any:
    try:
        import picamera2  # noqa: PLC0415  (lazy on purpose: absent off the Pi)
    except ImportError:
        raise CameraError(f"picamera: picamera2 is not installed; {INSTALL_HINT}") from None
    return picamera2


def picamera_present() -> bool:
    """True when picamera2 imports and libcamera lists at least one camera."""
    try:
        picamera2 = _import_picamera2()
        return bool(picamera2.Picamera2.global_camera_info())
    except Exception:  # noqa: BLE001  (any failure here means "no usable Pi camera")
        return False


class PiCamera:
    def __init__(self, resolution: tuple[int, int] = (2304, 1296),
                 preview_size: tuple[int, int] = PREVIEW_SIZE, lock_exposure: bool = True,
                 settle_seconds: float = 2.0, rotation: int = 0, camera_num: int = 0,
                 clock: Callable[[], float] = time.time,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.resolution = resolution
        self.preview_size = preview_size
        self.lock_exposure = lock_exposure
        self.settle_seconds = settle_seconds
        self.rotation = rotation
        self.camera_num = camera_num
        self.clock = clock
        self.sleep = sleep
        self.source = f"picamera:{camera_num}"
        self.locked_controls: dict[str, Any] = {}
        self._cam: Any = None
        self._lores_size = preview_size
        self._index = 0

    def start(self) -> None:
        if self._cam is not None:
            return
        picamera2 = _import_picamera2()
        if not picamera2.Picamera2.global_camera_info():
            raise CameraError("picamera: no camera found; check the ribbon cable (contacts "
                              "towards the board) and run: rpicam-hello --list-cameras")
        try:
            cam = picamera2.Picamera2(self.camera_num)
            kwargs: dict[str, Any] = {
                "main": {"size": tuple(self.resolution), "format": "RGB888"},
                "lores": {"size": tuple(self.preview_size), "format": "YUV420"},
                "buffer_count": 2,
                # still configurations allow very long exposures (slow frames in a dim
                # room); 10-30 fps keeps the motion check responsive
                "controls": {"FrameDurationLimits": (33333, 100000)},
            }
            if self.rotation == 180:
                from libcamera import Transform  # noqa: PLC0415  (ships with picamera2)
                kwargs["transform"] = Transform(hflip=1, vflip=1)
            config = cam.create_still_configuration(**kwargs)
            cam.configure(config)
            self._lores_size = tuple(cam.camera_configuration()["lores"]["size"])
            cam.start()
        except CameraError:
            raise
        except Exception as e:  # noqa: BLE001  (libcamera raises RuntimeError and others)
            raise CameraError(f"picamera: could not start the camera ({e}); is another "
                              "program using it? (sudo systemctl stop tableref)") from None
        self._cam = cam
        try:
            if "AfMode" in getattr(cam, "camera_controls", {}):
                cam.autofocus_cycle()       # Camera Module 3: focus once on the table
            if self.lock_exposure:
                self.sleep(self.settle_seconds)
                self._lock()
        except Exception as e:  # noqa: BLE001
            self.close()
            raise CameraError(f"picamera: could not settle exposure ({e})") from None

    def _lock(self) -> None:
        """Freeze exposure and white balance at the values the auto algorithms settled on,
        the exposure a stop under (calibration.exposure) so a brighter room cannot clip."""
        from calibration.exposure import locked_controls

        controls = locked_controls(self._cam.capture_metadata())
        self._cam.set_controls(controls)
        self.locked_controls = controls

    def capture_still(self) -> Frame:
        self.start()
        try:
            image = self._cam.capture_array("main")
        except Exception as e:  # noqa: BLE001
            self.close()
            raise CameraError(f"picamera: capture failed ({e})") from None
        if image.ndim == 3 and image.shape[2] == 4:   # XRGB8888 on some setups
            image = image[:, :, :3]
        self._index += 1
        return Frame(np.ascontiguousarray(image, dtype=np.uint8), self.clock(),
                     self._index - 1, self.source)

    def capture_preview(self) -> NDArray[np.uint8]:
        self.start()
        try:
            yuv = self._cam.capture_array("lores")
        except Exception as e:  # noqa: BLE001
            self.close()
            raise CameraError(f"picamera: capture failed ({e})") from None
        w, h = self._lores_size
        return np.ascontiguousarray(yuv[:h, :w], dtype=np.uint8)

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            except Exception:  # noqa: BLE001  (closing a dead camera must not raise)
                pass
            self._cam = None
