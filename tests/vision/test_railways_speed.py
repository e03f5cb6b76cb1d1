"""The railway reader's speed rewrites (session 12) give the very answers of the code they
replace: each test runs the older form, kept here as the reference, on seeded data."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.railways.chains import LazyMap, _fan, sample
from vision.railways.frame import TopView

Arr = np.ndarray[Any, Any]


def _fan_reference(wire: LazyMap, view: TopView, e: Arr, d0: Arr, degs: Arr, steps: Arr,
                   half_mm: float) -> tuple[Arr, Arr]:
    """chains._fan as it was: the interleaved grid, sampled SAMPLE_ROWS rows per window."""
    a = np.radians(degs)
    d = np.stack([d0[0] * np.cos(a) - d0[1] * np.sin(a), d0[0] * np.sin(a) + d0[1] * np.cos(a)], axis=1)
    rays = e[None, None, :] + d[:, None, :] * steps[None, :, :]
    nrm = np.stack([-d[:, 1], d[:, 0]], axis=1)
    offs = np.arange(-half_mm, half_mm + 1e-9, 0.5)
    grid = rays[:, :, None, :] + offs[None, None, :, None] * nrm[:, None, None, :]
    px = (grid - np.asarray(view.origin_mm)) * view.px_per_mm - 0.5
    r, n, k = px.shape[:3]
    mx = px[..., 0].reshape(r * n, k).astype(np.float32)
    my = px[..., 1].reshape(r * n, k).astype(np.float32)
    top = sample(wire, mx, my).max(axis=1).reshape(r, n)
    return rays, np.asarray(cv2.blur(np.ascontiguousarray(top), (5, 1)), dtype=np.float32)


def test_fan_from_one_window_is_the_fan_sampled_window_by_window() -> None:
    """_fan (one window of the map per fan, per-coordinate grid) gives the rays and the
    profiles of the older form bit for bit: fans inside, across the edge of and wholly off
    the map, short (one sample window) and long."""
    rng = np.random.default_rng(12)
    wire = rng.integers(0, 256, (300, 350), dtype=np.uint8)
    view = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (-13.25, 7.5), 2.0)
    off_map = 0
    for _ in range(120):
        e = rng.uniform(-60.0, 220.0, 2)
        d0 = rng.normal(size=2)
        d0 /= np.linalg.norm(d0)
        degs = np.arange(-35.0, 35.0 + 1e-9, 5.0)
        steps = (np.arange(0, int(rng.integers(2, 110))) * 0.5)[:, None]
        half = float(rng.choice([2.5, 4.5]))
        rays, prof = _fan(LazyMap.over255(wire), view, e, d0, degs, steps, half)
        rays0, prof0 = _fan_reference(LazyMap.over255(wire), view, e, d0, degs, steps, half)
        off_map += int(not prof.any())
        assert np.array_equal(rays, rays0)
        assert np.array_equal(prof, prof0)
    assert off_map > 0                  # some fans lay wholly off the map


def _logits_unfolded(ev: Arr, det: Any) -> Arr:
    """clip_counter.bend_logits as it was: every window unfolded against the whole w1."""
    from vision.railways.clip_counter import _all_windows
    h = np.maximum(_all_windows(ev) @ det.w1 + det.b1, 0.0)
    return np.asarray(h @ det.w2 + np.float32(det.b2), dtype=np.float32)


def test_folded_bend_logits_are_the_unfolded_ones() -> None:
    """bend_logits with each window folded across the strip (the shipped detectors' first
    layer is mirror-symmetric) gives the unfolded product's log-odds up to float rounding,
    for both detectors; a detector whose weights are not symmetric takes the unfolded
    form, to the bit."""
    from vision.railways.clip_counter import BendDetector, bend_logits, load_detector, load_river_detector
    rng = np.random.default_rng(5)
    for det in (load_detector(), load_river_detector()):
        for n in (3, 7, 40, 600):
            ev = rng.random((n, 31)).astype(np.float32)
            got, want = bend_logits(ev, det), _logits_unfolded(ev, det)
            assert got.shape == want.shape == (n,)
            assert np.allclose(got, want, rtol=0.0, atol=1e-4)
    det = load_detector()
    lop = BendDetector(det.w1 + rng.normal(0, 0.01, det.w1.shape).astype(np.float32), det.b1, det.w2, det.b2)
    ev = rng.random((80, 31)).astype(np.float32)
    assert np.array_equal(bend_logits(ev, lop), _logits_unfolded(ev, lop))


def _ink_reference(image: Arr, bg: Arr, px_per_mm: float, band_rows: int = 128) -> Arr:
    """trace.ink as it was: float32 Lab of both, their difference's norm by einsum."""
    f = int(round(px_per_mm))
    h, w = image.shape[:2]
    out = np.zeros((h // f, w // f), np.float32)
    step = band_rows - band_rows % f
    for y0 in range(0, h - h % f, step):
        y1 = min(h - h % f, y0 + step)
        a = cv2.cvtColor(image[y0:y1, :w - w % f], cv2.COLOR_BGR2Lab).astype(np.float32)
        b = cv2.cvtColor(bg[y0:y1, :w - w % f], cv2.COLOR_BGR2Lab).astype(np.float32)
        a -= b
        d = np.sqrt(np.einsum("ijk,ijk->ij", a, a))
        out[y0 // f:y1 // f] = cv2.resize(d, ((w - w % f) // f, (y1 - y0) // f), interpolation=cv2.INTER_AREA)
    return out


def test_ink_from_byte_differences_is_the_float_one() -> None:
    """trace.ink (squared absdiff of the 8-bit Lab, summed by cv2.transform) equals the
    float einsum form bit for bit, on odd sizes and at 1, 2 and 3 px/mm."""
    from vision.railways.trace import ink
    rng = np.random.default_rng(7)
    for (h, w), ppm in (((301, 257), 2.0), ((130, 90), 1.0), ((200, 155), 3.0)):
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        bg = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (9, 9), 0)
        assert np.array_equal(ink(image, bg, ppm, band_rows=64), _ink_reference(image, bg, ppm, band_rows=64))


def test_textured_background_takes_the_channels_maximum_as_numpy_did() -> None:
    """frame._textured (the closing-opening disagreement's channel maximum by cv2.max)
    gives the bytes of the form that took numpy's max over the channel axis, on a
    seeded image with textured and plain parts."""
    from vision.railways import frame
    rng = np.random.default_rng(9)
    image = np.full((160, 200, 3), 200, np.uint8)
    image[:, :110] = rng.integers(0, 256, (160, 110, 3), dtype=np.uint8)        # a grainy half
    cv2.line(image, (120, 10), (190, 150), (40, 60, 200), 2)
    k = 7
    kern = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    oc = cv2.morphologyEx(cv2.morphologyEx(image, cv2.MORPH_CLOSE, kern), cv2.MORPH_OPEN, kern)
    co = cv2.morphologyEx(cv2.morphologyEx(image, cv2.MORPH_OPEN, kern), cv2.MORPH_CLOSE, kern)
    mean = ((oc.astype(np.uint16) + co) // 2).astype(np.uint8)
    got = frame._textured(image, k, oc, co, mean)
    # the older form: numpy's max over the channels, then the same blend
    apart = cv2.absdiff(oc, co).max(axis=2)
    lo, hi = frame.TEXTURE_APART
    med = cv2.medianBlur(image, int(k * frame.TEXTURE_MEDIAN_SCALE) | 1)
    wt = np.clip((apart.astype(np.float32) - lo) / (hi - lo), 0.0, 1.0)
    want = cv2.blendLinear(mean, med, 1.0 - wt, wt)
    assert (apart > lo).any() and (apart <= lo).any()
    assert np.array_equal(got, want)


def test_printed_layout_corners_at_once_are_the_corner_by_corner_ones() -> None:
    """stations._printed_layout (the four corners of each printed part made in one array
    expression) gives the mask of the corner-by-corner form, on seeded turned cards of
    both kinds."""
    from vision.railways import stations as stn
    from vision.railways.config import RailwaysConfig
    cfg = RailwaysConfig()
    rng = np.random.default_rng(4)

    def reference(s: Any, white: Arr, roi_xy: tuple[int, int], origin: tuple[float, float], scale: float) -> Arr:
        c, e1, e2, side = stn._card_frame(s)
        grow = cfg.print_grow_mm
        best: tuple[float, Arr] | None = None
        for axis, along in ((e1, e2), (e2, e1)):
            for sgn in (-1.0, 1.0):
                parts = [(c - axis * sgn * 0.36 * side, 0.8 * side, 0.14 * side)]
                parts += [(c + axis * sgn * 0.36 * side + along * k * side, 0.14 * side, 0.12 * side)
                          for k in (-0.3, -0.1, 0.1, 0.3)]
                if s.type == "start":
                    parts.append((c + axis * sgn * 0.2 * side, 0.9 * side, 0.08 * side))
                m = np.zeros(white.shape[:2], np.uint8)
                for centre, la, lb in parts:
                    corners = np.array([centre + along * da * (la / 2 + grow) + axis * db * (lb / 2 + grow)
                                        for da, db in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
                    px = ((corners - np.asarray(origin)) * scale - np.asarray(roi_xy)).astype(np.int32)
                    cv2.fillPoly(m, [px.reshape(-1, 1, 2)], (1,))
                if not m.any():
                    continue
                score = float(white[m > 0].mean())
                if best is None or score > best[0]:
                    best = (score, m)
        return best[1] if best is not None else np.zeros(white.shape[:2], np.uint8)

    for i in range(12):
        centre = rng.uniform(80.0, 120.0, 2)
        a = rng.uniform(0, np.pi)
        side = rng.uniform(55.0, 70.0)
        u = np.array([np.cos(a), np.sin(a)]) * side / 2
        v = np.array([-np.sin(a), np.cos(a)]) * side / 2
        poly = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
        s = stn.Station(f"s{i}", "start" if i % 2 else "city", (float(centre[0]), float(centre[1])), poly, side)
        white = (rng.random((120, 130)) < 0.3).astype(np.uint8)
        roi, origin = (30, 25), (-3.5, 2.0)
        assert np.array_equal(stn._printed_layout(s, white, roi, origin, 1.0, cfg),
                              reference(s, white, roi, origin, 1.0))


def test_byte_valued_rows_take_the_histogram_and_give_nanpercentile() -> None:
    """rows_nanpercentile on maps of whole numbers 0..255 with NaNs (the evidence band's
    densities) is answered from histograms (_byte_rows_percentile takes it) and equals
    np.nanpercentile bit for bit and in dtype, for the median, 0 and 100; a percentile
    that falls between values, or values that are not whole, are left to the general form."""
    import warnings
    from vision.railways.trace import _byte_rows_percentile, rows_nanpercentile
    rng = np.random.default_rng(21)
    for _ in range(150):
        r, c = int(rng.integers(1, 40)), int(rng.integers(1, 200))
        v = rng.integers(0, 256, (r, c)).astype(rng.choice([np.float32, np.float64]))
        v[rng.random((r, c)) < rng.random()] = np.nan
        if rng.random() < 0.3:
            v[0] = np.nan
        q = float(rng.choice([50.0, 0.0, 100.0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanpercentile(v, q, axis=1)
        cnt = np.count_nonzero(~np.isnan(v), axis=1)
        took = _byte_rows_percentile(v, cnt, q, np.full(r, np.nan))
        assert took == bool(cnt.any())
        got = rows_nanpercentile(v, q)
        assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)
    v = rng.integers(0, 256, (6, 40)).astype(np.float32)
    cnt = np.full(6, 40)
    assert not _byte_rows_percentile(v, cnt, 12.5, np.zeros(6))          # 39 * 0.125 is no half
    assert not _byte_rows_percentile(v + np.float32(0.25), cnt, 50.0, np.zeros(6))


def _mix_band_reference(image: Arr, bg: Arr, refs: dict[str, Arr], min_contrast: float,
                        residual: float, out: dict[str, Arr]) -> None:
    """frame._mix_band as it was: every colour worked on every differing pixel."""
    ip, bp = cv2.split(image), cv2.split(bg)
    diff = cv2.max(cv2.max(cv2.absdiff(ip[0], bp[0]), cv2.absdiff(ip[1], bp[1])), cv2.absdiff(ip[2], bp[2]))
    cand = np.flatnonzero(diff.ravel() > 12)          # only pixels that differ from the background
    if len(cand) == 0:
        return
    b = [p.ravel()[cand].astype(np.float32) for p in bp]
    d = [p.ravel()[cand].astype(np.float32) for p in ip]
    for c in range(3):
        d[c] -= b[c]
    n = len(cand)
    t = np.empty(n, np.float32)
    u = np.empty(n, np.float32)

    def dot3(x: list[Arr], y: list[Arr], res: Arr) -> Arr:
        np.multiply(x[0], y[0], out=res)
        for c in (1, 2):
            np.multiply(x[c], y[c], out=t)
            res += t
        return res
    dd = dot3(d, d, np.empty(n, np.float32))
    d_len = np.maximum(np.sqrt(dd), 1.0)
    best = np.zeros(n, np.float32)
    scores: dict[str, Arr] = {}
    lim2 = np.float32(min_contrast * min_contrast)
    v = [np.empty(n, np.float32) for _ in range(3)]
    vv, dot, a = np.empty(n, np.float32), np.empty(n, np.float32), np.empty(n, np.float32)
    ok, m = np.empty(n, bool), np.empty(n, bool)
    for name, ref in refs.items():
        for c in range(3):
            np.subtract(ref[c], b[c], out=v[c])
        dot3(v, v, vv)
        dot3(d, v, dot)
        np.greater(vv, lim2, out=ok)
        np.copyto(a, vv)
        np.copyto(a, np.float32(1.0), where=~ok)
        np.divide(dot, a, out=a)
        np.clip(a, 0.0, 1.0, out=a)
        # the distance from the mix line stopped at the colour itself: a pixel beyond it
        # (darker than a grey, brighter than a cream) is not that colour at full strength
        # (res2 = max(dd - 2 a dot + a a vv, 0); rel = sqrt(res2) / d_len)
        np.multiply(a, 2.0, out=t)
        t *= dot
        np.subtract(dd, t, out=t)
        np.multiply(a, a, out=u)
        u *= vv
        t += u
        np.maximum(t, 0.0, out=t)
        np.sqrt(t, out=t)
        t /= d_len
        np.less(t, residual, out=m)
        m &= ok
        np.divide(t, residual, out=u)
        np.subtract(1.0, u, out=u)
        u *= a
        sc = np.where(m, u, np.float32(0.0))           # a (1 - rel / residual) where it fits
        scores[name] = sc
        np.maximum(best, sc, out=best)
    best -= 1e-6
    keep = np.empty(n, bool)
    for name, sc in scores.items():
        np.greater_equal(sc, best, out=keep)
        np.multiply(sc, 0.3, out=u)
        np.copyto(u, sc, where=keep)
        u *= 255.0
        np.clip(u, 0, 255, out=u)
        out[name].reshape(-1)[cand] = u.astype(np.uint8)


def test_mix_band_on_the_pixels_that_may_fit_is_every_pixel_worked() -> None:
    """frame._mix_band (each colour fitted only where the difference points within the
    angle a fit needs) writes the evidence bytes of the form that fits every differing
    pixel to every colour: on a seeded band with wires of every clip colour over a
    grainy background, with the default residual and with wider and narrower ones."""
    from vision.railways.config import CLIP_COLOURS
    from vision.railways.frame import _mix_band
    rng = np.random.default_rng(17)
    h, w = 48, 400
    bg = cv2.GaussianBlur(rng.integers(40, 230, (h, w, 3), dtype=np.uint8), (15, 15), 0)
    image = bg.copy()
    for i, bgr in enumerate(CLIP_COLOURS.values()):
        x = 20 + 50 * i
        cv2.line(image, (x, 0), (x + 30, h - 1), tuple(int(c) for c in bgr), 2)
    noise = rng.integers(-40, 41, (h, w, 3))
    image = np.clip(image.astype(np.int32) + noise * (rng.random((h, w, 1)) < 0.3), 0, 255).astype(np.uint8)
    refs = {k: np.asarray(v, np.float32) for k, v in CLIP_COLOURS.items()}
    for residual in (0.45, 0.2, 0.9):
        got = {k: np.zeros((h, w), np.uint8) for k in refs}
        want = {k: np.zeros((h, w), np.uint8) for k in refs}
        _mix_band(image, bg, refs, 22.0, {k: residual for k in refs}, got)
        _mix_band_reference(image, bg, refs, 22.0, residual, want)
        assert sum(int(np.count_nonzero(v)) for v in want.values()) > 500
        for k in refs:
            assert np.array_equal(got[k], want[k]), (residual, k)


def test_band_maps_half_pixel_shift_is_warpaffine() -> None:
    """frame._BandMaps.band (the half-pixel shift of the resized coarse rows as four
    quarter-weighted slices) gives warpAffine's maps bit for bit for every band of a
    seeded coarse grid, edges included, and an odd step still takes warpAffine."""
    from vision.railways.frame import _BandMaps
    rng = np.random.default_rng(8)
    for step, (w, h) in ((16, (333, 275)), (15, (200, 120)), (16, (64, 64))):
        maps = _BandMaps.__new__(_BandMaps)
        gy, gx = h // step + 2, w // step + 2
        maps.cx = (rng.random((gy, gx)) * 4000 - 300).astype(np.float32)
        maps.cy = (rng.random((gy, gx)) * 3000 - 200).astype(np.float32)
        maps.w, maps.step, maps.full_w, maps.off = w, step, gx * step, (step - 1) / 2.0
        for y0 in range(0, h, 37):
            y1 = min(h, y0 + 37)
            j0, j1 = maps._coarse_rows(y0, y1)
            m = np.array([[1, 0, maps.off], [0, 1, maps.off + y0 - j0 * step]], dtype=np.float32)
            got = maps.band(y0, y1)
            for coarse, g in zip((maps.cx, maps.cy), got):
                part = cv2.resize(coarse[j0:j1], (maps.full_w, (j1 - j0) * step), interpolation=cv2.INTER_LINEAR)
                want = cv2.warpAffine(part, m, (w, y1 - y0), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                      borderMode=cv2.BORDER_REPLICATE)
                assert g.dtype == np.float32 and np.array_equal(g, want)


def _dp_smooth_reference(scores: Arr, qmin: int, qmax: int, lam: float, start_ok: Arr, end_ok: Arr,
                         per_row: float) -> tuple[float, list[tuple[int, int]]]:
    """clip_counter._dp_smooth as it was (session 26): the argmax over the gap before
    made for every state of every block, and kept for the traceback."""
    import math
    n = len(scores)
    Q = qmax - qmin + 1
    neg = np.float32(-1e9)
    qs = np.arange(qmin, qmax + 1)
    gain = (scores - np.float32(lam)).astype(np.float32)
    first = np.full(n, neg, np.float32)
    k = min(n, len(start_ok))
    first[:k] = np.maximum(start_ok[:k] + gain[:k], neg)
    best = np.full((n, Q), neg, np.float32)
    back = np.full((n, Q), -2, np.int32)
    change = (np.float32(per_row) * np.abs(qs[:, None] - qs[None, :])).astype(np.float32)
    for b0 in range(qmin, n, qmin):
        b1 = min(n, b0 + qmin)
        us = np.arange(b0, b1)
        prev = us[:, None] - qs[None, :]
        valid = prev >= 0
        pc = np.clip(prev, 0, n - 1)
        pv = best[pc] - change[None]
        arg = pv.argmax(axis=2)
        val = np.take_along_axis(pv, arg[..., None], axis=2)[..., 0]
        fv = first[pc]
        use_first = fv >= val
        val = np.where(valid, np.maximum(val, fv), neg)
        best[us] = np.maximum(val + gain[us, None], neg)
        back[us] = np.where(use_first, -1, arg)
    fin_first = np.maximum(first + end_ok, neg)
    fin = np.maximum(best + end_ok[:, None], neg)
    u1 = int(np.argmax(fin_first))
    idx = int(np.argmax(fin))
    u, qi = divmod(idx, Q)
    if float(fin_first[u1]) >= float(fin[u, qi]):
        total = float(fin_first[u1])
        return (total, [(u1, 0)]) if total > -1e8 else (-math.inf, [])
    total = float(fin[u, qi])
    if total <= -1e8:
        return -math.inf, []
    seq = [(u, 0)]
    while True:
        pq = int(back[u, qi])
        u = u - int(qs[qi])
        seq.append((u, 0))
        if pq < 0:
            break
        qi = pq
    seq.reverse()
    return total, seq


def test_dp_smooth_is_the_per_block_argmax_form() -> None:
    """_dp_smooth (the max over the gap before made once per row, the argmax only at the
    traceback) gives the older form's total and sequence exactly: strips shorter than a
    gap, as long as a few, and long; ends ruled out or free; ties (scores on a coarse grid)."""
    from vision.railways.clip_counter import _dp_smooth
    rng = np.random.default_rng(27)
    lengths = 0
    for trial in range(300):
        qmin = int(rng.integers(3, 40))
        qmax = qmin + int(rng.integers(0, qmin))
        n = int(rng.integers(1, 12 * qmin))
        scores = rng.uniform(-3.0, 3.0, n).astype(np.float32)
        if trial % 3 == 0:
            scores = np.round(scores).astype(np.float32)      # many ties
        start_ok = np.where(rng.random(n) < 0.3, 0.0, -1e9).astype(np.float32)
        end_ok = np.where(rng.random(n) < 0.3, rng.uniform(-1, 0, n), -1e9).astype(np.float32)
        if trial % 7 == 0:
            start_ok[:] = 0.0
            end_ok[:] = 0.0
        lam = float(rng.uniform(0.5, 3.0))
        per_row = float(rng.uniform(0.0, 0.5))
        got = _dp_smooth(scores, qmin, qmax, lam, start_ok, end_ok, per_row)
        want = _dp_smooth_reference(scores, qmin, qmax, lam, start_ok, end_ok, per_row)
        assert got == want
        lengths += len(got[1]) > 2
    assert lengths > 50                 # many sequences of several clips were compared


def _table_near_reference(bg: Arr, colours: dict[str, tuple[int, int, int]], players: tuple[str, ...],
                          contrast: float) -> dict[str, Arr]:
    """trace.table_near as it was (session 26): int32 planes, squared by numpy."""
    chans = [c.astype(np.int32) for c in cv2.split(bg)]
    best = np.full(bg.shape[:2], np.iinfo(np.int32).max, np.int32)
    near = np.full(bg.shape[:2], -1, np.int8)
    d2 = np.empty(bg.shape[:2], np.int32)
    t = np.empty(bg.shape[:2], np.int32)
    for i, p in enumerate(players):
        d2.fill(0)
        for c, ref in zip(chans, colours[p]):
            np.subtract(c, ref, out=t)
            np.multiply(t, t, out=t)
            d2 += t
        better = d2 < best
        best[better] = d2[better]
        near[better] = i
    near[best > contrast * contrast] = -1
    return {p: (near == i).astype(np.uint8) for i, p in enumerate(players)}


def test_table_near_by_lookup_is_the_int32_form() -> None:
    """trace.table_near (squares looked up per byte) gives the older maps exactly: noise,
    a flat table, and coarse levels full of ties between players."""
    from vision.railways.config import CLIP_COLOURS, PLAYER_COLOURS
    from vision.railways.trace import table_near
    rng = np.random.default_rng(27)
    for kind in range(4):
        bg = rng.integers(0, 256, (97, 131, 3), dtype=np.uint8)
        if kind == 1:
            bg[:] = bg[:1, :1]
        elif kind == 2:
            bg = (bg // 64 * 64).astype(np.uint8)
        elif kind == 3:
            bg = np.asarray(CLIP_COLOURS["white"], np.uint8)[None, None] + rng.integers(0, 3, (97, 131, 3), dtype=np.uint8)
        for contrast in (0.0, 22.0, 400.0):
            got = table_near(bg, CLIP_COLOURS, PLAYER_COLOURS, contrast)
            want = _table_near_reference(bg, CLIP_COLOURS, PLAYER_COLOURS, contrast)
            assert got.keys() == want.keys()
            for k in want:
                assert got[k].dtype == want[k].dtype and np.array_equal(got[k], want[k])


def _colour_costs_reference(px_lab: Arr, bg_lab: Arr, refs: dict[str, tuple[int, int, int]],
                            cfg: Any) -> dict[str, Arr]:
    """trace.colour_costs_per_slice as it was (session 26): every pixel fitted per colour."""
    from vision.railways.frame import lab_of
    d = np.asarray(px_lab, dtype=np.float64) - bg_lab
    n = np.sqrt(np.einsum("spk,spk->sp", d, d))
    if n.shape[1] == 0:
        return {k: np.full(n.shape[0], np.inf) for k in refs}
    cut = np.maximum(np.percentile(n, 100.0 * (1.0 - cfg.colour_top_share), axis=1), cfg.ink_threshold)
    keep = n >= cut[:, None]
    cnt = keep.sum(axis=1)
    out: dict[str, Arr] = {}
    for name, bgr in refs.items():
        v = lab_of(bgr)[None, None, :] - bg_lab
        vv = np.einsum("spk,spk->sp", v, v)
        a = np.clip(np.einsum("spk,spk->sp", d, v) / np.maximum(vv, 1e-6), 0.0, 1.0)
        r = d - a[..., None] * v
        r2 = np.einsum("spk,spk->sp", r, r)
        r2 = np.where(vv < cfg.blind_contrast ** 2, np.maximum(n - cfg.blind_shading, 0.0) ** 2, r2)
        out[name] = np.where(cnt > 0, (r2 * keep).sum(axis=1) / np.maximum(cnt, 1), np.inf)
    return out


def test_colour_costs_on_kept_pixels_are_the_whole_form() -> None:
    """trace.colour_costs_per_slice (each colour fitted on the kept pixels only) gives the
    older costs to the bit: one slice and many, plain and textured tables, slices with no
    pixel differing enough (infinite), and no pixels at all."""
    from vision.railways.config import CLIP_COLOURS, RailwaysConfig
    from vision.railways.trace import colour_costs_per_slice
    cfg = RailwaysConfig()
    rng = np.random.default_rng(27)
    for slices, pixels, spread in ((1, 900, 60.0), (7, 120, 30.0), (3, 50, 2.0), (2, 0, 10.0), (1, 4000, 90.0)):
        bg = (np.array([70.0, 128.0, 135.0], np.float32) + rng.normal(0, 3, (slices, pixels, 3))).astype(np.float32)
        px = (bg + rng.normal(0, spread, (slices, pixels, 3))).astype(np.float32)
        got = colour_costs_per_slice(px, bg, CLIP_COLOURS, cfg)
        want = _colour_costs_reference(px, bg, CLIP_COLOURS, cfg)
        for k in want:
            assert np.array_equal(got[k], want[k])


def _sample_reference(values: Any, mx: Arr, my: Arr) -> Arr:
    """chains.sample of a LazyMap as it was (session 26): recursive, SAMPLE_ROWS rows a
    piece, each piece's window from its own four reductions, the pieces concatenated."""
    from vision.railways.chains import SAMPLE_ROWS
    if mx.shape[0] == 0:
        return np.zeros((0, 1), np.float32)
    if mx.shape[0] > SAMPLE_ROWS:
        return np.concatenate([_sample_reference(values, mx[i:i + SAMPLE_ROWS], my[i:i + SAMPLE_ROWS])
                               for i in range(0, mx.shape[0], SAMPLE_ROWS)], axis=0)
    h, w = values.shape
    x0 = min(max(0, int(np.floor(mx.min())) - 2), w)
    y0 = min(max(0, int(np.floor(my.min())) - 2), h)
    x1 = max(min(w, int(np.floor(mx.max())) + 3), x0)
    y1 = max(min(h, int(np.floor(my.max())) + 3), y0)
    if x1 - x0 < 1 or y1 - y0 < 1:
        return np.zeros(mx.shape, np.float32)
    src = values.make(slice(y0, y1), slice(x0, x1))
    s = cv2.remap(src, mx - np.float32(x0), my - np.float32(y0), cv2.INTER_LINEAR,
                  borderMode=cv2.BORDER_CONSTANT, borderValue=(0.0,))
    return np.asarray(s, dtype=np.float32)


def test_lazy_sample_is_the_recursive_form() -> None:
    """chains.sample of a LazyMap (every piece's window bounds at once, remapped into its
    rows) gives the recursive form's values bit for bit: strips of one row to many
    pieces, one column to many, inside, across the edge of and wholly off the map."""
    rng = np.random.default_rng(27)
    vals = rng.random((300, 350)).astype(np.float32)
    lazy = LazyMap(vals.shape, lambda r, c: vals[r, c].copy())
    off = 0
    for n in (1, 5, 63, 64, 65, 128, 129, 400):
        for cols in (1, 17, 40):
            mx = (rng.uniform(-60, 400, (n, 1)) + rng.uniform(0, 9, (n, cols))).astype(np.float32)
            my = (rng.uniform(-60, 350, (n, 1)) + rng.uniform(0, 9, (n, cols))).astype(np.float32)
            if n == 65 and cols == 17:
                mx -= 1000.0
            got, want = sample(lazy, mx, my), _sample_reference(lazy, mx, my)
            off += int(not want.any())
            assert got.dtype == want.dtype and np.array_equal(got, want)
    assert off > 0


def test_opened_blobs_is_the_whole_opening() -> None:
    """stations.opened_blobs (the ellipse opening made round the blobs it fits) gives
    cv2.morphologyEx's opening of the whole filled mask bit for bit: speckle, blobs of
    every size, card-like boxes cut by the mask's edges, ellipses of several sizes."""
    from vision.railways.stations import opened_blobs
    rng = np.random.default_rng(27)
    for t in range(120):
        h, w = int(rng.integers(20, 260)), int(rng.integers(20, 260))
        m = (cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), float(rng.uniform(0.8, 6)))
             > float(rng.uniform(0.5, 0.75))).astype(np.uint8)
        if t % 3 == 0:
            for _ in range(3):
                x, y = int(rng.integers(-10, w)), int(rng.integers(-10, h))
                m[max(0, y):y + int(rng.integers(5, 80)), max(0, x):x + int(rng.integers(5, 80))] = 1
        outer, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(m, outer, -1, (1,), thickness=cv2.FILLED)
        for k in (3, 5, 13, 15):
            want = cv2.morphologyEx(m, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
            assert np.array_equal(opened_blobs(m, outer, k), want)


def test_river_cell_sums_at_points_are_the_box_filters() -> None:
    """river._cell_sums (box sums made at the sampled pixels alone) gives the whole-map
    cv2.boxFilter sums at those pixels to the bit, edges (reflect-101) included."""
    from vision.railways.river import _cell_sums
    rng = np.random.default_rng(27)
    for _ in range(60):
        h, w = int(rng.integers(14, 200)), int(rng.integers(14, 200))
        band = (rng.random((h, w)) < rng.uniform(0.05, 0.9)).astype(np.uint8)
        k = int(rng.choice([3, 9, 13]))
        iy, ix = rng.integers(0, h, 200), rng.integers(0, w, 200)
        iy[:4], ix[:4] = [0, 1, h - 1, h - 2], [w - 1, 0, 1, w - 2]
        f = band.astype(np.float32)
        xs = np.arange(w, dtype=np.float32)[None, :] + 0.5
        ys = np.arange(h, dtype=np.float32)[:, None] + 0.5
        want = [cv2.boxFilter(m, -1, (k, k), normalize=False)[iy, ix] for m in (f, f * xs, f * ys)]
        got = _cell_sums(band, iy, ix, k)
        for g, x in zip(got, want):
            assert g.dtype == np.float32 and np.array_equal(g, x)
