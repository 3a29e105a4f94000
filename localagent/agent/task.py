"""The seed 000 execution pipeline: plan → code → rule checker → LLM reviewer → confirm → sandbox → result.

:func:`prepare_task` does everything up to the confirmation and returns a
:class:`Task` whose ``status`` is ``"pending"`` (awaiting a yes) or ``"blocked"``
(a safety check said no). :func:`run_task` runs a pending task once in the
sandbox and fills in the result. Every step's outcome is recorded in
``task.steps`` (for the UI and the JSON output), in ``logs/task_<id>.json`` and
in the security metrics. ``--yes`` approves a plan; it never skips a check.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagent.errors import ModelAPIError, ParseError
from localagent.events import EventSink, OutputLine, StepEvent, ignore_event
from localagent.i18n import tr

if TYPE_CHECKING:
    from localagent.agent.session import Session
    from localagent.executor.sandbox_runner import RunResult
    from localagent.safety.llm_reviewer import ReviewResult
    from localagent.safety.rule_checker import CheckReport

PLAN_MAX_TOKENS = 2048
LISTING_MAX_NAMES = 50
STATUSES = ("success", "partial", "failed", "blocked", "cancelled", "pending")


@dataclass(frozen=True, kw_only=True)
class StepRecord:
    """One pipeline step's outcome: ``step`` name, ``status`` (done/failed/skipped), ``detail``."""

    step: str
    status: str
    detail: str = ""


