"""The child's environment is built from an allowlist (issue 2 part 11): no key, no proxy, no loader hook."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from localagent.executor.env import build_child_env, is_forbidden_name
from localagent.executor.sandbox_runner import run_task
from tests.helpers import ISOLATIONS

SECRETS = {
    "LLM_API_KEY": "sk-secret-value-123",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-456",
    "GITHUB_TOKEN": "ghp_token789",
    "DB_PASSWORD": "hunter2",
    "HTTPS_PROXY": "http://proxy.invalid:3128",
    "http_proxy": "http://proxy.invalid:3128",
    "ALL_PROXY": "socks5://proxy.invalid:1080",
    "no_proxy": "localhost",
    "PYTHONPATH": "/evil",
    "PYTHONSTARTUP": "/evil/startup.py",
    "LD_PRELOAD": "/evil/lib.so",
    "DYLD_INSERT_LIBRARIES": "/evil/lib.dylib",
}


def test_build_child_env_keeps_only_the_allowlist():
    parent = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "zh_CN.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp",
              "SYSTEMROOT": "C:\\Windows", "EDITOR": "vim", "SSH_AUTH_SOCK": "/tmp/agent", **SECRETS}
    env = build_child_env(environ=parent)
    assert env == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "zh_CN.UTF-8", "LC_ALL": "C.UTF-8",
                   "TMPDIR": "/tmp", "SYSTEMROOT": "C:\\Windows", "PYTHONUTF8": "1",
                   "PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"}


@pytest.mark.parametrize("name", sorted(SECRETS) + ["OPENAI_API_KEY", "Https_Proxy", "PYTHONHOME", "LD_LIBRARY_PATH",
                                                      "my_secret", "SESSION_TOKEN", "api_key"])
def test_extra_refuses_secrets_proxies_and_loader_hooks(name):
    assert is_forbidden_name(name)
    with pytest.raises(ValueError):
        build_child_env({name: "x"}, environ={})


def test_extra_adds_plain_names_and_fixed_values_win():
    env = build_child_env({"LOCALAGENT_RUN_ID": "abc", "PYTHONUTF8": "0"}, environ={"PATH": "/bin"})
    assert env["LOCALAGENT_RUN_ID"] == "abc"
    assert env["PYTHONUTF8"] == "1"
    assert not is_forbidden_name("PATH") and not is_forbidden_name("LANG")


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_real_child_sees_no_secret(tmp_path: Path, monkeypatch, isolation):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    root = tmp_path / "ws"
    layout = SimpleNamespace(root=root, input=root / "input", output=root / "output", logs=root / "logs")
    for folder in (layout.input, layout.output, layout.logs):
        folder.mkdir(parents=True)
    code = root / "task_env.py"
    code.write_text("import json, os\nprint('ENV ' + json.dumps(dict(os.environ)))\n", encoding="utf-8")
    lines: list[str] = []
    result = run_task(code, layout, "env", isolation=isolation, timeout=60, on_output=lines.append)
    assert result.returncode == 0, result.log_path.read_text(encoding="utf-8")
    child_env = json.loads(next(line for line in lines if line.startswith("ENV "))[4:])
    for name in SECRETS:
        assert name not in child_env
    assert child_env["PYTHONUTF8"] == "1"
    log_text = result.log_path.read_text(encoding="utf-8")
    for value in SECRETS.values():
        assert value not in log_text
