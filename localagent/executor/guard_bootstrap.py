"""Entry script of a task's child process: install the runtime guard, then run the task (issue 2 parts 10-11).

Run as ``python -I -B -u -X utf8 guard_bootstrap.py WORKSPACE CODE_PATH INTERCEPTIONS_PATH`` with
the workspace as working directory (see :mod:`localagent.executor.sandbox_runner`).
Order matters: the task's source is read and compiled and the interceptions
file is opened *before* :func:`localagent.executor.path_guard.install`; the task's
code runs as ``__main__`` only after it. ``-I`` keeps the script's folder and
``PYTHON*`` variables out of ``sys.path``; the package's parent folder is added
just long enough to import the guard.
"""

from __future__ import annotations

import os
import sys
import types


def _import_guard() -> types.ModuleType:
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, package_parent)
    try:
        from localagent.executor import path_guard
    finally:
        sys.path.remove(package_parent)
    return path_guard


def main(argv: list[str]) -> None:
    """Install the guard and execute the task file.

    Args:
        argv: ``[script, workspace, code_path, interceptions_path]``.

    Raises:
        SystemExit: code 2 on a wrong command line; otherwise whatever the task raises.
    """
    if len(argv) != 4:
        raise SystemExit("usage: guard_bootstrap.py WORKSPACE CODE_PATH INTERCEPTIONS_PATH")
    workspace, code_path, record_path = argv[1:]
    guard = _import_guard()
    with open(code_path, "rb") as handle:
        code = compile(handle.read(), code_path, "exec", dont_inherit=True)
    record_fd = os.open(record_path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
    config = guard.make_config(workspace, protected_paths=[record_path], protected_fd=record_fd, read_files=[code_path])
    guard.install(config, record_fd)
    for name in [name for name in sys.modules if name == "localagent" or name.startswith("localagent.")]:
        del sys.modules[name]  # the task cannot reach LocalAgent's own modules by name
    module = types.ModuleType("__main__")
    module.__file__ = code_path
    sys.modules["__main__"] = module
    sys.argv = [code_path]
    exec(code, module.__dict__)  # the task's code, compiled above from its file


if __name__ == "__main__":
    main(sys.argv)
