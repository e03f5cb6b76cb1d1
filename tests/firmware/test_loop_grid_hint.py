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
