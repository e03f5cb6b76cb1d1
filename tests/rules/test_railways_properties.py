"""Invariants over seeded random legal games (hypothesis picks seeds, player counts, variants)."""

from __future__ import annotations

import random
from functools import lru_cache
from collections import Counter

from hypothesis import given, settings, strategies as st

from rules.errors import IllegalMove
from rules.railways import BuiltLink, Phase, format_position, parse_position, rules_for
from rules.railways.simulate import SimGame, placeholder_catalogue, simulate_game

games = st.builds(lambda seed, n, v: simulate_game(random.Random(seed), n, v),
                  st.integers(0, 10_000), st.integers(2, 5), st.sampled_from(["metropolis", "gigantopolis"]))


@settings(max_examples=12, deadline=None)
@given(games)
def test_scores_are_the_sum_of_their_terms(game: SimGame) -> None:
    """Replaying a game, each running score equals the sum of the scoring terms it was given."""
    r = rules_for(game.variant, placeholder_catalogue())
    pos, sums = game.start, Counter[str]()
    for m in game.moves:
        if isinstance(m.move, BuiltLink):
            pos, report = r.build(pos, m.move)
            for t in report.terms:
                sums[t.colour] += t.points
        else:
            pos = r.play(pos, m.move)
    assert pos == game.end and pos.phase is Phase.OVER
    assert {p.colour: p.score for p in pos.players} == {p.colour: sums[p.colour] for p in pos.players}
    final = r.final_result(pos)
    for p in pos.players:
        assert final.totals[p.colour] == p.score + sum(t.points for t in final.terms if t.colour == p.colour)


@settings(max_examples=12, deadline=None)
@given(games)
def test_clips_and_cubes_are_conserved(game: SimGame) -> None:
    """Stock plus what is on the table stays what each player started with, every turn."""
    r = rules_for(game.variant, placeholder_catalogue())
    start = {p.colour: (p.clips, p.cubes) for p in game.start.players}
    pos = game.start
    for m in game.moves:
        pos = r.play(pos, m.move)
        for p in pos.players:
            clips = p.clips + sum(k.clips for k in pos.links if k.colour == p.colour)
            cubes = p.cubes + sum(s.cubes.count(p.colour) for s in pos.stations)
            assert (clips, cubes) == start[p.colour]
            assert len(p.hand) <= r.settings.hand_limit
        for s in pos.stations:
            assert len(s.cubes) <= r.card(s).capacity
            if s.sid == "M":
                assert len(set(s.cubes)) == len(s.cubes)


@settings(max_examples=8, deadline=None)
@given(games)
def test_notation_round_trips_every_position(game: SimGame) -> None:
    """format_position then parse_position gives back every position of a game."""
    r = rules_for(game.variant, placeholder_catalogue())
    pos = game.start
    for m in game.moves:
        pos = r.play(pos, m.move)
        assert parse_position(format_position(pos)) == pos


@settings(max_examples=8, deadline=None)
@given(games)
def test_game_ends_by_a_rule(game: SimGame) -> None:
    """A game ends because End of Line was drawn or the stock ran out, and someone wins."""
    end = game.end
    eol_drawn = "end-of-line" not in end.deck
    out = sum(1 for p in end.players if p.clips or p.cubes) <= 1
    assert eol_drawn or out
    assert game.final.winners


@lru_cache(maxsize=None)
def _game(seed: int) -> SimGame:
    return simulate_game(random.Random(seed), 3, "metropolis")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 20), st.integers(0, 40), st.data())
def test_build_is_refused_exactly_when_a_rule_is_broken(seed: int, at: int, data: st.DataObject) -> None:
    """For arbitrary builds, build() raises IllegalMove iff refusals() is non-empty, and a
    legal build moves exactly `clips` clips from stock to the table."""
    game = _game(seed)
    r = rules_for("metropolis", placeholder_catalogue())
    pos = game.start
    for m in game.moves[:at]:
        pos = r.play(pos, m.move)
    sids = [s.sid for s in pos.stations] + ["NEW"]
    b = BuiltLink(colour=data.draw(st.sampled_from([p.colour for p in pos.players])),
                  clips=data.draw(st.integers(0, 12)),
                  from_station=data.draw(st.sampled_from(sids)), to_station=data.draw(st.sampled_from(sids)),
                  cards_discarded=data.draw(st.integers(0, 4)),
                  new_card=data.draw(st.sampled_from([None, "town", "city"])),
                  obstacles=data.draw(st.integers(0, 2)), river_parts=data.draw(st.integers(0, 2)),
                  outside_area=data.draw(st.booleans()) and data.draw(st.booleans()))
    problems = r.refusals(pos, b)
    try:
        after, report = r.build(pos, b)
    except IllegalMove as e:
        assert problems and e.reason is problems[0][0]
        return
    assert not problems
    me_before, me_after = pos.player(b.colour), after.player(b.colour)
    assert me_before.clips - me_after.clips == b.clips == report.link.clips
    assert me_after.score - me_before.score == report.points_for(b.colour)
