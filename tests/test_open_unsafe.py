"""Opening a file must never run, install or mount it (seed 001 §8.2 "危险后缀拒绝打开"; Windows script hosts).

Files like ``build.js`` or ``tool.py`` are ordinary project files — they may be
created, edited and read — but the system's default program would *run* them on
Windows (and ``.iso``/``.vhd`` would be mounted, ``.msix``/``.cer`` installed), so
``open_file`` refuses them on every OS, through ``AccessPolicy.can_open_file``.
"""

from __future__ import annotations

import os

import pytest

from localagent.tools.open_tools import open_file
from localagent.tools.types import ToolContext
from localagent.workspace.pathnames import OPEN_UNSAFE_SUFFIXES
from localagent.workspace.policy import AccessPolicy


class Recorder:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str]) -> None:
        self.calls.append(argv)


@pytest.fixture()
def ctx(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(policy=AccessPolicy(root), extra={"launcher": Recorder()})


@pytest.mark.parametrize("name", ["build.js", "tool.py", "Tool.PY", "run.pyw", "disk.iso", "disk.VHDX",
                                  "app.msix", "setup.inf", "root.cer", "help.chm", "x.settingcontent-ms",
                                  "a.exe", "a.bat.", "a.ps1 ", "link.lnk", "remote.rdp", "App.app", "deploy.sh",
                                  "tool.AppImage", "page.hta", "shortcut.url", "x.desktop"])
def test_files_the_system_would_run_are_not_opened(ctx, name):
    path = ctx.policy.root / name.rstrip(". ")
    path.write_text("echo hi\n")
    os.chmod(path, 0o644)
    result = open_file(ctx, name.rstrip(". "))
    assert not result.success and result.error_message
    assert ctx.extra["launcher"].calls == []
    assert not ctx.policy.can_open_file(path)


@pytest.mark.parametrize("name", ["report.pdf", "photo.PNG", "notes.txt", "README.md", "data.csv", "slides.pptx"])
def test_documents_open_after_the_gate(ctx, name):
    (ctx.policy.root / name).write_bytes(b"content")
    result = open_file(ctx, name)
    assert result.success, result.error_message
    assert len(ctx.extra["launcher"].calls) == 1
    assert ctx.extra["launcher"].calls[0][-1].endswith(name)


@pytest.mark.skipif(os.name == "nt", reason="execute bits are POSIX")
def test_a_file_with_an_execute_bit_is_not_opened(ctx):
    path = ctx.policy.root / "notes"
    path.write_text("#!/bin/sh\nrm -rf ~\n")
    os.chmod(path, 0o755)
    assert not open_file(ctx, "notes").success
    assert ctx.extra["launcher"].calls == []


def test_the_unsafe_list_covers_the_seed_list():
    seed = {".exe", ".bat", ".cmd", ".ps1", ".vbs", ".msi", ".scr", ".reg", ".com", ".pif", ".lnk"}
    assert seed <= OPEN_UNSAFE_SUFFIXES


def test_unsafe_to_open_is_still_fine_to_edit(ctx):
    (ctx.policy.root / "build.js").write_text("console.log(1)\n")
    assert ctx.policy.can_read_file(ctx.policy.root / "build.js")
    assert ctx.policy.can_write_file(ctx.policy.root / "build.js")
    assert ctx.policy.can_create_file(ctx.policy.root / "new.py")
