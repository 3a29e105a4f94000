"""Planning workspace writes and running a confirmed plan (seed 001 §8.3, §10; issue 3 §3, §4).

Holds the parts of :class:`~localagent.agent.workspace_controller.WorkspaceController` that
change files, as plain functions:

* :class:`ActionOutcome` (what one request led to) and the small builders of plans and outcomes;
* the write planners (:data:`PLANNERS`: create, copy, move, rename, delete, write/replace/append,
  undo). Each checks the request through the access policy and returns either a refusal or a
  :class:`Pending` plan awaiting the user's yes; none of them changes a file;
* :func:`run_confirmed`: after the yes, refuse if the planned-on file changed since, else call the
  tool the plan names (the tool checks every path again: the second wall).

The controller keeps the pending plan, the result list and the workspace; it hands the planners
what they need in a :class:`Planning`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any, Callable

from localagent.agent.workspace_requests import KIND_ACTIONS, WorkspaceRequest
from localagent.errors import PathDenied
from localagent.i18n import tr
from localagent.tools.types import (
    ToolContext,
    WorkspaceActionPlan,
    WorkspaceActionType,
    WorkspaceToolResult,
    WorkspaceToolRisk,
)

A = WorkspaceActionType
R = WorkspaceToolRisk


@dataclass(frozen=True, kw_only=True)
class ActionOutcome:
    """What one workspace request led to.

    Attributes:
        plan: the action (type, risk, paths, warnings); for a pending one, what awaits a yes.
        status: ``"done"``, ``"pending"`` (awaiting confirmation), ``"failed"``,
            ``"refused"`` (policy or a Dangerous request) or ``"cancelled"``.
        result: the tool result once something ran (or the refusal), else None.
        message: one short user-facing line.
    """

    plan: WorkspaceActionPlan
    status: str
    result: WorkspaceToolResult | None = None
    message: str = ""

    @property
    def paths(self) -> list[str]:
        """Workspace-relative paths: the files found or read, else the plan's source and target."""
        if self.result is not None and self.result.files:
            return [f.relative_path for f in self.result.files]
        if self.result is not None and self.result.matches:
            return list(dict.fromkeys(m.path for m in self.result.matches))
        paths = [p for p in (self.plan.relative_source_path, self.plan.relative_target_path) if p]
        if not paths and self.result is not None and self.result.target_path:
            paths = [self.result.target_path]
        return list(dict.fromkeys(paths))

    def to_json(self) -> dict[str, Any]:
        """Return ``{type, risk, status, paths, matches, message}`` (issue 3 §4 JSON ``action``)."""
        matches = [m.to_json() for m in self.result.matches] if self.result is not None else []
        return {"type": self.plan.type.value, "risk": self.plan.risk.label, "status": self.status,
                "paths": self.paths, "matches": matches, "message": self.message}


@dataclass(frozen=True)
class Pending:
    """A planned write awaiting the user's yes; ``guard`` is ``(relative path, sha256)`` it was planned on."""

    plan: WorkspaceActionPlan
    guard: tuple[str, str] | None = None


@dataclass(frozen=True)
class Planning:
    """What a write planner needs from the controller.

    Attributes:
        ctx: the open workspace's tool context (its policy judges every path).
        lang: ``"zh"`` or ``"en"`` for messages.
        locate: ``locate(request, kind)`` → ``(relative path, is folder)`` of the subject, or the
            failed/refused outcome (the controller resolves ordinals and bare names).
    """

    ctx: ToolContext
    lang: str
    locate: Callable[[WorkspaceRequest, str], Any]


def make_plan(kind: str, **fields: Any) -> WorkspaceActionPlan:
    """Return a plan for request ``kind`` with its seed 001 §5 type and risk unless ``fields`` set them."""
    action, risk = KIND_ACTIONS.get(kind, ("unknown", 0))
    fields.setdefault("type", A(action))
    fields.setdefault("risk", R(risk))
    return WorkspaceActionPlan(id=uuid.uuid4().hex[:12], **fields)


def outcome(plan: WorkspaceActionPlan, status: str, result: WorkspaceToolResult | None,
            message: str) -> ActionOutcome:
    """Return the :class:`ActionOutcome` of ``plan``."""
    return ActionOutcome(plan=plan, status=status, result=result, message=message)


def failure(message: str) -> WorkspaceToolResult:
    """Return a failed tool result carrying ``message`` as both message and error."""
    return WorkspaceToolResult(success=False, message=message, error_message=message)


