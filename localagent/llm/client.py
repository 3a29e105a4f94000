"""One OpenAI-compatible client for every model (seed 000 "统一 LLM 调用规则"; issue 2 part 3).

Models differ only by model name, prompt, temperature and max_tokens. The
client sends requests with the ``openai`` package (imported lazily so that
importing this module stays cheap), maps every failure to
:class:`~localagent.errors.ModelAPIError` / :class:`~localagent.errors.ModelTimeout`
/ :class:`~localagent.errors.Aborted` with one clear line that never contains the
key, and retries transient failures (seed 002 FR-11): connection errors, timeouts,
429 and 5xx, at most 3 times with growing waits, only before any text was yielded.
A cancel stops a wait at once and is checked between stream chunks; a request in
flight is bounded by ``timeout``. No business logic lives here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from localagent.errors import Aborted, ModelAPIError, ModelTimeout

if TYPE_CHECKING:
    from localagent.config import Settings

#: ``on_retry(attempt, delay_seconds, error)``: called before retry ``attempt`` (1-based) waits.
RetryCallback = Callable[[int, float, ModelAPIError], None]

_MAX_PROVIDER_CHARS = 300


class ChatClient(Protocol):
    """What callers need from a model client (house style §6)."""

    def chat(self, messages: list[dict], model: str, temperature: float = 0.2, max_tokens: int = 1024) -> str:
        """Return the model's text answer to ``messages``."""
        ...


@dataclass
class Usage:
    """Counters across all calls of one client (benchmarks read them).

    Attributes:
        calls: completed model calls (one per successful ``chat``/``stream``).
        requests: HTTP requests sent, retries included.
        retries: retries of transient failures.
        prompt_tokens / completion_tokens: token counts the provider reported.
    """

    calls: int = 0
    requests: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()  # not a field: ``dataclasses.asdict`` stays usable

    def add(self, **counts: int) -> None:
        """Add ``counts`` (field name → increment) under a lock."""
        with self._lock:
            for name, value in counts.items():
                setattr(self, name, getattr(self, name) + int(value or 0))


class _Retryable(Exception):
    """Internal: a transient failure that may be retried; ``error`` is what the caller sees."""

    def __init__(self, error: ModelAPIError) -> None:
        super().__init__(str(error))
        self.error = error


