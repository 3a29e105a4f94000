"""The runtime guard (issue 2 part 10): a decision table, then the real hook in a real child (guard only)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from localagent.executor import path_guard
from localagent.executor.sandbox_runner import run_task
from tests.helpers import sandbox_layout


@pytest.fixture()
def layout(tmp_path: Path) -> SimpleNamespace:
    spaces = sandbox_layout(tmp_path)
    (spaces.input / "a.txt").write_text("original", encoding="utf-8")
    return spaces


@pytest.fixture()
def decide(layout):
    config = path_guard.make_config(layout.root, protected_paths=[layout.root.parent / "rec.jsonl"], protected_fd=99)
    return path_guard.build_decider(config)


W = os.O_WRONLY | os.O_CREAT | os.O_TRUNC


def _cases(ws: Path) -> list[tuple[str, tuple, str | None]]:
    out, inp, logs = ws / "output", ws / "input", ws / "logs"
    return [
        ("open", (str(inp / "a.txt"), "r", os.O_RDONLY), None),
        ("open", (str(out / "new.txt"), "w", W), None),
        ("open", (str(logs / "notes.txt"), "a", os.O_WRONLY | os.O_APPEND), None),
        ("open", (str(inp / "a.txt"), "w", W), "path"),
        ("open", (str(inp / "a.txt"), "r+", os.O_RDWR), "path"),
        ("open", (str(ws / "x.py"), None, os.O_WRONLY | os.O_CREAT), "path"),
        ("open", (str(out / ".." / "input" / "a.txt"), "a", os.O_WRONLY | os.O_APPEND), "path"),
        ("open", (str(logs / "task_1.log"), "w", W), "path"),
        ("open", (str(logs / "security_metrics.json"), "w", W), "path"),
        ("open", ("/etc/passwd", "r", os.O_RDONLY), "path"),
        ("open", (b"/etc/passwd", "r", os.O_RDONLY), "path"),
        ("open", (str(Path.home() / ".ssh" / "id_rsa"), "r", os.O_RDONLY), "path"),
        ("open", (os.__file__, "r", os.O_RDONLY), None),
        ("open", (os.devnull, "w", W), None),
        ("open", (str(ws.parent / "rec.jsonl"), "a", os.O_WRONLY), "path"),
        ("open", (99, "w", os.O_WRONLY), "path"),
        ("open", (str(inp), None, os.O_RDONLY), "path"),
        ("os.listdir", (str(inp),), None),
        ("os.scandir", ("/",), "path"),
        ("os.listdir", ("/root",), "path"),
        ("os.mkdir", (str(out / "sub"), 0o777, -1), None),
        ("os.mkdir", (str(inp / "sub"), 0o777, -1), "path"),
        ("os.mkdir", ("sub", 0o777, 5), "path"),
        ("os.remove", (str(out / "x"), -1), None),
        ("os.remove", (str(inp / "a.txt"), -1), "destructive"),
        ("os.rmdir", (str(out), -1), "destructive"),
        ("os.remove", (str(logs / "task_1.log"), -1), "destructive"),
        ("os.rename", (str(out / "a"), str(out / "b"), -1, -1), None),
        ("os.rename", (str(inp / "a.txt"), str(out / "a.txt"), -1, -1), "destructive"),
        ("os.chmod", (str(inp / "a.txt"), 0o777, -1), "destructive"),
        ("os.chmod", (3, 0o777, -1), "destructive"),
        ("os.utime", (str(out / "a"), None, None, -1), None),
        ("os.truncate", (str(inp / "a.txt"), 0), "destructive"),
        ("os.symlink", ("/etc/passwd", str(out / "l"), -1), "destructive"),
        ("os.link", (str(inp / "a.txt"), str(out / "l"), -1, -1, True), "destructive"),
        ("shutil.rmtree", (str(out), None), "destructive"),
        ("os.chdir", ("/",), "path"),
        ("os.chdir", (str(out),), None),
        ("socket.connect", (object(), ("127.0.0.1", 80)), "network"),
        ("socket.__new__", (object(), 2, 1, 0), "network"),
        ("socket.getaddrinfo", ("example.com", 80, 0, 0, 0), "network"),
        ("subprocess.Popen", ("sh", ["sh"], None, None), "process"),
        ("os.system", (b"ls",), "process"),
        ("os.exec", ("/bin/sh", ["sh"], None), "process"),
        ("os.posix_spawn", ("/bin/sh", ["sh"], None), "process"),
        ("os.fork", (), "process"),
        ("os.kill", (1, 9), "process"),
        ("ctypes.dlopen", ("libc.so.6",), "native"),
        ("ctypes.call_function", (0, ()), "native"),
        ("gc.get_referrers", ((),), "native"),
        ("cpython.PyInterpreterState_New", (), "native"),
        ("import", ("socket", None, [], [], []), "import"),
        ("import", ("urllib.request", None, [], [], []), "import"),
        ("import", ("ctypes.util", None, [], [], []), "import"),
        ("import", ("_testcapi", None, [], [], []), "import"),
        ("import", ("json", None, [], [], []), None),
        ("import", ("urllib.parse", None, [], [], []), None),
        ("exec", (compile("1", "<x>", "eval"),), None),
        ("os.listdir", (None,), None),  # the working directory is the workspace
    ]


def test_decision_table(layout, decide, monkeypatch):
    monkeypatch.chdir(layout.root)
    failures = []
    for event, args, expected in _cases(layout.root):
        verdict = decide(event, args)
        if (verdict[0] if verdict else None) != expected:
            failures.append((event, args, expected, verdict))
    assert not failures


def test_unreadable_arguments_fail_closed(decide):
    assert decide("open", (object(), "r", 0)) is not None
    assert decide("os.remove", (object(), -1)) is not None


def test_str_subclass_cannot_lie(decide):
    class Liar(str):
        def startswith(self, *args):
            return True

        def __radd__(self, other):
            return "output/x"

    assert decide("open", (Liar("/etc/passwd"), "r", os.O_RDONLY)) == ("path", "/etc/passwd")


def _run(layout, source: str, task_id: str = "g"):
    code = layout.root / f"task_{task_id}.py"
    code.write_text(textwrap.dedent(PROBE) + textwrap.dedent(source), encoding="utf-8")
    lines: list[str] = []
    result = run_task(code, layout, task_id, isolation="guard-only", timeout=60, on_output=lines.append)
    return result, lines


PROBE = """
    import os
    def probe(label, action):
        try:
            action()
            print("ALLOWED", label)
        except (PermissionError, ImportError) as error:
            print("DENIED", label, type(error).__name__)
