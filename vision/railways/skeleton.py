"""Centre lines of band-shaped blobs: thinning, the pixel graph, spur pruning and the
pairing of branches at crossings into smooth paths.

Why pair at junctions: two links of one player may cross; their bands merge into one X
shaped blob whose skeleton has a 4-way junction. Each link continues straight through
it, so branches are paired by direction, the straightest pairs first.
"""

from __future__ import annotations

from typing import Any
import math

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[Any]
Path = NDArray[Any]

_NB = [(-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1)]


def _zs_rule(code: int, step: int) -> bool:
    """Zhang-Suen's deletion test for one neighbourhood (bit i of `code` is p2..p9,
    clockwise from north), for sub-iteration `step`."""
    p = [(code >> i) & 1 for i in range(8)]
    b = sum(p)
    a = sum(1 for i in range(8) if p[i] == 0 and p[(i + 1) % 8] == 1)
    p2, p4, p6, p8 = p[0], p[2], p[4], p[6]
    if step == 0:
        c1 = p2 * p4 * p6 == 0
        c2 = p4 * p6 * p8 == 0
    else:
        c1 = p2 * p4 * p8 == 0
        c2 = p2 * p6 * p8 == 0
    return 2 <= b <= 6 and a == 1 and c1 and c2


_ZS_LUT = [np.array([_zs_rule(c, s) for c in range(256)], dtype=bool) for s in (0, 1)]
_ZS_OFFSETS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))


def thinning(mask: U8) -> U8:
    """Zhang-Suen thinning of a 0/1 mask: each sub-iteration codes the eight neighbours of
    every remaining foreground pixel as one byte and looks the deletion test up in a
    table (a chain's crop is mostly background, so only its own pixels are visited)."""
    img = np.pad((mask > 0).astype(np.uint8), 1)
    w = img.shape[1]
    flat = img.reshape(-1)
    offs = [dy * w + dx for dy, dx in _ZS_OFFSETS]
    fg = np.flatnonzero(flat)
    changed = True
    while changed:
        changed = False
        for step in (0, 1):
            code = np.zeros(len(fg), np.uint8)
            for bit, off in enumerate(offs):
                code |= flat[fg + off] << np.uint8(bit)
            rem = _ZS_LUT[step][code]
            if rem.any():
                flat[fg[rem]] = 0
                fg = fg[~rem]
                changed = True
    return np.asarray(img[1:-1, 1:-1], dtype=np.uint8)


def _corner_rule(code: int) -> bool:
    """Whether a skeleton pixel with neighbours `code` (bit i: _ZS_OFFSETS[i], clockwise
    from north) is a staircase corner that may go: two of its 4-neighbours at a right
    angle are set (N and E, E and S, ...), its set neighbours are one 8-connected piece
    (so the line stays connected without it), it is no end (two or more set) and one of
    its 4-neighbours is clear (no hole is made)."""
    p = [(code >> i) & 1 for i in range(8)]
    n, e, s, w = p[0], p[2], p[4], p[6]
    corner = (n and e) or (e and s) or (s and w) or (w and n)
    if not corner or sum(p) < 2 or (n and e and s and w):
        return False
    on = [i for i in range(8) if p[i]]
    # ring positions are 8-adjacent when next to each other, or two apart through a corner
    # position (an orthogonal pair: N and E touch diagonally)
    seen = {on[0]}
    todo = [on[0]]
    while todo:
        i = todo.pop()
        for j in on:
            if j in seen:
                continue
            d = (j - i) % 8
            if d in (1, 7) or (d in (2, 6) and i % 2 == 0):
                seen.add(j)
                todo.append(j)
    return len(seen) == len(on)


_CORNER_LUT = np.array([_corner_rule(c) for c in range(256)], dtype=bool)


