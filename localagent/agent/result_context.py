"""The last result list of the workspace conversation and its ordinals (seed 001 §11, §15 对话上下文).

After a search, a text search or a listing, "打开第一个", "读取第二个", "最后一个",
"第 3 个", "the second one" refer to that list. The list expires after a
workspace change (the controller calls :meth:`ResultContext.clear`) or after
:data:`DEFAULT_MAX_IDLE_TURNS` turns without use; then the user is asked to
search again ("上下文已过期，请重新搜索"). :func:`parse_ordinal` reads an
ordinal phrase; the table is data.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from localagent.i18n import counted, tr
from localagent.tools.types import WorkspaceFileInfo

DEFAULT_MAX_IDLE_TURNS = 3
LAST = -1

_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
                "eighth": 8, "ninth": 9, "tenth": 10, "last": LAST}
_ZH_ORDINAL = re.compile(r"^(倒数)?第\s*([0-9]+|[零一二两三四五六七八九十]+)\s*(?:个|项|条|行)?(?:文件|结果)?$")
_ZH_LAST = re.compile(r"^最后(?:一个|一项|一条)(?:文件|结果)?$")
_EN_ORDINAL = re.compile(r"^(?:the\s+)?(?:(\d+)(?:st|nd|rd|th)|(" + "|".join(_EN_ORDINALS) + r"))"
                         r"(?:\s+(?:one|file|result|item|match))?$", re.IGNORECASE)
_EN_NUMBER = re.compile(r"^(?:number|no\.?|#)\s*(\d+)$", re.IGNORECASE)


def _chinese_number(text: str) -> int | None:
    """Return the value of ``"3"``, ``"三"``, ``"十二"``, ``"二十"`` (1–99), else None."""
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return _CN_DIGITS.get(text) if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    high = _CN_DIGITS.get(tens, -1) if tens else 1
    low = _CN_DIGITS.get(ones, -1) if ones else 0
    return None if high < 0 or low < 0 else high * 10 + low


def parse_ordinal(text: str) -> int | None:
    """Read an ordinal phrase (seed 001 §15: "第一个", "第二个").

    Args:
        text: the phrase alone, e.g. ``"第一个"``, ``"第 3 个"``, ``"最后一个"``,
            ``"倒数第二个"``, ``"the second one"``, ``"the last one"``, ``"3rd"``.

    Returns:
        The 1-based position, a negative position counted from the end
        (``-1`` = last, ``-2`` = the one before), or ``None`` when ``text`` is
        not an ordinal (or is ``第零个``).
    """
    phrase = unicodedata.normalize("NFKC", text).strip()
    if _ZH_LAST.match(phrase):
        return LAST
    found = _ZH_ORDINAL.match(phrase)
    if found:
        number = _chinese_number(found.group(2))
        if not number:
            return None
        return -number if found.group(1) else number
    found = _EN_ORDINAL.match(phrase) or _EN_NUMBER.match(phrase)
    if found is None:
        return None
    if found.group(1):
        return int(found.group(1)) or None
    return _EN_ORDINALS[found.group(2).casefold()]


@dataclass(frozen=True)
class ContextMiss:
    """Why an ordinal could not be resolved; ``message(lang)`` is shown to the user."""

    zh: str
    en: str

    def message(self, lang: str) -> str:
        """Return the reason in ``lang``."""
        return tr(lang, self.zh, self.en)


class ResultContext:
    """The last file list and the turn it was last used (seed 001 §15: 上下文过期后要求用户重新选择).

    Args:
        max_idle_turns: turns without use after which the list expires (default 3).
    """

    def __init__(self, max_idle_turns: int = DEFAULT_MAX_IDLE_TURNS) -> None:
        self.max_idle_turns = max(0, max_idle_turns)
        self._files: tuple[WorkspaceFileInfo, ...] = ()
        self._turn = 0
        self._last_used = 0
        self._expired = False

    def tick(self) -> None:
        """Count one user turn (the controller calls this once per message)."""
        self._turn += 1

    def remember(self, files: tuple[WorkspaceFileInfo, ...] | list[WorkspaceFileInfo]) -> None:
        """Replace the list with ``files`` (a search or listing result, in display order)."""
        self._files = tuple(files)
        self._last_used = self._turn
        self._expired = False

    def clear(self, *, expired: bool = True) -> None:
        """Forget the list (a workspace change). With ``expired`` a later ordinal says so."""
        had = bool(self._files)
        self._files = ()
        self._expired = expired and (had or self._expired)

    def files(self) -> tuple[WorkspaceFileInfo, ...]:
        """Return the live list and mark it used; ``()`` when empty or expired."""
        if self._is_stale():
            self.clear()
            return ()
        if self._files:
            self._last_used = self._turn
        return self._files

    def peek(self) -> tuple[WorkspaceFileInfo, ...]:
        """Return the live list without marking it used (for display)."""
        return () if self._is_stale() else self._files

    def resolve(self, ordinal: int) -> WorkspaceFileInfo | ContextMiss:
        """Return the file an ordinal names, or why not.

        Args:
            ordinal: 1-based position, or negative from the end (``-1`` = last).

        Returns:
            The :class:`WorkspaceFileInfo`, or a :class:`ContextMiss`: expired
            ("上下文已过期，请重新搜索"), no list yet, or the position is beyond the list.
        """
        was_expired = self._expired or (self._files and self._is_stale())
        files = self.files()
        if not files:
            if was_expired:
                return ContextMiss("上下文已过期，请重新搜索。", "The previous results have expired; please search again.")
            return ContextMiss("还没有可以引用的结果列表，请先搜索或列出文件。",
                               "There is no result list to refer to yet; search or list files first.")
        index = ordinal - 1 if ordinal > 0 else len(files) + ordinal
        if ordinal == 0 or not 0 <= index < len(files):
            return ContextMiss(f"上一轮结果只有 {len(files)} 项，没有第 {abs(ordinal)} 个。",
                               f"The last results have only {counted(len(files), 'item')}; there is no item {abs(ordinal)}.")
        return files[index]

    def _is_stale(self) -> bool:
        return bool(self._files) and self._turn - self._last_used > self.max_idle_turns
