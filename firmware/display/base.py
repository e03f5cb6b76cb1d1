"""The display interface: show a 128x64 1-bit PIL image, clear, close."""

from __future__ import annotations

from typing import Protocol

from PIL import Image

WIDTH, HEIGHT = 128, 64


class Display(Protocol):
    def show(self, image: Image.Image) -> None:
        """Show a 128x64 mode "1" image (screens are pure functions that make these)."""
        ...

    def clear(self) -> None: ...

    def close(self) -> None: ...

    @property
    def last(self) -> Image.Image | None:
        """The last image shown (luma's dummy device keeps it; real ones keep a copy)."""
        ...
