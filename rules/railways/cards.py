"""Station cards and the editable catalogue that describes them.

We do not have the printed values of the 99 station cards, so clubs type them in.
The catalogue is TOML text; this module parses and writes it as pure functions of
text (rules/ does no I/O; firmware/railways_catalogue.py reads the file).
"""

from __future__ import annotations

import enum
import re
import tomllib
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

from rules.errors import CouldNotRead


class StationType(enum.Enum):
    """The four printed colours; values are the catalogue spelling."""

    CITY = "city"
    TOWN = "town"
    SUBURBAN = "suburban"
    COUNTRYSIDE = "countryside"


class Role(enum.Enum):
    """Cards that are not shuffled into the deck play a special part."""

    STATION = "station"
    STARTING_CITY = "starting-city"
    METROPOLIS = "metropolis"
    METROPOLIS_SECTION = "metropolis-section"


class AbilityKind(enum.Enum):
    """The small vocabulary of printed abilities the engine can apply.

    FREE_CLIPS: each owner gets `amount` extra free clips whenever they pay for a link.
    END_POINTS: each owner scores `amount` at the game end.
    END_POINTS_PER_CUBE: each owner scores `amount` per own cube on this station at the end.
    END_POINTS_PER_TYPE: each owner scores `amount` per owned station of `station_type`.
    """

    FREE_CLIPS = "free_clips"
    END_POINTS = "end_points"
    END_POINTS_PER_CUBE = "end_points_per_cube"
    END_POINTS_PER_TYPE = "end_points_per_type"


@dataclass(frozen=True)
class Ability:
    kind: AbilityKind
    amount: int
    station_type: StationType | None = None


@dataclass(frozen=True)
class StationCard:
    """One printed card. `min_length` lacks a type when the card cannot link to it."""

    id: str
    name: str
    type: StationType
    points: int
    capacity: int
    min_length: Mapping[StationType, int]
    abilities: tuple[Ability, ...] = ()
    count: int = 1
    role: Role = Role.STATION
    also_types: frozenset[StationType] = frozenset()
    sections: tuple[str, ...] = ()

    @property
    def types(self) -> frozenset[StationType]:
        """Every type this card counts as (Metropolis is both Town and Suburban)."""
        return frozenset({self.type}) | self.also_types

    def free_clips(self) -> int:
        return sum(a.amount for a in self.abilities if a.kind is AbilityKind.FREE_CLIPS)


@dataclass(frozen=True)
class Catalogue:
    """Cards by id, in file order (the order matters only for writing back)."""

    cards: Mapping[str, StationCard] = field(default_factory=lambda: MappingProxyType({}))

    def __getitem__(self, card_id: str) -> StationCard:
        try:
            return self.cards[card_id]
        except KeyError:
            raise CouldNotRead(
                f"unknown station card '{card_id}'; add it to the railways catalogue "
                f"(known: {', '.join(self.cards) or 'none'})") from None

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def with_role(self, role: Role) -> StationCard:
        for card in self.cards.values():
            if card.role is role:
                return card
        raise CouldNotRead(f"the railways catalogue has no '{role.value}' card; add one with role = \"{role.value}\"")

    def deck_cards(self) -> list[str]:
        """Ids of the shuffled station deck: each STATION card `count` times, in file order."""
        return [c.id for c in self.cards.values() if c.role is Role.STATION for _ in range(c.count)]


