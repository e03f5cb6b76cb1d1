"""Deciding when auto exposure and white balance have settled, and what to lock."""

from __future__ import annotations

from calibration.exposure import is_settled, locked_controls, wait_until_settled


def _md(exp: float, gain: float = 2.0, cg: tuple[float, float] = (1.8, 1.5), **kw: object) -> dict[str, object]:
    return {"ExposureTime": exp, "AnalogueGain": gain, "ColourGains": cg, **kw}


def test_settled_needs_agreeing_frames() -> None:
    """Six frames within 2% settle; a drifting exposure or colour gain, or AE searching, does not."""
    assert not is_settled([_md(10000)] * 5)
    assert is_settled([_md(10000 + i * 20) for i in range(6)])
    assert not is_settled([_md(10000 + i * 400) for i in range(6)])
    assert not is_settled([_md(10000, cg=(1.8 + 0.1 * i, 1.5)) for i in range(6)])
    assert not is_settled([_md(10000, AeLocked=False)] * 6)
    assert not is_settled([_md(10000, AeState=1)] * 6)
    assert is_settled([_md(10000, AeState=2)] * 6)


def test_locked_controls_freeze_what_was_settled() -> None:
    """The lock turns AE/AWB off and pins exposure (optionally with headroom), gain and colour gains."""
    assert locked_controls(_md(20000, 1.5, (2.0, 1.25)), headroom_stops=1.0)["ExposureTime"] == 10000
    assert locked_controls(_md(12345.6, 1.5, (2.0, 1.25)), headroom_stops=0.0) == {
        "AeEnable": False, "AwbEnable": False, "ExposureTime": 12345, "AnalogueGain": 1.5,
        "ColourGains": (2.0, 1.25)}


def test_wait_until_settled_polls_and_times_out() -> None:
    """A converging camera settles after a few frames; a drifting one times out unsettled."""
    seq = iter([_md(20000 - 2000 * i) for i in range(5)] + [_md(10000)] * 20)
    md, ok = wait_until_settled(lambda: next(seq), timeout_s=100.0)
    assert ok and md["ExposureTime"] == 10000
    t = iter(range(1000))
    n = iter(range(1000))
    md, ok = wait_until_settled(lambda: _md(10000 + 500 * next(n)), timeout_s=10.0, clock=lambda: float(next(t)))
    assert not ok
