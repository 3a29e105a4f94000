"""Open tools (seed 001 §8.2, issue 3 §3): open a file, open a folder, show a file in its folder.

Risk: ``open_file`` Medium (the controller asks for a yes first; this tool just
acts), ``open_directory`` and ``reveal_in_explorer`` Low (direct). Every path
goes through ``ctx.policy``. The program and its arguments are fixed — Windows
``os.startfile`` or ``%SystemRoot%\\explorer.exe /select,<path>``, macOS
``/usr/bin/open``, elsewhere ``xdg-open`` — never a shell and never text from
the chat; the only argument is the resolved absolute path, which cannot start
with ``-``. The launcher is a seam: ``ctx.extra["launcher"]`` is a callable
``launcher(argv: list[str]) -> None``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

from localagent.i18n import tr
from localagent.tools.read_tools import log_result, refusal, resolve_or_refuse
from localagent.tools.types import ToolContext, WorkspaceToolResult, WorkspaceToolRisk

OPEN_FILE_RISK = WorkspaceToolRisk.MEDIUM
OPEN_DIRECTORY_RISK = WorkspaceToolRisk.LOW
REVEAL_RISK = WorkspaceToolRisk.LOW

# argv[0] meaning "call os.startfile(argv[1])" (Windows: the shell's default verb, no command line).
STARTFILE = "os.startfile"
_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# What a desktop opener needs to reach the session; nothing else (no keys) is passed on.
_LAUNCH_ENV_NAMES = ("HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "DISPLAY", "WAYLAND_DISPLAY",
                     "XDG_RUNTIME_DIR", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "XDG_DATA_DIRS",
                     "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "DBUS_SESSION_BUS_ADDRESS",
                     "DESKTOP_SESSION", "SYSTEMROOT", "WINDIR")

Launcher = Callable[[list[str]], None]


def launch_env() -> dict[str, str]:
    """Return the opener's environment: a fixed PATH plus the desktop-session variables, nothing else."""
    env = {name: os.environ[name] for name in _LAUNCH_ENV_NAMES if name in os.environ}
    env["PATH"] = _SYSTEM_PATH
    return env


def default_launcher(argv: list[str]) -> None:
    """Start the system opener detached: ``os.startfile`` for :data:`STARTFILE`, else ``Popen`` without a shell.

    Raises:
        OSError: the program is missing or cannot start.
    """
    if argv[0] == STARTFILE:
        os.startfile(argv[1])  # type: ignore[attr-defined]  # Windows only
        return
    subprocess.Popen(argv, env=launch_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, close_fds=True, start_new_session=os.name != "nt")


def open_argv(path: Path) -> list[str]:
    """Return the fixed argv that opens ``path`` (file or folder) with the system default program."""
    if sys.platform == "win32":
        return [STARTFILE, str(path)]
    if sys.platform == "darwin":
        return ["/usr/bin/open", str(path)]
    return ["xdg-open", str(path)]


def reveal_argv(path: Path) -> list[str]:
    """Return the fixed argv that shows ``path`` selected in its folder (Windows, macOS) or opens its folder."""
    if sys.platform == "win32":
        system_root = os.environ.get("SystemRoot") or os.environ.get("SYSTEMROOT") or r"C:\Windows"
        return [str(Path(system_root) / "explorer.exe"), f"/select,{path}"]
    if sys.platform == "darwin":
        return ["/usr/bin/open", "-R", str(path)]
    return open_argv(path.parent)


def _launch(ctx: ToolContext, tool: str, argv: list[str], rel: str, done: tuple[str, str]) -> WorkspaceToolResult:
    """Run the launcher; a launch failure becomes a failed result."""
    launcher: Launcher = ctx.extra.get("launcher") or default_launcher
    try:
        launcher(list(argv))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return log_result(tool, refusal(tr(ctx.lang, f"无法打开：{reason}", f"Cannot open: {reason}"), rel))
    message = tr(ctx.lang, done[0], done[1])
    return log_result(tool, WorkspaceToolResult(success=True, message=message, target_path=rel))


