"""Workspace parts of the desktop window (issue 3 §4; seed 001 §9–§11, §8.3).

:class:`WorkspaceBar` shows the current folder with a 选择工作区 / Choose…
button. :class:`ResultList` is the numbered list that "打开第N个" refers to; a
double-click sends that sentence through the controller. :class:`ConfirmDialog`
shows a pending action plan — action, path, risk, warnings — and, for a strong
confirmation (move, folder delete), asks the user to type the file name first.
Widgets only: the app decides what happens on each answer.
"""

from __future__ import annotations

import tkinter as tk
from pathlib import PurePosixPath
from tkinter import filedialog, ttk
from typing import TYPE_CHECKING, Any, Callable

from localagent.errors import LocalAgentError
from localagent.i18n import tr

if TYPE_CHECKING:
    from localagent.agent.session import Session

RISK_COLOURS = {"ReadOnly": "#1e7b34", "Low": "#1e7b34", "Medium": "#b9770e", "High": "#c0392b",
                "Dangerous": "#c0392b"}


class WorkspaceBar(ttk.Frame):
    """The line naming the workspace folder, with the Choose… button.

    Args:
        master: parent; lang: ``"zh"``/``"en"``; on_choose: called when the button is pressed.
    """

    def __init__(self, master: tk.Misc, lang: str, on_choose: Callable[[], object]) -> None:
        super().__init__(master, padding=(8, 0, 8, 4))
        self._lang = lang
        self.path_label = ttk.Label(self, text="", anchor=tk.W)
        self.path_label.pack(side=tk.LEFT, fill=tk.X, expand=True)
        self.choose_button = ttk.Button(self, text=tr(lang, "选择工作区", "Choose…"), command=on_choose)
        self.choose_button.pack(side=tk.RIGHT)

    def set_path(self, path: object) -> None:
        """Show ``path`` as the current workspace."""
        self.path_label.configure(text=tr(self._lang, f"工作区：{path}", f"Workspace: {path}"))

    def set_enabled(self, enabled: bool) -> None:
        """Enable or disable the Choose… button (disabled while a job runs)."""
        self.choose_button.configure(state=tk.NORMAL if enabled else tk.DISABLED)


class ResultList(ttk.Frame):
    """The numbered result list of the last search or listing (seed 001 §11).

    Args:
        master: parent; lang: ``"zh"``/``"en"``.
        on_open: called with the 1-based position of a double-clicked row.
    """

    def __init__(self, master: tk.Misc, lang: str, on_open: Callable[[int], object]) -> None:
        super().__init__(master, padding=(0, 4, 0, 0))
        self._on_open = on_open
        ttk.Label(self, text=tr(lang, "结果列表（双击打开）", "Results (double-click to open)")).pack(anchor=tk.W)
        body = ttk.Frame(self)
        body.pack(fill=tk.BOTH, expand=True)
        self.listbox = tk.Listbox(body, height=5, activestyle=tk.DOTBOX, exportselection=False)
        scroll = ttk.Scrollbar(body, orient=tk.VERTICAL, command=self.listbox.yview)
        self.listbox.configure(yscrollcommand=scroll.set)
        self.listbox.pack(side=tk.LEFT, fill=tk.BOTH, expand=True)
        scroll.pack(side=tk.RIGHT, fill=tk.Y)
        self.listbox.bind("<Double-Button-1>", self._double_click)
        self.listbox.bind("<Return>", self._double_click)

    def show(self, rows: list[str]) -> None:
        """Replace the list by ``rows``, numbered from 1."""
        self.listbox.delete(0, tk.END)
        for number, row in enumerate(rows, start=1):
            self.listbox.insert(tk.END, f"{number}. {row}")

    def rows(self) -> list[str]:
        """Return the rows as shown (with their numbers)."""
        return list(self.listbox.get(0, tk.END))

    def open_row(self, position: int) -> None:
        """Act as if row ``position`` (1-based) was double-clicked."""
        if 1 <= position <= self.listbox.size():
            self._on_open(position)

    def _double_click(self, _event: object) -> None:
        selection = self.listbox.curselection()
        if selection:
            self.open_row(int(selection[0]) + 1)


def result_rows(result: Any) -> list[str]:
    """Return the list rows of a WorkspaceToolResult: its files, else its text matches."""
    if result is None:
        return []
    files = list(getattr(result, "files", ()) or ())
    if files:
        return [f"{f.relative_path}{'/' if f.is_directory else ''}" for f in files]
    return [f"{m.path}:{m.line}  {m.snippet.strip()[:120]}" for m in getattr(result, "matches", ()) or ()]


def plan_name_to_type(plan: Any) -> str:
    """Return the file name a strong confirmation asks for: the last part of the source (or target) path."""
    path = getattr(plan, "relative_source_path", "") or getattr(plan, "relative_target_path", "")
    return PurePosixPath(str(path).replace("\\", "/")).name


