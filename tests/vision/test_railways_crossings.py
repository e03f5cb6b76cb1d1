"""What a link touches: footprints of chains, the River, obstacles, stations, the edge."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from calibration.profile import default_profile
from vision.railways.clip_counter import CountResult
from vision.railways.config import RailwaysConfig
from vision.railways.crossings import Footprints, outside, touches
from vision.railways.frame import TopView
from vision.railways.obstacles import Obstacle
from vision.railways.pipeline import LinkReading, RiverReading, _crossings
from vision.railways.stations import Station


def _link(colour: str, pts: list[list[float]], ends: list[str]) -> LinkReading:
    return LinkReading(colour, CountResult(5, (), 0.0, 1.0, 0.0), np.asarray(pts, dtype=np.float64), ends, 1)


def _square(c: tuple[float, float], side: float) -> np.ndarray:  # type: ignore[type-arg]
    h = side / 2
    return np.array([[c[0] - h, c[1] - h], [c[0] + h, c[1] - h], [c[0] + h, c[1] + h], [c[0] - h, c[1] + h]])


@dataclass
class Table:
    """The railway table's profile, settings and a top view's geometry (no pixels): what
    _crossings needs besides the links."""

    prof: Any
    cfg: RailwaysConfig
    view: TopView

    def crossings(self, links: list[LinkReading], stations: list[Station], river: RiverReading | None = None,
                  obstacles: list[Obstacle] | None = None) -> None:
        _crossings(links, river, obstacles or [], stations, self.prof, self.view, 32.0, self.cfg)


@pytest.fixture
def table() -> Table:
    view = TopView(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 3), np.uint8), (32.0, 32.0), 2.0)
    return Table(default_profile("railways"), RailwaysConfig(), view)


def _station(sid: str, kind: str, c: tuple[float, float]) -> Station:
    return Station(sid, kind, c, _square(c, 60.0), 60.0)


def test_footprints_touch_only_when_within_a_clip_width() -> None:
    """Chains 8 mm apart (centre lines) touch with 9 mm wide clips; 12 mm apart they do not."""
    fp = Footprints((0.0, 0.0), (200.0, 200.0))
    a = fp.chain(np.array([[10.0, 100.0], [190.0, 100.0]]), 10.0)
    near = fp.chain(np.array([[10.0, 108.0], [190.0, 108.0]]), 10.0)
    far = fp.chain(np.array([[10.0, 112.5], [190.0, 112.5]]), 10.0)
    assert touches(a, near) and not touches(a, far)


def test_crossing_lists_name_links_river_obstacles_stations_and_edge(table: Table) -> None:
    """Each link lists exactly what its footprint meets, never its own end stations."""
    s1 = _station("S1", "city", (100.0, 300.0))
    s2 = _station("S2", "town", (500.0, 300.0))
    s3 = _station("S3", "suburban", (300.0, 332.0))
    links = [
        _link("red", [[120.0, 300.0], [480.0, 300.0]], ["S1", "S2"]),            # over S3's top edge
        _link("green", [[300.0, 150.0], [300.0, 250.0], [320.0, 500.0]], ["S4", "S5"]),
        _link("red", [[700.0, 100.0], [700.0, 1050.0]], ["?", "?"]),             # leaves the area
    ]
    river = RiverReading(32, [12, 16], np.array([[250.0, 150.0], [350.0, 150.0]]), 32.0, 24.0, 1.0)
    obstacles = [Obstacle("lake", _square((700.0, 600.0), 80.0), 6400.0)]
    table.crossings(links, [s1, s2, s3], river, obstacles)
    assert links[0].crosses == ["link:1", "station:S3"]
    assert links[1].crosses == ["link:0", "river", "station:S3"]
    assert links[2].crosses == ["obstacle:0", "edge"]


def test_outside_is_any_part_beyond_the_play_area() -> None:
    """A footprint reaching past the play area's border is 'edge'."""
    fp = Footprints((32.0, 32.0), (1016.0, 1016.0))
    inside = fp.chain(np.array([[100.0, 100.0], [200.0, 100.0]]), 10.0)
    over = fp.chain(np.array([[100.0, 44.0], [200.0, 44.0]]), 10.0)
    assert not outside(inside, fp, (40.0, 40.0), (1000.0, 1000.0))
    assert outside(over, fp, (40.0, 40.0), (1000.0, 1000.0))


