"""The River's clip count (vision.railways.clip_counter with the River's own detector):
seeded Rivers of 32 blue and silver clips, each joint slack to its own degree, counted
exactly on their strips."""

from __future__ import annotations

import numpy as np
import pytest

from vision.railways.clip_counter import count_clips, load_river_detector

from railway_chains import slack_chain


def _river_colours() -> list[str]:
    cols = ["blue"] * 32
    cols[11] = cols[15] = "silver"          # silver clips 12 and 16, as the rulebook makes the River
    return cols


@pytest.mark.parametrize("seed,length", [(1, 32.0), (2, 29.5), (3, 34.0)])
def test_a_river_is_counted_exactly_with_its_own_detector(seed: int, length: float) -> None:
    """32 clips of 32 / 29.5 / 34 mm on a dark table, cut at the standard 32 mm clip's
    width as the reader cuts it before it knows the length, give 32."""
    c = slack_chain(seed, 32, length, colours=_river_colours(), background=(60, 70, 60), strip_clip_mm=32.0)
    res = count_clips(c.strip, np.ones_like(c.strip), length, 9.0, 1.25, c.first_mm, c.last_mm,
                      detector=load_river_detector(), end_before_mm=16.0, end_after_mm=30.0, end_slope=0.15)
    assert res.count == 32


def test_the_rivers_detector_is_shipped_and_small() -> None:
    """The River's detector loads, has the links' detector's shape, and both files
    together stay under 1 MB (the device ships them)."""
    from vision.railways.clip_counter import DETECTOR_FILE, RIVER_DETECTOR_FILE, load_detector
    river, links = load_river_detector(), load_detector()
    assert river.w1.shape == links.w1.shape and not np.array_equal(river.w1, links.w1)
    assert DETECTOR_FILE.stat().st_size + RIVER_DETECTOR_FILE.stat().st_size < 1_000_000
