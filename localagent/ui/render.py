"""Text and JSON rendering of outcomes, shared by the CLI and the line mode (house style §2).

Nothing here decides anything: it turns :class:`~localagent.agent.session.Outcome`,
:class:`~localagent.agent.task.Task` and errors into lines or the stable JSON
shape of issue 2 (``intent``, ``answer``, ``task``) and issue 3 (``action``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from localagent.events import Event, OutputLine, RetryEvent, StepEvent
from localagent.i18n import tr

if TYPE_CHECKING:
    from localagent.agent.session import Outcome
    from localagent.agent.task import Task
    from localagent.errors import LocalAgentError

RESULT_MARKER = "LOCALAGENT_RESULT"  # the task's count line (llm/prompts.py): data for us, noise for the user

_STEP_NAMES = {
    "intent": ("意图识别", "Intent"), "plan": ("生成计划", "Plan"), "code": ("生成代码", "Code"),
    "rule_checker": ("静态安全检查", "Static check"), "reviewer": ("模型审查", "Review"),
    "confirm": ("等待确认", "Confirm"), "run": ("沙箱执行", "Run"), "result": ("结果", "Result"),
}
_STATUS_NAMES = {
    "success": ("成功", "success"), "partial": ("部分成功", "partial"), "failed": ("失败", "failed"),
    "blocked": ("已拦截", "blocked"), "cancelled": ("已取消", "cancelled"), "pending": ("等待确认", "pending"),
}


def step_name(step: str, lang: str) -> str:
    """Return the user-facing name of a pipeline step."""
    zh, en = _STEP_NAMES.get(step, (step, step))
    return tr(lang, zh, en)


def status_name(status: str, lang: str) -> str:
    """Return the user-facing name of a task status."""
    zh, en = _STATUS_NAMES.get(status, (status, status))
    return tr(lang, zh, en)


def render_event(event: Event, lang: str, out: TextIO) -> None:
    """Print one progress event as a short line (to stderr in the CLI)."""
    if isinstance(event, StepEvent) and event.status != "started" and event.step != "result":
        mark = {"done": "✓", "failed": "✗", "skipped": "–"}.get(event.status, "·")
        detail = f" {event.detail}" if event.detail else ""
        print(f"[{mark}] {step_name(event.step, lang)}{detail}", file=out)
    elif isinstance(event, RetryEvent):
        print(tr(lang, f"[…] 模型请求失败，{event.delay_s:.0f} 秒后重试（{event.attempt}/{event.limit}）：{event.reason}",
                 f"[…] Model request failed, retry {event.attempt}/{event.limit} in {event.delay_s:.0f}s: "
                 f"{event.reason}"), file=out)
    elif isinstance(event, OutputLine) and not event.text.startswith(RESULT_MARKER):
        print(f"    | {event.text.rstrip()}", file=out)


def render_intent(outcome: "Outcome", lang: str) -> str:
    """Return the classification line: label, confidence, source and reason."""
    intent = outcome.intent
    label = tr(lang, "执行任务" if intent.label == "execution" else "普通对话",
               "task" if intent.label == "execution" else "chat")
    from localagent.workspace.pathnames import escape_invisible  # the reason quotes the user's words

    reason = escape_invisible(intent.reason_in(lang))
    return tr(lang, f"判定：{label}（置信度 {intent.confidence:.2f}，来源 {intent.source}）— {reason}",
              f"Intent: {label} (confidence {intent.confidence:.2f}, source {intent.source}) — {reason}")


def render_plan(task: "Task", layout: Any, lang: str) -> str:
    """Return the task guide text of seed 000 step 5: three steps, plan, risks, checks."""
    lines = [
        tr(lang, "三步引导：", "Three steps:"),
        tr(lang, f"  1) 把要处理的文件放进 {layout.input}", f"  1) Put the files in {layout.input}"),
        tr(lang, "  2) 我来处理（在沙箱里运行，不联网，原文件不变）",
           "  2) I process them (in a sandbox, no network, originals unchanged)"),
        tr(lang, f"  3) 去 {layout.output} 取结果", f"  3) Take the results from {layout.output}"),
        "", render_plan_body(task, lang),
    ]
    return "\n".join(lines)


def render_plan_body(task: "Task", lang: str) -> str:
    """Return the plan, the risks, the checks line and the code file (seed 000 step 5), shared with the window."""
    lines = [tr(lang, "执行计划：", "Plan:"), task.plan.strip(), ""]
    if task.risks:
        lines.append(tr(lang, "风险提示：", "Risks:"))
        lines.extend(f"  - {risk}" for risk in task.risks)
        lines.append("")
    lines.append(render_checks(task, lang))
    lines.append(tr(lang, f"代码：{task.code_path}", f"Code: {task.code_path}"))
    return "\n".join(lines)


def render_checks(task: "Task", lang: str) -> str:
    """Return one line naming the rule checker's and the reviewer's verdicts."""
    rule = task.rule_report
    rule_text = tr(lang, "通过", "passed") if rule and rule.passed else tr(lang, "未通过", "failed")
    review = task.review
    if review is None:
        review_text = tr(lang, "未进行", "not run")
    elif review.skipped:
        review_text = tr(lang, "跳过（内置模板）", "skipped (built-in template)")
    else:
        review_text = tr(lang, "通过" if review.passed else "未通过", "passed" if review.passed else "failed")
    return tr(lang, f"检查：静态检查 {rule_text}；模型审查 {review_text}",
              f"Checks: static {rule_text}; review {review_text}")


def render_result(task: "Task", lang: str) -> str:
    """Return the result block: status, counts, isolation, log path (seed 000 UI)."""
    return "\n".join([
        tr(lang, f"结果：{status_name(task.status, lang)} — {task.message}",
           f"Result: {status_name(task.status, lang)} — {task.message}"),
        tr(lang, f"隔离方式：{task.isolation or '-'}", f"Isolation: {task.isolation or '-'}"),
        tr(lang, f"日志：{task.log_path}", f"Log: {task.log_path}"),
    ])


def outcome_json(outcome: "Outcome | None", *, error: "LocalAgentError | None" = None,
                 exit_code: int = 0, lang: str = "zh", intent: Any = None) -> dict[str, Any]:
    """Return the stable JSON document of ``--output-format json``.

    Keys: ``intent {label, confidence, reason, source}``, ``answer``, ``task``,
    ``action``, ``error {type, message, exit_code}``, ``exit_code``. ``intent`` names the
    classification when an error ended the run after it (``outcome`` is then ``None``).
    """
    doc: dict[str, Any] = {"intent": intent.to_json() if intent is not None else None, "answer": None,
                           "task": None, "action": None, "error": None, "exit_code": exit_code}
    if outcome is not None:
        doc["intent"] = outcome.intent.to_json()
        doc["answer"] = outcome.answer if outcome.kind == "chat" else None
        doc["task"] = outcome.task.to_json() if outcome.task else None
        doc["action"] = outcome.action.to_json() if outcome.action is not None else None
    if error is not None:
        doc["error"] = {"type": type(error).__name__, "message": error.message(lang), "exit_code": error.exit_code}
    return doc
