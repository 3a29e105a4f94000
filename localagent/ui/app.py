"""The desktop window of LocalAgent (seed 000 "UI（Tkinter）最小可跑要求", "5) UI（小白引导式，方案 C）"; issue 2, 3 §4).

:class:`LocalAgentApp` wires the Tk widgets to a :class:`~localagent.agent.session.Session`.
Model calls, task runs, workspace actions and workspace switches run in one
worker thread at a time; the worker never touches Tk: it puts messages into a
``queue.Queue`` that the UI drains every 50 ms (``root.after``). While a job
runs, Send, Start and Choose… are disabled, the progress bar moves, and Cancel
sets ``session.cancel_event`` (a running task's process tree is killed and the
result says "cancelled"). Errors show their one-line message in red, never a
traceback. :func:`run_app` is what ``python main.py`` / ``localagent gui`` calls.
"""

from __future__ import annotations

import io
import logging
import queue
import sys
import threading
import time
import tkinter as tk
from tkinter import ttk
from typing import TYPE_CHECKING, Any, Callable

from localagent.errors import EXIT_CONFIG, EXIT_OK, Aborted, LocalAgentError
from localagent.events import Event, StepEvent, TextDelta
from localagent.i18n import tr
from localagent.ui import render
from localagent.ui.chat_view import InputBar, OutputArea, pick_font
from localagent.ui.task_guide_view import TaskGuideView
from localagent.ui.workspace_panel import ConfirmDialog, ResultList, WorkspaceActionsMixin, WorkspaceBar

if TYPE_CHECKING:
    from localagent.agent.session import Outcome, Session
    from localagent.agent.task import Task

POLL_MS = 50
CLOSE_WAIT_S = 15.0
_log = logging.getLogger("localagent.ui")


