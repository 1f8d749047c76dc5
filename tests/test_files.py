"""`atomic_write`: a reader sees the old file or the new one; a failed write leaves no trace."""

from __future__ import annotations

import json

import pytest

from foxgeese.files import atomic_write, write_json_atomic


def test_a_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "results.json"
    path.write_text("old")
    write_json_atomic(path, {"b": 1, "a": [2]})
    assert json.loads(path.read_text()) == {"a": [2], "b": 1}
    assert path.read_text().endswith("\n")
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_a_failed_write_keeps_the_old_content(tmp_path):
    path = tmp_path / "table.bin"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic_write(path, "wb") as out:
            out.write(b"half of the new")
            raise RuntimeError("disk full")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["table.bin"]


def test_two_open_writers_of_one_path_do_not_share_a_temporary(tmp_path):
    path = tmp_path / "results.json"
    with atomic_write(path) as first, atomic_write(path) as second:
        assert first.name != second.name
        first.write("first")
        second.write("second")
    assert path.read_text() == "first"  # the outer block finishes last and wins


def test_a_durable_write_fsyncs_the_file_and_its_folder_and_a_cache_write_does_neither(tmp_path, monkeypatch):
    import os

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda descriptor: synced.append(descriptor) or real_fsync(descriptor))
    with atomic_write(tmp_path / "record.json") as out:
        out.write("kept through a power cut")
    assert len(synced) == 2
    with atomic_write(tmp_path / "cache.bin", "wb", durable=False) as out:
        out.write(b"rebuilt if lost")
    assert len(synced) == 2 and (tmp_path / "cache.bin").read_bytes() == b"rebuilt if lost"
