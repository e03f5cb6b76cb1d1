"""Station identity by feature matching: `tableref teach --game railways --cards DIR`
stores ORB features of each reference card image; at analyze time each station seen is
cut out of the frame, squared up and matched against them.

Why ORB: card art is printed detail (names, icons, numbers) that keypoints describe well,
ORB is free, fast on a Pi and rotation invariant (cards lie at any angle); binary
descriptors store compactly as hex in the palette TOML.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from vision.api import AnalyzeOptions, ReadError

CARD_PX = 320
MIN_GOOD = 15
RATIO = 0.75
SEPARATION = 1.6
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


def _orb() -> Any:
    return cv2.ORB_create(nfeatures=400, scaleFactor=1.2, nlevels=6,  # type: ignore[attr-defined]
                          edgeThreshold=15, patchSize=15)


def card_features(image_bgr: NDArray[Any]) -> tuple[NDArray[np.float32], NDArray[np.uint8]]:
    """(Nx2 keypoint positions, Nx32 ORB descriptors) of a card image squared to CARD_PX."""
    g = image_bgr if image_bgr.ndim == 2 else cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    g = cv2.resize(g, (CARD_PX, CARD_PX), interpolation=cv2.INTER_AREA)
    g = cv2.equalizeHist(g)
    kps, des = _orb().detectAndCompute(g, None)
    if des is None:
        return np.zeros((0, 2), np.float32), np.zeros((0, 32), np.uint8)
    pts = np.array([k.pt for k in kps], dtype=np.float32).reshape(-1, 2)
    return pts, np.asarray(des, dtype=np.uint8)


def teach_cards(card_dir: str | Path, options: Any = None) -> dict[str, Any]:
    """Palette entries for every card image in card_dir (name = file stem)."""
    d = Path(card_dir)
    if not d.is_dir():
        raise ReadError(f"{d}: not a folder of card images; give --cards FOLDER")
    cards: dict[str, Any] = {}
    for p in sorted(d.iterdir()):
        if p.suffix.lower() not in IMAGE_SUFFIXES:
            continue
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise ReadError(f"{p}: cannot read this image; replace or remove it")
        pts, des = card_features(img)
        n = len(des)
        if n < MIN_GOOD:
            raise ReadError(f"{p}: too little detail to recognise ({n} features); use a sharper photo")
        cards[p.stem] = {"features": n, "descriptors": des.tobytes().hex(),
                         "points": np.round(pts).astype(np.int16).tobytes().hex()}
    if not cards:
        raise ReadError(f"{d}: no card images (.png/.jpg) found; put one photo per card there")
    return {"railways_cards": cards}


def _descriptors(entry: dict[str, Any]) -> tuple[NDArray[np.float32], NDArray[np.uint8]]:
    des = np.frombuffer(bytes.fromhex(str(entry["descriptors"])), dtype=np.uint8).reshape(-1, 32)
    pts = np.frombuffer(bytes.fromhex(str(entry["points"])), dtype=np.int16).reshape(-1, 2)
    return pts.astype(np.float32), des


def match_card(patch_bgr: NDArray[Any], cards: dict[str, Any]) -> tuple[str | None, int]:
    """The taught card a cut-out station looks like, and how many matches agree on one
    geometric placement (RANSAC homography inliers: look-alike cards do not line up)."""
    pts, des = card_features(patch_bgr)
    if len(des) < 4:
        return None, 0
    bf = cv2.BFMatcher(cv2.NORM_HAMMING)
    scores: list[tuple[int, str]] = []
    for name, entry in cards.items():
        rpts, ref = _descriptors(entry)
        if len(ref) < 4:
            continue
        src, dst = [], []
        for pair in bf.knnMatch(des, ref, k=2):
            if len(pair) == 2 and pair[0].distance < RATIO * pair[1].distance:
                src.append(pts[pair[0].queryIdx])
                dst.append(rpts[pair[0].trainIdx])
        if len(src) < MIN_GOOD:
            continue
        _, inl = cv2.findHomography(np.array(src), np.array(dst), cv2.RANSAC, 6.0)
        scores.append((int(inl.sum()) if inl is not None else 0, name))
    if not scores:
        return None, 0
    scores.sort(reverse=True)
    top, name = scores[0]
    second = scores[1][0] if len(scores) > 1 else 0
    # cards share their layout (name plate, boxes, icons), so a match must stand out
    # from the other taught cards, not only pass a fixed count
    if top >= MIN_GOOD and top >= SEPARATION * second:
        return name, top
    return None, top


def identify_stations(image: NDArray[Any], fit: TableFit, options: AnalyzeOptions,
                      out: dict[str, Any]) -> None:
    """Add "card" (the taught card's name, or null) to every station of a reading."""
    cards = (options.palette or {}).get("railways_cards") or {}
    dst = np.array([[0, 0], [CARD_PX, 0], [CARD_PX, CARD_PX], [0, CARD_PX]], dtype=np.float32)
    for st in out.get("stations", []):
        if st.get("metropolis"):
            st["card"] = None
            continue
        corners = fit.to_image(np.asarray(st["polygon_mm"], dtype=np.float64)).astype(np.float32)
        m = cv2.getPerspectiveTransform(corners[:4], dst)
        patch = cv2.warpPerspective(image, m, (CARD_PX, CARD_PX))
        name, _ = match_card(patch, cards)
        st["card"] = name
