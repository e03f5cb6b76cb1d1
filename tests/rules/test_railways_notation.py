"""The railways position notation: reading, writing, and one-line errors."""

from __future__ import annotations

import pytest

from rules.errors import CouldNotRead
from rules.railways import Phase, format_position, parse_position

TEXT = """railways metropolis turn=4 phase=last-round penalty=3 last=-
player red clips=52 cubes=21 score=13 hand=town,?*2
player white clips=60 cubes=23 score=0 hand=-
station S-red starting-city start=red cubes=red
station M metropolis cubes=red,white
link L1 red 8 S-red M
deck ?*3,end-of-line
"""


def test_reads_every_field() -> None:
    """Header, players, stations, links and the deck are read as typed values."""
    pos = parse_position(TEXT)
    assert (pos.variant, pos.turn, pos.phase, pos.penalty) == ("metropolis", 4, Phase.LAST_ROUND, 3)
    assert pos.player("red").hand == ("town", "?", "?") and pos.player("white").hand == ()
    assert pos.station("M").cubes == ("red", "white")  # type: ignore[union-attr]
    assert pos.station("S-red").start == "red"  # type: ignore[union-attr]
    assert pos.links[0].clips == 8 and pos.deck == ("?", "?", "?", "end-of-line")
    assert pos.to_move == "red"


def test_writes_back_the_same_text() -> None:
    """format_position reproduces the canonical text exactly."""
    assert format_position(parse_position(TEXT)) == TEXT


def test_comments_and_blank_lines_are_ignored() -> None:
    """'#' comments and blank lines do not matter."""
    noisy = "\n# a game\n" + TEXT.replace("deck", "   # nothing\ndeck") + "\n"
    assert parse_position(noisy) == parse_position(TEXT)


@pytest.mark.parametrize("old, new, message", [
    ("railways metropolis turn=4", "railroad x turn=4",
     "railways position line 1 'railroad x turn=4 phase=last-round penalty=3 last=-': the first line "
     "must be the header 'railways <variant> ...'"),
    ("turn=4", "turn=four", "railways position line 0 'header': turn must be a whole number, got 'four'"),
    ("phase=last-round", "phase=lunch",
     "railways position line 0 'header': unknown phase 'lunch' (use playing, last-round, last-draw, "
     "last-build, over)"),
    ("player white", "player pink",
     "railways position line 3 'player pink clips=60 cubes=23 score=0 hand=-': unknown colour 'pink' "
     "(use red, white, green, black, yellow)"),
    ("clips=52", "clip=52",
     "railways position line 2 'player red clips=52 cubes=21 score=13 hand=town,?*2'".replace("clips=52", "clip=52")
     + ": expected clips=... cubes=... score=... hand=..., got 'clip=52'"),
    ("link L1 red 8 S-red M", "link L1 red 8 S-red",
     "railways position line 6 'link L1 red 8 S-red': expected 'link <id> <colour> <clips> <station> <station>'"),
    ("link L1 red 8 S-red M", "link L1 red 8 S-red Q",
     "railways position: link L1 ends at unknown station 'Q'; add a station line"),
    ("hand=town,?*2", "hand=town,?*x",
     "railways position line 2 'player red clips=52 cubes=21 score=13 hand=town,?*x': bad hand entry "
     "'?*x' (use id or id*N)"),
    ("player white clips=60 cubes=23 score=0 hand=-\n", "",
     "railways position has 1 players; list 2 to 5 'player' lines"),
    ("deck", "dock", "railways position line 7 'dock ?*3,end-of-line': unknown line kind 'dock' "
                     "(railways, player, station, link, deck)"),
])
def test_parse_errors_are_one_line(old: str, new: str, message: str) -> None:
    """Each notation mistake raises CouldNotRead naming the line and what was expected."""
    with pytest.raises(CouldNotRead) as e:
        parse_position(TEXT.replace(old, new))
    assert str(e.value) == message


def test_empty_text_says_how_to_start() -> None:
    """An empty position asks for the header."""
    with pytest.raises(CouldNotRead) as e:
        parse_position("  \n# nothing\n")
    assert str(e.value) == "railways position is empty; start with 'railways <variant> turn=0 ...'"
