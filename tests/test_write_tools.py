"""Write tools: seed 001 §15 创建文件 / 修改文件 / 移动和重命名, every line, plus no-overwrite and encodings."""

from __future__ import annotations

import codecs
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from localagent.tools.types import ToolContext, WorkspaceToolRisk
from localagent.tools.write_tools import (
    TOOL_RISKS,
    copy_file,
    create_directory,
    create_file,
    move_file,
    rename_file,
    write_file,
)
from localagent.workspace.backups import backup_name
from tests.write_fixtures import ctx_fixture, workspace_fixture  # noqa: F401 - fixtures

REPO = Path(__file__).resolve().parents[1]
BACKUP_RE = r"\.\d{8}-\d{6}(-\d+)?\.bak"


def _backups(root: Path) -> list[Path]:
    folder = root / ".localagent" / "backups"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _tree(root: Path) -> dict[str, bytes | None]:
    """Every path under root except .localagent, with file bytes (None for folders)."""
    out: dict[str, bytes | None] = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel.split("/")[0] == ".localagent":
            continue
        out[rel] = None if p.is_dir() else p.read_bytes()
    return out


# --- 创建文件 -------------------------------------------------------------------------------


def test_create_test_txt(ctx, workspace):
    result = create_file(ctx, "test.txt", "你好\n")
    assert result.success, result.error_message
    assert result.target_path == "test.txt"
    assert (workspace / "test.txt").read_text(encoding="utf-8") == "你好\n"
    entry = ctx.journal.last()
    assert entry.type == "create_file" and entry.target == "test.txt"


def test_create_existing_file_refused(ctx, workspace):
    (workspace / "test.txt").write_text("keep")
    result = create_file(ctx, "test.txt", "new")
    assert not result.success
    assert (workspace / "test.txt").read_text() == "keep"
    assert ctx.journal.last() is None


@pytest.mark.parametrize("name", ["CON", "con.txt", "NUL.md", "a:b.txt", "bad*.txt", "what?.txt", "trail.",
                                  "space ", "<x>.txt", 'q"uote.txt', "pipe|.txt", "COM1.log"])
def test_create_illegal_name_refused(ctx, workspace, name):
    result = create_file(ctx, name, "x")
    assert not result.success and result.error_message
    assert _tree(workspace) == {}


@pytest.mark.parametrize("name", ["run.bat", "RUN.BAT", "x.exe", "s.ps1", "l.lnk", "c.cmd", "v.vbs"])
def test_create_dangerous_suffix_refused(ctx, workspace, name):
    assert not create_file(ctx, name, "echo hi").success
    assert _tree(workspace) == {}


def test_create_outside_workspace_refused(ctx, workspace, tmp_path):
    for path in ("../outside.txt", str(tmp_path / "outside.txt"), "sub/../../outside.txt", "..\\outside.txt"):
        result = create_file(ctx, path, "x")
        assert not result.success, path
    assert not (tmp_path / "outside.txt").exists()
    assert _tree(workspace) == {}


def test_create_through_symlink_refused(ctx, workspace, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, workspace / "link")
    assert not create_file(ctx, "link/x.txt", "x").success
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("path", [".env", "api_key.txt", "my_password.md", "server.pem", "id_rsa",
                                  ".git/config2", ".GIT/x.txt", ".localagent/x.txt", ".vscode/settings2.json",
                                  ".idea/x.xml"])
def test_create_sensitive_or_protected_refused(ctx, workspace, path):
    for folder in (".git", ".GIT", ".localagent", ".vscode", ".idea"):
        (workspace / folder).mkdir(exist_ok=True)
    result = create_file(ctx, path, "x")
    assert not result.success
    assert not (workspace / path).exists()


def test_create_needs_existing_parent(ctx, workspace):
    result = create_file(ctx, "docs/new.md", "x")
    assert not result.success and "docs" in result.error_message
    assert _tree(workspace) == {}


def test_create_chinese_name_with_spaces(ctx, workspace):
    (workspace / "我的 文档").mkdir()
    assert create_file(ctx, "我的 文档/笔记 1.md", "# 标题").success
    assert (workspace / "我的 文档" / "笔记 1.md").read_text(encoding="utf-8") == "# 标题"


