"""Camera seams: the hardware-free backends, spec parsing and choice, the picamera2 adapter
driven by a stand-in for the Pi-only picamera2 module (only the hardware is faked)."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from firmware.camera import (CameraError, CameraSpecError, EndOfStream, UnreadableFrame,
                             open_camera, preview_from_still)
from firmware.camera.capture import VideoCamera
from firmware.camera.files import FileCamera, FramesCamera
from firmware.camera.picam import PiCamera
from firmware.camera.synthetic import SyntheticCamera, parse_option
from firmware.config import CameraConfig, DeviceConfig


def _image(value: int, w: int = 64, h: int = 36) -> NDArray[np.uint8]:
    img = np.full((h, w, 3), value, np.uint8)
    img[: h // 2, : w // 2] = (value + 100) % 256   # a feature so frames are not flat
    return img


def _write(path: Path, value: int) -> Path:
    assert cv2.imwrite(str(path), _image(value))
    return path


def test_preview_is_grey_320x180() -> None:
    """Any still becomes a 320x180 uint8 grey preview with the same mean brightness."""
    img = np.zeros((1296, 2304, 3), np.uint8)
    img[:, :, 1] = 200
    p = preview_from_still(img)
    assert p.shape == (180, 320) and p.dtype == np.uint8
    assert abs(int(p.mean()) - int(cv2.cvtColor(img[:4, :4], cv2.COLOR_BGR2GRAY).mean())) <= 1


def test_frames_natural_order_preview_then_still_then_end(tmp_path: Path) -> None:
    """frames:DIR plays frame2 before frame10; the preview shows the frame the still returns."""
    for n, v in ((10, 30), (2, 10), (1, 0), (3, 20)):
        _write(tmp_path / f"frame{n}.png", v)
    (tmp_path / "notes.txt").write_text("not a frame")
    cam = open_camera(f"frames:{tmp_path}", environ={})
    assert isinstance(cam, FramesCamera) and cam.remaining == 4
    seen = []
    for _ in range(4):
        p1, p2 = cam.capture_preview(), cam.capture_preview()
        assert np.array_equal(p1, p2)          # still while the same frame shows
        frame = cam.capture_still()
        assert np.array_equal(preview_from_still(frame.image), p1)
        seen.append((Path(frame.source).name, int(frame.image[-1, -1, 0]), frame.index))
    assert seen == [("frame1.png", 0, 0), ("frame2.png", 10, 1), ("frame3.png", 20, 2),
                    ("frame10.png", 30, 3)]
    with pytest.raises(EndOfStream, match="end of the recording \\(4 frames\\)"):
        cam.capture_preview()
    with pytest.raises(EndOfStream):
        cam.capture_still()


def test_frames_corrupt_file_is_named_and_skipped(tmp_path: Path) -> None:
    """A truncated JPEG raises UnreadableFrame naming it; the next call gives the next frame."""
    _write(tmp_path / "0001.jpg", 50)
    good = cv2.imencode(".jpg", _image(60))[1].tobytes()
    (tmp_path / "0002.jpg").write_bytes(good[: len(good) // 3])
    (tmp_path / "0003.jpg").write_bytes(b"")
    _write(tmp_path / "0004.jpg", 70)
    cam = open_camera(f"frames:{tmp_path}", environ={})
    assert cam.capture_still().source.endswith("0001.jpg")
    for bad in ("0002.jpg", "0003.jpg"):
        with pytest.raises(UnreadableFrame) as info:
            cam.capture_preview()
        assert info.value.path == str(tmp_path / bad)
        assert str(info.value) == (f"{tmp_path / bad}: not a readable image (corrupt or "
                                   "truncated); skipping this frame")
    assert cam.capture_still().source.endswith("0004.jpg")


def test_frames_folder_errors(tmp_path: Path) -> None:
    """A missing or empty folder is a one-line CameraError naming it."""
    with pytest.raises(CameraError, match="no such folder of frames; check the path"):
        open_camera(f"frames:{tmp_path / 'nope'}", environ={}).capture_still()
    with pytest.raises(CameraError) as info:
        open_camera(f"frames:{tmp_path}", environ={}).capture_preview()
    assert str(info.value) == (f"{tmp_path}: no image files (.jpg, .png) in the folder; "
                               "record some frames or render them with tableref render")


def test_file_camera_repeats_a_copy(tmp_path: Path) -> None:
    """file:PATH returns the same picture every time, as independent copies."""
    path = _write(tmp_path / "one.png", 90)
    cam = open_camera(f"file:{path}", environ={})
    assert isinstance(cam, FileCamera)
    a, b = cam.capture_still(), cam.capture_still()
    a.image[:] = 0
    assert int(b.image[-1, -1, 0]) == 90 and (a.index, b.index) == (0, 1)
    assert cam.capture_preview().shape == (180, 320)
    (tmp_path / "bad.png").write_bytes(b"garbage")
    with pytest.raises(CameraError, match="bad.png: not a readable image; use a JPEG or PNG"):
        open_camera(f"file:{tmp_path / 'bad.png'}", environ={}).start()


def test_video_plays_frames_then_ends(tmp_path: Path) -> None:
    """video:PATH reads successive frames; the still is the last previewed frame; then EndOfStream."""
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 5, (64, 36))
    assert writer.isOpened()
    values = [20, 120, 220]
    for v in values:
        writer.write(_image(v))
    writer.release()
    cam = open_camera(f"video:{path}", environ={})
    assert isinstance(cam, VideoCamera)
    got = []
    for _ in values:
        preview = cam.capture_preview()
        still = cam.capture_still()
        assert np.array_equal(preview, preview_from_still(still.image))
        got.append(int(still.image[-1, -1].mean()))
    assert all(abs(g - v) < 12 for g, v in zip(got, values)), got
    with pytest.raises(EndOfStream, match="end of the video \\(3 frames\\)"):
        cam.capture_preview()
    with pytest.raises(CameraError, match="no such video file"):
        open_camera(f"video:{tmp_path / 'none.mp4'}", environ={}).start()


def test_usb_missing_device_is_a_camera_error() -> None:
    """usb:N with no such device says which /dev/video it looked for."""
    cam = open_camera("usb:63", environ={})
    with pytest.raises(CameraError, match=r"usb:63: no camera at /dev/video63"):
        cam.capture_still()


@pytest.mark.parametrize("spec, message", [
    ("webcam", "camera spec 'webcam': unknown camera; use picamera, usb:N, file:PATH, "
               "frames:DIR, video:PATH or synthetic:GAME[?seed=S]"),
    ("usb:x", "camera spec 'usb:x': 'x' is not a camera number; e.g. usb:0"),
    ("frames:", "camera spec 'frames:': missing the path; e.g. frames:DIR"),
    ("synthetic:town77?seed=abc", "camera spec 'synthetic:town77?seed=abc': seed and count "
                                  "must be whole numbers"),
])
def test_bad_specs(spec: str, message: str) -> None:
    """A malformed spec is a CameraSpecError with one line saying what to write instead."""
    with pytest.raises(CameraSpecError) as info:
        open_camera(spec, environ={})
    assert str(info.value) == message


def test_spec_order(tmp_path: Path) -> None:
    """explicit spec > $TABLEREF_CAMERA > config camera.spec."""
    path = str(_write(tmp_path / "a.png", 1))
    cfg = DeviceConfig(camera=CameraConfig(spec=f"frames:{tmp_path}"))
    env = {"TABLEREF_CAMERA": f"file:{path}"}
    assert isinstance(open_camera(None, cfg, environ={}), FramesCamera)
    assert isinstance(open_camera(None, cfg, environ=env), FileCamera)
    assert isinstance(open_camera(f"video:{path}", cfg, environ=env), VideoCamera)


def test_auto_without_hardware_is_synthetic() -> None:
    """auto on a machine with no camera falls back to the synthetic table of the config's game."""
    if Path("/dev/video0").exists():
        pytest.skip("this machine has a /dev/video0")
    cam = open_camera(None, DeviceConfig(game="railways"), environ={})
    assert isinstance(cam, SyntheticCamera) and cam.game == "railways"


