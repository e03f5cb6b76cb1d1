"""`tableref bench --game town77-challenge`: seeded solo Challenges rendered frame by frame
(city plus three piles), read by the Town 77 reader and refereed by
Town77ChallengeSession. The reader sees pixels only; truth is compared afterwards.

The third table plays the same games through the device loop (firmware.loop.Referee with
its change map and lattice hint, a simulated player answering its questions): the
figure a player at the table gets.

Figures: pile tops read right on every frame (the slot's presence, and shape and colour up to the
frame's label naming: a label counts as right when it names the truth the frame's
majority gives it), and placements refereed right (the verdict for a move frame is a
Proposed move of the right pile to the right cell, or Illegal for a misplaced tile).
A "which pile?" question whose choices hold the right move is counted apart and
answered as a player would; refereeing a game stops at its first placement judged
wrong otherwise (the session's state is the table's from then on only by luck), while
its later frames are still read for the pile-top figure.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

from firmware.bench.common import md_table, median, pct
from firmware.games.base import Ask, Illegal, Proposed
from firmware.games.town77_challenge import Town77ChallengeSession, pile_of


def _label_maps(pairs: list[tuple[Any, Any, int, int]]) -> tuple[dict[Any, int], dict[Any, int]]:
    """Per axis: each label -> the truth index most of its tiles have in this frame."""
    maps: list[dict[Any, int]] = []
    for axis in (0, 1):
        votes: dict[Any, Counter[int]] = {}
        for p in pairs:
            votes.setdefault(p[axis], Counter())[p[2 + axis]] += 1
        maps.append({lab: c.most_common(1)[0][0] for lab, c in votes.items()})
    return maps[0], maps[1]


def score_tops(obs: dict[str, Any], truth: dict[str, Any]) -> tuple[int, int, list[str]]:
    """(pile slots right, slots, what went wrong) for one frame."""
    by_cell = {(t["row"], t["col"]): t for t in truth["tiles"]}
    slots: dict[int, list[dict[str, Any]]] = {0: [], 1: [], 2: []}
    pairs: list[tuple[Any, Any, int, int]] = []
    for e in obs.get("tiles", []):
        r, c = int(e["row"]), int(e["col"])
        p = pile_of(r, c, bool(e.get("pile"))) if e.get("pile") or not (0 <= r < 7 and 0 <= c < 7) else None
        if p is not None:
            slots[p].append(e)
            top = truth["piles"][p]["top"]
            if top is not None and e.get("shape") is not None:
                pairs.append((e["shape"], e["colour"], top["shape"], top["colour"]))
        elif (r, c) in by_cell and e.get("shape") is not None:
            t = by_cell[(r, c)]
            pairs.append((e["shape"], e["colour"], t["shape"], t["colour"]))
    smap, cmap = _label_maps(pairs)
    right, notes = 0, []
    for p in range(3):
        top = truth["piles"][p]["top"]
        got = slots[p]
        if top is None:
            ok = not got
        else:
            ok = len(got) == 1 and got[0].get("shape") is not None \
                and smap.get(got[0]["shape"]) == top["shape"] \
                and cmap.get(got[0]["colour"]) == top["colour"]
        right += ok
        if not ok:
            notes.append(f"pile {p + 1}: {len(got)} read, top {'none' if top is None else 'set'}")
    return right, 3, notes


def _judged_right(verdict: Any, move: dict[str, Any], misplaced: bool) -> bool:
    if misplaced:
        return isinstance(verdict, Illegal) and verdict.move.get("cell") == move["cell"]
    return isinstance(verdict, Proposed) and verdict.move.get("type") == "place" \
        and verdict.move.get("cell") == move["cell"] and verdict.move.get("pile") == move["pile"]


def run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str:
    return "\n".join([measure(100, seed, (1280, 720), truth=True, moves_per_game=49),
                      measure(scenes or 6, seed, resolution or (1920, 1080)),
                      measure_loop(scenes or 6, seed, resolution or (1920, 1080))])


def measure(games: int, seed: int, res: tuple[int, int], flat: bool = False,
            moves_per_game: int = 14, truth: bool = False) -> str:
    """The suite; flat=True lays each pile's top tile on the table (no pile height), to
    tell a reader's trouble with tall piles from its trouble with the layout; truth=True
    refers the session alone (no pixels): a perfect reader's observations with group ids
    renumbered every frame (vision.synth.town77_challenge.truth_observation)."""
    from calibration.geometry import TableNotFound, locate_table
    from calibration.profile import default_profile
    from vision.api import AnalyzeOptions, get_reader
    from vision.synth import render_scene
    from vision.synth.town77_challenge import (
        challenge_game, challenge_scene, challenge_table, truth_observation,
    )

    profile = default_profile("town77")
    reader = get_reader("town77")
    tops_right = tops_all = placed_right = placed_all = illegal_right = illegal_all = 0
    asked = 0
    reached: list[int] = []
    kinds: Counter[str] = Counter()
    notes: list[str] = []
    for g in range(games):
        gs = seed + g
        misplace = (moves_per_game if not truth else 5 + g % 20) if g % 2 == 1 else None
        frames = challenge_game(gs, "hint", max_moves=moves_per_game, misplace_at=misplace)
        style, env = challenge_table(gs, res)
        session = Town77ChallengeSession({})
        done = 0
        stopped = False      # refereeing stopped; frames are still read for the pile tops
        for k, frame in enumerate(frames):
            scene = challenge_scene(frame, style, env, seed=gs * 1000 + k, wobble=1.0, flat=flat)
            if truth:
                obs = truth_observation(scene["meta"], gs * 1000 + k)
            else:
                r = render_scene(scene)
                try:
                    fit = locate_table(r.image, profile)
                except TableNotFound:
                    notes.append(f"game {gs} frame {k}: markers not found")
                    break
                obs = reader.analyze(r.image, fit, AnalyzeOptions(profile, extra=session.reader_extra()))
            ok, n, why = score_tops(obs, scene["meta"])
            tops_right += ok
            tops_all += n
            if stopped:
                continue
            verdict = session.interpret(obs)
            kinds[type(verdict).__name__] += 1
            if k == 0:
                if isinstance(verdict, Proposed):
                    session.apply(verdict.move)
                continue
            right = _judged_right(verdict, frame.move, frame.misplaced)
            answer = [m for m in getattr(verdict, "candidates", ()) if not frame.misplaced
                      and m.get("cell") == frame.move["cell"] and m.get("pile") == frame.move["pile"]]
            if isinstance(verdict, Ask) and len(answer) == 1:
                asked += 1          # the player picks the right pile from the menu
                placed_all += 1
                session.apply(answer[0])
                done = k
                continue
            if frame.misplaced:
                illegal_all += 1
                illegal_right += right
            else:
                placed_all += 1
                placed_right += right
            if not right:
                text = getattr(verdict, "text", getattr(verdict, "short", ""))
                notes.append(f"game {gs} move {k} ({frame.move['tile']} pile {frame.move['pile'] + 1}"
                             f" to {frame.move['cell']}): {type(verdict).__name__} {text}; {'; '.join(why)}")
                stopped = True
                continue
            done = k
            if isinstance(verdict, Proposed):
                session.apply(verdict.move)
        reached.append(done)
        if not truth:
            print(f"town77-challenge: game {g + 1}/{games} reached move {done} of {len(frames) - 1}",
                  file=sys.stderr)
    rows = [
        ["pile tops read right (every frame of every game)", pct(tops_right, tops_all)],
        ["legal placements proposed right (no question)", pct(placed_right, placed_all)],
        ["legal placements asked (which pile?), then answered", pct(asked, placed_all)],
        ["misplacements alerted (Illegal)", pct(illegal_right, illegal_all)],
        ["median move reached per game", f"{median(reached):.0f} (game lengths: up to {moves_per_game})"],
        ["verdicts", ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))],
    ]
    what = "the session on a perfect reader's observations (group ids renumbered per frame)" \
        if truth else f"the Town 77 reader at {res[0]}x{res[1]}" + (" (flat piles)" if flat else "")
    out = [f"## Town 77 Challenge: {games} seeded solo games, up to {moves_per_game} moves, "
           f"{what}, seed {seed}", "",
           md_table(["measure", "value"], rows), ""]
    if notes:
        out += ["First failures:", ""] + [f"- {n}" for n in notes[:12]] + [""]
    return "\n".join(out)


class ChallengePlayers:
    """A solo player at the table who answers the device truthfully, through the buttons:
    "Which pile went to X?" gets the pile the tile at X really came from (the option
    naming it, else "Not a move"); "2 tiles at once" the first of them laid, by its cell
    and pile; "Only the piles?" is answered yes while no tile has been laid, else with
    the first tile laid where it is offered (by its cell and pile); a question
    without options is acknowledged (OK); an alert on a tile they laid (every bench game
    is legal) gets MENU > Misread? Fix and the option naming the pile it came from, if
    there is one.
    `moves[k]` is frame k's placement ({"pile", "cell"}), frame 0 the dealt piles."""

    def __init__(self, camera: Any, moves: list[dict[str, Any]], *, sleep: Any) -> None:
        self.camera, self.moves, self.sleep = camera, moves, sleep
        self.ref: Any = None
        self.plan: list[Any] = []
        self.answered = 0
        self.fixing: int | None = None     # the pile of the alerted tile being fixed
        self.fixed: set[str] = set()       # alerts already handled (by message)
        self.fixes = 0

    def _laid(self) -> list[dict[str, Any]]:
        """The placements on the table so far (up to the frame the camera shows)."""
        return self.moves[1: self.camera.index + 1]

    def _pile_at(self, cell: str) -> int | None:
        for m in self._laid():
            if m.get("cell") == cell:
                return int(m["pile"])
        return None

    @staticmethod
    def _naming(choices: Any, pile: int | None) -> int | None:
        """The index of the option "... from pile N" naming `pile`, or None."""
        return next((i for i, c in enumerate(choices) if pile is not None and c.endswith(f"from pile {pile + 1}")),
                    None)

    def _first_laid(self, choices: tuple[str, ...], default: int) -> int:
        """Of "C1: e2 pile 2" options, the one naming the cell and pile of the tile laid
        first among those the device has not applied."""
        applied = {str(r.data.get("cell")) for r in self.ref.journal.records if r.kind == "move"}
        order = [str(m.get("cell")) for m in self._laid()]
        fits = []
        for i, choice in enumerate(choices):
            cell, _, rest = choice.partition(": ")
            pile = self._pile_at(cell) if cell in order and cell not in applied else None
            if pile is not None and rest.endswith(f" pile {pile + 1}"):
                fits.append((order.index(cell), i))
        return min(fits)[1] if fits else default

    def poll(self, timeout: float = 0.0) -> Any:
        from firmware.buttons.base import ButtonEvent
        if self.plan:
            return self.plan.pop(0)
        if self.ref is not None and self.ref.asking is None:
            alert = self.ref.misread
            pile = self._pile_at(str(alert.move.get("cell"))) if alert is not None else None
            if alert is not None and alert.message not in self.fixed and pile is not None:
                self.fixed.add(alert.message)      # a tile laid legally, alerted: a misreading
                self.fixing = pile
                return ButtonEvent.MENU
        if self.ref is None or self.ref.asking is None:
            if timeout > 0:
                self.sleep(timeout)
            return None
        title, choices = self.ref.asking
        if title == "Menu":
            if self.fixing is not None and "Misread? Fix" in choices:
                self.plan = [ButtonEvent.NEXT] * choices.index("Misread? Fix") + [ButtonEvent.SELECT]
                return self.plan.pop(0)
            self.fixing = None
            return ButtonEvent.BACK
        if title == "It really is":
            fixed, self.fixing = self._naming(choices, self.fixing), None
            if fixed is None:
                return ButtonEvent.BACK
            self.fixes += 1
            self.plan = [ButtonEvent.NEXT] * fixed + [ButtonEvent.SELECT]
            return self.plan.pop(0)
        self.answered += 1
        if not choices:
            return ButtonEvent.SELECT                       # "Check table": OK
        pick = len(choices) - 1                             # "Not a move"
        cell = title.rsplit(" ", 1)[-1].rstrip("?") if title.startswith("Which pile went to ") else None
        pile = self._pile_at(cell) if cell else None
        named = self._naming(choices[:-1], pile)
        pick = pick if named is None else named
        if title == "Only the piles?":
            if not any(m.get("cell") for m in self._laid()):
                pick = 0                                    # no tile laid yet: yes
            else:                                           # the first tile laid, if offered
                pick = 1 + self._first_laid(choices[1:-1], pick - 1)
        if title.endswith(" tiles at once"):
            pick = self._first_laid(choices[:-1], pick)
        self.plan = [ButtonEvent.NEXT] * pick + [ButtonEvent.SELECT]
        return self.plan.pop(0)

    def close(self) -> None:
        pass