def unstair(sk: U8) -> U8:
    """The skeleton without the redundant corner pixels Zhang-Suen leaves on diagonal
    lines at some headings (a staircase two pixels thick), taken one at a time in raster
    order until none is left. Why: every such step is a three-way node, so a short
    chain's line became a row of junctions a pixel or two apart, contracted into one node
    and lost with its spurs (a link between two cards a clip or two apart was never
    traced: a 30 mm band at 30 or 60 degrees gave no path at all)."""
    img = np.pad((sk > 0).astype(np.uint8), 1)
    w = img.shape[1]
    flat = img.reshape(-1)
    offs = np.array([dy * w + dx for dy, dx in _ZS_OFFSETS], dtype=np.int64)
    fg = np.flatnonzero(flat)
    removed = True
    while removed:                          # a removal may make a later pixel a corner
        removed = False
        code = np.zeros(len(fg), np.uint8)
        for bit, off in enumerate(offs.tolist()):
            code |= flat[fg + off] << np.uint8(bit)
        cand = fg[_CORNER_LUT[code]]
        for q in cand.tolist():             # one at a time: two neighbours may not both go
            c = 0
            for bit, off in enumerate(offs.tolist()):
                c |= int(flat[q + off]) << bit
            if _CORNER_LUT[c]:
                flat[q] = 0
                removed = True
        if removed:
            fg = fg[flat[fg] > 0]
    return np.asarray(img[1:-1, 1:-1], dtype=np.uint8)


def _neighbours(sk: U8, y: int, x: int) -> list[tuple[int, int]]:
    h, w = sk.shape
    out = []
    for dy, dx in _NB:
        yy, xx = y + dy, x + dx
        if 0 <= yy < h and 0 <= xx < w and sk[yy, xx]:
            out.append((yy, xx))
    return out


def graph_edges(sk: U8) -> tuple[list[list[tuple[int, int]]], set[tuple[int, int]]]:
    """Edges (pixel lists from node to node) and the node pixels of a skeleton."""
    ys, xs = np.nonzero(sk)
    pix = set(zip(ys.tolist(), xs.tolist()))
    # every pixel's neighbour count at once (a 3x3 sum without the centre)
    ring = np.ones((3, 3), np.float32)
    ring[1, 1] = 0
    counts = cv2.filter2D((sk > 0).astype(np.uint8), cv2.CV_16S, ring, borderType=cv2.BORDER_CONSTANT)
    nodes = {p for p in pix if counts[p] != 2}
    edges: list[list[tuple[int, int]]] = []
    seen: set[tuple[tuple[int, int], tuple[int, int]]] = set()
    for n in nodes:
        for nb in _neighbours(sk, n[0], n[1]):
            if (n, nb) in seen:
                continue
            path = [n, nb]
            prev: tuple[int, int] | None = n
            cur = nb
            while cur not in nodes:
                nxt = [q for q in _neighbours(sk, cur[0], cur[1]) if q != prev and q not in path[-3:]]
                if not nxt:
                    break
                prev, cur = cur, nxt[0]
                path.append(cur)
            seen.add((n, nb))
            if len(path) >= 2:
                seen.add((path[-1], path[-2]))
            edges.append(path)
    if not nodes and pix:          # a closed loop: cut it anywhere
        start = next(iter(pix))
        path = [start]
        prev = None
        cur = start
        while True:
            nxt = [q for q in _neighbours(sk, cur[0], cur[1]) if q != prev and q not in path]
            if not nxt:
                break
            prev, cur = cur, nxt[0]
            path.append(cur)
        edges.append(path)
    return edges, nodes


def _length(e: list[tuple[int, int]]) -> float:
    a = np.asarray(e, dtype=np.float64)
    return float(np.sum(np.hypot(*np.diff(a, axis=0).T))) if len(a) > 1 else 0.0


def _shorter(e: list[tuple[int, int]], limit: float, inclusive: bool = False) -> bool:
    """_length(e) < limit (or <= limit): every pixel step is at least 1 long, so an edge
    of at least `limit` steps never is, and only short edges are measured."""
    steps = len(e) - 1
    if steps > limit or (steps == limit and not inclusive):
        return False
    return _length(e) <= limit if inclusive else _length(e) < limit


