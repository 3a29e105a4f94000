"""Intent labels, the execution threshold and the result value (seed 000 "意图识别").

A sentence is either ``chat`` (answer with text, touch no file) or ``execution``
(a task on the user's files in the workspace). Below
:data:`EXECUTION_CONFIDENCE_THRESHOLD` an execution verdict counts as chat:
"宁可少执行，不可误执行" (seed 000).
"""

from __future__ import annotations

from dataclasses import dataclass

CHAT = "chat"
EXECUTION = "execution"
LABELS = (CHAT, EXECUTION)

EXECUTION_CONFIDENCE_THRESHOLD = 0.6

SOURCE_RULES = "rules"
SOURCE_LLM = "llm"
SOURCE_FALLBACK = "fallback"
SOURCES = (SOURCE_RULES, SOURCE_LLM, SOURCE_FALLBACK)


@dataclass(frozen=True, kw_only=True)
class IntentResult:
    """The decision for one sentence.

    Attributes:
        label: :data:`CHAT` or :data:`EXECUTION`.
        confidence: 0.0–1.0; how sure the deciding source was. Fallback results
            carry 0.0 (nobody decided; chat is the safe default).
        reason: a Chinese explanation shown to the user (seed 000 step 5: 判定原因).
        source: ``"rules"`` (no-model fast path), ``"llm"`` (the intent model) or
            ``"fallback"`` (no model, unusable model output, or low confidence).
        reason_en: an English rendering for ``--lang en`` where one exists (not in the JSON:
            the seed's ``reason`` is Chinese).
    """

    label: str
    confidence: float
    reason: str
    source: str
    reason_en: str = ""

    def reason_in(self, lang: str) -> str:
        """Return the reason in ``lang`` when an English one exists, else the Chinese one."""
        return self.reason_en if lang == "en" and self.reason_en else self.reason

    @property
    def is_execution(self) -> bool:
        """Return True when the sentence goes to the execution pipeline."""
        return self.label == EXECUTION

    def to_json(self) -> dict[str, object]:
        """Return the stable JSON shape ``{label, confidence, reason, source}`` (issue 2, JSON output)."""
        return {"label": self.label, "confidence": self.confidence, "reason": self.reason, "source": self.source}


def chat_fallback(reason: str) -> IntentResult:
    """Return the safe default: chat, confidence 0.0, source ``"fallback"``.

    Args:
        reason: the Chinese explanation of why no execution verdict was accepted.

    Returns:
        An :class:`IntentResult` labelled :data:`CHAT`.
    """
    return IntentResult(label=CHAT, confidence=0.0, reason=reason, source=SOURCE_FALLBACK)
