"""The chat parts of the desktop window: the input bar on top and the output area (seed 000 "UI（Tkinter）").

:class:`InputBar` holds the sentence entry and the 发送 / Send button (Enter
sends). :class:`OutputArea` is the read-only scrolled text in the middle that
shows the user's sentences, chat answers (streamed, then replaced by the clean
answer), status lines and errors in red. Widgets only: no logic, no threads.
"""

from __future__ import annotations

import tkinter as tk
from tkinter import font as tkfont
from tkinter import scrolledtext, ttk
from typing import Callable

from localagent.i18n import tr

#: Text tags of the output area and their look.
TAG_STYLES = {
    "user": {"foreground": "#1f4e8c"},
    "answer": {},
    "status": {"foreground": "#666666"},
    "error": {"foreground": "#c0392b"},
    "ok": {"foreground": "#1e7b34"},
}
STREAM_MARK = "stream_start"
#: Families with CJK glyphs, best first (seed 000: the UI is Chinese).
CJK_FAMILIES = ("Microsoft YaHei", "Microsoft YaHei UI", "PingFang SC", "Noto Sans CJK SC", "Source Han Sans SC",
                "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Noto Sans SC", "SimHei")


def pick_font(root: tk.Misc) -> tkfont.Font:
    """Point Tk's named fonts at a CJK family when one is installed; return the text font.

    Returns:
        The named font ``TkTextFont`` (a proportional font, CJK when available).
    """
    families = set(tkfont.families(root))
    family = next((name for name in CJK_FAMILIES if name in families), None)
    names = ("TkDefaultFont", "TkTextFont", "TkMenuFont", "TkHeadingFont", "TkCaptionFont")
    for name in names:
        named = tkfont.nametofont(name, root=root)
        if family:
            named.configure(family=family)
        if abs(int(named.cget("size"))) < 10:
            named.configure(size=10)
    return tkfont.nametofont("TkTextFont", root=root)


class InputBar(ttk.Frame):
    """The sentence entry and the Send button.

    Args:
        master: parent widget; lang: ``"zh"``/``"en"``.
        on_send: called with the entry's text when Send is pressed or Enter typed.
    """

    def __init__(self, master: tk.Misc, lang: str, on_send: Callable[[str], object]) -> None:
        super().__init__(master, padding=(8, 8, 8, 4))
        self._on_send = on_send
        self.entry = ttk.Entry(self)
        self.entry.pack(side=tk.LEFT, fill=tk.X, expand=True, ipady=3)
        self.send_button = ttk.Button(self, text=tr(lang, "发送", "Send"), command=self._send)
        self.send_button.pack(side=tk.LEFT, padx=(6, 0))
        self.entry.bind("<Return>", lambda _event: self._send())

    def _send(self) -> None:
        if str(self.send_button.cget("state")) == tk.DISABLED:
            return
        self._on_send(self.entry.get())

    def clear(self) -> None:
        """Empty the entry."""
        self.entry.delete(0, tk.END)

    def set_enabled(self, enabled: bool) -> None:
        """Enable or disable the Send button (disabled while a job runs)."""
        self.send_button.configure(state=tk.NORMAL if enabled else tk.DISABLED)


class OutputArea(ttk.Frame):
    """Read-only scrolled text for answers, status lines and errors.

    Args:
        master: parent widget; font: the font for the text (a CJK one when available).
    """

    def __init__(self, master: tk.Misc, font: object = None) -> None:
        super().__init__(master)
        self.text = scrolledtext.ScrolledText(self, wrap=tk.WORD, height=18, state=tk.DISABLED,
                                              relief=tk.FLAT, padx=8, pady=6)
        if font is not None:
            self.text.configure(font=font)
        for tag, style in TAG_STYLES.items():
            self.text.tag_configure(tag, **style)
        self.text.pack(fill=tk.BOTH, expand=True)

    def append(self, line: str, tag: str = "answer") -> None:
        """Add ``line`` and a newline at the end with the text tag ``tag``; scroll to it."""
        self._insert(tk.END, line + "\n", tag)

    def begin_stream(self) -> None:
        """Remember where streamed answer text starts (see :meth:`end_stream`)."""
        self.text.mark_set(STREAM_MARK, "end-1c")
        self.text.mark_gravity(STREAM_MARK, tk.LEFT)

    def stream(self, piece: str) -> None:
        """Add a piece of streamed answer text without a newline."""
        self._insert(tk.END, piece, "answer")

    def end_stream(self, answer: str) -> None:
        """Replace the streamed text (which may hold reasoning blocks) by the clean ``answer``."""
        if STREAM_MARK in self.text.mark_names():
            self.text.configure(state=tk.NORMAL)
            self.text.delete(STREAM_MARK, "end-1c")
            self.text.configure(state=tk.DISABLED)
            self.text.mark_unset(STREAM_MARK)
        self.append(answer, "answer")

    def content(self) -> str:
        """Return all text shown (for tests and copy)."""
        return self.text.get("1.0", "end-1c")

    def tagged_text(self, tag: str) -> str:
        """Return the text shown with ``tag`` (e.g. ``"error"``: the red lines)."""
        ranges = self.text.tag_ranges(tag)
        return "".join(self.text.get(ranges[i], ranges[i + 1]) for i in range(0, len(ranges) - 1, 2))

    def _insert(self, index: str, text: str, tag: str) -> None:
        self.text.configure(state=tk.NORMAL)
        self.text.insert(index, text, (tag,))
        self.text.configure(state=tk.DISABLED)
        self.text.see(tk.END)
