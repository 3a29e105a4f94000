"""Delete to the recycle bin, and the deletions that are refused (seed 001 §3 v1d, §8.3 DeleteToTrashTool).

Only ``send2trash`` is used: nothing is ever deleted permanently. Refused with the
seed's wording: a permanent delete ("不允许永久删除文件，只能删除到回收站。"), a batch
delete — more than one path or a wildcard such as ``*.log`` ("第一阶段不支持批量删除。")
— and any Dangerous-risk action. A folder is deleted only with strong confirmation
(the controller passes ``strong_confirmed=True`` after it); the workspace root and
protected folders (``.git`` …) are refused by the access policy.
"""

from __future__ import annotations

import os
from pathlib import Path

from localagent.errors import ToolFailed
from localagent.i18n import tr
from localagent.tools.types import ToolContext, WorkspaceToolResult
from localagent.tools.write_support import missing_refusal, record, relative, require, resolve, success, write_tool
from localagent.workspace.journal import new_entry

PERMANENT_DELETE_REFUSAL = ("不允许永久删除文件，只能删除到回收站。",
                            "Permanent deletion is not allowed; files can only be deleted to the recycle bin.")
BATCH_DELETE_REFUSAL = ("第一阶段不支持批量删除。", "Batch deletion is not supported in this phase.")
DANGEROUS_REFUSAL = ("危险操作一律拒绝（永久删除、执行命令、运行脚本、修改系统目录）。",
                     "Dangerous actions are always refused (permanent delete, commands, scripts, system folders).")
_WILDCARDS = ("*", "?")


def is_batch_request(path: object) -> bool:
    """Return whether ``path`` asks for more than one item (seed 001 §8.3: 批量删除第一阶段拒绝).

    Args:
        path: what the caller passed: a list/tuple/set of paths, or one path string.

    Returns:
        True for a collection of more than one path, a path with a wildcard
        (``*``, ``?``), or several lines.
    """
    if isinstance(path, (list, tuple, set, frozenset)):
        return len(path) != 1 or is_batch_request(next(iter(path)))
    text = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(text, str):
        return False
    return any(mark in text for mark in _WILDCARDS) or "\n" in text.strip()


def send_to_trash(path: Path) -> None:
    """Move one file or folder to the system recycle bin with ``send2trash``; never delete permanently.

    Args:
        path: absolute path, already resolved and allowed by the access policy.

    Raises:
        ToolFailed: the recycle bin refused (no permission, no trash on that volume …)
            or the item is still there afterwards; nothing was deleted.
    """
    from send2trash import send2trash  # lazy: only deletions need it

    try:
        send2trash(str(path))
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ToolFailed(f"无法移到回收站：{reason}（未删除任何内容）",
                         f"Could not move it to the recycle bin: {reason} (nothing was deleted)") from exc
    if os.path.lexists(path):
        raise ToolFailed("移到回收站后原位置仍存在", "The item is still in place after moving it to the recycle bin")


@write_tool("delete_to_trash")
def delete_to_trash(ctx: ToolContext, path: str, *, strong_confirmed: bool = False,
                    permanent: bool = False) -> WorkspaceToolResult:
    """Move one file, or one folder after strong confirmation, to the recycle bin (High; seed 001 §8.3).

    Args:
        ctx: the tool context.
        path: one workspace-relative path. A list of several paths or a wildcard
            (``*.log``) is a batch delete and is refused.
        strong_confirmed: the user gave the strong confirmation a folder needs.
        permanent: the request asked for a permanent delete; always refused.

    Returns:
        Success with ``target_path`` (the deleted relative path), or a refusal result
        whose message is the seed's wording for permanent and batch deletes.
    """
    if permanent:
        raise ToolFailed(*PERMANENT_DELETE_REFUSAL)
    if is_batch_request(path):
        raise ToolFailed(*BATCH_DELETE_REFUSAL)
    if isinstance(path, (list, tuple, set, frozenset)):
        path = next(iter(path))
    target = resolve(ctx, path)
    require(ctx.policy.can_delete_to_trash(target))
    rel = relative(ctx, target)
    if target == ctx.policy.root:
        raise ToolFailed("不能删除工作区根目录", "The workspace root cannot be deleted")
    if not os.path.lexists(target):
        raise missing_refusal(rel)
    is_dir = target.is_dir()
    if is_dir and not strong_confirmed:
        raise ToolFailed(f"删除文件夹需要强确认：{rel}", f"Deleting a folder needs strong confirmation: {rel}")
    send_to_trash(target)
    note = record(ctx, new_entry("delete_to_trash", source=rel, is_directory=is_dir))
    zh_kind, en_kind = ("文件夹", "folder") if is_dir else ("文件", "file")
    return success(tr(ctx.lang, f"已将{zh_kind}移到回收站：{rel}", f"Moved the {en_kind} to the recycle bin: {rel}")
                   + note, rel)


@write_tool("delete_permanently")
def delete_permanently(ctx: ToolContext, path: str) -> WorkspaceToolResult:
    """Refuse a permanent delete, always (Dangerous; seed 001 §2: 不允许永久删除文件).

    Args:
        ctx: the tool context. path: whatever was asked for; never touched.

    Returns:
        A failed result with the seed's wording.
    """
    raise ToolFailed(*PERMANENT_DELETE_REFUSAL)


@write_tool("dangerous_action")
def refuse_dangerous_action(ctx: ToolContext, what: str = "") -> WorkspaceToolResult:
    """Refuse any Dangerous-risk action outright (seed 001 §5: Dangerous — 永久删除、执行命令、运行脚本、修改系统目录).

    Args:
        ctx: the tool context. what: a short description for the log (never content).

    Returns:
        A failed result with :data:`DANGEROUS_REFUSAL`.
    """
    raise ToolFailed(*DANGEROUS_REFUSAL)
