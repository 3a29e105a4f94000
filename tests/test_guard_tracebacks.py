"""After a guard denial, a task's ordinary error handling works and the hook stays out of reach (issue 2 part 10).

``traceback.print_exc()`` and ``logging.exception`` print the task's own lines; each denied
operation is one interception (printing a traceback reads no denied file); the hook's frame (its
globals are the guard's) cannot be fetched; and no task-defined method runs inside the hook.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from localagent.executor.sandbox_runner import run_task
from tests.helpers import ISOLATIONS, sandbox_layout


@pytest.fixture()
def layout(tmp_path: Path) -> SimpleNamespace:
    spaces = sandbox_layout(tmp_path)
    return spaces


def _run(layout, source: str, isolation: str = "guard-only"):
    code = layout.root / "task_t.py"
    code.write_text(textwrap.dedent(source), encoding="utf-8")
    lines: list[str] = []
    result = run_task(code, layout, "t", isolation=isolation, timeout=60, on_output=lines.append)
    return result, lines


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_error_handling_after_a_denial_works(layout, isolation) -> None:
    result, lines = _run(layout, """
        import logging, sys, traceback
        def nested():
            open("/etc/passwd")
        try:
            nested()
        except PermissionError:
            traceback.print_exc()
            logging.exception("copy failed")
            print("FORMATTED", len(traceback.format_exception(*sys.exc_info())))
        try:
            open("../x", "w")
        except PermissionError as error:
            print("STACK", [frame.name for frame in traceback.extract_tb(error.__traceback__)])
        print("END")
    """, isolation)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    assert "END" in lines and "STACK ['<module>']" in lines
    assert sum('in nested' in line for line in lines) == 2  # print_exc and logging.exception
    assert not any("path_guard.py" in line for line in lines)
    assert [item["event"] for item in result.interceptions] == ["open", "open"]


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("source", [
    "import os\nos.listdir('..')\n",
    "open('/etc/passwd')\n",
    "import socket\n",
    "def f():\n    open('../x', 'w')\nf()\n",
    "import traceback\ntry:\n    open('/etc/passwd')\nexcept OSError:\n    traceback.print_exc()\n    raise\n",
])
def test_one_denial_is_one_interception(layout, isolation, source) -> None:
    result, _lines = _run(layout, source, isolation)
    assert result.returncode != 0
    assert len(result.interceptions) == 1, result.interceptions


def test_hook_frame_stays_out_of_reach_after_printing(layout) -> None:
    result, lines = _run(layout, """
        import traceback
        try:
            open("/etc/shadow")
        except PermissionError as error:
            tb = error.__traceback__
            guard_tb = tb.tb_next
            traceback.print_exc()
            print("CUT", tb.tb_next is None)
            try:
                guard_tb.tb_frame
                print("REACHED")
            except PermissionError:
                print("REFUSED")
    """)
    assert "CUT True" in lines and "REFUSED" in lines and "REACHED" not in lines
    assert {"category": "native", "event": "object.__getattr__", "detail": "tb_frame of a guard denial"} \
        in result.interceptions


def test_no_task_method_runs_inside_the_hook(layout) -> None:
    """Objects passed to audited calls: their ``__class__``/``__eq__``/``__str__``… must not run in the hook."""
    result, lines = _run(layout, """
        import os, sys
        def inside_hook():
            frame = sys._getframe(2)
            return "path_guard" in frame.f_code.co_filename
        class Probe(str):
            def __eq__(self, other):
                print("RAN __eq__", inside_hook()); return False
            __hash__ = str.__hash__
        class Evil:
            @property
            def __class__(self):
                print("RAN __class__", inside_hook()); return Evil
            def __str__(self):
                print("RAN __str__", inside_hook()); return "x"
            def __fspath__(self):
                return "../x"
        class Number(int):
            def __eq__(self, other):
                print("RAN int __eq__", inside_hook()); return True
            def __ne__(self, other):
                print("RAN int __ne__", inside_hook()); return True
            __hash__ = int.__hash__
        calls = [
            lambda: open(Evil()), lambda: os.scandir(Evil()), lambda: os.chmod(Evil(), 0o777),
            lambda: os.utime(Evil()), lambda: os.rename(Evil(), Evil()),
            lambda: sys.audit("open", Evil(), Evil(), Evil()), lambda: sys.audit("open", Number(99), "r", 0),
            lambda: sys.audit("os.rename", Evil(), Evil(), Number(-1), Number(-1)),
            lambda: sys.audit("os.mkdir", "output/d", 0o777, Number(-1)),
            lambda: sys.audit("object.__getattr__", Evil(), Probe("tb_frame")),
            lambda: sys.audit("import", Evil()), lambda: sys.audit("os.chdir", Evil()),
            lambda: sys.audit("socket.connect", Evil(), Evil()),
        ]
        for call in calls:
            try:
                call()
            except Exception:
                pass
        print("END")
    """)
    assert "END" in lines, result.log_path.read_text(encoding="utf-8")
    assert not any(line.startswith("RAN") and line.endswith("True") for line in lines), lines


@pytest.mark.parametrize("module", ["signal", "_signal"])
def test_signal_handlers_cannot_be_installed(layout, module) -> None:
    """A signal handler would run task code inside the hook: the module is refused at run time."""
    result, lines = _run(layout, f"""
        try:
            import {module}
            print("imported")
        except ImportError:
            print("refused")
    """)
    assert "refused" in lines and "imported" not in lines
    assert any(i["category"] == "import" for i in result.interceptions)
