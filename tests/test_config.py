"""Settings sources and precedence (issue 2 part 2)."""

from __future__ import annotations

import os

import pytest

from localagent.config import Settings, load_settings, user_config_dir
from localagent.errors import ConfigError


def test_defaults_are_the_seed_values(tmp_path):
    settings = load_settings(cwd=tmp_path, environ={})
    assert settings.llm_api_url == "https://api.siliconflow.cn/v1/chat/completions"
    assert settings.intent_model_name == "qwen2.5:7b-instruct"
    assert settings.generation_model_name == "Pro/zai-org/GLM-4.7"
    assert not settings.has_key


def test_cwd_env_beats_user_config_and_environment_beats_both(tmp_path):
    user_dir = user_config_dir()
    user_dir.mkdir(parents=True, exist_ok=True)
    (user_dir / ".env").write_text("LLM_API_KEY=sk-user\nINTENT_MODEL_NAME=user-model\nTASK_TIMEOUT=30\n")
    (tmp_path / ".env").write_text("LLM_API_KEY=sk-cwd\nGENERATION_MODEL_NAME=cwd-model\n")
    settings = load_settings(cwd=tmp_path, environ={"GENERATION_MODEL_NAME": "env-model"})
    assert settings.llm_api_key == "sk-cwd"
    assert settings.intent_model_name == "user-model"
    assert settings.generation_model_name == "env-model"
    assert settings.task_timeout == 30.0


def test_env_file_is_not_copied_into_the_process_environment(tmp_path):
    (tmp_path / ".env").write_text("LLM_API_KEY=sk-never-in-environ\n")
    assert load_settings(cwd=tmp_path, environ={}).llm_api_key == "sk-never-in-environ"
    assert "sk-never-in-environ" not in os.environ.values()


@pytest.mark.parametrize("url,base", [
    ("https://api.siliconflow.cn/v1/chat/completions", "https://api.siliconflow.cn/v1"),
    ("https://api.deepseek.com/v1/chat/completions/", "https://api.deepseek.com/v1"),
    ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
    ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
])
def test_full_url_or_base_url(url, base):
    assert Settings(llm_api_url=url).base_url == base


@pytest.mark.parametrize("key", ["", "   ", "your_api_key_here"])
def test_missing_or_placeholder_key_names_the_variable(key):
    with pytest.raises(ConfigError) as caught:
        Settings(llm_api_key=key).require_key()
    assert "LLM_API_KEY" in caught.value.message("zh") and ".env.example" in caught.value.message("en")
    assert caught.value.exit_code == 2


def test_bad_numbers_are_config_errors(tmp_path):
    with pytest.raises(ConfigError):
        load_settings(cwd=tmp_path, environ={"TASK_TIMEOUT": "soon"})
    with pytest.raises(ConfigError):
        load_settings(cwd=tmp_path, environ={"LLM_TIMEOUT": "-1"})


def test_retries_are_capped_at_three(tmp_path):
    assert load_settings(cwd=tmp_path, environ={"LLM_MAX_RETRIES": "10"}).llm_max_retries == 3


def test_key_is_not_in_repr():
    assert "sk-secret" not in repr(Settings(llm_api_key="sk-secret"))


def test_env_example_has_exactly_the_seed_keys():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / ".env.example").read_text(encoding="utf-8")
    active = [line.split("=")[0] for line in text.splitlines() if line and not line.startswith("#")]
    assert active == ["LLM_API_URL", "LLM_API_KEY", "INTENT_MODEL_NAME", "GENERATION_MODEL_NAME"]
    assert "LLM_API_URL=https://api.siliconflow.cn/v1/chat/completions" in text
    assert "GENERATION_MODEL_NAME=Pro/zai-org/GLM-4.7" in text