def test_synthetic_spec_options() -> None:
    """The query string becomes seed, count and typed random_scene options."""
    cam = open_camera("synthetic:tiles?seed=7&count=2&resolution=640x360&shapes=4&x=0.5",
                      environ={})
    assert isinstance(cam, SyntheticCamera)
    assert (cam.game, cam.seed, cam.count) == ("tiles", 7, 2)
    assert cam.options == {"resolution": [640, 360], "shapes": 4, "x": 0.5}
    assert parse_option("true") is True and parse_option("town") == "town"


def test_synthetic_table_renders_real_frames() -> None:
    """synthetic:GAME renders vision.synth tables: the same one forever, or `count` of them."""
    still = open_camera("synthetic:town77?seed=3&resolution=320x180&n_tiles=4", environ={})
    a, b = still.capture_still(), still.capture_still()
    assert a.image.shape == (180, 320, 3) and a.image.dtype == np.uint8
    assert np.array_equal(a.image, b.image) and a.image.std() > 5
    assert still.capture_preview().shape == (180, 320)
    two = open_camera("synthetic:town77?seed=3&count=2&resolution=320x180&n_tiles=4",
                      environ={})
    first = two.capture_still()
    assert np.array_equal(first.image, a.image)
    assert not np.array_equal(two.capture_still().image, first.image)
    with pytest.raises(EndOfStream, match="end of the 2 synthetic tables"):
        two.capture_preview()


