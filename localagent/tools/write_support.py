"""Plumbing shared by the write, trash and undo tools (issue 3 §3, seed 001 §8.3, §14).

* :func:`write_tool` turns a tool body that raises (``PathDenied``, ``ToolFailed``,
  ``InvalidArguments``, ``OSError``) into a :class:`WorkspaceToolResult` with
  ``success=False`` and writes the seed §14 log line (tool, relative path,
  success, error summary — never content).
* :func:`resolve` / :func:`require` send every path and decision through
  ``ctx.policy``, the one gate; tools never judge a path themselves.
* :func:`record` appends the journal entry of a completed write.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from localagent.errors import LocalAgentError, PathDenied, ToolFailed
from localagent.i18n import tr
from localagent.tools.types import ToolContext, WorkspaceToolResult
from localagent.workspace.journal import JournalEntry, OperationJournal

if TYPE_CHECKING:
    from localagent.workspace.policy import PolicyDecision

MAX_WRITE_BYTES = 10 * 1024 * 1024  # largest file write_file rewrites and largest new content (bytes)

log = logging.getLogger("localagent.tools")

ToolBody = Callable[..., WorkspaceToolResult]


def write_tool(name: str) -> Callable[[ToolBody], ToolBody]:
    """Decorate a write tool: exceptions become failed results, each call logs one line.

    Args:
        name: the tool name written to the log (``create_file``…).

    Returns:
        A decorator keeping the tool's signature (``functools.wraps``).
    """
    def decorate(body: ToolBody) -> ToolBody:
        @functools.wraps(body)
        def run(ctx: ToolContext, *args: object, **kwargs: object) -> WorkspaceToolResult:
            try:
                result = body(ctx, *args, **kwargs)
            except LocalAgentError as exc:
                result = failure(exc.message(ctx.lang))
            except OSError as exc:
                reason = exc.strerror or str(exc)
                result = failure(tr(ctx.lang, f"操作失败：{reason}", f"The operation failed: {reason}"))
            _log_line(name, args, result)
            return result
        return run
    return decorate


def _log_line(name: str, args: tuple, result: WorkspaceToolResult) -> None:
    path = result.target_path or (str(args[0]) if args and isinstance(args[0], (str, Path)) else "")
    if result.success:
        log.info("tool=%s path=%s success=True", name, path)
    else:
        log.info("tool=%s path=%s success=False error=%s", name, path, result.error_message[:200])


def failure(message: str, target_path: str = "") -> WorkspaceToolResult:
    """Return a failed result carrying ``message`` as both message and error message."""
    return WorkspaceToolResult(success=False, message=message, error_message=message, target_path=target_path)


def success(message: str, target_path: str) -> WorkspaceToolResult:
    """Return a successful result for the workspace-relative ``target_path``."""
    return WorkspaceToolResult(success=True, message=message, target_path=target_path)


def refuse(zh: str, en: str) -> ToolFailed:
    """Return the exception a tool raises to refuse with a (zh, en) message."""
    return ToolFailed(zh, en)


def resolve(ctx: ToolContext, path: str | os.PathLike[str], *, for_write: bool = True) -> Path:
    """Resolve ``path`` through the access policy (the one gate).

    Raises:
        PathDenied: the policy refused the path (anything unexpected counts as refused).
    """
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise PathDenied("路径为空或无效", "The path is empty or invalid")
    try:
        return Path(ctx.policy.resolve(path, for_write=for_write))
    except PathDenied:
        raise
    except (OSError, ValueError) as exc:  # fail closed
        raise PathDenied(f"路径无效：{exc}", f"Invalid path: {exc}") from exc


def require(decision: PolicyDecision) -> None:
    """Raise when a policy decision is a refusal (fail closed on anything falsy).

    Raises:
        PathDenied: with the decision's Chinese and English reasons.
    """
    if not decision:
        zh = getattr(decision, "reason", "") or "访问策略拒绝了这个操作"
        en = getattr(decision, "reason_en", "") or "The access policy refused this operation"
        raise PathDenied(zh, en)


def relative(ctx: ToolContext, path: Path) -> str:
    """Return the workspace-relative, ``/``-separated form of ``path``."""
    return ctx.policy.to_relative_path(path)


def journal_of(ctx: ToolContext) -> OperationJournal:
    """Return ``ctx.journal``, creating the workspace's journal on first use."""
    if ctx.journal is None:
        ctx.journal = OperationJournal(ctx.policy.root)
    return ctx.journal


def record(ctx: ToolContext, entry: JournalEntry) -> str:
    """Append ``entry`` to the journal after a completed write.

    Returns:
        ``""`` when recorded, else a user-facing note that undo will not be
        possible (the write itself already succeeded and is not rolled back).
    """
    try:
        journal_of(ctx).record(entry)
    except (LocalAgentError, OSError) as exc:
        log.warning("journal record failed: %s", type(exc).__name__)
        return tr(ctx.lang, "（操作记录写入失败，此操作无法撤销）", " (the operation journal could not be written; undo is unavailable)")
    return ""


def check_parent_folder(ctx: ToolContext, target: Path) -> None:
    """Refuse when ``target``'s parent folder does not exist (no folders made implicitly).

    Raises:
        ToolFailed: the parent is missing or not a folder.
    """
    if not target.parent.is_dir():
        rel = relative(ctx, target.parent) or "."
        raise ToolFailed(f"上级文件夹不存在：{rel}（请先创建文件夹）",
                         f"The parent folder does not exist: {rel} (create the folder first)")


def exists_refusal(rel: str) -> ToolFailed:
    """Return the refusal for an existing target (seed 001 v1c: 目标已存在时拒绝覆盖)."""
    return ToolFailed(f"目标已存在，不会覆盖：{rel}", f"The target already exists and will not be overwritten: {rel}")


def missing_refusal(rel: str) -> ToolFailed:
    """Return the refusal for a source that does not exist."""
    return ToolFailed(f"文件不存在：{rel}", f"The file does not exist: {rel}")
