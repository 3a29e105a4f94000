"""The newcomer-trial faults through the real CLI (``python -m localagent -p``, no key unless said).

Undo after a deletion, names containing 文件 or spaces, exit 3 for a model error in analysis, a scan
that lists its files. Each call is a real subprocess with a temporary home and recycle bin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "文件.txt").write_text("文件内容\n", encoding="utf-8")
    (root / "说明 文件.txt").write_text("说明内容\n", encoding="utf-8")
    (root / "README.md").write_text("# Demo\n", encoding="utf-8")
    return root


def cli(ws: Path, tmp_path: Path, sentence: str, *extra: str, env_extra: dict | None = None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(PYTHONPATH=str(REPO), HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), LANG="zh_CN.UTF-8", **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "localagent", "-p", sentence, "--workspace", str(ws), *extra],
                          cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def action(proc: subprocess.CompletedProcess) -> dict:
    return json.loads(proc.stdout)["action"]


def test_undo_after_delete_reaches_the_earlier_steps(ws: Path, tmp_path: Path) -> None:
    assert cli(ws, tmp_path, "把 a.txt 复制到 docs", "--yes").returncode == 0
    assert cli(ws, tmp_path, "把 a.txt 重命名为 b.txt", "--yes").returncode == 0
    planned = cli(ws, tmp_path, "删除 b.txt", "--output-format", "json")
    assert planned.returncode == 9 and "撤销" in planned.stderr and "回收站" in planned.stderr
    assert cli(ws, tmp_path, "删除 b.txt", "--yes").returncode == 0

    first = cli(ws, tmp_path, "撤销", "--output-format", "json")  # no yes asked: said at once
    assert first.returncode == 7, first.stderr
    assert action(first)["status"] == "refused" and "请到回收站中还原 b.txt" in action(first)["message"]
    second = cli(ws, tmp_path, "撤销", "--yes", "--output-format", "json")
    assert second.returncode == 7 and "已不存在" in action(second)["message"]
    assert "修改过" not in action(second)["message"]
    third = cli(ws, tmp_path, "撤销", "--yes", "--output-format", "json")
    assert third.returncode == 0, third.stderr
    assert action(third)["status"] == "done" and not (ws / "docs" / "a.txt").exists()


@pytest.mark.parametrize(("sentence", "text"), [
    ("读取 文件.txt", "文件内容"),
    ("读取 说明 文件.txt", "说明内容"),
    ("读取文件 a.txt", "A"),
])
def test_names_with_the_word_file_or_spaces(ws: Path, tmp_path: Path, sentence: str, text: str) -> None:
    proc = cli(ws, tmp_path, sentence)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert text in proc.stdout


def test_model_error_in_analysis_exits_3(ws: Path, tmp_path: Path) -> None:
    proc = cli(ws, tmp_path, "分析这个项目", "--output-format", "json",
               env_extra={"LLM_API_URL": "http://127.0.0.1:9/v1", "LLM_API_KEY": "sk-x", "LLM_MAX_RETRIES": "0"})
    assert proc.returncode == 3, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["exit_code"] == 3 and doc["error"]
    assert "sk-x" not in proc.stdout + proc.stderr


def test_scan_lists_its_files(ws: Path, tmp_path: Path) -> None:
    proc = cli(ws, tmp_path, "扫描工作区", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    paths = action(proc)["paths"]
    assert set(paths) == {"a.txt", "文件.txt", "说明 文件.txt", "README.md"}
    assert all(not Path(p).is_absolute() for p in paths)
    assert "1. " in proc.stderr and "扫描完成：4 个文件" in proc.stderr


def test_english_count_is_singular_for_one(ws: Path, tmp_path: Path) -> None:
    proc = cli(ws, tmp_path, "search README", "--lang", "en")
    assert proc.returncode == 0, proc.stderr
    assert "Found 1 file" in proc.stdout and "1 files" not in proc.stdout
