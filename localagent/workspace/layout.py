"""The workspace folder and its ``input/``, ``output/``, ``logs/`` (issue 2 part 13, seed 001 §15 工作区选择).

:func:`prepare_workspace` turns a folder named by a person (``--workspace DIR``,
config, or the default ``./workspace``) into a :class:`WorkspaceLayout`: resolved,
never a system directory, created only when asked, and with the three working
folders present. Existing content is never touched. Stdlib only.

A working folder may be a link to another folder inside the workspace, but the three
must stay three separate places: after resolution no two are the same folder or nested
(an ``output/`` linked into ``input/`` would let a task's writable folder be the
originals; the sandbox binds ``output/`` read-write), and none lies in a protected or
credential folder (``.git``, ``.localagent``, ``.ssh`` …).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from localagent.errors import WorkspaceError
from localagent.workspace.pathnames import (
    is_protected_name,
    is_sensitive_dir_name,
    is_system_directory,
    looks_like_windows_path,
    show,
)
from localagent.workspace.policy import is_within

DEFAULT_WORKSPACE = "workspace"
SUBFOLDERS = ("input", "output", "logs")


@dataclass(frozen=True)
class WorkspaceLayout:
    """The resolved workspace and its working folders (all absolute, all existing folders).

    Attributes:
        root: the workspace folder.
        input: ``root/input`` — files the user gives a task.
        output: ``root/output`` — files a task produces (never overwritten).
        logs: ``root/logs`` — run logs and security metrics.
    """

    root: Path
    input: Path
    output: Path
    logs: Path


def prepare_workspace(path: str | os.PathLike[str], *, create_missing: bool,
                      create_subfolders: bool = True) -> WorkspaceLayout:
    """Resolve and check a workspace folder, then make sure ``input/``, ``output/``, ``logs/`` exist.

    A leading ``~`` is expanded here (a person typed it in a flag or config); the result is
    resolved through every link before it is judged.

    Args:
        path: the folder, absolute or relative to the current directory.
        create_missing: create the folder (with parents) when it does not exist.
        create_subfolders: create missing working folders now (default). ``False`` checks the
            ones that exist and leaves the others to the first code task (issue 2 part 13: created
            on first use), so pointing LocalAgent at a project for workspace actions adds nothing.

    Returns:
        The layout with resolved absolute paths.

    Raises:
        WorkspaceError: the path is empty or invalid, a system directory (``/``, ``/usr``, ``/etc``,
            ``C:\\Windows``, ``C:\\Program Files``, the home directory itself …), a file, missing
            while ``create_missing`` is False, or a working folder is a file or a link leading
            outside the workspace; two working folders that are the same folder or one inside
            another (``output -> input``, ``logs -> input/sub``), or one inside a protected or
            credential folder (``output -> .git``, ``.localagent``, ``.ssh`` …); a Windows drive or
            UNC path on another OS. Also when the folder cannot be created.
    """
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(text, str) or not text.strip() or "\x00" in text:
        raise WorkspaceError("工作区路径无效", "the workspace path is invalid")
    shown = show(text)
    if is_system_directory(text):
        raise _system_error(shown)
    if os.name != "nt" and looks_like_windows_path(text):
        raise WorkspaceError(f"这是 Windows 路径，不能在本系统上使用：{shown}",
                             f"this is a Windows path and cannot be used on this system: {shown}")
    root = Path(os.path.realpath(os.path.expanduser(text)))
    if is_system_directory(root):
        raise _system_error(shown)
    if not root.exists():
        if not create_missing:
            raise WorkspaceError(f"工作区不存在：{shown}", f"the workspace does not exist: {shown}")
        _make_dir(root, shown)
    if not root.is_dir():
        raise WorkspaceError(f"工作区不是文件夹：{shown}", f"the workspace is not a folder: {shown}")
    folders = [_ensure_subfolder(root, name, create=create_subfolders) for name in SUBFOLDERS]
    _check_apart(root, folders)
    return WorkspaceLayout(root, *folders)


def ensure_subfolders(layout: WorkspaceLayout) -> WorkspaceLayout:
    """Create the missing ``input/``, ``output/``, ``logs/`` of a checked workspace; return the checked layout.

    Raises:
        WorkspaceError: as :func:`prepare_workspace` (the folder went away, a link appeared …).
    """
    return prepare_workspace(layout.root, create_missing=False, create_subfolders=True)


def _system_error(shown: str) -> WorkspaceError:
    return WorkspaceError(f"不能把系统目录用作工作区：{shown}。请选择一个项目文件夹。",
                          f"a system directory cannot be the workspace: {shown}. Choose a project folder.")


def _make_dir(folder: Path, shown: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WorkspaceError(f"无法创建工作区：{shown}（{exc.strerror or exc}）",
                             f"cannot create the workspace: {shown} ({exc.strerror or exc})") from exc


def _ensure_subfolder(root: Path, name: str, *, create: bool = True) -> Path:
    """Return ``root/name`` as an existing folder inside ``root``; create it if absent (or, with
    ``create=False``, return the not-yet-existing path as it will be)."""
    entry = root / name
    if not os.path.lexists(entry):
        if not create:
            return entry
        _make_dir(entry, show(str(entry)))
    real = Path(os.path.realpath(entry))
    if not is_within(real, root) or len(real.parts) <= len(root.parts):
        raise WorkspaceError(f"工作区中的 {name}/ 是指向工作区外的链接：{show(str(entry))}",
                             f"{name}/ in the workspace is a link leading outside it: {show(str(entry))}")
    if not real.is_dir():
        raise WorkspaceError(f"工作区中的 {name} 不是文件夹：{show(str(entry))}",
                             f"{name} in the workspace is not a folder: {show(str(entry))}")
    return real


def _check_apart(root: Path, folders: list[Path]) -> None:
    """Refuse working folders that share a place or live in a protected or credential folder."""
    named = dict(zip(SUBFOLDERS, folders, strict=True))
    for name, real in named.items():
        if any(is_protected_name(part) or is_sensitive_dir_name(part) for part in real.parts[len(root.parts):]):
            shown = show(str(root / name))
            raise WorkspaceError(f"工作区中的 {name}/ 指向受保护或存放凭据的文件夹：{shown}",
                                 f"{name}/ in the workspace leads into a protected or credential folder: {shown}")
    for (name, real), (other, other_real) in combinations(named.items(), 2):
        if is_within(real, other_real) or is_within(other_real, real):
            shown, other_shown = show(str(root / name)), show(str(root / other))
            raise WorkspaceError(
                f"工作区中的 {name}/ 与 {other}/ 是同一个文件夹或互相包含（链接）：{shown}，{other_shown}。"
                "input、output、logs 必须是三个互不包含的文件夹。",
                f"{name}/ and {other}/ in the workspace are the same folder or nested (a link): {shown}, "
                f"{other_shown}. input, output and logs must be three separate folders.")