def test_create_directory_and_existing_refused(ctx, workspace):
    assert create_directory(ctx, "docs").success
    assert (workspace / "docs").is_dir()
    assert ctx.journal.last().type == "create_directory"
    assert not create_directory(ctx, "docs").success
    (workspace / "f.txt").write_text("x")
    assert not create_directory(ctx, "f.txt").success
    assert not create_directory(ctx, "a/b").success
    assert not create_directory(ctx, "../out").success
    assert not create_directory(ctx, ".git").success


# --- 修改文件 -------------------------------------------------------------------------------


def test_modify_txt_with_backup(ctx, workspace):
    (workspace / "notes.txt").write_text("old text\n")
    result = write_file(ctx, "notes.txt", "new text\n")
    assert result.success, result.error_message
    assert (workspace / "notes.txt").read_text() == "new text\n"
    [backup] = _backups(workspace)
    assert re.fullmatch(r"notes\.txt" + BACKUP_RE, backup.name)
    assert backup.read_text() == "old text\n"
    entry = ctx.journal.last()
    assert entry.type == "write_file" and entry.backup == backup.name


def test_modify_cpp_keeps_crlf_and_names_backup_after_path(ctx, workspace):
    (workspace / "src").mkdir()
    original = b"#include <cstdio>\r\nint main() {}\r\n"
    (workspace / "src" / "main.cpp").write_bytes(original)
    assert write_file(ctx, "src/main.cpp", "#include <cstdio>\nint main() { return 0; }\n").success
    assert (workspace / "src" / "main.cpp").read_bytes() == b"#include <cstdio>\r\nint main() { return 0; }\r\n"
    [backup] = _backups(workspace)
    assert re.fullmatch(r"src__main\.cpp" + BACKUP_RE, backup.name)
    assert backup.read_bytes() == original


