"""The contract between `tableref analyze` (and the device loop) and each game's reader.

A reader is a module exposing `analyze(image, fit, options) -> dict`: BGR pixels and the
table fit in, a JSON-ready observation out (its schema in docs/analyze-schema.md).
Readers register by name in READERS; they are imported only when asked for, so the
CLI starts fast and a game's dependencies never slow another game down.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from calibration.profile import TableProfile


class ReadError(RuntimeError):
    """The frame could not be read as this game (one line, naming the fix)."""


@dataclass
class AnalyzeOptions:
    """What a reader may use besides pixels: the profile, a taught palette, CLI options.

    `previous` is the image of the same table seen just before (device loop only), which
    a reader may use to isolate what changed; a lone frame must still be read on its own.
    """

    profile: TableProfile
    palette: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    previous: NDArray[np.uint8] | None = None


class Reader(Protocol):
    def analyze(self, image: NDArray[np.uint8], fit: TableFit,
                options: AnalyzeOptions) -> dict[str, Any]: ...


READERS: dict[str, str] = {
    "tiles": "vision.tiles.reader",
    "town77": "vision.town77.reader",
    "railways": "vision.railways.reader",
}


def games() -> list[str]:
    return sorted(READERS)


def get_reader(game: str) -> Reader:
    if game not in READERS:
        raise ReadError(f"unknown game '{game}'; choose one of: {', '.join(games())}")
    name = READERS[game]
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name is None or not name.startswith(e.name):
            raise  # a missing dependency inside the reader is a bug, not a missing reader
        raise ReadError(f"the reader for '{game}' is not built yet ({e.name})") from None
    return cast(Reader, module)
