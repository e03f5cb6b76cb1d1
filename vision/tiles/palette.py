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


def name_groups(tiles: Sequence[_Named], palette: dict[str, Any], angles: int = 64,
                max_shift: int = 2) -> None:
    """Set each face-up tile's shape and colour to the palette label of its group."""
    from vision.tiles.face import shape_distances

    for kind, key, attr, out in (("shapes", "descriptor", "shape_group", "shape"),
                                 ("colours", "lab", "colour_group", "colour")):
        names, protos = prototypes(palette, kind, key)
        members: dict[int, list[Any]] = {}
        for t in tiles:
            gid = getattr(t, attr)
            if gid is not None:
                members.setdefault(int(gid), []).append(t)
        if not members:
            continue
        gids = sorted(members)
        rows = []
        for g in gids:
            if kind == "shapes":
                vecs = np.array([m.look.shape for m in members[g]], dtype=np.float32)
                if vecs.shape[1] != protos.shape[1]:
                    raise ReadError("palette [shapes] was taught with another descriptor size; "
                                    "teach it again with 'tableref teach'")
                d = shape_distances(vecs, protos.astype(np.float32), angles, max_shift)
                rows.append(np.median(d, axis=0))
            else:
                lab = np.mean([np.asarray(m.colour_lab, dtype=np.float64) for m in members[g]], axis=0)
                rows.append(np.linalg.norm(protos - lab, axis=1))
        label = dict(zip(gids, (names[i] for i in assign(np.array(rows)))))
        for t in tiles:
            gid = getattr(t, attr)
            if gid is not None:
                setattr(t, out, label[int(gid)])