class ConfirmDialog(tk.Toplevel):
    """A modal-looking, non-blocking confirmation of a pending action plan (seed 001 §8.3).

    Shows the action, the path(s), the risk and the warnings. With
    ``plan.strong_confirmation`` the Confirm button stays disabled until the user
    has typed the file name. The dialog never blocks the event loop, so tests
    drive it through :meth:`answer` and :attr:`name_entry`.

    Args:
        master: the main window; plan: a WorkspaceActionPlan; lang: ``"zh"``/``"en"``;
        font: optional font; on_answer: called once with True (confirm) or False.
    """

    def __init__(self, master: tk.Misc, plan: Any, lang: str, on_answer: Callable[[bool], object],
                 font: object = None) -> None:
        super().__init__(master, padx=14, pady=12)
        self.title(tr(lang, "确认操作", "Confirm action"))
        self.transient(master)  # type: ignore[arg-type]
        self._on_answer = on_answer
        self._answered = False
        self.expected_name = plan_name_to_type(plan) if getattr(plan, "strong_confirmation", False) else ""
        self._rows(plan, lang, font)
        self.name_entry: ttk.Entry | None = None
        if self.expected_name:
            self._strong_row(lang)
        self._buttons(lang)
        self.protocol("WM_DELETE_WINDOW", lambda: self.answer(False))
        self._try_grab()

    def _rows(self, plan: Any, lang: str, font: object) -> None:
        risk = getattr(plan, "risk", None)
        risk_label = getattr(risk, "label", str(risk))
        risk_text = tr(lang, f"{getattr(risk, 'label_zh', risk_label)}（{risk_label}）", risk_label)
        kind = getattr(getattr(plan, "type", None), "value", str(getattr(plan, "type", "")))
        path = plan.relative_source_path or plan.relative_target_path or "."
        if plan.relative_source_path and plan.relative_target_path:
            path = f"{plan.relative_source_path} → {plan.relative_target_path}"
        rows = [(tr(lang, "操作", "Action"), plan.title or kind, None), (tr(lang, "路径", "Path"), path, None),
                (tr(lang, "风险", "Risk"), risk_text, RISK_COLOURS.get(risk_label))]
        if plan.description:
            rows.append((tr(lang, "说明", "Details"), plan.description, None))
        rows.extend((tr(lang, "注意", "Warning"), warning, "#c0392b") for warning in plan.warnings)
        for row, (name, value, colour) in enumerate(rows):
            ttk.Label(self, text=name + "：" if lang != "en" else name + ":").grid(row=row, column=0, sticky=tk.NW)
            label = ttk.Label(self, text=value, wraplength=420, justify=tk.LEFT, font=font)
            if colour:
                label.configure(foreground=colour)
            label.grid(row=row, column=1, sticky=tk.W, padx=(6, 0), pady=1)
        self._next_row = len(rows)

    def _strong_row(self, lang: str) -> None:
        ttk.Label(self, text=tr(lang, f"这是高风险操作。请输入文件名 “{self.expected_name}” 以确认：",
                                f"High-risk action. Type the file name “{self.expected_name}” to confirm:"),
                  foreground="#c0392b", wraplength=480).grid(row=self._next_row, column=0, columnspan=2,
                                                             sticky=tk.W, pady=(8, 2))
        # No StringVar: a Tcl variable's finaliser may run on the worker thread's garbage collection.
        self.name_entry = ttk.Entry(self)
        self.name_entry.grid(row=self._next_row + 1, column=0, columnspan=2, sticky=tk.EW)
        self.name_entry.bind("<KeyRelease>", lambda _event: self._update_confirm())
        self.name_entry.focus_set()
        self._next_row += 2

    def _buttons(self, lang: str) -> None:
        bar = ttk.Frame(self)
        bar.grid(row=self._next_row, column=0, columnspan=2, sticky=tk.E, pady=(12, 0))
        self.confirm_button = ttk.Button(bar, text=tr(lang, "确认", "Confirm"), command=lambda: self.answer(True))
        self.cancel_button = ttk.Button(bar, text=tr(lang, "取消", "Cancel"), command=lambda: self.answer(False))
        self.confirm_button.pack(side=tk.LEFT, padx=(0, 6))
        self.cancel_button.pack(side=tk.LEFT)
        self._update_confirm()

    def type_name(self, text: str) -> None:
        """Replace the typed name by ``text`` (as the user would type it) and update the Confirm button."""
        if self.name_entry is not None:
            self.name_entry.delete(0, tk.END)
            self.name_entry.insert(0, text)
        self._update_confirm()

    def name_matches(self) -> bool:
        """Return True when no name is asked for or the typed name equals it exactly."""
        if not self.expected_name:
            return True
        return self.name_entry is not None and self.name_entry.get().strip() == self.expected_name

    def _update_confirm(self) -> None:
        self.confirm_button.configure(state=tk.NORMAL if self.name_matches() else tk.DISABLED)

    def answer(self, confirmed: bool) -> None:
        """Close the dialog and report the answer once; a confirm without the typed name counts as no."""
        if self._answered:
            return
        self._answered = True
        confirmed = confirmed and self.name_matches()
        try:
            self.grab_release()
        except tk.TclError:
            pass
        self.destroy()
        self._on_answer(confirmed)

    def _try_grab(self) -> None:
        self.update_idletasks()
        master = self.master
        x = master.winfo_rootx() + max(0, (master.winfo_width() - self.winfo_reqwidth()) // 2)
        y = master.winfo_rooty() + max(0, (master.winfo_height() - self.winfo_reqheight()) // 3)
        self.geometry(f"+{x}+{y}")  # over the main window, not in a screen corner
        try:
            self.grab_set()
        except tk.TclError:  # not viewable yet (e.g. under some window managers): stay non-modal
            pass


class WorkspaceActionsMixin:
    """The workspace side of :class:`~localagent.ui.app.LocalAgentApp` (issue 3 §4).

    The picker, the result list's "打开第N个", the folder buttons, the confirmation
    dialog's answer and the rendering of workspace outcomes. Mixed into the app,
    it uses the app's ``session``, ``lang``, ``output``, ``results``, ``workspace_bar``,
    ``launcher``, ``busy``, ``submit``, ``_run``, ``_switch``, ``_status`` and ``_show_error``.
    """

    def open_result(self, position: int) -> bool:
        """Open row ``position`` (1-based) of the result list: send "打开第N个" through the controller."""
        return self.submit(f"打开第{position}个")

    def choose_workspace(self) -> None:
        """Ask for a folder (Choose… button) and switch the workspace to it."""
        if self.busy:
            return
        folder = filedialog.askdirectory(parent=self.root, initialdir=str(self.session.layout.root), mustexist=True,
                                         title=tr(self.lang, "选择工作区", "Choose a workspace"))
        if folder:
            self.open_workspace(folder)

    def open_workspace(self, folder: str) -> bool:
        """Build a session for ``folder`` in the worker; a refused folder shows the policy's reason in red."""
        from localagent.agent.session import build_session

        if self.busy:
            return False
        settings, lang = self.session.settings, self.lang
        return self._run("workspace", lambda: build_session(settings, lang=lang, workspace=folder,
                                                            create_missing=False, on_event=self.post_event))

    def open_folder(self, kind: str) -> None:
        """Open the workspace's ``input``, ``output`` or ``logs`` folder with the open-directory tool (Low risk)."""
        from localagent.tools.open_tools import open_directory
        from localagent.tools.types import ToolContext
        from localagent.workspace.layout import ensure_subfolders
        from localagent.workspace.policy import AccessPolicy

        try:
            layout = self.session.layout = ensure_subfolders(self.session.layout)  # "put files in input" needs it
            ctx = ToolContext(policy=AccessPolicy(layout.root), lang=self.lang,
                              extra={"launcher": self.launcher} if self.launcher else {})
            result = open_directory(ctx, str(getattr(layout, kind)))
        except LocalAgentError as error:
            self._show_error(error, "open")
            return
        self._status(result.message or result.error_message)
        if not result.success:
            self.output.append(result.message or result.error_message, "error")

    def answer_plan(self, confirmed: bool) -> None:
        """Run (yes) or drop (no) the controller's pending plan; called by the confirmation dialog."""
        self.confirm_dialog = None
        controller = self.session.controller
        if controller is None:
            return
        if confirmed:
            self._run("action", controller.confirm_pending_plan)
            return
        self._show_action(controller.cancel_pending_plan())

    def _show_action(self, action: Any) -> None:
        if action is None:
            return
        self.last_action = action
        result = action.result
        bad = action.status in ("failed", "refused")
        tag = "error" if bad else ("ok" if action.status == "done" else "status")
        message = action.message or (result.message if result is not None else "")
        if message:
            self.output.append(message, tag)
        if result is not None and result.message and result.message != message:
            self.output.append(result.message, tag)
        rows = result_rows(result)
        if rows:
            self.results.show(rows)  # the list "打开第N个" refers to; not repeated in the output
        elif result is not None and result.output_text:
            self.output.append(result.output_text)
        controller = self.session.controller
        if action.status == "pending" and controller is not None and controller.has_pending_plan():
            self.confirm_dialog = ConfirmDialog(self.root, controller.pending_plan(), self.lang, self.answer_plan,
                                                font=self.font)
        elif controller is not None and controller.workspace_root() not in ("", str(self.session.layout.root)):
            self.open_workspace(controller.workspace_root())  # "切换工作区 …" changed the controller's folder

    def _use_session(self, session: "Session") -> None:
        self.session = session
        self.last_task = None
        self.results.show([])
        self.workspace_bar.set_path(session.layout.root)
        self._switch("chat")
        self.output.append(tr(self.lang, f"已切换工作区：{session.layout.root}",
                              f"Workspace switched to {session.layout.root}"), "ok")
        self._status(tr(self.lang, "就绪", "Ready"))
