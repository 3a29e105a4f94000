"""Issue 2 acceptance: one sentence → chat, or a planned, checked, confirmed, sandboxed task.

Everything runs for real: the CLI entry point, the rule checker, the sandbox
(bwrap where installed), and the model over HTTP against the scripted fake
server. Seed 000 "最小可跑验收标准" is the first group of tests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from localagent.ui.cli import main
from tests.fake_llm.fixtures import fake_llm  # noqa: F401  (fixture)
from tests.fake_llm.server import Reply
from tests.helpers import COPY_IMAGES_CODE, make_workspace, task_reply, tree_digest

KEY = "sk-test-0123456789abcdefghijklmnop"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def use_model(monkeypatch, server) -> None:
    monkeypatch.setenv("LLM_API_URL", server.chat_url)
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")


# --- seed 000 acceptance -------------------------------------------------------------------------------

def test_no_key_chat_gives_clear_error(tmp_path, capsys):
    code, out, err = run_cli(capsys, "-p", "今天天气怎么样", "--workspace", str(make_workspace(tmp_path / "ws")))
    assert code == 2
    assert "LLM_API_KEY" in err and ".env.example" in err
    assert len(err.strip().splitlines()) == 2 or "LLM_API_KEY" in err.strip().splitlines()[-1]


def test_weather_is_chat(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text("我无法查询实时天气，但可以聊聊。"))
    ws = make_workspace(tmp_path / "ws")
    before = tree_digest(ws)
    code, out, _ = run_cli(capsys, "-p", "今天天气怎么样", "--workspace", str(ws), "--output-format", "json")
    doc = json.loads(out)
    assert code == 0
    assert doc["intent"]["label"] == "chat" and doc["answer"].startswith("我无法查询")
    assert doc["task"] is None
    assert tree_digest(ws) == before  # chat touches no file
    fake_llm.assert_all_used()


def test_copy_images_without_key_runs_template(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", images=5)
    before = tree_digest(ws / "input")
    code, out, err = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                             "--output-format", "json")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["intent"]["label"] == "execution"
    task = doc["task"]
    assert task["status"] == "success" and task["succeeded"] == 5 and task["failed"] == 0
    assert Path(task["code_path"]).name == f"task_{task['id']}.py" and Path(task["code_path"]).is_file()
    assert Path(task["code_path"]).parent == ws.resolve()
    assert task["checks"]["rule_checker"]["passed"] is True
    assert task["checks"]["reviewer"]["skipped"] is True
    assert sorted(p.name for p in (ws / "output").rglob("*.png")) == sorted(f"img_{i}.png" for i in range(5))
    assert not (ws / "output" / "notes.txt").exists()
    assert Path(task["log_path"]).is_file() and Path(task["log_path"]).parent == (ws / "logs").resolve()
    assert (ws / "logs" / "security_metrics.json").is_file()
    assert tree_digest(ws / "input") == before
    assert task["isolation"] in ("bwrap", "guard-only")


def test_plan_without_terminal_and_without_yes_stops_with_9(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws")
    code, out, err = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws))
    assert code == 9
    assert "计划" in out and "--yes" in out
    assert list((ws / "output").iterdir()) == []


def test_json_pending_plan(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws")
    code, out, _ = run_cli(capsys, "-p", "copy all the images in this folder", "--workspace", str(ws),
                           "--output-format", "json", "--lang", "en")
    doc = json.loads(out)
    assert code == 9 and doc["exit_code"] == 9
    assert doc["task"]["status"] == "pending" and doc["intent"]["source"] in ("rules", "llm")
    assert set(doc["task"]) >= {"id", "status", "plan", "code_path", "log_path", "succeeded", "failed",
                                "isolation", "checks"}


# --- the model path ------------------------------------------------------------------------------------

def test_model_written_task_runs_after_review(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(task_reply(COPY_IMAGES_CODE)),
                    Reply.text('<think>{"passed": false}</think>{"passed": true, "reason": "只复制图片"}'))
    ws = make_workspace(tmp_path / "ws", images=3)
    before = tree_digest(ws / "input")
    code, out, err = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                             "--output-format", "json")
    doc = json.loads(out)
    assert code == 0, err
    assert doc["task"]["status"] == "success" and doc["task"]["succeeded"] == 3
    assert doc["task"]["checks"]["reviewer"] == {"passed": True, "reason": "只复制图片", "skipped": False}
    assert len(fake_llm.requests) <= 3
    fake_llm.assert_all_used()
    fake_llm.assert_key_only_in_auth(KEY)
    assert tree_digest(ws / "input") == before
    for path in ws.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_rule_checker_blocks_network_code(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(task_reply("import socket\nsocket.create_connection(('127.0.0.1', 9))\n")))
    ws = make_workspace(tmp_path / "ws")
    code, out, err = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                             "--output-format", "json")
    doc = json.loads(out)
    assert code == 7
    assert doc["task"]["status"] == "blocked"
    violations = doc["task"]["checks"]["rule_checker"]["violations"]
    assert violations and violations[0]["line"] == 1
    metrics = json.loads((ws / "logs" / "security_metrics.json").read_text(encoding="utf-8"))
    assert metrics["static_blocks"] >= 1
    assert list((ws / "output").iterdir()) == []
    fake_llm.assert_all_used()  # the reviewer was never asked


@pytest.mark.parametrize("verdict", [
    '{"passed": "true", "reason": "字符串不是布尔值"}',
    '{"reason": "缺少 passed"}',
    "看起来没问题",
    '```json\n{"passed": false, "reason": "会删除文件"}\n```',
])
def test_reviewer_fails_closed(tmp_path, capsys, monkeypatch, fake_llm, verdict):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(task_reply(COPY_IMAGES_CODE)), Reply.text(verdict))
    ws = make_workspace(tmp_path / "ws")
    code, out, _ = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                           "--output-format", "json")
    assert code == 7
    assert json.loads(out)["task"]["status"] == "blocked"
    assert list((ws / "output").iterdir()) == []


def test_reviewer_server_error_fails_closed(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(task_reply(COPY_IMAGES_CODE)), Reply.status(500, "boom"))
    ws = make_workspace(tmp_path / "ws")
    code, out, _ = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                           "--output-format", "json")
    assert code == 7 and json.loads(out)["task"]["status"] == "blocked"


@pytest.mark.parametrize("answer", [
    "<html>garbage</html>",
    '{"plan": "复制", "risks": []}\n没有代码块',
    '{"plan": "复制", "risks": []}\n```bash\ncp -r input output\n```',
    '<think>```python\nprint(1)\n```</think>{"plan": "复制", "risks": []}',
])
def test_unusable_model_answer_exits_3(tmp_path, capsys, monkeypatch, fake_llm, answer):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(Reply.text(answer))
    ws = make_workspace(tmp_path / "ws")
    before = tree_digest(ws / "input")
    code, _, err = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes")
    assert code == 3
    assert "Python" in err or "python" in err
    assert tree_digest(ws / "input") == before
    assert not list(ws.glob("task_*.py"))


@pytest.mark.parametrize("reply,needle", [
    (Reply.status(401, "invalid api key"), "401"),
    (Reply.status(500, "internal"), "500"),
    (Reply.status(429, "rate limited"), "429"),
])
def test_endpoint_errors_exit_3_without_key(tmp_path, capsys, monkeypatch, fake_llm, reply, needle):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    fake_llm.script(reply)
    code, out, err = run_cli(capsys, "-p", "今天天气怎么样", "--workspace", str(make_workspace(tmp_path / "ws")))
    assert code == 3
    assert needle in err
    assert KEY not in out + err


def test_endpoint_down_exits_3(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LLM_API_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    code, out, err = run_cli(capsys, "-p", "今天天气怎么样", "--workspace", str(make_workspace(tmp_path / "ws")))
    assert code == 3 and err.strip() and KEY not in err


def test_slow_endpoint_times_out(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    use_model(monkeypatch, fake_llm)
    monkeypatch.setenv("LLM_TIMEOUT", "0.5")
    fake_llm.script(Reply.delay(3))
    code, _, err = run_cli(capsys, "-p", "今天天气怎么样", "--workspace", str(make_workspace(tmp_path / "ws")))
    assert code == 3 and err.strip()


# --- bad input -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", ["", "   \n\t "])
def test_empty_sentence(tmp_path, capsys, sentence):
    code, _, err = run_cli(capsys, "-p", sentence, "--workspace", str(make_workspace(tmp_path / "ws")))
    assert code == 2 and err.strip()


def test_huge_sentence_is_refused_plainly(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws")
    code, _, err = run_cli(capsys, "-p", "复制图片" * 25_000, "--workspace", str(ws))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert not (ws / "output").exists() or list((ws / "output").iterdir()) == []


def test_workspace_missing_or_file_or_system(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    for target in (tmp_path / "missing", tmp_path / "afile", Path("/"), Path("/etc"), Path.home()):
        code, _, err = run_cli(capsys, "-p", "复制图片", "--workspace", str(target))
        assert code == 2, target
        assert len(err.strip().splitlines()) == 1, err


def test_empty_input_is_success_with_zero_files(tmp_path, capsys):
    ws = tmp_path / "ws"
    (ws / "input").mkdir(parents=True)
    code, out, _ = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                           "--output-format", "json")
    task = json.loads(out)["task"]
    assert code == 0 and task["status"] == "success" and task["succeeded"] == 0
    assert "0" in task["message"]


def test_unreadable_file_gives_partial_with_counts(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", images=2)
    os.mkfifo(ws / "input" / "stuck.png")  # copying a FIFO fails even for root
    code, out, _ = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes",
                           "--output-format", "json")
    task = json.loads(out)["task"]
    assert code == 1
    assert task["status"] == "partial" and task["succeeded"] == 2 and task["failed"] == 1


def test_name_collision_in_output_keeps_both(tmp_path, capsys):
    ws = make_workspace(tmp_path / "ws", images=1)
    (ws / "output").mkdir()
    (ws / "output" / "img_0.png").write_bytes(b"older result")
    code, out, _ = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws), "--yes")
    assert code == 0
    assert (ws / "output" / "img_0.png").read_bytes() == b"older result"
    assert (ws / "output" / "img_0 (1).png").read_bytes() == (ws / "input" / "img_0.png").read_bytes()


def test_workspace_actions_add_no_folders_to_a_project(tmp_path, capsys):
    """--workspace on a project: searching and reading create nothing; the first code task makes the folders."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "README.md").write_text("# demo\n", encoding="utf-8")
    code, _, _ = run_cli(capsys, "-p", "搜索 README", "--workspace", str(project))
    assert code == 0
    assert sorted(p.name for p in project.iterdir()) == ["README.md"]
    code, _, _ = run_cli(capsys, "-p", "把这个文件夹里的图片复制一份", "--workspace", str(project), "--yes")
    assert code == 0
    assert {"input", "output", "logs"} <= {p.name for p in project.iterdir()}
