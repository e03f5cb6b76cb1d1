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


ASSIGN_EXACT_MOST = 12
"""Up to this many labels (or groups) the naming is the best one over all (a search over
subsets, 2**12 states); beyond, closest pairs first."""


def assign(dist: F64) -> list[int]:
    """Label index per group, each label once while labels last, the names together as
    near their groups as can be: the least product of distances (sum of logs).
    Closest pairs first will not do: a group of circles a little nearer the hexagon's
    prototype than the circle's takes it, and the hexagons are left the circle (a
    teaching row's one print each is a rough prototype). Nor the least sum: a group
    near no label (a colour split in two, city 5013's lone blue) would pass its
    distance down a chain of well-named groups; in the product each group weighs by
    how many times its nearest label it is given. Groups beyond the labels take their
    nearest label."""
    g, k = dist.shape
    if g == 0:
        return []
    if max(g, k) <= ASSIGN_EXACT_MOST:
        pairs = _least_sum(np.log(np.maximum(np.asarray(dist, dtype=np.float64), 1e-12)))
    else:
        pairs = _closest_first(dist)
    out = [-1] * g
    for gi, li in pairs:
        out[gi] = li
    for gi in range(g):
        if out[gi] == -1:
            out[gi] = int(np.argmin(dist[gi]))
    return out


def _closest_first(dist: F64) -> list[tuple[int, int]]:
    """(group, label) pairs taken closest first, each group and label once."""
    pairs: list[tuple[int, int]] = []
    used_g: set[int] = set()
    used_l: set[int] = set()
    order = np.dstack(np.unravel_index(np.argsort(dist, axis=None, kind="stable"), dist.shape))[0]
    for gi, li in order:
        if int(gi) not in used_g and int(li) not in used_l:
            pairs.append((int(gi), int(li)))
            used_g.add(int(gi))
            used_l.add(int(li))
    return pairs


def _least_sum(dist: F64) -> list[tuple[int, int]]:
    """min(g, k) (group, label) pairs, each group and label once, of least summed
    distance: a search over the subsets of the longer side, row by row of the shorter
    (ties go to the lower index, so the naming is the same on every machine)."""
    d = np.asarray(dist, dtype=np.float64)
    flip = d.shape[0] > d.shape[1]
    if flip:
        d = d.T
    rows, cols = d.shape                      # rows <= cols: each row takes its own column
    inf = float("inf")
    best: dict[int, float] = {0: 0.0}
    back: list[dict[int, tuple[int, int]]] = []
    for r in range(rows):
        nxt: dict[int, float] = {}
        came: dict[int, tuple[int, int]] = {}
        for used in sorted(best):
            base = best[used]
            for c in range(cols):
                if used >> c & 1:
                    continue
                key = used | (1 << c)
                v = base + float(d[r, c])
                if v < nxt.get(key, inf):
                    nxt[key] = v
                    came[key] = (used, c)
        best = nxt
        back.append(came)
    state = min(best, key=lambda key: (best[key], key))
    pairs: list[tuple[int, int]] = []
    for r in range(rows - 1, -1, -1):
        used, c = back[r][state]
        pairs.append((c, r) if flip else (r, c))
        state = used
    return pairs


OWN_NEARER = 0.7
"""A tile whose own nearest prototype lies under this share of its distance to its
group's is named by its own (name_groups)."""


def name_groups(tiles: Sequence[_Named], palette: dict[str, Any], angles: int = 64,
                max_shift: int = 2, own_nearer: float = OWN_NEARER) -> None:
    """Set each face-up tile's shape and colour to the palette label of its group, or of
    its own nearest prototype where that is much the nearer (under `own_nearer` of its
    distance to the group's): the grouping still puts a misread print or two in a group
    of another shape (labels bench city 5048: two squares among three circles), and a
    prototype taught from a clear print tells them apart. Labels bench, cities
    5000-5099: 90.39 -> 91.75% of tiles named right. The groups stay as read: a
    group's label is what most of its tiles carry (reader._group_names)."""
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
        own: dict[int, F64] = {}          # id(tile) -> its distances to every prototype
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
                labs = np.array([np.asarray(m.colour_lab, dtype=np.float64) for m in members[g]])
                d = np.linalg.norm(labs[:, None, :] - protos[None, :, :], axis=2)
                rows.append(np.linalg.norm(protos - labs.mean(axis=0), axis=1))
            own.update((id(m), row) for m, row in zip(members[g], d))
        label = dict(zip(gids, assign(np.array(rows))))
        for t in tiles:
            gid = getattr(t, attr)
            if gid is None:
                continue
            li = label[int(gid)]
            row = own[id(t)]
            best = int(np.argmin(row))
            setattr(t, out, names[best] if row[best] < own_nearer * row[li] else names[li])
