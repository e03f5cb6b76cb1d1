"""The Town 77 solo Challenge's piles read one by one (vision.tiles.piles): the pile
tops are found as the lowest band of tile-sized patches off the table, each is read
alone on its own outline's cell, and the city is read with the piles painted out."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from calibration.geometry import locate_table
from calibration.profile import default_profile
from firmware.games.town77_challenge import pile_of
from vision.tiles.config import TilesConfig
from vision.tiles.grid import GridFit
from vision.tiles.piles import blobs, closed_patches, patch_dict, patch_from, pile_band, read_with_piles, remembered_band
from vision.tiles.pipeline import read_tiles

PROFILE = default_profile("town77")
CPX = 1.5


def _near(squares: list[tuple[float, float, float]], size: tuple[int, int] = (600, 450)) -> np.ndarray:
    """A bare table (True) with squares (x, y, side; table mm, origin 0) off its colour."""
    near = np.ones((int(size[1] * CPX), int(size[0] * CPX)), dtype=bool)
    for x, y, s in squares:
        near[int((y - s / 2) * CPX):int((y + s / 2) * CPX), int((x - s / 2) * CPX):int((x + s / 2) * CPX)] = False
    return near


def test_the_piles_are_the_lowest_band_of_tile_sized_patches() -> None:
    """A city of three tiles side by side, one of them reaching down to row 6, and three
    piles an empty row below it: the band is the three piles, left to right; four such
    patches in the lowest band are no three piles, and leave no band."""
    cfg = TilesConfig()
    city = [(100.0 + 41 * i, 80.0, 40.0) for i in range(3)] + [(100.0, 80.0 + 41 * k, 40.0) for k in range(1, 7)]
    piles = [(100.0, 400.0, 44.0), (223.0, 398.0, 44.0), (346.0, 402.0, 44.0)]
    found, _ = blobs(_near(city + piles), CPX, (0.0, 0.0), cfg)
    band = pile_band(found, cfg, 3)
    assert [round(b.centre_mm[0] / 10) for b in band] == [10, 22, 35]
    crowded = city + piles + [(469.0, 400.0, 44.0)]
    found, _ = blobs(_near(crowded), CPX, (0.0, 0.0), cfg)
    assert pile_band(found, cfg, 3) == []


def test_a_lamps_spot_in_the_piles_band_leaves_the_three_piles() -> None:
    """A patch in the piles' band under half their size (a lamp's spot on the table beside
    them, bench Challenge game 34) does not spoil the band; one of a pile's size does."""
    cfg = TilesConfig()
    piles = [(100.0, 400.0, 46.0), (223.0, 398.0, 46.0), (346.0, 402.0, 46.0)]
    found, _ = blobs(_near(piles + [(420.0, 405.0, 30.0)]), CPX, (0.0, 0.0), cfg)
    assert [round(b.centre_mm[0] / 10) for b in pile_band(found, cfg, 3)] == [10, 22, 35]
    found, _ = blobs(_near(piles + [(460.0, 405.0, 42.0)]), CPX, (0.0, 0.0), cfg)
    assert pile_band(found, cfg, 3) == []


def test_patches_wider_than_a_tile_are_piles_only_as_three_alike() -> None:
    """Three alike patches wider than any tile are tall piles; two lamp's spots as wide by
    two ordinary piles are no band (bench game 32: one spot was taken for the band)."""
    cfg = TilesConfig()
    tall = [(100.0, 400.0, 68.0), (240.0, 398.0, 72.0), (380.0, 402.0, 66.0)]
    found, _ = blobs(_near(tall), CPX, (0.0, 0.0), cfg)
    assert [round(b.centre_mm[0] / 10) for b in pile_band(found, cfg, 3)] == [10, 24, 38]
    spots = [(280.0, 80.0, 110.0), (280.0, 380.0, 100.0), (100.0, 400.0, 44.0), (460.0, 400.0, 44.0)]
    found, _ = blobs(_near(spots, (600, 500)), CPX, (0.0, 0.0), cfg)
    assert pile_band(found, cfg, 3) == []


