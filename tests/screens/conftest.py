"""Makes the reference-image checker available as the `assert_matches_ref` fixture,
whatever pytest import mode or package layout the test files use."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Callable

import pytest

_spec = importlib.util.spec_from_file_location(
    "tableref_tests_refimg", Path(__file__).with_name("refimg.py"))
assert _spec is not None and _spec.loader is not None
refimg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(refimg)


@pytest.fixture
def assert_matches_ref() -> Callable[..., None]:
    """assert_matches_ref(image, name[, ref_dir]): pixel-exact against tests/screens/ref/<name>.png."""
    return refimg.assert_matches_ref  # type: ignore[no-any-return]