def test_links_into_one_station_touch_only_away_from_it(table: Table) -> None:
    """Two links converging on their shared station do not cross there; meeting 40 mm out they do."""
    stations = [_station("S1", "city", (300.0, 300.0)), _station("S2", "town", (600.0, 200.0)),
                _station("S3", "town", (600.0, 400.0))]
    apart = [_link("red", [[330.0, 296.0], [570.0, 200.0]], ["S1", "S2"]),     # ends 8 mm apart at S1's edge
             _link("green", [[330.0, 304.0], [570.0, 400.0]], ["S1", "S3"])]
    table.crossings(apart, stations)
    assert apart[0].crosses == [] and apart[1].crosses == []
    close = [_link("red", [[330.0, 298.0], [370.0, 298.0], [570.0, 200.0]], ["S1", "S2"]),
             _link("green", [[330.0, 302.0], [370.0, 302.0], [570.0, 400.0]], ["S1", "S3"])]
    table.crossings(close, stations)
    assert close[0].crosses == ["link:1"] and close[1].crosses == ["link:0"]


def test_a_link_at_no_station_is_left_out_of_other_lists(table: Table) -> None:
    """A link with an end at no station keeps its own crossing list but is not in the list of the link it crosses (unless cross_unattached)."""
    stations = [_station("S1", "city", (100.0, 300.0)), _station("S2", "town", (500.0, 300.0))]
    links = [_link("red", [[130.0, 300.0], [470.0, 300.0]], ["S1", "S2"]),
             _link("green", [[300.0, 150.0], [300.0, 450.0]], ["S1", "?"])]
    table.crossings(links, stations)
    assert links[0].crosses == [] and links[1].crosses == ["link:0"]
    listed = [_link("red", [[130.0, 300.0], [470.0, 300.0]], ["S1", "S2"]),
              _link("green", [[300.0, 150.0], [300.0, 450.0]], ["S1", "?"])]
    _crossings(listed, None, [], stations, table.prof, table.view, 32.0,
               dataclasses.replace(table.cfg, cross_unattached=True))
    assert listed[0].crosses == ["link:1"] and listed[1].crosses == ["link:0"]


def test_a_link_of_another_colour_by_its_pixels_is_left_out_of_other_lists(table: Table) -> None:
    """A link whose own pixels name another colour (colour_share 0) keeps its list but is not in the list of the link it crosses (unless cross_other_colour); a sure one is."""
    stations = [_station("S1", "city", (100.0, 300.0)), _station("S2", "town", (500.0, 300.0)),
                _station("S3", "town", (300.0, 100.0)), _station("S4", "town", (300.0, 500.0))]

    def pair(share: float) -> list[LinkReading]:
        crossing = _link("green", [[300.0, 130.0], [300.0, 470.0]], ["S3", "S4"])
        crossing.colour_share = share
        return [_link("red", [[130.0, 300.0], [470.0, 300.0]], ["S1", "S2"]), crossing]
    other = pair(0.0)
    table.crossings(other, stations)
    assert other[0].crosses == [] and other[1].crosses == ["link:0"]
    sure = pair(0.6)
    table.crossings(sure, stations)
    assert sure[0].crosses == ["link:1"] and sure[1].crosses == ["link:0"]
    listed = pair(0.0)
    _crossings(listed, None, [], stations, table.prof, table.view, 32.0,
               dataclasses.replace(table.cfg, cross_other_colour=True))
    assert listed[0].crosses == ["link:1"]
