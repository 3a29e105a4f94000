"""The exception tree of LocalAgent (house style §5).

Every error carries a Chinese and an English message for the user
(``message(lang)``) and the exit code the CLI maps it to (issue 2 exit codes:
0 done, 1 task failed or partial, 2 configuration error, 3 model/API error after
retries, 7 blocked by a safety check or denied, 9 plan awaiting approval,
130 cancelled). Recoverable errors (``ToolFailed``, ``InvalidArguments``,
``PermissionDenied``, ``PathDenied``, ``ParseError``) become results the model or
the user sees; fatal ones end the run. Messages never contain an API key.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_TASK_FAILED = 1
EXIT_CONFIG = 2
EXIT_MODEL = 3
EXIT_BLOCKED = 7
EXIT_PLAN_PENDING = 9
EXIT_CANCELLED = 130


class LocalAgentError(Exception):
    """Base of every LocalAgent error.

    Args:
        zh: the message in Chinese (shown by default).
        en: the message in English; defaults to ``zh``.
    """

    exit_code = EXIT_TASK_FAILED

    def __init__(self, zh: str, en: str | None = None) -> None:
        super().__init__(en or zh)
        self.zh = zh
        self.en = en or zh

    def message(self, lang: str = "zh") -> str:
        """Return the user-facing message in ``lang`` (``"zh"`` or ``"en"``)."""
        return self.en if lang == "en" else self.zh


class ConfigError(LocalAgentError):
    """Missing or invalid configuration (no key, bad URL, bad workspace). Exit 2."""

    exit_code = EXIT_CONFIG


class WorkspaceError(ConfigError):
    """The workspace folder cannot be used (missing, a file, a system directory). Exit 2."""


class ModelAPIError(LocalAgentError):
    """The model endpoint failed after retries (network, non-200, timeout). Exit 3.

    Attributes:
        status: the HTTP status code, or ``None`` for network errors and timeouts.
        provider_message: the provider's error text (never contains the key).
    """

    exit_code = EXIT_MODEL

    def __init__(self, zh: str, en: str | None = None, *, status: int | None = None,
                 provider_message: str = "") -> None:
        super().__init__(zh, en)
        self.status = status
        self.provider_message = provider_message


class ModelTimeout(ModelAPIError):
    """The model did not answer within the timeout (after retries). Exit 3."""


class ParseError(LocalAgentError):
    """Model text did not contain the strict structure asked for (seed 003: fail closed)."""


class PermissionDenied(LocalAgentError):
    """A safety check, a rule or a person said no. Exit 7."""

    exit_code = EXIT_BLOCKED


class PathDenied(PermissionDenied):
    """The access policy refused a path (seed 001 §6). ``reason`` is the user-facing text."""

    @property
    def reason(self) -> str:
        """The Chinese reason (same as ``zh``)."""
        return self.zh


class SandboxUnavailable(PermissionDenied):
    """The required isolation is not available, so nothing runs (fail closed). Exit 7."""


class ToolFailed(LocalAgentError):
    """A tool ran and failed; the result is shown, the run goes on."""


class InvalidArguments(LocalAgentError):
    """Input of the wrong shape: an empty sentence, a too-long one, bad tool arguments. Exit 2."""

    exit_code = EXIT_CONFIG


class Aborted(LocalAgentError):
    """The user cancelled (Ctrl-C, the Cancel button). Exit 130."""

    exit_code = EXIT_CANCELLED
