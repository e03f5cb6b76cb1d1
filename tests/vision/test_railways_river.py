"""The River read on small seeded synthetic tables (vision.railways.river): found whole
across a crossing link, its silver clips located, the clip length learnt from them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.api import AnalyzeOptions
from vision.railways import pipeline, reader
from vision.railways import skeleton as sk
from vision.railways.config import RailwaysConfig
from vision.railways.river import RiverReading, _follow, read_river, silver_centres
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth.randomize import easy_environment
from vision.synth.scene import render_scene

RIVER_L = 29.0          # not the standard 32 mm: a length left at the default cannot pass


def _chain(colour: str, path: Any, n: int, length: float, seed: int) -> dict[str, Any]:
    ov = C.fit_overlaps(path, n, length, np.full(max(1, n - 1), 0.5))
    assert ov is not None
    rng = np.random.default_rng(seed)
    poses = C.layout_chain(path, n, length, ov, [float(abs(rng.normal(0, 5))) for _ in range(n)],
                           list(rng.uniform(size=n) < 0.5), list(rng.uniform(size=n) < 0.5))
    assert len(poses) == n
    return {"kind": "clip_chain", "colour": colour, "clips": [R._pose_dict(p) for p in poses],
            "length_mm": length, "width_mm": length * 9 / 32, "wire_mm": 1.25 * length / 32, "seed": seed}


def _station(sid: str, stype: str, c: tuple[float, float]) -> dict[str, Any]:
    return {"kind": "station", "id": sid, "type": stype, "centre": list(c), "size": 60.0,
            "angle": 0.0, "player": None, "seed": 1}


@pytest.fixture(scope="module")
def table() -> tuple[dict[str, Any], list[dict[str, Any]], RiverReading]:
    """A curved River of 29 mm clips (silver at 12 and 16) with a red link across it, read
    through the whole reader; the RiverReading is kept as the reader made it."""
    prof = default_profile("railways")
    env = easy_environment((2304, 1296), prof)
    env["surface"] = {"kind": "mat", "tone": "dark", "colour": [70, 80, 90], "seed": 1}
    t = np.linspace(0.0, 1.0, 200)[:, None]
    p0, p1, p2 = np.array([150.0, 520.0]), np.array([520.0, 380.0]), np.array([900.0, 600.0])
    curve = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2
    river = _chain("blue", curve, 32, RIVER_L, 5)
    river["kind"] = "river"
    river["colours"] = ["silver" if i + 1 in (12, 16) else "blue" for i in range(32)]
    pieces = [_station("A", "city", (300.0, 250.0)), _station("B", "town", (420.0, 750.0)), river,
              _chain("red", np.array([[315.0, 282.0], [410.0, 718.0]]), 19, RIVER_L, 2)]
    scene = {"game": "railways", "seed": 3, "profile": "railways", **env, "pieces": pieces}
    r = render_scene(scene)
    made: list[RiverReading | None] = []

    def keep(*args: Any) -> RiverReading | None:
        # the River as read with no length learnt from the chains (its silver clips teach it)
        made.append(read_river(*args[:8]))
        return read_river(*args)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "read_river", keep)
        out = reader.analyze(r.image, locate_table(r.image, prof), AnalyzeOptions(profile=prof))
    assert len(made) == 1 and made[0] is not None
    return out, river["clips"], made[0]


def test_river_is_found_whole_across_the_crossing_link(table: tuple[dict[str, Any], Any, Any]) -> None:
    """The River's path runs within 10 mm of the true one along at least 95% of it, from
    end to end, although a link lies across it."""
    out, clips, _ = table
    assert out["river"] is not None
    truth = sk.resample(np.array([clips[0]["start"]] + [c["end"] for c in clips], dtype=np.float64), 2.0)
    read = sk.resample(np.asarray(out["river"]["path_mm"], dtype=np.float64), 1.0)
    d = np.hypot(truth[:, None, 0] - read[None, :, 0], truth[:, None, 1] - read[None, :, 1]).min(axis=1)
    assert float(np.mean(d <= 10.0)) >= 0.95


def test_silver_clips_are_located_and_numbered_from_their_end(table: tuple[dict[str, Any], Any, Any]) -> None:
    """Both silver clips are found within 8 mm of their middles, numbered from the end
    nearer them four clips apart, the first 12th to within one clip (the count's
    exactness is the counter's and the bench's)."""
    out, clips, rv = table
    for k in (12, 16):
        mid = (np.asarray(clips[k - 1]["start"]) + np.asarray(clips[k - 1]["end"])) / 2
        assert min(np.hypot(mid[0] - x, mid[1] - y) for x, y in rv.silver_mm) <= 8.0
    sil = out["river"]["silver"]
    assert len(sil) == 2 and sil[1] - sil[0] == 4 and abs(sil[0] - 12) <= 1


def test_clip_length_is_learnt_from_the_silver_clips(table: tuple[dict[str, Any], Any, Any]) -> None:
    """A table of 29 mm clips is read as 29 mm within 1 mm (the default is 32 mm), by the
    River's silver clips alone as well as by the reader (which learns it from the chains)."""
    out, _, rv = table
    assert rv.clip_length_source == "silver"
    assert abs(rv.clip_length_mm - RIVER_L) <= 1.0
    assert out["river"]["clip_length_source"] in ("chains", "silver")
    assert abs(out["clip_length_mm"] - RIVER_L) <= 1.0


