"""`tableref bench --game railways-setups`: the set-up frames of the simulated railway
games (firmware.bench.railways_games) read alone, before any link is built.

A game whose set-up is not read never starts, so this is the first gate of every game
and cheap to measure on many games: one render and one reading each. A set-up is right
when the session proposes it and every true station was read where it lies (within
MATCH_MM) as its kind (a Starting City with its player's colour, a card of its type,
the Metropolis board as its sections), with no reading left over.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from firmware.bench.common import md_table, pct
from firmware.bench.railways_games import ORIGIN, bench_catalogue, games_for, new_session, vision_reader
from firmware.games.base import Proposed
from rules.railways.cards import Catalogue, Role
from rules.railways.simulate import SimGame

MATCH_MM = 25.0          # a reading this near a true card's centre is that card
BOARD_MM = 80.0          # a Metropolis section this near the board's centre is the board's


@dataclass
class SetupScore:
    proposed: bool = False
    stations: int = 0
    found: int = 0
    kind: int = 0
    extra: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def right(self) -> bool:
        return self.proposed and self.found == self.kind == self.stations and not self.extra


def score_setup(game: SimGame, catalogue: Catalogue, obs: dict[str, Any]) -> SetupScore:
    """One set-up reading against the game's true layout (play-area mm + ORIGIN = table mm)."""
    session = new_session(game, catalogue)
    verdict = session.interpret(obs)
    s = SetupScore(proposed=isinstance(verdict, Proposed))
    if not s.proposed:
        s.problems.append(f"{type(verdict).__name__} {getattr(verdict, 'text', '')}")
    read = [e for e in obs.get("stations", []) or [] if isinstance(e, dict) and e.get("centre_mm")]
    metropolis = catalogue.with_role(Role.METROPOLIS).id
    used: set[int] = set()
    for st in game.start.stations:
        rect = game.layout.stations.get(st.sid)
        if rect is None:
            continue
        s.stations += 1
        at = (rect.cx + ORIGIN[0], rect.cy + ORIGIN[1])
        if st.card == metropolis:
            parts = [j for j, e in enumerate(read) if e.get("metropolis") and math.dist(at, e["centre_mm"]) < BOARD_MM]
            if parts and game.variant != "gigantopolis":
                used.update(parts)
                s.found += 1
                s.kind += 1
            else:
                s.problems.append(f"{st.sid} not seen")
            continue
        near = sorted((math.dist(at, e["centre_mm"]), j) for j, e in enumerate(read) if j not in used)
        if not near or near[0][0] > MATCH_MM:
            s.problems.append(f"{st.sid} at {at[0]:.0f},{at[1]:.0f} not seen")
            continue
        j = near[0][1]
        used.add(j)
        s.found += 1
        e = read[j]
        if st.start:
            ok = str(e.get("type")) == "start" and e.get("player") == st.start
        else:
            ok = session.card_for_type(str(e.get("type", ""))) == st.card
        s.kind += ok
        if not ok:
            s.problems.append(f"{st.sid} read as {e.get('type')}/{e.get('player')}")
    s.extra = len(read) - len(used)
    if s.extra:
        s.problems.append(f"{s.extra} reading(s) at no station")
    return s


def measure(n: int, seed: int, resolution: tuple[int, int]) -> list[SetupScore]:
    """Each game's set-up frame rendered and read as the games bench reads it (its
    vision_reader: the true lens, no frame before)."""
    from vision.synth.railways_game import new_table
    catalogue = bench_catalogue()
    stats: dict[str, float] = {}
    return [score_setup(game, catalogue, vision_reader(new_table(game, gseed, resolution, catalogue), stats)(0, (), None))
            for gseed, game in games_for(n, seed, catalogue)]


def run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str:
    n = scenes or 100
    res = resolution or (2304, 1296)
    t = time.perf_counter()
    scores = measure(n, seed, res)
    stations = sum(s.stations for s in scores)
    rows = [
        ["set-ups read right (proposed, every station where it lies as its kind, nothing more)",
         pct(sum(s.right for s in scores), n), "", ""],
        ["set-ups proposed", pct(sum(s.proposed for s in scores), n), "", ""],
        ["stations seen", pct(sum(s.found for s in scores), stations), "", ""],
        ["stations seen as their kind (type, player's colour)", pct(sum(s.kind for s in scores), stations), "", ""],
        ["readings at no station", str(sum(s.extra for s in scores)), "0", ""],
    ]
    lines = [f"### Paperclip Railways set-ups: {n} games' set-up frames (seed {seed}, {res[0]}x{res[1]})", "",
             f"The set-up frame of each simulated game (firmware.bench.railways_games) read alone; "
             f"{time.perf_counter() - t:.0f} s.", "", md_table(["measure", "value", "target", ""], rows)]
    fails = [f"- game {i}: {'; '.join(s.problems)}" for i, s in enumerate(scores) if not s.right]
    if fails:
        lines += ["", "Set-ups not read right:", ""] + fails
    return "\n".join(lines) + "\n"
