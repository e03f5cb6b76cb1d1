"""Hypothesis draws the same examples on every run, so CI is deterministic (a whole
simulated game through the session's heuristics is a large example space, and a seed
found at random once made CI fail by luck). HYPOTHESIS_PROFILE=explore searches new
examples; whatever it finds becomes a test of its own. Input generation that is only slow
because the machine is busy (a bench beside the tests) is no failure."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
