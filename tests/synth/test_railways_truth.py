"""The railway tables' crossing truth: what the renderer draws touching (the rulebook's
"touches or crosses"), measured on the drawn wires, not on the clips' stadium outlines."""

from __future__ import annotations

import numpy as np

from vision.synth import clips as C
from vision.synth.railways import chain_wires, convex_touch, random_railways, wires_touch, wires_touch_polygon

W, WIRE = 9.0, 1.25


def _clip(start: tuple[float, float], end: tuple[float, float], flipped: bool = False) -> C.ClipPose:
    return C.ClipPose(start, end, 0.0, flipped, False)


def test_a_clip_in_another_clips_empty_corner_does_not_touch_it() -> None:
    """A clip's end 1.4 mm (centre lines) from the other's inner leg, inside its outline's corner: apart."""
    a = _clip((0.0, 0.0), (32.0, 0.0))
    b = _clip((10.0, -34.6), (10.0, -2.6))
    assert convex_touch(C.clip_outline(a, W, WIRE), C.clip_outline(b, W, WIRE))     # the old truth's "touch"
    assert not wires_touch(chain_wires([a], W, WIRE), chain_wires([b], W, WIRE), WIRE)
    b_in = _clip((10.0, -33.6), (10.0, -1.6))                                       # 1 mm further: wires meet
    assert wires_touch(chain_wires([a], W, WIRE), chain_wires([b_in], W, WIRE), WIRE)


def test_clips_whose_bends_meet_end_to_end_touch() -> None:
    """Two big bends 0.6 mm apart (centre lines) overlap by their wires' thickness, outlines apart."""
    a = _clip((0.0, 0.0), (32.0, 0.0))
    b = _clip((32.6, 0.0), (64.6, 0.0), flipped=True)
    assert not convex_touch(C.clip_outline(a, W, WIRE), C.clip_outline(b, W, WIRE))
    assert wires_touch(chain_wires([a], W, WIRE), chain_wires([b], W, WIRE), WIRE)
    far = _clip((34.0, 0.0), (66.0, 0.0), flipped=True)
    assert not wires_touch(chain_wires([a], W, WIRE), chain_wires([far], W, WIRE), WIRE)


def test_a_wire_touches_a_tile_within_half_its_thickness() -> None:
    """A tile 0.5 mm past the clip's end is touched by its wire (0.625 mm half thick); 1 mm past is not."""
    a = chain_wires([_clip((0.0, 0.0), (32.0, 0.0))], W, WIRE)
    tile = np.array([[32.5, -20.0], [80.0, -20.0], [80.0, 20.0], [32.5, 20.0]])
    assert wires_touch_polygon(a, tile, WIRE / 2)
    assert not wires_touch_polygon(a, tile + [0.5, 0.0], WIRE / 2)


def test_seeded_table_lists_what_its_wires_touch() -> None:
    """Table 2108: links 12 and 13 meet at a Starting City with wires 1.9 mm apart, not touching."""
    truth = random_railways(2108)["truth"]
    assert "link:13" not in truth["links"][12]["crosses"]
    assert "link:12" not in truth["links"][13]["crosses"]
    assert "link:9" in truth["links"][12]["crosses"]
