"""The sandbox runner (issue 2 part 11): real child processes, real bubblewrap, real process trees."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from types import SimpleNamespace

import psutil
import pytest

from localagent.errors import SandboxUnavailable
from localagent.executor import process_tree, sandbox
from localagent.executor.sandbox_runner import parse_reported, run_task
from tests.helpers import ISOLATIONS, needs_bwrap, sandbox_layout


@pytest.fixture()
def layout(tmp_path: Path) -> SimpleNamespace:
    spaces = sandbox_layout(tmp_path)
    return spaces


@pytest.fixture()
def listener():
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.setblocking(False)
    yield server
    server.close()


def _no_connection(server: socket.socket) -> bool:
    try:
        connection, _ = server.accept()
    except BlockingIOError:
        return True
    connection.close()
    return False


def _write_task(layout, source: str, task_id: str) -> Path:
    code = layout.root / f"task_{task_id}.py"
    code.write_text(textwrap.dedent(source), encoding="utf-8")
    return code


def _leftovers(code: Path) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if any(str(code) in part for part in process.cmdline()):
                found.append(process)
        except psutil.Error:
            continue
    return found


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_legit_copy_task_succeeds(layout, isolation):
    (layout.input / "cats").mkdir()
    for name in ("a.jpg", "b.png", "cats/c.gif", "notes.txt"):
        (layout.input / name).write_bytes(b"image bytes " + name.encode())
    (layout.output / "old.txt").write_text("was here", encoding="utf-8")
    code = _write_task(layout, """
        import json, shutil
        from pathlib import Path
        done = 0
        for source in sorted(Path("input").rglob("*")):
            if source.suffix in (".jpg", ".png", ".gif"):
                target = Path("output") / source.relative_to("input")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)
                print("copied", source.name)
                done += 1
        print("LOCALAGENT_RESULT " + json.dumps({"succeeded": done, "failed": 0}))
    """, "copy")
    seen: list[str] = []
    result = run_task(code, layout, "copy", isolation=isolation, timeout=60, on_output=seen.append)
    assert (result.returncode, result.timed_out, result.cancelled) == (0, False, False)
    assert result.isolation == isolation
    assert result.reported == {"succeeded": 3, "failed": 0}
    assert result.new_output_files == ("a.jpg", "b.png", "cats/c.gif")
    assert result.interceptions == ()
    assert "copied a.jpg" in seen
    log = result.log_path.read_text(encoding="utf-8")
    assert result.log_path == layout.logs / "task_copy.log"
    assert f"isolation {isolation}" in log and "copied cats" not in log and "copied c.gif" in log
    assert (layout.input / "a.jpg").read_bytes() == b"image bytes a.jpg"


ATTACKS = """
    import os, sys
    def attempt(label, action):
        try:
            action()
            print("ALLOWED", label)
        except BaseException as error:
            print("STOPPED", label, type(error).__name__)
    def connect():
        module = __import__("so" + "cket")
        client = module.create_connection(("127.0.0.1", PORT), timeout=2)
        client.sendall(b"leak")
    attempt("connect", connect)
    attempt("write input", lambda: open("input/original.txt", "w").write("changed"))
    attempt("passwd", lambda: print(open("/etc/passwd").read()[:20]))
    attempt("os.system", lambda: os.system("echo spawned > output/spawned.txt"))
    attempt("subprocess", lambda: __import__("sub" + "process").run(["touch", "output/spawned2.txt"]))
    attempt("import socket", lambda: __import__("socket"))
    attempt("ctypes", lambda: __import__("ctypes").CDLL(None))
