"""The synthetic table: seeded, randomisable renders of game tables with ground truth,
for tests, benchmarks and the demo camera (schema: docs/synthetic-table.md).

    from vision.synth import render_scene, random_scene
    r = render_scene(random_scene("town77", seed=3, resolution=(1280, 720)))
    r.image, r.truth, r.table_to_image(pts_mm)

Per-game generators register by name in GENERATORS as "module:function" and are imported
on first use, so random_scene("railways", ...) finds vision.synth.railways without this
package importing it (or failing when it is absent).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from vision.synth.pieces import SceneError, register_piece
from vision.synth.scene import Rendered, render_scene

GENERATORS: dict[str, str | Callable[..., dict[str, Any]]] = {
    "town77": "vision.synth.town77:random_scene",
    "tiles": "vision.synth.town77:tiles_scene",
    "charuco": "vision.synth.charuco:random_scene",
    "railways": "vision.synth.railways:random_scene",
}


def register_generator(game: str, fn: Callable[..., dict[str, Any]] | str) -> None:
    """Register a scene generator: fn(seed, **options) -> scene dict (or "module:function")."""
    GENERATORS[game] = fn


def random_scene(game: str, seed: int, **options: Any) -> dict[str, Any]:
    """A random scene dict of `game` (render it with render_scene)."""
    if game not in GENERATORS:
        raise SceneError(f"no scene generator for '{game}'; choose one of: {', '.join(sorted(GENERATORS))}")
    fn = GENERATORS[game]
    if isinstance(fn, str):
        mod, _, name = fn.partition(":")
        try:
            module = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            raise SceneError(f"the '{game}' scene generator is not available ({e.name})") from None
        fn = getattr(module, name)
        GENERATORS[game] = fn
    return fn(seed, **options)


__all__ = ["render_scene", "Rendered", "SceneError", "random_scene", "register_generator",
           "register_piece", "GENERATORS"]
