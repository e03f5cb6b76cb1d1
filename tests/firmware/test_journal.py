"""The journal: every record on disk, torn or garbled lines dropped, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings, strategies as st

from firmware.journal import (JOURNAL_NAME, Journal, encode, load, parse, settings as read_settings,
                              unfinished_game)


def _write(tmp_path: Path, n: int = 3) -> Path:
    with Journal(tmp_path) as j:
        j.append("game_start", {"game": "town77", "options": {"players": 2}})
        for i in range(n):
            j.append("move", {"type": "place", "i": i})
    return tmp_path / JOURNAL_NAME


def test_round_trip_keeps_every_record(tmp_path: Path) -> None:
    """Records come back in order with their sequence numbers and data."""
    path = _write(tmp_path)
    got = load(path)
    assert got.problem is None
    assert [r.seq for r in got.records] == [1, 2, 3, 4]
    assert got.records[0].data == {"game": "town77", "options": {"players": 2}}
    assert [r.data.get("i") for r in got.records[1:]] == [0, 1, 2]


def test_each_line_is_one_json_object_with_a_crc(tmp_path: Path) -> None:
    """The file is JSON lines, each carrying seq, kind, data and crc."""
    path = _write(tmp_path, 1)
    lines = path.read_text().splitlines()
    assert len(lines) == 2
    for line in lines:
        assert set(json.loads(line)) == {"seq", "kind", "data", "crc"}


def test_torn_last_line_is_dropped(tmp_path: Path) -> None:
    """A power cut mid-write leaves half a line: it is dropped, the rest kept."""
    path = _write(tmp_path)
    raw = path.read_bytes()
    path.write_bytes(raw[:-7])
    got = load(path)
    assert [r.seq for r in got.records] == [1, 2, 3]
    assert got.torn
    assert got.problem == f"{JOURNAL_NAME} line 4: unfinished last record (power cut while writing?); dropped it"


def test_garbage_in_the_middle_keeps_what_came_before(tmp_path: Path) -> None:
    """A damaged middle line stops the loader there, reporting it in one line."""
    path = _write(tmp_path)
    lines = path.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"i":0', b'"i":9')
    path.write_bytes(b"\n".join(lines))
    got = load(path)
    assert [r.seq for r in got.records] == [1]
    assert got.problem == (f"{JOURNAL_NAME} line 2: damaged record (checksum mismatch); "
                           "dropped it; kept the records before it")


def test_reopening_a_damaged_journal_truncates_and_keeps_a_copy(tmp_path: Path) -> None:
    """New records never follow garbage, and the damaged original is kept aside."""
    path = _write(tmp_path)
    path.write_bytes(path.read_bytes() + b'{"seq": 5, "kind"')
    with Journal(tmp_path) as j:
        assert j.problem is not None
        j.append("undo", {})
    got = load(path)
    assert got.problem is None
    assert [r.kind for r in got.records][-1] == "undo"
    assert [r.seq for r in got.records] == [1, 2, 3, 4, 5]
    assert len(list(tmp_path.glob(JOURNAL_NAME + ".damaged-*"))) == 1


def test_missing_journal_is_empty(tmp_path: Path) -> None:
    """No journal yet means no records and no problem."""
    got = load(tmp_path / "nope.jsonl")
    assert got.records == [] and got.problem is None


def test_unfinished_game_is_offered_until_it_ends(tmp_path: Path) -> None:
    """The last game without an "end" record is the one to resume."""
    with Journal(tmp_path) as j:
        j.append("setting", {"brightness": 3})
        j.append("game_start", {"game": "town77"})
        j.append("move", {"type": "pioneer"})
        game = unfinished_game(j.records)
        assert game is not None and [r.kind for r in game] == ["game_start", "move"]
        j.append("end", {})
        assert unfinished_game(j.records) is None
        assert read_settings(j.records) == {"brightness": 3}


def test_sequence_gap_is_refused() -> None:
    """A line whose seq does not follow is not trusted (a copied or spliced journal)."""
    raw = encode(1, "move", {}) + encode(3, "move", {})
    got = parse(raw)
    assert len(got.records) == 1
    assert got.problem is not None and "sequence number 3, expected 2" in got.problem


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=400))
def test_any_bytes_never_crash_the_loader(noise: bytes, cut: int) -> None:
    """Random garbage, alone or spliced into a good journal, gives records and a one-line problem."""
    good = b"".join(encode(i + 1, "move", {"i": i}) for i in range(4))
    for raw in (noise, good[:cut] + noise, good + noise):
        got = parse(raw)
        assert all(r.seq == i + 1 for i, r in enumerate(got.records))
        assert got.problem is None or "\n" not in got.problem
        assert raw.startswith(b"".join(encode(r.seq, r.kind, r.data) for r in got.records))
