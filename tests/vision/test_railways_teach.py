"""Teaching reference cards and recognising them (vision.railways.teach)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.api import ReadError
from vision.railways.teach import match_card, teach_cards


def _card(seed: int) -> np.ndarray:  # type: ignore[type-arg]
    """A printed-looking card: random shapes and text on a coloured square."""
    rng = np.random.default_rng(seed)
    img = np.full((300, 300, 3), (60, 200, 240), np.uint8)
    for _ in range(14):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        x, y = (int(v) for v in rng.integers(20, 280, 2))
        cv2.rectangle(img, (x, y), (x + int(rng.integers(10, 60)), y + int(rng.integers(10, 60))), c, -1)
    cv2.putText(img, f"STATION {seed}", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (20, 20, 20), 2)
    return img


def test_taught_cards_are_recognised_turned_and_smaller(tmp_path: Path) -> None:
    """Each taught card is found again when seen turned 90 degrees and at half size."""
    for s in (1, 2, 3):
        cv2.imwrite(str(tmp_path / f"card{s}.png"), _card(s))
    palette = teach_cards(tmp_path)
    cards = palette["railways_cards"]
    assert sorted(cards) == ["card1", "card2", "card3"]
    for s in (1, 2, 3):
        seen = cv2.resize(cv2.rotate(_card(s), cv2.ROTATE_90_CLOCKWISE), (150, 150))
        name, good = match_card(seen, cards)
        assert name == f"card{s}", (name, good)


def test_an_untaught_card_is_not_named(tmp_path: Path) -> None:
    """A card never taught, sharing only the common layout, is named as none of them."""
    for s in (1, 2, 3):
        cv2.imwrite(str(tmp_path / f"card{s}.png"), _card(s))
    cards = teach_cards(tmp_path)["railways_cards"]
    for s in (42, 43):
        name, _ = match_card(_card(s), cards)
        assert name is None


def test_empty_folder_is_a_one_line_error(tmp_path: Path) -> None:
    """No images: the error names the folder and the fix."""
    with pytest.raises(ReadError, match=r"no card images \(\.png/\.jpg\) found; put one photo per card there"):
        teach_cards(tmp_path)
