"""Routing of one sentence between chat, the seed 001 controller and the seed 000 task pipeline.

Without a model the intent rules are cautious; direct workspace requests must
still reach the controller (issue 3 §4), and chat must still never run anything.
"""

from __future__ import annotations

import json

import pytest

from localagent.ui.cli import main
from tests.helpers import make_workspace, tree_digest


def run_json(capsys, *args: str) -> tuple[int, dict]:
    code = main([*args, "--output-format", "json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture()
def project(tmp_path):
    ws = make_workspace(tmp_path / "ws")
    (ws / "src").mkdir()
    (ws / "src" / "fileops.py").write_text("class FileOperationManager:\n    pass\n", encoding="utf-8")
    (ws / "README.md").write_text("# demo\n", encoding="utf-8")
    (ws / "tmp.log").write_text("log\n", encoding="utf-8")
    (ws / "b.log").write_text("log\n", encoding="utf-8")
    return ws


@pytest.mark.parametrize("sentence,kind", [
    ("搜索 fileops", "search_files"),
    ("找一下包含 FileOperationManager 的文件", "search_text"),
    ("搜索 README", "search_files"),
])
def test_direct_requests_reach_the_controller_without_a_key(capsys, project, sentence, kind):
    code, doc = run_json(capsys, "-p", sentence, "--workspace", str(project))
    assert code == 0, doc
    assert doc["action"]["type"] == kind and doc["action"]["status"] == "done"
    assert doc["intent"]["label"] == "execution"
    assert doc["task"] is None
    assert all(not p.startswith("/") for p in doc["action"]["paths"])


@pytest.mark.parametrize("sentence", ["删除所有 .log", "永久删除 tmp.log"])
def test_refusals_are_said_not_sent_to_chat(capsys, project, sentence):
    before = tree_digest(project)
    code, doc = run_json(capsys, "-p", sentence, "--workspace", str(project))
    assert code == 7, doc
    assert doc["action"]["status"] == "refused"
    assert tree_digest(project) == before


@pytest.mark.parametrize("sentence", ["今天天气怎么样", "搜索 Qt 最新版本", "打开微信", "什么是文件夹？"])
def test_chat_sentences_never_touch_the_workspace(capsys, project, sentence):
    before = tree_digest(project)
    code, doc = run_json(capsys, "-p", sentence, "--workspace", str(project))
    assert code == 2  # chat needs a model, and none is configured
    assert "LLM_API_KEY" in doc["error"]["message"]
    assert doc["action"] is None and doc["task"] is None
    assert tree_digest(project) == before


def test_json_error_after_classification_still_names_the_intent(capsys, project):
    code, doc = run_json(capsys, "-p", "今天天气怎么样", "--workspace", str(project))
    assert code == 2 and doc["error"]["exit_code"] == 2
    assert doc["intent"]["label"] == "chat" and doc["intent"]["source"] == "rules"
