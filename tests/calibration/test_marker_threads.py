"""The marker search runs on MARKER_THREADS OpenCV threads (each thread keeps its own
thresholded frames and contours: memory on a 512 MB Pi) and gives the thread count back."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from calibration import geometry


def test_marker_search_runs_on_its_threads_and_restores_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """detectMarkers sees MARKER_THREADS threads; the caller's count is back afterwards,
    even when the search fails."""
    seen: list[int] = []

    class Probe:
        def __init__(self, fail: bool) -> None:
            self.fail = fail

        def detectMarkers(self, image: Any) -> tuple[Any, Any, Any]:  # noqa: N802  OpenCV's name
            seen.append(cv2.getNumThreads())
            if self.fail:
                raise cv2.error("boom")
            return (), None, ()

    before = cv2.getNumThreads()
    cv2.setNumThreads(4)
    try:
        monkeypatch.setattr(geometry, "_detector", lambda d: Probe(False))
        assert geometry.detect_markers(np.zeros((60, 80), np.uint8)) == {}
        assert cv2.getNumThreads() == 4
        monkeypatch.setattr(geometry, "_detector", lambda d: Probe(True))
        with pytest.raises(cv2.error):
            geometry.detect_markers(np.zeros((60, 80), np.uint8))
        assert cv2.getNumThreads() == 4
    finally:
        cv2.setNumThreads(before)
    assert seen == [geometry.MARKER_THREADS, geometry.MARKER_THREADS]
