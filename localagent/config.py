"""Settings, read once at the edge (house style §7; issue 2 part 2).

Sources, weakest first: built-in defaults < ``.env`` in the user config dir
(``platformdirs.user_config_dir("localagent")``) < ``.env`` in the working
directory < process environment < command-line overrides. ``.env`` files are read
with ``dotenv_values`` and never copied into ``os.environ``, so the API key cannot
leak into a child process through inheritance.

Keys and defaults of seed 000 (``.env.example``): ``LLM_API_URL``,
``LLM_API_KEY``, ``INTENT_MODEL_NAME``, ``GENERATION_MODEL_NAME``; optional keys
are listed in :data:`OPTIONAL_KEYS`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping

from localagent.errors import ConfigError

DEFAULT_API_URL = "https://api.siliconflow.cn/v1/chat/completions"
DEFAULT_INTENT_MODEL = "qwen2.5:7b-instruct"
DEFAULT_GENERATION_MODEL = "Pro/zai-org/GLM-4.7"
PLACEHOLDER_KEYS = frozenset({"", "your_api_key_here"})

#: Optional keys beyond the seed's four, with their meaning.
OPTIONAL_KEYS = {
    "LOCALAGENT_WORKSPACE": "workspace folder (default ./workspace)",
    "LOCALAGENT_LANG": "zh or en",
    "LLM_TIMEOUT": "seconds per model request (default 60)",
    "LLM_MAX_RETRIES": "retries of transient model errors (default 3, seed 002 FR-11)",
    "TASK_TIMEOUT": "seconds a task may run in the sandbox (default 120)",
    "SCAN_MAX_FILES": "files indexed per scan (default 5000, seed 001 §7)",
    "SCAN_MAX_DEPTH": "directory depth scanned (default 8, seed 001 §7)",
}


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything LocalAgent reads from configuration.

    Attributes:
        llm_api_url: the chat-completions URL or base URL as configured.
        llm_api_key: the key; ``""`` when none is configured. Never logged.
        intent_model_name / generation_model_name: model names (seed 000).
        workspace: the workspace folder (absolute or relative to the cwd).
        lang: ``"zh"``/``"en"`` or ``""`` for the locale's choice.
        llm_timeout: seconds per model request.
        llm_max_retries: retries of transient failures (at most 3, seed 002 FR-11).
        task_timeout: seconds a task may run (seed 000 step 6; default 120).
        scan_max_files / scan_max_depth: scan limits (seed 001 §7).
    """

    llm_api_url: str = DEFAULT_API_URL
    llm_api_key: str = field(default="", repr=False)
    intent_model_name: str = DEFAULT_INTENT_MODEL
    generation_model_name: str = DEFAULT_GENERATION_MODEL
    workspace: Path = Path("workspace")
    lang: str = ""
    llm_timeout: float = 60.0
    llm_max_retries: int = 3
    task_timeout: float = 120.0
    scan_max_files: int = 5000
    scan_max_depth: int = 8

    @property
    def has_key(self) -> bool:
        """True when a real key (not the ``.env.example`` placeholder) is set."""
        return self.llm_api_key.strip() not in PLACEHOLDER_KEYS

    @property
    def base_url(self) -> str:
        """The OpenAI-compatible base URL: ``LLM_API_URL`` without ``/chat/completions``."""
        url = self.llm_api_url.strip().rstrip("/")
        suffix = "/chat/completions"
        return url[: -len(suffix)] if url.endswith(suffix) else url

    def require_key(self) -> str:
        """Return the key, or raise :class:`ConfigError` naming ``LLM_API_KEY`` (exit 2)."""
        if not self.has_key:
            raise ConfigError(
                "未配置模型密钥：请在 .env 中设置 LLM_API_KEY（参考 .env.example）。",
                "No model key configured: set LLM_API_KEY in .env (see .env.example).",
            )
        return self.llm_api_key.strip()

    def with_overrides(self, **changes: object) -> "Settings":
        """Return a copy with the given non-``None`` fields replaced (command-line flags)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


def user_config_dir() -> Path:
    """Return the per-user config folder (``platformdirs``); may not exist."""
    import platformdirs

    return Path(platformdirs.user_config_dir("localagent", appauthor=False))


def load_settings(cwd: Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Read settings from the user ``.env``, the cwd ``.env`` and the environment.

    Args:
        cwd: folder whose ``.env`` is read; defaults to the current directory.
        environ: the environment to read; defaults to ``os.environ``.

    Returns:
        The merged :class:`Settings`.

    Raises:
        ConfigError: a numeric key does not hold a number.
    """
    from dotenv import dotenv_values

    env = os.environ if environ is None else environ
    merged: dict[str, str] = {}
    for path in (user_config_dir() / ".env", (cwd or Path.cwd()) / ".env"):
        if path.is_file():
            merged.update({k: v for k, v in dotenv_values(path).items() if v is not None})
    merged.update({k: v for k, v in env.items() if k in _KEY_FIELDS})
    values: dict[str, object] = {}
    for key, (name, kind) in _KEY_FIELDS.items():
        if key in merged and merged[key].strip() != "":
            values[name] = _convert(key, merged[key].strip(), kind)
    return Settings(**values)


_KEY_FIELDS: dict[str, tuple[str, type]] = {
    "LLM_API_URL": ("llm_api_url", str),
    "LLM_API_KEY": ("llm_api_key", str),
    "INTENT_MODEL_NAME": ("intent_model_name", str),
    "GENERATION_MODEL_NAME": ("generation_model_name", str),
    "LOCALAGENT_WORKSPACE": ("workspace", Path),
    "LOCALAGENT_LANG": ("lang", str),
    "LLM_TIMEOUT": ("llm_timeout", float),
    "LLM_MAX_RETRIES": ("llm_max_retries", int),
    "TASK_TIMEOUT": ("task_timeout", float),
    "SCAN_MAX_FILES": ("scan_max_files", int),
    "SCAN_MAX_DEPTH": ("scan_max_depth", int),
}


def _convert(key: str, raw: str, kind: type) -> object:
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"配置项 {key} 的值无效：应为数字。", f"{key} must be a number.") from None
    if kind in (int, float) and value < 0:  # type: ignore[operator]
        raise ConfigError(f"配置项 {key} 不能为负数。", f"{key} must not be negative.")
    if key == "LLM_MAX_RETRIES":
        value = min(int(value), 3)  # seed 002 FR-11: at most 3 retries
    return value