def play_loop(gs: int, res: tuple[int, int], moves_per_game: int = 14,
              look_seconds: float = 0.3, hold: float = 10.0) -> dict[str, Any]:
    """One seeded solo Challenge (legal throughout) through the device loop (firmware.loop.
    Referee, as `tableref run` drives it: motion, stills, the change map against the last
    accepted table, the lattice hint, questions answered by ChallengePlayers), rendered
    frame by frame with the real reader. Looks are charged `look_seconds` on a virtual
    clock (firmware.bench.loop.bench_latency), so the outcome does not depend on this
    machine's speed."""
    from firmware.bench.loop import bench_latency
    from vision.synth import render_scene
    from vision.synth.town77_challenge import challenge_game, challenge_scene, challenge_table

    frames = challenge_game(gs, "hint", max_moves=moves_per_game)
    style, env = challenge_table(gs, res)
    images = [render_scene(challenge_scene(f, style, env, seed=gs * 1000 + k, wobble=1.0)).image
              for k, f in enumerate(frames)]
    truth = [dict(f.move) for f in frames]
    run = bench_latency(images, look_seconds=look_seconds, hold=hold, game="town77-challenge", preset={},
                        make_players=lambda cam, sleep: ChallengePlayers(cam, truth, sleep=sleep))
    placed = [(str(d.get("cell")), d.get("pile")) for kind, d in run["records"]
              if kind == "move" and d.get("type") == "place"]
    want = [(str(m["cell"]), m["pile"]) for m in truth[1:]]
    # every game is legal throughout: a Challenge the session ends as lost (end B) was lost
    # on a misreading, and its last placement is no right one
    lost = getattr(run["session"], "lost", None) is not None
    kept = placed[:-1] if lost else placed
    reached = 0
    for got, exp in zip(kept, want):
        if got != exp:
            break
        reached += 1
    cells = {c for c, _ in want}
    return {"game": gs, "moves": len(want), "reached": reached, "placed": placed, "kept": kept, "want": want,
            "lost": lost,
            "missed": sum(1 for c, _ in want if c not in {g for g, _ in placed}),
            "invented": sum(1 for c, _ in placed if c not in cells),
            "wrong_pile": sum(1 for g in placed if g[0] in cells and g not in want),
            "questions": sum(1 for e in run["events"] if ": Ask " in e),
            "answered": run["answered"], "fixes": run["fixes"], "events": run["events"]}


