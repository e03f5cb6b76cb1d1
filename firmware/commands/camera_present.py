"""`tableref camera-present`: exit 0 when a real camera is attached, else 1.

The quickstart script uses it to choose between the referee (`tableref run`) and the
synthetic-table demo. It prints what it found, so a person can use it to check wiring.
"""

from __future__ import annotations

import argparse


def main(args: argparse.Namespace) -> int:
    from firmware.camera.factory import usb_camera_present
    from firmware.camera.picam import picamera_present

    if picamera_present():
        print("picamera: a Raspberry Pi camera is attached")
        return 0
    if usb_camera_present(0):
        print("usb:0: a camera answers at /dev/video0")
        return 0
    print("no camera: no Pi camera (picamera2/libcamera) and no readable /dev/video0")
    return 1
