"""Ctrl-C mid-run (issue 2 "Bad input"): process tree gone, exit 130, partial results reported, input unchanged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from tests.fake_llm.fixtures import fake_llm  # noqa: F401  (fixture)
from tests.fake_llm.server import Reply
from tests.helpers import SLOW_CODE, make_workspace, task_reply, tree_digest

REPO = Path(__file__).resolve().parents[1]


def test_sigint_cancels_run_and_kills_tree(tmp_path, fake_llm):  # noqa: F811
    fake_llm.script(Reply.text(task_reply(SLOW_CODE)), Reply.text('{"passed": true, "reason": "复制"}'))
    ws = make_workspace(tmp_path / "ws", images=2)
    before = tree_digest(ws / "input")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env.update(LLM_API_URL=fake_llm.url, LLM_API_KEY="sk-cancel-test-key", LLM_MAX_RETRIES="0",
               PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "localagent", "-p", "把这个文件夹里的图片复制一份",
                             "--workspace", str(ws), "--yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=tmp_path)
    deadline = time.monotonic() + 60
    seen = ""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        seen += line
        if "copied" in line or not line:
            break
    assert "copied" in seen, seen
    descendants = psutil.Process(proc.pid).children(recursive=True)
    assert descendants
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "1" in out  # partial results: one file copied
    gone, alive = psutil.wait_procs(descendants, timeout=5)
    assert not alive
    assert (ws / "output" / "img_0.png").is_file()
    assert tree_digest(ws / "input") == before