def refuse_unless(lang: str, decision: Any, plan: WorkspaceActionPlan) -> ActionOutcome | None:
    """Return None when the policy allows; else the refused outcome with the policy's reason."""
    if decision:
        return None
    message = decision.message(lang) if hasattr(decision, "message") else str(decision)
    return outcome(plan, "refused", failure(message), message)


def confirm_plan(lang: str, kind: str, target: str, *, source: str = "", content: str = "", strong: bool = False,
                 warnings: tuple[str, ...] = (), detail: str = "") -> WorkspaceActionPlan:
    """Return a plan that needs the user's yes, titled and described for the question (seed 001 §10)."""
    plan = make_plan(kind, relative_source_path=source, relative_target_path=target, content=content,
                     requires_confirmation=True, strong_confirmation=strong, warnings=warnings)
    name = _action_name(plan.type, lang)
    where = f"{source} → {target}" if source and target else (source or target)
    title = f"{name}：{where}" if lang != "en" else f"{name}: {where}"
    ask = tr(lang, f"需要你确认：{title}（风险：{plan.risk.label_zh}）",
             f"Needs your confirmation: {title} (risk: {plan.risk.label})")
    return replace(plan, title=title, description="\n".join(x for x in (ask, detail) if x))


# --- the write planners: a refusal or a pending plan, never a change (seed 001 §8.3) ---------------