def measure_loop(games: int, seed: int, res: tuple[int, int], moves_per_game: int = 14,
                 each: Any = None) -> str:
    """The Challenge as the device plays it (play_loop), game by game: the figure a player
    at the table sees (the standalone `measure` refers every frame without the loop's
    change map or lattice hint)."""
    rows_in: list[dict[str, Any]] = []
    for g in range(games):
        r = play_loop(seed + g, res, moves_per_game)
        rows_in.append(r)
        if each is not None:
            each(f"game {r['game']}: reached {r['reached']} of {r['moves']}{', lost' if r['lost'] else ''}, "
                 f"missed {r['missed']}, "
                 f"invented {r['invented']}, wrong pile {r['wrong_pile']}, questions {r['questions']}, "
                 f"fixes {r['fixes']}; "
                 f"placed {r['placed']}")
    moves = sum(r["moves"] for r in rows_in)
    right = sum(len(set(r["kept"]) & set(r["want"])) for r in rows_in)
    rows = [
        ["placements applied right (cell and pile)", pct(right, moves)],
        ["games played through without a wrong or missed placement",
         f"{sum(r['reached'] == r['moves'] for r in rows_in)} of {games}"],
        ["median move reached per game", f"{median([r['reached'] for r in rows_in]):.0f} "
         f"(game lengths: up to {moves_per_game})"],
        ["placements missed / invented / from the wrong pile",
         f"{sum(r['missed'] for r in rows_in)} / {sum(r['invented'] for r in rows_in)} / "
         f"{sum(r['wrong_pile'] for r in rows_in)}"],
        ["Challenges ended as lost on a misreading (every game is legal)", str(sum(r["lost"] for r in rows_in))],
        ["questions asked (answered by the player)", str(sum(r["questions"] for r in rows_in))],
        ["alerts the player called misreadings (Misread? Fix)", str(sum(r["fixes"] for r in rows_in))],
    ]
    return "\n".join([f"## Town 77 Challenge through the device loop: {games} seeded solo games, up to "
                      f"{moves_per_game} moves, the Town 77 reader at {res[0]}x{res[1]}, seed {seed}", "",
                      md_table(["measure", "value"], rows), ""])


if __name__ == "__main__":   # the device-loop table alone: python -m firmware.bench.town77_challenge loop N SEED
    if len(sys.argv) == 4 and sys.argv[1] == "loop":
        print(measure_loop(int(sys.argv[2]), int(sys.argv[3]), (1920, 1080),
                           each=lambda line: print(line, flush=True)))
    else:
        print("usage: python -m firmware.bench.town77_challenge loop GAMES SEED\n"
              "  GAMES seeded Challenges from SEED through the device loop at 1920x1080, a line per game, "
              "then the table (the whole suite: tableref bench --game town77-challenge)")