def open_file(ctx: ToolContext, path: str) -> WorkspaceToolResult:
    """Open a workspace file with the system default program (seed 001 §8.2 OpenFileTool; risk Medium).

    The controller asks for a yes before calling this. Refused (as results):
    paths outside the workspace, missing files, folders (use
    :func:`open_directory`), and whatever ``AccessPolicy.can_open_file`` refuses:
    dangerous suffixes (``.exe``, ``.bat``, ``.lnk``…), files the default program
    would run, install or mount (``.js``, ``.py``, ``.iso``…), executables and
    sensitive files (first version: refused).

    Args:
        ctx: tool context; ``ctx.extra["launcher"]`` replaces the system launcher.
        path: workspace-relative or absolute file path.

    Returns:
        A result naming the opened file, or the refusal.
    """
    target, denied = resolve_or_refuse(ctx, path)
    if denied is not None:
        return log_result("open_file", denied)
    rel = ctx.policy.to_relative_path(target)
    policy = ctx.policy
    if target.is_dir():
        problem = tr(ctx.lang, f"{rel} 是文件夹，请用打开文件夹", f"{rel} is a folder; open it as a folder")
    elif not target.is_file():
        problem = tr(ctx.lang, f"文件不存在：{rel}", f"File not found: {rel}")
    elif not (decision := policy.can_open_file(target)):
        problem = decision.message(ctx.lang)
    else:
        return _launch(ctx, "open_file", open_argv(target), rel,
                       (f"已用默认程序打开 {rel}", f"Opened {rel} with the default program"))
    return log_result("open_file", refusal(problem, rel))


def open_directory(ctx: ToolContext, path: str = ".") -> WorkspaceToolResult:
    """Open a workspace folder in the file manager (seed 001 §8.2 OpenDirectoryTool; risk Low, direct).

    Args:
        ctx: tool context; ``ctx.extra["launcher"]`` replaces the system launcher.
        path: workspace-relative or absolute folder (default the root).

    Returns:
        A result naming the opened folder, or the refusal (outside, missing, not a folder).
    """
    target, denied = resolve_or_refuse(ctx, path)
    if denied is not None:
        return log_result("open_directory", denied)
    rel = ctx.policy.to_relative_path(target) or "."
    if not target.is_dir():
        return log_result("open_directory", refusal(tr(ctx.lang, f"不是文件夹：{rel}", f"Not a folder: {rel}"), rel))
    decision = ctx.policy.can_read_directory(target)
    if not decision:
        return log_result("open_directory", refusal(decision.message(ctx.lang), rel))
    return _launch(ctx, "open_directory", open_argv(target), rel, (f"已打开文件夹 {rel}", f"Opened folder {rel}"))


def reveal_in_explorer(ctx: ToolContext, path: str) -> WorkspaceToolResult:
    """Show a workspace file in its folder (seed 001 §8.2 RevealInExplorerTool; risk Low).

    Windows: ``%SystemRoot%\\explorer.exe /select,<absolute path>``; macOS
    ``open -R``; elsewhere the containing folder is opened.

    Args:
        ctx: tool context; ``ctx.extra["launcher"]`` replaces the system launcher.
        path: workspace-relative or absolute path of a file or folder.

    Returns:
        A result naming the shown path, or the refusal (outside, missing).
    """
    target, denied = resolve_or_refuse(ctx, path)
    if denied is not None:
        return log_result("reveal_in_explorer", denied)
    rel = ctx.policy.to_relative_path(target) or "."
    if not target.exists():
        return log_result("reveal_in_explorer", refusal(tr(ctx.lang, f"路径不存在：{rel}", f"Not found: {rel}"), rel))
    parent = target.parent
    if parent != Path(ctx.policy.root) and not ctx.policy.is_inside_workspace(parent):
        return log_result("reveal_in_explorer", refusal(tr(ctx.lang, "所在文件夹在工作区外",
                                                           "The containing folder is outside the workspace"), rel))
    return _launch(ctx, "reveal_in_explorer", reveal_argv(target), rel,
                   (f"已显示 {rel} 所在位置", f"Showed {rel} in its folder"))
