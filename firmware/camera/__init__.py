"""Cameras behind one small interface; `open_camera(spec)` picks the backend.

Specs (also from $TABLEREF_CAMERA, then the config file, then "auto"), in the spirit of
gpiozero's pin factories:
  auto                the Pi camera if attached, else /dev/video0, else (on a Pi)
                      picamera anyway, else (elsewhere) synthetic:GAME
  picamera[:N]        Raspberry Pi camera via picamera2 (full-res stills + low-res stream)
  usb[:N]             OpenCV VideoCapture device N
  file:PATH           one image file, returned for every capture
  frames:DIR          the image files of a folder in name order (a recorded game)
  video:PATH          a video file
  synthetic:GAME[?seed=S&count=N&...]   the synthetic table (vision.synth)

Errors: CameraError (and subclasses EndOfStream, UnreadableFrame, CameraSpecError).
"""
from firmware.camera.base import (Camera, CameraError, CameraSpecError, EndOfStream, Frame,
                                  UnreadableFrame, preview_from_still)
from firmware.camera.factory import open_camera, real_camera_present

__all__ = ["Camera", "CameraError", "CameraSpecError", "EndOfStream", "Frame",
           "UnreadableFrame", "open_camera", "preview_from_still", "real_camera_present"]
