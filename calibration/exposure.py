"""When the camera's auto exposure and white balance have settled, and what to lock.

Locking matters more than a perfect exposure: the readers compare colours across an
evening, so the camera must stop re-deciding them. The metadata keys are libcamera's
as picamera2 reports them (capture_metadata()): ExposureTime (us), AnalogueGain,
DigitalGain, ColourGains (red, blue), and AeLocked / AeState where the pipeline has them.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Sequence

SETTLE_FRAMES = 6         # this many consecutive frames must agree
SETTLE_TOLERANCE = 0.02   # relative spread allowed in exposure x gain and in each colour gain


def _brightness(md: Mapping[str, Any]) -> float | None:
    if "ExposureTime" not in md or "AnalogueGain" not in md:
        return None
    return float(md["ExposureTime"]) * float(md["AnalogueGain"]) * float(md.get("DigitalGain", 1.0))


def _spread(values: Sequence[float]) -> float:
    lo, hi = min(values), max(values)
    return (hi - lo) / max(abs(hi), 1e-9)


def is_settled(history: Sequence[Mapping[str, Any]], frames: int = SETTLE_FRAMES,
               tolerance: float = SETTLE_TOLERANCE) -> bool:
    """True when the last `frames` metadata dicts agree on exposure x gain and colour gains
    within `tolerance` (relative), and the AE does not report itself still converging."""
    if len(history) < frames:
        return False
    last = list(history)[-frames:]
    if last[-1].get("AeLocked") is False:
        return False
    if "AeState" in last[-1] and last[-1]["AeState"] not in (2, "Converged", "converged"):
        # libcamera AeState: 0 Idle, 1 Searching, 2 Converged
        return False
    b = [_brightness(m) for m in last]
    if any(v is None for v in b) or _spread([v for v in b if v is not None]) > tolerance:
        return False
    if all("ColourGains" in m for m in last):
        for i in range(2):
            if _spread([float(m["ColourGains"][i]) for m in last]) > tolerance:
                return False
    return True


HEADROOM_STOPS = 1.0      # how far under the auto exposure to lock, so a room one stop brighter
                          # does not clip the paper white. Measured with the Town 77 reader
                          # (bench 'calibration', 2 scenes x 12 lights, 1280x720): pieces read as
                          # under neutral light 69% with no headroom, 80% at 0.6 stop, 84% at 1.


def locked_controls(md: Mapping[str, Any], headroom_stops: float = HEADROOM_STOPS) -> dict[str, Any]:
    """picamera2 set_controls() values that freeze the settled exposure and white balance,
    the exposure `headroom_stops` under what the auto exposure chose (the per-frame colour
    normalisation brings the darker frame back; a clipped white cannot be brought back)."""
    controls: dict[str, Any] = {"AeEnable": False, "AwbEnable": False}
    if "ExposureTime" in md:
        controls["ExposureTime"] = max(1, int(float(md["ExposureTime"]) * 2.0 ** -headroom_stops))
    if "AnalogueGain" in md:
        controls["AnalogueGain"] = float(md["AnalogueGain"])
    if "ColourGains" in md:
        r, b = md["ColourGains"]
        controls["ColourGains"] = (float(r), float(b))
    return controls


def wait_until_settled(capture_metadata: Callable[[], Mapping[str, Any]], timeout_s: float = 5.0,
                       clock: Callable[[], float] = time.monotonic,
                       frames: int = SETTLE_FRAMES, tolerance: float = SETTLE_TOLERANCE
                       ) -> tuple[Mapping[str, Any], bool]:
    """Poll metadata (one call per frame) until settled or timed out; returns the last
    metadata and whether it settled (on timeout lock anyway: a fixed exposure beats a
    drifting one)."""
    history: list[Mapping[str, Any]] = []
    start = clock()
    while True:
        md = capture_metadata()
        history.append(md)
        if is_settled(history, frames, tolerance):
            return md, True
        if clock() - start >= timeout_s:
            return md, False
