"""The motion check and the foreign-object guard on seeded synthetic grey frames."""

from __future__ import annotations

import time

import cv2
import numpy as np

from firmware.motion import ChangeMap, MotionConfig, MotionDetector, foreign_change


def _table(seed: int, w: int = 320, h: int = 180) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w), 150, np.uint8)
    img += rng.integers(0, 4, (h, w), dtype=np.uint8)  # sensor noise
    return img


def test_still_table_becomes_still_after_the_configured_time() -> None:
    """Identical (noisy) frames: still once still_seconds have passed, not before."""
    det = MotionDetector(MotionConfig(still_seconds=1.0))
    frame = _table(0)
    for i in range(15):
        det.update(frame + np.random.default_rng(i).integers(0, 3, frame.shape, dtype=np.uint8), i * 0.1)
    assert det.is_still(1.4)
    det2 = MotionDetector(MotionConfig(still_seconds=1.0))
    for i in range(5):
        det2.update(frame, i * 0.1)
    assert not det2.is_still(0.4)


def test_a_hand_sweeping_is_motion() -> None:
    """A dark blob moving across the frame counts as motion every frame and resets stillness."""
    det = MotionDetector(MotionConfig(still_seconds=0.5))
    base = _table(1)
    for i in range(10):
        det.update(base, i * 0.1)
    assert det.is_still(0.95)
    f = base.copy()
    cv2.circle(f, (40, 90), 30, 60, -1)
    state = det.update(f, 1.0)
    assert state.moving and not det.is_still(1.0)
    f2 = base.copy()
    cv2.circle(f2, (90, 90), 30, 60, -1)
    assert det.update(f2, 1.1).moving


def test_slow_light_change_is_not_motion() -> None:
    """Brightness creeping up two levels a frame never counts as motion."""
    det = MotionDetector(MotionConfig(still_seconds=0.5))
    base = _table(2).astype(np.int16)
    moving = []
    for i in range(20):
        moving.append(det.update(np.clip(base + 2 * i, 0, 255).astype(np.uint8), i * 0.1).moving)
    assert not any(moving[1:])
    assert det.is_still(2.0)


def test_motion_check_is_fast() -> None:
    """Well under a millisecond per 320x180 frame (the bench measures it properly)."""
    det = MotionDetector()
    frames = [_table(i) for i in range(4)]
    det.update(frames[0], 0.0)
    t = time.perf_counter()
    for i in range(200):
        det.update(frames[i % 4], i * 0.1)
    per = (time.perf_counter() - t) / 200
    assert per < 0.002


def test_guard_ignores_change_inside_the_move_and_sees_a_cup_outside() -> None:
    """A new tile inside the explained rectangle is fine; a cup elsewhere is foreign."""
    ref = np.full((200, 200), 140, np.uint8)
    cur = ref.copy()
    cv2.rectangle(cur, (20, 20), (40, 40), 40, -1)     # the new tile at 40..80 mm
    explained = [(30.0 + 30.0, 30.0 + 30.0, 30.0 + 90.0, 30.0 + 90.0)]
    frac, _ = foreign_change(ref, cur, explained, (30.0, 30.0), 0.5, 28)
    assert frac == 0.0
    cv2.circle(cur, (150, 150), 20, 230, -1)            # a cup
    frac, mask = foreign_change(ref, cur, explained, (30.0, 30.0), 0.5, 28)
    assert frac > 0.02 and mask[150, 150]


def test_guard_shrugs_off_a_global_brightness_change() -> None:
    """Dimmer light over the whole table is normalised away."""
    rng = np.random.default_rng(3)
    ref = rng.integers(100, 180, (200, 200), dtype=np.uint8)
    ref = cv2.GaussianBlur(ref, (9, 9), 0)
    cur = (ref.astype(np.float32) * 0.8).astype(np.uint8)
    frac, _ = foreign_change(ref, cur, [], (0.0, 0.0), 0.5, 28)
    assert frac < 0.001


def test_reaching_in_keeps_an_arm_and_drops_a_cup() -> None:
    """Change joined to the view's edge (an arm, even with a small gap) is kept; a blob on
    the table by itself (a cup) is dropped."""
    from firmware.motion import reaching_in
    mask = np.zeros((200, 200), np.uint8)
    cv2.circle(mask, (60, 60), 20, 255, -1)                  # a cup
    cv2.circle(mask, (140, 120), 18, 255, -1)                # a hand ...
    cv2.line(mask, (140, 148), (140, 199), 255, 12)          # ... its arm, 3 px (6 mm) short
    got = reaching_in(mask, px_per_mm=0.5, bridge_mm=12.0)
    assert got[60, 60] == 0 and got[120, 140] == 255 and got[190, 140] == 255
    assert reaching_in(mask, px_per_mm=0.5, bridge_mm=2.0)[120, 140] == 0   # gap not bridged