@pytest.mark.parametrize("encoding,bom", [("gbk", b""), ("utf-8-sig", b""), ("utf-16-le", codecs.BOM_UTF16_LE),
                                          ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_modify_keeps_encoding(ctx, workspace, encoding, bom):
    old = "中文内容，旧版本。\n第二行：编码检测需要足够长的文本才能可靠。\n" * 3
    (workspace / "zh.txt").write_bytes(bom + old.encode(encoding))
    new = "中文内容，新版本。\n"
    assert write_file(ctx, "zh.txt", new).success
    assert (workspace / "zh.txt").read_bytes() == bom + new.encode(encoding)


def test_modify_falls_back_to_utf8_when_not_encodable(ctx, workspace):
    old = "Привет, как дела? Это тестовый текст для проверки.\n" * 5
    (workspace / "r.txt").write_bytes(old.encode("cp1251"))
    result = write_file(ctx, "r.txt", "Привет 😀\n")
    assert result.success and "UTF-8" in result.message
    assert (workspace / "r.txt").read_bytes() == "Привет 😀\n".encode()


@pytest.mark.parametrize("name,data", [("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
                                       ("data.txt", b"text\x00with\x00nul"),
                                       ("blob.bin", bytes(range(256)) * 4)])
def test_modify_binary_refused(ctx, workspace, name, data):
    (workspace / name).write_bytes(data)
    result = write_file(ctx, name, "text")
    assert not result.success
    assert (workspace / name).read_bytes() == data
    assert _backups(workspace) == []


@pytest.mark.parametrize("name", [".env", "secrets.json", "token.json", "db_password.txt", "key.pem", "run.bat"])
def test_modify_sensitive_or_dangerous_refused(ctx, workspace, name):
    (workspace / name).write_text("SECRET=1\n")
    result = write_file(ctx, name, "changed")
    assert not result.success
    assert (workspace / name).read_text() == "SECRET=1\n"
    assert _backups(workspace) == []


def test_modify_missing_file_or_folder_refused(ctx, workspace):
    assert not write_file(ctx, "nope.txt", "x").success
    assert not (workspace / "nope.txt").exists()
    (workspace / "d").mkdir()
    assert not write_file(ctx, "d", "x").success
    assert not write_file(ctx, "../x.txt", "x").success


def test_two_backups_in_one_second_do_not_collide(ctx, workspace):
    (workspace / "a.txt").write_text("v1")
    for text in ("v2", "v3", "v4"):
        assert write_file(ctx, "a.txt", text).success
    backups = _backups(workspace)
    assert sorted(b.read_text() for b in backups) == ["v1", "v2", "v3"]


def test_backup_name_follows_seed():
    from datetime import datetime

    when = datetime(2024, 1, 2, 3, 4, 5)
    assert backup_name("src/ui/main.cpp", when) == "src__ui__main.cpp.20240102-030405.bak"
    assert backup_name("a.txt", when, 2) == "a.txt.20240102-030405-2.bak"


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX only")
def test_modify_failing_half_way_keeps_original(workspace):
    """The replace fails part-way (file size limit): the original stays byte for byte, no temp file."""
    original = b"small original\n"
    (workspace / "big.txt").write_bytes(original)
    script = (
        "import resource, signal, sys\n"
        "from localagent.tools.types import ToolContext\n"
        "from localagent.tools.write_tools import write_file\n"
        "from localagent.workspace.policy import AccessPolicy\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))\n"
        "r = write_file(ToolContext(policy=AccessPolicy(sys.argv[1]), lang='en'), 'big.txt', 'x' * 500000)\n"
        "print(r.success, r.error_message)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", script, str(workspace)], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.startswith("False"), out.stdout + out.stderr
    assert (workspace / "big.txt").read_bytes() == original
    assert sorted(os.listdir(workspace)) == [".localagent", "big.txt"]


def test_log_line_has_tool_path_and_no_content(ctx, workspace, caplog):
    (workspace / "n.txt").write_text("old")
    with caplog.at_level(logging.INFO, logger="localagent.tools"):
        write_file(ctx, "n.txt", "TOP-SECRET-CONTENT")
        create_file(ctx, "run.bat", "TOP-SECRET-CONTENT")
    text = caplog.text
    assert "tool=write_file path=n.txt success=True" in text
    assert "tool=create_file" in text and "success=False" in text
    assert "TOP-SECRET-CONTENT" not in text


# --- 复制 -----------------------------------------------------------------------------------


def test_copy_file(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    result = copy_file(ctx, "a.txt", "b.txt")
    assert result.success and result.target_path == "b.txt"
    assert (workspace / "a.txt").read_text() == "A" and (workspace / "b.txt").read_text() == "A"
    assert ctx.journal.last().type == "copy_file"


def test_copy_into_folder_keeps_name_and_never_overwrites(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    (workspace / "docs").mkdir()
    assert copy_file(ctx, "a.txt", "docs").target_path == "docs/a.txt"
    (workspace / "a.txt").write_text("changed")
    assert not copy_file(ctx, "a.txt", "docs").success
    assert (workspace / "docs" / "a.txt").read_text() == "A"
    (workspace / "b.txt").write_text("B")
    assert not copy_file(ctx, "a.txt", "b.txt").success
    assert (workspace / "b.txt").read_text() == "B"


def test_copy_refusals(ctx, workspace, tmp_path):
    (workspace / "a.txt").write_text("A")
    (workspace / "dir").mkdir()
    (workspace / ".env").write_text("K=V")
    assert not copy_file(ctx, "dir", "dir2").success           # a folder
    assert not copy_file(ctx, "a.txt", "../a.txt").success     # target outside
    assert not copy_file(ctx, "../x", "b.txt").success         # source outside
    assert not copy_file(ctx, "a.txt", "a.bat").success        # dangerous target
    assert not copy_file(ctx, ".env", "env.txt").success       # sensitive source
    assert not copy_file(ctx, "missing.txt", "m.txt").success
    assert not (tmp_path / "a.txt").exists()
    assert set(_tree(workspace)) == {"a.txt", "dir", ".env"}


# --- 移动和重命名 ----------------------------------------------------------------------------


def test_move_normal_file(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    (workspace / "docs").mkdir()
    result = move_file(ctx, "a.txt", "docs/b.txt")
    assert result.success and result.target_path == "docs/b.txt"
    assert not (workspace / "a.txt").exists() and (workspace / "docs" / "b.txt").read_text() == "A"
    entry = ctx.journal.last()
    assert (entry.type, entry.source, entry.target) == ("move_file", "a.txt", "docs/b.txt")


def test_move_into_folder_keeps_name(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    (workspace / "docs").mkdir()
    assert move_file(ctx, "a.txt", "docs").target_path == "docs/a.txt"


def test_move_to_existing_target_refused(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    (workspace / "b.txt").write_text("B")
    assert not move_file(ctx, "a.txt", "b.txt").success
    (workspace / "docs").mkdir()
    (workspace / "docs" / "a.txt").write_text("D")
    assert not move_file(ctx, "a.txt", "docs").success
    assert _tree(workspace) == {"a.txt": b"A", "b.txt": b"B", "docs": None, "docs/a.txt": b"D"}


def test_move_outside_workspace_refused(ctx, workspace, tmp_path):
    (workspace / "a.txt").write_text("A")
    assert not move_file(ctx, "a.txt", "../a.txt").success
    assert not move_file(ctx, "a.txt", str(tmp_path)).success
    assert not move_file(ctx, "../elsewhere.txt", "x.txt").success
    assert (workspace / "a.txt").read_text() == "A" and not (tmp_path / "a.txt").exists()


def test_move_refusals(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    (workspace / "d").mkdir()
    (workspace / ".git").mkdir()
    assert not move_file(ctx, "d", "e").success                 # folders are not moved
    assert not move_file(ctx, "a.txt", ".git/a.txt").success    # protected
    assert not move_file(ctx, "a.txt", "a.exe").success         # dangerous suffix
    assert not move_file(ctx, "nope.txt", "x.txt").success
    assert set(_tree(workspace)) == {"a.txt", "d", ".git"}


def test_rename_normal_file(ctx, workspace):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "old.md").write_text("M")
    result = rename_file(ctx, "docs/old.md", "new.md")
    assert result.success and result.target_path == "docs/new.md"
    assert _tree(workspace) == {"docs": None, "docs/new.md": b"M"}
    assert ctx.journal.last().type == "rename_file"


@pytest.mark.parametrize("new_name", ["CON", "con.txt", "a:b", "trail.", "star*.md", "a/b.md", "a\\b.md", "..",
                                      ".", "", "x?.md", "AUX.log", "bad<.md"])
def test_rename_illegal_name_refused(ctx, workspace, new_name):
    (workspace / "old.md").write_text("M")
    result = rename_file(ctx, "old.md", new_name)
    assert not result.success and result.error_message
    assert _tree(workspace) == {"old.md": b"M"}


def test_rename_refusals(ctx, workspace):
    (workspace / "old.md").write_text("M")
    (workspace / "taken.md").write_text("T")
    assert not rename_file(ctx, "old.md", "taken.md").success   # never overwrite
    assert not rename_file(ctx, "old.md", "old.bat").success    # dangerous suffix
    assert not rename_file(ctx, "old.md", ".env").success       # sensitive name
    assert not rename_file(ctx, "missing.md", "x.md").success
    assert not rename_file(ctx, ".", "x").success
    assert _tree(workspace) == {"old.md": b"M", "taken.md": b"T"}


def test_rename_case_only(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    result = rename_file(ctx, "a.txt", "A.txt")
    assert result.success, result.error_message
    assert _tree(workspace) == {"A.txt": b"A"}
    assert (ctx.journal.last().source, ctx.journal.last().target) == ("a.txt", "A.txt")


def test_rename_folder(ctx, workspace):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "x.md").write_text("x")
    assert rename_file(ctx, "docs", "doc").success
    assert _tree(workspace) == {"doc": None, "doc/x.md": b"x"}


def test_tool_risks():
    assert TOOL_RISKS["create_file"] == TOOL_RISKS["create_directory"] == TOOL_RISKS["copy_file"] \
        == WorkspaceToolRisk.MEDIUM
    for name in ("write_file", "move_file", "rename_file", "delete_to_trash"):
        assert TOOL_RISKS[name] == WorkspaceToolRisk.HIGH
    assert TOOL_RISKS["delete_permanently"] == WorkspaceToolRisk.DANGEROUS


def test_english_messages(workspace):
    from localagent.workspace.policy import AccessPolicy

    en = ToolContext(policy=AccessPolicy(workspace), lang="en")
    (workspace / "a.txt").write_text("A")
    assert "already exists" in create_file(en, "a.txt", "x").error_message
    assert create_file(en, "b.txt").message.startswith("Created")


def test_backup_refused_when_localagent_is_a_link(ctx, workspace, tmp_path):
    """A project shipping ``.localagent`` as a link elsewhere gets no backup written there, and no change."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, workspace / ".localagent")
    (workspace / "a.txt").write_text("keep")
    result = write_file(ctx, "a.txt", "new")
    assert not result.success
    assert (workspace / "a.txt").read_text() == "keep"
    assert list(elsewhere.iterdir()) == []
