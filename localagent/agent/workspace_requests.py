"""Turn a direct workspace sentence into one request (seed 001 §9, §11, §12; issue 3 §4).

:func:`parse_request` is pure (no file system): it reads sentences such as
"搜索 README", "读取第二个", "把 a.txt 复制到 docs", "rename old.md to new.md",
"删除 tmp.log", "分析这个项目" and returns a :class:`WorkspaceRequest`, or
``None`` when the sentence is not a direct workspace request (then it goes on to
the seed 000 code-task pipeline). The rules are one ordered table, Chinese and
English, first match wins: dangerous requests first (refused, never planned),
then the specific forms before the general ones.

Seed 001 §12: wide keywords must not swallow requests — "打开文件夹" alone, "搜索 Qt
最新版本", "打开微信" are not workspace requests. A bare word target (no suffix, no
``/``, not a well-known folder) is marked ``bare``; the controller accepts it only
when it names something in the workspace.

The request value, its kinds and the rule table live in
:mod:`localagent.agent.request_tables` (re-exported here); this module holds the
matching (:func:`parse_request`) and the pure text changes a write asks for
(:func:`apply_text_change`, :func:`diff_summary`).
"""

from __future__ import annotations

import re

from localagent.agent.request_screen import ORDER, RESTATE, screen
from localagent.agent.request_tables import (
    BATCH_DELETE,
    KIND_ACTIONS,
    KINDS,
    PERMANENT_DELETE,
    RULES,
    RUN_COMMAND,
    WorkspaceRequest,
    is_path_text,
)

__all__ = ["BATCH_DELETE", "KINDS", "KIND_ACTIONS", "MAX_DIFF_LINES", "MAX_REQUEST_CHARS", "PERMANENT_DELETE",
           "RUN_COMMAND", "WorkspaceRequest", "apply_text_change", "diff_summary", "parse_request"]


_POLITE_HEAD = re.compile(r"^(?:(?:请你?|麻烦你?|帮我|帮忙|给我|你?(?:能不能|可不可以|能否|可否|能|可以)|please|can\s+you|"
                          r"could\s+you|would\s+you|will\s+you|kindly)\s*)+", re.I)
_POLITE_TAIL = re.compile(r"\s*(?:吧|吗|好吗|可以吗|好不好|,?\s*please)?\s*[。！!？?~…]*$", re.I)
MAX_REQUEST_CHARS = 4000


def parse_request(sentence: str) -> WorkspaceRequest | None:
    """Parse a direct workspace sentence (seed 001 §11 聊天入口, §12 意图分发).

    Args:
        sentence: what the user typed (Chinese or English; longer than 4,000
            characters is not a direct request).

    Returns:
        A :class:`WorkspaceRequest`, or ``None`` when this is not a direct workspace
        request (bulk tasks such as "把这个文件夹里的图片复制一份", web searches,
        app names, "打开文件夹" alone), or when the words around the parsed paths are
        not an order (see :mod:`localagent.agent.request_screen`: negation, condition,
        quoted or translated text, prompt injection; a question is never a write: a polite
        one — "你能帮我把 a.txt 复制到 docs 吗？" — gets a ``refuse`` request asking to re-state it).
        The first rule that matches and builds wins.
    """
    if not isinstance(sentence, str) or not sentence.strip() or len(sentence) > MAX_REQUEST_CHARS:
        return None
    stripped = sentence.strip()
    raw = _POLITE_HEAD.sub("", stripped)
    text = _POLITE_TAIL.sub("", raw).strip()
    if not text:
        return None
    for pattern, build, on_raw in RULES:
        match = pattern.fullmatch(raw if on_raw else text)
        if match is not None:
            request = build(match, stripped)
            if request is not None:
                verdict = screen(request.kind, match, stripped, is_path_text)
                if verdict == RESTATE:
                    return _restate(request.kind, text)
                return request if verdict == ORDER else None
    return None


def _restate(kind: str, order: str) -> WorkspaceRequest:
    """A refusal for a write asked as a polite question: nothing changes until it is said as an order."""
    shown = order if len(order) <= 80 else order[:79] + "…"
    wording = (f"这句话是在提问，我不会据此改动文件。如果确实要这样做，请直接说：{shown}",
               f"This is put as a question, so no file is changed. If you do want it, say it as an order: {shown}")
    return WorkspaceRequest(kind="refuse", refusal=wording, refused_type=KIND_ACTIONS[kind][0])


# --- text changes (pure) -------------------------------------------------------------------------

MAX_DIFF_LINES = 12


def apply_text_change(request: WorkspaceRequest, old: str) -> str | None:
    """Return the new file text a write, replace or append request asks for.

    Args:
        request: a ``write``, ``replace`` or ``append`` request.
        old: the file's current text.

    Returns:
        The complete new text, or ``None`` when a replace finds nothing to replace.
    """
    if request.kind == "write":
        return request.content
    if request.kind == "append":
        joiner = "" if not old or old.endswith("\n") else "\n"
        return old + joiner + request.content + ("\n" if old.endswith("\n") else "")
    if not request.old_text or request.old_text not in old:
        return None
    return old.replace(request.old_text, request.content)


def diff_summary(path: str, old: str, new: str, *, max_lines: int = MAX_DIFF_LINES) -> str:
    """Return a short unified diff of a planned write (the plan shows it before the yes).

    Args:
        path: workspace-relative path shown in the header. old, new: the texts.
        max_lines: changed lines shown at most (default 12); the rest is counted.

    Returns:
        ``"+N −M 行"`` header then up to ``max_lines`` ``+``/``-`` lines.
    """
    import difflib

    changed = [line for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    added = sum(1 for line in changed if line.startswith("+"))
    removed = len(changed) - added
    lines = [f"{path}: +{added} -{removed}"]
    lines += [line if len(line) <= 160 else line[:159] + "…" for line in changed[:max_lines]]
    if len(changed) > max_lines:
        lines.append(f"… (+{len(changed) - max_lines})")
    return "\n".join(lines)