def test_a_print_on_a_table_marker_is_no_pile_top() -> None:
    """Challenge game 48 at the loop bench's 1920x1080, the pioneer laid: pile 3's patch
    reaches the area's corner, so its top is looked for a side past it, over marker 2;
    the print furthest out there is the marker's, which is no top: pile 3's top is read
    within 60 mm of its pile."""
    image, meta = _frame(48, 1, (1920, 1080))
    out = read_with_piles(image, locate_table(image, PROFILE), PROFILE, 3)
    tops = [t.centre_mm for t in out.tiles if t.pile]
    third = meta["piles"][2]["centre_mm"]
    assert len(tops) == 3
    assert min(np.hypot(c[0] - third[0], c[1] - third[1]) for c in tops) < 60.0, (tops, third)
    assert not any(abs(c[0] - 460.0) < 24 and abs(c[1] - 460.0) < 24 for c in tops), tops


@cache
def test_a_row_of_piles_turned_off_their_patches_turn_is_a_band() -> None:
    """Three piles on a lattice turned 11 degrees, their patches square to the view (a
    pile's patch, top and sides, is a poor square; bench Challenge game 266): along the
    patches' turn the first lies a side above the third and in the band's gap, so no
    band; along the row through two of them, the three piles."""
    piles = [(100.0, 400.0, 44.0), (223.0, 424.0, 44.0), (346.0, 448.0, 44.0)]
    found, _ = blobs(_near(piles, (600, 500)), CPX, (0.0, 0.0), TilesConfig())
    assert pile_band(found, TilesConfig(pile_row_turn=0.0), 3) == []
    assert [round(b.centre_mm[0] / 10) for b in pile_band(found, TilesConfig(), 3)] == [10, 22, 35]


def test_tops_of_the_tables_colour_close_into_the_piles() -> None:
    """Tops of about the table's colour show only their prints and their piles' sides:
    rings with a gap on the table, too ragged for tiles, so no band; closed over 14 mm,
    with the table they surround taken in, they are the three piles."""
    cfg = TilesConfig()
    near = _near([])
    for x, y in ((100.0, 400.0), (223.0, 398.0), (346.0, 402.0)):
        near[int((y - 22) * CPX):int((y + 22) * CPX), int((x - 22) * CPX):int((x + 22) * CPX)] = False
        # the face inside (table-coloured) and a gap in the ring where the pile's side is pale
        near[int((y - 16) * CPX):int((y + 16) * CPX), int((x - 16) * CPX):int((x + 16) * CPX)] = True
        near[int((y - 22) * CPX):int((y - 16) * CPX), int((x - 5) * CPX):int((x + 5) * CPX)] = True
    found, _ = blobs(near, CPX, (0.0, 0.0), cfg)
    assert pile_band(found, cfg, 3) == []
    found, _ = blobs(closed_patches(near, CPX, cfg), CPX, (0.0, 0.0), cfg)
    assert [round(b.centre_mm[0] / 10) for b in pile_band(found, cfg, 3)] == [10, 22, 35]


def test_a_remembered_band_keeps_this_looks_patches_and_fills_in_the_rest() -> None:
    """Of the three piles remembered, the one this look's band found is this look's patch,
    the other two are the remembered ones; a band patch holding no remembered pile (a
    lamp's spot) is dropped. A patch survives the observation's form unchanged."""
    cfg = TilesConfig()
    found, _ = blobs(_near([(100.0, 400.0, 44.0), (223.0, 398.0, 44.0), (346.0, 402.0, 44.0)]), CPX, (0.0, 0.0), cfg)
    memory = [patch_from(patch_dict(b)) for b in pile_band(found, cfg, 3)]
    assert all(m is not None for m in memory)
    now, _ = blobs(_near([(226.0, 399.0, 46.0), (500.0, 400.0, 44.0)]), CPX, (0.0, 0.0), cfg)
    band = remembered_band(now, [m for m in memory if m is not None])
    assert [round(b.centre_mm[0]) for b in band] == [100, 226, 346]
    assert band[1] is now[0] and band[0] is memory[0] and band[2] is memory[2]
    assert patch_from({"box_mm": [1, 2, 3], "centre_mm": [0, 0], "angle_deg": 0, "side_mm": 40}) is None


