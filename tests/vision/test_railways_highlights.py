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


def test_starting_cities_in_a_lamps_spot_are_found() -> None:
    """Seeded railway set-up (dev seed 1, game 9): both Starting Cities lie in a lamp's
    spot on a white table. On the plain view (clipped per channel) neither is found, the
    cards' lilac coming out the table's white; the reader looks for cards again on the
    spot divided by the local light, and finds each where it lies, in its player's colour."""
    from calibration.geometry import locate_table
    from firmware.bench.railways import _profile_for
    from firmware.bench.railways_games import bench_catalogue, games_for
    from vision.api import AnalyzeOptions
    from vision.railways import reader
    from vision.railways.config import RailwaysConfig
    from vision.railways.frame import top_view
    from vision.railways.stations import find_stations
    from vision.synth.railways_game import new_table, scene_after_move
    from vision.synth.scene import render_scene
    cat = bench_catalogue()
    seed, game = games_for(10, 1, cat)[9]
    rendered = render_scene(scene_after_move(new_table(game, seed, (2304, 1296), cat), 0, []))
    prof = _profile_for(rendered)
    fit = locate_table(rendered.image, prof)
    cfg = RailwaysConfig()
    plain = top_view(rendered.image, fit, prof, cfg, keep_lab=True)
    assert plain.small_lab is not None
    assert not any(s.type == "start" for s in find_stations(plain, cfg, plain.small_lab, 1.0))
    out = reader.analyze(rendered.image, fit, AnalyzeOptions(prof))
    starts = {s["player"]: s["centre_mm"] for s in out["stations"] if s["type"] == "start"}
    truth = {s.start: game.layout.stations[s.sid] for s in game.start.stations if s.start}
    assert set(starts) == set(truth) == {"red", "white"}
    for colour, rect in truth.items():
        assert math.dist(starts[colour], (rect.cx + 40.0, rect.cy + 40.0)) < 10.0
