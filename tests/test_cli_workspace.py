"""Workspace sentences through the real CLI and the confirmation prompt (issue 3 §4 front ends).

The ``-p`` tests run ``python -m localagent`` as a real subprocess with no LLM key, a
temporary ``XDG_DATA_HOME`` (the recycle bin) and stdin that is not a terminal.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from localagent.agent.workspace_controller import WorkspaceController
from localagent.ui.workspace_render import finish_workspace_action, render_action

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").write_text("# Readme\n", encoding="utf-8")
    (root / "docs" / "README_zh.md").write_text("# 说明\n", encoding="utf-8")
    (root / "tmp.log").write_text("log\n", encoding="utf-8")
    return root


def run_cli(ws: Path, tmp_path: Path, sentence: str, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    (tmp_path / "home").mkdir(exist_ok=True)
    # HOME next to the workspace: send2trash then uses $XDG_DATA_HOME/Trash (same device), never the real bin
    env.update(PYTHONPATH=str(REPO), HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), LANG="zh_CN.UTF-8")
    return subprocess.run([sys.executable, "-m", "localagent", "-p", sentence, "--workspace", str(ws), *extra],
                          cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)


def test_search_prints_json_action_with_relative_paths(ws: Path, tmp_path: Path) -> None:
    proc = run_cli(ws, tmp_path, "搜索 README", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    action = doc["action"]
    assert set(action) == {"type", "risk", "status", "paths", "matches", "message"}
    assert action["type"] == "search_files" and action["status"] == "done" and action["risk"] == "ReadOnly"
    assert action["paths"][0] == "README.md" and "docs/README_zh.md" in action["paths"]
    assert all(not Path(p).is_absolute() for p in action["paths"])
    assert doc["exit_code"] == 0
    assert "1. README.md" in proc.stderr  # the numbered list goes to stderr in JSON mode


def test_text_search_json_has_matches(ws: Path, tmp_path: Path) -> None:
    proc = run_cli(ws, tmp_path, "在项目里搜索 说明", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    action = json.loads(proc.stdout)["action"]
    assert action["matches"] == [{"path": "docs/README_zh.md", "line": 1, "snippet": "# 说明"}]


def test_delete_without_yes_and_terminal_waits(ws: Path, tmp_path: Path) -> None:
    proc = run_cli(ws, tmp_path, "删除 tmp.log", "--output-format", "json")
    assert proc.returncode == 9, proc.stderr
    assert (ws / "tmp.log").exists()
    action = json.loads(proc.stdout)["action"]
    assert action["status"] == "pending" and action["risk"] == "High" and action["paths"] == ["tmp.log"]
    assert "等待确认" in proc.stderr


def test_delete_with_yes_goes_to_the_trash(ws: Path, tmp_path: Path) -> None:
    proc = run_cli(ws, tmp_path, "删除 tmp.log", "--yes", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "tmp.log").exists()
    assert (tmp_path / "data" / "Trash" / "files" / "tmp.log").read_text(encoding="utf-8") == "log\n"
    assert json.loads(proc.stdout)["action"]["status"] == "done"


def test_permanent_delete_is_refused(ws: Path, tmp_path: Path) -> None:
    proc = run_cli(ws, tmp_path, "永久删除 tmp.log")
    assert proc.returncode == 7, proc.stderr
    assert (ws / "tmp.log").exists()
    assert "不允许永久删除文件，只能删除到回收站。" in proc.stdout + proc.stderr


def test_read_prints_the_content_in_text_mode(ws: Path, tmp_path: Path) -> None:
    proc = run_cli(ws, tmp_path, "读取 README.md")
    assert proc.returncode == 0, proc.stderr
    assert "# Readme" in proc.stdout


# --- the confirmation prompt (line mode and -p on a terminal) -------------------------------------------


class Terminal(io.StringIO):
    """Stdin that says it is a terminal and holds the user's answers."""

    def isatty(self) -> bool:
        return True


def _finish(controller: WorkspaceController, sentence: str, *, yes: bool = False) -> tuple[int, object, list[str]]:
    lines: list[str] = []
    outcome = SimpleNamespace(action=controller.handle_message(sentence))
    session = SimpleNamespace(lang="zh", controller=controller)
    code = finish_workspace_action(session, outcome, yes=yes, say=lines.append)
    return code, outcome.action, lines


@pytest.fixture
def ctl(ws: Path) -> WorkspaceController:
    controller = WorkspaceController()
    controller.open_workspace(ws)
    return controller


def test_terminal_yes_confirms(ctl: WorkspaceController, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    code, action, lines = _finish(ctl, "创建 new.txt")
    assert code == 0 and action.status == "done" and (ws / "new.txt").exists()
    assert any("确认执行" in line for line in lines) and any("路径：new.txt" in line for line in lines)


def test_terminal_no_declines(ctl: WorkspaceController, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("n\n"))
    code, action, _ = _finish(ctl, "删除 tmp.log")
    assert code == 7 and action.status == "cancelled" and (ws / "tmp.log").exists()
    assert not ctl.has_pending_plan()


def test_strong_confirmation_needs_the_name(ctl: WorkspaceController, ws: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal("y\n"))
    code, _, lines = _finish(ctl, "把 tmp.log 移动到 docs")
    assert code == 7 and (ws / "tmp.log").exists()  # "y" is not enough for a move
    assert any("tmp.log" in line and "输入" in line for line in lines)
    monkeypatch.setattr(sys, "stdin", Terminal("tmp.log\n"))
    code, action, _ = _finish(ctl, "把 tmp.log 移动到 docs")
    assert code == 0 and action.status == "done" and (ws / "docs" / "tmp.log").exists()


def test_no_terminal_no_yes_waits(ctl: WorkspaceController, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, action, lines = _finish(ctl, "创建 later.txt")
    assert code == 9 and action.status == "pending" and not (ws / "later.txt").exists()
    assert any("等待确认" in line for line in lines)


def test_render_numbers_file_lists(ctl: WorkspaceController) -> None:
    lines = render_action(ctl.handle_message("搜索 README"), "zh")
    assert "1. README.md" in lines and "2. docs/README_zh.md" in lines
    lines = render_action(ctl.handle_message("list files"), "en")
    assert lines[0].startswith("Workspace action: list_files") and "1. docs/" in lines