def test_the_river_count_is_read_near_its_make_up(table: tuple[dict[str, Any], Any, Any]) -> None:
    """The River's count is read (not assumed 32): within one clip on a clean table."""
    out, _, _ = table
    assert abs(out["river"]["clips"] - 32) <= 1


def test_follow_jumps_a_gap_along_the_curve_and_ignores_cells_off_it() -> None:
    """A traced piece followed on crosses a 30 mm gap to cells on its own arc, and never
    turns to cells 20 mm to the side."""
    cfg = RailwaysConfig()
    a = np.linspace(np.pi, 1.5 * np.pi, 400)
    arc = np.stack([500 + 300 * np.cos(a), 500 + 300 * np.sin(a)], axis=1)   # a 300 mm radius
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(arc, axis=0).T))])
    piece = arc[s < 150]
    far = arc[(s > 180) & (s < 400)]
    tang = (piece[-1] - piece[-5]) / np.hypot(*(piece[-1] - piece[-5]))
    side = np.array([-tang[1], tang[0]])
    off = piece[-1] + side * 20.0 + np.arange(2.0, 32.0)[:, None] * tang      # beside, not on, the arc
    cells = np.vstack([far, off])
    out = _follow(piece, cells, cfg)
    assert np.hypot(*(out[-1] - far[-1])) < 3.0
    d = np.hypot(out[:, None, 0] - off[None, :, 0], out[:, None, 1] - off[None, :, 1]).min()
    assert d > 10.0


def test_silver_centres_pick_the_pair_four_clips_apart() -> None:
    """Of three silver-looking stretches, the two a plausible four clips apart are taken."""
    cfg = RailwaysConfig()
    score = np.zeros(700, np.float32)
    for c, h in ((100, 6.0), (300, 5.0), (390, 5.0)):
        score[c - 8:c + 8] = h
    got = silver_centres(score, 32.0, cfg)
    assert len(got) == 2 and abs(got[0] - 300) <= 2 and abs(got[1] - 390) <= 2


def test_river_reading_keeps_its_field_order() -> None:
    """RiverReading is built positionally elsewhere (crossings tests): its first six fields
    stay clips, silver, path, clip length, pitch, confidence."""
    rv = RiverReading(32, [12, 16], np.zeros((2, 2)), 31.0, 24.0, 0.9)
    assert (rv.clips, rv.silver, rv.clip_length_mm, rv.pitch_mm, rv.confidence) == (32, [12, 16], 31.0, 24.0, 0.9)
    assert rv.silver_mm == [] and rv.clip_length_source == "default"


def test_batched_colour_costs_weigh_each_slice_on_its_own() -> None:
    """trace.colour_costs_per_slice: a slice of blue wire mixed into the table costs about
    0 as blue and much more as silver, a silver slice the other way round, and a slice
    that does not differ from the table is explained by neither (infinite); the same as
    trace.colour_costs on each slice alone."""
    from vision.railways.config import CLIP_COLOURS
    from vision.railways.frame import lab_of
    from vision.railways.trace import colour_costs, colour_costs_per_slice
    cfg = RailwaysConfig()
    refs = {c: CLIP_COLOURS[c] for c in ("blue", "silver")}
    rng = np.random.default_rng(7)
    table = lab_of((60, 70, 80))
    bg = np.broadcast_to(table, (3, 40, 3)).astype(np.float32).copy()
    a = rng.uniform(0.4, 1.0, (40, 1))
    px = bg.copy()
    px[0] = a * lab_of(CLIP_COLOURS["blue"]) + (1 - a) * table
    px[1] = a * lab_of(CLIP_COLOURS["silver"]) + (1 - a) * table
    got = colour_costs_per_slice(px, bg, refs, cfg)
    assert got["blue"][0] < 1.0 < 50.0 < got["silver"][0]
    assert got["silver"][1] < 1.0 < 50.0 < got["blue"][1]
    assert np.isinf(got["blue"][2]) and np.isinf(got["silver"][2])
    for i in range(3):
        alone = colour_costs(px[i], bg[i], refs, cfg)
        for c in refs:
            assert alone[c] == got[c][i] or abs(alone[c] - got[c][i]) < 1e-6 * max(1.0, alone[c])
