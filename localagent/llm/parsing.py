"""Strict structure from model text (issue 2 part 4; seed 003 "strict JSON, fail-closed").

Only the final answer counts: reasoning blocks (``<think>``, ``<thinking>``,
``<reasoning>``) are removed first, so a verdict or code shown there is never
taken as the answer. From what is left:

* :func:`parse_json_object` takes exactly one JSON object (bare, in a ```json
  fence, or with prose around it), refuses duplicate keys, ``NaN``/``Infinity``,
  and several different objects, and validates it with a pydantic model in strict
  mode (``"false"`` is not ``false``, ``"1"`` is not ``1``, enums exact).
* :func:`extract_python_code` takes the body of exactly one fenced block tagged
  ``python``/``py``/``python3``. An untagged block is rejected: code we run must
  say what language it is, and a model asked for Python that omits the tag has
  not followed the format.

:func:`split_plan_and_code` applies both to the one plan-and-code answer of a
task (``{"plan", "risks"}`` and one Python block). Every failure raises :class:`~localagent.errors.ParseError`; nothing is guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from localagent.errors import ParseError

if TYPE_CHECKING:
    from pydantic import BaseModel

    ModelT = TypeVar("ModelT", bound=BaseModel)

_REASONING_TAGS = "think|thinking|reasoning"
_CLOSED_BLOCK = re.compile(rf"<\s*({_REASONING_TAGS})\b[^>]*>.*?<\s*/\s*\1\s*>", re.IGNORECASE | re.DOTALL)
_OPEN_TAG = re.compile(rf"<\s*(?:{_REASONING_TAGS})\b[^>]*>", re.IGNORECASE)
_CLOSE_TAG = re.compile(rf"<\s*/\s*(?:{_REASONING_TAGS})\s*>", re.IGNORECASE)
_FENCE = re.compile(r"^[ ]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^\n`]*$")
_PYTHON_TAGS = frozenset({"python", "py", "python3"})
_JSON_TAGS = frozenset({"json", "json5", "jsonc"})


@dataclass(frozen=True)
class CodeBlock:
    """One fenced block of the final answer: ``lang`` is the lower-cased tag (``""`` if untagged)."""

    lang: str
    body: str
    closed: bool = True


def strip_reasoning(text: str) -> str:
    """Remove reasoning blocks and return the final answer, stripped.

    Closed ``<think>…</think>`` (also ``<thinking>``, ``<reasoning>``) blocks are
    removed; text before a stray closing tag is reasoning whose opening tag was
    left out (DeepSeek-R1 style) and is removed too; an opening tag that never
    closes makes everything after it reasoning (a reply that starts with
    ``<think>`` and never closes leaves ``""``).

    Args:
        text: the raw model text.

    Returns:
        The final answer without reasoning, stripped of surrounding whitespace.
    """
    answer = _CLOSED_BLOCK.sub("", text or "")
    closes = list(_CLOSE_TAG.finditer(answer))
    if closes:
        answer = answer[closes[-1].end():]
    opening = _OPEN_TAG.search(answer)
    if opening:
        answer = answer[: opening.start()]
    return answer.strip()


def find_code_blocks(text: str) -> list[CodeBlock]:
    """Return the fenced blocks (``` or ~~~) of ``text`` in order, as written.

    A fence opens at the start of a line (up to 3 spaces) and closes with the same
    character, at least as long, on a line of its own. An unclosed fence runs to
    the end and is returned with ``closed=False``.

    Args:
        text: answer text (call :func:`strip_reasoning` first).

    Returns:
        The blocks; ``lang`` is the first word of the info string, lower case.
    """
    blocks: list[CodeBlock] = []
    fence = lang = ""
    body: list[str] = []
    for line in (text or "").splitlines():
        if not fence:
            match = _FENCE.match(line)
            if match:
                fence, lang, body = match.group(1), match.group(2).lower(), []
            continue
        stripped = line.strip()
        if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            blocks.append(CodeBlock(lang=lang, body="\n".join(body)))
            fence = ""
        else:
            body.append(line)
    if fence:
        blocks.append(CodeBlock(lang=lang, body="\n".join(body), closed=False))
    return blocks


def extract_python_code(text: str) -> str:
    """Return the code of the one Python block of the final answer.

    Args:
        text: the raw model text.

    Returns:
        The block's body, ending with a newline.

    Raises:
        ParseError: no block; only blocks of another language or untagged; two or
            more Python blocks; an unclosed or empty Python block. Blocks inside
            reasoning never count.
    """
    blocks = find_code_blocks(strip_reasoning(text))
    python = [b for b in blocks if b.lang in _PYTHON_TAGS]
    if not python:
        if not blocks:
            raise ParseError("模型的回答里没有代码块。", "The model's answer has no code block.")
        langs = ", ".join(sorted({b.lang or "无标注/untagged" for b in blocks}))
        raise ParseError(f"模型给出的代码不是标注为 python 的代码块（{langs}）。",
                         f"The model's code is not in a block tagged python ({langs}).")
    if len(python) > 1:
        raise ParseError(f"模型的回答里有 {len(python)} 个 Python 代码块，不知道该运行哪一个。",
                         f"The model's answer has {len(python)} Python blocks; which one to run is unclear.")
    block = python[0]
    if not block.closed:
        raise ParseError("Python 代码块没有结束（回答可能被截断）。",
                         "The Python block is not closed (the answer may be truncated).")
    if not block.body.strip():
        raise ParseError("Python 代码块是空的。", "The Python block is empty.")
    return block.body.rstrip("\n") + "\n"


def parse_json_object(text: str, model: type[ModelT]) -> ModelT:
    """Parse the one JSON object of the final answer and validate it strictly.

    Args:
        text: the raw model text.
        model: a pydantic model; validated with ``strict=True``. Its own config
            decides about extra fields (pydantic's default ignores them).

    Returns:
        The validated model instance.

    Raises:
        ParseError: nothing left after reasoning; no JSON object; a malformed
            object; duplicate keys; ``NaN``/``Infinity``; several different
            objects; a missing field or a value of the wrong type or enum.
    """
    from pydantic import ValidationError

    obj = find_json_object(text)
    try:
        return model.model_validate(obj, strict=True)
    except ValidationError as exc:
        raise ParseError(f"模型回答的 JSON 不符合要求：{_first_error(exc)}",
                         f"The model's JSON does not fit: {_first_error(exc)}") from None


def split_plan_and_code(text: str) -> tuple[str, list[str], str]:
    """Split the one plan-and-code answer of a task (``prompts.TASK_SYSTEM_PROMPT``).

    Args:
        text: the raw model text: a ``{"plan": str, "risks": [str]}`` object and
            exactly one ```python block.

    Returns:
        ``(plan, risks, code)``: the plan stripped, the non-empty risks, the code.

    Raises:
        ParseError: the object or the code block is missing, ambiguous or of the
            wrong shape (see :func:`parse_json_object`, :func:`extract_python_code`),
            or the plan is empty.
    """
    answer = parse_json_object(text, _task_plan_model())
    code = extract_python_code(text)
    if not answer.plan.strip():
        raise ParseError("模型给出的计划是空的。", "The model's plan is empty.")
    return answer.plan.strip(), [risk.strip() for risk in answer.risks if risk.strip()], code


@lru_cache(maxsize=1)
def _task_plan_model() -> type[BaseModel]:
    from pydantic import BaseModel

    class TaskPlan(BaseModel):
        plan: str
        risks: list[str]

    return TaskPlan


def find_json_object(text: str) -> dict[str, Any]:
    """Return the one JSON object of the final answer, decoded, without validation.

    Objects are looked for outside fenced blocks and inside ```json or untagged
    fences; blocks in another language (```python) are skipped, so braces in code
    are not taken for the answer. The same object repeated counts once.

    Raises:
        ParseError: as for :func:`parse_json_object`, except validation.
    """
    answer = strip_reasoning(text)
    if not answer:
        raise ParseError("模型没有给出最终回答（只有推理内容或空白）。",
                         "The model gave no final answer (only reasoning or nothing).")
    found: dict[str, dict] = {}
    for segment in _json_segments(answer):
        for obj in _decode_objects(segment):
            found.setdefault(json.dumps(obj, sort_keys=True, ensure_ascii=False), obj)
    if not found:
        raise ParseError("模型的回答里没有 JSON 对象。", "No JSON object in the model's answer.")
    if len(found) > 1:
        raise ParseError(f"模型的回答里有 {len(found)} 个不同的 JSON 对象，无法确定哪一个是答案。",
                         f"The model's answer has {len(found)} different JSON objects; ambiguous.")
    return next(iter(found.values()))


def _json_segments(answer: str) -> list[str]:
    """Split ``answer`` into the text searched for JSON: prose outside fences plus json/untagged fence bodies."""
    segments: list[str] = []
    prose: list[str] = []
    fence = ""
    keep = False
    for line in answer.splitlines():
        match = None if fence else _FENCE.match(line)
        if match:
            fence, keep = match.group(1), match.group(2).lower() in _JSON_TAGS | {""}
            segments.append("\n".join(prose))
            prose = []
            continue
        stripped = line.strip()
        if fence and stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
            segments.append("\n".join(prose) if keep else "")
            prose, fence = [], ""
            continue
        prose.append(line)
    if not fence or keep:
        segments.append("\n".join(prose))
    return [s for s in segments if "{" in s]


def _decode_objects(segment: str) -> list[dict]:
    """Decode every top-level JSON object in ``segment``; a malformed one hides what is nested in it."""
    decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    objects: list[dict] = []
    pos = _next_opening(segment, 0)
    while pos != -1:
        try:
            obj, end = decoder.raw_decode(segment, pos)
        except _StrictJSONError as exc:
            raise ParseError(exc.zh, exc.en) from None
        except ValueError:
            if segment[pos] == "[":  # prose like "[注意]"; objects inside it are still looked at
                pos = _next_opening(segment, pos + 1)
                continue
            if _looks_like_json(segment, pos):
                raise ParseError("模型回答里的 JSON 格式有误或不完整，无法解析。",
                                 "The JSON in the model's answer is malformed or incomplete.") from None
            end = _matching_brace(segment, pos)
            if end == -1:
                break
        else:
            if isinstance(obj, dict):  # an object inside a JSON array is not the answer
                objects.append(obj)
        pos = _next_opening(segment, end)
    return objects


def _next_opening(segment: str, start: int) -> int:
    """Index of the next ``{`` or ``[`` at or after ``start``, or -1."""
    found = [i for i in (segment.find("{", start), segment.find("[", start)) if i != -1]
    return min(found) if found else -1


def _looks_like_json(segment: str, pos: int) -> bool:
    """True when the brace at ``pos`` opens what reads as a JSON object (``{"key"``)."""
    return segment[pos + 1:].lstrip().startswith('"')


def _matching_brace(text: str, start: int) -> int:
    """Index just after the brace closing the one at ``start`` (string-aware), or -1."""
    depth = 0
    in_string = escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


class _StrictJSONError(ValueError):
    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh, self.en = zh, en


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _StrictJSONError(f"模型回答的 JSON 里键 “{key}” 出现了两次。",
                                   f"The key '{key}' appears twice in the model's JSON.")
        result[key] = value
    return result


def _no_constant(name: str) -> Any:
    raise _StrictJSONError(f"模型回答的 JSON 里有非法数值 {name}。", f"The model's JSON contains {name}.")


def _first_error(exc: Any) -> str:
    """One short line from a pydantic ValidationError: ``field: problem``."""
    errors = exc.errors(include_url=False)
    if not errors:
        return str(exc).splitlines()[0]
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "-"
    more = f" (+{len(errors) - 1})" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"
