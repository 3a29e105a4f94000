"""input/, output/, logs/ must stay three separate places (workspace/layout.py; red-team finding
``test_output_linked_into_input_is_refused``): no two the same folder or nested, none in a protected or
credential folder, whichever of them is the link and wherever it points inside the workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localagent.errors import WorkspaceError
from localagent.workspace.layout import SUBFOLDERS, prepare_workspace

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for folder in ("input/sub", "output/sub", "logs/sub", ".git/objects", ".localagent", ".ssh", "data/in", "data/out"):
        (root / folder).mkdir(parents=True)
    return root


def _link(root: Path, name: str, target: str) -> None:
    entry = root / name
    if entry.is_dir() and not entry.is_symlink():
        os.rename(entry, root / f"{name}.moved")
    os.symlink(root / target, entry)


SHARED = [(name, target) for name in SUBFOLDERS for other in SUBFOLDERS if other != name
          for target in (other, f"{other}/sub")]


@pytest.mark.parametrize(("name", "target"), SHARED, ids=[f"{n}->{t}" for n, t in SHARED])
def test_a_working_folder_linked_into_another_is_refused(tmp_path: Path, name: str, target: str) -> None:
    root = _workspace(tmp_path)
    _link(root, name, target)
    with pytest.raises(WorkspaceError) as info:
        prepare_workspace(root, create_missing=False)
    assert "separate" in info.value.message("en") and "互不包含" in info.value.message("zh")


@pytest.mark.parametrize("name", SUBFOLDERS)
@pytest.mark.parametrize("target", [".git", ".git/objects", ".localagent", ".ssh", ".GIT"])
def test_a_working_folder_linked_into_a_protected_folder_is_refused(tmp_path: Path, name: str, target: str) -> None:
    root = _workspace(tmp_path)
    if target == ".GIT":
        os.rename(root / ".git", root / ".GIT")
    _link(root, name, target)
    with pytest.raises(WorkspaceError) as info:
        prepare_workspace(root, create_missing=False)
    assert "protected or credential" in info.value.message("en")


def test_an_enclosing_link_is_refused(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    _link(root, "input", "data/in")
    _link(root, "output", "data")  # output contains input
    with pytest.raises(WorkspaceError):
        prepare_workspace(root, create_missing=False)


def test_links_to_separate_folders_inside_are_accepted(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    _link(root, "input", "data/in")
    _link(root, "output", "data/out")
    layout = prepare_workspace(root, create_missing=False)
    assert layout.input == (root / "data" / "in").resolve()
    assert layout.output == (root / "data" / "out").resolve()
    assert layout.logs == (root / "logs").resolve()


def test_a_refused_layout_touches_nothing(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / "input" / "a.txt").write_text("orig", encoding="utf-8")
    _link(root, "output", "input")
    with pytest.raises(WorkspaceError):
        prepare_workspace(root, create_missing=False)
    assert (root / "input" / "a.txt").read_text(encoding="utf-8") == "orig"
    assert os.readlink(root / "output") == str(root / "input")