class LocalAgentApp(WorkspaceActionsMixin):
    """The main window: input bar, workspace line, chat output or task guide, status bar.

    Args:
        root: the Tk root window; session: a session from ``build_session``.

    Attributes (for tests and front-end state):
        view: ``"chat"`` or ``"task"``; busy: a job is running.
        last_outcome, last_task, last_action, last_error: what the last jobs produced.
        confirm_dialog: the open :class:`ConfirmDialog`, or None.
        launcher: replaces the system opener for the folder buttons (``launcher(argv)``), or None.
    """

    def __init__(self, root: tk.Tk, session: "Session") -> None:
        self.root, self.session, self.lang = root, session, session.lang
        self.view = "chat"
        self.busy = self.closed = False
        self.last_outcome: Outcome | None = None
        self.last_task: Task | None = None
        self.last_action: Any = None
        self.last_error: LocalAgentError | None = None
        self.confirm_dialog: ConfirmDialog | None = None
        self.launcher: Callable[[list[str]], None] | None = None
        self._queue: queue.Queue[tuple] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._streaming = self._closing = False
        self._close_deadline = 0.0
        self.font = pick_font(root)
        root.title("LocalAgent")
        root.geometry("900x720")
        root.minsize(640, 480)
        self._build()
        self._greet()
        root.protocol("WM_DELETE_WINDOW", self.close)
        self._after_id: str | None = root.after(POLL_MS, self._drain)
        threading.Thread(target=self._probe_isolation, name="localagent-isolation", daemon=True).start()

    @property
    def result_text(self) -> str:
        """The task guide's result text (status, counts, isolation, log path), ``""`` before a run."""
        return self.guide.result_text()

    # --- layout ----------------------------------------------------------------------------------

    def _build(self) -> None:
        lang, root = self.lang, self.root
        self.input_bar = InputBar(root, lang, self.submit)
        self.input_bar.pack(side=tk.TOP, fill=tk.X)
        self.workspace_bar = WorkspaceBar(root, lang, self.choose_workspace)
        self.workspace_bar.pack(side=tk.TOP, fill=tk.X)
        self.workspace_bar.set_path(self.session.layout.root)
        self._build_status_bar()
        self.content = ttk.Frame(root)
        self.content.pack(side=tk.TOP, fill=tk.BOTH, expand=True)
        self.chat_frame = ttk.Frame(self.content, padding=(8, 0, 8, 4))
        self.output = OutputArea(self.chat_frame, font=self.font)
        self.output.pack(side=tk.TOP, fill=tk.BOTH, expand=True)
        self.results = ResultList(self.chat_frame, lang, self.open_result)
        self.results.pack(side=tk.TOP, fill=tk.X)
        self.guide = TaskGuideView(self.content, lang, font=self.font, on_start=self.start_task,
                                   on_cancel=self.cancel, on_back=self.back, on_open_folder=self.open_folder)
        self._switch("chat")
        self.input_bar.entry.focus_set()

    def _build_status_bar(self) -> None:
        bar = ttk.Frame(self.root, padding=(8, 2, 8, 6))
        bar.pack(side=tk.BOTTOM, fill=tk.X)
        self.progress = ttk.Progressbar(bar, mode="determinate", length=140, value=0)
        self.progress.pack(side=tk.LEFT)
        self.status_label = ttk.Label(bar, text=tr(self.lang, "就绪", "Ready"), anchor=tk.W)
        self.status_label.pack(side=tk.LEFT, fill=tk.X, expand=True, padx=8)
        self.isolation_label = ttk.Label(bar, text="")
        self.isolation_label.pack(side=tk.RIGHT)
        self.stop_button = ttk.Button(bar, text=tr(self.lang, "取消", "Cancel"), command=self.cancel,
                                      state=tk.DISABLED)
        self.stop_button.pack(side=tk.RIGHT, padx=8)

    def _greet(self) -> None:
        self.output.append(tr(self.lang, "欢迎使用 LocalAgent。输入一句话：聊天，或让我处理 input 文件夹里的文件"
                              "（例如“把这个文件夹里的图片复制一份”）。",
                              "Welcome to LocalAgent. Type a sentence: chat, or ask me to process the files in "
                              "the input folder (e.g. “copy the images in this folder”)."), "status")
        if self.session.client is None:
            self.output.append(tr(self.lang, "未配置 LLM_API_KEY：只能执行内置的复制任务和工作区操作（见 .env.example）。",
                                  "No LLM_API_KEY: only built-in copy tasks and workspace actions work "
                                  "(see .env.example)."), "status")

    def _switch(self, view: str) -> None:
        shown, hidden = (self.chat_frame, self.guide) if view == "chat" else (self.guide, self.chat_frame)
        hidden.pack_forget()
        shown.pack(fill=tk.BOTH, expand=True)
        self.view = view

    # --- user actions ----------------------------------------------------------------------------

    def submit(self, sentence: str) -> bool:
        """Handle one sentence in the worker (chat answer, task guide or workspace action).

        Returns:
            True when a job started; False when busy or the sentence is empty or too long.
        """
        from localagent.agent.session import handle_sentence, validate_sentence

        if self.busy:
            return False
        try:
            text = validate_sentence(sentence, self.lang)
        except LocalAgentError as error:
            self.output.append(error.message(self.lang), "error")
            return False
        self.input_bar.clear()
        self._switch("chat")
        self.output.append(f"> {text}", "user")
        self._streaming = False
        session = self.session
        return self._run("sentence", lambda: handle_sentence(session, text, on_event=self.post_event))

    def start_task(self) -> bool:
        """Run the pending task shown in the guide (the user's yes). Returns True when it started."""
        from localagent.agent.task import run_task

        task, session = self.last_task, self.session
        if self.busy or task is None or task.status != "pending":
            return False
        self.guide.set_state(can_start=False, running=True)
        return self._run("run", lambda: run_task(session, task, cancel_event=session.cancel_event,
                                                 on_event=self.post_event))

    def cancel(self) -> None:
        """Cancel the running job, or decline the pending task shown in the guide."""
        if self.busy:
            self.session.cancel_event.set()
            self._status(tr(self.lang, "正在取消…", "Cancelling…"))
            return
        task = self.last_task
        if self.view == "task" and task is not None and task.status == "pending":
            task.status = "cancelled"
            task.message = tr(self.lang, "已取消，未执行任何操作。", "Cancelled; nothing was run.")
            self.guide.show_error(task.message)
            self.guide.set_state(can_start=False, running=False)
            self.output.append(task.message, "status")

    def back(self) -> None:
        """Leave the task guide for the chat view (not while a job runs)."""
        if not self.busy:
            self._switch("chat")

    # --- worker ----------------------------------------------------------------------------------

    def post_event(self, event: Event) -> None:
        """Queue a progress event for the UI thread (safe from any thread)."""
        self._queue.put(("event", event))

    def _run(self, kind: str, job: Callable[[], Any]) -> bool:
        """Start ``job`` in the worker thread; its result or error comes back through the queue."""
        if self.busy:
            return False
        self.session.cancel_event.clear()
        self._set_busy(True)

        def target() -> None:
            try:
                self._queue.put(("done", kind, job()))
            except LocalAgentError as error:
                self._queue.put(("error", kind, error))
            except Exception as error:  # never a traceback in the window; the log has it
                _log.exception("GUI job %s failed", kind)
                self._queue.put(("error", kind, error))

        self._worker = threading.Thread(target=target, name=f"localagent-{kind}", daemon=True)
        self._worker.start()
        return True

    def _probe_isolation(self) -> None:
        from localagent.executor.sandbox import best_isolation

        try:
            self._queue.put(("isolation", best_isolation()))
        except Exception:  # the label stays empty; a run reports the real isolation
            _log.exception("isolation probe failed")

    def _drain(self) -> None:
        try:
            while True:
                self._handle(self._queue.get_nowait())
        except queue.Empty:
            pass
        if not self._closing:
            self._after_id = self.root.after(POLL_MS, self._drain)

    def _handle(self, message: tuple) -> None:
        try:
            if message[0] == "event":
                self._on_event(message[1])
            elif message[0] == "isolation":
                self._show_isolation(message[1])
            elif message[0] == "done":
                self._set_busy(False)
                self._on_done(message[1], message[2])
            elif message[0] == "error":
                self._set_busy(False)
                self._show_error(message[2], message[1])
        except Exception as error:  # a rendering bug must not kill the window
            _log.exception("GUI message %s failed", message[0])
            self._show_error(error, "ui")

    def _on_done(self, kind: str, value: Any) -> None:
        if kind == "sentence":
            self._show_outcome(value)
        elif kind == "run":
            self._show_run(value)
        elif kind == "action":
            self._show_action(value)
        elif kind == "workspace":
            self._use_session(value)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Pump Tk events until no job runs and the queue is empty (tests). Returns False on timeout (seconds)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.root.update()
            worker_done = self._worker is None or not self._worker.is_alive()
            if not self.busy and worker_done and self._queue.empty():
                self.root.update()
                return True
            time.sleep(0.02)
        return False

    # --- rendering -------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            if not self._streaming:
                self.output.begin_stream()
                self._streaming = True
            self.output.stream(event.text)
            return
        if isinstance(event, StepEvent) and event.status == "started":
            self._status(f"{render.step_name(event.step, self.lang)}…")
            return
        buffer = io.StringIO()
        render.render_event(event, self.lang, buffer)
        for line in buffer.getvalue().splitlines():
            self._status(line.strip())
            if isinstance(event, StepEvent) and event.step == "intent":
                continue  # the outcome's 判定 line says it, with confidence and source
            if self.view == "task":
                self.guide.add_progress(line)
            else:
                self.output.append(line, "status")

    def _show_outcome(self, outcome: "Outcome") -> None:
        self.last_outcome = outcome
        reason = render.render_intent(outcome, self.lang)
        if outcome.kind == "chat":
            if self._streaming:
                self.output.end_stream(outcome.answer)
            else:
                self.output.append(outcome.answer)
            self._streaming = False
            self.output.append(reason, "status")
        elif outcome.kind == "workspace":
            self.output.append(reason, "status")
            self._show_action(outcome.action)
        else:
            self._show_task(reason, outcome.task)
        self._status(tr(self.lang, "就绪", "Ready"))

    def _show_task(self, reason: str, task: "Task | None") -> None:
        if task is None:
            return
        self.last_task = task
        self.output.append(reason, "status")
        self.output.append(tr(self.lang, f"任务 {task.id}：{render.status_name(task.status, self.lang)}，详见任务引导。",
                              f"Task {task.id}: {render.status_name(task.status, self.lang)}; see the task guide."),
                           "error" if task.status == "blocked" else "status")
        self.guide.show_task(reason, task, self.session.layout)
        self._switch("task")

    def _show_run(self, task: "Task") -> None:
        self.last_task = task
        self.guide.show_result(task)
        self.output.append(render.render_result(task, self.lang), "ok" if task.status == "success" else "error")
        self._show_isolation(task.isolation)
        self._status(f"{render.status_name(task.status, self.lang)} — {task.message}")

    def _show_error(self, error: BaseException, kind: str) -> None:
        if isinstance(error, LocalAgentError):
            self.last_error = error
            message = error.message(self.lang)
        else:
            message = tr(self.lang, f"内部错误（{type(error).__name__}），详情见 logs/localagent.log。",
                         f"Internal error ({type(error).__name__}); see logs/localagent.log.")
        self._streaming = False
        self.output.append(message, "status" if isinstance(error, Aborted) else "error")
        if kind == "run" or self.view == "task":
            self.guide.show_error(message)
            task = self.last_task
            self.guide.set_state(can_start=task is not None and task.status == "pending", running=False)
        self._status(message)

    def _show_isolation(self, isolation: str) -> None:
        if isolation:
            self.isolation_label.configure(text=tr(self.lang, f"隔离：{isolation}", f"Isolation: {isolation}"))

    def _status(self, text: str) -> None:
        self.status_label.configure(text=text[:200])

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.input_bar.set_enabled(not busy)
        self.workspace_bar.set_enabled(not busy)
        self.stop_button.configure(state=tk.NORMAL if busy else tk.DISABLED)
        if busy:
            self.progress.configure(mode="indeterminate")
            self.progress.start(12)
        else:
            self.progress.stop()
            self.progress.configure(mode="determinate", value=0)  # an empty bar when idle
        if self.view == "task" and busy:
            self.guide.set_state(can_start=False, running=True)

    # --- closing ---------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the window; a running job is cancelled first (waits up to 15 s for it)."""
        if self.busy:
            self.session.cancel_event.set()
        self._closing = True
        self._close_deadline = time.monotonic() + CLOSE_WAIT_S
        self._finish_close()

    def _finish_close(self) -> None:
        if self._worker is not None and self._worker.is_alive() and time.monotonic() < self._close_deadline:
            self.root.after(100, self._finish_close)
            return
        if self._after_id is not None:
            self.root.after_cancel(self._after_id)
        self.closed = True
        self.root.destroy()


