"""Fakes for driving firmware.loop.Referee in tests: a list camera, scripted buttons."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from firmware.buttons.base import ButtonEvent
from firmware.camera.base import CameraError, EndOfStream, Frame, UnreadableFrame, preview_from_still
from firmware.display.virtual import NullDisplay
from firmware.journal import Journal
from firmware.loop import LoopConfig, Referee, VirtualClock

import minitable


class ListCamera:
    """Frames played once like frames:DIR; `lost` preview calls fail like an unplugged camera."""

    def __init__(self, frames: Sequence[np.ndarray | None], lost: Sequence[int] = ()) -> None:
        self.frames = list(frames)
        self.pos = 0
        self.calls = 0
        self.lost = set(lost)

    def start(self) -> None:
        pass

    def capture_preview(self) -> np.ndarray:
        self.calls += 1
        if self.calls in self.lost:
            raise CameraError("camera unplugged")
        if self.pos >= len(self.frames):
            raise EndOfStream("end")
        f = self.frames[self.pos]
        if f is None:
            self.pos += 1
            raise UnreadableFrame(f"frame{self.pos - 1}.jpg")
        return preview_from_still(f)

    def capture_still(self) -> Frame:
        if self.pos >= len(self.frames):
            raise EndOfStream("end")
        f = self.frames[self.pos]
        assert f is not None
        self.pos += 1
        return Frame(f, 0.0, self.pos - 1, "list")

    def close(self) -> None:
        pass


class ScriptButtons:
    def __init__(self, events: Sequence[str] = ()) -> None:
        self.events = [ButtonEvent[e] for e in events]

    def poll(self, timeout: float = 0.0) -> ButtonEvent | None:
        return self.events.pop(0) if self.events else None

    def close(self) -> None:
        pass


def referee(tmp: Path, frames: Sequence[np.ndarray | None], buttons: Sequence[str] = (),
            lost: Sequence[int] = (), players: int = 2, **cfg: Any) -> Referee:
    """A replay-mode referee on the mini table, town77 fixed, players chosen by script."""
    script = ["NEXT"] * (players - 2) + ["SELECT"] + list(buttons)
    cfg.setdefault("replay", True)
    config = LoopConfig(**cfg)
    return Referee(ListCamera(frames, lost), NullDisplay(), ScriptButtons(script), Journal(tmp),
                   clock=VirtualClock(), config=config, game="town77",
                   profile=minitable.PROFILE, analyze=minitable.loop_analyze)