"""


def test_legit_file_processing_works(layout):
    (layout.input / "photos").mkdir()
    (layout.input / "photos" / "p.png").write_bytes(b"\x89PNG fake")
    result, lines = _run(layout, """
        import csv, json, os, shutil, zipfile, mimetypes, collections, dataclasses, logging, datetime
        from pathlib import Path
        shutil.copy2("input/photos/p.png", "output/p.png")
        Path("output/deep/er").mkdir(parents=True, exist_ok=True)
        shutil.copytree("input/photos", "output/tree")
        with zipfile.ZipFile("output/all.zip", "w") as archive:
            archive.write("input/a.txt")
        with open("output/t.csv", "w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerow(["名字", 1])
        Path("output/j.json").write_text(json.dumps({"ok": True}), encoding="utf-8")
        Path("logs/extra.txt").write_text("note", encoding="utf-8")
        os.rename("output/j.json", "output/k.json")
        print(mimetypes.guess_type("a.png")[0], sorted(p.name for p in Path("input").rglob("*")))
        print("LOCALAGENT_RESULT " + json.dumps({"succeeded": 5, "failed": 0}))
    """)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    assert result.interceptions == ()
    assert "image/png ['a.txt', 'p.png', 'photos']" in lines
    assert result.new_output_files == ("all.zip", "k.json", "p.png", "t.csv", "tree/p.png")
    assert result.reported == {"succeeded": 5, "failed": 0}


def test_guard_stops_each_attack_and_records_it(layout):
    result, lines = _run(layout, """
        import sys
        probe("passwd", lambda: open("/etc/passwd").read())
        probe("write input", lambda: open("input/a.txt", "w").write("changed"))
        probe("append input via ..", lambda: open("output/../input/a.txt", "a").write("changed"))
        probe("remove input", lambda: os.remove("input/a.txt"))
        probe("import socket", lambda: __import__("socket"))
        probe("import _socket", lambda: __import__("_socket"))
        probe("subprocess", lambda: __import__("subprocess").run(["true"]))
        probe("os.system", lambda: os.system("true"))
        probe("os.popen", lambda: os.popen("true"))
        probe("fork", lambda: os.fork())
        probe("ctypes", lambda: __import__("ctypes"))
        probe("list root", lambda: os.listdir("/"))
        probe("own log", lambda: open("logs/task_g.log", "w"))
        print("PURGED", [m for m in ("socket", "subprocess", "ctypes") if m in sys.modules])
    """)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    assert [line for line in lines if line.startswith("ALLOWED")] == []
    assert "PURGED []" in lines
    categories = [item["category"] for item in result.interceptions]
    assert categories.count("path") >= 4 and "destructive" in categories
    assert categories.count("import") >= 4 and categories.count("process") >= 2
    assert (layout.input / "a.txt").read_text(encoding="utf-8") == "original"


def test_patching_modules_does_not_weaken_the_guard(layout):
    result, lines = _run(layout, """
        import builtins, posixpath, ntpath, genericpath
        fake = lambda *args, **kwargs: os.getcwd() + "/output/x"
        for module in (os.path, posixpath, ntpath):
            module.realpath = module.abspath = module.normpath = fake
        os.lstat = os.stat = os.readlink = None
        builtins.isinstance = lambda *args: False
        probe("passwd after patching", lambda: open("/etc/passwd").read())
        from localagent.executor import path_guard
        path_guard.decide = lambda *args: None
        path_guard._HANDLERS.clear()
        probe("passwd after patching the guard", lambda: open("/etc/passwd").read())
    """)
    assert "DENIED passwd after patching PermissionError" in lines, lines
    assert any(line.startswith("DENIED passwd after patching the guard") for line in lines) or \
        result.returncode != 0  # importing the guard itself is also refused
    assert "ALLOWED passwd after patching the guard" not in lines


def test_frames_of_a_denial_stay_out_of_reach(layout):
    result, lines = _run(layout, """
        def reach_hook_frame():
            try:
                open("/etc/shadow")
            except PermissionError as error:
                tb = error.__traceback__
                while tb.tb_next is not None:
                    tb = tb.tb_next
                tb.tb_frame.f_globals.clear()
        probe("hook frame", reach_hook_frame)
        probe("passwd", lambda: open("/etc/passwd").read())
        def own_frame():
            try:
                raise ValueError
            except ValueError as error:
                assert error.__traceback__.tb_frame is not None
        probe("own frame", own_frame)
    """)
    assert "DENIED hook frame PermissionError" in lines, lines
    assert "DENIED passwd PermissionError" in lines
    assert "ALLOWED own frame" in lines
    assert {"category": "native", "event": "object.__getattr__", "detail": "tb_frame of a guard denial"} \
        in result.interceptions
