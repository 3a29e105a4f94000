"""Kill a task's whole process tree, detached grandchildren included (issue 2 part 11).

A timeout or a cancel must leave nothing running. Three nets catch the
processes: the tree under the child (collected *before* anything is killed, and
frozen with SIGSTOP so it cannot fork further), the child's process group, and
every process that carries the run's marker variable in its environment (a
grandchild that left the session and was re-parented to init still inherits
it). Under bubblewrap the PID namespace and ``--die-with-parent`` add a fourth.
"""

from __future__ import annotations

import os
import signal
import time

import psutil

#: The environment variable that marks every process of one run (value: a random run id).
MARKER_VARIABLE = "LOCALAGENT_RUN_ID"


def _tree(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return []
    try:
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return [root]


def marked_processes(run_id: str) -> list[psutil.Process]:
    """Return the live processes whose environment has ``LOCALAGENT_RUN_ID=<run_id>`` (not this one).

    Processes whose environment cannot be read (other users, zombies) are skipped.
    """
    found = []
    for process in psutil.process_iter():
        if process.pid == os.getpid():
            continue
        try:
            if process.environ().get(MARKER_VARIABLE) == run_id:
                found.append(process)
        except psutil.Error:
            continue
    return found


def _stop_and_kill(processes: list[psutil.Process]) -> None:
    for process in processes:  # freeze first: a frozen process cannot fork a new child
        try:
            process.suspend()
        except psutil.Error:
            pass
    for process in processes:
        try:
            process.kill()
        except psutil.Error:
            pass


def kill_tree(pid: int | None, *, process_group: int | None = None, run_id: str | None = None,
              timeout: float = 5.0) -> list[int]:
    """Kill ``pid``, all its descendants, its process group and the marked processes of ``run_id``.

    Args:
        pid: the child's process id, not yet reaped (``None`` once it has been waited for: its
            pid may belong to another process by now).
        process_group: POSIX process group to SIGKILL as well (the child started a new session).
        run_id: the value of :data:`MARKER_VARIABLE` given to the child, to find re-parented grandchildren.
        timeout: seconds to wait for the killed processes to be gone.

    Returns:
        The pids that were still alive after ``timeout`` seconds (normally empty).
    """
    victims: dict[int, psutil.Process] = {}
    for _ in range(3):  # collect again: a process may have forked between two collections
        found = (_tree(pid) if pid is not None else []) + (marked_processes(run_id) if run_id else [])
        for process in found:
            for member in _tree(process.pid):
                victims.setdefault(member.pid, member)
        _stop_and_kill(list(victims.values()))
        if not found:
            break
    if process_group is not None and hasattr(os, "killpg"):
        try:
            os.killpg(process_group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return _wait_gone(list(victims.values()), timeout)


def _is_alive(process: psutil.Process) -> bool:
    """A killed process that is a zombie is gone for us: only its parent's reaping is left."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _wait_gone(processes: list[psutil.Process], timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    alive = [process for process in processes if _is_alive(process)]
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = [process for process in alive if _is_alive(process)]
    return [process.pid for process in alive]
