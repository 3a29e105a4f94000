"""The interactive line mode on a real terminal (a pty): sentence → plan → y/N → result (issue 2)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import make_workspace, tree_digest

REPO = Path(__file__).resolve().parents[1]


class Terminal:
    """Drive a child process through a pseudo-terminal, with a timeout on every wait."""

    def __init__(self, argv: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
        env["PYTHONPATH"] = str(REPO)
        self.proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=env,
                                     close_fds=True)
        os.close(slave)
        self.seen = ""

    def expect(self, needle: str, timeout: float = 60.0, *, after: int = 0) -> str:
        """Wait until ``needle`` appears in the output from character ``after`` on."""
        deadline = time.monotonic() + timeout
        while needle not in self.seen[after:]:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {needle!r}; saw:\n{self.seen}")
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    self.seen += os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    break
        return self.seen

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode("utf-8"))

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX only")
def test_line_mode_plans_asks_and_runs(tmp_path):
    ws = make_workspace(tmp_path / "ws", images=2)
    before = tree_digest(ws / "input")
    term = Terminal([sys.executable, "-m", "localagent", "--workspace", str(ws)], tmp_path)
    term.expect("> ")
    term.send("把这个文件夹里的图片复制一份")
    term.expect("[y/N]")
    term.send("y")
    term.expect("结果")
    term.expect("> ")
    term.send("把这个文件夹里的图片复制一份")
    term.expect("[y/N]")
    term.send("n")
    term.expect("已拒绝")
    term.send("exit")
    assert term.close() == 0
    assert sorted(p.name for p in (ws / "output").rglob("*.png")) == ["img_0.png", "img_1.png"]
    assert tree_digest(ws / "input") == before
    assert "成功 2 个" in term.seen


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX only")
def test_ctrl_c_drops_the_line_and_at_a_question_cancels(tmp_path):
    import signal

    ws = make_workspace(tmp_path / "ws", images=1)
    term = Terminal([sys.executable, "-m", "localagent", "--workspace", str(ws)], tmp_path)
    term.expect("> ")
    time.sleep(0.5)  # a signal between the prompt and the blocking read is only seen after the next line
    mark = len(term.seen)
    term.proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
    term.expect("> ", after=mark)  # the typed line is dropped and a fresh prompt comes
    term.send("把这个文件夹里的图片复制一份")
    term.expect("[y/N]")
    time.sleep(0.5)
    term.proc.send_signal(signal.SIGINT)
    term.expect("已取消")
    term.expect("> ")
    term.send("exit")
    assert term.close() == 0
    assert not list((ws / "output").iterdir())


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX only")
def test_ctrl_c_at_the_one_shot_question_exits_130(tmp_path):
    import signal

    ws = make_workspace(tmp_path / "ws", images=1)
    term = Terminal([sys.executable, "-m", "localagent", "-p", "把这个文件夹里的图片复制一份", "--workspace", str(ws)],
                    tmp_path)
    term.expect("[y/N]")
    time.sleep(0.5)
    term.proc.send_signal(signal.SIGINT)
    assert term.close() == 130
    assert not list((ws / "output").iterdir())


@pytest.mark.skipif(sys.platform == "win32", reason="pty is POSIX only")
def test_ctrl_c_at_a_workspace_confirmation_exits_130_and_changes_nothing(tmp_path):
    import signal

    ws = make_workspace(tmp_path / "ws", images=1)
    (ws / "tmp.log").write_text("keep me\n", encoding="utf-8")
    term = Terminal([sys.executable, "-m", "localagent", "-p", "删除 tmp.log", "--workspace", str(ws)], tmp_path)
    term.expect("[y/N]")
    time.sleep(0.5)
    term.proc.send_signal(signal.SIGINT)
    assert term.close() == 130
    assert (ws / "tmp.log").read_text(encoding="utf-8") == "keep me\n"
