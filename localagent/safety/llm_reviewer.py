"""The soft safety check: an LLM judge of model-written task code (seed 000 step 4).

Input: the user's request, the plan and the code. Output: pass/fail and a
Chinese reason, from ``GENERATION_MODEL_NAME``. Fail closed (issue 2 part 9,
seed 003): a model error, a timeout, an unparsable answer, a missing field or a
non-boolean ``passed`` all give ``passed=False``. The reviewer never loosens the
rule checker: it only runs after the rule checker passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from localagent.errors import Aborted, LocalAgentError

if TYPE_CHECKING:
    from localagent.llm.client import ChatClient

REVIEW_MAX_TOKENS = 256  # the answer is one boolean and one sentence (seed 003 judgeMaxTokens)


@dataclass(frozen=True, kw_only=True)
class ReviewResult:
    """The reviewer's verdict.

    Attributes:
        passed: True only when the model answered a strict JSON ``{"passed": true, …}``.
        reason: the model's Chinese reason, or why the review failed closed.
        skipped: True when no review ran (built-in templates are not model-written).
    """

    passed: bool
    reason: str
    skipped: bool = False

    def to_json(self) -> dict[str, object]:
        """Return ``{"passed", "reason", "skipped"}``."""
        return {"passed": self.passed, "reason": self.reason, "skipped": self.skipped}


def review_code(client: "ChatClient", model: str, *, request: str, plan: str, code: str) -> ReviewResult:
    """Ask the model whether ``code`` does what ``request`` asks and nothing else.

    Args:
        client: the chat client (one call, temperature 0).
        model: ``GENERATION_MODEL_NAME``.
        request: the user's sentence; plan: the plan shown to the user; code: the Python source.

    Returns:
        A :class:`ReviewResult`; ``passed`` is False on any failure (fail closed).

    Raises:
        Aborted: the user cancelled while the model was answering (not a verdict).
    """
    from pydantic import BaseModel

    from localagent.llm.parsing import parse_json_object
    from localagent.llm.prompts import build_review_messages

    class _Verdict(BaseModel):
        passed: bool
        reason: str

    try:
        text = client.chat(build_review_messages(request, plan, code), model=model,
                           temperature=0.0, max_tokens=REVIEW_MAX_TOKENS)
        verdict = parse_json_object(text, _Verdict)
    except Aborted:
        raise
    except LocalAgentError as error:
        return ReviewResult(passed=False, reason=f"审查未完成，按不通过处理：{error.zh}")
    except Exception as error:  # fail closed on anything unexpected  # noqa: BLE001
        return ReviewResult(passed=False, reason=f"审查出错，按不通过处理：{type(error).__name__}")
    reason = verdict.reason.strip() or ("审查通过" if verdict.passed else "审查未通过")
    return ReviewResult(passed=bool(verdict.passed), reason=reason[:500])