def test_a_pile_the_search_misses_is_read_where_a_look_found_them_all() -> None:
    """Bench Challenge game 234, frames 8 and 10 (a cutting mat, a lamp's spot by the third
    pile): frame 8's search finds the three piles and its reading carries their patches;
    frame 10's finds two (the third's patch, of about the table's colour in the spot, is a
    sliver) and reads no top there. Given frame 8's patches, frame 10 reads the third
    pile's top over its pile, and its reading carries no patches of its own."""
    image, _ = _frame(234, 8, (1920, 1080))
    first = read_with_piles(image, locate_table(image, PROFILE), PROFILE, 3, shapes=7, colours=7)
    assert len(first.pile_patches) == 3
    memory = [patch_from(d) for d in first.pile_patches]
    image, meta = _frame(234, 10, (1920, 1080))
    fit = locate_table(image, PROFILE)
    third = meta["piles"][2]["centre_mm"]

    def near_third(out: Any) -> list[Any]:
        return [t for t in out.tiles if t.pile and np.hypot(t.centre_mm[0] - third[0], t.centre_mm[1] - third[1]) < 20]

    alone = read_with_piles(image, fit, PROFILE, 3, shapes=7, colours=7, grid_hint=first.grid)
    assert near_third(alone) == []
    out = read_with_piles(image, fit, PROFILE, 3, shapes=7, colours=7, grid_hint=first.grid,
                          memory=[m for m in memory if m is not None])
    assert len(near_third(out)) == 1 and out.pile_patches == []


def test_a_small_city_on_a_mat_read_with_the_piles_painted_out_is_not_the_mats() -> None:
    """Bench Challenge game 78, frame 2, as the loop read it (its fit, the lattice hint of
    the look before, the piles remembered): two tiles on a cutting mat. With the piles
    painted out the lattice search took the mat's 18.8 mm squares (seven tiles), a third
    of the piles' 55 mm patches, no tile's; the whole frame's 41.6 mm, under the tops'
    outlines (52 mm: a tall pile's top and side) but nearer them, is taken: two tiles."""
    from calibration.geometry import TableFit

    image, meta = _frame(78, 2, (1920, 1080))
    h = [[-1.2190947488181414, -0.8652739934755793, 1932.7213512737749],
         [0.9786320425917466, -1.2275589326948293, 48.89262368433208],
         [0.0003734961341808093, 7.89153522894895e-05, 1.0]]
    fit = TableFit(np.array(h), (0, 1, 2, 3), 0.4986377145391337, "markers")
    hint = GridFit(0.24766222085799536, 52.21, (120.9908441027361, 61.892179619958576), 1.0)
    memory = [patch_from({"box_mm": box, "centre_mm": c, "angle_deg": a, "side_mm": s}) for box, c, a, s in (
        ([127.7, 367.7, 185.7, 429.7], [156.7, 400.0], -3.37, 57.7),
        ([257.0, 366.3, 312.3, 416.3], [285.8, 391.2], 0.0, 50.7),
        ([377.0, 355.7, 429.7, 412.3], [404.7, 383.1], 0.0, 53.3))]
    out = read_with_piles(image, fit, PROFILE, 3, shapes=7, colours=7, grid_hint=hint,
                          memory=[m for m in memory if m is not None])
    assert out.grid is not None and abs(out.grid.pitch_mm / meta["pitch_mm"] - 1.0) < 0.05, out.grid
    assert sorted(out.rc(t) for t in out.tiles if not t.pile) == [(0, 0), (0, 1)]


