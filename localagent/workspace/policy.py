"""The one path gate of LocalAgent: ``AccessPolicy(root)`` (seed 001 §6, issue 3 §1).

Every path from a person, a model or a tool goes through this module; no other
module decides about paths. Two layers:

* :meth:`AccessPolicy.resolve` is the *location* gate: the path must name a place
  inside the workspace root after full resolution (symlinks, and junctions on
  Windows), compared by path components. Refused outright on every OS: NUL and
  control characters, ``~``/``~user`` prefixes (never expanded), UNC and device
  prefixes, drive-relative ``C:foo`` (drive letters at all on POSIX), alternate
  data streams (any ``:`` in a name), names ending in a dot or space, reserved
  device names, 8.3 aliases such as ``GIT~1``, and any relative path whose ``..``
  climbs above the root at any point (even if it would come back in).
  Backslashes are separators on every OS. Symlinks that point inside the root
  are followed for reading; writing (``for_write=True``) refuses any symlink or
  junction on the way, inside or out. Symlink loops are refused. Absolute paths
  are accepted only if they resolve inside the root.
* The ``can_*`` methods are the *action* gates. They never raise: any unexpected
  error is a refusal (fail closed). Name rules (protected, sensitive, dangerous)
  are casefolded on every OS and applied to both the name as given and the real
  name after resolution. Protected folders (``.git``, ``.localagent``,
  ``.vscode``, ``.idea``) may be read but never written, moved or deleted. Every
  file under a credential folder (``.ssh``, ``.aws``, ``secrets`` …, and a root
  with such a name) counts as sensitive. A folder holding a protected folder
  directly (a nested repository) is never moved or trashed. Content checks (NUL
  bytes, decoding) are the reader's and writer's job; this module judges names,
  locations and file types (regular file, folder, known binary suffix).
* :meth:`AccessPolicy.open_for_read` and :meth:`AccessPolicy.verify_same_file`
  check again after opening, so a swap between the check and the use is caught.

This module is THE gate: every decision is made here. Helpers it uses, each deciding
nothing on its own: :mod:`~localagent.workspace.pathlex` (the path as text: text
checks, ``..`` applied lexically, component-wise :func:`is_within`),
:mod:`~localagent.workspace.opened` (the identity checks around opening a checked
file), :mod:`~localagent.workspace.decision` (:class:`PolicyDecision` and the
fail-closed wrappers) and :mod:`~localagent.workspace.pathnames` (the name tables).
``is_within`` and ``PolicyDecision`` stay importable from here.

Stdlib only at module level (plus ``localagent.errors`` and those helpers): the
sandboxed child imports it too.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import BinaryIO

from localagent.errors import PathDenied, WorkspaceError
from localagent.workspace import opened
from localagent.workspace import pathnames as names
from localagent.workspace.decision import ALLOW, PolicyDecision, fail_closed, on_error
from localagent.workspace.opened import is_link
from localagent.workspace.pathlex import Prefix, Walk, check_text, deny, is_within, last_name, lex
from localagent.workspace.pathnames import is_system_directory, legal_name_problem
from localagent.workspace.pathnames import show as _show

__all__ = ["AccessPolicy", "PolicyDecision", "is_legal_file_name", "is_system_directory", "is_within"]

_ON_WINDOWS = os.name == "nt"


def is_legal_file_name(name: str) -> PolicyDecision:
    """Judge one file name by Windows and POSIX rules together, on every OS (seed 001 §8.3).

    Args:
        name: a single name, no separators.

    Returns:
        An allowing decision, or a refusal saying which rule failed (illegal characters, control
        characters, empty, ``.``/``..``, trailing dot or space, reserved name, over 255 bytes).
    """
    if not isinstance(name, str):
        return PolicyDecision(False, "文件名无效", "the file name is invalid")
    problem = legal_name_problem(name)
    return PolicyDecision(False, *problem) if problem else ALLOW


class AccessPolicy:
    """The access policy of one workspace root (seed 001 §6 ``WorkspaceAccessPolicy``).

    Args:
        root: the workspace folder; resolved once.

    Raises:
        WorkspaceError: the root is missing, not a folder, or a system directory.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        text = os.fspath(root) if isinstance(root, (str, os.PathLike)) else None
        if not isinstance(text, str) or not text or "\x00" in text:
            raise WorkspaceError("工作区路径无效", "the workspace path is invalid")
        real = Path(os.path.realpath(text))
        if is_system_directory(text) or is_system_directory(real):
            raise WorkspaceError(f"不能把系统目录用作工作区：{_show(text)}",
                                 f"a system directory cannot be the workspace: {_show(text)}")
        if not real.exists():
            raise WorkspaceError(f"工作区不存在：{_show(text)}", f"the workspace does not exist: {_show(text)}")
        if not real.is_dir():
            raise WorkspaceError(f"工作区不是文件夹：{_show(text)}", f"the workspace is not a folder: {_show(text)}")
        self.root: Path = real
        self._given_root = Path(os.path.normpath(os.path.abspath(text)))
        self._root_sensitive = names.is_sensitive_dir_name(real.name)

    def __repr__(self) -> str:
        return f"AccessPolicy(root={str(self.root)!r})"

    # --- lexical helpers ------------------------------------------------------------------

    def normalize_path(self, path: str | os.PathLike[str]) -> str:
        """Return ``path`` normalized lexically with ``/`` separators (``a\\b/../c`` → ``a/c``); nothing resolved."""
        text = os.fspath(path).replace("\\", "/")
        drive = text[:2] if re.match(r"^[A-Za-z]:", text) else ""
        body = text[len(drive):]
        return drive + (os.path.normpath(body).replace("\\", "/") if body else "")

    def to_absolute_path(self, path: str | os.PathLike[str]) -> Path:
        """Return ``path`` as an absolute path: relative ones joined to the root. Lexical only, not checked."""
        text = self.normalize_path(path)
        if text.startswith("/") or (_ON_WINDOWS and os.path.isabs(text)):
            return Path(text)
        return Path(os.path.normpath(os.path.join(self.root, text)))

    def to_relative_path(self, path: str | os.PathLike[str]) -> str:
        """Return the ``/``-separated path of ``path`` relative to the root (``"."`` for the root).

        Raises:
            PathDenied: :meth:`resolve` refuses the path (outside, refused form …).
        """
        rel = self._walk(path).real_rel
        return "/".join(rel) if rel else "."

    # --- the location gate ----------------------------------------------------------------

    def resolve(self, path: str | os.PathLike[str], *, for_write: bool = False) -> Path:
        """Return the absolute, fully resolved path of ``path`` inside the root (issue 3 §1).

        Args:
            path: relative to the root (``/`` or ``\\`` separators) or absolute.
            for_write: also refuse any symlink or junction on the way (even one pointing inside)
                and an absolute path that reaches the root only through a link.

        Returns:
            The resolved path; it may not exist yet.

        Raises:
            PathDenied: the path is outside the root or uses a refused form (see the module doc).
        """
        return self._walk(path, for_write=for_write).real

    def _walk(self, path: str | os.PathLike[str], *, for_write: bool = False) -> Walk:
        text = check_text(path)
        absolute, anchor, body, parts, visited = lex(text, self.root)
        if absolute is None:
            raise deny("路径用 .. 跳出了工作区", "the path leaves the workspace with ..", _show(text))
        for prefix in visited:
            problem = names.component_problem(prefix.names[-1])
            if problem:
                raise deny(*problem, _show(text))
        joined = os.path.join(anchor, body.replace("\\", "/") if os.sep == "/" else body)
        real = Path(os.path.realpath(joined))
        rel = self._lexical_rel(Path(anchor, *parts)) if absolute else tuple(parts)
        if not is_within(real, self.root):
            if rel is not None:
                raise deny("路径经符号链接指向工作区外", "the path leads outside the workspace through a link",
                           _show(text))
            raise deny("路径在工作区之外", "the path is outside the workspace", _show(text))
        if _is_link_loop(real):
            raise deny("路径含有符号链接循环", "the path contains a symlink loop", _show(text))
        real_rel = real.parts[len(self.root.parts):]
        for part in real_rel:
            problem = names.component_problem(part)
            if problem:
                raise deny(*problem, _show(text))
        if is_system_directory(real):
            raise deny("路径是系统目录", "the path is a system directory", _show(text))
        walk = Walk(rel, tuple(visited), real, real_rel, _show(text))
        if for_write:
            self._check_write_route(walk)
        return walk

    def _lexical_rel(self, lexical: Path) -> tuple[str, ...] | None:
        for base in (self.root, self._given_root):
            if is_within(lexical, base):
                return lexical.parts[len(base.parts):]
        return None

    def _off_root_route(self, prefix: Path) -> bool:
        """True for a prefix below the root, or one that is not an ancestor of the root."""
        rel = self._lexical_rel(prefix)
        if rel is not None:
            return bool(rel)
        return not (is_within(self.root, prefix) or is_within(self._given_root, prefix))

    def _check_write_route(self, walk: Walk) -> None:
        if walk.rel is None:
            raise deny("写入路径须直接位于工作区内，不能经过链接到达",
                       "a write path must lie in the workspace itself, not be reached through a link", walk.shown)
        for prefix in map(Prefix.path, walk.visited):
            if self._lexical_rel(prefix) and is_link(prefix):
                raise deny("写入路径不能经过符号链接或联接点", "a write path must not pass through a symlink or "
                           "junction", walk.shown)

    # --- questions ------------------------------------------------------------------------

    @on_error(False)
    def is_inside_workspace(self, path: str | os.PathLike[str]) -> bool:
        """Return True if :meth:`resolve` accepts ``path`` (inside after resolving every link)."""
        self._walk(path)
        return True

    @on_error(True)
    def has_symlink_segment(self, path: str | os.PathLike[str]) -> bool:
        """Return True if an existing component on the way is a symlink or junction.

        Components below the root are checked (for an absolute path outside the root, all of them).
        A path that cannot be judged gives True (fail closed).
        """
        absolute, _anchor, _body, _parts, visited = lex(check_text(path), self.root)
        if absolute is None:
            return True
        paths = [p.path() for p in visited]
        return any(is_link(p) for p in paths if not absolute or self._off_root_route(p))

    @on_error(True)
    def is_system_path(self, path: str | os.PathLike[str]) -> bool:
        """Return True if ``path`` as given, or resolved, is or lies in a system directory; True on error."""
        text = os.fspath(path)
        if is_system_directory(text):
            return True
        if names.looks_like_windows_path(text) and not _ON_WINDOWS:
            return False
        return is_system_directory(os.path.realpath(os.path.join(self.root, text)))

    @on_error(True)
    def is_dangerous_suffix(self, path: str | os.PathLike[str]) -> bool:
        """Return True if the file name ends in a dangerous suffix (``.exe .bat .ps1 .lnk`` …, seed 001 §6).

        Casefolded; ``a.EXE``, ``a.exe.``, ``a.exe `` and ``a.exe::$DATA`` all count. True on error.
        """
        return names.is_dangerous_name(last_name(path))

    @on_error(True)
    def is_sensitive_file(self, path: str | os.PathLike[str]) -> bool:
        """Return True for a sensitive file (seed 001 §6 names, suffixes, keywords) or one in a credential folder.

        Judges the name as given and, when it resolves inside the root, the real name; a root that is
        itself a credential folder (``.ssh`` …) makes every file sensitive. True on error.
        """
        return self._root_sensitive or any(names.sensitive_parts(v) for v in self._name_views(path))

    @on_error(True)
    def is_protected_path(self, path: str | os.PathLike[str]) -> bool:
        """Return True if ``.git``, ``.localagent``, ``.vscode`` or ``.idea`` is on the path (any case); True on error."""
        return any(names.protected_parts(v) for v in self._name_views(path))

    @on_error(False)
    def is_supported_text_file(self, path: str | os.PathLike[str]) -> bool:
        """Return True if the file name is a supported text type (seed 001 §8.1 suffixes, README, Makefile …)."""
        return names.is_text_name(last_name(path))

    def _name_views(self, path: str | os.PathLike[str]) -> tuple[tuple[str, ...], ...]:
        """Names below the root as given and as resolved; all names of a path the gate refuses."""
        text = os.fspath(path)
        try:
            return self._walk(text).views()
        except PathDenied:
            return (tuple(p for p in names.split_names(text) if p not in (".", "..")),)

    # --- the action gates (never raise; refusal on any error) ----------------------------

    @fail_closed
    def can_read_file(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether a file may be read (seed 001 §8.1 ReadFileTool).

        Refused: outside or refused form; missing; a folder or not a regular file; sensitive;
        dangerous suffix; a known binary format (images, archives …). Protected folders may be read.
        """
        walk = self._walk(path)
        _require_regular_file(walk)
        self._check_names(walk, dangerous=True, binary=True)
        return ALLOW

    @fail_closed
    def can_open_file(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether a file may be handed to the system's default program (seed 001 §8.2 OpenFileTool).

        Refused: everything :meth:`can_read_file` refuses for names (outside, sensitive, dangerous
        suffix), anything that the default program would run, install or mount
        (``pathnames.OPEN_UNSAFE_SUFFIXES``: ``.js``, ``.py``, ``.iso``, ``.msix``, ``.app`` …), and on
        Linux/macOS a file with an execute bit (a desktop may run it). Binary documents
        (images, PDFs) may be opened: that is what the default program is for.
        """
        walk = self._walk(path)
        _require_regular_file(walk)
        self._check_names(walk, dangerous=True)
        if any(names.is_open_unsafe_name(v[-1]) for v in walk.views() if v):
            raise deny("打开时会被系统当作程序运行、安装或挂载的文件类型，拒绝打开",
                       "the system would run, install or mount this type of file when opening it", walk.shown)
        if os.name != "nt" and os.lstat(walk.real).st_mode & 0o111:
            raise deny("可执行文件拒绝打开", "executable files are not opened", walk.shown)
        return ALLOW

    @fail_closed
    def can_read_directory(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether a folder may be listed: inside, exists, a folder, not a credential folder."""
        walk = self._walk(path)
        if not walk.real.is_dir():
            raise deny("文件夹不存在或不是文件夹", "the folder does not exist or is not a folder", walk.shown)
        if self._root_sensitive or any(names.is_sensitive_dir_name(p) for v in walk.views() for p in v):
            raise deny("敏感文件夹默认拒绝", "sensitive folders are refused by default", walk.shown)
        return ALLOW

    @fail_closed
    def can_create_file(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether a new file may be created (seed 001 §8.3 CreateFileTool).

        Refused: outside; through a link; already exists (never overwrite); illegal name; dangerous
        suffix; sensitive; protected; the parent folder missing.
        """
        self._check_new_file(self._walk(path, for_write=True))
        return ALLOW

    @fail_closed
    def can_create_directory(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether a new folder may be created; missing intermediate folders are allowed (mkdir -p).

        Refused: outside; through a link; already exists; an illegal name; a protected or
        credential folder name; a dangerous suffix (``x.exe/``); a file in the way.
        """
        walk = self._walk(path, for_write=True)
        self._check_new_entry(walk)
        self._check_names(walk, protected=True, dangerous=True)
        ancestor = walk.real
        while not os.path.lexists(ancestor):
            ancestor = ancestor.parent
        if not ancestor.is_dir():
            raise deny("路径中有同名文件挡住了文件夹", "a file is in the way of the folder", walk.shown)
        for part in walk.real.parts[len(ancestor.parts):]:
            _check_legal(part, walk.shown)
        return ALLOW

    @fail_closed
    def can_write_file(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether an existing text file may be changed (seed 001 §8.3 WriteFileTool).

        Refused: outside; through a link; missing or not a regular file; protected; sensitive;
        dangerous suffix; a known binary format. Content sniffing is the writer's job.
        """
        walk = self._walk(path, for_write=True)
        _require_regular_file(walk)
        self._check_names(walk, protected=True, dangerous=True, binary=True)
        return ALLOW

    @fail_closed
    def can_move_file(self, source: str | os.PathLike[str], target: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether one file (or one folder) may be moved or renamed to ``target`` (seed 001 §8.3).

        ``target`` is the final path (the caller joins a folder and the name). The source must exist,
        not be the root, protected, sensitive, a dangerous file, or a folder holding a protected
        folder (a nested repository); a folder cannot go inside itself. The target follows
        :meth:`can_create_file`: it must not exist (never overwritten) — except a case-only rename
        of the same entry (``a.txt`` → ``A.txt``) on a case-insensitive file system.
        """
        walk = self._walk(source, for_write=True)
        if not walk.real_rel:
            raise deny("不能移动工作区根目录", "the workspace root itself cannot be moved", walk.shown)
        is_dir = walk.real.is_dir() and not is_link(walk.real)
        if is_dir:
            self._check_folder_leaves(walk)
        else:
            _require_regular_file(walk)
            self._check_names(walk, protected=True, dangerous=True)
        dest = self._walk(target, for_write=True)
        if is_dir and is_within(dest.real, walk.real):
            raise deny("不能把文件夹移到它自己里面", "a folder cannot be moved into itself", dest.shown)
        self._check_new_file(dest, same_as=walk.real)
        return ALLOW

    @fail_closed
    def can_delete_to_trash(self, path: str | os.PathLike[str]) -> PolicyDecision:
        """Decide whether a file or folder may go to the recycle bin (seed 001 §8.3).

        Refused: outside; through a link; missing; the root itself; protected, or a folder holding a
        protected folder directly (a nested repository); sensitive.
        """
        walk = self._walk(path, for_write=True)
        if not walk.real_rel:
            raise deny("不能删除工作区根目录", "the workspace root itself cannot be deleted", walk.shown)
        if not os.path.lexists(walk.real):
            raise deny("要删除的路径不存在", "the path to delete does not exist", walk.shown)
        self._check_folder_leaves(walk)
        return ALLOW

    def _check_new_entry(self, walk: Walk, same_as: Path | None = None) -> None:
        if not walk.real_rel:
            raise deny("目标是工作区根目录", "the target is the workspace root", walk.shown)
        if os.path.lexists(walk.real) and not _is_case_only_rename(same_as, walk.real):
            raise deny("目标已存在，不会覆盖", "the target already exists and is never overwritten", walk.shown)
        _check_legal(walk.real.name, walk.shown)

    def _check_new_file(self, walk: Walk, same_as: Path | None = None) -> None:
        self._check_new_entry(walk, same_as)
        self._check_names(walk, protected=True, dangerous=True)
        if not walk.real.parent.is_dir():
            raise deny("上级文件夹不存在", "the parent folder does not exist", walk.shown)

    def _check_folder_leaves(self, walk: Walk) -> None:
        """A folder may leave its place (move, trash) unless protected, sensitive or holding ``.git`` & co."""
        self._check_names(walk, protected=True)
        if walk.real.is_dir() and _holds_protected(walk.real):
            raise deny("文件夹内含受保护目录（如 .git），不能移动或删除", "the folder holds a protected folder "
                       "(such as .git) and cannot be moved or deleted", walk.shown)

    def _check_names(self, walk: Walk, *, protected: bool = False, dangerous: bool = False,
                     binary: bool = False) -> None:
        views = [v for v in walk.views() if v]
        if protected and any(names.protected_parts(v) for v in views):
            raise deny("受保护的目录（.git、.localagent、.vscode、.idea）不能写入、移动或删除",
                       "protected folders (.git, .localagent, .vscode, .idea) are never written, moved or deleted",
                       walk.shown)
        if self._root_sensitive or any(names.sensitive_parts(v) for v in views):
            raise deny("敏感文件默认拒绝", "sensitive files are refused by default", walk.shown)
        if dangerous and any(names.is_dangerous_name(v[-1]) for v in views):
            raise deny("危险的文件类型被拒绝", "dangerous file types are refused", walk.shown)
        if binary and any(names.is_binary_name(v[-1]) for v in views):
            raise deny("二进制文件（图片、压缩包等）不能作为文本处理", "binary files (images, archives …) are not "
                       "handled as text", walk.shown)

    # --- opening with a check after the open (TOCTOU) ------------------------------------

    def open_for_read(self, path: str | os.PathLike[str]) -> BinaryIO:
        """Resolve, refuse sensitive names, open read-only, then check the opened file is the checked one.

        The open and the check after it are :func:`localagent.workspace.opened.open_checked`.

        Returns:
            A binary file object positioned at 0; the caller closes it.

        Raises:
            PathDenied: refused by :meth:`resolve`, sensitive, not a regular file, or swapped between
                the check and the open.
            OSError: the file is missing or unreadable.
        """
        walk = self._walk(path)
        if self._root_sensitive or any(names.sensitive_parts(v) for v in walk.views() if v):
            raise deny("敏感文件默认拒绝", "sensitive files are refused by default", walk.shown)
        return opened.open_checked(walk.real, walk.shown, self.root)

    def verify_same_file(self, fd: int, path: str | os.PathLike[str]) -> None:
        """Check after opening that ``fd`` is the file at ``path`` and that it lies inside the root.

        Compares ``(st_dev, st_ino)`` of the descriptor with a fresh ``stat`` of ``path`` and checks
        the descriptor's real location (:func:`localagent.workspace.opened.verify_same_file`).
        Writers call it after opening too.

        Args:
            fd: an open file descriptor.
            path: the resolved path that was checked.

        Raises:
            PathDenied: the file was replaced, moved out or deleted between the check and the use.
        """
        opened.verify_same_file(fd, path, self.root)


def _check_legal(name: str, shown: str) -> None:
    problem = legal_name_problem(name)
    if problem:
        raise deny(*problem, shown)


def _require_regular_file(walk: Walk) -> None:
    try:
        mode = os.lstat(walk.real).st_mode
    except FileNotFoundError:
        raise deny("文件不存在", "the file does not exist", walk.shown) from None
    if stat.S_ISDIR(mode):
        raise deny("这是文件夹，不是文件", "this is a folder, not a file", walk.shown)
    if not stat.S_ISREG(mode):
        raise deny("不是普通文件", "not a regular file", walk.shown)


def _is_case_only_rename(source: Path | None, target: Path) -> bool:
    """True when ``target`` exists only because it is ``source`` under another letter case."""
    if source is None or source == target or str(source).casefold() != str(target).casefold():
        return False
    try:
        return os.path.samefile(source, target)
    except OSError:
        return False


def _is_link_loop(real: Path) -> bool:
    """After ``realpath``, a link still standing (or ELOOP on the way) means a loop."""
    try:
        return stat.S_ISLNK(os.lstat(real).st_mode)
    except OSError as exc:
        return exc.errno == errno.ELOOP


def _holds_protected(folder: Path) -> bool:
    with os.scandir(folder) as entries:
        return any(names.is_protected_name(e.name) for e in entries)
