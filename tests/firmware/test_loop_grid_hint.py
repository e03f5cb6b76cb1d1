"""The reader's lattice hint comes only from looks the guard let through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import minitable
from loopkit import referee


def test_a_hand_look_never_hands_its_lattice_to_the_next_look(tmp_path: Path) -> None:
    """A look blocked by a hand over the city does not become the next look's grid hint."""
    pioneer = {(0, 0): (1, 1)}
    both = {(0, 0): (1, 1), (0, 1): (2, 2)}
    frames = [minitable.render({}), minitable.render(pioneer, seed=1),
              minitable.render(both, [{"kind": "hand", "at": (120.0, 90.0)}], seed=2),
              minitable.render(both, seed=3)]
    names = {id(f): name for f, name in zip(frames, ("empty", "pioneer", "hand", "placed"))}
    given: list[tuple[str, Any]] = []

    def analyze(game: str, image: Any, fit: Any, options: Any) -> dict[str, Any]:
        name = names[id(image)]
        given.append((name, (options.extra or {}).get("grid")))
        obs = minitable.loop_analyze(game, image, fit, options)
        obs["grid"] = {"fitted_on": name}
        return obs

    ref = referee(tmp_path, frames)
    ref.analyze_fn = analyze
    ref.run()
    assert any("table not clear" in e or "settle" in e for e in ref.events), ref.events
    assert given[-1] == ("placed", {"fitted_on": "pioneer"}), given
    assert any("applied P1: c2 B1" in e for e in ref.events), ref.events


def test_once_three_tiles_are_agreed_the_reader_starts_from_the_citys_lattice(tmp_path: Path) -> None:
    """With three tiles applied, the next look's hint is the lattice through where the
    city's tiles were seen (pitch, angle, A1's centre), not the reader's last grid; with
    two (nothing to check a lattice by) it is still the reader's."""
    cities = [{}, {(0, 0): (1, 1)}, {(0, 0): (1, 1), (0, 1): (2, 2)},
              {(0, 0): (1, 1), (0, 1): (2, 2), (1, 0): (3, 3)},
              {(0, 0): (1, 1), (0, 1): (2, 2), (1, 0): (3, 3), (1, 1): (4, 4)}]
    frames = [minitable.render(c, seed=k) for k, c in enumerate(cities)]
    names = {id(f): k for k, f in enumerate(frames)}
    bent = {"pitch_mm": 30.0, "angle_deg": 5.0, "origin_mm": [0.0, 0.0]}
    given: dict[int, Any] = {}

    def analyze(game: str, image: Any, fit: Any, options: Any) -> dict[str, Any]:
        hint = (options.extra or {}).get("grid")
        given.setdefault(names[id(image)], hint)
        obs = minitable.loop_analyze(game, image, fit, options)
        obs["grid"] = dict(bent if hint is None or hint == bent else hint)  # tiles sit on a true hint
        return obs

    ref = referee(tmp_path, frames)
    ref.analyze_fn = analyze
    ref.run()
    assert any("applied P1: e4 B2" in e for e in ref.events), ref.events
    assert given[3] == bent
    hint = given[4]
    assert abs(hint["pitch_mm"] - minitable.PITCH) < 1.0 and abs(hint["angle_deg"]) < 1.0, hint
    a1 = minitable.cell_centre(0, 0)
    assert abs(hint["origin_mm"][0] - a1[0]) < 1.0 and abs(hint["origin_mm"][1] - a1[1]) < 1.0, hint
