"""Taught palettes as TOML: each game reader decides what goes in (colour prototypes,
shape descriptors, card features); this module only keeps them safe on disk and
turns every bad file into one line naming the file and the fix.

Convention read by `tableref calibrate check`: colour prototypes under "colours",
one table per name with "lab" = [L, a, b] (CIE L*a*b*, L 0..100) and/or
"bgr" = [b, g, r] (0..255, normalised frame).
"""

from __future__ import annotations

import itertools
import math
import os
import tomllib
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from calibration.profile import ProfileError


class PaletteError(ProfileError):
    """A palette file that cannot be used (a ProfileError so the CLI prints one line)."""


def _key(k: str) -> str:
    if k and all(c.isalnum() or c in "-_" for c in k):
        return k
    return '"' + k.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _value(v: Any, where: str) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return repr(f)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, np.ndarray):
        return _value(v.tolist(), where)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, where) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_key(str(k))} = {_value(x, where)}" for k, x in v.items()) + "}"
    if v is None:
        raise PaletteError(f"{where}: None cannot be stored in TOML; leave the key out")
    raise PaletteError(f"{where}: cannot store a {type(v).__name__} in a palette")


def _emit(table: Mapping[str, Any], prefix: str, out: list[str]) -> None:
    plain = [(k, v) for k, v in table.items() if not isinstance(v, Mapping)]
    nested = [(k, v) for k, v in table.items() if isinstance(v, Mapping)]
    for k, v in plain:
        out.append(f"{_key(str(k))} = {_value(v, prefix + str(k))}")
    for k, v in nested:
        name = f"{prefix}.{_key(str(k))}" if prefix else _key(str(k))
        out += ["", f"[{name}]"]
        _emit(v, name, out)


def dumps_palette(palette: Mapping[str, Any]) -> str:
    """TOML text for a palette (nested tables, arrays, numbers, strings, booleans)."""
    out: list[str] = []
    _emit(palette, "", out)
    return "\n".join(out).lstrip("\n") + "\n"


def save_palette(palette: Mapping[str, Any], path: str | Path) -> None:
    """Write atomically; the palette must name its game (palette["game"])."""
    p = Path(path)
    if not isinstance(palette.get("game"), str):
        raise PaletteError(f"{p}: a palette needs a 'game' name; set palette['game']")
    text = dumps_palette(palette)
    tmp = p.with_suffix(p.suffix + ".tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, p)
    except OSError as e:
        raise PaletteError(f"{p}: cannot write palette ({e.strerror}); check the folder") from None


def load_palette(path: str | Path, game: str | None = None) -> dict[str, Any]:
    """Read a palette; with `game`, also check it was taught for that game."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PaletteError(f"{p}: palette not found; check the path or run 'tableref teach'") from None
    except IsADirectoryError:
        raise PaletteError(f"{p}: is a folder, not a palette file; give the .toml file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PaletteError(f"{p}: cannot read palette ({e.__class__.__name__}); check the file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PaletteError(f"{p}: TOML syntax error: {e}; fix that line or teach again") from None
    name = data.get("game")
    if not isinstance(name, str):
        raise PaletteError(f"{p}: missing 'game' name; teach again with 'tableref teach'")
    if game is not None and name != game:
        raise PaletteError(f"{p}: taught for '{name}', not '{game}'; "
                           f"run 'tableref teach --game {game}'")
    return data


def _lab_of(entry: Any) -> tuple[float, float, float] | None:
    if isinstance(entry, Mapping):
        if "lab" in entry:
            v = entry["lab"]
            return (float(v[0]), float(v[1]), float(v[2]))
        if "bgr" in entry:
            entry = entry["bgr"]
    if isinstance(entry, (list, tuple)) and len(entry) == 3:
        import cv2

        px = np.array([[entry]], dtype=np.float32) / 255.0
        lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0, 0]
        return (float(lab[0]), float(lab[1]), float(lab[2]))
    return None


def colour_margins(palette: Mapping[str, Any]) -> list[tuple[str, str, float]]:
    """Pairs of taught colours with their CIE76 distance, closest pair first: a margin
    under about 10 means two colours that the next lamp may confuse."""
    colours = palette.get("colours", {})
    if not isinstance(colours, Mapping):
        return []
    labs = {str(k): lab for k, v in colours.items() if (lab := _lab_of(v)) is not None}
    pairs = [(a, b, math.dist(labs[a], labs[b])) for a, b in itertools.combinations(sorted(labs), 2)]
    return sorted(pairs, key=lambda t: t[2])
