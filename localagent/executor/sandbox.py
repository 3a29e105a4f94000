"""OS-level isolation for a task's child process: bubblewrap on Linux (issue 2 part 11).

On Linux with a working ``bwrap`` the child runs with the network namespace
unshared (no network at all), a new PID namespace, ``--die-with-parent``, a new
session, every capability dropped, the whole filesystem read-only except the
workspace's ``output/`` and ``logs/``, a private ``/tmp`` and the home folders
(and the folder LocalAgent was started from, where ``.env`` lives) hidden. The
runtime guard (:mod:`localagent.executor.path_guard`) runs inside it too.
Elsewhere (Windows, macOS, no bwrap) the isolation is ``"guard-only"``.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

from localagent.executor.sandbox_masks import secret_masks

BWRAP = "bwrap"
GUARD_ONLY = "guard-only"

#: Never hidden behind a tmpfs: the system itself must stay readable.
_SYSTEM_DIRS = frozenset({"/", "/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/opt", "/var", "/proc",
                          "/dev", "/sys", "/run", "/srv", "/mnt", "/media", "/boot"})
_BASE_FLAGS = ("--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid", "--unshare-ipc",
               "--unshare-uts", "--cap-drop", "ALL")


@functools.lru_cache(maxsize=1)
def bwrap_available() -> bool:
    """Tell whether bubblewrap exists and works here (probed once per process, then cached).

    Returns:
        ``True`` on Linux when ``bwrap`` runs ``true`` with the flags the runner uses.
    """
    executable = shutil.which("bwrap")
    if not sys.platform.startswith("linux") or executable is None:
        return False
    probe = [executable, *_BASE_FLAGS, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--", "true"]
    try:
        result = subprocess.run(probe, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=15, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def best_isolation() -> str:
    """Return ``"bwrap"`` when bubblewrap works here, else ``"guard-only"``."""
    return BWRAP if bwrap_available() else GUARD_ONLY


def _is_under(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _hidden_dirs(workspace: Path) -> list[Path]:
    candidates = [Path("/tmp"), Path("/root"), Path("/home"), Path.home(), Path.cwd()]
    hidden: list[Path] = []
    for candidate in candidates:
        try:
            real = candidate.resolve()
        except OSError:
            continue
        if str(real) in _SYSTEM_DIRS or not real.is_dir() or (_is_under(real, workspace) and real != workspace):
            continue
        if not any(_is_under(real, other) for other in hidden):
            hidden = [other for other in hidden if not _is_under(other, real)] + [real]
    return hidden


def _library_dirs() -> list[Path]:
    """Folders the interpreter needs (prefixes, stdlib, site-packages) and this package, to re-show after hiding."""
    import sysconfig

    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable)),
               str(Path(__file__).resolve().parents[1]), *sysconfig.get_paths().values()}
    return sorted({Path(f).resolve() for f in folders if os.path.isdir(f)})


def bwrap_argv(root: Path, writable: Iterable[Path], readable: Iterable[Path] = (),
               protected: Iterable[Path] = ()) -> list[str]:
    """Build the bubblewrap command line that wraps a child process (append the child's argv after it).

    Args:
        root: the workspace root; shown read-only at the same path, and the working directory.
        writable: folders or files bound read-write at their own paths (``output/``, ``logs/``,
            the interceptions file); each must exist.
        readable: more paths shown read-only (the task file when it is not in the workspace).
        protected: existing files inside ``writable`` folders bound read-only over them, last
            (``logs/security_metrics.json``, earlier task logs).

    Returns:
        ``["bwrap", ...flags, "--"]``: network, PID, IPC and UTS namespaces unshared,
        capabilities dropped, ``/`` read-only, ``/dev`` and ``/proc`` fresh, ``/tmp``
        and home folders replaced by empty tmpfs, then the library folders, the
        workspace and ``readable`` bound back read-only, the workspace's secret files
        and folders masked (:func:`localagent.executor.sandbox_masks.secret_masks`;
        ``writable`` folders are not scanned), and ``writable`` bound read-write.
    """
    root = root.resolve()
    writable = [Path(path).resolve() for path in writable]
    argv = [shutil.which("bwrap") or "bwrap", *_BASE_FLAGS, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for folder in _hidden_dirs(root):
        argv += ["--tmpfs", str(folder)]
    for path in [*_library_dirs(), root, *(Path(p).resolve() for p in readable)]:
        argv += ["--ro-bind", str(path), str(path)]
    # A scan cut short by its bounds leaves the rest to the runtime guard, which refuses every secret path.
    masks, _complete = secret_masks(root, skip=writable)
    argv += masks
    for real in map(str, writable):
        argv += ["--bind", real, real]
    for path in protected:
        real = str(Path(path).resolve())
        argv += ["--ro-bind", real, real]
    return [*argv, "--chdir", str(root), "--"]
