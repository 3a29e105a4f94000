"""Red team: the one path gate ``AccessPolicy`` and the write tools built on it (issue 3 §1, seed 001 §6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from localagent.tools.types import ToolContext
from localagent.tools.write_tools import copy_file, rename_file, write_file
from localagent.workspace.journal import OperationJournal
from localagent.workspace.policy import AccessPolicy


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("OUTSIDE", encoding="utf-8")
    (root / "a.txt").write_text("a", encoding="utf-8")
    (root / "sub").mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    for name in (".env", ".Env", ".env.local", "ID_RSA", "x.KEY", ".aws/credentials", ".Ssh/config",
                 "my_secret.txt", "ｓｅｃｒｅｔ.txt", "Secrets/notes.txt"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("S", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", root / "out.txt")
    os.symlink(tmp_path, root / "outdir")
    os.symlink(root / ".env", root / "envlink.txt")
    os.symlink(root / ".git", root / "gitlink")
    return root


READ_REFUSED = [".env", ".Env", ".env.local", "ID_RSA", "x.KEY", ".aws/credentials", ".Ssh/config", "my_secret.txt",
                "ｓｅｃｒｅｔ.txt", "Secrets/notes.txt", "envlink.txt", "./.env", "sub/../.env", ".git/../.env",
                "out.txt", "outdir/secret.txt", "../secret.txt", "sub/../../secret.txt", "/etc/passwd", "~/.bashrc",
                "~root/.bashrc", "C:\\Windows\\win.ini", "\\\\server\\share\\x", "\\\\?\\C:\\x", "C:a.txt",
                "a.txt::$DATA", "a.txt:stream", ".env.", ".env ", "a.txt\x00.png", "sub\\..\\..\\secret.txt",
                "GIT~1/config", "a" * 5000]


@pytest.mark.parametrize("path", READ_REFUSED)
def test_read_is_refused(ws, path):
    assert not AccessPolicy(ws).can_read_file(path)


CREATE_REFUSED = [".git/hooks/pre-commit", ".GIT/hooks/x", ".Git/x", "gitlink/hooks/x", ".git./x", ".git /x",
                  "CON.txt", "nul", "COM1.log", "a.txt:stream", "x\ny.txt", "x\ry.txt", "\u202etxt.exe", "run.bat",
                  "outdir/new.txt", "../new.txt", ".localagent/journal.jsonl", ".vscode/settings.json", ".env",
                  "new.PEM", "sub/\x1b[31mred.txt"]


@pytest.mark.parametrize("path", CREATE_REFUSED)
def test_create_is_refused(ws, path):
    assert not AccessPolicy(ws).can_create_file(path)


@pytest.mark.parametrize("path", [".", "", "sub/..", str(Path("ws")), ".git", "gitlink"])
def test_trash_root_or_protected_is_refused(ws, path):
    target = str(ws) if path == "ws" else path
    assert not AccessPolicy(ws).can_delete_to_trash(target)


@pytest.mark.parametrize("source,target", [("a.txt", "../x"), ("a.txt", ".git/x"), (".git", "y"),
                                           ("a.txt", "outdir/x"), ("a.txt", "CON"), ("sub", "sub/inner")])
def test_move_is_refused(ws, source, target):
    assert not AccessPolicy(ws).can_move_file(source, target)


def test_write_through_hard_link_does_not_change_outside_file(ws):
    os.link(ws.parent / "secret.txt", ws / "hard.txt")
    ctx = ToolContext(policy=AccessPolicy(ws), journal=OperationJournal(ws))
    write_file(ctx, "hard.txt", "changed")
    assert (ws.parent / "secret.txt").read_text(encoding="utf-8") == "OUTSIDE"


def test_copy_onto_existing_never_overwrites(ws):
    (ws / "b.txt").write_text("b", encoding="utf-8")
    ctx = ToolContext(policy=AccessPolicy(ws), journal=OperationJournal(ws))
    result = copy_file(ctx, "a.txt", "b.txt")
    assert (ws / "b.txt").read_text(encoding="utf-8") == "b"
    assert not result.success


@pytest.mark.parametrize("new_name", ["../x.txt", "..", "CON", "a\nb.txt", "x:y", ".git", "sub/x.txt"])
def test_rename_escapes_are_refused(ws, new_name):
    ctx = ToolContext(policy=AccessPolicy(ws), journal=OperationJournal(ws))
    result = rename_file(ctx, "a.txt", new_name)
    assert not result.success
    assert (ws / "a.txt").read_text(encoding="utf-8") == "a"


def test_swap_to_symlink_after_check_is_caught(ws):
    """TOCTOU: the file is replaced by a link to outside between the check and the open."""
    policy = AccessPolicy(ws)
    target = policy.resolve("a.txt")
    assert policy.can_read_file("a.txt")
    os.unlink(ws / "a.txt")
    os.symlink(ws.parent / "secret.txt", ws / "a.txt")
    try:
        with policy.open_for_read(target) as handle:
            data = handle.read()
    except Exception:  # noqa: BLE001 - any refusal is the right answer
        return
    assert data != b"OUTSIDE", "the swapped-in link to outside was followed"
