"""Pixel-exact reference images for screens, shared by every game's screen tests.

    from refimg import assert_matches_ref        # or the `assert_matches_ref` fixture
    assert_matches_ref(town77_score_screen(state), "town77_score")

compares with tests/screens/ref/town77_score.png. Run with TABLEREF_UPDATE_REFS=1 to
(re)write the references, then LOOK at them (they are 128x64; scale up to view) before
committing. Exact comparison is deliberate: a screen is a pure function, so any changed
pixel is a changed screen. Fonts come from Pillow's built-in FreeType font, so a Pillow or
FreeType upgrade may need the references regenerated; the failure says so.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from PIL import Image, ImageChops

REF_DIR = Path(__file__).resolve().parent / "ref"
WIDTH, HEIGHT = 128, 64


def _ascii(image: Image.Image) -> str:
    """The image as '#'/'.' rows: readable in a pytest failure without an image viewer."""
    px = image.convert("1").load()
    assert px is not None
    return "\n".join("".join("#" if px[x, y] else "." for x in range(image.width))
                     for y in range(image.height))


def assert_matches_ref(image: Image.Image, name: str, ref_dir: Path | None = None) -> None:
    """Fail unless `image` is a 128x64 mode "1" image equal pixel for pixel to ref/<name>.png."""
    assert image.mode == "1", f"screen {name!r} is mode {image.mode!r}; screens must be mode '1'"
    assert image.size == (WIDTH, HEIGHT), f"screen {name!r} is {image.size}; screens must be 128x64"
    ref_dir = REF_DIR if ref_dir is None else ref_dir
    path = ref_dir / f"{name}.png"
    if os.environ.get("TABLEREF_UPDATE_REFS") == "1":
        ref_dir.mkdir(parents=True, exist_ok=True)
        image.save(path)
        return
    if not path.exists():
        raise AssertionError(f"{path}: no reference image; run the test with "
                             "TABLEREF_UPDATE_REFS=1 to write it, then look at it")
    with Image.open(path) as ref_file:
        ref = ref_file.convert("1")
    diff = ImageChops.difference(image.convert("L"), ref.convert("L"))
    box = diff.getbbox()
    if box is None:
        return
    out = Path(tempfile.gettempdir()) / f"tableref-screen-{name}.png"
    image.save(out)
    changed = WIDTH * HEIGHT - diff.histogram()[0]
    raise AssertionError(
        f"screen {name!r} differs from {path} in {changed} pixels within box {box}; "
        f"actual saved to {out} (TABLEREF_UPDATE_REFS=1 accepts it; a Pillow/FreeType "
        f"upgrade can shift glyphs)\nactual:\n{_ascii(image)}\nreference:\n{_ascii(ref)}")
