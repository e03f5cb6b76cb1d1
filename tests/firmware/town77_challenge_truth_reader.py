"""A stand-in Town 77 reader for the Challenge loop test: the frame's recorded perfect
reading (vision.synth.town77_challenge.truth_observation), looked up by a digest of the
frame's pixels.

Why: the replay through `tableref run` must test the loop, the session, the journal and
the screens on real rendered frames even while the tile reader cannot read them yet.
The file is named by $TOWN77_CHALLENGE_TRUTH (JSON: digest -> observation).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

import numpy as np
from numpy.typing import NDArray


def digest(image: NDArray[np.uint8]) -> str:
    return hashlib.sha1(np.ascontiguousarray(image).tobytes()).hexdigest()


def analyze(image: NDArray[np.uint8], fit: Any, options: Any) -> dict[str, Any]:
    with open(os.environ["TOWN77_CHALLENGE_TRUTH"], encoding="utf-8") as f:
        table: dict[str, dict[str, Any]] = json.load(f)
    return table.get(digest(image), {"game": "town77", "tiles": [], "conflicts": []})
