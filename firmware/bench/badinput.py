"""Generated bad input for the device: corrupt and truncated frames, torn and garbled
journals, broken configs, profiles and button scripts. Each case must give a clear
one-line error or be skipped; anything else (another exception, a multi-line message,
a journal that loses good records) is counted as a crash.

Used by tests/firmware/test_badinput.py (a few hundred cases) and the loop bench (10,000).
"""

from __future__ import annotations

import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np

KINDS = ("frame", "journal", "config", "profile", "buttons")


@dataclass
class Outcome:
    kind: str
    result: str          # "ok" (accepted), "error" (clear one-line error), "skipped", "crash"
    message: str = ""


def _mutate_text(text: str, rng: random.Random) -> str:
    """One to three edits of the kinds people and power cuts make."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        i = rng.randrange(len(text) + 1)
        if op == 0 and text:                      # cut the file short
            text = text[:i]
        elif op == 1:                             # stray characters
            text = text[:i] + "".join(rng.choice("=[]\"'#\n x,.{}0123456789abc\x00\u00e9")
                                      for _ in range(rng.randint(1, 6))) + text[i:]
        elif op == 2 and text:                    # delete a stretch
            text = text[:i] + text[i + rng.randint(1, 20):]
        elif op == 3:                             # a value of the wrong type
            lines = text.splitlines()
            if lines:
                k = rng.randrange(len(lines))
                if "=" in lines[k]:
                    key = lines[k].split("=")[0]
                    lines[k] = key + "= " + rng.choice(['"x"', "-1", "true", "[1, 2]", "99999",
                                                        "{a = 1}", "1e400", '""', "0x3C"])
                text = "\n".join(lines)
        elif op == 4:                             # a duplicated or unknown section/key
            text = text[:i] + rng.choice(["\n[camera]\n", "\n[bogus]\n", "\nspec = 1\n",
                                          "\nfoo = \"bar\"\n", "\n[[markers]]\nid = 0\n"]) + text[i:]
        elif op == 5 and text:                    # a flipped byte
            j = rng.randrange(len(text))
            text = text[:j] + chr((ord(text[j]) ^ (1 << rng.randrange(7))) or 1) + text[j + 1:]
        else:                                     # an empty file
            text = "" if rng.random() < 0.2 else text
    return text


def _one_line(msg: str) -> bool:
    return bool(msg) and "\n" not in msg and "Traceback" not in msg


# --- configs, profiles, button scripts ---------------------------------------------------

def check_config(rng: random.Random, tmp: Path) -> Outcome:
    from firmware.config import ConfigError, load_config
    base = (Path(__file__).parents[1] / "config.example.toml").read_text(encoding="utf-8")
    path = tmp / "config.toml"
    raw = _mutate_text(base, rng).encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
    path.write_bytes(raw)
    try:
        load_config(path)
        return Outcome("config", "ok")
    except ConfigError as e:
        ok = _one_line(str(e)) and str(path) in str(e)
        return Outcome("config", "error" if ok else "crash", str(e))
    except Exception as e:  # noqa: BLE001
        return Outcome("config", "crash", f"{e.__class__.__name__}: {e}")


def check_profile(rng: random.Random, tmp: Path) -> Outcome:
    from calibration.profile import PROFILE_DIR, ProfileError, load_profile
    base = (PROFILE_DIR / rng.choice(["town77.toml", "railways.toml"])).read_text(encoding="utf-8")
    path = tmp / "profile.toml"
    path.write_text(_mutate_text(base, rng), encoding="utf-8", errors="surrogatepass")
    try:
        load_profile(path)
        return Outcome("profile", "ok")
    except ProfileError as e:
        ok = _one_line(str(e)) and str(path) in str(e)
        return Outcome("profile", "error" if ok else "crash", str(e))
    except Exception as e:  # noqa: BLE001
        return Outcome("profile", "crash", f"{e.__class__.__name__}: {e}")


def check_buttons(rng: random.Random, tmp: Path) -> Outcome:
    from firmware.buttons.base import ButtonsError
    from firmware.buttons.script import ScriptButtons
    base = "select\nnext\nwait 0.5\nmenu\nprev\nundo\nback\n"
    path = tmp / "buttons.txt"
    path.write_text(_mutate_text(base, rng), encoding="utf-8", errors="surrogatepass")
    try:
        b = ScriptButtons(path)
        b.close()
        return Outcome("buttons", "ok")
    except ButtonsError as e:
        return Outcome("buttons", "error" if _one_line(str(e)) else "crash", str(e))
    except Exception as e:  # noqa: BLE001
        return Outcome("buttons", "crash", f"{e.__class__.__name__}: {e}")


# --- journals -------------------------------------------------------------------------------

def check_journal(rng: random.Random, tmp: Path) -> Outcome:
    """A good journal damaged the ways power cuts and bad cards do: the loader keeps the
    longest trustworthy prefix, reopening keeps a copy and appends cleanly, replay works."""
    from firmware.journal import JOURNAL_NAME, Journal, encode, load, unfinished_game
    from firmware.loop import summary_from_journal
    d = tmp / f"j{rng.randrange(10**9)}"
    d.mkdir()
    good: list[tuple[str, dict[str, Any]]] = [("game_start", {"game": "town77", "options": {"players": 2}}),
            ("move", {"type": "pioneer", "tile": "a0", "cell": "A1", "frame": 1}),
            ("move", {"type": "place", "player": 0, "tile": "b1", "cell": "B1", "frame": 3}),
            ("undo", {"move": {}}),
            ("move", {"type": "place", "player": 0, "tile": "b2", "cell": "B1", "frame": 5})]
    lines = [encode(i + 1, k, v) for i, (k, v) in enumerate(good)]
    raw = b"".join(lines)
    op = rng.randrange(5)
    if op == 0:
        raw = raw[:rng.randrange(len(raw) + 1)]                       # torn at any byte
    elif op == 1:
        j = rng.randrange(len(raw))
        raw = raw[:j] + bytes([raw[j] ^ (1 << rng.randrange(8))]) + raw[j + 1:]  # bit flip
    elif op == 2:
        j = rng.randrange(len(raw) + 1)
        raw = raw[:j] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 40))) + raw[j:]
    elif op == 3:
        k = rng.randrange(len(lines))
        raw = b"".join(lines[:k] + lines[k + 1:])                     # a record lost
    else:
        raw = raw + b"\x00" * rng.randint(1, 4096)                    # zero-filled tail (ext4)
    path = d / JOURNAL_NAME
    path.write_bytes(raw)
    try:
        loaded = load(path)
        if loaded.problem is not None and not _one_line(loaded.problem):
            return Outcome("journal", "crash", f"problem not one line: {loaded.problem!r}")
        kept = b"".join(encode(r.seq, r.kind, r.data) for r in loaded.records)
        if not raw.startswith(kept):
            return Outcome("journal", "crash", f"kept records that were not in the file: {raw!r}")
        summary_from_journal(loaded.records)
        unfinished_game(loaded.records)
        with Journal(d) as journal:
            journal.append("setting", {"checked": True})
        again = load(path)
        if again.problem is not None or len(again.records) != len(loaded.records) + 1:
            return Outcome("journal", "crash", f"journal not intact after reopen: {again.problem}")
        return Outcome("journal", "error" if loaded.problem else "ok", loaded.problem or "")
    except Exception as e:  # noqa: BLE001
        return Outcome("journal", "crash", f"{e.__class__.__name__}: {e}")


# --- frames --------------------------------------------------------------------------------

_GOOD: dict[str, bytes] = {}


def _good_frame_bytes(ext: str) -> bytes:
    if ext not in _GOOD:
        rng = np.random.default_rng(0)
        noise = rng.integers(0, 255, (120, 160, 3), dtype=np.uint8)
        img = cv2.GaussianBlur(noise, (7, 7), 0)
        ok, buf = cv2.imencode(ext, img)
        assert ok
        _GOOD[ext] = buf.tobytes()
    return _GOOD[ext]


def bad_frame(rng: random.Random) -> bytes:
    ext = rng.choice([".jpg", ".png"])
    data = _good_frame_bytes(ext)
    op = rng.randrange(5)
    if op == 0:
        return data[:rng.randrange(len(data))]
    if op == 1:
        b = bytearray(data)
        for _ in range(rng.randint(1, 30)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if op == 2:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 2000)))
    if op == 3:
        return b""
    return b"not an image\n" * rng.randint(1, 50)


def check_frames(rng: random.Random, tmp: Path, count: int, judge: Callable[[Any], Any]) -> list[Outcome]:
    """`count` bad files among a recording, read the way the loop reads them
    (FramesCamera), each decodable one judged: skipped or judged, never a crash."""
    from firmware.camera.base import CameraError, EndOfStream
    from firmware.camera.files import FramesCamera
    d = tmp / f"f{rng.randrange(10**9)}"
    d.mkdir()
    for i in range(count):
        (d / f"{i:05d}{rng.choice(['.jpg', '.png'])}").write_bytes(bad_frame(rng))
    cam = FramesCamera(str(d))
    out: list[Outcome] = []
    while True:
        try:
            cam.capture_preview()
            frame = cam.capture_still()
        except EndOfStream:
            break
        except CameraError as e:
            out.append(Outcome("frame", "skipped" if _one_line(str(e)) else "crash", str(e)))
            continue
        except Exception as e:  # noqa: BLE001
            out.append(Outcome("frame", "crash", f"{e.__class__.__name__}: {e}"))
            continue
        try:
            judge(frame.image)
            out.append(Outcome("frame", "ok"))
        except Exception as e:  # noqa: BLE001
            out.append(Outcome("frame", "crash", f"{e.__class__.__name__}: {e}"))
    return out


def run_cases(n: int, seed: int, judge: Callable[[Any], Any]) -> list[Outcome]:
    """n cases spread over the kinds (frames in batches), deterministic for a seed."""
    rng = random.Random(seed)
    out: list[Outcome] = []
    checks = {"config": check_config, "profile": check_profile, "buttons": check_buttons,
              "journal": check_journal}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        per = n // len(KINDS)
        out += check_frames(rng, tmp, per, judge)
        for name, fn in checks.items():
            for _ in range(per):
                out.append(fn(rng, tmp))
        while len(out) < n:
            out.append(check_journal(rng, tmp))
    return out


def tally(outcomes: list[Outcome]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for o in outcomes:
        row = table.setdefault(o.kind, {"ok": 0, "error": 0, "skipped": 0, "crash": 0})
        row[o.result] += 1
    return table
