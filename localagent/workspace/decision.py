"""The answer of the access policy's gates and the wrappers that make them fail closed (seed 001 §6).

Holds :class:`PolicyDecision` (what every ``AccessPolicy.can_*`` gate returns), :data:`ALLOW`,
:func:`fail_closed` (a gate's error becomes a refusal) and :func:`on_error` (a yes/no question
answers the cautious default on error). The decisions themselves are made in
:mod:`localagent.workspace.policy`, which re-exports :class:`PolicyDecision`. Stdlib only: the
sandboxed child imports it too.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from localagent.errors import PathDenied

__all__ = ["ALLOW", "PolicyDecision", "fail_closed", "on_error"]


@dataclass(frozen=True)
class PolicyDecision:
    """The answer of a ``can_*`` gate; truthy when allowed.

    Attributes:
        allowed: whether the action may go ahead.
        reason: the refusal in Chinese ("" when allowed), shown to the user.
        reason_en: the same in English.
    """

    allowed: bool
    reason: str = ""
    reason_en: str = ""

    def __bool__(self) -> bool:
        return self.allowed

    def message(self, lang: str = "zh") -> str:
        """Return the reason in ``lang`` (``"en"`` for English, anything else Chinese)."""
        return self.reason_en if lang == "en" else self.reason

    def raise_if_denied(self) -> None:
        """Raise ``PathDenied(reason, reason_en)`` when not allowed; do nothing otherwise."""
        if not self.allowed:
            raise PathDenied(self.reason, self.reason_en)


ALLOW = PolicyDecision(True)


def fail_closed(method):
    """Turn a gate's PathDenied into a refusal and any other error into a refusal too."""

    @functools.wraps(method)
    def gate(self, *args, **kwargs) -> PolicyDecision:
        try:
            return method(self, *args, **kwargs)
        except PathDenied as exc:
            return PolicyDecision(False, exc.zh, exc.en)
        except Exception:  # noqa: BLE001 - fail closed: an error never allows
            return PolicyDecision(False, "路径检查出错，已拒绝", "the path check failed, so it is refused")

    return gate


def on_error(default: bool):
    """Make a yes/no question answer ``default`` (the cautious answer) instead of raising."""

    def wrap(method):
        @functools.wraps(method)
        def answer(self, *args, **kwargs) -> bool:
            try:
                return bool(method(self, *args, **kwargs))
            except Exception:  # noqa: BLE001 - fail closed
                return default

        return answer

    return wrap
