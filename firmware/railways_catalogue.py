"""Reads and writes the Paperclip Railways station catalogue (rules/ does no I/O).

The shipped catalogue (rules/railways/catalogue.toml) holds placeholder values; a club's
own copy lives at USER_PATH and wins when present. Cards entered on the device are
appended to the user copy, keeping the club's comments.
"""

from __future__ import annotations

import os
from pathlib import Path

from rules.errors import CouldNotRead
from rules.railways.cards import Catalogue, StationCard, add_card_to_text, parse_catalogue

SHIPPED_PATH = Path(__file__).resolve().parents[1] / "rules" / "railways" / "catalogue.toml"
USER_PATH = Path(os.environ.get("TABLEREF_RAILWAYS_CATALOGUE",
                                "/etc/tableref/railways-catalogue.toml"))


class CatalogueError(ValueError):
    """A catalogue file that cannot be used; one line naming the file and the fix."""


def catalogue_path(path: Path | None = None) -> Path:
    """The file in use: the one asked for, else the club's copy, else the shipped one."""
    if path is not None:
        return path
    return USER_PATH if USER_PATH.exists() else SHIPPED_PATH


def load_catalogue(path: Path | None = None) -> Catalogue:
    where = catalogue_path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except OSError as e:
        raise CatalogueError(f"{where}: cannot read the railways catalogue ({e.strerror}); "
                             "check the path or copy rules/railways/catalogue.toml there") from None
    try:
        return parse_catalogue(text)
    except CouldNotRead as e:
        raise CatalogueError(f"{where}: {e}") from None


def save_new_card(card: StationCard, path: Path | None = None) -> Path:
    """Append a card entered on the device to the club's catalogue (created from the shipped
    one on first use) and return the file written."""
    target = path or USER_PATH
    source = target if target.exists() else SHIPPED_PATH
    try:
        text = add_card_to_text(source.read_text(encoding="utf-8"), card)
    except CouldNotRead as e:
        raise CatalogueError(f"{source}: {e}") from None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    except OSError as e:
        raise CatalogueError(f"{target}: cannot save the new card ({e.strerror}); "
                             "set TABLEREF_RAILWAYS_CATALOGUE to a writable file") from None
    return target