class LLMClient:
    """Chat with any OpenAI-compatible endpoint.

    Args:
        base_url: the OpenAI base URL (``…/v1``), see ``Settings.base_url``.
        api_key: the key, sent only as ``Authorization: Bearer`` to ``base_url``.
        timeout: seconds per request (connect, each read).
        max_retries: retries of transient failures, clamped to 0..3 (seed 002 FR-11).
        backoff: seconds to wait before retry 1, 2, 3…; the last value repeats.
        cancel_event: when set, waits stop at once and the call raises ``Aborted``.
        on_retry: optional ``(attempt, delay, error)`` callback so a UI can show "retry 2/3".
    """

    def __init__(self, base_url: str, api_key: str, *, timeout: float = 60.0, max_retries: int = 3,
                 backoff: tuple[float, ...] = (1.0, 2.0, 4.0), cancel_event: threading.Event | None = None,
                 on_retry: RetryCallback | None = None) -> None:
        self.base_url = base_url.strip().rstrip("/")
        self._key = api_key
        self.timeout = timeout
        self.max_retries = min(max(int(max_retries), 0), 3)
        self.backoff = tuple(backoff) or (1.0,)
        self.cancel_event = cancel_event or threading.Event()
        self.on_retry = on_retry
        self.usage = Usage()
        self._client: Any = None
        self._client_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LLMClient(base_url={self.base_url!r})"

    @classmethod
    def from_settings(cls, settings: Settings, cancel_event: threading.Event | None = None,
                      on_retry: RetryCallback | None = None) -> LLMClient:
        """Build a client from :class:`~localagent.config.Settings`.

        Raises:
            ConfigError: no key is configured (names ``LLM_API_KEY``; exit 2).
        """
        key = settings.require_key()
        return cls(settings.base_url, key, timeout=settings.llm_timeout, max_retries=settings.llm_max_retries,
                   cancel_event=cancel_event, on_retry=on_retry)

    # -- public calls ------------------------------------------------------
    def chat(self, messages: list[dict], model: str, temperature: float = 0.2, max_tokens: int = 1024) -> str:
        """Send one non-streaming request and return the answer's text.

        Args:
            messages: OpenAI chat messages (``{"role", "content"}`` dicts).
            model: the model name (``INTENT_MODEL_NAME`` / ``GENERATION_MODEL_NAME``).
            temperature: sampling temperature.
            max_tokens: cap on the answer's length, in tokens.

        Returns:
            The message content of the first choice.

        Raises:
            ModelAPIError: non-200 answer, network failure after retries, or a body
                that is not a completion (garbage, no choices, no text).
            ModelTimeout: no answer within ``timeout`` after retries.
            Aborted: ``cancel_event`` was set.
        """
        params = _params(messages, model, temperature, max_tokens, stream=False)
        attempt = 0
        while True:
            try:
                return self._chat_once(params)
            except _Retryable as exc:
                attempt = self._wait_before_retry(attempt, exc.error)

    def stream(self, messages: list[dict], model: str, temperature: float = 0.2,
               max_tokens: int = 1024) -> Iterator[str]:
        """Stream the answer as text deltas (SSE).

        Transient failures are retried only while nothing has been yielded; once
        text was yielded, a failure is raised, never replayed (seed 002 FR-11).

        Args:
            messages / model / temperature / max_tokens: as for :meth:`chat`.

        Yields:
            Non-empty text pieces in order.

        Raises:
            ModelAPIError, ModelTimeout, Aborted: as for :meth:`chat`, also mid-stream.
        """
        params = _params(messages, model, temperature, max_tokens, stream=True)
        attempt = 0
        while True:
            yielded = False
            try:
                for piece in self._stream_once(params):
                    yielded = True
                    yield piece
                return
            except _Retryable as exc:
                if yielded:
                    raise _interrupted(exc.error) from None
                attempt = self._wait_before_retry(attempt, exc.error)

    def close(self) -> None:
        """Close the HTTP connection pool."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    # -- one attempt -------------------------------------------------------
    def _openai(self) -> Any:
        with self._client_lock:
            if self._client is None:
                from openai import OpenAI

                self._client = OpenAI(base_url=self.base_url, api_key=self._key, max_retries=0,
                                      timeout=self.timeout)
            return self._client

    def _send(self, params: dict) -> Any:
        self._check_cancel()
        client = self._openai()
        self.usage.add(requests=1)
        try:
            return client.chat.completions.create(**params)
        except Exception as exc:  # noqa: BLE001 - every failure is mapped or re-raised below
            raise self._translate(exc) from None

    def _chat_once(self, params: dict) -> str:
        response = self._send(params)
        self._check_cancel()
        text = _completion_text(response)
        usage = getattr(response, "usage", None)
        self.usage.add(calls=1, prompt_tokens=_tokens(usage, "prompt_tokens"),
                       completion_tokens=_tokens(usage, "completion_tokens"))
        return text

    def _stream_once(self, params: dict) -> Iterator[str]:
        stream = self._send(params)
        if isinstance(stream, str) or not hasattr(stream, "__iter__"):
            raise _garbage()
        chunks = iter(stream)
        seen = False
        try:
            while True:
                chunk = self._next_chunk(chunks)
                if chunk is None:
                    break
                self._check_cancel()
                seen = True
                self._count_chunk_usage(chunk)
                text = _chunk_text(chunk)
                if text:
                    yield text
        finally:
            _close_quietly(stream)
        if not seen:
            raise _garbage()
        self.usage.add(calls=1)

    def _next_chunk(self, chunks: Iterator[Any]) -> Any:
        try:
            return next(chunks)
        except StopIteration:
            return None
        except Exception as exc:  # noqa: BLE001 - mapped below
            raise self._translate(exc) from None

    def _count_chunk_usage(self, chunk: Any) -> None:
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            self.usage.add(prompt_tokens=_tokens(usage, "prompt_tokens"),
                           completion_tokens=_tokens(usage, "completion_tokens"))

    # -- retries and cancel --------------------------------------------------
    def _wait_before_retry(self, attempt: int, error: ModelAPIError) -> int:
        """Wait before retry ``attempt + 1`` or raise ``error`` when retries are used up; return the new count."""
        if attempt >= self.max_retries:
            raise _after_retries(error, attempt) from None
        delay = self.backoff[min(attempt, len(self.backoff) - 1)]
        self.usage.add(retries=1)
        if self.on_retry is not None:
            self.on_retry(attempt + 1, delay, error)
        if self.cancel_event.wait(delay):
            raise _aborted()
        return attempt + 1

    def _check_cancel(self) -> None:
        if self.cancel_event.is_set():
            raise _aborted()

    # -- error mapping -------------------------------------------------------
    def _scrub(self, text: str) -> str:
        key = self._key.strip()
        if key:
            text = text.replace(key, "***")
        return " ".join(text.split())[:_MAX_PROVIDER_CHARS]

    def _translate(self, exc: Exception) -> Exception:
        """Map an exception from ``openai``/``httpx`` to a ModelAPIError, wrapped in _Retryable if transient."""
        if isinstance(exc, (Aborted, ModelAPIError, _Retryable)):
            return exc
        names = {cls.__name__ for cls in type(exc).__mro__}
        if "APITimeoutError" in names or "TimeoutException" in names:
            return _Retryable(ModelTimeout(
                f"模型接口在 {self.timeout:g} 秒内没有响应（超时）。",
                f"The model API did not answer within {self.timeout:g} s (timeout)."))
        if "APIConnectionError" in names or "TransportError" in names:
            detail = self._scrub(str(exc.__cause__ or exc))
            return _Retryable(ModelAPIError(
                f"无法连接模型接口或连接中断：{detail}（请检查 LLM_API_URL 和网络）。",
                f"Could not reach the model API or the connection dropped: {detail} (check LLM_API_URL).",
                provider_message=detail))
        status = getattr(exc, "status_code", None)
        if isinstance(status, int):
            error = self._status_error(status, _provider_message(exc))
            return _Retryable(error) if status in (408, 429) or status >= 500 else error
        if "APIError" in names:  # an error event inside a stream
            message = self._scrub(_provider_message(exc))
            return ModelAPIError(f"模型接口报告错误：{message}", f"The model API reported an error: {message}",
                                 provider_message=message)
        if isinstance(exc, ValueError):  # JSON that does not decode
            return _garbage()
        return exc

    def _status_error(self, status: int, provider: str) -> ModelAPIError:
        message = self._scrub(provider) or "-"
        default = _SERVER_TEXT if status >= 500 else _OTHER_TEXT
        zh, en, zh_hint, en_hint = _STATUS_TEXT.get(status, default)
        return ModelAPIError(f"{zh} ({status})：{message}{zh_hint}", f"{en} ({status}): {message}{en_hint}",
                             status=status, provider_message=message)


_STATUS_TEXT = {
    400: ("模型接口不接受这个请求", "The model API rejected the request", "", ""),
    401: ("模型接口拒绝了密钥", "The model API rejected the key", "。请检查 LLM_API_KEY", ". Check LLM_API_KEY"),
    403: ("模型接口拒绝访问", "The model API denied access", "。请检查 LLM_API_KEY 的权限", ". Check LLM_API_KEY"),
    404: ("模型接口地址或模型不存在", "Model API URL or model not found",
          "。请检查 LLM_API_URL 和模型名", ". Check LLM_API_URL and the model name"),
    408: ("模型接口请求超时", "The model API timed out the request", "", ""),
    429: ("模型接口限流或额度不足", "The model API is rate limiting or out of quota", "", ""),
}
_SERVER_TEXT = ("模型服务出错", "The model service failed", "", "")
_OTHER_TEXT = ("模型接口返回错误", "The model API returned an error", "", "")


def _params(messages: list[dict], model: str, temperature: float, max_tokens: int, *, stream: bool) -> dict:
    params: dict[str, Any] = {"model": model, "messages": messages, "stream": stream,
                              "temperature": temperature, "max_tokens": max_tokens}
    if stream:
        params["stream_options"] = {"include_usage": True}
    return params


def _completion_text(response: Any) -> str:
    """Return the first choice's content, or raise ModelAPIError for anything that is not a completion."""
    if isinstance(response, (str, bytes)) or response is None:
        raise _garbage()
    try:
        choices = response.choices
    except AttributeError:
        raise _garbage() from None
    if not isinstance(choices, list):
        raise _garbage()
    if not choices:
        raise ModelAPIError("模型没有返回任何回答（choices 为空）。", "The model returned no answer (empty choices).",
                            status=200)
    content = getattr(getattr(choices[0], "message", None), "content", None)
    if not isinstance(content, str):
        raise ModelAPIError("模型的回答里没有文本内容。", "The model's answer has no text content.", status=200)
    return _clean_text(content)


