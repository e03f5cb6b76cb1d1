"""From the camera's link reading to a BuiltLink, and the catalogue file loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware.railways_catalogue import CatalogueError, load_catalogue, save_new_card
from rules.errors import CouldNotRead
from rules.railways import Railways, StationType, new_card, parse_position
from rules.railways.reading import link_from_reading
from rules.railways.simulate import placeholder_catalogue

POS = """
railways metropolis turn=1 phase=playing penalty=2 last=-
player red clips=60 cubes=24 score=0 hand=?*6
player white clips=60 cubes=24 score=0 hand=?*6
station S-red starting-city start=red cubes=red
station S-white starting-city start=white cubes=-
station M metropolis cubes=red
link L1 red 5 S-red M
deck ?*9
"""
R = Railways(placeholder_catalogue())


def test_reading_is_oriented_from_the_owned_station() -> None:
    """[M, S-white] read for white departs from white's Starting City."""
    b = link_from_reading(R, parse_position(POS), {"colour": "white", "clips": 5, "stations": ["M", "S-white"],
                                                   "crosses": ["L1", "river", "obstacle", "river"]}, 2)
    assert (b.from_station, b.to_station) == ("S-white", "M")
    assert (b.touches_links, b.river_parts, b.obstacles, b.cards_discarded) == (("L1",), 2, 1, 2)
    assert R.build(parse_position(POS), b)[1].points_for("red") == 1


def test_reading_names_a_metropolis_section() -> None:
    """'M:2' is station M, section 2, on whichever end it is."""
    b = link_from_reading(R, parse_position(POS), {"colour": "white", "clips": 5, "stations": ["M:2", "S-white"]}, 2)
    assert (b.from_station, b.from_section, b.to_station, b.to_section) == ("S-white", None, "M", 2)
    b = link_from_reading(R, parse_position(POS), {"colour": "white", "clips": 5, "stations": ["S-white", "M4"]}, 2)
    assert (b.to_station, b.to_section) == ("M", 4)


def test_reading_to_a_new_station() -> None:
    """A station id not in play becomes the new station with the given card."""
    b = link_from_reading(R, parse_position(POS), {"colour": "white", "clips": 4, "stations": ["N7", "S-white"],
                                                   "crosses": ["station:M"]}, 2, new_card="town")
    assert (b.from_station, b.to_station, b.new_card, b.crosses_stations) == ("S-white", "N7", "town", ("M",))


@pytest.mark.parametrize("reading, message", [
    ({"colour": "white", "clips": 4}, "link reading needs 'colour', 'clips' and two 'stations'; got "),
    ({"colour": "white", "clips": 4, "stations": ["M", "S-white"], "crosses": ["lake"]},
     "link reading: unknown crossing 'lake'; use 'L3', 'obstacle', 'river' or 'station:<id>'"),
])
def test_bad_reading_is_one_line(reading: dict[str, object], message: str) -> None:
    """A malformed reading raises CouldNotRead saying what is expected."""
    with pytest.raises(CouldNotRead) as e:
        link_from_reading(R, parse_position(POS), reading)
    assert str(e.value).startswith(message)


def test_loader_reads_the_shipped_catalogue(tmp_path: Path) -> None:
    """With no club copy the shipped placeholder catalogue is used."""
    assert load_catalogue(Path(__file__).resolve().parents[2] / "rules/railways/catalogue.toml") == \
        placeholder_catalogue()


def test_saving_a_card_creates_the_club_copy(tmp_path: Path) -> None:
    """The first card entered copies the shipped file to the club path and appends the card."""
    target = tmp_path / "club.toml"
    save_new_card(new_card("mill", "Mill", StationType.TOWN, 2, 3, {StationType.TOWN: 3}), target)
    assert "mill" in load_catalogue(target) and "example" in load_catalogue(target)
    with pytest.raises(CatalogueError) as e:
        save_new_card(new_card("mill", "Mill", StationType.TOWN, 2, 3, {}), target)
    assert str(e.value) == f"{target}: card id 'mill' is already in the catalogue; pick another id"


def test_loader_errors_name_the_file(tmp_path: Path) -> None:
    """A missing or broken file is one line naming it."""
    with pytest.raises(CatalogueError, match=r"nope.toml: cannot read the railways catalogue"):
        load_catalogue(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[cards.a]\ntype = 'moon'\npoints = 1\ncapacity = 1\n")
    with pytest.raises(CatalogueError) as e:
        load_catalogue(bad)
    assert str(e.value) == f"{bad}: card 'a': 'moon' is not one of city, town, suburban, countryside"
