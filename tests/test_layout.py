"""Workspace selection (seed 001 §15 "工作区选择", issue 2 part 13).

Normal project folder, empty folder, missing folder, ``C:/Windows`` and Program
Files refused, a Chinese path, a path with spaces; plus the other system
directories, a file instead of a folder, and ``input/``/``output/``/``logs/``
that are files or links leading outside.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localagent.errors import WorkspaceError
from localagent.workspace.layout import SUBFOLDERS, WorkspaceLayout, prepare_workspace
from localagent.workspace.policy import AccessPolicy


def _assert_layout(layout: WorkspaceLayout, root: Path) -> None:
    assert layout.root == root.resolve()
    for name in SUBFOLDERS:
        folder = getattr(layout, name)
        assert folder == layout.root / name and folder.is_dir() and not folder.is_symlink()
    AccessPolicy(layout.root)  # the gate accepts what the layout accepted


def test_normal_project_folder_keeps_its_content(tmp_path):
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "main.cpp").write_text("int main() {}\n")
    (project / "output").mkdir()
    (project / "output" / "old.csv").write_text("keep me")
    layout = prepare_workspace(project, create_missing=False)
    _assert_layout(layout, project)
    assert (project / "src" / "main.cpp").read_text() == "int main() {}\n"
    assert (project / "output" / "old.csv").read_text() == "keep me"
    assert prepare_workspace(str(project), create_missing=False) == layout  # idempotent


def test_empty_folder(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    _assert_layout(prepare_workspace(empty, create_missing=False), empty)


def test_missing_folder_refused_unless_asked(tmp_path):
    missing = tmp_path / "missing" / "deeper"
    with pytest.raises(WorkspaceError) as info:
        prepare_workspace(missing, create_missing=False)
    assert "工作区不存在" in info.value.message("zh") and "does not exist" in info.value.message("en")
    assert not missing.exists()
    _assert_layout(prepare_workspace(missing, create_missing=True), missing)


@pytest.mark.parametrize("system", [
    "C:/Windows", "C:\\Windows", "c:\\windows\\system32", "C:\\Program Files", "C:/Program Files (x86)/App",
    "C:\\ProgramData", "D:\\", "/", "/usr", "/etc", "/etc/ssh", "/bin", "/System", "/var", "/home",
])
def test_system_directories_refused(system):
    for create in (False, True):
        with pytest.raises(WorkspaceError) as info:
            prepare_workspace(system, create_missing=create)
        assert "系统目录" in info.value.message("zh") and "system directory" in info.value.message("en")


def test_home_directory_itself_refused_but_not_below():
    with pytest.raises(WorkspaceError):
        prepare_workspace(Path.home(), create_missing=False)
    with pytest.raises(WorkspaceError):
        prepare_workspace("~", create_missing=False)


def test_link_to_a_system_directory_refused(tmp_path):
    os.symlink("/etc", tmp_path / "etc_link")
    with pytest.raises(WorkspaceError):
        prepare_workspace(tmp_path / "etc_link", create_missing=False)


def test_chinese_path(tmp_path):
    folder = tmp_path / "我的项目" / "工作区"
    _assert_layout(prepare_workspace(folder, create_missing=True), folder)


def test_path_with_spaces(tmp_path):
    folder = tmp_path / "My Projects" / "demo app"
    folder.mkdir(parents=True)
    _assert_layout(prepare_workspace(str(folder), create_missing=False), folder)


def test_relative_path_from_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    layout = prepare_workspace("workspace", create_missing=True)
    _assert_layout(layout, tmp_path / "workspace")


def test_a_file_is_not_a_workspace(tmp_path):
    (tmp_path / "file.txt").write_text("x")
    for create in (False, True):
        with pytest.raises(WorkspaceError) as info:
            prepare_workspace(tmp_path / "file.txt", create_missing=create)
        assert "不是文件夹" in info.value.message("zh")
    assert (tmp_path / "file.txt").read_text() == "x"


@pytest.mark.parametrize("bad", ["", "   ", "a\x00b", None, 42])
def test_invalid_path_values(bad):
    with pytest.raises(WorkspaceError):
        prepare_workspace(bad, create_missing=True)


@pytest.mark.parametrize("name", SUBFOLDERS)
def test_working_folder_that_is_a_file_is_refused(tmp_path, name):
    (tmp_path / name).write_text("not a folder")
    with pytest.raises(WorkspaceError) as info:
        prepare_workspace(tmp_path, create_missing=False)
    assert name in info.value.message("en")
    assert (tmp_path / name).read_text() == "not a folder"


@pytest.mark.parametrize("name", SUBFOLDERS)
def test_working_folder_linking_outside_is_refused(tmp_path, name):
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    outside.mkdir()
    os.symlink(outside, ws / name)
    with pytest.raises(WorkspaceError) as info:
        prepare_workspace(ws, create_missing=False)
    assert "outside" in info.value.message("en")


def test_working_folder_linking_to_root_or_dangling_is_refused(tmp_path):
    os.symlink(tmp_path, tmp_path / "input")
    with pytest.raises(WorkspaceError):
        prepare_workspace(tmp_path, create_missing=False)
    os.unlink(tmp_path / "input")
    os.symlink(tmp_path / "nowhere", tmp_path / "input")
    with pytest.raises(WorkspaceError):
        prepare_workspace(tmp_path, create_missing=False)


def test_working_folder_linking_inside_is_accepted(tmp_path):
    (tmp_path / "data" / "in").mkdir(parents=True)
    os.symlink(tmp_path / "data" / "in", tmp_path / "input")
    layout = prepare_workspace(tmp_path, create_missing=False)
    assert layout.input == (tmp_path / "data" / "in").resolve()
    assert layout.output.is_dir() and layout.logs.is_dir()


@pytest.mark.skipif(os.name == "nt", reason="drive paths are real paths on Windows")
def test_windows_path_on_posix_is_refused_not_created(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for text in ("C:/Users/bob/proj", "D:\\work", "\\\\server\\share\\proj"):
        with pytest.raises(WorkspaceError):
            prepare_workspace(text, create_missing=True)
    assert list(tmp_path.iterdir()) == []
