"""The ``localagent`` command: one-shot ``-p``, the line mode, ``gui`` and ``demo`` (issue 2).

Only this module maps errors to exit codes (house style §5): 0 done, 1 task failed
or partial, 2 configuration error, 3 model/API error after retries, 7 blocked by
a safety check or denied, 9 plan awaiting approval, 130 cancelled. Errors print
one clear line; ``--debug`` adds the traceback. ``--yes`` approves a plan; it
never skips a check.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from localagent import __version__
from localagent.errors import (
    EXIT_BLOCKED,
    EXIT_CANCELLED,
    EXIT_OK,
    EXIT_PLAN_PENDING,
    EXIT_TASK_FAILED,
    Aborted,
    LocalAgentError,
)
from localagent.i18n import detect_lang, tr

if TYPE_CHECKING:  # annotations only: `typing` extras, argparse and threading load lazily (cold start)
    import argparse
    import threading
    from typing import Any, Callable, TypeVar

    T = TypeVar("T")


def build_parser() -> "argparse.ArgumentParser":
    """Return the argument parser (stdlib argparse, imported only when needed)."""
    import argparse

    parser = argparse.ArgumentParser(prog="localagent", description="LocalAgent — 安全的本地助手 / a safe local agent")
    parser.add_argument("command", nargs="?", choices=["gui", "demo", "metrics"],
                        help="gui: desktop window; demo: copy sample images in a demo workspace; metrics: security summary")
    parser.add_argument("-p", "--prompt", help="one sentence to handle, then exit")
    parser.add_argument("--workspace", help="workspace folder (default ./workspace)")
    parser.add_argument("--yes", "-y", action="store_true", help="approve the plan (checks still run)")
    parser.add_argument("--output-format", choices=["text", "json"], default="text")
    parser.add_argument("--lang", choices=["zh", "en"], help="language of messages (default: locale, else zh)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    parser.add_argument("--version", action="version", version=f"localagent {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return the exit code."""
    if (sys.argv[1:] if argv is None else argv) == ["--version"]:  # cold-start fast path (issue 2 benchmark)
        print(f"localagent {__version__}")
        return EXIT_OK
    args = build_parser().parse_args(argv)
    lang = detect_lang(args.lang)
    try:
        from localagent.config import load_settings

        settings = load_settings()
        lang = detect_lang(args.lang or settings.lang or None)
        return _dispatch(args, settings, lang)
    except LocalAgentError as error:
        _print_error(error, lang, args)
        return error.exit_code
    except KeyboardInterrupt:
        print(tr(lang, "已取消。", "Cancelled."), file=sys.stderr)
        return EXIT_CANCELLED


def _dispatch(args: argparse.Namespace, settings: Any, lang: str) -> int:
    if args.command == "gui":
        from localagent.ui.app import run_app

        return run_app(settings, lang=lang, workspace=args.workspace)
    if args.command == "demo":
        from localagent.ui.demo import prepare_demo_workspace

        workspace = prepare_demo_workspace(args.workspace, lang)
        return run_once(settings, lang, "把这个文件夹里的图片复制一份", workspace=str(workspace),
                        create_missing=False, yes=args.yes, output_format=args.output_format)
    if args.command == "metrics":
        return _show_metrics(settings, lang, args.workspace)
    if args.prompt is not None:
        return run_once(settings, lang, args.prompt, workspace=args.workspace, create_missing=args.workspace is None,
                        yes=args.yes, output_format=args.output_format)
    if sys.stdin.isatty():
        from localagent.ui.repl import run_repl

        return run_repl(settings, lang=lang, workspace=args.workspace)
    return run_once(settings, lang, sys.stdin.read(), workspace=args.workspace,
                    create_missing=args.workspace is None, yes=args.yes, output_format=args.output_format)


def run_once(settings: Any, lang: str, sentence: str, *, workspace: str | None, create_missing: bool,
             yes: bool, output_format: str) -> int:
    """Handle one sentence end to end (``-p``) and return the exit code."""
    import json

    from localagent.agent.session import build_session, handle_sentence
    from localagent.ui.render import outcome_json, render_event

    as_json = output_format == "json"
    err = sys.stderr
    session = build_session(settings, lang=lang, workspace=workspace, create_missing=create_missing,
                            on_event=lambda e: render_event(e, lang, err))
    _setup_logging(session.layout.logs)
    outcome = None
    try:
        outcome = call_cancellable(
            lambda: handle_sentence(session, sentence, on_event=lambda e: render_event(e, lang, err)),
            session.cancel_event)
        code = _finish_outcome(session, outcome, yes=yes, as_json=as_json)
    except LocalAgentError as error:
        if as_json:
            print(json.dumps(outcome_json(outcome, error=error, exit_code=error.exit_code, lang=lang,
                                          intent=session.last_intent), ensure_ascii=False, indent=2))
            return error.exit_code
        raise
    if as_json:
        print(json.dumps(outcome_json(outcome, exit_code=code, lang=lang), ensure_ascii=False, indent=2))
    return code