def _direction(e: list[tuple[int, int]], at_start: bool, span: int = 8) -> NDArray[np.float64]:
    """Unit direction pointing away from the edge's end (start or finish), in (x, y)."""
    a = np.asarray(e if at_start else e[::-1], dtype=np.float64)
    q = a[min(len(a) - 1, span)]
    v = a[0] - q
    n = float(np.hypot(*v))
    return np.asarray([v[1] / n, v[0] / n] if n > 0 else [0.0, 0.0], dtype=np.float64)


def _direction_far(e: list[tuple[int, int]], at_start: bool, skip: int, span: int) -> NDArray[np.float64]:
    """As _direction, measured from skip to skip + span pixels along the edge (as far as
    it goes): where two chains cross at a shallow angle, thinning bends each branch
    towards the crossing over its last few pixels."""
    a = np.asarray(e if at_start else e[::-1], dtype=np.float64)
    i0 = min(skip, max(0, len(a) - 1 - span))
    q = a[min(len(a) - 1, i0 + span)]
    v = a[i0] - q
    n = float(np.hypot(*v))
    return np.asarray([v[1] / n, v[0] / n] if n > 0 else [0.0, 0.0], dtype=np.float64)


def _crossing_mids(edges: list[list[tuple[int, int]]], find: Any, mid_px: float, turn_deg: float,
                   skip: int, span: int) -> list[int]:
    """Edges that are the shared middle of two chains crossing at a shallow angle: an
    edge no longer than mid_px between two three-way junctions whose other branches pair
    across it into two straight continuations (each within turn_deg). Why: there the X
    thins to two junctions joined by that middle, which runs along the bisector of both
    chains, so pairing at each junction alone takes either branch and may swap the chains."""
    at: dict[tuple[int, int], list[tuple[int, bool]]] = {}
    for i, e in enumerate(edges):
        at.setdefault(find(e[0]), []).append((i, True))
        at.setdefault(find(e[-1]), []).append((i, False))
    lim = -math.cos(math.radians(turn_deg))
    out: list[int] = []
    for i, e in enumerate(edges):
        a, b = find(e[0]), find(e[-1])
        if a == b or not _shorter(e, mid_px, inclusive=True):
            continue
        arms_a = [x for x in at[a] if x[0] != i]
        arms_b = [x for x in at[b] if x[0] != i]
        if len(arms_a) != 2 or len(arms_b) != 2:
            continue
        da = [_direction_far(edges[k], st, skip, span) for k, st in arms_a]
        db = [_direction_far(edges[k], st, skip, span) for k, st in arms_b]
        if float(da[0] @ da[1]) < lim or float(db[0] @ db[1]) < lim:
            continue                    # a branch at a junction runs straight on: no X
        # branch directions point into their junction; a chain through the middle leaves
        # one junction the way it came into the other
        best = max(min(float(da[0] @ -db[0]), float(da[1] @ -db[1])),
                   min(float(da[0] @ -db[1]), float(da[1] @ -db[0])))
        if best >= -lim:
            out.append(i)
    return out


