"""Paperclip Railways: station catalogue, positions and notation, the referee, a simulator."""

from rules.railways.cards import (
    Ability, AbilityKind, Catalogue, Role, StationCard, StationType, add_card, add_card_to_text,
    card_to_toml, catalogue_to_toml, new_card, parse_catalogue,
)
from rules.railways.engine import (
    BuildReport, FinalResult, Gigantopolis, Railways, Refusal, ScoreTerm, owns, rules_for,
)
from rules.railways.notation import format_position, parse_position
from rules.railways.simulate import (
    SimGame, SimGeometry, SimLayout, SimMove, SimScene, placeholder_catalogue, scene_after, simulate_game,
)
from rules.railways.state import (
    COLOURS, END_OF_LINE, BuiltLink, Draw, Link, Move, Pass, Phase, PlayerState, Position,
    Settings, StationInPlay,
)

__all__ = [
    "Ability", "AbilityKind", "Catalogue", "Role", "StationCard", "StationType", "add_card",
    "add_card_to_text", "card_to_toml", "catalogue_to_toml", "new_card", "parse_catalogue",
    "BuildReport", "FinalResult", "Gigantopolis", "Railways", "Refusal", "ScoreTerm", "owns",
    "rules_for", "format_position", "parse_position", "COLOURS", "END_OF_LINE", "BuiltLink",
    "Draw", "Link", "Move", "Pass", "Phase", "PlayerState", "Position", "Settings",
    "StationInPlay", "SimGame", "SimGeometry", "SimLayout", "SimMove", "SimScene", "scene_after", "placeholder_catalogue",
    "simulate_game",
]