"""


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_attacks_are_stopped_and_counted(layout, listener, isolation):
    (layout.input / "original.txt").write_text("original", encoding="utf-8")
    port = listener.getsockname()[1]
    code = _write_task(layout, ATTACKS.replace("PORT", str(port)), "attack")
    seen: list[str] = []
    result = run_task(code, layout, "attack", isolation=isolation, timeout=60, on_output=seen.append)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    assert [line for line in seen if line.startswith("ALLOWED")] == []
    assert len([line for line in seen if line.startswith("STOPPED")]) == 7
    assert _no_connection(listener)
    assert (layout.input / "original.txt").read_text(encoding="utf-8") == "original"
    assert result.new_output_files == ()
    counts: dict[str, int] = {}
    for item in result.interceptions:
        counts[item["category"]] = counts.get(item["category"], 0) + 1
    assert counts.get("path", 0) >= 2 and counts.get("process", 0) >= 1 and counts.get("import", 0) >= 4


@needs_bwrap
def test_bwrap_layer_alone_blocks_network_input_writes_and_hides_private_dirs(layout, listener):
    """The bubblewrap command line without the guard: the OS layer holds by itself."""
    (layout.input / "original.txt").write_text("original", encoding="utf-8")
    secret = Path.cwd() / "secret.env"  # where LocalAgent was started from (.env lives there)
    secret.write_text("LLM_API_KEY=sk-hidden", encoding="utf-8")
    probe = textwrap.dedent(f"""
        import json, os, socket
        report = {{}}
        def attempt(label, action):
            try:
                action()
                report[label] = "allowed"
            except OSError as error:
                report[label] = type(error).__name__
        attempt("connect", lambda: socket.create_connection(("127.0.0.1", {listener.getsockname()[1]}), timeout=2))
        attempt("write input", lambda: open("input/original.txt", "w").write("changed"))
        attempt("new file in root", lambda: open("new.txt", "w").write("x"))
        attempt("read secret", lambda: open({str(secret)!r}).read())
        attempt("write output", lambda: open("output/ok.txt", "w").write("ok"))
        report["tmp"] = os.listdir("/tmp")
        print(json.dumps(report))
    """)
    argv = sandbox.bwrap_argv(layout.root, [layout.output, layout.logs]) + [sys.executable, "-I", "-c", probe]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["connect"] != "allowed" and _no_connection(listener)
    assert report["write input"] != "allowed" and report["new file in root"] != "allowed"
    assert report["read secret"] == "FileNotFoundError"
    assert report["write output"] == "allowed"
    from localagent.executor.sandbox import _library_dirs

    kept = [layout.root, *_library_dirs()]  # re-shown read-only; a checkout or venv may live in /tmp
    shown = {p.parts[2] for p in kept if len(p.parts) > 2 and p.parts[1] == "tmp"}
    assert set(report["tmp"]) <= shown  # a private /tmp: only the way to what is kept
    assert (layout.input / "original.txt").read_text(encoding="utf-8") == "original"


def test_nonzero_exit_is_data(layout):
    code = _write_task(layout, "print('LOCALAGENT_RESULT {\"succeeded\": 1}')\nraise SystemExit(3)\n", "exit")
    result = run_task(code, layout, "exit", isolation="guard-only", timeout=60)
    assert result.returncode == 3 and not result.timed_out
    assert result.reported is None  # "failed" is missing: malformed


@pytest.mark.parametrize(("line", "expected"), [
    ('LOCALAGENT_RESULT {"succeeded": 2, "failed": 1}', {"succeeded": 2, "failed": 1}),
    ('LOCALAGENT_RESULT {"succeeded": 2, "failed": 1, "note": "x"}', {"succeeded": 2, "failed": 1, "note": "x"}),
    ('LOCALAGENT_RESULT {"succeeded": "2", "failed": 1}', None),
    ('LOCALAGENT_RESULT {"succeeded": true, "failed": 0}', None),
    ('LOCALAGENT_RESULT {"succeeded": -1, "failed": 0}', None),
    ("LOCALAGENT_RESULT [1, 2]", None),
    ("LOCALAGENT_RESULT {not json", None),
    ('result {"succeeded": 1, "failed": 0}', None),
])
def test_parse_reported(line, expected):
    assert parse_reported(line) == expected


def test_timeout_kills_the_child(layout):
    code = _write_task(layout, "print('spinning', flush=True)\nwhile True:\n    pass\n", "spin")
    result = run_task(code, layout, "spin", isolation="guard-only", timeout=1.0)
    assert result.timed_out and result.returncode is None and not result.cancelled
    assert result.duration_s < 1.0 + 2.0
    assert _leftovers(code) == []
    assert "spinning" in result.log_path.read_text(encoding="utf-8")


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_cancel_kills_the_child(layout, isolation):
    code = _write_task(layout, "import time\nwhile True:\n    time.sleep(0.01)\n", "cancel")
    cancel = threading.Event()
    timer = threading.Timer(0.5, cancel.set)
    timer.start()
    try:
        result = run_task(code, layout, "cancel", isolation=isolation, timeout=60, cancel_event=cancel)
    finally:
        timer.cancel()
    assert result.cancelled and not result.timed_out and result.returncode is None
    assert _leftovers(code) == []


def test_require_isolation_fails_closed_without_bwrap(layout, monkeypatch):
    code = _write_task(layout, "open('output/ran.txt', 'w').write('ran')\n", "req")
    monkeypatch.setenv("PATH", str(layout.root / "no-bin-here"))
    sandbox.bwrap_available.cache_clear()
    try:
        with pytest.raises(SandboxUnavailable):
            run_task(code, layout, "req", require_isolation=True)
        with pytest.raises(SandboxUnavailable):
            run_task(code, layout, "req", isolation="bwrap")
        assert not (layout.output / "ran.txt").exists()
        assert run_task(code, layout, "req", timeout=60).isolation == "guard-only"
    finally:
        sandbox.bwrap_available.cache_clear()


@needs_bwrap
def test_require_isolation_uses_bwrap_when_present(layout):
    code = _write_task(layout, "print('hi')\n", "bw")
    assert run_task(code, layout, "bw", require_isolation=True, timeout=60).isolation == "bwrap"


SPAWNER = """
import subprocess, sys, time
sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
child = subprocess.Popen(sleeper)
detached = subprocess.Popen(sleeper, start_new_session=True)
print(child.pid, detached.pid, flush=True)
if sys.argv[1] == "stay":
    time.sleep(120)
"""


def _spawn(tmp_path: Path, mode: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, list[int]]:
    script = tmp_path / "spawner.py"
    script.write_text(SPAWNER, encoding="utf-8")
    parent = subprocess.Popen([sys.executable, str(script), mode], stdout=subprocess.PIPE, text=True,
                              start_new_session=True, env=env)
    pids = [int(word) for word in parent.stdout.readline().split()]  # type: ignore[union-attr]
    return parent, pids


def test_kill_tree_kills_detached_grandchildren(tmp_path):
    parent, pids = _spawn(tmp_path, "stay")
    alive = process_tree.kill_tree(parent.pid, process_group=parent.pid)
    parent.wait(timeout=10)
    parent.stdout.close()  # type: ignore[union-attr]
    assert alive == []
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE for pid in pids)


def test_kill_tree_finds_orphans_by_marker(tmp_path):
    run_id = "test-" + os.urandom(6).hex()
    env = {**os.environ, process_tree.MARKER_VARIABLE: run_id}
    parent, pids = _spawn(tmp_path, "leave", env)
    parent.wait(timeout=10)  # the spawner exits: its children are re-parented
    parent.stdout.close()  # type: ignore[union-attr]
    assert {p.pid for p in process_tree.marked_processes(run_id)} >= set(pids)
    assert process_tree.kill_tree(None, run_id=run_id) == []
    assert process_tree.marked_processes(run_id) == []
