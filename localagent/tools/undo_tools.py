"""Undo the last completed write from the operation journal (issue 3 §3).

What undo does per journal entry type:

* ``write_file`` — restore the backup (the current version is backed up first; atomic).
* ``move_file`` / ``rename_file`` — move or rename back; refused if the old place is taken.
* ``create_file`` / ``copy_file`` — send the created file to the recycle bin (never a
  permanent delete).
* ``create_directory`` — remove the folder only if it is empty, else refuse.
* ``delete_to_trash`` — cannot be restored automatically: the result points to the
  recycle bin ("请到回收站中还原 …") and the entry is taken off the undo stack.

:func:`check_undo` tells, without changing anything, what undoing an entry would meet
(:class:`UndoCheck`): ``ready``; ``dismiss`` — it can never be undone (a deletion to the
recycle bin, a result that no longer exists, a lost backup), so the entry is marked
handled with a clear message and the next undo reaches the step before; or ``blocked`` —
the result was changed since ("文件在操作后又被修改过，无法安全撤销"), the old place is
taken, the folder is no longer empty. A blocked entry is never skipped silently: the
message says what blocks it and what to do, and older entries wait until it is resolved.
Every undo checks again right before it acts (size and SHA-256 of the result), and
every path goes through ``ctx.policy``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from localagent.errors import LocalAgentError, ToolFailed
from localagent.i18n import tr
from localagent.tools.trash_tools import send_to_trash
from localagent.tools.types import ToolContext, WorkspaceToolResult
from localagent.tools.write_support import failure, journal_of, relative, require, resolve, success, write_tool
from localagent.workspace.atomic import atomic_write_bytes, move_file_no_replace, rename_case_only, rename_no_replace
from localagent.workspace.backups import backup_file, backup_path
from localagent.workspace.journal import JournalEntry, OperationJournal

CHANGED_REFUSAL = ("文件在操作后又被修改过，无法安全撤销", "The file was changed after the operation; it cannot be undone safely")
READY, DISMISS, BLOCKED = "ready", "dismiss", "blocked"
_ENTRY_NAMES = {"create_file": ("创建文件", "create file"), "create_directory": ("创建文件夹", "create folder"),
                "write_file": ("修改文件", "modify file"), "copy_file": ("复制", "copy"), "move_file": ("移动", "move"),
                "rename_file": ("重命名", "rename"), "delete_to_trash": ("删除到回收站", "delete to the recycle bin")}


@dataclass(frozen=True)
class UndoCheck:
    """What undoing one journal entry would meet, found without changing anything.

    Attributes:
        state: :data:`READY` (undo can run), :data:`DISMISS` (it can never be undone: the
            entry may be marked handled) or :data:`BLOCKED` (something in the workspace stops
            it; the user can resolve it).
        zh, en: what undo would do (ready) or why not, and what to do about it.
    """

    state: str
    zh: str
    en: str

    def message(self, lang: str) -> str:
        """Return the explanation in ``lang``."""
        return tr(lang, self.zh, self.en)


def describe_entry(entry: JournalEntry, lang: str) -> str:
    """Return one short line naming a journal entry, e.g. ``"重命名 a.txt → b.txt"``."""
    zh, en = _ENTRY_NAMES.get(entry.type, (entry.type, entry.type))
    where = " → ".join(p for p in (entry.source, entry.target) if p)
    return f"{tr(lang, zh, en)} {where}"


def check_undo(ctx: ToolContext, entry: JournalEntry) -> UndoCheck:
    """Find what undoing ``entry`` would meet, for every entry type × result state (issue 3 §3).

    Args:
        ctx: the tool context (its policy resolves every path).
        entry: the journal entry (normally ``journal.last()``).

    Returns:
        An :class:`UndoCheck`; never raises (a refused path is ``blocked``, fail closed).
    """
    if entry.type == "delete_to_trash":
        return UndoCheck(DISMISS, f"删除到回收站的内容无法自动还原，请到回收站中还原 {entry.source}。",
                         f"Items deleted to the recycle bin cannot be restored automatically; please restore "
                         f"{entry.source} from the recycle bin.")
    try:
        current = resolve(ctx, entry.target)
        if not os.path.lexists(current):
            return _missing(entry)
        if not entry.result_unchanged(current):
            return _changed(entry)
        return _TYPE_CHECKS.get(entry.type, _ready)(ctx, entry)
    except LocalAgentError as exc:
        return UndoCheck(BLOCKED, f"无法撤销 {entry.target}：{exc.zh}", f"Cannot undo {entry.target}: {exc.en}")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return UndoCheck(BLOCKED, f"无法撤销 {entry.target}：{reason}", f"Cannot undo {entry.target}: {reason}")


def _missing(entry: JournalEntry) -> UndoCheck:
    zh = f"{entry.target} 已不存在（之后被删除、移走或改名），这一步无法撤销：{describe_entry(entry, 'zh')}。"
    en = (f"{entry.target} no longer exists (deleted, moved or renamed since); this step cannot be undone: "
          f"{describe_entry(entry, 'en')}.")
    if entry.type == "write_file" and entry.backup:
        zh += f"修改前的版本仍保存在 .localagent/backups/{entry.backup}。"
        en += f" The version before the change is kept in .localagent/backups/{entry.backup}."
    return UndoCheck(DISMISS, zh, en)


def _changed(entry: JournalEntry) -> UndoCheck:
    return UndoCheck(BLOCKED, f"{CHANGED_REFUSAL[0]}：{entry.target}。请先把它恢复成操作后的内容，或自行处理它；"
                              "在这一步处理好之前，更早的操作无法撤销。",
                     f"{CHANGED_REFUSAL[1]}: {entry.target}. Restore it to what the operation left, or deal with it "
                     "yourself; earlier operations can be undone once this step is resolved.")


def _ready(ctx: ToolContext, entry: JournalEntry) -> UndoCheck:
    if entry.type == "create_directory":
        return UndoCheck(READY, f"将删除空文件夹 {entry.target}", f"The empty folder {entry.target} will be removed")
    return UndoCheck(READY, f"将把 {entry.target} 移到回收站", f"{entry.target} will be moved to the recycle bin")


def _check_write(ctx: ToolContext, entry: JournalEntry) -> UndoCheck:
    saved = backup_path(ctx.policy.root, entry.backup)  # a crafted name raises: blocked, fail closed
    try:
        usable = stat.S_ISREG(os.lstat(saved).st_mode)
    except FileNotFoundError:
        usable = False
    if not usable:
        return UndoCheck(DISMISS, f"找不到备份文件 {entry.backup}，这一步无法撤销：{describe_entry(entry, 'zh')}。",
                         f"The backup {entry.backup} is missing; this step cannot be undone: "
                         f"{describe_entry(entry, 'en')}.")
    return UndoCheck(READY, f"将把 {entry.target} 恢复为修改前的版本（当前版本先备份）",
                     f"{entry.target} will be restored to the version before the change (the current one is "
                     "backed up first)")


def _check_move(ctx: ToolContext, entry: JournalEntry) -> UndoCheck:
    current, old = resolve(ctx, entry.target), resolve(ctx, entry.source)
    case_only = old.parent == current.parent and old.name.casefold() == current.name.casefold()
    if not case_only and os.path.lexists(old):
        return UndoCheck(BLOCKED, f"原位置已被占用，无法撤销：{entry.source}。请先把 {entry.source} 移走或改名；"
                                  "在这一步处理好之前，更早的操作无法撤销。",
                         f"The original place is taken; cannot undo: {entry.source}. Move or rename "
                         f"{entry.source} first; earlier operations can be undone once this step is resolved.")
    return UndoCheck(READY, f"将把 {entry.target} 移回 {entry.source}", f"{entry.target} will go back to {entry.source}")


def _check_directory(ctx: ToolContext, entry: JournalEntry) -> UndoCheck:
    if any(os.scandir(resolve(ctx, entry.target))):
        return UndoCheck(BLOCKED, f"文件夹已不是空的，无法安全撤销：{entry.target}。请先清空它；"
                                  "在这一步处理好之前，更早的操作无法撤销。",
                         f"The folder is no longer empty; cannot undo safely: {entry.target}. Empty it first; "
                         "earlier operations can be undone once this step is resolved.")
    return _ready(ctx, entry)


_TYPE_CHECKS: dict[str, Callable[[ToolContext, JournalEntry], UndoCheck]] = {
    "write_file": _check_write, "move_file": _check_move, "rename_file": _check_move,
    "create_directory": _check_directory,
}


def dismiss_entry(ctx: ToolContext, entry: JournalEntry, check: UndoCheck) -> WorkspaceToolResult:
    """Mark an entry that can never be undone as handled; say so and name the step undo reaches next.

    Args:
        ctx: the tool context. entry: the journal's last entry. check: its :data:`DISMISS` check.

    Returns:
        A failed result (nothing was restored) whose message is the check's reason, that the
        entry left the undo list, and what the next undo handles.

    Raises:
        ToolFailed: the journal cannot be written.
    """
    journal = journal_of(ctx)
    journal.mark_undone(entry.id, dismissed=True)
    after = journal.last()
    if after is None:
        zh, en = "已从撤销记录中移除；没有更早的可撤销操作了。", "Removed from the undo list; there is nothing earlier to undo."
    else:
        zh = f"已从撤销记录中移除；再次撤销将处理更早的操作：{describe_entry(after, 'zh')}。"
        en = f"Removed from the undo list; undo again for the earlier operation: {describe_entry(after, 'en')}."
    target = entry.source if entry.type == "delete_to_trash" else entry.target
    return failure(check.message(ctx.lang) + tr(ctx.lang, zh, " " + en), target)


@write_tool("undo")
def undo_last(ctx: ToolContext, entry_id: str = "") -> WorkspaceToolResult:
    """Reverse the most recent not-yet-undone write in the journal.

    Args:
        ctx: the tool context (its ``journal``, or the workspace's journal).
        entry_id: the journal entry the user confirmed; ``""`` takes whatever is last.

    Returns:
        Success naming what was restored; a refusal (nothing changed) when there is nothing
        to undo, the journal changed since ``entry_id`` was planned, or the entry is blocked
        (changed result, old place taken, folder not empty: it stays on the list); a failed
        result for an entry that can never be undone (deleted to the recycle bin, result
        missing, backup lost), which is marked handled (:func:`dismiss_entry`).
    """
    journal = journal_of(ctx)
    entry = journal.last()
    if entry is None:
        return failure(tr(ctx.lang, "没有可以撤销的操作", "There is nothing to undo"))
    if entry_id and entry.id != entry_id:
        return failure(tr(ctx.lang, "撤销记录在确认前已经变了，未做任何修改；请重新撤销。",
                          "The undo list changed before the confirmation; nothing was changed. Ask again."))
    return _undo_entry(ctx, journal, entry)


def _undo_entry(ctx: ToolContext, journal: OperationJournal, entry: JournalEntry) -> WorkspaceToolResult:
    check = check_undo(ctx, entry)
    if check.state == DISMISS:
        return dismiss_entry(ctx, entry, check)
    if check.state == BLOCKED:
        return failure(check.message(ctx.lang), entry.target)
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


_HANDLERS: dict[str, Callable[[ToolContext, JournalEntry], WorkspaceToolResult]] = {
    "write_file": _undo_write,
    "move_file": _undo_move,
    "rename_file": _undo_move,
    "create_file": _undo_create,
    "copy_file": _undo_create,
    "create_directory": _undo_create_directory,
}
