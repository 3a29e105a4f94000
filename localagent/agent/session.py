"""Wire a session from settings and route one sentence (house style §1: one function wires a session).

:func:`build_session` turns :class:`~localagent.config.Settings` into a
:class:`Session` (workspace layout, model client or ``None`` without a key).
:func:`handle_sentence` is the main job of seed 000: classify the sentence, then
either answer it (chat) or offer it to the workspace controller (seed 001 direct
requests) and otherwise prepare a code task (plan → code → checks) that waits for
a yes. Front ends render the returned :class:`Outcome`; none holds logic.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagent.errors import InvalidArguments, ModelAPIError
from localagent.events import EventSink, StepEvent, TextDelta, ignore_event
from localagent.i18n import tr

if TYPE_CHECKING:
    from localagent.agent.task import Task
    from localagent.config import Settings
    from localagent.intent.labels import IntentResult
    from localagent.llm.client import LLMClient
    from localagent.safety.security_metrics import SecurityMetrics
    from localagent.workspace.layout import WorkspaceLayout

MAX_SENTENCE_CHARS = 8000  # a sentence is one request, not a document
CHAT_MAX_TOKENS = 1024


@dataclass(kw_only=True)
class Session:
    """Everything one run needs, built once by :func:`build_session`.

    Attributes:
        settings: the merged settings; lang: ``"zh"`` or ``"en"``.
        layout: the workspace with ``input/``, ``output/``, ``logs/``.
        client: the model client, or ``None`` when no key is configured.
        cancel_event: set to cancel model waits and running tasks.
        controller: the seed 001 workspace controller (direct file requests), if wired.
        last_intent: the last sentence's classification (kept for error reports after it).
    """

    settings: "Settings"
    lang: str
    layout: "WorkspaceLayout"
    client: "LLMClient | None"
    cancel_event: threading.Event = field(default_factory=threading.Event)
    controller: Any = None
    last_intent: "IntentResult | None" = None

    @property
    def metrics_path(self) -> Path:
        """``workspace/logs/security_metrics.json`` (seed 000 §3)."""
        return self.layout.logs / "security_metrics.json"

    def load_metrics(self) -> "SecurityMetrics":
        """Load the security metrics kept across runs (empty when the file is missing)."""
        from localagent.safety.security_metrics import SecurityMetrics

        return SecurityMetrics.load(self.metrics_path)

    def require_client(self) -> "LLMClient":
        """Return the model client or raise ConfigError naming ``LLM_API_KEY`` (exit 2)."""
        if self.client is None:
            self.settings.require_key()
        assert self.client is not None
        return self.client


@dataclass(kw_only=True)
class Outcome:
    """What one sentence led to.

    Attributes:
        kind: ``"chat"``, ``"task"`` (a seed 000 code task) or ``"workspace"`` (a seed 001 action).
        intent: the classification shown to the user (label, confidence, reason, source).
        answer: the chat answer; task: the prepared task; action: the workspace action outcome.
    """

    kind: str
    intent: "IntentResult"
    answer: str = ""
    task: "Task | None" = None
    action: Any = None


def build_session(settings: "Settings", *, lang: str, workspace: str | Path | None = None,
                  create_missing: bool = True, on_event: EventSink = ignore_event) -> Session:
    """Prepare the workspace and the model client.

    Args:
        settings: merged settings; lang: ``"zh"``/``"en"``.
        workspace: folder to use; defaults to ``settings.workspace`` (``./workspace``).
        create_missing: create a missing workspace and its ``input/``, ``output/``, ``logs/`` now (True
            for the default ``./workspace``); False for ``--workspace``: it must exist, and the
            working folders are made by the first code task, so a project folder used only for
            workspace actions gains nothing.
        on_event: receives retry events from the model client.

    Returns:
        A ready :class:`Session`.

    Raises:
        WorkspaceError: the workspace is missing, a file, or a system directory (exit 2).
    """
    from localagent.workspace.layout import prepare_workspace

    layout = prepare_workspace(Path(workspace or settings.workspace), create_missing=create_missing,
                               create_subfolders=create_missing)
    cancel = threading.Event()
    client = None
    if settings.has_key:
        from localagent.events import RetryEvent
        from localagent.llm.client import LLMClient

        client = LLMClient.from_settings(settings, cancel_event=cancel, on_retry=lambda attempt, delay, error: on_event(
            RetryEvent(attempt=attempt, limit=settings.llm_max_retries, delay_s=delay,
                       reason=error.message(lang)[:200])))
    session = Session(settings=settings, lang=lang, layout=layout, client=client, cancel_event=cancel)
    from localagent.agent.workspace_controller import WorkspaceController

    session.controller = WorkspaceController.for_session(session)
    return session


def validate_sentence(sentence: str, lang: str) -> str:
    """Return the stripped sentence, or raise InvalidArguments for empty or oversized input (exit 2)."""
    text = (sentence or "").strip()
    if not text:
        raise InvalidArguments("请输入一句话。", "Please type a sentence.")
    if len(text) > MAX_SENTENCE_CHARS:
        raise InvalidArguments(
            f"输入太长（{len(text)} 个字符），请控制在 {MAX_SENTENCE_CHARS} 个字符以内。",
            f"The input is too long ({len(text)} characters); keep it under {MAX_SENTENCE_CHARS}.")
    return text


def handle_sentence(session: Session, sentence: str, on_event: EventSink = ignore_event) -> Outcome:
    """Classify one sentence and answer it or prepare its task (seed 000 main flow).

    Returns:
        An :class:`Outcome`. A task outcome's task is ``pending`` (awaiting a yes)
        or ``blocked``; a workspace outcome may hold a pending action plan.

    Raises:
        InvalidArguments: empty or oversized sentence (exit 2).
        ConfigError: a model is needed and no key is configured (exit 2).
        ModelAPIError: the model failed after retries (exit 3).
        Aborted: cancelled.
    """
    from localagent.intent.classifier import classify
    from localagent.intent.labels import CHAT

    text = validate_sentence(sentence, session.lang)
    session.last_intent = None
    on_event(StepEvent(step="intent", status="started"))
    intent = classify(text, session.client, session.settings.intent_model_name)
    action = _offer_to_controller(session, text, intent)
    if action is not None and intent.label == CHAT:
        intent = _direct_request_intent()
    session.last_intent = intent
    label = tr(session.lang, "执行任务" if intent.is_execution else "普通对话", "task" if intent.is_execution else "chat")
    from localagent.workspace.pathnames import escape_invisible  # the reason quotes the user's words

    on_event(StepEvent(step="intent", status="done",
                       detail=f"{label}: {escape_invisible(intent.reason_in(session.lang))}"))
    if action is not None:
        return Outcome(kind="workspace", intent=intent, action=action)
    if intent.label == CHAT:
        return Outcome(kind="chat", intent=intent, answer=_chat(session, text, on_event))
    from localagent.agent.task import prepare_task

    return Outcome(kind="task", intent=intent, task=prepare_task(session, text, on_event))


def _offer_to_controller(session: Session, text: str, intent: "IntentResult") -> Any:
    """Give the sentence to the seed 001 controller; ``None`` when it is not a direct workspace request.

    Execution sentences are always offered (issue 3 §4). A chat verdict that no
    model made (rules or fallback) is offered too: the controller's parser is
    table-driven and answers ``None`` for anything that is not a plain workspace
    request ("搜索 Qt 最新版本", "打开微信"), its read-only actions touch nothing, its
    writes wait for a yes, and its refusals (permanent or batch delete) should be
    said rather than sent to the chat model. A confident model verdict of chat is
    respected.
    """
    from localagent.intent.labels import EXECUTION

    if session.controller is None or (intent.label != EXECUTION and intent.source == "llm"):
        return None
    return session.controller.handle_message(text)


def _direct_request_intent() -> "IntentResult":
    from localagent.intent.labels import EXECUTION, IntentResult

    return IntentResult(label=EXECUTION, confidence=0.9, source="rules",
                        reason="这是对当前工作区文件的直接请求（搜索、读取、打开或单个文件的操作）",
                        reason_en="A direct request on the workspace's files (search, read, open or a single-file action)")


def _chat(session: Session, text: str, on_event: EventSink) -> str:
    """Answer a chat sentence with ``GENERATION_MODEL_NAME``; touches no file (seed 000 chat flow)."""
    from localagent.llm.parsing import strip_reasoning
    from localagent.llm.prompts import build_chat_messages

    client = session.require_client()
    parts: list[str] = []
    for delta in client.stream(build_chat_messages(text), model=session.settings.generation_model_name,
                               temperature=0.7, max_tokens=CHAT_MAX_TOKENS):
        parts.append(delta)
        on_event(TextDelta(text=delta))
    answer = strip_reasoning("".join(parts)).strip()
    if not answer:  # nothing but reasoning, or null content: a model error, not an empty success
        raise ModelAPIError("模型没有返回回答内容。", "The model returned no answer text.", status=200)
    return answer
