"""Undo the last completed write from the operation journal (issue 3 §3).

What undo does per journal entry type:

* ``write_file`` — restore the backup (the current version is backed up first; atomic).
* ``move_file`` / ``rename_file`` — move or rename back; refused if the old place is taken.
* ``create_file`` / ``copy_file`` — send the created file to the recycle bin (never a
  permanent delete).
* ``create_directory`` — remove the folder only if it is empty, else refuse.
* ``delete_to_trash`` — cannot be restored automatically: the result points to the
  recycle bin ("请到回收站中还原 …") and the entry is taken off the undo stack.

Every undo first checks that the result is exactly what the operation left (size and
SHA-256); if the file was changed since, undo refuses rather than clobbering
("文件在操作后又被修改过，无法安全撤销"). Every path goes through ``ctx.policy``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable

from localagent.errors import ToolFailed
from localagent.i18n import tr
from localagent.tools.trash_tools import send_to_trash
from localagent.tools.types import ToolContext, WorkspaceToolResult
from localagent.tools.write_support import failure, journal_of, relative, require, resolve, success, write_tool
from localagent.workspace.atomic import atomic_write_bytes, move_file_no_replace, rename_case_only, rename_no_replace
from localagent.workspace.backups import backup_file, backup_path
from localagent.workspace.journal import JournalEntry

CHANGED_REFUSAL = ("文件在操作后又被修改过，无法安全撤销", "The file was changed after the operation; it cannot be undone safely")


@write_tool("undo")
def undo_last(ctx: ToolContext) -> WorkspaceToolResult:
    """Reverse the most recent not-yet-undone write in the journal.

    Args:
        ctx: the tool context (its ``journal``, or the workspace's journal).

    Returns:
        Success naming what was restored; a refusal (nothing changed) when there is
        nothing to undo, the result was changed since, or the old place is taken; for a
        deletion, a failed result pointing to the recycle bin.
    """
    journal = journal_of(ctx)
    entry = journal.last()
    if entry is None:
        return failure(tr(ctx.lang, "没有可以撤销的操作", "There is nothing to undo"))
    result = _HANDLERS[entry.type](ctx, entry)
    journal.mark_undone(entry.id)
    return result


def _check_unchanged(ctx: ToolContext, entry: JournalEntry):
    current = resolve(ctx, entry.target)
    if not entry.result_unchanged(current):
        raise ToolFailed(f"{CHANGED_REFUSAL[0]}：{entry.target}", f"{CHANGED_REFUSAL[1]}: {entry.target}")
    return current


def _undo_write(ctx: ToolContext, entry: JournalEntry) -> WorkspaceToolResult:
    current = _check_unchanged(ctx, entry)
    require(ctx.policy.can_write_file(current))
    saved = backup_path(ctx.policy.root, entry.backup)
    try:
        if not stat.S_ISREG(os.lstat(saved).st_mode):
            raise FileNotFoundError(errno.ENOENT, "not a regular file", str(saved))
        data = saved.read_bytes()
    except OSError as exc:
        raise ToolFailed(f"找不到备份文件，无法撤销：{entry.backup}",
                         f"The backup file is missing; cannot undo: {entry.backup}") from exc
    fresh = backup_file(ctx.policy, current)
    atomic_write_bytes(current, data)
    return success(tr(ctx.lang, f"已撤销修改，恢复了 {entry.target}（撤销前的版本已备份为 {fresh.name}）",
                      f"Undid the change and restored {entry.target} (the version before undo is backed up as "
                      f"{fresh.name})"), entry.target)


def _undo_move(ctx: ToolContext, entry: JournalEntry) -> WorkspaceToolResult:
    current = _check_unchanged(ctx, entry)
    old = resolve(ctx, entry.source)
    case_only = old.parent == current.parent and old.name.casefold() == current.name.casefold()
    taken = ToolFailed(f"原位置已被占用，无法撤销：{entry.source}",
                       f"The original place is taken; cannot undo: {entry.source}")
    if not case_only and os.path.lexists(old):
        raise taken
    require(ctx.policy.can_move_file(current, old))
    try:
        if case_only:
            rename_case_only(current, old)
        elif entry.is_directory:
            rename_no_replace(current, old)
        else:
            move_file_no_replace(current, old)
    except FileExistsError:
        raise taken from None
    return success(tr(ctx.lang, f"已撤销：{entry.target} 已还原为 {entry.source}",
                      f"Undone: {entry.target} is back at {entry.source}"), relative(ctx, old))


def _undo_create(ctx: ToolContext, entry: JournalEntry) -> WorkspaceToolResult:
    current = _check_unchanged(ctx, entry)
    require(ctx.policy.can_delete_to_trash(current))
    send_to_trash(current)
    return success(tr(ctx.lang, f"已撤销：{entry.target} 已移到回收站",
                      f"Undone: {entry.target} was moved to the recycle bin"), entry.target)


def _undo_create_directory(ctx: ToolContext, entry: JournalEntry) -> WorkspaceToolResult:
    current = _check_unchanged(ctx, entry)
    require(ctx.policy.can_delete_to_trash(current))
    try:
        os.rmdir(current)
    except OSError as exc:
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
            raise ToolFailed(f"文件夹已不是空的，无法安全撤销：{entry.target}",
                             f"The folder is no longer empty; cannot undo safely: {entry.target}") from exc
        raise
    return success(tr(ctx.lang, f"已撤销：删除了空文件夹 {entry.target}",
                      f"Undone: removed the empty folder {entry.target}"), entry.target)


def _undo_delete(ctx: ToolContext, entry: JournalEntry) -> WorkspaceToolResult:
    return failure(tr(ctx.lang, f"删除到回收站的内容无法自动还原，请到回收站中还原 {entry.source}。"
                                "（已从撤销记录中移除，再次撤销将处理更早的操作）",
                      f"Items deleted to the recycle bin cannot be restored automatically; please restore "
                      f"{entry.source} from the recycle bin. (Removed from the undo list; undo again for earlier "
                      "operations.)"), entry.source)


_HANDLERS: dict[str, Callable[[ToolContext, JournalEntry], WorkspaceToolResult]] = {
    "write_file": _undo_write,
    "move_file": _undo_move,
    "rename_file": _undo_move,
    "create_file": _undo_create,
    "copy_file": _undo_create,
    "create_directory": _undo_create_directory,
    "delete_to_trash": _undo_delete,
}
