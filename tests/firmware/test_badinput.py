"""Bad input never crashes the device: a clear one-line error, or the input is skipped.

A few hundred generated cases here (the bench runs 10,000), plus the real command on
broken files: exit code 2, one line on stderr naming the file, no traceback.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import loopkit
import minitable
from firmware.bench.badinput import run_cases, tally
from firmware.games.town77 import Town77Session

RUNNER = Path(__file__).with_name("run_minitable.py")


def test_generated_bad_inputs_give_errors_or_skips_never_crashes() -> None:
    """300 corrupt frames, damaged journals, broken configs, profiles and button scripts."""
    ref = loopkit.referee(Path(tempfile.mkdtemp()), [])
    ref.session = Town77Session({"players": 2})
    ref.profile = minitable.PROFILE
    outcomes = run_cases(300, 1, ref.judge)
    crashes = [o for o in outcomes if o.result == "crash"]
    assert crashes == []
    table = tally(outcomes)
    assert set(table) == {"frame", "journal", "config", "profile", "buttons"}
    assert all(row["error"] + row["skipped"] > 0 for row in table.values())


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(RUNNER), *args], capture_output=True, text=True,
                          timeout=60, cwd=tmp)


@pytest.mark.parametrize("case", ["config", "buttons", "frames", "state", "profile", "players"])
def test_the_command_reports_bad_files_in_one_line(case: str, tmp_path: Path) -> None:
    """`tableref run` with one broken input: exit 2, `tableref: <file>: <what and fix>`."""
    frames = tmp_path / "frames"
    frames.mkdir()
    import cv2
    cv2.imwrite(str(frames / "0000.png"), minitable.render({}))
    args = ["run", "--game", "town77", "--players", "2", "--camera", f"frames:{frames}",
            "--display", "null", "--buttons", "none", "--state-dir", str(tmp_path / "state")]
    expect = ""
    if case == "config":
        bad = tmp_path / "config.toml"
        bad.write_text("[motion]\nstill_seconds = \"soon\"\n")
        args += ["--config", str(bad)]
        expect = f"tableref: {bad}: line 2: motion.still_seconds = 'soon': expected a number"
    elif case == "buttons":
        bad = tmp_path / "b.txt"
        bad.write_text("select\njump\n")
        args[args.index("none")] = f"script:{bad}"
        expect = f"tableref: {bad}: line 2: 'jump' is not a button event"
    elif case == "frames":
        args[args.index(f"frames:{frames}")] = f"frames:{tmp_path / 'nope'}"
        expect = f"tableref: {tmp_path / 'nope'}: no such folder of frames"
    elif case == "state":
        blocker = tmp_path / "file"
        blocker.write_text("x")
        args[args.index(str(tmp_path / "state"))] = str(blocker / "sub")
        expect = f"tableref: {blocker / 'sub'}: cannot create the state folder"
    elif case == "profile":
        bad = tmp_path / "p.toml"
        bad.write_text("[table]\nname = 'x'\n")
        args += ["--profile", str(bad)]
        expect = f"tableref: {bad}: no [[markers]] and no [homography]"
    else:
        args[args.index("--players") + 1] = "9"
        expect = "tableref: --players 9: Town 77 takes 2 to 5"
    done = _run(args, tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr
    assert lines[0].startswith(expect), lines[0]