def _plan_create_file(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    return _plan_new(p, request, "create_file", p.ctx.policy.can_create_file)


def _plan_create_directory(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    return _plan_new(p, request, "create_directory", p.ctx.policy.can_create_directory)


def _plan_new(p: Planning, request: WorkspaceRequest, kind: str, gate: Callable[[str], Any]) -> ActionOutcome | Pending:
    rel = _relative(p, request.path.rstrip("/\\"), kind)
    if isinstance(rel, ActionOutcome):
        return rel
    plan = confirm_plan(p.lang, kind, rel, content=request.content)
    return refuse_unless(p.lang, gate(rel), plan) or Pending(plan)


def _plan_copy(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    return _plan_transfer(p, request, "copy")


def _plan_move(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    return _plan_transfer(p, request, "move")


def _plan_transfer(p: Planning, request: WorkspaceRequest, kind: str) -> ActionOutcome | Pending:
    where = p.locate(request, kind)
    if isinstance(where, ActionOutcome):
        return where
    rel, is_dir = where
    if is_dir:
        message = tr(p.lang, "只能复制或移动单个文件，不能是文件夹。", "Only a single file can be copied or moved.")
        return outcome(make_plan(kind, relative_source_path=rel), "failed", failure(message), message)
    target = _relative(p, _into_folder(p.ctx, request.target, rel), kind)
    if isinstance(target, ActionOutcome):
        return target
    policy = p.ctx.policy
    decision = policy.can_create_file(target) if kind == "copy" else policy.can_move_file(rel, target)
    plan = confirm_plan(p.lang, kind, target, source=rel, strong=kind == "move")
    return refuse_unless(p.lang, decision, plan) or Pending(plan)


def _plan_rename(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    from localagent.workspace.policy import is_legal_file_name

    where = p.locate(request, "rename")
    if isinstance(where, ActionOutcome):
        return where
    rel = where[0]
    parent = rel.rpartition("/")[0]
    target = f"{parent}/{request.target}" if parent else request.target
    plan = confirm_plan(p.lang, "rename", target, source=rel)
    legal = is_legal_file_name(request.target)
    return (refuse_unless(p.lang, legal, plan) or refuse_unless(p.lang, p.ctx.policy.can_move_file(rel, target), plan)
            or Pending(plan))


def _plan_delete(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    where = p.locate(request, "delete")
    if isinstance(where, ActionOutcome):
        return where
    rel, is_dir = where
    warnings = (tr(p.lang, "这是一个文件夹：里面的所有内容都会移到回收站。",
                   "This is a folder: everything in it goes to the recycle bin."),) if is_dir else ()
    warnings += (tr(p.lang, "删除后“撤销”无法自动还原：它会在回收站里，需要时请到回收站中还原。",
                    "Undo cannot bring it back automatically: it will be in the recycle bin; restore it from there "
                    "if needed."),)
    plan = confirm_plan(p.lang, "delete", rel, strong=is_dir, warnings=warnings)
    return refuse_unless(p.lang, p.ctx.policy.can_delete_to_trash(rel), plan) or Pending(plan)


def _plan_write(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    from localagent.agent.workspace_requests import apply_text_change, diff_summary
    from localagent.tools.read_tools import read_file

    where = p.locate(request, "write")
    if isinstance(where, ActionOutcome):
        return where
    rel = where[0]
    refused = refuse_unless(p.lang, p.ctx.policy.can_write_file(rel), make_plan("write", relative_target_path=rel))
    if refused:
        return refused
    current = read_file(p.ctx, rel)
    new = apply_text_change(request, current.output_text) if current.success and not current.truncated else None
    if new is None or new == current.output_text:
        message = _write_problem(p.lang, rel, request, current)
        return outcome(make_plan("write", relative_target_path=rel), "failed", failure(message), message)
    backup = tr(p.lang, "修改前会自动备份到 .localagent/backups/，可以撤销。",
                "A backup goes to .localagent/backups/ first; it can be undone.")
    plan = confirm_plan(p.lang, "write", rel, content=new, warnings=(backup,),
                        detail=diff_summary(rel, current.output_text, new))
    return Pending(plan, (rel, digest(p.ctx, rel)))


def _plan_undo(p: Planning, request: WorkspaceRequest) -> ActionOutcome | Pending:
    """Check the last journal entry before asking for a yes (issue 3 §3).

    Ready → a pending plan naming what undo will do, guarded by the entry's id (``content``);
    blocked → refused with what blocks it; never undoable (deleted to the recycle bin, result
    gone) → refused, and the entry is marked handled so the next undo reaches the step before.
    """
    from localagent.errors import LocalAgentError
    from localagent.tools.undo_tools import BLOCKED, DISMISS, check_undo, describe_entry, dismiss_entry
    from localagent.tools.write_support import journal_of

    try:
        entry = journal_of(p.ctx).last()
    except (LocalAgentError, OSError):
        entry = None
    if entry is None:
        message = tr(p.lang, "没有可以撤销的操作。", "There is nothing to undo.")
        return outcome(make_plan("undo"), "failed", failure(message), message)
    back = entry.type in ("move_file", "rename_file")
    source, target = (entry.target, entry.source) if back else ("", entry.target or entry.source)
    check = check_undo(p.ctx, entry)
    if check.state in (DISMISS, BLOCKED):
        plan = make_plan("undo", relative_source_path=source, relative_target_path=target)
        result = failure(check.message(p.lang))
        if check.state == DISMISS:
            try:
                result = dismiss_entry(p.ctx, entry, check)
            except (LocalAgentError, OSError) as error:
                reason = error.message(p.lang) if isinstance(error, LocalAgentError) else str(error)
                result = failure(f"{check.message(p.lang)} {reason}")
        return outcome(plan, "refused", result, result.message)
    detail = tr(p.lang, f"撤销上一次操作（{describe_entry(entry, 'zh')}）：{check.zh}",
                f"Undo the last operation ({describe_entry(entry, 'en')}): {check.en}")
    return Pending(confirm_plan(p.lang, "undo", target, source=source, content=entry.id, detail=detail))


#: request kind → write planner (seed 001 §8.3); every other kind runs at once in the controller.
PLANNERS: dict[str, Callable[[Planning, WorkspaceRequest], ActionOutcome | Pending]] = {
    "create_file": _plan_create_file, "create_directory": _plan_create_directory, "copy": _plan_copy,
    "move": _plan_move, "rename": _plan_rename, "delete": _plan_delete, "write": _plan_write,
    "replace": _plan_write, "append": _plan_write, "undo": _plan_undo,
}


def _relative(p: Planning, path: str, kind: str) -> str | ActionOutcome:
    try:
        return p.ctx.policy.to_relative_path(path or ".")
    except PathDenied as error:
        message = error.message(p.lang)
        return outcome(make_plan(kind, relative_target_path=path), "refused", failure(message), message)


def _into_folder(ctx: ToolContext, target: str, source_rel: str) -> str:
    """``docs``/``docs/`` (an existing folder) → ``docs/<source name>``; else ``target`` itself."""
    name = source_rel.rsplit("/", 1)[-1]
    bare = target.rstrip("/\\")
    if bare in ("", "."):
        return name
    try:
        is_folder = target.endswith(("/", "\\")) or ctx.policy.resolve(bare).is_dir()
    except (PathDenied, OSError, ValueError):
        return target
    return f"{bare}/{name}" if is_folder else target


_ACTION_NAMES = {
    A.OPEN_FILE: ("打开文件", "Open file"), A.CREATE_FILE: ("创建文件", "Create file"),
    A.CREATE_DIRECTORY: ("创建文件夹", "Create folder"), A.WRITE_FILE: ("修改文件", "Modify file"),
    A.COPY_FILE: ("复制文件", "Copy file"), A.MOVE_FILE: ("移动文件", "Move file"),
    A.RENAME_FILE: ("重命名", "Rename"), A.DELETE_TO_TRASH: ("删除到回收站", "Delete to the recycle bin"),
    A.UNDO: ("撤销", "Undo"),
}


def _action_name(action: WorkspaceActionType, lang: str) -> str:
    zh, en = _ACTION_NAMES.get(action, (action.value, action.value))
    return tr(lang, zh, en)


def _write_problem(lang: str, rel: str, request: WorkspaceRequest, current: WorkspaceToolResult) -> str:
    if not current.success:
        return current.error_message or current.message
    if current.truncated:
        return tr(lang, f"{rel} 太大，不能安全地整体修改。", f"{rel} is too large to change safely.")
    if request.kind == "replace" and request.old_text not in current.output_text:
        return tr(lang, f"在 {rel} 中没有找到“{request.old_text}”，未做修改。",
                  f"\"{request.old_text}\" was not found in {rel}; nothing changed.")
    return tr(lang, f"{rel} 的内容没有变化。", f"The content of {rel} would not change.")


# --- running a confirmed plan --------------------------------------------------------------------

def digest(ctx: ToolContext, rel: str) -> str:
    """Return the SHA-256 of a workspace file, ``""`` when it cannot be read (then a guarded write is refused)."""
    from localagent.workspace.atomic import sha256_of

    try:
        return sha256_of(ctx.policy.resolve(rel))
    except (PathDenied, OSError, ValueError):
        return ""


def run_confirmed(ctx: ToolContext, plan: WorkspaceActionPlan, guard: tuple[str, str] | None,
                  lang: str) -> ActionOutcome:
    """Run a plan the user said yes to (seed 001 §10 confirmPendingPlan).

    Args:
        ctx: the open workspace's tool context.
        plan: the confirmed plan.
        guard: ``(relative path, sha256)`` a write was planned on, or None.
        lang: ``"zh"`` or ``"en"`` for messages.

    Returns:
        ``"done"`` or ``"failed"`` with the tool's result; ``"failed"`` without running anything when
        the guarded file changed since the plan was made (a write never clobbers newer content).
    """
    if guard is not None and digest(ctx, guard[0]) != guard[1]:
        return outcome(plan, "failed", None, tr(
            lang, f"{guard[0]} 在计划生成后又被修改过，未写入；请重新发起修改。",
            f"{guard[0]} changed after the plan was made; nothing was written. Ask again."))
    result = execute(ctx, plan)
    return outcome(plan, "done" if result.success else "failed", result, result.message)


def execute(ctx: ToolContext, plan: WorkspaceActionPlan) -> WorkspaceToolResult:
    """Call the tool a confirmed plan names; the tool checks every path again (second wall).

    Returns:
        The tool's result; a failed result for an action type no tool runs.
    """
    from localagent.tools import open_tools, write_tools

    src, dst = plan.relative_source_path, plan.relative_target_path
    calls: dict[WorkspaceActionType, Callable[[], WorkspaceToolResult]] = {
        A.OPEN_FILE: lambda: open_tools.open_file(ctx, dst),
        A.CREATE_FILE: lambda: write_tools.create_file(ctx, dst, plan.content),
        A.CREATE_DIRECTORY: lambda: write_tools.create_directory(ctx, dst),
        A.WRITE_FILE: lambda: write_tools.write_file(ctx, dst, plan.content),
        A.COPY_FILE: lambda: write_tools.copy_file(ctx, src, dst),
        A.MOVE_FILE: lambda: write_tools.move_file(ctx, src, dst),
        A.RENAME_FILE: lambda: write_tools.rename_file(ctx, src, dst.rsplit("/", 1)[-1]),
        A.DELETE_TO_TRASH: lambda: write_tools.delete_to_trash(ctx, dst, strong_confirmed=plan.strong_confirmation),
        A.UNDO: lambda: write_tools.undo_last(ctx, entry_id=plan.content),  # the entry the plan was made for
    }
    call = calls.get(plan.type)
    return call() if call is not None else failure(tr(ctx.lang, "不支持的操作。", "Unsupported action."))
