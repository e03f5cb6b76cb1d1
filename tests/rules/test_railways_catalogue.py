"""The railways station catalogue: the shipped file, the schema, adding a card."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.errors import CouldNotRead
from rules.railways import (
    AbilityKind, StationType, add_card, add_card_to_text, catalogue_to_toml, new_card, parse_catalogue,
)
from rules.railways.simulate import placeholder_catalogue

SHIPPED = Path(__file__).resolve().parents[2] / "rules" / "railways" / "catalogue.toml"
T, S, X, C = StationType.TOWN, StationType.SUBURBAN, StationType.COUNTRYSIDE, StationType.CITY


def test_shipped_file_equals_the_in_code_placeholder() -> None:
    """catalogue.toml and placeholder_catalogue() (used by rules/ without I/O) agree."""
    assert parse_catalogue(SHIPPED.read_text()) == placeholder_catalogue()


def test_example_card_matches_the_rulebook() -> None:
    """The rulebook's example: 3 to Towns, 3 to Suburbs, 6 to Countryside, no City, +1 free clip."""
    card = parse_catalogue(SHIPPED.read_text())["example"]
    assert dict(card.min_length) == {T: 3, S: 3, X: 6}
    assert C not in card.min_length
    assert card.free_clips() == 1


def test_deck_is_96_station_cards_in_the_rulebook_colours() -> None:
    """11 City, 33 Town, 29 Suburban and 23 Countryside cards are shuffled into the deck."""
    cat = placeholder_catalogue()
    counts = {t: sum(1 for c in cat.deck_cards() if cat[c].type is t) for t in StationType}
    assert counts == {C: 11, T: 33, S: 29, X: 23}


def test_metropolis_counts_as_town_and_suburban() -> None:
    """The Metropolis card carries both types."""
    assert placeholder_catalogue()["metropolis"].types == frozenset({T, S})


def test_round_trip_through_toml_text() -> None:
    """Writing a catalogue and reading it back gives the same cards."""
    cat = placeholder_catalogue()
    assert parse_catalogue(catalogue_to_toml(cat, header="edited")) == cat


def test_add_card_and_write_back_keeps_comments() -> None:
    """A card entered on the device is appended; the user's comments stay."""
    text = SHIPPED.read_text()
    card = new_card("mill-lane", "Mill Lane", X, points=3, capacity=2, min_length={T: 5, X: 4},
                    free_clips=1, end_points=2)
    out = add_card_to_text(text, card)
    assert out.startswith(text) and "# Fields of a card" in out
    read = parse_catalogue(out)["mill-lane"]
    assert read == card
    assert [a.kind for a in read.abilities] == [AbilityKind.FREE_CLIPS, AbilityKind.END_POINTS]


def test_add_card_refuses_duplicate_id() -> None:
    """Adding an id already there names it and asks for another id."""
    cat = placeholder_catalogue()
    with pytest.raises(CouldNotRead) as e:
        add_card(cat, new_card("town", "Town", T, 1, 1, {}))
    assert str(e.value) == "card id 'town' is already in the catalogue; pick another id"


def test_unknown_card_lookup_names_the_fix() -> None:
    """Looking up a card the catalogue lacks says to add it."""
    with pytest.raises(CouldNotRead, match=r"^unknown station card 'zzz'; add it to the railways catalogue"):
        placeholder_catalogue()["zzz"]


@pytest.mark.parametrize("text, message", [
    ("[cards", "railways catalogue is not valid TOML"),
    ("x = 1", "railways catalogue has no [cards.<id>] tables; add at least one card"),
    ('[cards.a]\ntype = "moon"\npoints = 1\ncapacity = 1',
     "card 'a': 'moon' is not one of city, town, suburban, countryside"),
    ('[cards.a]\ntype = "town"\npoints = -1\ncapacity = 1',
     "card 'a': 'points' must be a whole number >= 0 (got -1)"),
    ('[cards.a]\ntype = "town"\npoints = 1\ncapacity = 1\ncolour = "red"',
     "card 'a': unknown field 'colour' (fields: abilities, also_types, capacity, count, min_length, "
     "name, points, role, sections, type)"),
    ('[cards.a]\ntype = "town"\npoints = 1\ncapacity = 1\nmin_length = { lake = 2 }',
     "card 'a' min_length: 'lake' is not one of city, town, suburban, countryside"),
    ('[cards.a]\ntype = "town"\npoints = 1\ncapacity = 1\nabilities = [{ kind = "fly", amount = 1 }]',
     "card 'a' ability 1: 'fly' is not one of free_clips, end_points, end_points_per_cube, end_points_per_type"),
    ('[cards.a]\ntype = "town"\npoints = 1\ncapacity = 1\n'
     'abilities = [{ kind = "end_points_per_type", amount = 1 }]',
     "card 'a' ability 1: end_points_per_type needs station_type"),
    ('[cards.A]\ntype = "town"\npoints = 1\ncapacity = 1',
     "card 'A': ids are lower-case letters, digits, '-' and '_'"),
])
def test_bad_catalogue_text_is_one_clear_line(text: str, message: str) -> None:
    """Each schema mistake raises CouldNotRead naming the card and the field."""
    with pytest.raises(CouldNotRead) as e:
        parse_catalogue(text)
    assert str(e.value).startswith(message)
    assert "\n" not in str(e.value)
