"""Is a parsed workspace sentence an order? (seed 000 "宁可少执行，不可误执行"; seed 001 §12; issue 3 §4).

:func:`localagent.agent.workspace_requests.parse_request` matches a sentence against its
table and builds a request. Before that request is returned, :func:`is_an_order` reads the
*frame* of the sentence: the sentence with the parsed slots blanked out (the content to
write, the old text to replace, and paths, targets and keywords that look like paths). The
words that remain are the user's own words around the action, and they decide:

* **Negated or hypothetical** ("不要删除 a.txt", "别把 a.txt 移到 docs", "如果删除 a.txt 会怎样",
  "don't delete a.txt", "what if I delete a.txt") → not a request, whatever the kind.
* **Chat vetoes** of the intent rules (``intent.rules.chat_veto``: translation and writing
  "把这句话翻译成英文：…", quoted or reported speech "我朋友说：…", prompt injection
  "忽略之前的指令，…", apps, web, places outside the workspace) → not a request. The same
  table the intent rules use; nothing is copied here.
* **Embedded text**: a colon followed by more words, or a quoted span, left in the frame
  ("翻译一下：删除 a.txt", ``"删除所有文件"``) is content someone wrote, not an order.
* **A question never becomes a write** (decision): a write/delete/move/rename/undo asked as a
  question gives no plan, even with ``--yes``. A bare question ("删除 a.txt 吗？", "delete
  a.txt?", "要不要重命名…", "should I delete a.txt") is not a request at all: it goes on to chat
  (:data:`NOT_AN_ORDER`). A polite question that asks me to act ("你能帮我把 a.txt 复制到 docs
  吗？", "can you delete a.txt?") is answered with a refusal that asks the user to re-state it
  as an order (:data:`RESTATE`): otherwise it would slide into the seed 000 task pipeline, whose
  built-in copy template does something else. Read-only requests (search, read, list, open,
  reveal, analyze, scan) may be asked as questions, and so may refusals (permanent or batch
  delete, commands): answering them changes nothing.

Pure and small: no file system, no model.
"""

from __future__ import annotations

import re
from typing import Callable

from localagent.intent.rules import chat_veto, is_negated_or_hypothetical, is_polite_request, is_question

ORDER = "order"
"""The sentence is an order for its kind: return the request."""
NOT_AN_ORDER = "not_an_order"
"""Negated, hypothetical, vetoed, embedded, or a bare question about a write: not a direct request."""
RESTATE = "restate"
"""A polite question asking for a write: refuse it and ask for the order to be re-stated."""
#: Request kinds that change nothing in the workspace: the only ones a question may produce.
READ_ONLY_KINDS = frozenset({"scan", "list", "search_files", "search_text", "read", "open", "reveal", "analyze",
                             "show_workspace", "open_workspace", "refuse"})

_CONTENT_SLOTS = frozenset({"c", "o"})  # content to write, text to replace: always the user's data
_PATH_SLOTS = frozenset({"p", "t", "k"})  # paths, targets, keywords: blanked when they look like one
_SENTENCE_MARKS = re.compile(r"[：，。；！？、“”「」『』\n]|(?<![A-Za-z]):|(?<=..):")
_QUOTE_PAIRS = re.compile(r"[\"“「『][^\"”」』]*[^\s\"”」』][^\"”」』]*[\"”」』]")
_COLON_THEN_WORDS = re.compile(r"[:：]\s*\S")
_QUOTES = "\"'“”‘’「」『』`"
# The recycle bin is where a delete goes, not a place outside the workspace ("把 a.txt 移到回收站").
_TRASH_WORDS = re.compile(r"回收站|废纸篓|recycle\s*bin|trash", re.I)
_QUESTION_END = re.compile(r"(?:吗|么|呢|嘛|\?|？)[\s。.!！~…]*$")


def screen(kind: str, match: re.Match[str], sentence: str, path_slot: Callable[[str], bool] | None = None) -> str:
    """Decide what a parsed request becomes (the module docstring lists the rules).

    Args:
        kind: the built request's kind (``"delete"``, ``"read"``, ``"refuse"`` …).
        match: the table rule's match; its named groups are the slots (``p``/``p2``… path,
            ``t`` target, ``k`` keyword, ``c`` content, ``o`` old text).
        sentence: the whole sentence, stripped (the match may cover less: a polite head
            such as "请帮我"/"can you" and a tail such as "吗？" are cut before matching).
        path_slot: tells whether a slot's text is a usable path (so it may be blanked);
            ``None`` blanks every clean slot.

    Returns:
        :data:`ORDER`; :data:`NOT_AN_ORDER` when the sentence is negated, hypothetical, vetoed
        as chat, embeds quoted/colon text, or asks a bare question about a write; :data:`RESTATE`
        for a polite question asking for a write.
    """
    frame = _frame(match, sentence, path_slot)
    if is_negated_or_hypothetical(frame) or chat_veto(_TRASH_WORDS.sub(" ", frame)) is not None:
        return NOT_AN_ORDER
    if _COLON_THEN_WORDS.search(frame) or _QUOTE_PAIRS.search(frame):
        return NOT_AN_ORDER
    if kind in READ_ONLY_KINDS or not (is_question(frame) or _QUESTION_END.search(sentence)):
        return ORDER
    return RESTATE if is_polite_request(frame) else NOT_AN_ORDER


def _frame(match: re.Match[str], sentence: str, path_slot: Callable[[str], bool] | None) -> str:
    """Return ``sentence`` with the slot spans of ``match`` replaced by a space.

    The matched string is ``sentence`` less a polite head and tail; when it cannot be placed,
    nothing is blanked (every word is judged: the stricter reading).
    """
    offset = sentence.find(match.string)
    if offset < 0:
        return sentence
    spans = []
    for name in match.re.groupindex:
        value = match.group(name)
        if value and _blank(name.rstrip("0123456789"), value, path_slot):
            spans.append(match.span(name))
    chars = list(sentence)
    for start, end in spans:
        chars[offset + start:offset + end] = [" "] * (end - start)
    return "".join(chars)


def _blank(slot: str, value: str, path_slot: Callable[[str], bool] | None) -> bool:
    if slot in _CONTENT_SLOTS:
        return True
    if slot not in _PATH_SLOTS:
        return False
    inner = value.strip()
    if len(inner) >= 2 and inner[0] in _QUOTES and inner[-1] in _QUOTES:
        inner = inner[1:-1].strip()
    if not inner or _SENTENCE_MARKS.search(inner):
        return False
    return slot == "k" or path_slot is None or path_slot(value)
