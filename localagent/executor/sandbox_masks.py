"""Hide a workspace's secret files from a task at the OS layer, under bubblewrap (issue 2 part 11; seed 001 §6).

The runtime guard refuses reading secret paths below the workspace root (``.env``, keys,
credential folders, ``.git``…; :mod:`localagent.executor.guard_names`). Under bwrap the same
files are also covered: each secret file gets ``/dev/null`` bound read-only over it, each
credential or protected folder an empty read-only tmpfs. The scan is bounded (depth,
entries, argv bytes); where it stops, the guard alone stands for what is left, and
:func:`secret_masks` says so in its result.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from localagent.executor import guard_names

MAX_DEPTH = 8
MAX_ENTRIES = 5000
MAX_ARGV_BYTES = 256 * 1024  # the masks' share of the command line (Linux ARG_MAX is 2 MiB with the environment)
_DIR_FLAGS = guard_names.SENSITIVE_DIR | guard_names.PROTECTED_DIR


def secret_masks(root: Path, skip: Iterable[Path] = ()) -> tuple[list[str], bool]:
    """Return the bwrap arguments that hide secret files and folders under ``root``.

    Walks ``root`` (``input/`` included) without following symlinks, at most
    :data:`MAX_DEPTH` folders deep and :data:`MAX_ENTRIES` entries, skipping ``skip``
    (``output/`` and ``logs/``: bound read-write later, judged by the guard alone).
    Symlinks are not masked (bwrap would mount over their target); the guard resolves
    them and judges where they lead. Unreadable folders are left to the guard.

    Args:
        root: the resolved workspace root.
        skip: resolved folders not to enter.

    Returns:
        ``(argv, complete)``: ``["--ro-bind", "/dev/null", FILE, …, "--tmpfs", DIR,
        "--remount-ro", DIR, …]`` to append after the workspace is bound, and ``False``
        when a bound stopped the scan (the guard still refuses every secret at run time).
    """
    skipped = {str(Path(p)) for p in skip}
    argv: list[str] = []
    size, seen, complete = 0, 0, True
    pending = [(str(root), 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if seen > MAX_ENTRIES:
                        return argv, False
                    masks, enter = _judge(entry, skipped)
                    size += sum(len(arg) + 1 for arg in masks)
                    if size > MAX_ARGV_BYTES:
                        return argv, False
                    argv += masks
                    if enter and depth + 1 < MAX_DEPTH:
                        pending.append((entry.path, depth + 1))
                    elif enter:
                        complete = False
        except OSError:
            continue
    return argv, complete


def _judge(entry: os.DirEntry, skipped: set[str]) -> tuple[list[str], bool]:
    """Return ``(mask arguments, enter this folder)`` for one directory entry."""
    try:
        if entry.is_symlink() or entry.path in skipped:
            return [], False
        is_dir = entry.is_dir(follow_symlinks=False)
        is_file = entry.is_file(follow_symlinks=False)
    except OSError:
        return [], False
    flags = guard_names.name_flags(entry.name)
    if is_dir and flags & _DIR_FLAGS:
        return ["--tmpfs", entry.path, "--remount-ro", entry.path], False
    if is_file and flags & guard_names.SENSITIVE_FILE:
        return ["--ro-bind", os.devnull, entry.path], False
    return [], is_dir
