"""The runner's snapshot of output/ (issue 2 part 11): what ``os.walk`` would list as files, more cheaply."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localagent.executor.sandbox_runner import _output_files


def _walk_files(output: Path) -> set[str]:
    """The reference: ``os.walk`` without following links, every name it puts in ``files``."""
    found = set()
    for folder, _dirs, files in os.walk(output):
        for name in files:
            found.add((Path(folder) / name).relative_to(output).as_posix())
    return found


def test_nested_files_with_chinese_and_spaces(tmp_path: Path) -> None:
    for rel in ("a.png", "album 1/b.png", "album 1/深/c.png", "empty/.keep"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"x")
    (tmp_path / "no_files").mkdir()
    assert _output_files(tmp_path) == {"a.png", "album 1/b.png", "album 1/深/c.png", "empty/.keep"}
    assert _output_files(tmp_path) == _walk_files(tmp_path)


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_symlinks_are_listed_like_os_walk(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / "inner").mkdir(parents=True)
    (outside / "inner" / "x.txt").write_text("x", encoding="utf-8")
    output = tmp_path / "output"
    output.mkdir()
    (output / "real.txt").write_text("r", encoding="utf-8")
    (output / "to_file").symlink_to(outside / "inner" / "x.txt")
    (output / "dangling").symlink_to(outside / "nothing")
    (output / "to_dir").symlink_to(outside / "inner", target_is_directory=True)
    assert _output_files(output) == {"real.txt", "to_file", "dangling"} == _walk_files(output)


def test_missing_folder_gives_nothing(tmp_path: Path) -> None:
    assert _output_files(tmp_path / "missing") == set()