_ID = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def _enum(cls: type[enum.Enum], value: object, where: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        names = ", ".join(str(m.value) for m in cls)
        raise CouldNotRead(f"{where}: '{value}' is not one of {names}") from None


def _int(raw: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    value = raw.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CouldNotRead(f"{where}: '{key}' must be a whole number >= 0 (got {value!r})")
    return value


def _card(card_id: str, raw: Any) -> StationCard:
    where = f"card '{card_id}'"
    if not _ID.match(card_id):
        raise CouldNotRead(f"{where}: ids are lower-case letters, digits, '-' and '_'")
    if not isinstance(raw, dict):
        raise CouldNotRead(f"{where}: expected a table of fields")
    known = {"name", "type", "points", "capacity", "min_length", "abilities", "count", "role",
             "also_types", "sections"}
    extra = sorted(set(raw) - known)
    if extra:
        raise CouldNotRead(f"{where}: unknown field '{extra[0]}' (fields: {', '.join(sorted(known))})")
    mins_raw = raw.get("min_length", {})
    if not isinstance(mins_raw, dict):
        raise CouldNotRead(f"{where}: 'min_length' must be a table like {{ town = 3 }}")
    mins = {_enum(StationType, k, f"{where} min_length"): _int(mins_raw, k, f"{where} min_length")
            for k in mins_raw}
    abilities: list[Ability] = []
    for i, a in enumerate(raw.get("abilities", [])):
        aw = f"{where} ability {i + 1}"
        if not isinstance(a, dict) or "kind" not in a:
            raise CouldNotRead(f"{aw}: expected {{ kind = \"...\", amount = N }}")
        kind = _enum(AbilityKind, a["kind"], aw)
        st = a.get("station_type")
        stype = _enum(StationType, st, aw) if st is not None else None
        if kind is AbilityKind.END_POINTS_PER_TYPE and stype is None:
            raise CouldNotRead(f"{aw}: end_points_per_type needs station_type")
        abilities.append(Ability(kind, _int(a, "amount", aw), stype))
    name = raw.get("name", card_id)
    if not isinstance(name, str):
        raise CouldNotRead(f"{where}: 'name' must be text")
    also = raw.get("also_types", [])
    if not isinstance(also, list):
        raise CouldNotRead(f"{where}: 'also_types' must be a list like [\"suburban\"]")
    sections = raw.get("sections", [])
    if not isinstance(sections, list) or not all(isinstance(x, str) for x in sections):
        raise CouldNotRead(f"{where}: 'sections' must be a list of card ids like [\"metro-1\"]")
    return StationCard(
        id=card_id, name=name,
        type=_enum(StationType, raw.get("type"), where),
        points=_int(raw, "points", where), capacity=_int(raw, "capacity", where),
        min_length=MappingProxyType(mins), abilities=tuple(abilities),
        count=_int(raw, "count", where, 1),
        role=_enum(Role, raw.get("role", "station"), where),
        also_types=frozenset(_enum(StationType, t, f"{where} also_types") for t in also),
        sections=tuple(sections),
    )


def parse_catalogue(text: str) -> Catalogue:
    """Parse catalogue TOML text; any mistake raises CouldNotRead naming the card and field."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise CouldNotRead(f"railways catalogue is not valid TOML ({e}); fix the file") from None
    cards_raw = data.get("cards")
    if not isinstance(cards_raw, dict):
        raise CouldNotRead("railways catalogue has no [cards.<id>] tables; add at least one card")
    cards = {cid: _card(cid, raw) for cid, raw in cards_raw.items()}
    for card in cards.values():
        for sid in card.sections:
            if sid not in cards:
                raise CouldNotRead(f"card '{card.id}': section '{sid}' is not a card in the catalogue; add it")
    return Catalogue(MappingProxyType(cards))


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def card_to_toml(card: StationCard) -> str:
    """One card as a TOML table, the same shape parse_catalogue reads."""
    lines = [f"[cards.{card.id}]", f"name = {_q(card.name)}", f"type = {_q(card.type.value)}"]
    if card.role is not Role.STATION:
        lines.append(f"role = {_q(card.role.value)}")
    if card.also_types:
        lines.append("also_types = [" + ", ".join(_q(t.value) for t in sorted(card.also_types, key=lambda t: t.value)) + "]")
    if card.sections:
        lines.append("sections = [" + ", ".join(_q(x) for x in card.sections) + "]")
    lines += [f"points = {card.points}", f"capacity = {card.capacity}", f"count = {card.count}"]
    mins = ", ".join(f"{t.value} = {card.min_length[t]}" for t in StationType if t in card.min_length)
    lines.append("min_length = { " + mins + " }" if mins else "min_length = {}")
    if card.abilities:
        parts = []
        for a in card.abilities:
            extra = f", station_type = {_q(a.station_type.value)}" if a.station_type else ""
            parts.append(f"{{ kind = {_q(a.kind.value)}, amount = {a.amount}{extra} }}")
        lines.append("abilities = [" + ", ".join(parts) + "]")
    return "\n".join(lines) + "\n"


def catalogue_to_toml(catalogue: Catalogue, header: str = "") -> str:
    """The whole catalogue as TOML text (comments other than `header` are not kept)."""
    head = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return head + "\n".join(card_to_toml(c) for c in catalogue.cards.values())


def add_card(catalogue: Catalogue, card: StationCard) -> Catalogue:
    """A new catalogue with `card` appended; refuses a duplicate id so nothing is overwritten."""
    if card.id in catalogue.cards:
        raise CouldNotRead(f"card id '{card.id}' is already in the catalogue; pick another id")
    if not _ID.match(card.id):
        raise CouldNotRead(f"card '{card.id}': ids are lower-case letters, digits, '-' and '_'")
    return Catalogue(MappingProxyType({**catalogue.cards, card.id: card}))


def add_card_to_text(text: str, card: StationCard) -> str:
    """Append `card` to catalogue TOML text, keeping the user's comments and layout."""
    add_card(parse_catalogue(text), card)  # validates the text and the id
    sep = "" if text.endswith("\n\n") or not text else ("\n" if text.endswith("\n") else "\n\n")
    return text + sep + card_to_toml(card)


def new_card(card_id: str, name: str, station_type: StationType, points: int, capacity: int,
             min_length: Mapping[StationType, int], free_clips: int = 0,
             end_points: int = 0) -> StationCard:
    """The few fields a person can enter with three buttons when the camera meets a new card."""
    abilities: list[Ability] = []
    if free_clips:
        abilities.append(Ability(AbilityKind.FREE_CLIPS, free_clips))
    if end_points:
        abilities.append(Ability(AbilityKind.END_POINTS, end_points))
    return StationCard(card_id, name, station_type, points, capacity,
                       MappingProxyType(dict(min_length)), tuple(abilities))


def with_count(card: StationCard, count: int) -> StationCard:
    return replace(card, count=count)
