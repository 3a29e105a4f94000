"""Red team 2: workspace actions through the CLI (Unicode names, case, journal, backups, big reads).

Run in-process through ``localagent.ui.cli.main`` with no model key. Findings were ``xfail(strict=True)`` until fixed; variants live in test_unicode_names.py.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from localagent.ui.cli import main
from localagent.workspace.layout import SUBFOLDERS


def act(capsys, root: Path, sentence: str) -> tuple[int, dict]:
    code = main(["-p", sentence, "--workspace", str(root), "--yes", "--output-format", "json"])
    doc = json.loads(capsys.readouterr().out)
    return code, doc.get("action") or {}


def test_big_sparse_read_is_cut_at_128_kb(tmp_path, capsys):
    with open(tmp_path / "big.txt", "w", encoding="utf-8") as handle:
        handle.write("hello world\n" * 20000)
        handle.truncate(2 * 1024**3)
    code, action = act(capsys, tmp_path, "读取 big.txt")
    assert code == 0 and action["status"] == "done"
    assert "128" in action["message"]


def test_copy_onto_itself_and_folder_into_itself_are_refused(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    assert act(capsys, tmp_path, "把 a.txt 复制到 a.txt")[0] == 7
    assert act(capsys, tmp_path, "把 docs 移动到 docs/sub")[0] != 0
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) >= ["a.txt", "docs"]
    assert list((tmp_path / "docs").iterdir()) == []


def test_rename_onto_case_twin_never_overwrites(tmp_path, capsys):
    (tmp_path / "README.md").write_text("upper\n", encoding="utf-8")
    (tmp_path / "readme.md").write_text("lower\n", encoding="utf-8")
    assert act(capsys, tmp_path, "把 README.md 重命名为 readme.md")[0] == 7
    assert (tmp_path / "readme.md").read_text(encoding="utf-8") == "lower\n"
    assert act(capsys, tmp_path, "把 readme.md 重命名为 Readme.MD")[0] == 0  # case-only rename works


def test_undo_after_user_edit_is_refused(tmp_path, capsys):
    (tmp_path / "a.txt").write_text("hi\n", encoding="utf-8")
    assert act(capsys, tmp_path, "在 a.txt 中把 hi 替换为 yo")[0] == 0
    (tmp_path / "a.txt").write_text("user edit\n", encoding="utf-8")
    assert act(capsys, tmp_path, "撤销")[0] == 7
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "user edit\n"


@pytest.mark.parametrize("source,target", [("", "../outside.txt"), ("../stolen.txt", "a.txt")])
def test_forged_journal_entries_cannot_reach_outside(tmp_path, capsys, source, target):
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "outside.txt").write_text("secret\n", encoding="utf-8")
    (ws / "a.txt").write_text("a\n", encoding="utf-8")
    assert act(capsys, ws, "创建 k.txt")[0] == 0
    victim = ws / target if not target.startswith("..") else tmp_path / "outside.txt"
    stat = victim.stat()
    entry = {"kind": "op", "id": "f" * 32, "time": "2026-01-01T00:00:00",
             "type": "rename_file" if source else "create_file", "source": source, "target": target,
             "backup": "", "size": stat.st_size, "mtime_ns": stat.st_mtime_ns,
             "sha256": hashlib.sha256(victim.read_bytes()).hexdigest(), "is_directory": False}
    with open(ws / ".localagent" / "journal.jsonl", "a", encoding="utf-8") as handle:
        handle.write("garbage\n\x00{\"kind\": \"op\"\n[1, 2]\n" + json.dumps(entry) + "\n")
    assert act(capsys, ws, "撤销")[0] == 7
    assert (tmp_path / "outside.txt").read_text(encoding="utf-8") == "secret\n"
    assert (ws / "a.txt").read_text(encoding="utf-8") == "a\n"
    assert not (tmp_path / "stolen.txt").exists()


def test_localagent_symlinked_outside_gets_no_backup(tmp_path, capsys):
    ws, evil = tmp_path / "ws", tmp_path / "evil"
    ws.mkdir()
    evil.mkdir()
    (ws / "a.txt").write_text("hello\n", encoding="utf-8")
    os.symlink(evil, ws / ".localagent")
    code, _ = act(capsys, ws, "在 a.txt 中把 hello 替换为 bye")
    act(capsys, ws, "创建 n.txt")
    act(capsys, ws, "删除 n.txt")
    assert code != 0
    assert (ws / "a.txt").read_text(encoding="utf-8") == "hello\n"
    assert list(evil.iterdir()) == []


def test_deeply_nested_file_can_be_modified(tmp_path, capsys):
    rel = "/".join(f"folder_number_{n}_with_a_long_name" for n in range(8)) + "/x.txt"
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text("hello\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, f"在 {rel} 中把 hello 替换为 bye")
    assert code == 0, action
    assert (tmp_path / rel).read_text(encoding="utf-8") == "bye\n"


@pytest.mark.parametrize("sentence", ["把 a.txt 重命名为 report\u202efdp.txt", "新建文件 \u202egnp.txt",
                                      "新建文件 b\u200b.txt"])
def test_spoofing_characters_in_new_names_are_refused(tmp_path, capsys, sentence):
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    code, _ = act(capsys, tmp_path, sentence)
    assert code == 7
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".") and p.name not in SUBFOLDERS) \
        == ["a.txt"]


def test_nfc_name_finds_nfd_file(tmp_path, capsys):
    (tmp_path / "e\u0301.txt").write_text("hello\n", encoding="utf-8")
    code, action = act(capsys, tmp_path, "读取 \u00e9.txt")
    assert code == 0, action