def _frame(seed: int, k: int, res: tuple[int, int] = (2304, 1296)) -> tuple[np.ndarray, dict[str, Any]]:
    from vision.synth import render_scene
    from vision.synth.town77_challenge import challenge_game, challenge_scene, challenge_table

    frames = challenge_game(seed, "hint", max_moves=14, misplace_at=None)
    style, env = challenge_table(seed, res)
    scene = challenge_scene(frames[k], style, env, seed=seed * 1000 + k, wobble=1.0, flat=False)
    return render_scene(scene).image, scene["meta"]


def _pairs(out: Any) -> dict[int, tuple[str | None, str | None]]:
    """Pile (0-2) -> its top's (shape, colour) labels, for tops flagged as a pile's."""
    got: dict[int, tuple[str | None, str | None]] = {}
    for t in out.tiles:
        r, c = out.rc(t)
        p = pile_of(r, c, t.pile)
        if p is not None:
            assert p not in got, "two tops in one pile"
            got[p] = (t.shape, t.colour)
    return got


def test_tall_piles_tops_are_read_one_by_one_beside_a_lone_pioneer() -> None:
    """Dev Challenge game 5, frame 1: the pioneer and three piles some 16 tiles tall under
    a lamp. One lattice over all of them (the ordinary reader) cut the tops into pieces
    (no pile read right); read one by one, each pile shows one face-up top, the pioneer
    is read alone at A1, and the four tiles' shape and colour labels pair up as the
    truth's do (two tops share a shape there)."""
    image, meta = _frame(5, 1)
    fit = locate_table(image, PROFILE)
    out = read_with_piles(image, fit, PROFILE, 3, shapes=7, colours=7)
    tops = _pairs(out)
    assert sorted(tops) == [0, 1, 2]
    assert all(not t.face_down for t in out.tiles if t.pile)
    city = [t for t in out.tiles if not t.pile]
    assert [out.rc(t) for t in city] == [(0, 0)]
    read = [(city[0].shape, city[0].colour)] + [tops[p] for p in range(3)]
    truth = [(meta["tiles"][0]["shape"], meta["tiles"][0]["colour"])] + \
        [(p["top"]["shape"], p["top"]["colour"]) for p in meta["piles"]]
    for axis in (0, 1):
        assert [[a[axis] == b[axis] for b in read] for a in read] == \
            [[a[axis] == b[axis] for b in truth] for a in truth], (read, truth)


def test_the_ordinary_reader_is_unchanged_by_the_pile_reader() -> None:
    """read_tiles itself does not look for piles: the same frame read the ordinary way
    gives no tile flagged as a pile's top."""
    image, _ = _frame(5, 1)
    out = read_tiles(image, locate_table(image, PROFILE), PROFILE, shapes=7, colours=7)
    assert not any(t.pile for t in out.tiles)


def _labels_pair_as_truth(out: Any, meta: dict[str, Any]) -> None:
    """The city's and the tops' shape and colour labels pair up as the truth's do."""
    city = sorted((t for t in out.tiles if not t.pile), key=lambda t: out.rc(t))
    by_cell = {(t["row"], t["col"]): (t["shape"], t["colour"]) for t in meta["tiles"]}
    tops = _pairs(out)
    read = [(t.shape, t.colour) for t in city] + [tops[p] for p in sorted(tops)]
    truth = [by_cell[out.rc(t)] for t in city] + \
        [(meta["piles"][p]["top"]["shape"], meta["piles"][p]["top"]["colour"]) for p in sorted(tops)]
    for axis in (0, 1):
        assert [[a[axis] == b[axis] for b in read] for a in read] == \
            [[a[axis] == b[axis] for b in truth] for a in truth], (read, truth)


def test_a_top_sharing_the_pioneers_shape_is_read_as_wide_as_it_looks() -> None:
    """Dev game 6, frame 1: the middle pile's top (some 16 tiles up, the camera 0.73 m
    above the table) looks a few per cent larger than the pioneer, whose shape it shares.
    Read on a cell of the city's pitch, its shape lay 0.11 from the pioneer's (over the
    grouping's 0.10) and read as a shape of its own; read on the cell widened by the
    factor at which the tops' shapes lie nearest the city's, the two share a label."""
    image, meta = _frame(6, 1)
    out = read_with_piles(image, locate_table(image, PROFILE), PROFILE, 3, shapes=7, colours=7)
    assert sorted(_pairs(out)) == [0, 1, 2]
    _labels_pair_as_truth(out, meta)


