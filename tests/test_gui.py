"""The desktop window under Xvfb (seed 000 "UI（Tkinter）最小可跑要求", issue 2 "What a user can do", issue 3 §4).

A real Tk window on a virtual display: send a sentence, see the task guide,
press Start, see the result; chat without a key; cancel a running task (real
sandbox, scripted model over HTTP); the workspace picker, the result list and
the confirmation dialog. Every wait has a timeout. Skipped, with the reason
printed, where ``Xvfb`` is not installed (CI installs it).
"""

from __future__ import annotations

import gc
import os
import shutil
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from tests.fake_llm.fixtures import fake_llm  # noqa: F401  (fixture)
from tests.fake_llm.server import Reply
from tests.helpers import SLOW_CODE, make_workspace, task_reply, tree_digest

pytestmark = pytest.mark.gui

COPY_SENTENCE = "把这个文件夹里的图片复制一份"
KEY = "sk-gui-test-0123456789abcdef"


def _start_xvfb() -> tuple[subprocess.Popen, str] | None:
    for number in range(99, 121):
        socket_path = Path(f"/tmp/.X11-unix/X{number}")
        if socket_path.exists() or Path(f"/tmp/.X{number}-lock").exists():
            continue
        proc = subprocess.Popen(["Xvfb", f":{number}", "-nolisten", "tcp", "-screen", "0", "1280x900x24"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and proc.poll() is None and not socket_path.exists():
            time.sleep(0.05)
        if proc.poll() is None and socket_path.exists():
            return proc, f":{number}"
        proc.kill()
        proc.wait(timeout=5)
    return None


@pytest.fixture(scope="session")
def xvfb_display():
    """Start ``Xvfb`` on a free display number for the whole session; yield ``":N"``."""
    if shutil.which("Xvfb") is None:
        print("SKIP reason: Xvfb is not installed (CI installs it: apt-get install -y xvfb)")
        pytest.skip("Xvfb is not installed (CI installs it: apt-get install -y xvfb)")
    started = _start_xvfb()
    if started is None:
        pytest.skip("Xvfb did not start on any display :99..:120")
    proc, display = started
    yield display
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


@pytest.fixture
def open_app(xvfb_display, monkeypatch):
    """Return ``open_app(workspace, lang="zh")`` → a LocalAgentApp on the virtual display; closed after the test."""
    import tkinter as tk

    from localagent.agent.session import build_session
    from localagent.config import load_settings
    from localagent.ui.app import LocalAgentApp

    monkeypatch.setenv("DISPLAY", xvfb_display)
    apps: list[LocalAgentApp] = []

    def factory(workspace: Path, lang: str = "zh") -> LocalAgentApp:
        session = build_session(load_settings(), lang=lang, workspace=workspace, create_missing=False)
        root = tk.Tk()
        app = LocalAgentApp(root, session)
        apps.append(app)
        app.wait_idle(10)
        return app

    yield factory
    for app in apps:
        app.close()
        deadline = time.monotonic() + 30
        while not app.closed and time.monotonic() < deadline:
            try:
                app.root.update()
            except tk.TclError:
                break
            time.sleep(0.02)
        assert app.closed
    apps.clear()
    # Tk objects must be finalised on this (the Tk) thread, not by a later worker thread's garbage collection.
    gc.collect()


def use_model(monkeypatch, server) -> None:
    monkeypatch.setenv("LLM_API_URL", server.url)
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")


def widget_text(widget) -> str:
    return str(widget.cget("text"))


def is_enabled(button) -> bool:
    return str(button.cget("state")) != "disabled"


def dialog_text(dialog) -> str:
    return " ".join(widget_text(w) for w in dialog.winfo_children() if "text" in w.keys())


def pump_until(app, predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.root.update()
        if predicate():
            return True
        time.sleep(0.02)
    return False


# --- the main job in the window -------------------------------------------------------------------------

def test_window_opens_in_chinese(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    app = open_app(ws)
    assert app.root.title() == "LocalAgent"
    assert app.view == "chat"
    assert widget_text(app.input_bar.send_button) == "发送"
    assert widget_text(app.workspace_bar.choose_button) == "选择工作区"
    assert str(ws.resolve()) in widget_text(app.workspace_bar.path_label)
    assert "LLM_API_KEY" in app.output.content()  # no key: the window says what works
    assert pump_until(app, lambda: "bwrap" in widget_text(app.isolation_label)
                      or "guard-only" in widget_text(app.isolation_label), 30)


def test_copy_images_guide_start_result(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws", images=3)
    before = tree_digest(ws / "input")
    app = open_app(ws)
    assert app.submit(COPY_SENTENCE)
    assert app.wait_idle(60)
    guide = app.guide
    assert app.view == "task" and app.last_outcome.kind == "task"
    task = app.last_task
    assert task.status == "pending" and task.source == "template"
    assert task.plan.strip() and task.plan.strip().splitlines()[0] in guide.plan_content()
    assert "静态检查 通过" in guide.plan_content()
    assert "判定：执行任务" in widget_text(guide.reason_label)
    steps = [widget_text(label) for label in guide.step_labels]
    assert steps[0].startswith("1") and "input" in steps[0]
    assert steps[1].startswith("2") and "我来处理" in steps[1]
    assert steps[2].startswith("3") and "output" in steps[2]
    assert widget_text(guide.path_labels["input"]) == str(ws.resolve() / "input")
    assert widget_text(guide.path_labels["output"]) == str(ws.resolve() / "output")
    assert is_enabled(guide.start_button) and widget_text(guide.start_button) == "开始执行"
    assert widget_text(guide.violation_label) == ""

    assert app.start_task()
    assert not is_enabled(guide.start_button) and not is_enabled(app.input_bar.send_button)  # busy
    assert app.wait_idle(120)
    task = app.last_task
    assert task.status == "success" and task.succeeded == 3 and task.failed == 0
    result = app.result_text
    assert "成功" in result and "成功 3 个，失败 0 个" in result and task.isolation in result
    assert task.log_path is not None and task.log_path.is_file() and str(task.log_path) in result
    assert sorted(p.name for p in (ws / "output").rglob("*.png")) == ["img_0.png", "img_1.png", "img_2.png"]
    assert tree_digest(ws / "input") == before
    assert not is_enabled(guide.start_button)  # a task runs once
    assert is_enabled(app.input_bar.send_button)
    assert task.isolation in widget_text(app.isolation_label)


def test_chat_without_key_names_the_key_and_stays_in_chat(tmp_path, open_app):
    app = open_app(make_workspace(tmp_path / "ws"))
    assert app.submit("今天天气怎么样")
    assert app.wait_idle(30)
    assert app.view == "chat" and app.last_task is None
    content = app.output.content()
    assert "LLM_API_KEY" in content and ".env.example" in content
    assert "Traceback" not in content
    assert "LLM_API_KEY" in app.output.tagged_text("error")  # shown in red


def test_empty_sentence_is_refused_without_a_job(tmp_path, open_app):
    app = open_app(make_workspace(tmp_path / "ws"))
    assert not app.submit("   ")
    assert not app.busy and "请输入一句话" in app.output.content()


def test_english_window(tmp_path, open_app):
    app = open_app(make_workspace(tmp_path / "ws"), lang="en")
    assert widget_text(app.input_bar.send_button) == "Send"
    assert app.submit("copy the images in this folder")
    assert app.wait_idle(60)
    assert app.view == "task"
    assert widget_text(app.guide.start_button) == "Start"
    assert "Plan:" in app.guide.plan_content()


def test_decline_and_back(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    app = open_app(ws)
    app.submit(COPY_SENTENCE)
    assert app.wait_idle(60) and app.view == "task"
    app.cancel()  # not running: declines the plan
    assert app.last_task.status == "cancelled" and not app.start_task()
    assert not is_enabled(app.guide.start_button)
    app.back()
    assert app.view == "chat"
    assert list((ws / "output").iterdir()) == []


# --- model-written tasks (scripted model over HTTP) -------------------------------------------------------

def test_blocked_task_shows_violation_in_red_and_start_disabled(tmp_path, open_app, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(task_reply("import socket\nsocket.create_connection(('127.0.0.1', 9))\n")))
    app = open_app(make_workspace(tmp_path / "ws"))
    app.submit(COPY_SENTENCE)
    assert app.wait_idle(60)
    assert app.view == "task" and app.last_task.status == "blocked"
    assert not is_enabled(app.guide.start_button) and not app.start_task()
    violation = widget_text(app.guide.violation_label)
    assert "socket" in violation and str(app.guide.violation_label.cget("foreground")) == "#c0392b"


def test_chat_answer_streams_into_the_output(tmp_path, open_app, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.stream(["<think>想一想</think>", "我无法查询", "实时天气。"]))
    app = open_app(make_workspace(tmp_path / "ws"))
    assert app.submit("今天天气怎么样")
    assert app.wait_idle(30)
    content = app.output.content()
    assert app.view == "chat" and app.last_outcome.kind == "chat"
    assert content.count("我无法查询实时天气。") == 1 and "想一想" not in content  # reasoning replaced
    assert "判定：普通对话" in content


def test_model_error_is_one_red_line_without_the_key(tmp_path, open_app, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.status(401, "invalid api key"))
    app = open_app(make_workspace(tmp_path / "ws"))
    app.submit("今天天气怎么样")
    assert app.wait_idle(30)
    red = app.output.tagged_text("error")
    assert "401" in red and KEY not in app.output.content() and "Traceback" not in app.output.content()
    assert app.last_error is not None and app.last_error.exit_code == 3
    assert is_enabled(app.input_bar.send_button)


def test_cancel_running_task_kills_the_tree(tmp_path, open_app, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(task_reply(SLOW_CODE)), Reply.text('{"passed": true, "reason": "只复制图片"}'))
    ws = make_workspace(tmp_path / "ws", images=2)
    before = tree_digest(ws / "input")
    app = open_app(ws)
    app.submit(COPY_SENTENCE)
    assert app.wait_idle(60) and app.last_task.status == "pending"
    already = {p.pid for p in psutil.Process().children(recursive=True)}  # Xvfb and the like
    assert app.start_task()
    assert pump_until(app, lambda: "copied" in app.guide.progress_box.get("1.0", "end"), 60)
    children = [p for p in psutil.Process().children(recursive=True) if p.pid not in already]
    assert children  # the sandboxed task is running
    assert app.busy and is_enabled(app.guide.cancel_button)
    app.cancel()
    assert app.wait_idle(60)
    assert app.last_task.status == "cancelled"
    assert "已取消" in app.guide.result_text()
    _gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive
    assert tree_digest(ws / "input") == before


# --- workspace picker, result list, confirmation dialog (issue 3 §4) --------------------------------------

def test_workspace_picker_refuses_system_folder_then_switches(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    other = make_workspace(tmp_path / "other")
    app = open_app(ws)
    assert app.open_workspace("/etc")
    assert app.wait_idle(30)
    assert "系统目录" in app.output.content()
    assert app.session.layout.root == ws.resolve()
    assert app.open_workspace(str(other))
    assert app.wait_idle(30)
    assert app.session.layout.root == other.resolve()
    assert str(other.resolve()) in widget_text(app.workspace_bar.path_label)


def test_result_list_and_confirm_dialog_copy(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    (ws / "a.txt").write_text("hello\n", encoding="utf-8")
    (ws / "docs").mkdir()
    app = open_app(ws)
    app.submit("搜索 a.txt")
    assert app.wait_idle(30)
    assert app.last_action is not None and app.last_action.status == "done"
    rows = app.results.rows()
    assert rows and rows[0].startswith("1. ") and "a.txt" in rows[0]

    app.submit("把 a.txt 复制到 docs")
    assert app.wait_idle(30)
    dialog = app.confirm_dialog
    assert dialog is not None and app.last_action.status == "pending"
    shown = dialog_text(dialog)
    assert "a.txt" in shown and "docs" in shown and "中" in shown and "Medium" in shown
    assert is_enabled(dialog.confirm_button)
    dialog.answer(True)
    assert app.wait_idle(30)
    assert app.last_action.status == "done" and (ws / "docs" / "a.txt").read_text(encoding="utf-8") == "hello\n"
    assert (ws / "a.txt").is_file()


def test_strong_confirmation_needs_the_typed_name(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    (ws / "b.txt").write_text("move me\n", encoding="utf-8")
    (ws / "docs").mkdir()
    app = open_app(ws)
    app.submit("把 b.txt 移动到 docs")
    assert app.wait_idle(30)
    dialog = app.confirm_dialog
    assert dialog is not None and dialog.expected_name == "b.txt" and dialog.name_entry is not None
    assert not is_enabled(dialog.confirm_button)
    dialog.type_name("b.tx")
    assert not is_enabled(dialog.confirm_button)
    dialog.name_entry.insert("end", "t")
    dialog.name_entry.event_generate("<KeyRelease>")
    app.root.update()
    assert is_enabled(dialog.confirm_button)
    dialog.answer(True)
    assert app.wait_idle(30)
    assert (ws / "docs" / "b.txt").is_file() and not (ws / "b.txt").exists()


def test_declined_plan_changes_nothing(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    (ws / "c.txt").write_text("keep\n", encoding="utf-8")
    app = open_app(ws)
    app.submit("删除 c.txt")
    assert app.wait_idle(30)
    assert app.confirm_dialog is not None
    app.confirm_dialog.answer(False)
    assert app.wait_idle(30)
    assert app.last_action.status == "cancelled" and (ws / "c.txt").is_file()
    assert not app.session.controller.has_pending_plan()


def test_double_click_row_sends_open_ordinal(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    (ws / "a.txt").write_text("hello\n", encoding="utf-8")
    app = open_app(ws)
    app.submit("搜索 a.txt")
    assert app.wait_idle(30) and app.results.rows()
    app.results.open_row(1)
    assert app.wait_idle(30)
    assert "> 打开第1个" in app.output.content()
    dialog = app.confirm_dialog  # opening a file is Medium: it asks first
    assert dialog is not None
    plan = app.session.controller.pending_plan()
    assert plan.type.value == "open_file"
    assert (plan.relative_source_path or plan.relative_target_path).endswith("a.txt")
    assert "a.txt" in dialog_text(dialog)
    dialog.answer(False)
    assert app.wait_idle(30)


def test_run_app_refuses_a_bad_workspace(tmp_path, xvfb_display, monkeypatch):
    from tkinter import messagebox

    from localagent.config import load_settings
    from localagent.ui import app as app_module

    monkeypatch.setenv("DISPLAY", xvfb_display)
    shown: list[str] = []
    # The message box is a modal OS dialog; record its text instead of blocking the test.
    monkeypatch.setattr(messagebox, "showerror", lambda title, message, **kw: shown.append(message))
    code = app_module.run_app(load_settings(), lang="zh", workspace=str(tmp_path / "missing"))
    assert code == 2 and shown and "工作区不存在" in shown[0]
    gc.collect()  # finalise the closed Tk root here, on the Tk thread


@pytest.mark.skipif(os.name == "nt", reason="POSIX display")
def test_no_display_gives_exit_2(tmp_path, monkeypatch, capsys):
    from localagent.config import load_settings
    from localagent.ui.app import run_app

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert run_app(load_settings(), lang="zh", workspace=str(make_workspace(tmp_path / "ws"))) == 2
    assert "无法打开窗口" in capsys.readouterr().err


def test_folder_buttons_open_input_output_logs(tmp_path, open_app):
    ws = make_workspace(tmp_path / "ws")
    app = open_app(ws)
    launched: list[list[str]] = []
    app.launcher = launched.append  # the OS opener is the boundary; the tool and the policy run for real
    for kind in ("input", "output", "logs"):
        app.open_folder(kind)
    assert [argv[-1] for argv in launched] == [str(ws.resolve() / k) for k in ("input", "output", "logs")]
    assert app.output.tagged_text("error") == ""
