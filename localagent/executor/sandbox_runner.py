"""Run a generated Python task once, isolated (seed 000 step 6, issue 2 part 11).

One-shot ``python -I`` child, working directory the workspace, environment from
an allowlist (:func:`localagent.executor.env.build_child_env`), the runtime guard
installed before the task's code (:mod:`localagent.executor.guard_bootstrap`),
inside bubblewrap where it works (:mod:`localagent.executor.sandbox`). Output is
streamed line by line and written to ``workspace/logs/task_<id>.log``. A timeout
or a cancel kills the whole process tree. A non-zero exit is data in
:class:`RunResult`, never an exception.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Protocol

from localagent.errors import SandboxUnavailable
from localagent.executor import guard_names, process_tree, sandbox
from localagent.executor.env import build_child_env

#: A task's stdout line that reports its counts: ``LOCALAGENT_RESULT {"succeeded": n, "failed": m}``.
RESULT_MARKER = "LOCALAGENT_RESULT "
_POLL_S = 0.05
_LOG_LIMIT_BYTES = 20 * 1024 * 1024
_LINE_LIMIT_BYTES = 64 * 1024
_MAX_BOUND_LOGS = 500
_BOOTSTRAP = Path(__file__).resolve().with_name("guard_bootstrap.py")


class WorkspaceLayoutLike(Protocol):
    """Any object with the workspace's four paths (``localagent.workspace.layout.WorkspaceLayout``)."""

    root: Path
    input: Path
    output: Path
    logs: Path


@dataclass(frozen=True)
class RunResult:
    """What one run of a task did.

    Attributes:
        returncode: the child's exit code; ``None`` when it was killed (timeout, cancel).
        timed_out, cancelled: why it was killed, if it was.
        log_path: ``workspace/logs/task_<id>.log``.
        isolation: ``"bwrap"`` or ``"guard-only"``.
        interceptions: one dict per denied operation: ``{"category", "event", "detail"}``.
        reported: the ``LOCALAGENT_RESULT`` object with int ``succeeded``/``failed`` when it is the last
            non-empty output line of a task that exited 0, else ``None`` (a line printed earlier —
            e.g. a file name holding a newline — or before a crash is never trusted).
        new_output_files: files that appeared in ``output/`` (POSIX paths relative to it, sorted).
        duration_s: wall time of the run, in seconds.
    """

    returncode: int | None
    timed_out: bool
    cancelled: bool
    log_path: Path
    isolation: str
    interceptions: tuple[dict, ...]
    reported: dict | None
    new_output_files: tuple[str, ...]
    duration_s: float


def choose_isolation(requested: str | None = None, *, require_isolation: bool = False) -> str:
    """Pick the isolation for a run.

    Args:
        requested: ``"bwrap"``, ``"guard-only"`` or ``None`` for the best available.
        require_isolation: fail instead of falling back to ``"guard-only"``.

    Returns:
        ``"bwrap"`` or ``"guard-only"``.

    Raises:
        SandboxUnavailable: bubblewrap was required or requested and does not work here.
        ValueError: ``requested`` is not a known isolation.
    """
    if requested not in (None, sandbox.BWRAP, sandbox.GUARD_ONLY):
        raise ValueError(f"unknown isolation: {requested!r}")
    wants_bwrap = require_isolation or requested == sandbox.BWRAP
    if requested == sandbox.GUARD_ONLY and not require_isolation:
        return sandbox.GUARD_ONLY
    if sandbox.bwrap_available():
        return sandbox.BWRAP
    if wants_bwrap:
        raise SandboxUnavailable(
            "需要系统级隔离（Linux 上的 bubblewrap），但本机不可用，任务未执行。",
            "OS isolation (bubblewrap on Linux) is required but not available here; the task did not run.")
    return sandbox.GUARD_ONLY


