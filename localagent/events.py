"""Progress events that every front end renders (house style §2).

The pipeline and the controller never print: they call ``on_event(event)`` with
one of these frozen dataclasses, and the CLI, the line mode and the Tk window
render them. ``EventSink`` is the callback type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Union

#: Step names of the seed 000 execution pipeline, in order.
TASK_STEPS = ("intent", "plan", "code", "rule_checker", "reviewer", "confirm", "run", "result")


@dataclass(frozen=True, kw_only=True)
class StepEvent:
    """A pipeline step changed state.

    Attributes:
        step: one of :data:`TASK_STEPS`.
        status: ``"started"``, ``"done"``, ``"failed"`` or ``"skipped"``.
        detail: short user-facing text (already in the user's language).
    """

    step: str
    status: str
    detail: str = ""


@dataclass(frozen=True, kw_only=True)
class OutputLine:
    """One line the running task printed (stdout or stderr)."""

    text: str


@dataclass(frozen=True, kw_only=True)
class RetryEvent:
    """The model request failed transiently and is retried (seed 002 FR-11).

    Attributes:
        attempt: the retry number, from 1; limit: the most retries (3).
        delay_s: seconds waited before the retry; reason: short error text.
    """

    attempt: int
    limit: int
    delay_s: float
    reason: str


@dataclass(frozen=True, kw_only=True)
class TextDelta:
    """A piece of streamed chat text."""

    text: str


Event = Union[StepEvent, OutputLine, RetryEvent, TextDelta]
EventSink = Callable[[Event], None]


def ignore_event(event: Event) -> None:
    """An :data:`EventSink` that drops every event."""
    return None