@dataclass(kw_only=True)
class Task:
    """A task from one sentence, through the pipeline.

    Attributes:
        id: ``YYYYmmdd_HHMMSS_xxxx``; the code is ``<workspace>/task_<id>.py``.
        status: one of :data:`STATUSES`.
        source: ``"template"`` (built-in, seed 000 step 2) or ``"model"``.
        succeeded / failed: file counts from the task's report and from output/.
        isolation: ``"bwrap"`` or ``"guard-only"`` once it ran.
        message: one user-facing line summing up the outcome.
    """

    id: str
    sentence: str
    status: str = "pending"
    plan: str = ""
    risks: list[str] = field(default_factory=list)
    code: str = ""
    source: str = ""
    code_path: Path | None = None
    log_path: Path | None = None
    rule_report: "CheckReport | None" = None
    review: "ReviewResult | None" = None
    run: "RunResult | None" = None
    succeeded: int = 0
    failed: int = 0
    isolation: str = ""
    message: str = ""
    steps: list[StepRecord] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the stable JSON shape of issue 2 (``task {id, status, plan, …, checks}``)."""
        rule = self.rule_report.to_json() if self.rule_report else {"passed": False, "violations": []}
        review = ({"passed": self.review.passed, "reason": self.review.reason, "skipped": self.review.skipped}
                  if self.review else {"passed": False, "reason": "", "skipped": False})
        return {
            "id": self.id, "status": self.status, "plan": self.plan, "risks": list(self.risks),
            "source": self.source, "code_path": str(self.code_path or ""), "log_path": str(self.log_path or ""),
            "succeeded": self.succeeded, "failed": self.failed, "isolation": self.isolation,
            "message": self.message,
            "checks": {"rule_checker": {"passed": rule["passed"], "violations": rule["violations"]},
                       "reviewer": review},
            "steps": [{"step": s.step, "status": s.status, "detail": s.detail} for s in self.steps],
        }


def new_task_id() -> str:
    """Return a fresh, sortable task id such as ``20261129_153000_a1b2``."""
    return time.strftime("%Y%m%d_%H%M%S") + "_" + secrets.token_hex(2)


def prepare_task(session: "Session", sentence: str, on_event: EventSink = ignore_event) -> Task:
    """Plan, write, check and review a task; stop before running it.

    Args:
        session: the wired session (settings, workspace layout, client or None).
        sentence: the user's request.
        on_event: receives :class:`StepEvent` progress.

    Returns:
        A :class:`Task` with status ``"pending"`` (ready for confirmation) or
        ``"blocked"`` (rule checker or reviewer said no; nothing ran).

    Raises:
        ConfigError: no model key and no built-in template fits the request (exit 2).
        ModelAPIError: the model failed, or gave no usable plan and code (exit 3).
        Aborted: cancelled while waiting for the model.
    """
    from localagent.workspace.layout import ensure_subfolders

    session.layout = ensure_subfolders(session.layout)  # seed 000 folders, created on first use
    task = Task(id=new_task_id(), sentence=sentence)
    lang = session.lang
    _step(task, on_event, "plan", "started")
    task.plan, task.risks, task.code, task.source = _plan_and_code(session, sentence)
    _step(task, on_event, "plan", "done", tr(lang, "计划已生成", "Plan ready"))
    task.code_path = _save_code(session.layout.root, task.id, task.code)
    task.log_path = session.layout.logs / f"task_{task.id}.log"
    _step(task, on_event, "code", "done", task.code_path.name)
    if _rule_check(session, task, on_event) and _review(session, task, on_event):
        task.status = "pending"
        task.message = tr(lang, "计划已通过检查，等待确认。", "The plan passed the checks and awaits approval.")
        _step(task, on_event, "confirm", "started", task.message)
    save_task_record(session, task)
    return task


def run_task(session: "Session", task: Task, *, cancel_event: threading.Event | None = None,
             on_event: EventSink = ignore_event) -> Task:
    """Run a confirmed, pending task once in the sandbox and record the result.

    Args:
        session: the wired session; task: a task from :func:`prepare_task` with status ``"pending"``.
        cancel_event: set it to cancel; the process tree is killed and the status is ``"cancelled"``.
        on_event: receives step events and each output line.

    Returns:
        The same task with ``status`` success / partial / failed / cancelled, counts and isolation.

    Raises:
        SandboxUnavailable: isolation was required but is missing (nothing ran).
        ValueError: the task is not pending (a blocked task never runs).
    """
    from localagent.executor.sandbox_runner import run_task as run_in_sandbox

    if task.status != "pending" or task.code_path is None:
        raise ValueError(f"task {task.id} is {task.status}, not pending")
    lang = session.lang
    _step(task, on_event, "confirm", "done", tr(lang, "已确认", "Approved"))
    _step(task, on_event, "run", "started", tr(lang, "正在沙箱中执行…", "Running in the sandbox…"))
    result = run_in_sandbox(task.code_path, session.layout, task.id, timeout=session.settings.task_timeout,
                            cancel_event=cancel_event, on_output=lambda line: on_event(OutputLine(text=line)))
    task.run, task.isolation, task.log_path = result, result.isolation, result.log_path
    _record_interceptions(session, task)
    task.succeeded, task.failed = _count_files(result)
    task.status = _final_status(result, task.succeeded, task.failed)
    task.message = _result_message(lang, task)
    _step(task, on_event, "run", "failed" if task.status in ("failed", "cancelled") else "done",
          tr(lang, f"隔离方式 {result.isolation}，用时 {result.duration_s:.1f} 秒",
             f"isolation {result.isolation}, {result.duration_s:.1f} s"))
    _step(task, on_event, "result", task.status, task.message)
    save_task_record(session, task)
    return task


def _plan_and_code(session: "Session", sentence: str) -> tuple[str, list[str], str, str]:
    from localagent.agent.templates import match_template, render_template, template_plan

    if session.client is None:
        choice = match_template(sentence)
        if choice is None:  # only a model can write this code: the one clear line naming LLM_API_KEY (exit 2)
            session.settings.require_key()
        plan, risks = template_plan(choice, session.lang)
        return plan, risks, render_template(choice), "template"
    return _model_plan_and_code(session, sentence)


def _model_plan_and_code(session: "Session", sentence: str) -> tuple[str, list[str], str, str]:
    from localagent.llm.parsing import split_plan_and_code
    from localagent.llm.prompts import build_task_messages

    assert session.client is not None
    messages = build_task_messages(sentence, input_listing(session.layout.input))
    text = session.client.chat(messages, model=session.settings.generation_model_name,
                               temperature=0.2, max_tokens=PLAN_MAX_TOKENS)
    try:
        plan, risks, code = split_plan_and_code(text)
    except ParseError as error:
        raise ModelAPIError(f"模型没有给出可用的计划和 Python 代码：{error.zh}",
                            f"The model gave no usable plan and Python code: {error.en}") from None
    return plan, risks, code, "model"


def input_listing(input_dir: Path, limit: int = LISTING_MAX_NAMES) -> str:
    """Return a short listing of ``input/`` for the prompt: up to ``limit`` relative names and a count.

    Names only (no content); symlinks are not followed. Keeps the prompt small
    (issue 2 benchmark: ≤ 4,000 prompt tokens per task).
    """
    names: list[str] = []
    total = 0
    for folder, subfolders, files in os.walk(input_dir):
        subfolders.sort()
        for name in sorted(files):
            total += 1
            if len(names) < limit:
                names.append((Path(folder) / name).relative_to(input_dir).as_posix())
    more = f"\n… (+{total - len(names)} more)" if total > len(names) else ""
    return f"{total} files in input/:\n" + "\n".join(names) + more


def _save_code(root: Path, task_id: str, code: str) -> Path:
    from localagent.workspace.atomic import create_exclusive

    path = root / f"task_{task_id}.py"
    create_exclusive(path, code.encode("utf-8"))
    return path


def _rule_check(session: "Session", task: Task, on_event: EventSink) -> bool:
    from localagent.safety.rule_checker import check_code

    lang = session.lang
    _step(task, on_event, "rule_checker", "started")
    report = check_code(task.code, session.layout.root)
    task.rule_report = report
    metrics = session.load_metrics()
    metrics.record_report(report, task.id)
    metrics.save_to_file(session.metrics_path)
    if report.passed:
        _step(task, on_event, "rule_checker", "done", tr(lang, "静态检查通过", "Static check passed"))
        return True
    lines = "; ".join(f"L{v.line} {v.kind}: {v.message}" for v in report.violations[:5])
    task.status = "blocked"
    task.message = tr(lang, f"安全检查未通过，已终止：{lines}", f"Blocked by the safety check: {lines}")
    _step(task, on_event, "rule_checker", "failed", task.message)
    return False


def _review(session: "Session", task: Task, on_event: EventSink) -> bool:
    from localagent.safety.llm_reviewer import ReviewResult, review_code

    lang = session.lang
    if task.source == "template":
        task.review = ReviewResult(passed=True, skipped=True, reason=tr(
            lang, "内置模板代码，无需模型审查", "Built-in template: no model review needed"))
        _step(task, on_event, "reviewer", "skipped", task.review.reason)
        return True
    _step(task, on_event, "reviewer", "started")
    assert session.client is not None
    task.review = review_code(session.client, session.settings.generation_model_name,
                              request=task.sentence, plan=task.plan, code=task.code)
    if task.review.passed:
        _step(task, on_event, "reviewer", "done", task.review.reason)
        return True
    metrics = session.load_metrics()
    metrics.record_static_block("llm_review", task.review.reason, task.id)
    metrics.save_to_file(session.metrics_path)
    task.status = "blocked"
    task.message = tr(lang, f"审查未通过，已终止：{task.review.reason}", f"Blocked by the reviewer: {task.review.reason}")
    _step(task, on_event, "reviewer", "failed", task.message)
    return False


def _record_interceptions(session: "Session", task: Task) -> None:
    if task.run is None or not task.run.interceptions:
        return
    metrics = session.load_metrics()
    for item in task.run.interceptions:
        metrics.record_runtime_interception(str(item.get("category", "other")),
                                            str(item.get("detail", item.get("event", "")))[:200], task.id)
    metrics.save_to_file(session.metrics_path)


def _count_files(result: "RunResult") -> tuple[int, int]:
    """Succeeded/failed from the task's own report, capped by what really appeared in output/."""
    appeared = len(result.new_output_files)
    reported = result.reported or {}
    ok, bad = reported.get("succeeded"), reported.get("failed")
    if isinstance(ok, int) and isinstance(bad, int) and ok >= 0 and bad >= 0:
        real_ok = min(ok, appeared)
        return real_ok, bad + (ok - real_ok)
    return appeared, 0  # no report: only what appeared in output/ is known


