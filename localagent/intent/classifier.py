"""Intent classification with the small model (seed 000 "意图识别"; issue 2 part 5).

:func:`classify` tries the no-model rules first (:mod:`localagent.intent.rules`):
a chat verdict, or a confident execution verdict, is returned without a model
call (the benchmark goal is ≤ 3 model calls per task). Otherwise it asks
``INTENT_MODEL_NAME`` with the short, strict prompt of
:func:`localagent.llm.prompts.build_intent_messages` for
``{"label", "confidence", "reason"}`` and accepts only a strictly valid answer.
Everything else is chat ("宁可少执行，不可误执行", seed 000):

* unparsable text, a missing field, a wrong type (``"0.9"`` is not ``0.9``), a
  label other than ``"chat"``/``"execution"``, a confidence outside 0..1 →
  chat, source ``"fallback"``;
* execution with confidence below :data:`EXECUTION_CONFIDENCE_THRESHOLD` → chat,
  source ``"fallback"``.

Errors of the model API itself (:class:`~localagent.errors.ModelAPIError`,
:class:`~localagent.errors.ModelTimeout`, :class:`~localagent.errors.Aborted`)
are *not* turned into chat: they propagate so that the CLI can report them and
exit 3 (or 130), instead of silently answering a task request with chat.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from localagent.errors import ParseError
from localagent.intent.labels import (
    EXECUTION,
    EXECUTION_CONFIDENCE_THRESHOLD,
    SOURCE_LLM,
    IntentResult,
    chat_fallback,
)
from localagent.intent.rules import classify_by_rules, classify_without_model, normalize

if TYPE_CHECKING:
    from localagent.llm.client import ChatClient

RULES_SKIP_MODEL_CONFIDENCE = 0.85
"""A rules execution verdict at least this confident is final; a less sure one is checked by the model."""

MAX_INTENT_CHARS = 2000
"""Only the first 2,000 characters of a sentence are sent to the intent model (prompt budget, issue 2 bench)."""

INTENT_TEMPERATURE = 0.0
INTENT_MAX_TOKENS = 200


@lru_cache(maxsize=1)
def intent_answer_model() -> type[Any]:
    """Return the pydantic model of the intent answer (built lazily: pydantic stays off the start-up path).

    Returns:
        ``IntentAnswer`` with ``label: Literal["chat", "execution"]``,
        ``confidence: float`` in 0..1 (a JSON integer such as ``1`` is accepted, a
        string or boolean is not; parsing is strict) and a non-blank ``reason: str``.
        Extra keys are ignored.
    """
    from typing import Annotated, Literal

    from pydantic import BaseModel, Field, StringConstraints

    class IntentAnswer(BaseModel):
        """The intent model's answer (seed 000: {label, confidence, reason})."""

        label: Literal["chat", "execution"]
        confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
        reason: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

    return IntentAnswer


def __getattr__(name: str) -> Any:
    """Expose ``IntentAnswer`` as a module attribute without importing pydantic at import time."""
    if name == "IntentAnswer":
        return intent_answer_model()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def classify(sentence: str, client: ChatClient | None, model: str) -> IntentResult:
    """Classify one sentence as chat or execution (seed 000 意图识别).

    Args:
        sentence: the user's sentence (any length; the model sees the first
            :data:`MAX_INTENT_CHARS` characters, the rules the first 2,000).
        client: the model client, or ``None`` when no key is configured (then the
            rules decide and anything they are unsure of is chat).
        model: the intent model name (``INTENT_MODEL_NAME``).

    Returns:
        An :class:`IntentResult`; ``source`` is ``"rules"`` when no model call was
        made, ``"llm"`` when the model's answer was accepted, ``"fallback"`` when
        chat was chosen because nothing trustworthy said execution.

    Raises:
        ModelAPIError: the endpoint failed after the client's retries (401, 429, 5xx,
            network, garbage body); ``ModelTimeout`` for a timeout. Not caught here.
        Aborted: the client's cancel event was set.
    """
    if not normalize(sentence):
        return chat_fallback("输入为空，按对话处理")
    decided = classify_by_rules(sentence)
    if decided is not None and (not decided.is_execution or decided.confidence >= RULES_SKIP_MODEL_CONFIDENCE):
        return decided
    if client is None:
        return classify_without_model(sentence)
    from localagent.llm.prompts import build_intent_messages

    text = client.chat(build_intent_messages(sentence[:MAX_INTENT_CHARS]), model=model,
                       temperature=INTENT_TEMPERATURE, max_tokens=INTENT_MAX_TOKENS)
    return interpret_answer(text)


def interpret_answer(text: str) -> IntentResult:
    """Turn the intent model's raw text into a decision, failing closed to chat.

    Args:
        text: the model's answer; reasoning blocks are ignored, the one JSON object
            of the final answer is parsed strictly
            (:func:`localagent.llm.parsing.parse_json_object`).

    Returns:
        The model's verdict with ``source="llm"``; or chat with ``source="fallback"``,
        confidence 0.0 and a Chinese reason when the answer cannot be parsed or
        validated, or says execution below :data:`EXECUTION_CONFIDENCE_THRESHOLD`.
    """
    from localagent.llm.parsing import parse_json_object

    try:
        answer = parse_json_object(text, intent_answer_model())
    except ParseError as exc:
        return chat_fallback(f"模型输出无法解析（{exc.zh}），按对话处理")
    if answer.label == EXECUTION and answer.confidence < EXECUTION_CONFIDENCE_THRESHOLD:
        return chat_fallback(f"模型判断为执行任务，但置信度 {answer.confidence:g} 低于阈值 "
                             f"{EXECUTION_CONFIDENCE_THRESHOLD:g}，按对话处理（模型理由：{answer.reason}）")
    return IntentResult(label=answer.label, confidence=answer.confidence, reason=answer.reason, source=SOURCE_LLM)