class _EventRelay:
    """An event sink whose target is set once the window exists (retry events of the session's client)."""

    def __init__(self) -> None:
        self.sink: Callable[[Event], None] | None = None

    def __call__(self, event: Event) -> None:
        if self.sink is not None:
            self.sink(event)


def run_app(settings: Any, *, lang: str, workspace: str | None) -> int:
    """Open the desktop window and run it until closed (``python main.py``, ``localagent gui``).

    Args:
        settings: merged settings; lang: ``"zh"``/``"en"``; workspace: folder, or None for ``./workspace``.

    Returns:
        0 after the window is closed; 2 when there is no display or the workspace is refused
        (the reason is shown in a message box and printed).
    """
    from localagent.agent.session import build_session
    from localagent.ui.cli import _setup_logging

    try:
        root = tk.Tk(className="LocalAgent")
    except tk.TclError as error:
        print(tr(lang, f"无法打开窗口（{error}）。没有图形界面时请用命令行：localagent -p \"…\"",
                 f"Cannot open a window ({error}). Without a display use the command line: localagent -p \"…\""),
              file=sys.stderr)
        return EXIT_CONFIG
    relay = _EventRelay()
    try:
        session = build_session(settings, lang=lang, workspace=workspace, create_missing=workspace is None,
                                on_event=relay)
    except LocalAgentError as error:
        from tkinter import messagebox

        print(error.message(lang), file=sys.stderr)
        root.withdraw()
        messagebox.showerror("LocalAgent", error.message(lang), parent=root)
        root.destroy()
        return error.exit_code
    _setup_logging(session.layout.logs)
    app = LocalAgentApp(root, session)
    relay.sink = app.post_event
    root.mainloop()
    return EXIT_OK