def _output_files(output: Path) -> set[str]:
    """Return the files under ``output`` as ``/``-separated relative paths (what ``os.walk`` lists as files).

    ``os.scandir`` and plain strings instead of ``os.walk`` and ``Path.relative_to`` (a
    tenth of the cost for 1,000 files). Folders are entered, symlinked folders are
    not (and not listed); symlinks to files and broken symlinks are listed; unreadable
    folders are skipped.
    """
    found: set[str] = set()
    pending = [(str(output), "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if not is_dir:
                        found.add(prefix + entry.name)
                    elif not entry.is_symlink():
                        pending.append((entry.path, f"{prefix}{entry.name}/"))
        except OSError:
            continue
    return found


def parse_reported(line: str) -> dict | None:
    """Parse one ``LOCALAGENT_RESULT {json}`` line; ``None`` unless it holds non-negative int counts."""
    if not line.startswith(RESULT_MARKER):
        return None
    try:
        data = json.loads(line[len(RESULT_MARKER):])
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    counts = [data.get("succeeded"), data.get("failed")]
    if not all(type(value) is int and value >= 0 for value in counts):
        return None
    return data


def _read_interceptions(path: Path) -> tuple[dict, ...]:
    items = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("category"), str):
            items.append({key: str(item.get(key, "")) for key in ("category", "event", "detail")})
    return tuple(items)


class _OutputPump:
    """Read the child's merged stdout/stderr: log each line, pass it on, keep the last result line."""

    def __init__(self, stream: IO[bytes], log: IO[str], on_output: Callable[[str], None] | None) -> None:
        self.reported: dict | None = None
        self._stream, self._log, self._on_output, self._written = stream, log, on_output, 0
        self.thread = threading.Thread(target=self._run, name="localagent-task-output", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for raw in iter(lambda: self._stream.readline(_LINE_LIMIT_BYTES), b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            if line.strip():  # only the LAST non-empty line may report: earlier ones can be forged by file names
                self.reported = parse_reported(line)
            if self._written < _LOG_LIMIT_BYTES:
                self._written += len(raw)
                try:
                    self._log.write(line + "\n")
                    self._log.flush()
                except (ValueError, OSError):  # the run is over and the log closed; keep draining
                    self._written = _LOG_LIMIT_BYTES
            if self._on_output is not None:
                try:
                    self._on_output(line)
                except Exception:  # a broken display must not stop the log
                    self._on_output = None


def _popen(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.Popen:
    kwargs: dict = {"start_new_session": True} if os.name == "posix" else {
        "creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}  # type: ignore[attr-defined]
    return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, **kwargs)


def _wait(process: subprocess.Popen, deadline: float, cancel_event: threading.Event | None) -> str:
    """Wait for the child; return ``"exited"``, ``"timeout"`` or ``"cancelled"``.

    The exit is noticed at once where Linux gives a process file descriptor (``select`` on
    it wakes when the child ends); the cancel event and the deadline are checked every
    0.05 s. Elsewhere the child is polled every 0.05 s.
    """
    with _ExitWatch(process.pid) as watch:
        while process.poll() is None:
            if cancel_event is not None and cancel_event.is_set():
                return "cancelled"
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            watch.wait(min(_POLL_S, remaining))
    return "exited"


class _ExitWatch:
    """Sleep until a child process ends or a timeout passes (``pidfd_open`` + ``select``; else plain sleep)."""

    def __init__(self, pid: int) -> None:
        self._fd: int | None = None
        pidfd_open = getattr(os, "pidfd_open", None)
        if pidfd_open is not None:
            try:
                self._fd = pidfd_open(pid)
            except OSError:  # old kernel, seccomp, or the child is already reaped
                self._fd = None

    def wait(self, seconds: float) -> None:
        """Return when the child has ended or after ``seconds``."""
        if self._fd is None:
            time.sleep(seconds)
            return
        import select

        select.select([self._fd], [], [], seconds)

    def __enter__(self) -> _ExitWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd is not None:
            os.close(self._fd)


def _child_argv(isolation: str, layout: WorkspaceLayoutLike, code_path: Path, record: Path) -> list[str]:
    root = Path(layout.root).resolve()
    argv = [sys.executable, "-I", "-B", "-u", "-X", "utf8", str(_BOOTSTRAP), str(root), str(code_path), str(record)]
    if isolation != sandbox.BWRAP:
        return argv
    logs = Path(layout.logs).resolve()
    readable = [] if root in code_path.parents else [code_path]
    return sandbox.bwrap_argv(root, [Path(layout.output), logs, record], readable, _product_logs(logs)) + argv


def _product_logs(logs: Path) -> list[Path]:
    """Return LocalAgent's own files in ``logs/`` to bind read-only over themselves, newest first.

    At most :data:`_MAX_BOUND_LOGS` (a bind each keeps the command line and bwrap's start
    small); older ones, and any the task tries to create, are refused by the runtime guard.
    """
    found = []
    with os.scandir(logs) as entries:
        for entry in entries:
            try:
                if guard_names.is_product_log_name(entry.name) and entry.is_file(follow_symlinks=False):
                    found.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
            except OSError:  # gone meanwhile: nothing to protect
                continue
    found.sort(reverse=True)
    return [Path(path) for _mtime, path in found[:_MAX_BOUND_LOGS]]


def _finish(process: subprocess.Popen, outcome: str, run_id: str) -> int | None:
    """Kill what is left of the run and reap the child; return its exit code, ``None`` if it was killed."""
    if outcome == "exited":  # already reaped by poll(): only stragglers that carry the run's marker
        process_tree.kill_tree(None, run_id=run_id)
        return process.returncode
    group = process.pid if os.name == "posix" else None
    process_tree.kill_tree(process.pid, process_group=group, run_id=run_id)
    process.wait()
    return None


def _header(task_id: str, isolation: str, timeout: float) -> str:
    now = datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds")
    return f"# LocalAgent task {task_id} | started {now} | isolation {isolation} | timeout {timeout:g}s\n"


def run_task(code_path: Path, workspace: WorkspaceLayoutLike, task_id: str, *, timeout: float = 120.0,
             cancel_event: threading.Event | None = None, on_output: Callable[[str], None] | None = None,
             require_isolation: bool = False, isolation: str | None = None) -> RunResult:
    """Run ``code_path`` once in an isolated child process and report what happened.

    Args:
        code_path: the task's Python file (``workspace/task_<id>.py``).
        workspace: the workspace layout (``root``, ``input``, ``output``, ``logs`` paths).
        task_id: names the log file ``logs/task_<task_id>.log``.
        timeout: seconds before the whole process tree is killed.
        cancel_event: when set, the process tree is killed within 0.05 s.
        on_output: called with each output line (no newline), from a reader thread.
        require_isolation: refuse to run without bubblewrap (fail closed).
        isolation: force ``"bwrap"`` or ``"guard-only"``; ``None`` picks the best available.

    Returns:
        A :class:`RunResult`; a non-zero exit, a timeout or a cancel is data, not an exception.

    Raises:
        SandboxUnavailable: bubblewrap was required or requested and does not work (nothing ran).
    """
    mode = choose_isolation(isolation, require_isolation=require_isolation)
    output, logs = Path(workspace.output), Path(workspace.logs)
    output.mkdir(parents=True, exist_ok=True)
    logs.mkdir(parents=True, exist_ok=True)
    code_path = Path(code_path).resolve()
    log_path = logs / f"task_{task_id}.log"
    before = _output_files(output)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="localagent-run-") as private, \
            open(log_path, "a", encoding="utf-8") as log:
        record = Path(private) / "interceptions.jsonl"
        record.touch(mode=0o600)
        log.write(_header(task_id, mode, timeout))
        log.flush()
        run_id = secrets.token_hex(16)
        env = build_child_env({process_tree.MARKER_VARIABLE: run_id})
        process = _popen(_child_argv(mode, workspace, code_path, record), Path(workspace.root).resolve(), env)
        pump = _OutputPump(process.stdout, log, on_output)  # type: ignore[arg-type]
        outcome = _wait(process, started + timeout, cancel_event)
        returncode = _finish(process, outcome, run_id)
        pump.thread.join(timeout=5)
        process.stdout.close()  # type: ignore[union-attr]
        interceptions = _read_interceptions(record)
        duration = time.monotonic() - started
        log.write(f"# exit {returncode} | timed out {outcome == 'timeout'} | cancelled {outcome == 'cancelled'}"
                  f" | interceptions {len(interceptions)} | {duration:.2f}s\n")
    return RunResult(
        returncode=returncode, timed_out=outcome == "timeout", cancelled=outcome == "cancelled", log_path=log_path,
        isolation=mode, interceptions=interceptions, reported=pump.reported if returncode == 0 else None,
        new_output_files=tuple(sorted(_output_files(output) - before)), duration_s=duration)
