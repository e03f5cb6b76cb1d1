"""Town 77 palettes: any 7 tiles of distinct shapes and colours (exactly a legal first
row) name all 7 shapes and all 7 colours."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from rules.town77 import SIDE
from vision.api import AnalyzeOptions, ReadError
from vision.tiles import teach as tiles_teach


def check_labels(labels: Sequence[str]) -> None:
    """Refuse a label list that cannot make a Town 77 palette, before any photo is read."""
    pairs = tiles_teach.parse_labels(labels)
    shapes = {s for s, _ in pairs}
    colours = {c for _, c in pairs}
    if len(pairs) != SIDE or len(shapes) != SIDE or len(colours) != SIDE:
        raise ReadError(f"--labels names {len(shapes)} shapes and {len(colours)} colours in "
                        f"{len(pairs)} tiles; Town 77 needs 7 tiles of 7 different shapes "
                        "and 7 different colours")


def teach(image: NDArray[np.uint8], fit: TableFit, labels: Sequence[str],
          options: AnalyzeOptions) -> dict[str, Any]:
    check_labels(labels)
    return tiles_teach.teach(image, fit, labels, options, game="town77")