def _finish_outcome(session: Any, outcome: Any, *, yes: bool, as_json: bool) -> int:
    from localagent.ui import render

    lang = session.lang
    say = (lambda text: print(text, file=sys.stderr)) if as_json else print
    say(render.render_intent(outcome, lang))
    if outcome.kind == "chat":
        if not as_json:
            print(outcome.answer)
        return EXIT_OK
    if outcome.kind == "workspace":
        from localagent.ui.workspace_render import finish_workspace_action

        return finish_workspace_action(session, outcome, yes=yes, say=say)
    task = outcome.task
    say(render.render_plan(task, session.layout, lang))
    if task.status == "blocked":
        say(tr(lang, f"已拦截：{task.message}", f"Blocked: {task.message}"))
        return EXIT_BLOCKED
    decision = _approve(lang, yes, say)
    if decision != EXIT_OK:
        task.status = "pending" if decision == EXIT_PLAN_PENDING else "cancelled"
        return decision
    from localagent.agent.task import run_task

    def on_event(event: Any) -> None:
        render.render_event(event, lang, sys.stderr)

    task = call_cancellable(lambda: run_task(session, task, cancel_event=session.cancel_event, on_event=on_event),
                            session.cancel_event, keep_result=True)
    say(render.render_result(task, lang))
    return {"success": EXIT_OK, "cancelled": EXIT_CANCELLED}.get(task.status, EXIT_TASK_FAILED)


def _approve(lang: str, yes: bool, say: Callable[[str], None]) -> int:
    """Return EXIT_OK when approved, EXIT_PLAN_PENDING without a terminal, EXIT_BLOCKED when refused."""
    if yes:
        say(tr(lang, "已通过 --yes 批准计划（检查照常进行）。", "Plan approved by --yes (checks still ran)."))
        return EXIT_OK
    if not sys.stdin.isatty():
        say(tr(lang, "计划等待批准：在终端中运行以确认，或加 --yes 批准。",
               "Plan awaiting approval: run on a terminal to confirm, or add --yes."))
        return EXIT_PLAN_PENDING
    answer = input(tr(lang, "开始执行？[y/N] ", "Start? [y/N] ")).strip().casefold()
    if answer in ("y", "yes", "是", "好", "确认", "开始"):
        return EXIT_OK
    say(tr(lang, "已拒绝，未执行任何操作。", "Declined; nothing was run."))
    return EXIT_BLOCKED


def call_cancellable(fn: Callable[[], T], cancel_event: threading.Event, *, keep_result: bool = False) -> T:
    """Run ``fn`` in a worker thread so Ctrl-C sets ``cancel_event`` instead of killing mid-step.

    Args:
        fn: the work; cancel_event: the session's cancel event the work watches.
        keep_result: after a Ctrl-C, wait for ``fn`` to finish and return its result (a run
            reports its partial results) instead of raising Aborted.

    Raises:
        Aborted: Ctrl-C was pressed (and ``keep_result`` is False or ``fn`` did not finish).
    """
    import threading

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as error:  # re-raised in the calling thread
            box["error"] = error

    worker = threading.Thread(target=target, name="localagent-work", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        cancel_event.set()
        worker.join(30)
        if keep_result and "value" in box:
            return box["value"]
        raise Aborted("已取消。", "Cancelled.") from None
    if "error" in box:
        raise box["error"]
    return box["value"]


def _show_metrics(settings: Any, lang: str, workspace: str | None) -> int:
    from pathlib import Path

    from localagent.safety.security_metrics import SecurityMetrics
    from localagent.workspace.layout import prepare_workspace

    layout = prepare_workspace(Path(workspace or settings.workspace), create_missing=False)
    SecurityMetrics.load(layout.logs / "security_metrics.json").print_summary()
    return EXIT_OK


def _setup_logging(logs_dir: Any) -> None:
    """Send LocalAgent's log lines (seed 001 §14: no keys, no contents) to ``logs/localagent.log``.

    The file is opened on the first line written, and lines are dropped while ``logs/`` does not
    exist (a project folder used only for workspace actions gets no ``logs/`` of ours).
    """
    import logging

    logger = logging.getLogger("localagent")
    if logger.handlers:
        return
    handler = logging.FileHandler(logs_dir / "localagent.log", encoding="utf-8", delay=True)
    handler.addFilter(lambda record: logs_dir.is_dir())
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def _print_error(error: LocalAgentError, lang: str, args: argparse.Namespace) -> None:
    if args.output_format == "json":
        import json

        from localagent.ui.render import outcome_json

        print(json.dumps(outcome_json(None, error=error, exit_code=error.exit_code, lang=lang), ensure_ascii=False))
    print(error.message(lang), file=sys.stderr)
    if args.debug:
        import traceback

        traceback.print_exception(error)
