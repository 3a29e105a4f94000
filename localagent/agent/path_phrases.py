"""Read the path phrase of a workspace sentence (seed 001 §12; issue 3 §4 file names).

A path phrase is what follows the verb: "README.md", "文件 a.txt", "说明 文件.txt", "the file my
notes.md", "第二个". :func:`read_path` cleans it into a :class:`PathRef`: the primary reading
(used when nothing matching exists), and every reading preferred first (the whole phrase, then
without a noun such as 文件/文件夹/folder, then shorter word splits for read-only kinds); the
controller uses the first reading that names something in the workspace. So "文件.txt" stays a
name, "文件 a.txt" is the noun 文件 before a name, and a name with spaces works unquoted when it
exists. Pure: no file system.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from localagent.agent.result_context import parse_ordinal

__all__ = ["ANCHOR_PREFIX", "GENERIC", "READ_ONLY_KINDS", "TAIL", "PathRef", "is_path_text", "new_name",
           "read_path", "unquote"]

_QUOTES = "\"'“”‘’「」『』《》`"
ANCHOR_PREFIX = re.compile(
    r"^(?:(?:这个|当前|该|本|此|整个)?(?:项目|工作区|仓库|文件夹|目录|代码)(?:里|中|内|下|里面)?的?"
    r"|(?:the\s+)?(?:file|folder|directory)\s+|文件夹|目录|文件)\s*", re.I)
TAIL = re.compile(r"\s*(?:这个)?(?:文件夹|目录|文件|里面|下面|里|中|内|下)$")
_KNOWN_DIRS = frozenset({"docs", "doc", "src", "source", "input", "output", "tests", "test", "assets", "images",
                         "img", "data", "scripts", "examples", "include", "lib", "bin", "res", "resources",
                         "config", "notes", "tmp", "temp", "backup", "backups"})
_SUFFIXED = re.compile(r"^[^/\\]*[^./\\]\.[A-Za-z0-9_+-]{1,12}$|^\.[\w.-]+$")
GENERIC = frozenset({"", "文件夹", "目录", "文件", "资源管理器", "文件管理器", "它", "这个", "那个", "一个",
                    "folder", "directory", "file", "files", "it", "this", "that", "explorer", "finder"})


_ARTICLE = re.compile(r"^(?:the|a|an|this|that|my|your)\s+", re.I)
_NOUN_ONLY = re.compile(r"^(?:文件夹|目录|文件)$")
_MAX_WORDS = 6  # a spaced path phrase longer than this is a sentence, not a name
READ_ONLY_KINDS = frozenset({"read", "open", "reveal", "list", "analyze"})


@dataclass(frozen=True)
class PathRef:
    """A cleaned path phrase: ``path`` (primary reading) or ``ordinal``; ``bare`` needs it to exist."""

    path: str = ""
    ordinal: int | None = None
    bare: bool = False
    alternatives: tuple[str, ...] = ()


def unquote(text: str) -> tuple[str, bool]:
    """Return ``(text without surrounding quotes, whether it was quoted)``."""
    text = text.strip()
    if len(text) >= 2 and text[0] in _QUOTES and text[-1] in _QUOTES:
        return text[1:-1].strip(), True
    return text, False


def _readings(whole: str, *, splits: bool) -> tuple[str, tuple[str, ...]]:
    """Return ``(primary, alternatives)`` of an unquoted path phrase.

    The primary reading drops a leading noun (文件/文件夹/目录/the file…) and a trailing one,
    except a bare noun glued to a suffix ("文件.txt" is a name, "文件 a.txt"/"文件a.txt" a noun
    before one). The alternatives, preferred first: the whole phrase, the noun-stripped
    readings, then (``splits``) the phrase without leading, then trailing, words.
    """
    head = ANCHOR_PREFIX.match(whole)
    rest = whole[head.end():] if head else whole
    noun_glued = head is not None and _NOUN_ONLY.match(head.group(0)) is not None and rest.startswith(".")
    no_head = whole if noun_glued else rest
    readings = [whole, rest, TAIL.sub("", whole).strip(), TAIL.sub("", rest).strip()]
    primary = TAIL.sub("", no_head).strip()
    words = whole.split()
    if splits and 1 < len(words) <= _MAX_WORDS:
        readings += [" ".join(words[i:]) for i in range(1, len(words))]
        readings += [" ".join(words[:i]) for i in range(len(words) - 1, 0, -1)]
    kept = [r for r in dict.fromkeys(readings)
            if r and _ARTICLE.sub("", r).casefold() not in GENERIC and not _has_marks(r)]
    return primary, tuple(kept)


def _has_marks(text: str) -> bool:
    return any(mark in text for mark in "*?\n")


def read_path(text: str, *, splits: bool = False) -> PathRef | None:
    """Read a path or ordinal phrase; None when it is not a usable path.

    Args:
        text: the slot's text. splits: also offer shorter word splits (read-only kinds only:
            a write never acts on part of what was typed).
    """
    raw, quoted = unquote(text)
    alternatives: tuple[str, ...] = ()
    if not quoted:
        raw, alternatives = _readings(raw, splits=splits)
        raw, quoted = unquote(raw)
    ordinal = parse_ordinal(raw)
    if ordinal is not None:
        return PathRef(ordinal=ordinal)
    spaced = not quoted and re.search(r"\s", raw) is not None
    if _ARTICLE.sub("", raw).casefold() in GENERIC or _has_marks(raw) or (spaced and len(raw.split()) > _MAX_WORDS):
        return None
    pathlike = "/" in raw or "\\" in raw or _SUFFIXED.match(raw) or raw.casefold() in _KNOWN_DIRS
    return PathRef(path=raw, bare=spaced or not (pathlike or quoted), alternatives=alternatives)


def is_path_text(text: str) -> bool:
    """True when a slot's text is an ordinal or a path-like name (suffix, separator, known folder, quoted)."""
    ref = read_path(text)
    return ref is not None and (ref.ordinal is not None or not ref.bare)


def new_name(text: str) -> str | None:
    """A new name: one word, or words ending in a suffix ("my file.txt"); quoted as typed."""
    raw, quoted = unquote(text)
    if not raw or quoted or not re.search(r"\s", raw):
        return raw or None
    return raw if len(raw.split()) <= _MAX_WORDS and _SUFFIXED.match(raw.split()[-1]) else None
