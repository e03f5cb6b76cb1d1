"""The three ways a rules query can fail, kept apart so callers can react differently.

Like python-chess, every message carries the state it was raised from, so a log
line alone is enough to rebuild the position.
"""

from __future__ import annotations


class RulesError(Exception):
    """Base of every error raised by rules/."""


class CouldNotRead(RulesError):
    """The input could not be understood (bad notation, unknown card, missing field)."""


class IllegalMove(RulesError):
    """The move is understood but the rules forbid it; `reason` says which rule."""

    def __init__(self, message: str, reason: object | None = None) -> None:
        super().__init__(message)
        self.reason = reason


class Ambiguous(RulesError):
    """More than one reading fits; `candidates` lists them so a person can choose."""

    def __init__(self, message: str, candidates: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates
