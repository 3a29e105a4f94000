"""The task guide view of the desktop window (seed 000 "5) UI（小白引导式，方案 C）", issue 2).

Shown when a sentence is classified as execution: the reason for the
classification, the three steps (1 把文件复制到 input → 2 我来处理 → 3 去 output 取)
with the real folders and buttons that open them, the plan, the risks, the
checks line, the violation details in red when a check blocked the task (seed
000: "向用户展示违规详情"), the run's progress, and afterwards the result:
status, files succeeded and failed, isolation and log path. The text comes from
:mod:`localagent.ui.render`; this module only lays it out.
"""

from __future__ import annotations

import tkinter as tk
from tkinter import font as tkfont
from tkinter import scrolledtext, ttk
from typing import TYPE_CHECKING, Any, Callable

from localagent.i18n import tr
from localagent.ui.render import render_plan_body, render_result

if TYPE_CHECKING:
    from localagent.agent.task import Task

RED = "#c0392b"
STATUS_COLOURS = {"success": "#1e7b34", "partial": "#b9770e", "failed": RED, "blocked": RED,
                  "cancelled": "#b9770e", "pending": "#333333"}


def plan_text(task: "Task", lang: str) -> str:
    """Return the plan block: plan, risks, the checks line and the code file (seed 000 step 5)."""
    return render_plan_body(task, lang)


def violation_text(task: "Task", lang: str) -> str:
    """Return the violation details of a blocked task, one per line (empty when not blocked)."""
    if task.status != "blocked":
        return ""
    lines = [tr(lang, "安全检查未通过，任务已终止，没有执行任何代码：", "Blocked by a safety check; nothing ran:")]
    report = task.rule_report
    if report is not None and not report.passed:
        lines.extend(f"  • {message}" for message in report.messages(lang))
    elif task.review is not None and not task.review.passed:
        lines.append(tr(lang, f"  • 模型审查：{task.review.reason}", f"  • Review: {task.review.reason}"))
    else:
        lines.append(f"  • {task.message}")
    return "\n".join(lines)


