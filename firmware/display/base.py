"""The display interface: show a 128x64 1-bit PIL image, clear, close."""

from __future__ import annotations

from typing import Protocol

from PIL import Image

WIDTH, HEIGHT = 128, 64


class DisplayError(RuntimeError):
    """The display cannot be opened or written (not wired, wrong address, no permission)."""


class Display(Protocol):
    def show(self, image: Image.Image) -> None:
        """Show a 128x64 mode "1" image (screens are pure functions that make these)."""
        ...

    def clear(self) -> None: ...

    def close(self) -> None:
        """Clear the screen and release the device (idempotent)."""
        ...

    def park(self, image: Image.Image) -> None:
        """Show `image` and leave it there after the program exits (release, no clearing).

        For SIGTERM: the OLED keeps a "parked" message instead of going blank (luma would
        otherwise blank the panel in its atexit hook).
        """
        ...

    @property
    def last(self) -> Image.Image | None:
        """The last image shown (luma's dummy device keeps it; real ones keep a copy)."""
        ...


def as_frame(image: Image.Image) -> Image.Image:
    """Check the size and make the image 1-bit: a wrong-sized screen is a bug, say so early."""
    if image.size != (WIDTH, HEIGHT):
        raise ValueError(f"screen image is {image.size[0]}x{image.size[1]}; displays take "
                         f"{WIDTH}x{HEIGHT}")
    return image if image.mode == "1" else image.convert("1")
