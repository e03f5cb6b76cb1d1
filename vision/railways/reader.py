"""The Paperclip Railways reader (vision.api contract): a frame and its table fit in,
links with exact clip counts, the River, stations, obstacles out (docs/analyze-schema.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from vision.api import AnalyzeOptions, ReadError
from vision.railways.config import RailwaysConfig
from vision.railways.pipeline import read_table


def analyze(image: NDArray[np.uint8], fit: TableFit, options: AnalyzeOptions) -> dict[str, Any]:
    """Read one frame; options.previous (the table just before) sharpens the newest link."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ReadError("railways: expected an 8-bit colour (BGR) image; check the file")
    if min(image.shape[:2]) < 200:
        raise ReadError(f"railways: image {image.shape[1]}x{image.shape[0]} is too small to "
                        "see clips; use at least 1280x720")
    cfg = RailwaysConfig()
    prev = options.previous
    if prev is not None and prev.shape != image.shape:
        raise ReadError("railways: --previous image has a different size from the frame; "
                        "use a frame from the same camera")
    out = read_table(image, fit, options.profile, cfg, prev)
    if options.palette and options.palette.get("railways_cards"):
        from vision.railways.teach import identify_stations
        identify_stations(image, fit, options, out)
    return out