def test_guard_difference_is_the_neighbourhood_definition() -> None:
    """difference() equals its definition written out in numpy: brightness equalised by
    the per-channel median read between levels (levels kept above 255), then per pixel
    the least largest-channel difference to the other view's 3x3 neighbourhood, taken
    both ways, at most 255."""
    from firmware.motion import difference

    def median(c: np.ndarray) -> float:
        """The median of integer levels, each level's pixels spread evenly over it."""
        values = c.ravel().astype(np.int64)
        half = values.size / 2.0
        level = min(v for v in range(256) if np.count_nonzero(values <= v) >= half)
        below = np.count_nonzero(values < level)
        return level - 0.5 + (half - below) / np.count_nonzero(values == level)

    def norm(v: np.ndarray) -> np.ndarray:
        v = cv2.GaussianBlur(v, (5, 5), 0)
        med = np.array([median(v[:, :, c]) for c in range(3)], dtype=np.float32)
        gain = np.where(med > 1.0, 128.0 / np.maximum(med, 1.0), 1.0).astype(np.float32)
        return (v.astype(np.float32) * gain).astype(np.int32)

    def nearest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        h, w = a.shape[:2]
        pad = np.pad(b, ((1, 1), (1, 1), (0, 0)), mode="edge")
        shifts = [np.abs(a - pad[dy:dy + h, dx:dx + w]).max(axis=2)
                  for dy in range(3) for dx in range(3)]
        return np.minimum(np.min(shifts, axis=0), 255).astype(np.uint8)

    rng = np.random.default_rng(7)
    for h, w in ((41, 60), (64, 64)):         # odd and even pixel counts (the median's two cases)
        a = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (5, 5), 1.5)
        b = np.clip(a.astype(np.int16) + rng.integers(-40, 41, (h, w, 3)), 0, 255).astype(np.uint8)
        b[5:15, 8:20] = (30, 200, 90)
        na, nb = norm(a), norm(b)
        want = np.maximum(nearest(na, nb), nearest(nb, na))
        assert np.array_equal(difference(a, b), want)


def test_a_white_tile_laid_in_a_lamps_glare_on_a_dark_mat_is_change() -> None:
    """On a dark mat (median 50) the brightness equalisation multiplies levels by 2.5: a
    tile's face (195) laid in a glare spot (160) must still differ from the glare (both
    were clipped to 255, and dev loop game 110 lost two tiles that way)."""
    from firmware.motion import difference
    ref = np.full((120, 120, 3), 50, np.uint8)
    cv2.circle(ref, (60, 60), 40, (160, 160, 160), -1)
    cur = ref.copy()
    cur[45:75, 45:75] = 195
    assert np.count_nonzero(difference(ref, cur)[50:70, 50:70] > 12) > 300


def test_a_still_white_tile_on_a_dark_mat_is_no_change_whichever_way_the_median_level_falls() -> None:
    """A dark mat's level lies between 24 and 25 (40% of its pixels at 25 in one look, 48%
    in the next: the whole-level median 24 then 25): the white tile on it, untouched, does
    not change (scaled by 128 / 24 and 128 / 25 it was 40 levels apart; bench Challenge
    game 104 saw every tile on its table change)."""
    from firmware.motion import difference
    rng = np.random.default_rng(3)

    def look(share_25: float) -> np.ndarray:
        v = np.where(rng.random((120, 120, 1)) < share_25, 25, 24).astype(np.uint8).repeat(3, axis=2)
        v[40:80, 40:80] = 200
        return v

    d = difference(look(0.40), look(0.48))
    assert int(d[45:75, 45:75].max()) <= 12


def test_the_largest_change_leaves_out_regions_reaching_into_excluded_rectangles() -> None:
    """Two changed regions (1 px a mm): 40 x 40 mm and 20 x 20 mm; leaving out the larger's
    rectangle (a pile's top taken) gives the smaller, leaving out both gives none."""
    mask = np.zeros((200, 200), dtype=np.uint8)
    mask[10:50, 10:50] = 255
    mask[100:120, 100:120] = 255
    change = ChangeMap(mask, (0.0, 0.0), 1.0)
    assert change.largest_mm2() == 1600.0
    assert change.largest_mm2([(20.0, 20.0, 30.0, 30.0)]) == 400.0
    assert change.largest_mm2([(20.0, 20.0, 30.0, 30.0), (105.0, 105.0, 110.0, 110.0)]) == 0.0


def test_the_changed_share_within_the_view_counts_only_the_part_in_view() -> None:
    """A 100x100 mm map at 1 px a mm, its right half changed: a square wholly inside is
    measured as `fraction` does; one three quarters in view by the right edge is measured
    on that part (changed, not unknown); one with under half in view is None."""
    from firmware.motion import ChangeMap
    mask = np.zeros((100, 100), dtype=np.uint8)
    mask[:, 50:] = 255
    change = ChangeMap(mask, (0.0, 0.0), 1.0)
    assert change.share_within((40.0, 10.0, 60.0, 30.0)) == change.fraction((40.0, 10.0, 60.0, 30.0)) == 0.5
    assert change.fraction((85.0, 10.0, 105.0, 30.0)) == 1.0
    assert change.share_within((85.0, 10.0, 105.0, 30.0)) == 1.0
    assert change.share_within((10.0, -5.0, 30.0, 15.0)) == 0.0
    assert change.share_within((95.0, 10.0, 115.0, 30.0)) is None
