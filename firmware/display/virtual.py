"""Hardware-free displays: png:DIR, terminal, null, and several at once (a+b).

png:DIR and terminal push each frame through luma.core's `dummy` device (which keeps the
displayed image in its .image attribute), so they see exactly what luma would send to an
OLED. PNG files are numbered 000000.png, 000001.png, ... continuing after any numbered
PNGs already in DIR, so a re-run never overwrites an earlier one. Both skip a frame
identical to the one just shown (a loop redrawing the same screen twice a second would
otherwise fill the disk or the log), so every file or drawing is a change.

The terminal draws the 128x64 image with Unicode half blocks, two pixel rows per text
row: 128 columns x 32 rows, '█' both lit, '▀' top lit, '▄' bottom lit, ' ' none. On a tty
it redraws in place (ANSI cursor-up) inside a thin frame; otherwise frames are appended,
each followed by one empty line, so logs and pipes stay readable.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Sequence, TextIO

from PIL import Image

from firmware.display.base import HEIGHT, WIDTH, Display, DisplayError, as_frame

_CELLS = {(False, False): " ", (True, False): "\u2580", (False, True): "\u2584",
          (True, True): "\u2588"}


def _dummy() -> object:
    from luma.core.device import dummy  # noqa: PLC0415
    return dummy(width=WIDTH, height=HEIGHT, mode="1")


def _same_as(previous: Image.Image | None, frame: Image.Image) -> bool:
    return previous is not None and previous.tobytes() == frame.tobytes()


def half_blocks(image: Image.Image) -> list[str]:
    """The image as 32 strings of 128 half-block characters (top pixel, bottom pixel)."""
    frame = as_frame(image)
    px = frame.load()
    assert px is not None
    return ["".join(_CELLS[(bool(px[x, y]), bool(px[x, y + 1]))] for x in range(WIDTH))
            for y in range(0, HEIGHT, 2)]


class NullDisplay:
    """Shows nothing, remembers the last frame (tests, headless runs)."""

    def __init__(self) -> None:
        self._last: Image.Image | None = None
        self.frames_shown = 0

    def show(self, image: Image.Image) -> None:
        self._last = as_frame(image).copy()
        self.frames_shown += 1

    def clear(self) -> None:
        self._last = None

    def close(self) -> None:
        self._last = None

    def park(self, image: Image.Image) -> None:
        self.show(image)

    @property
    def last(self) -> Image.Image | None:
        return self._last


class PngDisplay:
    """Every frame shown becomes DIR/NNNNNN.png (1-bit, 128x64)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise DisplayError(f"png:{folder}: cannot create the folder ({e.strerror}); "
                               "choose a writable folder") from None
        numbers = [int(p.stem) for p in self.folder.glob("*.png") if re.fullmatch(r"\d+", p.stem)]
        self.next_number = max(numbers, default=-1) + 1
        self.device = _dummy()
        self.written: list[Path] = []

    def show(self, image: Image.Image) -> None:
        frame = as_frame(image)
        if _same_as(self.device.image, frame):  # type: ignore[attr-defined]
            return
        self.device.display(frame)  # type: ignore[attr-defined]
        path = self.folder / f"{self.next_number:06d}.png"
        self.device.image.save(path)  # type: ignore[attr-defined]
        self.next_number += 1
        self.written.append(path)

    def clear(self) -> None:
        self.show(Image.new("1", (WIDTH, HEIGHT), 0))

    def close(self) -> None:
        pass   # the files are the record; a blank last frame would only add noise

    def park(self, image: Image.Image) -> None:
        self.show(image)

    @property
    def last(self) -> Image.Image | None:
        image: Image.Image | None = self.device.image  # type: ignore[attr-defined]
        return image


class TerminalDisplay:
    """The screen drawn in a terminal with half blocks (see the module docstring)."""

    def __init__(self, stream: TextIO | None = None, in_place: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        isatty = getattr(self.stream, "isatty", lambda: False)
        self.in_place = isatty() if in_place is None else in_place
        self.device = _dummy()
        self._drawn = False

    def _lines(self, image: Image.Image) -> list[str]:
        rows = half_blocks(image)
        if not self.in_place:
            return rows + [""]
        bar = "\u2500" * WIDTH
        return ["\u250c" + bar + "\u2510"] + ["\u2502" + r + "\u2502" for r in rows] + \
            ["\u2514" + bar + "\u2518"]

    def show(self, image: Image.Image) -> None:
        frame = as_frame(image)
        if self._drawn and _same_as(self.device.image, frame):  # type: ignore[attr-defined]
            return
        self.device.display(frame)  # type: ignore[attr-defined]
        lines = self._lines(self.device.image)  # type: ignore[attr-defined]
        if self.in_place:
            # \r\n, not \n: the keyboard backend puts the tty in raw mode (no CR added)
            out = (f"\x1b[{len(lines)}A\r" if self._drawn else "") + "\r\n".join(lines) + "\r\n"
        else:
            out = "\n".join(lines) + "\n"
        self.stream.write(out)
        self.stream.flush()
        self._drawn = True

    def clear(self) -> None:
        self.show(Image.new("1", (WIDTH, HEIGHT), 0))

    def close(self) -> None:
        if self._drawn and self.in_place:
            self.clear()

    def park(self, image: Image.Image) -> None:
        self.show(image)

    @property
    def last(self) -> Image.Image | None:
        image: Image.Image | None = self.device.image  # type: ignore[attr-defined]
        return image


class TeeDisplay:
    """Several displays showing the same frames (e.g. the terminal and PNG files)."""

    def __init__(self, displays: Sequence[Display]) -> None:
        self.displays = list(displays)

    def show(self, image: Image.Image) -> None:
        for d in self.displays:
            d.show(image)

    def clear(self) -> None:
        for d in self.displays:
            d.clear()

    def close(self) -> None:
        for d in self.displays:
            d.close()

    def park(self, image: Image.Image) -> None:
        for d in self.displays:
            d.park(image)

    @property
    def last(self) -> Image.Image | None:
        return self.displays[0].last if self.displays else None
