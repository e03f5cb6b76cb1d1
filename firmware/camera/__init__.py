"""Cameras behind one small interface; `open_camera(spec)` picks the backend.

Specs (also from $TABLEREF_CAMERA), in the spirit of gpiozero's pin factories:
  picamera            Raspberry Pi camera via picamera2 (full-res stills + low-res stream)
  usb[:N]             OpenCV VideoCapture device N
  file:PATH           one image file, returned for every capture
  frames:DIR          the image files of a folder in name order (a recorded game)
  video:PATH          a video file
  synthetic:GAME[?seed=S&...]   the synthetic table (vision.synth)
"""
from firmware.camera.base import Camera, CameraError, Frame

__all__ = ["Camera", "CameraError", "Frame"]