def test_synthetic_unknown_game() -> None:
    """An unknown game is a one-line CameraSpecError naming the games there are."""
    with pytest.raises(CameraSpecError) as info:
        open_camera("synthetic:chess?seed=1", environ={}).capture_still()
    assert str(info.value).startswith("synthetic:chess?seed=1: no scene generator for 'chess'")
    assert str(info.value).endswith("; check the game name and the options")


def test_synthetic_scripted_scenes_play_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    """Given scenes, the synthetic camera renders each once, in order, then EndOfStream."""
    rendered: list[int] = []

    def render_scene(scene: dict[str, Any]) -> Any:
        rendered.append(scene["n"])
        return types.SimpleNamespace(image=_image(scene["n"] * 40))

    fake = types.ModuleType("vision.synth")
    fake.render_scene = render_scene  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vision.synth", fake)
    cam = SyntheticCamera("town77", scenes=[{"n": 1}, {"n": 2}])
    assert cam.capture_preview().shape == (180, 320)
    assert int(cam.capture_still().image[-1, -1, 0]) == 40
    assert int(cam.capture_still().image[-1, -1, 0]) == 80
    with pytest.raises(EndOfStream):
        cam.capture_preview()
    assert rendered == [1, 2]


# --- picamera2 adapter, with a stand-in for the module that only exists on the Pi -------

