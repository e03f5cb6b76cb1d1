"""The append-only journal: one JSON object a line, flushed and fsynced, so a power cut
loses at most the record being written and never what came before.

Each line is `{"seq": N, "kind": K, "data": {...}, "crc": "xxxxxxxx"}` where crc is the
CRC-32 of the canonical JSON of seq, kind and data. The loader trusts a line only when
it parses, its CRC matches and its seq follows the previous one; it stops at the first
line that fails (a torn last line after a power cut, or garbage in the middle), keeps
what came before and reports the problem in one line. Opening a damaged journal for
writing first copies it aside (nothing is ever thrown away) and then truncates it to
the last good record, so new records never follow garbage.

Kinds: "setting", "game_start", "move", "undo", "end". Replaying the records of the
last game (firmware.games.replay) restores the game exactly.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

JOURNAL_NAME = "journal.jsonl"
KINDS = ("setting", "game_start", "move", "undo", "end")


class JournalError(RuntimeError):
    """The journal cannot be used (folder not writable, ...); the message names the fix."""


@dataclass(frozen=True)
class Record:
    seq: int
    kind: str
    data: dict[str, Any]


@dataclass
class Loaded:
    """What the loader kept, where the good part ends, and the problem if any (one line)."""

    records: list[Record] = field(default_factory=list)
    good_bytes: int = 0
    problem: str | None = None
    torn: bool = False


def _body(seq: int, kind: str, data: dict[str, Any]) -> str:
    return json.dumps({"seq": seq, "kind": kind, "data": data}, sort_keys=True,
                      separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def _crc(body: str) -> str:
    return f"{zlib.crc32(body.encode('ascii')) & 0xFFFFFFFF:08x}"


def encode(seq: int, kind: str, data: dict[str, Any]) -> bytes:
    """One journal line (with its newline)."""
    body = _body(seq, kind, data)
    return (body[:-1] + f',"crc":"{_crc(body)}"' + "}\n").encode("ascii")


def _decode(line: bytes, expect_seq: int) -> Record | str:
    """A Record, or the reason the line is not trustworthy."""
    try:
        obj = json.loads(line.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return "not valid JSON"
    if not isinstance(obj, dict) or set(obj) != {"seq", "kind", "data", "crc"}:
        return "not a journal record"
    seq, kind, data, crc = obj["seq"], obj["kind"], obj["data"], obj["crc"]
    if not isinstance(seq, int) or not isinstance(kind, str) or not isinstance(data, dict) \
            or not isinstance(crc, str):
        return "fields of the wrong type"
    if kind not in KINDS:
        return f"unknown kind {kind!r}"
    try:
        body = _body(seq, kind, data)
    except ValueError:
        return "not valid JSON"
    if _crc(body) != crc:
        return "checksum mismatch"
    if seq != expect_seq:
        return f"sequence number {seq}, expected {expect_seq}"
    if encode(seq, kind, data) != line + b"\n":
        return "not byte-for-byte what was written"
    return Record(seq, kind, data)


def parse(raw: bytes, name: str = JOURNAL_NAME) -> Loaded:
    """Every trustworthy record from the start of `raw`; never raises."""
    out = Loaded()
    pos = 0
    lineno = 0
    while pos < len(raw):
        end = raw.find(b"\n", pos)
        lineno += 1
        if end < 0:  # no newline: the write was cut short
            out.torn = True
            out.problem = (f"{name} line {lineno}: unfinished last record (power cut while "
                           "writing?); dropped it")
            break
        line = raw[pos:end]
        got = _decode(line, len(out.records) + 1)
        if isinstance(got, str):
            last = raw.find(b"\n", end + 1) < 0 and end + 1 >= len(raw)
            out.torn = last
            what = "last record" if last else "record"
            rest = "" if last else "; kept the records before it"
            out.problem = f"{name} line {lineno}: damaged {what} ({got}); dropped it{rest}"
            break
        out.records.append(got)
        pos = end + 1
        out.good_bytes = pos
    return out


def load(path: str | Path) -> Loaded:
    """Read a journal file; a missing file is an empty journal, never an error."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        return Loaded()
    except OSError as e:
        return Loaded(problem=f"{p}: cannot read the journal ({e.strerror}); check the state folder")
    return parse(raw, p.name)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class Journal:
    """The open journal of one state folder; every append is on disk when it returns."""

    def __init__(self, state_dir: str | Path) -> None:
        self.dir = Path(state_dir)
        self.path = self.dir / JOURNAL_NAME
        try:
            created_dir = not self.dir.exists()
            self.dir.mkdir(parents=True, exist_ok=True)
            if created_dir:
                _fsync_dir(self.dir.parent)
        except OSError as e:
            raise JournalError(f"{self.dir}: cannot create the state folder ({e.strerror}); "
                               "give --state-dir a writable folder") from None
        self.loaded = load(self.path)
        self.records: list[Record] = list(self.loaded.records)
        try:
            if self.loaded.problem is not None and self.path.exists():
                keep = self.path.with_name(f"{JOURNAL_NAME}.damaged-{int(time.time())}")
                shutil.copyfile(self.path, keep)
                with open(self.path, "r+b") as f:
                    f.truncate(self.loaded.good_bytes)
                    f.flush()
                    os.fsync(f.fileno())
            created = not self.path.exists()
            self._f = open(self.path, "ab")
            if created:
                os.fsync(self._f.fileno())
                _fsync_dir(self.dir)
        except OSError as e:
            raise JournalError(f"{self.path}: cannot open the journal ({e.strerror}); "
                               "give --state-dir a writable folder") from None

    @property
    def problem(self) -> str | None:
        """What the loader dropped when this journal was opened (one line), if anything."""
        return self.loaded.problem

    def append(self, kind: str, data: dict[str, Any] | None = None) -> Record:
        if kind not in KINDS:
            raise ValueError(f"unknown journal kind {kind!r}")
        if self._f.closed:
            raise JournalError(f"{self.path}: the journal is closed")
        rec = Record(len(self.records) + 1, kind, dict(data or {}))
        self._f.write(encode(rec.seq, rec.kind, rec.data))
        self._f.flush()
        os.fsync(self._f.fileno())
        self.records.append(rec)
        return rec

    def close(self) -> None:
        if not self._f.closed:
            self._f.flush()
            os.fsync(self._f.fileno())
            self._f.close()

    @property
    def closed(self) -> bool:
        return self._f.closed

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def last_game(records: list[Record]) -> list[Record]:
    """The records of the most recent game: its game_start and everything after."""
    for i in range(len(records) - 1, -1, -1):
        if records[i].kind == "game_start":
            return records[i:]
    return []


def unfinished_game(records: list[Record]) -> list[Record] | None:
    """The last game's records when it has no "end" record (a resume is offered), else None."""
    game = last_game(records)
    if not game or any(r.kind == "end" for r in game):
        return None
    return game


def settings(records: list[Record]) -> dict[str, Any]:
    """The device settings as last written ("setting" records override key by key)."""
    out: dict[str, Any] = {}
    for r in records:
        if r.kind == "setting":
            out.update(r.data)
    return out