def _final_status(result: "RunResult", succeeded: int, failed: int) -> str:
    if result.cancelled:
        return "cancelled"
    if result.timed_out or (result.returncode != 0 and succeeded == 0):
        return "failed"
    if result.returncode != 0 or failed or result.interceptions:
        return "partial" if succeeded else "failed"
    return "success"


def _result_message(lang: str, task: Task) -> str:
    run = task.run
    assert run is not None
    if task.status == "cancelled":
        return tr(lang, f"运行被取消，已完成的部分：成功 {task.succeeded} 个，失败 {task.failed} 个。",
                  f"The run was cancelled; done so far: {task.succeeded} succeeded, {task.failed} failed.")
    if run.timed_out:
        return tr(lang, f"执行超时（{task_timeout_text(run)}），已终止。", f"Timed out ({task_timeout_text(run)}); stopped.")
    if task.status == "success" and task.succeeded == 0 and task.failed == 0:
        return tr(lang, "input 里没有需要处理的文件（0 个）。", "There were no files to process in input (0 files).")
    blocked = len(run.interceptions)
    note_zh = f"，运行时拦截 {blocked} 次" if blocked else ""
    note_en = f", {blocked} runtime interceptions" if blocked else ""
    if run.returncode not in (0, None):
        note_zh += f"；任务代码出错退出（退出码 {run.returncode}），详见日志"
        note_en += f"; the task's code exited with an error (code {run.returncode}), see the log"
    return tr(lang, f"成功 {task.succeeded} 个，失败 {task.failed} 个{note_zh}。",
              f"{task.succeeded} succeeded, {task.failed} failed{note_en}.")


def task_timeout_text(run: "RunResult") -> str:
    """Return the run's duration as ``"120s"``."""
    return f"{run.duration_s:.0f}s"


def save_task_record(session: "Session", task: Task) -> Path:
    """Write ``logs/task_<id>.json`` (the task's steps and outcome; no secrets, no file contents)."""
    from localagent.workspace.atomic import atomic_write_text

    path = session.layout.logs / f"task_{task.id}.json"
    record = {"sentence": task.sentence[:2000], **task.to_json()}
    try:
        atomic_write_text(path, json.dumps(record, ensure_ascii=False, indent=2))
    except OSError as error:  # the record is a log; failing to write it never fails the task
        logging.getLogger("localagent.task").warning("cannot write %s: %s", path.name, error.strerror)
    return path


def _step(task: Task, on_event: EventSink, step: str, status: str, detail: str = "") -> None:
    if status != "started":
        task.steps.append(StepRecord(step=step, status=status, detail=detail))
    on_event(StepEvent(step=step, status=status, detail=detail))