def paths(mask: U8, spur_px: float, cross_mid_px: float = 0.0, cross_turn_deg: float = 25.0,
          cross_skip_px: int = 4, cross_span_px: int = 12, unstaired: bool = False) -> list[Path]:
    """Smooth centre paths of a band mask: thinned, spurs pruned, crossings paired. Two
    chains crossing at a shallow angle (_crossing_mids, up to cross_mid_px of shared
    middle) are paired through it on their branches' headings further out. unstaired:
    the thinned line's staircase corners taken out first (unstair)."""
    sk = thinning(mask)
    if unstaired:
        sk = unstair(sk)
    edges, _ = graph_edges(sk)
    # prune spurs: edges with a free end shorter than spur_px, repeatedly
    for _ in range(4):
        ends: dict[tuple[int, int], int] = {}
        for e in edges:
            ends[e[0]] = ends.get(e[0], 0) + 1
            ends[e[-1]] = ends.get(e[-1], 0) + 1
        keep = []
        pruned = False
        for e in edges:
            free = ends[e[0]] == 1 or ends[e[-1]] == 1
            junction = ends[e[0]] >= 3 or ends[e[-1]] >= 3
            if free and junction and _shorter(e, spur_px):
                pruned = True
                continue
            keep.append(e)
        edges = keep
        if not pruned:
            break
        edges = _merge_degree_two(edges)
    # a crossing thins to a small cluster of junction pixels joined by tiny edges:
    # contract each cluster to one junction
    rep: dict[tuple[int, int], tuple[int, int]] = {}

    def find(p: tuple[int, int]) -> tuple[int, int]:
        while rep.get(p, p) != p:
            p = rep[p]
        return p

    ends_count: dict[tuple[int, int], int] = {}
    for e in edges:
        ends_count[e[0]] = ends_count.get(e[0], 0) + 1
        ends_count[e[-1]] = ends_count.get(e[-1], 0) + 1
    keep2 = []
    for e in edges:
        if (ends_count[e[0]] >= 3 and ends_count[e[-1]] >= 3 and e[0] != e[-1]
                and _shorter(e, 6.0, inclusive=True)):
            rep[find(e[0])] = find(e[-1])
            continue
        keep2.append(e)
    edges = keep2
    far: set[tuple[int, int]] = set()       # the junctions of shallow crossings, contracted
    if cross_mid_px > 0:
        mids = set(_crossing_mids(edges, find, cross_mid_px, cross_turn_deg, cross_skip_px, cross_span_px))
        for i in mids:
            if find(edges[i][0]) != find(edges[i][-1]):
                rep[find(edges[i][0])] = find(edges[i][-1])
        far = {find(edges[i][0]) for i in mids}
        edges = [e for i, e in enumerate(edges) if i not in mids]
    # pair edges at junctions by straightness
    at: dict[tuple[int, int], list[tuple[int, bool]]] = {}
    for i, e in enumerate(edges):
        at.setdefault(find(e[0]), []).append((i, True))
        at.setdefault(find(e[-1]), []).append((i, False))
    link: dict[tuple[int, bool], tuple[int, bool]] = {}
    for node, inc in at.items():
        if len(inc) < 2:
            continue
        # merge junction pixels close together (a crossing often thins to two nodes)
        cands = []
        for a in range(len(inc)):
            for b in range(a + 1, len(inc)):
                if node in far:
                    da = _direction_far(edges[inc[a][0]], inc[a][1], cross_skip_px, cross_span_px)
                    db = _direction_far(edges[inc[b][0]], inc[b][1], cross_skip_px, cross_span_px)
                else:
                    da = _direction(edges[inc[a][0]], inc[a][1])
                    db = _direction(edges[inc[b][0]], inc[b][1])
                cands.append((float(da @ db), a, b))
        cands.sort()
        used: set[int] = set()
        for cosv, a, b in cands:
            if a in used or b in used or cosv > -0.5:
                continue
            used |= {a, b}
            link[inc[a]] = inc[b]
            link[inc[b]] = inc[a]
    out: list[Path] = []
    done: set[int] = set()
    for i in range(len(edges)):
        if i in done:
            continue
        # walk to one end of the chain of linked edges
        cur, start_side = i, True
        for _ in range(len(edges)):
            key = (cur, start_side)
            if key not in link:
                break
            nxt = link[key]
            if nxt[0] in done or nxt[0] == i:
                break
            cur, start_side = nxt[0], not nxt[1]
        # now walk forward from (cur, start_side)
        pts: list[tuple[int, int]] = []
        c, s = cur, start_side
        visited: set[int] = set()
        while c not in visited:
            visited.add(c)
            e = edges[c] if s else edges[c][::-1]
            pts.extend(e if not pts else e[1:])
            key = (c, not s)
            if key not in link:
                break
            c, s = link[key][0], link[key][1]
        done |= visited
        arr = np.asarray([(x, y) for y, x in pts], dtype=np.float64)
        if len(arr) >= 2:
            out.append(arr)
    return out


