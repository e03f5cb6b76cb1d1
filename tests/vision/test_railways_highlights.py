"""The railway top view where the table is lit brighter than its markers' white (a lamp's
spot): colours are scaled down by the local light, not clipped channel by channel."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vision.railways.frame import normalise_in_place


def _reference(white: float) -> Any:
    """The markers' white seen at `white` (0..255) all over the view, as evenly lit markers give."""
    from calibration.colour import ColourReference, srgb_decode
    lin = math.log(float(srgb_decode(np.array(white / 255.0))))
    return ColourReference((), ((math.log(white), 0.0, 0.0),) * 3, (0.02, 0.02, 0.02), 500.0, "markers",
                           False, ((lin, 0.0, 0.0),) * 3, (0.02, 0.02, 0.02))


def _spot(card: tuple[int, int, int], table: tuple[int, int, int]) -> np.ndarray:
    """A 200 x 200 view (2 px/mm) of `table` with a 60 mm square of `card` in the middle."""
    view = np.empty((200, 200, 3), np.uint8)
    view[:] = table
    view[40:160, 40:160] = card
    return view


def test_a_pale_card_in_a_lamps_spot_keeps_its_hue() -> None:
    """A lilac card on a white table, both brighter than the markers' white: clipped per
    channel both come out paper white alike; scaled by the local light the card stays
    lilac (blue and red above green) and apart from the table."""
    raw = _spot((236, 200, 222), (250, 250, 250))       # BGR, as the camera saw them
    clipped, kept = raw.copy(), raw.copy()
    normalise_in_place(clipped, _reference(170.0), (0.0, 0.0), 2.0)
    normalise_in_place(kept, _reference(170.0), (0.0, 0.0), 2.0, spot_mm=20.0)
    assert (clipped[100, 100] == 255).all() and (clipped[5, 5] == 255).all()
    b, g, r = (int(v) for v in kept[100, 100])
    assert b - g >= 15 and r - g >= 10
    assert int(np.abs(kept[5, 5].astype(int) - kept[100, 100].astype(int)).sum()) >= 30


def test_a_card_keeps_its_art_darker_than_its_body_in_a_spot() -> None:
    """The art printed in a card's middle stays darker than the card round it: one divisor
    for the card and its art, not each pixel scaled by its own brightest channel."""
    raw = _spot((236, 200, 222), (250, 250, 250))
    raw[90:110, 90:110] = (200, 160, 185)              # the art, darker lilac, not clipped
    kept = raw.copy()
    normalise_in_place(kept, _reference(170.0), (0.0, 0.0), 2.0, spot_mm=20.0)
    lum = kept.astype(float) @ np.array([0.114, 0.587, 0.299])
    assert lum[65, 65] - lum[100, 100] >= 15


def test_a_view_that_clips_nowhere_keeps_its_bytes() -> None:
    """Scaling by the local light changes nothing where no channel reaches white."""
    rng = np.random.default_rng(4)
    view = rng.integers(0, 150, (120, 160, 3), dtype=np.uint8)
    plain, kept = view.copy(), view.copy()
    normalise_in_place(plain, _reference(240.0), (0.0, 0.0), 2.0)
    normalise_in_place(kept, _reference(240.0), (0.0, 0.0), 2.0, spot_mm=20.0)
    assert plain.max() < 255 and np.array_equal(plain, kept)
