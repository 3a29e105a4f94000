"""Identity checks around opening a file that the access policy already checked (issue 3 §1).

Holds the second look at the file system object itself, so a swap between the check and the use
is caught: :func:`open_checked` (open read-only without following a final link, then verify),
:func:`verify_same_file` (the open descriptor is still the checked file and lies inside the root),
:func:`fd_location` (where a descriptor really is) and :func:`is_link` (symlink or junction).
The decisions about names and locations stay in :class:`localagent.workspace.policy.AccessPolicy`,
whose ``open_for_read`` and ``verify_same_file`` delegate here. Stdlib only: the sandboxed child
imports it too.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import BinaryIO

from localagent.workspace.pathlex import deny, is_within
from localagent.workspace.pathnames import show

__all__ = ["fd_location", "is_link", "open_checked", "verify_same_file"]

_REPARSE_POINT = 0x400  # FILE_ATTRIBUTE_REPARSE_POINT: symlinks and junctions on Windows


def is_link(path: Path) -> bool:
    """Return True if ``path`` itself is a symlink, or a junction/reparse point on Windows.

    A missing path, or one under a non-folder, is not a link.
    """
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    return stat.S_ISLNK(st.st_mode) or bool(getattr(st, "st_file_attributes", 0) & _REPARSE_POINT)


def open_checked(real: Path, shown: str, root: Path) -> BinaryIO:
    """Open the checked path ``real`` read-only and verify it is still that file, inside ``root``.

    The final component is opened with ``O_NOFOLLOW`` (and ``O_NONBLOCK`` so a FIFO cannot hang
    us); then :func:`verify_same_file` compares identities and the descriptor's real location.

    Args:
        real: the resolved path the policy accepted.
        shown: the path as given, made printable, for messages.
        root: the resolved workspace root.

    Returns:
        A binary file object positioned at 0; the caller closes it.

    Raises:
        PathDenied: not a regular file, or swapped between the check and the open.
        OSError: the file is missing or unreadable.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        if is_link(real):
            raise deny("文件在检查后被换成了链接", "the file was swapped for a link after the check", shown) from exc
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise deny("不是普通文件", "not a regular file", shown)
        verify_same_file(fd, real, root)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def verify_same_file(fd: int, path: str | os.PathLike[str], root: Path) -> None:
    """Check after opening that ``fd`` is the file at ``path`` and that it lies inside ``root``.

    Compares ``(st_dev, st_ino)`` of the open descriptor with a fresh ``stat`` of ``path``, and
    checks the descriptor's real location with :func:`fd_location`.

    Args:
        fd: an open file descriptor.
        path: the resolved path that was checked.
        root: the resolved workspace root.

    Raises:
        PathDenied: the file was replaced, moved out or deleted between the check and the use.
    """
    shown = show(os.fspath(path))
    opened = os.fstat(fd)
    try:
        current = os.stat(path)
    except OSError as exc:
        raise deny("文件在检查后被移走", "the file was moved away after the check", shown) from exc
    if (opened.st_dev, opened.st_ino) != (current.st_dev, current.st_ino):
        raise deny("文件在检查后被替换", "the file was replaced after the check", shown)
    if not is_within(Path(fd_location(fd, path)), root):
        raise deny("打开的文件位于工作区之外", "the opened file lies outside the workspace", shown)


def fd_location(fd: int, path: str | os.PathLike[str]) -> str:
    """Return where ``fd`` really is: ``/proc/self/fd`` on Linux, ``F_GETPATH`` on macOS, else ``realpath(path)``."""
    proc = f"/proc/self/fd/{fd}"
    if sys.platform.startswith("linux") and os.path.islink(proc):
        return os.readlink(proc)
    if sys.platform == "darwin":
        import fcntl  # stdlib, POSIX only

        if hasattr(fcntl, "F_GETPATH"):
            raw = fcntl.fcntl(fd, fcntl.F_GETPATH, b"\0" * 1024)
            return os.fsdecode(raw.split(b"\0", 1)[0])
    return os.path.realpath(path)