def _merge_degree_two(edges: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """Join edges that meet at a node of degree two (left after pruning a spur): each run
    of edges through such nodes is walked once, from its first edge's chain start (one
    pass over the edges; rebuilding the edge list per merge took minutes on big tables)."""
    at: dict[tuple[int, int], list[tuple[int, bool]]] = {}
    for i, e in enumerate(edges):
        at.setdefault(e[0], []).append((i, True))
        at.setdefault(e[-1], []).append((i, False))

    def across(node: tuple[int, int], i: int) -> tuple[int, bool] | None:
        """The other edge end at node, when node joins exactly two different edges."""
        inc = at[node]
        if len(inc) != 2 or inc[0][0] == inc[1][0]:
            return None
        return inc[1] if inc[0][0] == i else inc[0]

    used = [False] * len(edges)
    out: list[list[tuple[int, int]]] = []
    for i in range(len(edges)):
        if used[i]:
            continue
        # walk back to the start of the run (oriented edge: index, forward?)
        cur, fwd = i, True
        seen = {i}
        while True:
            tail = edges[cur][0] if fwd else edges[cur][-1]
            o = across(tail, cur)
            if o is None or o[0] in seen or used[o[0]]:
                break
            cur, fwd = o[0], not o[1]      # an edge whose finish is here runs forward into it
            seen.add(cur)
        merged: list[tuple[int, int]] = []
        while True:
            used[cur] = True
            e = edges[cur] if fwd else edges[cur][::-1]
            merged.extend(e if not merged else e[1:])
            o = across(e[-1], cur)
            if o is None or used[o[0]]:
                break
            cur, fwd = o[0], o[1]          # an edge whose start is here runs forward out of it
        out.append(merged)
    return out


def smooth(path: Path, window: int = 7) -> Path:
    """A moving average that keeps the end points (pixel staircases -> a smooth line)."""
    if len(path) < window + 2:
        return path
    k = np.ones(window) / window
    xs = np.convolve(np.pad(path[:, 0], window // 2, mode="edge"), k, mode="valid")
    ys = np.convolve(np.pad(path[:, 1], window // 2, mode="edge"), k, mode="valid")
    return np.stack([xs, ys], axis=1)


def resample(path: Path, step: float) -> Path:
    """Points every `step` along the path (same units as the path)."""
    if len(path) < 2:
        return path
    d = np.hypot(*np.diff(path, axis=0).T)
    s = np.concatenate([[0.0], np.cumsum(d)])
    if s[-1] <= 0:
        return path[:1]
    t = np.arange(0.0, s[-1] + 1e-9, step)
    return np.stack([np.interp(t, s, path[:, 0]), np.interp(t, s, path[:, 1])], axis=1)


def path_length(path: Path) -> float:
    return float(np.sum(np.hypot(*np.diff(path, axis=0).T))) if len(path) > 1 else 0.0


def end_direction(path: Path, at_start: bool, span: float, skip: float = 0.0) -> NDArray[np.float64]:
    """Unit vector pointing out of the path at one end, fitted over `span` length
    starting `skip` in from the end (an end that hooks can be looked past)."""
    p = path if at_start else path[::-1]
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(p, axis=0).T))])
    i = int(np.searchsorted(s, skip))
    k = int(np.searchsorted(s, skip + span))
    k = max(i + 1, min(len(p) - 1, k))
    v = p[i] - p[k] if k < len(p) else p[0] - p[-1]
    n = math.hypot(float(v[0]), float(v[1]))
    return np.asarray(v / n if n > 0 else np.array([1.0, 0.0]), dtype=np.float64)


def draw_mask(shape: tuple[int, int], pts: Path, width: float) -> U8:
    m = np.zeros(shape, dtype=np.uint8)
    cv2.polylines(m, [np.round(pts).astype(np.int32).reshape(-1, 1, 2)], False, (1,),
                  max(1, int(round(width))))
    return m
