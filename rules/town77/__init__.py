"""Town 77: 49 house tiles (7 shapes x 7 colours) built into a 7x7 city.

The engine is pure and deterministic; randomness only comes through an injected
random.Random so a seeded game replays exactly.
"""

from __future__ import annotations

from rules.town77.challenge import PILE_SIZES, ChallengeGame, Hint, PlayLevel, hint
from rules.town77.city import FACE_DOWN, Cell, City, FaceDown
from rules.town77.game import (
    Game,
    GameRule,
    MultiplayerGame,
    Outcome,
    PlaceResult,
    RefereeGame,
    Standing,
    Step,
    rank_players,
)
from rules.town77.placement import (
    Reason,
    can_place_any,
    is_legal,
    legal_cells,
    why_illegal,
)
from rules.town77.tiles import ALL_TILES, SIDE, Tile, TileLabels

__all__ = [
    "PILE_SIZES", "ChallengeGame", "Hint", "PlayLevel", "hint", "Game", "GameRule",
    "MultiplayerGame", "Outcome", "PlaceResult", "RefereeGame", "Standing", "Step",
    "rank_players", "ALL_TILES", "SIDE", "Tile", "TileLabels", "FACE_DOWN", "FaceDown", "Cell", "City",
    "Reason", "can_place_any", "is_legal", "legal_cells", "why_illegal",
]
