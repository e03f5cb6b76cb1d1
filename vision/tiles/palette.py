"""Taught palettes for tiles: one shape descriptor and one colour per label, and the
naming of the reader's groups with them.

Groups are named as wholes (not tile by tile), each label at most once while labels
last, because the grouping is the reader's most reliable output: a palette only has
to say which group is which.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

import numpy as np
from numpy.typing import NDArray

from vision.api import ReadError

F64 = NDArray[np.float64]


class _Named(Protocol):
    shape_group: int | None
    colour_group: int | None
    shape: str | None
    colour: str | None

    @property
    def look(self) -> Any: ...


def prototypes(palette: dict[str, Any], kind: str, key: str) -> tuple[list[str], F64]:
    """Labels and prototype vectors of one kind ("shapes"/"descriptor", "colours"/"lab")."""
    table = palette.get(kind)
    if not isinstance(table, dict) or not table:
        raise ReadError(f"palette has no [{kind}] table; teach it again with 'tableref teach'")
    names: list[str] = []
    vecs: list[list[float]] = []
    for name, entry in table.items():
        if not isinstance(entry, dict) or key not in entry:
            raise ReadError(f"palette [{kind}.{name}] has no '{key}'; teach it again with 'tableref teach'")
        names.append(str(name))
        vecs.append([float(v) for v in entry[key]])
    if len({len(v) for v in vecs}) != 1:
        raise ReadError(f"palette [{kind}] entries differ in length; teach it again with 'tableref teach'")
    return names, np.array(vecs, dtype=np.float64)


def assign(dist: F64) -> list[int]:
    """Label index per group: closest pairs first, each label once while labels last."""
    g, k = dist.shape
    out = [-1] * g
    used: set[int] = set()
    order = np.dstack(np.unravel_index(np.argsort(dist, axis=None), dist.shape))[0]
    for gi, li in order:
        if out[gi] == -1 and int(li) not in used:
            out[gi] = int(li)
            used.add(int(li))
    for gi in range(g):
        if out[gi] == -1:
            out[gi] = int(np.argmin(dist[gi]))
    return out


def _means(tiles: Sequence[_Named], attr: str, value: str) -> dict[int, F64]:
    acc: dict[int, list[F64]] = {}
    for t in tiles:
        gid = getattr(t, attr)
        if gid is not None:
            src = t if hasattr(t, value) else t.look
            acc.setdefault(int(gid), []).append(np.asarray(getattr(src, value), dtype=np.float64))
    return {k: np.mean(np.array(v), axis=0) for k, v in acc.items()}


def name_groups(tiles: Sequence[_Named], palette: dict[str, Any]) -> None:
    """Set each face-up tile's shape and colour to the palette label of its group."""
    for kind, key, attr, value, out in (("shapes", "descriptor", "shape_group", "shape", "shape"),
                                        ("colours", "lab", "colour_group", "colour_lab", "colour")):
        names, protos = prototypes(palette, kind, key)
        means = _means(tiles, attr, value)
        if not means:
            continue
        gids = sorted(means)
        m = np.array([means[g] for g in gids])
        if m.shape[1] != protos.shape[1]:
            raise ReadError(f"palette [{kind}] was taught with another descriptor size; "
                            "teach it again with 'tableref teach'")
        dist = np.linalg.norm(m[:, None, :] - protos[None, :, :], axis=2)
        label = dict(zip(gids, (names[i] for i in assign(dist))))
        for t in tiles:
            gid = getattr(t, attr)
            if gid is not None:
                setattr(t, out, label[int(gid)])
