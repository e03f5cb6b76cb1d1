"""Table profiles: where the corner markers are, the play area, an optional fixed
homography and lens, persisted as TOML so a club calibrates once and keeps it."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

PROFILE_DIR = Path(__file__).with_name("profiles")
ARUCO_DICTIONARY = "DICT_4X4_50"


class ProfileError(ValueError):
    """A profile file that cannot be used; the message names the file and the fix."""


@dataclass(frozen=True)
class Marker:
    """One printed ArUco marker, axis-aligned with the table frame (x right, y down)."""

    id: int
    size_mm: float
    centre_mm: tuple[float, float]

    def corners_mm(self) -> list[tuple[float, float]]:
        """Outer corners in ArUco order: top-left, top-right, bottom-right, bottom-left."""
        h = self.size_mm / 2.0
        x, y = self.centre_mm
        return [(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)]


@dataclass(frozen=True)
class Lens:
    """Pinhole intrinsics and OpenCV distortion coefficients for one image size."""

    image_size: tuple[int, int]
    camera_matrix: tuple[tuple[float, ...], ...]
    dist_coeffs: tuple[float, ...]
    rms_px: float = math.nan


@dataclass(frozen=True)
class TableProfile:
    """The table frame: origin at marker 0's centre, millimetres, x right, y down."""

    name: str
    markers: tuple[Marker, ...]
    area_origin_mm: tuple[float, float] = (0.0, 0.0)
    area_size_mm: tuple[float, float] = (400.0, 400.0)
    dictionary: str = ARUCO_DICTIONARY
    homography: tuple[tuple[float, ...], ...] | None = None
    lens: Lens | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    def marker(self, marker_id: int) -> Marker | None:
        for m in self.markers:
            if m.id == marker_id:
                return m
        return None

    def with_homography(self, h: Any) -> "TableProfile":
        rows = tuple(tuple(float(v) for v in row) for row in h)
        return replace(self, homography=rows)

    def with_lens(self, lens: Lens | None) -> "TableProfile":
        return replace(self, lens=lens)


def _need(d: dict[str, Any], key: str, where: str) -> Any:
    if key not in d:
        raise ProfileError(f"{where}: missing '{key}'; add it (see docs/calibration.md, 'Profile file')")
    return d[key]


def _pair(value: Any, where: str) -> tuple[float, float]:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, (int, float)) for v in value)):
        raise ProfileError(f"{where}: expected two numbers like [120.0, 80.0], got {value!r}")
    return (float(value[0]), float(value[1]))


def _matrix(value: Any, rows: int, cols: int, where: str) -> tuple[tuple[float, ...], ...]:
    ok = (isinstance(value, list) and len(value) == rows and all(
        isinstance(r, list) and len(r) == cols and all(isinstance(v, (int, float)) for v in r)
        for r in value))
    if not ok:
        raise ProfileError(f"{where}: expected a {rows}x{cols} list of numbers")
    return tuple(tuple(float(v) for v in r) for r in value)