class TaskGuideView(ttk.Frame):
    """The guide for one task: steps, plan, checks, Start / Cancel / Back, progress and result.

    Args:
        master: parent; lang: ``"zh"``/``"en"``; font: text font (CJK when available).
        on_start, on_cancel, on_back: button callbacks.
        on_open_folder: called with ``"input"``, ``"output"`` or ``"logs"``.
    """

    def __init__(self, master: tk.Misc, lang: str, *, font: Any = None, on_start: Callable[[], object],
                 on_cancel: Callable[[], object], on_back: Callable[[], object],
                 on_open_folder: Callable[[str], object]) -> None:
        super().__init__(master, padding=(8, 4, 8, 4))
        self.lang = lang
        self._font = font
        self._open = on_open_folder
        bold = tkfont.Font(self, font=font or "TkDefaultFont")
        bold.configure(weight="bold")
        self._bold = bold
        ttk.Label(self, text=tr(lang, "任务引导", "Task guide"), font=bold).pack(anchor=tk.W)
        self.reason_label = ttk.Label(self, text="", wraplength=760, justify=tk.LEFT)
        self.reason_label.pack(anchor=tk.W, fill=tk.X, pady=(2, 6))
        self._build_steps()
        self.plan_box = self._text_box(height=12)
        self.violation_label = ttk.Label(self, text="", foreground=RED, wraplength=760, justify=tk.LEFT)
        self.violation_label.pack(anchor=tk.W, fill=tk.X)
        self._build_buttons(on_start, on_cancel, on_back)
        ttk.Label(self, text=tr(lang, "执行过程：", "Progress:")).pack(anchor=tk.W)
        self.progress_box = self._text_box(height=6, expand=False)
        self._build_result()

    def _text_box(self, height: int, *, expand: bool = True) -> scrolledtext.ScrolledText:
        box = scrolledtext.ScrolledText(self, wrap=tk.WORD, height=height, state=tk.DISABLED, relief=tk.FLAT,
                                        padx=6, pady=4)
        if self._font is not None:
            box.configure(font=self._font)
        box.tag_configure("error", foreground=RED)
        box.tag_configure("status", foreground="#666666")
        box.pack(fill=tk.BOTH, expand=expand, pady=(0, 4))
        return box

    def _build_steps(self) -> None:
        lang = self.lang
        frame = ttk.LabelFrame(self, text=tr(lang, "三步引导", "Three steps"), padding=(8, 4))
        frame.pack(fill=tk.X, pady=(0, 6))
        frame.columnconfigure(1, weight=1)
        texts = [tr(lang, "1  把文件复制到 input", "1  Copy your files into input"),
                 tr(lang, "2  我来处理（沙箱中运行，不联网，原文件不变）",
                    "2  I process them (in a sandbox, no network, originals unchanged)"),
                 tr(lang, "3  去 output 取结果", "3  Take the results from output")]
        self.step_labels: list[ttk.Label] = []
        self.path_labels: dict[str, ttk.Label] = {}
        for row, text in enumerate(texts):
            label = ttk.Label(frame, text=text, font=self._bold)
            label.grid(row=row, column=0, sticky=tk.W, pady=2)
            self.step_labels.append(label)
        for row, kind in ((0, "input"), (2, "output")):
            self.path_labels[kind] = ttk.Label(frame, text="", foreground="#1f4e8c")
            self.path_labels[kind].grid(row=row, column=1, sticky=tk.W, padx=8)
            ttk.Button(frame, text=tr(lang, f"打开 {kind} 文件夹", f"Open {kind} folder"),
                       command=lambda k=kind: self._open(k)).grid(row=row, column=2, sticky=tk.E)

    def _build_buttons(self, on_start: Callable[[], object], on_cancel: Callable[[], object],
                       on_back: Callable[[], object]) -> None:
        lang = self.lang
        bar = ttk.Frame(self)
        bar.pack(fill=tk.X, pady=(4, 6))
        self.start_button = ttk.Button(bar, text=tr(lang, "开始执行", "Start"), command=on_start)
        self.cancel_button = ttk.Button(bar, text=tr(lang, "取消", "Cancel"), command=on_cancel)
        self.back_button = ttk.Button(bar, text=tr(lang, "返回", "Back"), command=on_back)
        self.start_button.pack(side=tk.LEFT)
        self.cancel_button.pack(side=tk.LEFT, padx=6)
        self.back_button.pack(side=tk.LEFT)

    def _build_result(self) -> None:
        lang = self.lang
        frame = ttk.Frame(self)
        frame.pack(fill=tk.X)
        self.result_label = ttk.Label(frame, text="", wraplength=600, justify=tk.LEFT, font=self._bold)
        self.result_label.pack(side=tk.LEFT, fill=tk.X, expand=True)
        self.logs_button = ttk.Button(frame, text=tr(lang, "打开日志文件夹", "Open logs folder"),
                                      command=lambda: self._open("logs"))
        self.output_button = ttk.Button(frame, text=tr(lang, "打开 output 文件夹", "Open output folder"),
                                        command=lambda: self._open("output"))

    def show_task(self, reason: str, task: "Task", layout: Any) -> None:
        """Fill the view for a freshly prepared task (pending or blocked) and clear old progress."""
        self.reason_label.configure(text=reason)
        self.path_labels["input"].configure(text=str(layout.input))
        self.path_labels["output"].configure(text=str(layout.output))
        _set_text(self.plan_box, plan_text(task, self.lang))
        self.violation_label.configure(text=violation_text(task, self.lang))
        _set_text(self.progress_box, "")
        self.result_label.configure(text="")
        self.logs_button.pack_forget()
        self.output_button.pack_forget()
        self.set_state(can_start=task.status == "pending", running=False)

    def set_state(self, *, can_start: bool, running: bool) -> None:
        """Enable Start only for a pending task when idle; Back only when idle; Cancel unless finished."""
        self.start_button.configure(state=tk.NORMAL if can_start and not running else tk.DISABLED)
        self.back_button.configure(state=tk.DISABLED if running else tk.NORMAL)
        self.cancel_button.configure(state=tk.NORMAL if running or can_start else tk.DISABLED)

    def add_progress(self, line: str, tag: str = "status") -> None:
        """Append one progress line (a step event or a line the task printed)."""
        box = self.progress_box
        box.configure(state=tk.NORMAL)
        box.insert(tk.END, line + "\n", (tag,))
        box.configure(state=tk.DISABLED)
        box.see(tk.END)

    def show_result(self, task: "Task") -> None:
        """Show the outcome: status, counts, isolation and log path, with the folder buttons."""
        self.result_label.configure(text=render_result(task, self.lang),
                                    foreground=STATUS_COLOURS.get(task.status, RED))
        self.output_button.pack(side=tk.RIGHT, padx=(6, 0))
        self.logs_button.pack(side=tk.RIGHT)
        self.set_state(can_start=False, running=False)

    def show_error(self, message: str) -> None:
        """Show an error line in red where the result goes."""
        self.result_label.configure(text=message, foreground=RED)
        self.add_progress(message, "error")

    def result_text(self) -> str:
        """Return the result label's text (for tests)."""
        return str(self.result_label.cget("text"))

    def plan_content(self) -> str:
        """Return the plan block as shown (for tests)."""
        return self.plan_box.get("1.0", "end-1c")


def _set_text(box: scrolledtext.ScrolledText, text: str) -> None:
    box.configure(state=tk.NORMAL)
    box.delete("1.0", tk.END)
    box.insert("1.0", text)
    box.configure(state=tk.DISABLED)
