"""Red team 2: odd model answers over real HTTP (fake server on 127.0.0.1). Findings are ``xfail(strict=True)``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localagent.ui.cli import main
from tests.fake_llm.fixtures import fake_llm  # noqa: F401  (fixture)
from tests.fake_llm.server import Reply
from tests.helpers import COPY_IMAGES_CODE

KEY = "sk-redteam2-0123456789abcdefghijkl"
REPO = Path(__file__).resolve().parents[1]


def sse(deltas: list[dict]) -> Reply:
    body = "".join("data: " + json.dumps({"id": "x", "object": "chat.completion.chunk", "created": 0, "model": "m",
                                          "choices": [{"index": 0, "delta": d, "finish_reason": None}]}) + "\n\n"
                   for d in deltas)
    return Reply.garbage(body + "data: [DONE]\n\n", content_type="text/event-stream")


def run(capsys, monkeypatch, server, sentence: str, ws: Path) -> tuple[int, dict, str]:
    monkeypatch.setenv("LLM_API_URL", server.url)
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("LLM_MAX_RETRIES", "0")
    code = main(["-p", sentence, "--workspace", str(ws), "--yes", "--output-format", "json"])
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err
    assert "Traceback" not in captured.out + captured.err
    return code, json.loads(captured.out), captured.err


def test_2mb_and_nul_answers_are_plain_chat(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    fake_llm.script(Reply.text("x" * 2_000_000))
    code, doc, _ = run(capsys, monkeypatch, fake_llm, "你好", tmp_path)
    assert code == 0 and len(doc["answer"]) == 2_000_000
    fake_llm.script(Reply.text("hi\x00there"))
    assert run(capsys, monkeypatch, fake_llm, "你好", tmp_path)[0] == 0


def test_choices_empty_is_a_model_error(tmp_path, capsys, monkeypatch, fake_llm):  # noqa: F811
    body = json.dumps({"id": "x", "object": "chat.completion", "choices": []})
    fake_llm.script(Reply.garbage(body, content_type="application/json"))
    code, doc, _ = run(capsys, monkeypatch, fake_llm, "你好", tmp_path)
    assert code == 3 and doc["error"]["exit_code"] == 3


@pytest.mark.parametrize("risks", ["不是列表", {"a": 1}])
def test_plan_risks_not_a_list_is_a_model_error(tmp_path, capsys, monkeypatch, fake_llm, risks):  # noqa: F811
    (tmp_path / "input").mkdir()
    head = json.dumps({"plan": "复制", "risks": risks}, ensure_ascii=False)
    fake_llm.script(Reply.text(f"{head}\n\n```python\n{COPY_IMAGES_CODE}\n```\n"))
    code, doc, _ = run(capsys, monkeypatch, fake_llm, "把 input 里的 txt 文件合并成 all.txt", tmp_path)
    assert code == 3 and doc["error"]["type"] == "ModelAPIError"
    assert not list(tmp_path.glob("task_*.py"))


# Fixed (was a REDTEAM2 xfail).
@pytest.mark.parametrize("deltas", [[{"role": "assistant", "content": None}],
                                    [{"role": "assistant", "content": ""}, {"reasoning_content": "thinking"}]])
def test_empty_streamed_answer_is_a_model_error(tmp_path, capsys, monkeypatch, fake_llm, deltas):  # noqa: F811
    fake_llm.script(sse(deltas))
    assert run(capsys, monkeypatch, fake_llm, "你好", tmp_path)[0] == 3


# Fixed (was a REDTEAM2 xfail).
@pytest.mark.parametrize("fmt", ["json", "text"])
def test_lone_surrogate_in_answer_is_not_a_traceback(tmp_path, fake_llm, fmt):  # noqa: F811
    body = sse([{"content": "a"}])
    fake_llm.script(Reply.garbage(body.content.replace('"a"', '"\\ud800x"'), content_type="text/event-stream"))
    env = dict(os.environ, LLM_API_URL=fake_llm.url, LLM_API_KEY=KEY, LLM_MAX_RETRIES="0")
    proc = subprocess.run([sys.executable, "-m", "localagent", "-p", "你好", "--workspace", str(tmp_path), "--yes",
                           "--output-format", fmt], env=env, capture_output=True, text=True, cwd=REPO,
                          timeout=60, check=False)
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.returncode in (0, 3)
