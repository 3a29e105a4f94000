"""Show a workspace action and ask for its yes in the CLI and the line mode (issue 3 §4 front ends).

Nothing here decides anything: :func:`render_action` turns an
:class:`~localagent.agent.workspace_controller.ActionOutcome` into lines, and
:func:`finish_workspace_action` asks for the confirmation a pending plan needs
(seed 001 §10: the UI confirms, the controller executes). ``--yes`` approves; on
a terminal the user answers y/N, and a High-risk plan with strong confirmation
(move, deleting a folder) needs the file name or ``yes`` typed in full; without a
terminal the plan waits (exit 9). Exit codes: done 0, failed 1, refused or
declined 7, pending 9.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable

from localagent.errors import EXIT_BLOCKED, EXIT_OK, EXIT_PLAN_PENDING, EXIT_TASK_FAILED
from localagent.i18n import tr
from localagent.workspace.pathnames import escape_invisible as _esc

if TYPE_CHECKING:
    from localagent.agent.workspace_controller import ActionOutcome

Say = Callable[[str], None]

EXIT_CODES = {"done": EXIT_OK, "failed": EXIT_TASK_FAILED, "refused": EXIT_BLOCKED, "cancelled": EXIT_BLOCKED,
              "pending": EXIT_PLAN_PENDING}
_STATUS = {"done": ("完成", "done"), "pending": ("等待确认", "awaiting confirmation"), "failed": ("失败", "failed"),
           "refused": ("已拒绝", "refused"), "cancelled": ("已取消", "cancelled")}
_YES = frozenset({"y", "yes", "是", "好", "确认", "确定", "执行"})
_SHOW_TEXT = frozenset({"read_file", "analyze"})
MAX_SHOWN_LINES = 400


def render_action(action: ActionOutcome, lang: str) -> list[str]:
    """Return the lines that show one outcome.

    Type, risk and status first, then the message; for a pending plan the path,
    action, risk, warnings and the change summary; matches as ``path:line: snippet``;
    file lists numbered ``1.``, ``2.`` … (what "打开第二个" refers to); the text of a
    read or an analysis.

    Args:
        action: the outcome. lang: ``"zh"`` or ``"en"``.

    Returns:
        Lines without trailing newlines.
    """
    plan, result = action.plan, action.result
    status = tr(lang, *_STATUS.get(action.status, (action.status, action.status)))
    lines = [tr(lang, f"工作区操作：{plan.type.value}（风险：{plan.risk.label_zh} / {plan.risk.label}）— {status}",
                f"Workspace action: {plan.type.value} (risk: {plan.risk.label}) — {status}")]
    if action.status == "pending":
        lines += _pending_lines(action, lang)
    elif action.message:
        lines += [_esc(line) for line in action.message.splitlines()]
    if result is None:
        return lines
    lines += [f"{_esc(m.path)}:{m.line}: {m.snippet}" for m in result.matches]
    if result.files and not result.matches:
        lines += [f"{n}. {_esc(f.relative_path)}{'/' if f.is_directory else ''}" for n, f in enumerate(result.files, 1)]
    if plan.type.value in _SHOW_TEXT and result.success and result.output_text:
        text = result.output_text.splitlines()
        lines += text[:MAX_SHOWN_LINES]
        if len(text) > MAX_SHOWN_LINES:
            lines.append(tr(lang, f"…（还有 {len(text) - MAX_SHOWN_LINES} 行未显示）",
                            f"… ({len(text) - MAX_SHOWN_LINES} more lines not shown)"))
    return lines


def _pending_lines(action: ActionOutcome, lang: str) -> list[str]:
    plan = action.plan
    paths = _esc(" → ".join(p for p in (plan.relative_source_path, plan.relative_target_path) if p))
    lines = [tr(lang, f"操作：{_esc(plan.title)}", f"Action: {_esc(plan.title)}"),
             tr(lang, f"路径：{paths}", f"Path: {paths}"),
             tr(lang, f"风险：{plan.risk.label_zh}（{plan.risk.label}）", f"Risk: {plan.risk.label}")]
    lines += [tr(lang, f"注意：{_esc(w)}", f"Warning: {_esc(w)}") for w in plan.warnings]
    detail = plan.description.splitlines()[1:]
    if detail:
        lines.append(tr(lang, "变更摘要：", "Change summary:"))
        lines += [f"  {line}" for line in detail]
    return lines


def finish_workspace_action(session: Any, outcome: Any, *, yes: bool, say: Say) -> int:
    """Show a workspace outcome, get the yes a pending plan needs, run it, return the exit code.

    Args:
        session: the session (its ``controller`` holds the pending plan; ``lang``).
        outcome: the sentence's outcome; ``outcome.action`` is replaced by the final
            action so that the JSON output shows what happened.
        yes: ``--yes`` was given (approves the plan; checks still ran).
        say: prints one line (stderr in JSON mode).

    Returns:
        0 done, 1 failed, 7 refused or declined, 9 awaiting approval (no terminal, no ``--yes``).
    """
    lang = session.lang
    action = outcome.action
    for line in render_action(action, lang):
        say(line)
    if action.status != "pending":
        return EXIT_CODES.get(action.status, EXIT_TASK_FAILED)
    controller = session.controller
    try:
        answer = _ask(action, lang, yes=yes, say=say)
    except KeyboardInterrupt:  # Ctrl-C at the question: nothing changes, and the exit says "cancelled" (130)
        controller.cancel_pending_plan()
        raise
    if answer == "pending":
        say(tr(lang, "等待确认：在终端中运行以确认，或加 --yes 批准。",
               "Awaiting confirmation: run on a terminal to confirm, or add --yes."))
        return EXIT_PLAN_PENDING
    if answer == "declined":
        cancelled = controller.cancel_pending_plan()
        if cancelled is not None:
            outcome.action = cancelled
        say(tr(lang, "已拒绝，未做任何修改。", "Declined; nothing was changed."))
        return EXIT_BLOCKED
    final = controller.confirm_pending_plan()
    outcome.action = final
    for line in render_action(final, lang):
        say(line)
    return EXIT_CODES.get(final.status, EXIT_TASK_FAILED)


def _ask(action: ActionOutcome, lang: str, *, yes: bool, say: Say) -> str:
    """Return ``"approved"``, ``"declined"`` or ``"pending"`` (no terminal and no ``--yes``)."""
    if yes:
        say(tr(lang, "已通过 --yes 批准。", "Approved by --yes."))
        return "approved"
    if not sys.stdin.isatty():
        return "pending"
    plan = action.plan
    if plan.strong_confirmation:
        name = (plan.relative_source_path or plan.relative_target_path).rsplit("/", 1)[-1]
        say(tr(lang, f"这是高风险操作（强确认）：请完整输入文件名“{name}”或 yes 确认，其他输入取消：",
               f"High-risk action (strong confirmation): type the name \"{name}\" or yes in full to confirm:"))
        typed = _read_line()
        return "approved" if typed in (name, "yes", "YES", "Yes") else "declined"
    say(tr(lang, "确认执行？[y/N]", "Go ahead? [y/N]"))
    return "approved" if _read_line().casefold() in _YES else "declined"


def _read_line() -> str:
    """Read the answer; end of input counts as "no". Ctrl-C propagates (cancelled, exit 130)."""
    try:
        return input().strip()
    except EOFError:
        return ""
