"""Variants of red team 2's name findings: spoofing characters, long backup names, NFC/NFD lookup.

Pure tables for the name rules and the backup names; CLI runs (no model key) for the flows.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from localagent.ui.cli import main
from localagent.workspace.backups import MAX_BACKUP_NAME_BYTES, backup_name
from localagent.workspace.layout import SUBFOLDERS
from localagent.workspace.name_lookup import normalization_matches
from localagent.workspace.pathnames import escape_invisible, legal_name_problem, show
from localagent.workspace.policy import AccessPolicy

WHEN = datetime(2024, 1, 2, 3, 4, 5)


def act(capsys, root: Path, sentence: str) -> tuple[int, dict]:
    code = main(["-p", sentence, "--workspace", str(root), "--yes", "--output-format", "json"])
    doc = json.loads(capsys.readouterr().out)
    return code, doc.get("action") or {}


def visible(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if not p.name.startswith(".") and p.name not in SUBFOLDERS)


# --- 1. spoofing characters in new names -------------------------------------------------------

@pytest.mark.parametrize("name", [
    "report\u202efdp.txt", "\u202agnp.txt", "a\u202b.txt", "a\u202c.txt", "a\u202d.txt", "a\u2066.txt",
    "a\u2067.txt", "a\u2068.txt", "a\u2069.txt", "a\u200e.txt", "a\u200f.txt", "b\u200b.txt", "b\u200c.txt",
    "b\u200d.txt", "\ufeffa.txt", "soft\u00adhyphen.txt", "a\u2060.txt", "a\u061c.txt", "a\U000e0041.txt",
    "a\u00a0b.txt", "a\u2007b.txt", "a\u202fb.txt", "a\u2028b.txt", "a\u2029b.txt", "a\x85b.txt",
    "\u3164.txt", "a\u115f.txt", "a\u034f.txt", "\u2800.txt", "a\ufe0f.txt", "\u0301a.txt", "a\ud800.txt",
])
def test_spoofing_names_are_not_legal(name):
    assert legal_name_problem(name) is not None


@pytest.mark.parametrize("name", [
    "a.txt", "中文 名字.txt", "e\u0301.txt", "\u00e9.txt", "\u2764\ufe0f.txt", "全角\u3000空格.txt",
    "Ελληνικά.md", "ملف.txt", "日本語\U000e0100.txt",
])
def test_visible_names_stay_legal(name):
    assert legal_name_problem(name) is None


@pytest.mark.parametrize("text,expected", [
    ("report\u202efdp.txt", "report\\u202efdp.txt"), ("b\u200b.txt", "b\\u200b.txt"),
    ("\u3164.txt", "\\u3164.txt"), ("a\ufe0f", "a\\ufe0f"), ("a\nb", "a\\nb"), ("\u2764\ufe0f é 中", "\u2764\ufe0f é 中"),
    ("a\U000e0041", "a\\U000e0041"),
])
def test_show_escapes_invisible_characters(text, expected):
    assert show(text) == expected
    assert escape_invisible(text) == expected


@pytest.mark.parametrize("sentence", [
    "把 a.txt 复制到 b\u200d.txt", "把 a.txt 重命名为 a\u00ad.txt", "把 a.txt 重命名为 \ufeffa.txt",
    "新建文件 x\u2066y.txt", "新建文件夹 dir\u202e", "把 a.txt 移动到 docs/x\u200b.txt",
])
def test_spoofing_targets_are_refused_by_every_write(tmp_path, capsys, sentence):
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    code, _ = act(capsys, tmp_path, sentence)
    assert code == 7
    assert visible(tmp_path) == ["a.txt", "docs"]
    assert list((tmp_path / "docs").iterdir()) == []


def test_existing_spoofed_name_can_be_read_and_renamed_and_is_shown_escaped(tmp_path, capsys):
    odd = "r\u202efdp.txt"
    (tmp_path / odd).write_text("hi\n", encoding="utf-8")
    code = main(["-p", f"读取 {odd}", "--workspace", str(tmp_path), "--yes"])
    out = capsys.readouterr().out
    assert code == 0
    assert "r\\u202efdp.txt" in out and "\u202e" not in out.split("工作区操作", 1)[1]
    assert act(capsys, tmp_path, f"把 {odd} 重命名为 report.txt")[0] == 0
    assert visible(tmp_path) == ["report.txt"]


# --- 2. backup names of deeply nested files --------------------------------------------------------

@pytest.mark.parametrize("rel", [
    "/".join(f"folder_number_{n}_with_a_long_name" for n in range(8)) + "/x.txt",
    "/".join(["中文目录名字很长"] * 20) + "/文件.txt",
    "a" * 250 + ".txt",
    "/".join(["é" * 100] * 3) + "/n.md",
])
@pytest.mark.parametrize("collision", [0, 1, 999])
def test_long_backup_names_fit_and_stay_unique(rel, collision):
    name = backup_name(rel, WHEN, collision)
    assert len(name.encode("utf-8")) <= MAX_BACKUP_NAME_BYTES
    assert "/" not in name and "\\" not in name and ":" not in name
    assert name.endswith(f".20240102-030405{f'-{collision}' if collision else ''}.bak")
    twin = rel[:-6] + "Z" + rel[-5:]  # same length, one character changed near the end
    assert backup_name(twin, WHEN, collision) != name
    assert backup_name(rel, WHEN, collision) == name


def test_short_backup_name_keeps_the_seed_form():
    assert backup_name("src/main.cpp", WHEN) == "src__main.cpp.20240102-030405.bak"
    assert backup_name("src\\main.cpp", WHEN, 2) == "src__main.cpp.20240102-030405-2.bak"


def test_deep_cjk_file_is_modified_and_undone(tmp_path, capsys):
    rel = "/".join(f"第{n}个非常非常长的中文文件夹名字" for n in range(6)) + "/说明.txt"
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text("hello\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, f"在 {rel} 中把 hello 替换为 bye")
    assert code == 0, action
    assert (tmp_path / rel).read_text(encoding="utf-8") == "bye\n"
    backups = list((tmp_path / ".localagent" / "backups").iterdir())
    assert len(backups) == 1 and len(backups[0].name.encode()) <= 255
    assert act(capsys, tmp_path, "撤销")[0] == 0
    assert (tmp_path / rel).read_text(encoding="utf-8") == "hello\n"


def test_file_with_a_255_byte_cjk_name_is_modified(tmp_path, capsys):
    name = "长" * 81 + ".txt"  # 243 + 4 bytes: its temporary and backup names must be cut by bytes
    (tmp_path / name).write_text("hello\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, f"在 {name} 中把 hello 替换为 bye")
    assert code == 0, action
    assert (tmp_path / name).read_text(encoding="utf-8") == "bye\n"


# --- 3. a name typed in another normalization form ---------------------------------------------

def test_nfd_name_typed_finds_nfc_file(tmp_path, capsys):
    (tmp_path / "\u00e9t\u00e9.txt").write_text("summer\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, "读取 e\u0301te\u0301.txt")
    assert code == 0, action
    assert action["paths"] == ["\u00e9t\u00e9.txt"]


def test_nfc_path_finds_nfd_folder_and_file(tmp_path, capsys):
    (tmp_path / "caf\u0065\u0301").mkdir()
    (tmp_path / "caf\u0065\u0301" / "men\u0075\u0308.txt").write_text("x\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, "读取 caf\u00e9/men\u00fc.txt")
    assert code == 0, action
    assert action["paths"] == ["cafe\u0301/menu\u0308.txt"]


def test_nfc_name_edits_the_nfd_file_without_creating_another(tmp_path, capsys):
    (tmp_path / "e\u0301.txt").write_text("hello\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, "在 \u00e9.txt 中把 hello 替换为 bye")
    assert code == 0, action
    assert visible(tmp_path) == ["e\u0301.txt"]
    assert (tmp_path / "e\u0301.txt").read_text(encoding="utf-8") == "bye\n"


def test_new_file_keeps_the_typed_form(tmp_path, capsys):
    assert act(capsys, tmp_path, "新建文件 e\u0301.txt")[0] == 0
    assert visible(tmp_path) == ["e\u0301.txt"]


def test_exact_name_wins_and_other_forms_are_not_looked_up(tmp_path):
    sub = tmp_path / "d"
    sub.mkdir()
    for name in ("e\u0301.txt", "\u00e9.txt", "e\u0302.txt"):
        (sub / name).write_text(name, encoding="utf-8")
    policy = AccessPolicy(tmp_path)
    assert normalization_matches(policy, "d/\u00e9.txt") == []  # exists as typed: no lookup
    (sub / "\u00e9.txt").unlink()
    assert normalization_matches(policy, "d/\u00e9.txt") == ["d/e\u0301.txt"]
    assert normalization_matches(policy, "d/plain.txt") == []


def test_two_on_disk_forms_ask_which(tmp_path, capsys):
    # Two unnormalized orders of the same marks: both are "\u1eb9\u0301" in NFC, neither as typed.
    for name in ("e\u0301\u0323.txt", "e\u0323\u0301.txt"):
        (tmp_path / name).write_text(name, encoding="utf-8")
    code, action = act(capsys, tmp_path, "读取 \u1eb9\u0301.txt")
    assert code == 1 and action["status"] == "failed"
    assert sorted(action["paths"]) == ["e\u0301\u0323.txt", "e\u0323\u0301.txt"]


def test_lookup_never_leaves_the_workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "e\u0301.txt").write_text("secret", encoding="utf-8")
    (ws / "link").symlink_to(tmp_path)
    policy = AccessPolicy(ws)
    assert normalization_matches(policy, "../\u00e9.txt") == []
    assert normalization_matches(policy, "link/\u00e9.txt") == []
    assert normalization_matches(policy, str(tmp_path / "\u00e9.txt")) == []


def test_lookup_does_not_reach_a_sensitive_file(tmp_path, capsys):
    (tmp_path / ".ssh").mkdir()
    (tmp_path / ".ssh" / "cl\u0065\u0301.txt").write_text("k\n", encoding="utf-8")
    code, _ = act(capsys, tmp_path, "读取 .ssh/cl\u00e9.txt")
    assert code != 0
