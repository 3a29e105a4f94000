"""Pick the user-facing language and the text in it.

User-facing text is Chinese by default and English with ``--lang en`` or an
English locale (issue 2, "What a user can do"). Every message in LocalAgent is a
``(zh, en)`` pair; :func:`tr` picks one.
"""

from __future__ import annotations

import os

ZH = "zh"
EN = "en"


def detect_lang(explicit: str | None = None) -> str:
    """Return ``"zh"`` or ``"en"``.

    Args:
        explicit: a value from ``--lang`` or ``LOCALAGENT_LANG``; ``"en*"`` gives
            English, ``"zh*"`` Chinese, ``None``/empty falls back to the locale.

    Returns:
        ``"en"`` when asked for or when the locale (``LC_ALL``, ``LC_MESSAGES``,
        ``LANG``) is English; ``"zh"`` otherwise (the product is Chinese first).
    """
    if explicit:
        return EN if explicit.lower().startswith("en") else ZH
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return EN if value.lower().startswith("en") else ZH
    import locale

    try:
        loc = locale.getlocale()[0] or ""
    except ValueError:
        loc = ""
    return EN if loc.lower().startswith("en") else ZH


def tr(lang: str, zh: str, en: str) -> str:
    """Return ``en`` when ``lang`` is English, else ``zh``."""
    return en if lang == EN else zh


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """Return an English count with the noun in the right number: ``"1 file"``, ``"4 files"``.

    Args:
        count: the number shown. singular: the noun for one. plural: the noun for
            another count (default ``singular + "s"``).
    """
    return f"{count} {singular if count == 1 else (plural or singular + 's')}"
