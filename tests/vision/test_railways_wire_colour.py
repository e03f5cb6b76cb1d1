"""Wire evidence (vision.railways.frame.mixing_evidence) for clips whose colour the camera saturates."""

from __future__ import annotations

import numpy as np

from vision.railways.config import CLIP_COLOURS, RailwaysConfig
from vision.railways.frame import mixing_evidence

# measured on dev table 2105 (dark mat, 3500 K lamp): a green clip's wire and the table
# beside it, normalised BGR; the wire is darker and more saturated than CLIP_COLOURS' green
TABLE = (29, 57, 18)
GREEN_WIRE = (28, 129, 21)


def _stripe(colour: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    bg = np.empty((40, 60, 3), np.uint8)
    bg[:] = TABLE
    image = bg.copy()
    image[18:22, :] = colour
    return image, bg


def test_a_saturated_green_wire_is_green() -> None:
    """The saturated green wire on the dark mat gives green evidence with the reader's residuals (none at the old 0.45 for all)."""
    image, bg = _stripe(GREEN_WIRE)
    ev, _ = mixing_evidence(image, bg, CLIP_COLOURS, residual=RailwaysConfig().mix_residuals())
    assert ev["green"][18:22].min() > 0
    assert all(ev[c][18:22].max() < ev["green"][18:22].min() for c in CLIP_COLOURS if c != "green")
    old, _ = mixing_evidence(image, bg, CLIP_COLOURS, residual=0.45)
    assert old["green"][18:22].max() == 0


def test_the_links_of_a_warm_lit_dark_table_are_found() -> None:
    """Dev table 2105 (dark mat, 3500 K lamp): more links found with the reader's residual than with 0.45, among them red S17-S20 and green P1-S14 (truth ids)."""
    import dataclasses

    from calibration.geometry import locate_table
    from firmware.bench.railways import _match_links, _profile_for
    from vision.railways.pipeline import read_table
    from vision.synth import random_scene, render_scene

    r = render_scene(random_scene("railways", 2105, resolution=(2304, 1296)))
    profile = _profile_for(r)
    fit = locate_table(r.image, profile)
    truth = r.truth["railways"]["links"]
    found = {}
    for residual in (RailwaysConfig().mix_residual, 0.45):
        read = read_table(r.image, fit, profile, dataclasses.replace(RailwaysConfig(), mix_residual=residual))
        found[residual] = _match_links(truth, read["links"])
    now = found[RailwaysConfig().mix_residual]
    assert len(now) > len(found[0.45])
    wanted = [i for i, t in enumerate(truth) if (t["colour"], sorted(t["stations"])) in
              (("red", ["S17", "S20"]), ("green", ["P1", "S14"]))]
    assert len(wanted) == 2 and all(i in now for i in wanted)