def profile_from_dict(data: dict[str, Any], where: str) -> TableProfile:
    """Build a profile from parsed TOML; `where` (the file name) prefixes every error."""
    table = data.get("table", {})
    if not isinstance(table, dict):
        raise ProfileError(f"{where}: [table] must be a table")
    markers = []
    seen: set[int] = set()
    for i, m in enumerate(data.get("markers", [])):
        w = f"{where}: [[markers]] #{i + 1}"
        mid = _need(m, "id", w)
        if not isinstance(mid, int) or not 0 <= mid < 50:
            raise ProfileError(f"{w}: id must be an integer 0..49 (DICT_4X4_50), got {mid!r}")
        if mid in seen:
            raise ProfileError(f"{w}: marker id {mid} is listed twice; give each marker its own id")
        seen.add(mid)
        size = _need(m, "size_mm", w)
        if not isinstance(size, (int, float)) or size <= 0:
            raise ProfileError(f"{w}: size_mm must be a positive number, got {size!r}")
        markers.append(Marker(mid, float(size), _pair(_need(m, "centre_mm", w), f"{w} centre_mm")))
    homography = None
    if "homography" in data:
        homography = _matrix(data["homography"].get("image_to_table"), 3, 3,
                             f"{where}: [homography] image_to_table")
    if not markers and homography is None:
        raise ProfileError(f"{where}: no [[markers]] and no [homography]; "
                           "list the corner markers or run 'tableref calibrate table'")
    lens = None
    if "lens" in data:
        ld = data["lens"]
        w = f"{where}: [lens]"
        size = _pair(_need(ld, "image_size", w), f"{w} image_size")
        lens = Lens((int(size[0]), int(size[1])),
                    _matrix(_need(ld, "camera_matrix", w), 3, 3, f"{w} camera_matrix"),
                    tuple(float(v) for v in _need(ld, "dist_coeffs", w)),
                    float(ld.get("rms_px", math.nan)))
    area = table.get("area_size_mm", [400.0, 400.0])
    origin = table.get("area_origin_mm", [0.0, 0.0])
    known = {"table", "markers", "homography", "lens"}
    return TableProfile(
        name=str(table.get("name", where)),
        markers=tuple(markers),
        area_origin_mm=_pair(origin, f"{where}: [table] area_origin_mm"),
        area_size_mm=_pair(area, f"{where}: [table] area_size_mm"),
        dictionary=str(table.get("dictionary", ARUCO_DICTIONARY)),
        homography=homography,
        lens=lens,
        extra={k: v for k, v in data.items() if k not in known},
    )


def load_profile(path: str | Path) -> TableProfile:
    """Read a profile; every failure is a ProfileError naming the file (and line for syntax)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"{p}: profile not found; check the path or run 'tableref calibrate table'") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ProfileError(f"{p}: cannot read profile ({e.__class__.__name__}); check the file") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ProfileError(f"{p}: TOML syntax error: {e}; fix that line") from None
    prof = profile_from_dict(data, str(p))
    return replace(prof, path=p)


def default_profile(game: str) -> TableProfile:
    """The shipped profile for a game (the printed marker sheet's layout)."""
    p = PROFILE_DIR / f"{game}.toml"
    if not p.exists():
        p = PROFILE_DIR / "default.toml"
    return load_profile(p)


def _fmt(v: float) -> str:
    return repr(float(v))


def dumps_profile(profile: TableProfile) -> str:
    """TOML text for a profile (hand-written: the stdlib reads TOML but cannot write it)."""
    out = ["[table]", f'name = "{profile.name}"', f'dictionary = "{profile.dictionary}"',
           f"area_origin_mm = [{_fmt(profile.area_origin_mm[0])}, {_fmt(profile.area_origin_mm[1])}]",
           f"area_size_mm = [{_fmt(profile.area_size_mm[0])}, {_fmt(profile.area_size_mm[1])}]", ""]
    for m in profile.markers:
        out += ["[[markers]]", f"id = {m.id}", f"size_mm = {_fmt(m.size_mm)}",
                f"centre_mm = [{_fmt(m.centre_mm[0])}, {_fmt(m.centre_mm[1])}]", ""]
    if profile.homography is not None:
        rows = ", ".join("[" + ", ".join(_fmt(v) for v in r) + "]" for r in profile.homography)
        out += ["[homography]", f"image_to_table = [{rows}]", ""]
    if profile.lens is not None:
        L = profile.lens
        rows = ", ".join("[" + ", ".join(_fmt(v) for v in r) + "]" for r in L.camera_matrix)
        out += ["[lens]", f"image_size = [{L.image_size[0]}, {L.image_size[1]}]",
                f"camera_matrix = [{rows}]",
                "dist_coeffs = [" + ", ".join(_fmt(v) for v in L.dist_coeffs) + "]",
                f"rms_px = {_fmt(L.rms_px) if not math.isnan(L.rms_px) else 'nan'}", ""]
    return "\n".join(out)


def save_profile(profile: TableProfile, path: str | Path) -> None:
    """Write atomically (temp file, fsync, rename) so a power cut never leaves half a profile."""
    import os

    p = Path(path)
    tmp = p.with_suffix(p.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps_profile(profile))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, p)
