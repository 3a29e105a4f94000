"""Scanned file infos read size and time on first use (issue 3 §2 and benchmarks: a scan costs no stat per file)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from localagent.tools.types import WorkspaceFileInfo
from localagent.workspace.index import WorkspaceIndex
from localagent.workspace.policy import AccessPolicy
from localagent.workspace.scanner import scan_workspace


def _write(root: Path, rel: str, data: bytes = b"x\n", mtime: float | None = None) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def _by_rel(result) -> dict[str, WorkspaceFileInfo]:
    return {f.relative_path: f for f in result.files}


def test_size_and_time_come_from_the_file_on_first_use(tmp_path: Path) -> None:
    _write(tmp_path, "a.txt", b"12345", mtime=1_700_000_000)
    info = _by_rel(scan_workspace(AccessPolicy(tmp_path)))["a.txt"]
    _write(tmp_path, "a.txt", b"1234567", mtime=1_700_000_100)  # changed after the scan, before first use
    assert info.size_bytes == 7
    assert info.modified_timestamp == 1_700_000_100
    assert info.last_modified == datetime.fromtimestamp(1_700_000_100)
    _write(tmp_path, "a.txt", b"1", mtime=1_700_000_200)  # cached after first use
    assert info.size_bytes == 7 and info.modified_timestamp == 1_700_000_100


def test_file_gone_since_the_scan_has_no_size_and_no_time(tmp_path: Path) -> None:
    _write(tmp_path, "gone.txt", b"abc", mtime=1_700_000_000)
    _write(tmp_path, "kept.txt", b"abc", mtime=1_600_000_000)
    result = scan_workspace(AccessPolicy(tmp_path))
    (tmp_path / "gone.txt").unlink()
    gone = _by_rel(result)["gone.txt"]
    assert gone.size_bytes == 0 and gone.last_modified is None and gone.modified_timestamp is None
    assert [f.relative_path for f in WorkspaceIndex(result.files).recent_files()] == ["kept.txt", "gone.txt"]


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_file_swapped_for_a_symlink_after_the_scan_is_not_followed(tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside", "big.bin", b"y" * 5000, mtime=1_800_000_000)
    root = tmp_path / "ws"
    _write(root, "a.txt", b"x", mtime=1_700_000_000)
    info = _by_rel(scan_workspace(AccessPolicy(root)))["a.txt"]
    (root / "a.txt").unlink()
    (root / "a.txt").symlink_to(outside)
    assert info.size_bytes == len(str(outside))  # the link itself (lstat), never the outside file
    assert info.modified_timestamp != 1_800_000_000


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_symlinked_file_inside_reports_its_target_and_keeps_name_order(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    _write(root, "real/inside.cpp", b"int main;\n")
    _write(root, "b.txt")
    (root / "a_link.cpp").symlink_to(root / "real" / "inside.cpp")
    (root / "c_link.cpp").symlink_to(root / "real" / "inside.cpp")
    result = scan_workspace(AccessPolicy(root))
    assert [f.relative_path for f in result.files] == ["a_link.cpp", "b.txt", "c_link.cpp", "real/inside.cpp"]
    assert _by_rel(result)["a_link.cpp"].size_bytes == len(b"int main;\n")


def test_truncated_scan_keeps_the_shallow_files(tmp_path: Path) -> None:
    for i in range(30):
        _write(tmp_path, f"a_deep/sub/f{i:02}.txt")
    _write(tmp_path, "z_top.txt")
    _write(tmp_path, "a_deep/mid.txt")
    result = scan_workspace(AccessPolicy(tmp_path), max_files=5)
    rels = [f.relative_path for f in result.files]
    assert result.truncated and rels[:2] == ["z_top.txt", "a_deep/mid.txt"] and len(rels) == 5


def test_names_give_suffix_text_and_hidden(tmp_path: Path) -> None:
    _write(tmp_path, "Main.CPP")
    _write(tmp_path, ".env.example")
    _write(tmp_path, "photo.png")
    infos = _by_rel(scan_workspace(AccessPolicy(tmp_path)))
    assert infos["Main.CPP"].suffix == ".cpp" and infos["Main.CPP"].is_text_file
    assert not infos["Main.CPP"].is_hidden and not infos["Main.CPP"].is_directory
    assert infos[".env.example"].is_hidden
    assert infos["photo.png"].suffix == ".png" and not infos["photo.png"].is_text_file


def test_info_is_read_only_and_compares_by_paths(tmp_path: Path) -> None:
    made = WorkspaceFileInfo(relative_path="d/a.md", absolute_path="/ws/d/a.md", file_name="a.md", size_bytes=3)
    with pytest.raises(AttributeError):
        made.size_bytes = 4  # type: ignore[misc]
    with pytest.raises(AttributeError):
        made.relative_path = "b.md"  # type: ignore[misc]
    same = WorkspaceFileInfo.scanned("d/a.md", "/ws/d/a.md", "a.md")
    assert made == same and hash(made) == hash(same) and made.size_bytes == 3
    assert made.suffix == ".md" and made.last_modified is None and made.modified_timestamp is None
    folder = WorkspaceFileInfo(relative_path="d", absolute_path="/ws/d", file_name="d.x", is_directory=True)
    assert folder.suffix == "" and not folder.is_text_file and folder != made


def test_index_ranks_scanned_files_by_their_times(tmp_path: Path) -> None:
    _write(tmp_path, "old_main.cpp", mtime=1_600_000_000)
    _write(tmp_path, "new_main.cpp", mtime=1_700_000_000)
    _write(tmp_path, "src/main.h", mtime=1_650_000_000)
    index = WorkspaceIndex(scan_workspace(AccessPolicy(tmp_path)).files)
    assert [f.relative_path for f in index.find_by_suffix([".cpp"])] == ["new_main.cpp", "old_main.cpp"]
    assert [f.relative_path for f in index.recent_files(2)] == ["new_main.cpp", "src/main.h"]
    assert [f.relative_path for f in index.find_by_name("main")][:1] == ["src/main.h"]
