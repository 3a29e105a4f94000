"""The interactive line mode: ``localagent`` with no arguments on a terminal (issue 2).

Each line is one sentence: chat answers print, tasks show their plan and ask
``y/N`` before running. ``exit``/``quit``/``退出`` or Ctrl-D leaves; Ctrl-C
cancels what is running (or drops the typed line) and returns to the prompt.
"""

from __future__ import annotations

import sys
from typing import Any

from localagent.errors import EXIT_OK, Aborted, LocalAgentError
from localagent.i18n import tr

_QUIT = {"exit", "quit", "q", "退出", "再见", ":q"}


def run_repl(settings: Any, *, lang: str, workspace: str | None) -> int:
    """Read sentences until the user leaves; return the exit code (0, or 2 on a bad workspace)."""
    from localagent.agent.session import build_session, handle_sentence
    from localagent.ui.cli import _finish_outcome, _setup_logging, call_cancellable
    from localagent.ui.render import render_event

    session = build_session(settings, lang=lang, workspace=workspace, create_missing=workspace is None,
                            on_event=lambda e: render_event(e, lang, sys.stderr))
    _setup_logging(session.layout.logs)
    print(tr(lang, f"LocalAgent 工作区：{session.layout.root}（输入 exit 退出）",
             f"LocalAgent workspace: {session.layout.root} (type exit to leave)"))
    if session.client is None:
        print(tr(lang, "未配置 LLM_API_KEY：只能执行内置的复制任务和工作区操作。",
                 "No LLM_API_KEY: only built-in copy tasks and workspace actions work."))
    while True:
        try:
            line = input("> ")
        except EOFError:  # Ctrl-D leaves
            print()
            return EXIT_OK
        except KeyboardInterrupt:  # Ctrl-C at the prompt drops the line, as shells do
            print()
            continue
        if line.strip().casefold() in _QUIT:
            return EXIT_OK
        if not line.strip():
            continue
        session.cancel_event.clear()
        try:
            outcome = call_cancellable(
                lambda text=line: handle_sentence(session, text, on_event=lambda e: render_event(e, lang, sys.stderr)),
                session.cancel_event)
            _finish_outcome(session, outcome, yes=False, as_json=False)
        except (Aborted, KeyboardInterrupt):  # Ctrl-C during a step or at a y/N question
            print(tr(lang, "已取消。", "Cancelled."))
        except LocalAgentError as error:
            print(error.message(lang))
