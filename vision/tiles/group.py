"""Group tiles that look alike, without knowing the shapes or colours beforehand.

Average-linkage agglomeration: merge the closest two groups while they are closer
than a threshold (same print, same lamp); when a known number of groups is exceeded,
fold the smallest stray groups into their nearest (_fold). Labels are stable: groups are numbered by their first
member in reading order.

The threshold may be a window instead of a value: the cut then goes in the widest
empty stretch of merge distances inside it. Light and noise move every distance a
little, and a cut where no merge lies near keeps the same groups under another lamp
(one tile changing group spoils the reading of every tile of both groups).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def pairwise(x: NDArray[np.floating[Any]]) -> F64:
    """Euclidean distance matrix of the rows of x."""
    a = np.asarray(x, dtype=np.float64)
    sq = np.sum(a * a, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (a @ a.T)
    return np.asarray(np.sqrt(np.maximum(d2, 0.0)), dtype=np.float64)


def merges(dist: F64) -> list[tuple[int, int, float]]:
    """The whole average-linkage tree: (kept, absorbed, distance) per merge, in order
    (the distances never decrease: average linkage has no inversions)."""
    n = dist.shape[0]
    out: list[tuple[int, int, float]] = []
    if n < 2:
        return out
    # average-linkage distances between current groups, updated by Lance-Williams
    d = dist.astype(np.float64).copy()
    np.fill_diagonal(d, np.inf)
    sizes = np.ones(n)
    alive = np.ones(n, dtype=bool)
    for _ in range(n - 1):
        sub = np.where(alive[:, None] & alive[None, :], d, np.inf)
        flat = int(np.argmin(sub))
        i, j = divmod(flat, n)
        out.append((i, j, float(sub[i, j])))
        ni, nj = sizes[i], sizes[j]
        d[i, :] = (ni * d[i, :] + nj * d[j, :]) / (ni + nj)
        d[:, i] = d[i, :]
        d[i, i] = np.inf
        sizes[i] = ni + nj
        alive[j] = False
    return out


def widest_gap(heights: list[float], lo: float, hi: float) -> float:
    """A cut between lo and hi in the middle of the widest stretch (in log distance)
    holding no merge distance."""
    inside = sorted(h for h in heights if lo < h < hi)
    edges = [math.log(lo)] + [math.log(h) for h in inside] + [math.log(hi)]
    k = max(range(len(edges) - 1), key=lambda i: edges[i + 1] - edges[i])
    return math.exp(0.5 * (edges[k] + edges[k + 1]))


STRAYS_MOST = 2
"""A group of at most this many items is strays to _fold: it may fill a group past its
capacity."""


def _fold(dist: F64, groups: list[list[int]], most: int, capacity: int | None = None) -> list[list[int]]:
    """Merge groups until at most `most` are left, each time the merge that moves the
    fewest tiles the least way: the smaller group's size times the groups' average
    distance. A tile misread on its own makes a group of one beyond a game's count;
    folding it into its nearest group costs that tile, while merging the two closest
    real groups (as average linkage would) costs every pair between them.

    capacity: the most items one group can hold (a box of Town 77 holds each shape in
    seven colours, so eight tiles are never one shape). Two groups of three or more
    that would pass it together are merged only when no other fold is left: two real
    groups alike enough to merge cheaply (squares and circles whose corners blur) are
    then kept apart and the strays folded instead. Strays, one or two, may still fill a
    group past it: a misread tile's nearest group is often a full one, and
    one_of_each then moves whichever of its tiles costs least (refusing them sent them
    into a wrong group of their own: dev city 6026 lost 24 colour pairs).

    The sums of distances between groups are kept in one matrix and added up as groups
    merge: a city misread into forty groups of one would otherwise average each pair's
    block again on every merge (a fifth of the reader's time)."""
    groups = [list(g) for g in groups]
    if len(groups) <= most:
        return groups
    d = np.asarray(dist, dtype=np.float64)
    member = np.zeros((len(groups), d.shape[0]))
    for k, g in enumerate(groups):
        member[k, g] = 1.0
    sums = member @ d @ member.T
    sizes = member.sum(axis=1)
    while len(groups) > most:
        k = len(groups)
        cost = sums / np.outer(sizes, sizes) * np.minimum(sizes[:, None], sizes[None, :])
        cost[np.tril_indices(k)] = np.inf
        if capacity is not None:
            both = np.minimum(sizes[:, None], sizes[None, :]) > STRAYS_MOST
            over = both & ((sizes[:, None] + sizes[None, :]) > capacity)
            if np.any(np.isfinite(cost) & ~over):
                cost[over] = np.inf
        least = float(cost.min())
        # the running sums differ from a block's own mean in the last bits: near ties are
        # weighed again as a block each, so the fold is the one the block means give
        best: tuple[float, int, int] | None = None
        for a, b in np.argwhere(cost <= least + 1e-9 * abs(least) + 1e-12):
            ga, gb = groups[int(a)], groups[int(b)]
            c = float(np.mean(d[np.ix_(ga, gb)])) * min(len(ga), len(gb))
            if best is None or c < best[0]:
                best = (c, int(a), int(b))
        assert best is not None
        _, a, b = best
        groups[a].extend(groups[b])
        del groups[b]
        sums[a, :] += sums[b, :]
        sums[:, a] += sums[:, b]
        sums = np.delete(np.delete(sums, b, axis=0), b, axis=1)
        sizes[a] += sizes[b]
        sizes = np.delete(sizes, b)
    return groups


def agglomerate(dist: F64, threshold: float, max_groups: int | None = None,
                window: tuple[float, float] | None = None, capacity: int | None = None) -> list[int]:
    """Group index per item (0..k-1, numbered by first member).

    window (lo, hi), factors of threshold: cut at widest_gap of the merge distances
    between threshold*lo and threshold*hi instead of at threshold. max_groups: more
    groups than that left at the cut are folded together (_fold), none past `capacity`
    items while another fold is left."""
    return agglomerate_cut(dist, threshold, max_groups, window, capacity)[0]


def agglomerate_cut(dist: F64, threshold: float, max_groups: int | None = None,
                    window: tuple[float, float] | None = None,
                    capacity: int | None = None) -> tuple[list[int], float]:
    """agglomerate's groups and the merge distance it cut the tree at."""
    n = dist.shape[0]
    if n == 0:
        return [], threshold
    tree = merges(dist)
    cut = threshold
    if window is not None and threshold > 0:
        cut = widest_gap([h for _, _, h in tree], threshold * window[0], threshold * window[1])
    groups: list[list[int]] = [[i] for i in range(n)]
    for i, j, h in tree:
        if h > cut:
            break
        groups[i].extend(groups[j])
        groups[j] = []
    kept = [g for g in groups if g]
    if max_groups is not None:
        kept = _fold(dist, kept, max(1, max_groups), capacity)
    label = [0] * n
    order = sorted((min(g), g) for g in kept)
    for k, (_, g) in enumerate(order):
        for m in g:
            label[m] = k
    return label, cut


OWN_GROUP = -1
"""In hesitations: the tile may be of a group of its own (a shape or colour no other
tile on the table shows)."""


def hesitations(dist: F64, labels: list[int], cut: float, hesitate: float, alone: float,
                alone_most: int | None = None, single: float | None = None,
                apart: float | None = None) -> list[list[int]]:
    """Per item, the groups the grouping hesitated to put it in instead of its own.

    Runner-up: the nearest other group (average distance to its members) when it lies
    less than `hesitate` times as far as the item's own group does. OWN_GROUP: the item's
    average distance to the rest of its group is more than `alone` of the cut (a tile of
    a shape or colour no other tile shows, grouped with the nearest ones), or, with
    `apart`, its distance to any one of them is more than `apart` of the cut (a group
    chained through a middle tile hides the one far pair in its mean), only in groups
    of at most `alone_most` items (None: any size). A group of one is already its own
    group; with `single` it lists the nearest other group when that lies less than
    `single` of the cut away (a tile the cut left alone by a little: on a small city one
    shape's two prints are split by a lamp's spot or a blur, and an illegal tile read as
    a shape or colour of its own would be applied unasked)."""
    lab = np.asarray(labels, dtype=np.int64)
    n = lab.shape[0]
    out: list[list[int]] = [[] for _ in range(n)]
    if n < 2:
        return out
    d = np.asarray(dist, dtype=np.float64)
    groups = sorted(set(lab.tolist()))
    for i in range(n):
        mates = lab == lab[i]
        mates[i] = False
        size = int(np.count_nonzero(mates))
        others = [(float(np.mean(d[i, lab == g])), g) for g in groups if g != lab[i]]
        near, g = min(others) if others else (math.inf, -1)
        if size == 0:
            if single is not None and cut > 0 and near < single * cut:
                out[i].append(int(g))
            continue
        own = float(np.mean(d[i, mates]))
        if own > 0 and near < hesitate * own:
            out[i].append(int(g))
        far = own > alone * cut or (apart is not None and float(np.max(d[i, mates])) > apart * cut)
        if cut > 0 and far and (alone_most is None or size + 1 <= alone_most):
            out[i].append(OWN_GROUP)
    return out


def one_of_each(shape_dist: F64, colour_dist: F64, shapes: list[int], colours: list[int],
                cuts: tuple[float, float], copies: int, most: tuple[int | None, int | None],
                dearest: float) -> tuple[list[int], list[int]]:
    """Shape and colour groups with no (shape, colour) pair held by more than `copies`
    items: the box of a game like Town 77 holds each pair once, so two tiles read alike
    in both show that one of them is in a wrong group.

    While a pair is over-full, the cheapest move of one of its items to another shape
    group or another colour group whose pair has room is made: its average distance to
    the new group less that to its own, in units of that grouping's cut (a group of one,
    or a new group while fewer than `most` exist, counts as the cut away). A move dearer
    than `dearest` is not made: the pair then stays over-full, as read."""
    sg, cg = list(shapes), list(colours)
    n = len(sg)
    dists = (np.asarray(shape_dist, dtype=np.float64), np.asarray(colour_dist, dtype=np.float64))
    for _ in range(n):
        count: dict[tuple[int, int], int] = {}
        for pair in zip(sg, cg):
            count[pair] = count.get(pair, 0) + 1
        full = {p for p, k in count.items() if k > copies}
        if not full:
            break
        best: tuple[float, int, int, int] | None = None        # cost, item, kind, group
        # this round's labels and the groups a tile may move to, a group of its own too
        # while fewer than `most` exist
        rounds = []
        for lab, cap in ((sg, most[0]), (cg, most[1])):
            groups = sorted(set(lab))
            if cap is None or len(groups) < cap:
                groups.append(max(groups) + 1)
            rounds.append((np.asarray(lab), groups))
        for i in range(n):
            if (sg[i], cg[i]) not in full:
                continue
            for kind, lab in ((0, sg), (1, cg)):
                d, cut = dists[kind], cuts[kind]
                labels, groups = rounds[kind]
                mates = labels == lab[i]
                mates[i] = False
                own = float(np.mean(d[i, mates])) if mates.any() else cut
                for g in groups:
                    if g == lab[i]:
                        continue
                    pair = (g, cg[i]) if kind == 0 else (sg[i], g)
                    if count.get(pair, 0) >= copies:
                        continue
                    members = labels == g
                    new = float(np.mean(d[i, members])) if members.any() else cut
                    cost = (new - own) / cut
                    if best is None or cost < best[0]:
                        best = (cost, i, kind, g)
        if best is None or best[0] > dearest:
            break
        _, i, kind, g = best
        (sg if kind == 0 else cg)[i] = g
    return _renumbered(sg), _renumbered(cg)


def _renumbered(labels: list[int]) -> list[int]:
    """Groups numbered by their first member, as agglomerate numbers them."""
    order: dict[int, int] = {}
    for g in labels:
        order.setdefault(g, len(order))
    return [order[g] for g in labels]