class FakePicamera2:
    cameras: list[dict[str, Any]] = [{"Model": "imx708"}]
    instances: list["FakePicamera2"] = []

    def __init__(self, num: int = 0) -> None:
        self.calls: list[Any] = []
        self.camera_controls = {"AfMode": (0, 2, 0)}
        FakePicamera2.instances.append(self)

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        return FakePicamera2.cameras

    def create_still_configuration(self, **kw: Any) -> dict[str, Any]:
        self.calls.append(("config", kw))
        return kw

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config

    def camera_configuration(self) -> dict[str, Any]:
        return {"lores": {"size": self.config["lores"]["size"]}}

    def start(self) -> None:
        self.calls.append("start")

    def autofocus_cycle(self) -> bool:
        self.calls.append("af")
        return True

    def capture_metadata(self) -> dict[str, Any]:
        return {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": [1.8, 1.4]}

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.calls.append(("controls", controls))

    def capture_array(self, name: str = "main") -> NDArray[np.uint8]:
        w, h = self.config[name]["size"]
        if name == "main":
            return np.full((h, w, 3), 7, np.uint8)
        yuv = np.full((h * 3 // 2, w), 200, np.uint8)
        yuv[:h] = 99            # the Y plane
        return yuv

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> type[FakePicamera2]:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.cameras = [{"Model": "imx708"}]
    FakePicamera2.instances = []
    return FakePicamera2


def test_picamera_configures_two_streams_and_locks_exposure(
        fake_picamera2: type[FakePicamera2]) -> None:
    """One still config with main RGB888 + lores YUV420; AE/AWB frozen at the settled values,
    the exposure one stop under (headroom for a brighter room)."""
    slept: list[float] = []
    cam = PiCamera((640, 360), (320, 180), lock_exposure=True, settle_seconds=1.5,
                   sleep=slept.append)
    frame = cam.capture_still()
    pi = fake_picamera2.instances[0]
    config = pi.calls[0][1]
    assert config["main"] == {"size": (640, 360), "format": "RGB888"}
    assert config["lores"] == {"size": (320, 180), "format": "YUV420"}
    assert config["buffer_count"] == 2 and "transform" not in config
    assert slept == [1.5] and "af" in pi.calls
    assert ("controls", {"AeEnable": False, "AwbEnable": False, "ExposureTime": 6000,
                         "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4)}) in pi.calls
    assert frame.image.shape == (360, 640, 3) and frame.source == "picamera:0"
    preview = cam.capture_preview()
    assert preview.shape == (180, 320) and int(preview.max()) == 99   # Y plane only
    cam.close()
    assert pi.calls[-2:] == ["stop", "close"]


def test_picamera_errors_without_camera(fake_picamera2: type[FakePicamera2],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """No camera on the ribbon, or no picamera2 at all, are one-line CameraErrors."""
    fake_picamera2.cameras = []
    with pytest.raises(CameraError, match="picamera: no camera found; check the ribbon cable"):
        PiCamera().start()
    monkeypatch.setitem(sys.modules, "picamera2", None)   # import fails as off the Pi
    with pytest.raises(CameraError) as info:
        open_camera("picamera", environ={}).start()
    assert str(info.value) == ("picamera: picamera2 is not installed; install it with: sudo "
                               "apt install python3-picamera2 (and make the venv with "
                               "--system-site-packages)")


def test_camera_present_command_without_camera(capsys: pytest.CaptureFixture[str]) -> None:
    """camera-present exits 1 when neither picamera2 nor /dev/video0 gives a camera."""
    if Path("/dev/video0").exists():
        pytest.skip("this machine has a /dev/video0")
    from firmware import cli
    assert cli.main(["camera-present"]) == 1
    assert "no camera" in capsys.readouterr().out


def test_camera_present_command_with_pi_camera(fake_picamera2: type[FakePicamera2]) -> None:
    """camera-present exits 0 when libcamera lists a camera."""
    from firmware import cli
    assert cli.main(["camera-present"]) == 0


def test_picamera_rotation_180_flips_both_axes(fake_picamera2: type[FakePicamera2],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """rotation = 180 asks libcamera for hflip and vflip; no exposure lock when disabled."""
    libcamera = types.ModuleType("libcamera")
    libcamera.Transform = lambda **kw: ("Transform", kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "libcamera", libcamera)
    cam = PiCamera((640, 360), lock_exposure=False, rotation=180, sleep=lambda s: None)
    cam.start()
    pi = fake_picamera2.instances[0]
    assert pi.calls[0][1]["transform"] == ("Transform", {"hflip": 1, "vflip": 1})
    assert not any(isinstance(c, tuple) and c[0] == "controls" for c in pi.calls)
    cam.close()
