"""Fixtures for the write, trash and undo tests: a workspace, a tool context, a temporary recycle bin.

Import them into a test module (``from tests.write_fixtures import ctx_fixture, …``); pytest
registers them under the names ``workspace``, ``ctx`` and ``trash``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from localagent.tools.types import ToolContext
from localagent.workspace.journal import OperationJournal
from localagent.workspace.policy import AccessPolicy


@pytest.fixture(name="workspace")
def workspace_fixture(tmp_path: Path) -> Path:
    """An empty workspace folder next to the temporary home (same filesystem)."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture(name="ctx")
def ctx_fixture(workspace: Path) -> ToolContext:
    """A Chinese-language tool context on ``workspace`` with its journal."""
    return ToolContext(policy=AccessPolicy(workspace), journal=OperationJournal(workspace))


def _listing(folder: Path) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


@pytest.fixture(name="trash")
def trash_fixture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Point the freedesktop recycle bin at a temporary home and check the real one stays untouched.

    ``send2trash`` (plat_other) reads ``XDG_DATA_HOME`` once, when first imported, and
    picks the home trash when the file is on the same device as ``$HOME``; so ``HOME``
    and ``XDG_DATA_HOME`` are set to ``tmp_path/home`` and the library's import-time
    copies are pointed there too. Yields ``$XDG_DATA_HOME/Trash``.
    """
    if sys.platform in ("win32", "darwin"):
        pytest.skip("recycle-bin location checks are written for the freedesktop trash (Linux/BSD)")
    import send2trash
    import send2trash.plat_other as plat

    if send2trash.send2trash is not plat.send2trash:
        pytest.skip("send2trash uses gio here; its trash location is not controlled by these tests")
    real_home = Path(os.path.expanduser("~"))
    real_bins = [real_home / ".local/share/Trash/files", Path(f"/.Trash-{os.getuid()}/files"),
                 Path(f"/.Trash/{os.getuid()}/files")]
    before = {p: _listing(p) for p in real_bins}
    home = tmp_path / "home"
    data = home / ".local" / "share"
    data.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.setattr(plat, "XDG_DATA_HOME", os.fsencode(data))
    monkeypatch.setattr(plat, "HOMETRASH_B", os.fsencode(data / "Trash"))
    monkeypatch.setattr(plat, "HOMETRASH", str(data / "Trash"))
    yield data / "Trash"
    assert {p: _listing(p) for p in real_bins} == before, "the real recycle bin was touched"
