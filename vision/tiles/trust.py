"""Which read tiles to believe: a blank square alone proves nothing.

On a sparse table the lattice is guessed from little evidence and the bare table
(wood grain, a cutting mat, a light gradient, a hand) offers plenty of plain patches
unlike its median colour. A tile's back has no print of its own, so it is only
believed where the game puts backs: side by side with the city, which is always
anchored by a face-up tile (Town 77 turns over tiles already in the city; a generic
tile game with no face-up tile at all gives nothing to read)."""

from __future__ import annotations

from collections import deque
from typing import Protocol, Sequence, TypeVar


class _Cell(Protocol):
    @property
    def col(self) -> int: ...

    @property
    def row(self) -> int: ...


T = TypeVar("T", bound=_Cell)

# (col, row) steps to the four cells that share a side with a cell: the only neighbours
# the game joins tiles by (a diagonal neighbour touches no side)
SIDE_STEPS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))


def side_groups(tiles: Sequence[_Cell]) -> list[set[int]]:
    """Indices of the tiles joined side by side, through tiles, one set per group (in
    order of each group's first tile)."""
    at = {(t.col, t.row): i for i, t in enumerate(tiles)}
    groups: list[set[int]] = []
    seen: set[int] = set()
    for start in range(len(tiles)):
        if start in seen:
            continue
        group = {start}
        todo = deque([start])
        while todo:
            t = tiles[todo.popleft()]
            for dc, dr in SIDE_STEPS:
                j = at.get((t.col + dc, t.row + dr))
                if j is not None and j not in group:
                    group.add(j)
                    todo.append(j)
        seen |= group
        groups.append(group)
    return groups


def anchored(tiles: Sequence[T], face_up: Sequence[bool]) -> list[T]:
    """The tiles joined side by side, through tiles, to a face-up tile (face-up tiles
    included); none at all when no tile is face up."""
    keep: set[int] = set()
    for group in side_groups(tiles):
        if any(face_up[i] for i in group):
            keep |= group
    return [t for i, t in enumerate(tiles) if i in keep]