def _chunk_text(chunk: Any) -> str:
    choices = getattr(chunk, "choices", None)
    if not isinstance(choices, list) or not choices:
        return ""
    content = getattr(getattr(choices[0], "delta", None), "content", None)
    return _clean_text(content) if isinstance(content, str) else ""


def _clean_text(text: str) -> str:
    """Replace lone surrogates (invalid UTF-16 halves a provider may send) so the text can be printed and saved."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _tokens(usage: Any, name: str) -> int:
    value = getattr(usage, name, 0) if usage is not None else 0
    return value if isinstance(value, int) else 0


def _provider_message(exc: Exception) -> str:
    """The provider's own error text: ``body.error.message``/``body.message``, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        if isinstance(message, str) and message.strip():
            return message
    if isinstance(body, str) and body.strip():
        return body
    return getattr(exc, "message", None) or str(exc)


def _garbage() -> ModelAPIError:
    return ModelAPIError("模型返回了无法识别的内容（不是有效的对话补全）。",
                         "The model API returned something that is not a valid chat completion.", status=200)


def _aborted() -> Aborted:
    return Aborted("已取消模型请求。", "The model request was cancelled.")


def _after_retries(error: ModelAPIError, retries: int) -> ModelAPIError:
    if retries == 0:
        return error
    zh, en = error.zh.rstrip("。"), error.en.rstrip(".")
    return type(error)(f"{zh}（已重试 {retries} 次）。", f"{en} (after {retries} retries).",
                       status=error.status, provider_message=error.provider_message)


def _interrupted(error: ModelAPIError) -> ModelAPIError:
    """A failure after text was shown: said plainly, never replayed (seed 002 FR-11)."""
    detail = error.provider_message or error.en
    return type(error)(f"模型回答到一半时出错，已显示的内容不完整（不会自动重试）：{detail}",
                       f"The model's answer broke off midway; the text shown is incomplete (not retried): {detail}",
                       status=error.status, provider_message=error.provider_message)


def _close_quietly(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception:  # noqa: BLE001 - closing a broken connection may fail; nothing to report
        pass
