"""Hypothesis draws the same examples on every run, so CI is deterministic (a whole
simulated game through the session's heuristics is a large example space, and a seed
found at random once made CI fail by luck). HYPOTHESIS_PROFILE=explore searches new
examples; whatever it finds becomes a test of its own."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
