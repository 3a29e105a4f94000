"""LocalAgent's own files in logs/ are out of a task's reach (issue 2 parts 10-11, 12): records, logs, metrics.

A task may keep its own notes in ``logs/``; it may not write, create, truncate, rename or remove
``task_*`` (records, logs, code), ``security_metrics.json*`` or ``localagent.log*``, in either isolation.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from localagent.executor.sandbox_runner import _product_logs, run_task
from tests.helpers import ISOLATIONS, sandbox_layout

EXISTING = ["task_20200101_000000_abcd.json", "task_20200101_000000_abcd.log", "security_metrics.json",
            "localagent.log", "localagent.log.1"]
NEW = ["task_new.json", "TASK_new.log", "task_new.py", "security_metrics.json.tmp", ".security_metrics.json.a.tmp",
       "localagent.log.2"]

ATTACK = """
import os
def attempt(label, action):
    try:
        action()
        print("DONE", label)
    except OSError as error:
        print("REFUSED", label)
for name in {existing!r}:
    path = "logs/" + name
    attempt("write " + name, lambda: open(path, "w").write("FORGED"))
    attempt("append " + name, lambda: open(path, "a").write("FORGED"))
    attempt("truncate " + name, lambda: os.truncate(path, 0))
    attempt("remove " + name, lambda: os.remove(path))
    attempt("rename " + name, lambda: os.rename(path, "logs/moved"))
    attempt("replace " + name, lambda: (open("logs/mine.txt", "w").write("FORGED"), os.replace("logs/mine.txt", path)))
    attempt("chmod " + name, lambda: os.chmod(path, 0o777))
for name in {new!r}:
    attempt("create " + name, lambda: open("logs/" + name, "x").write("FORGED"))
attempt("mkdir", lambda: os.mkdir("logs/task_dir.json"))
open("logs/mine.txt", "w").write("own note")
print("OWN NOTE OK")
"""


@pytest.fixture()
def layout(tmp_path: Path) -> SimpleNamespace:
    spaces = sandbox_layout(tmp_path)
    for name in EXISTING:
        (spaces.logs / name).write_text("ORIGINAL", encoding="utf-8")
    return spaces


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_task_cannot_touch_product_logs(layout, isolation) -> None:
    code = layout.root / "task_p.py"
    code.write_text(textwrap.dedent(ATTACK.format(existing=EXISTING, new=NEW)), encoding="utf-8")
    lines: list[str] = []
    result = run_task(code, layout, "p", isolation=isolation, timeout=60, on_output=lines.append)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    assert [line for line in lines if line.startswith("DONE")] == []
    assert "OWN NOTE OK" in lines
    for name in EXISTING:
        assert (layout.logs / name).read_text(encoding="utf-8") == "ORIGINAL", name
    for name in NEW:
        assert not (layout.logs / name).exists(), name
    assert not (layout.logs / "task_dir.json").exists()
    assert (layout.logs / "mine.txt").read_text(encoding="utf-8") == "own note"
    assert "FORGED" not in result.log_path.read_text(encoding="utf-8")


def test_product_logs_to_bind_read_only(layout) -> None:
    (layout.logs / "notes.txt").write_text("x", encoding="utf-8")
    (layout.logs / "task_link.json").symlink_to(layout.logs / "notes.txt")
    found = {path.name for path in _product_logs(layout.logs)}
    assert found == set(EXISTING)  # not the task's note, not a symlink