def test_a_small_city_on_a_mat_keeps_the_lattice_the_piles_helped_to() -> None:
    """Dev game 6, frame 4: four tiles in a row on a cutting mat. With the piles painted
    out, the lattice search locked on a 31 mm pitch (the tiles' is 41.5) and read the
    pioneer face down; the tops' outlines show the tiles' size, so the whole frame's
    reading (its lattice within 15% of it) is taken, without the piles' boxes."""
    image, meta = _frame(6, 4)
    out = read_with_piles(image, locate_table(image, PROFILE), PROFILE, 3, shapes=7, colours=7)
    assert out.grid is not None and abs(out.grid.pitch_mm / meta["pitch_mm"] - 1.0) < 0.05
    city = sorted(out.rc(t) for t in out.tiles if not t.pile)
    assert city == [(0, 0), (0, 1), (0, 2), (0, 3)]
    assert not any(t.face_down for t in out.tiles)


def test_the_piles_beside_a_lamps_spot_are_read_as_piles() -> None:
    """Bench Challenge game 34, frame 0: three piles on a cutting mat and a lamp's spot
    beside the third; all three tops are read as the piles' and nothing else is read."""
    image, _ = _frame(34, 0)
    out = read_with_piles(image, locate_table(image, PROFILE), PROFILE, 3, shapes=7, colours=7)
    assert sorted(_pairs(out)) == [0, 1, 2] and all(t.pile for t in out.tiles)


def test_tall_piles_whose_patches_are_wider_than_a_tile_are_the_piles() -> None:
    """Bench Challenge game 47, frame 0: piles some 20 tiles tall, each one patch of its top
    and the sides the camera sees (64-73 mm across, wider than any tile): still the band,
    and all three tops are read as the piles'."""
    image, meta = _frame(47, 0)
    out = read_with_piles(image, locate_table(image, PROFILE), PROFILE, 3, shapes=7, colours=7)
    xs = sorted(t.centre_mm[0] for t in out.tiles if t.pile)
    assert len(out.tiles) == len(xs) == 3
    # each top over its own pile (a tall pile's top shows some 60 mm off its base)
    bases = sorted(p["centre_mm"][0] for p in meta["piles"])
    assert all(abs(x - b) < 40.0 for x, b in zip(xs, bases)), (xs, bases)


def _loop_fit(image: np.ndarray) -> Any:
    """The fit the device loop makes (markers searched at 1200 px, corners refined)."""
    from calibration.geometry import detect_markers, fit_from_markers, lens_at_frame_size

    profile = lens_at_frame_size(PROFILE, image)
    return fit_from_markers(detect_markers(image, profile.dictionary, max_side=1200), profile, image)


def test_a_lone_pioneer_is_read_on_its_own_lattice_whatever_the_fit() -> None:
    """Bench Challenge games 3 and 21, frame 1: the pioneer alone beside the piles, on a
    cutting mat and on a bare table. Over the whole table its lattice was the table's to
    take: two fits 0.002 mm apart turned it 18 degrees apart (game 3) or lost the pioneer
    (game 21). Read alone on its patch, both fits give the pioneer at A1 face up, its
    lattice within 3 degrees of the tile's own turn."""
    for seed in (3, 21):
        image, meta = _frame(seed, 1)
        turn = meta["tiles"][0]["angle_deg"]
        for fit in (locate_table(image, PROFILE), _loop_fit(image)):
            out = read_with_piles(image, fit, PROFILE, 3, shapes=7, colours=7)
            city = [t for t in out.tiles if not t.pile]
            assert [out.rc(t) for t in city] == [(0, 0)] and not city[0].face_down
            assert out.grid is not None
            off = (np.degrees(out.grid.angle_rad) - turn + 45.0) % 90.0 - 45.0
            assert abs(off) < 3.0, (seed, off)
