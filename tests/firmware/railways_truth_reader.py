"""A stand-in railways reader for loop tests: the frame's recorded reading, looked up by
the frame's pixels (a digest of the decoded image).

Why: the end-to-end replay through `tableref run` must test the loop, the session and the
journal on real rendered frames even while the vision reader cannot read them yet; the
readings are the drawn geometry (firmware.bench.railways_games.true_reading). The file is
named by $RAILWAYS_TRUTH (JSON: digest -> reading).
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
    with open(os.environ["RAILWAYS_TRUTH"], encoding="utf-8") as f:
        table: dict[str, dict[str, Any]] = json.load(f)
    return table.get(digest(image), {"game": "railways", "links": [], "stations": []})
