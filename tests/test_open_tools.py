"""Open tools (seed 001 §8.2, §15; issue 3 §3): refusals, and a fixed argv handed to the launcher seam."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from localagent.tools.open_tools import (
    OPEN_DIRECTORY_RISK,
    OPEN_FILE_RISK,
    REVEAL_RISK,
    launch_env,
    open_argv,
    open_directory,
    open_file,
    reveal_argv,
    reveal_in_explorer,
)
from localagent.tools.types import ToolContext, WorkspaceToolRisk
from localagent.workspace.policy import AccessPolicy

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="argv shape checked for xdg-open")


class RecordingLauncher:
    """The launcher seam: records each argv instead of starting a desktop program."""

    def __init__(self, error: OSError | None = None) -> None:
        self.calls: list[list[str]] = []
        self.error = error

    def __call__(self, argv: list[str]) -> None:
        self.calls.append(argv)
        if self.error is not None:
            raise self.error


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "my ws"
    (root / "docs 文档").mkdir(parents=True)
    for rel in ("main.cpp", "docs 文档/说明.md", "-rf.txt", "photo.png", "run.exe", "setup.bat", "link.lnk",
                "script.PS1", ".env", "server.pem", "my_password.txt"):
        (root / rel).write_bytes(b"x")
    (tmp_path / "outside.txt").write_text("x")
    return root


@pytest.fixture
def launcher() -> RecordingLauncher:
    return RecordingLauncher()


@pytest.fixture
def ctx(ws: Path, launcher: RecordingLauncher) -> ToolContext:
    return ToolContext(policy=AccessPolicy(ws), extra={"launcher": launcher})


def test_risk_levels() -> None:
    assert OPEN_FILE_RISK is WorkspaceToolRisk.MEDIUM
    assert OPEN_DIRECTORY_RISK is WorkspaceToolRisk.LOW and REVEAL_RISK is WorkspaceToolRisk.LOW


@linux_only
@pytest.mark.parametrize("rel", ["main.cpp", "docs 文档/说明.md", "photo.png"])
def test_open_file_hands_fixed_argv_to_launcher(ctx: ToolContext, ws: Path, launcher: RecordingLauncher,
                                                rel: str) -> None:
    result = open_file(ctx, rel)
    assert result.success and result.target_path == rel
    assert launcher.calls == [["xdg-open", str(ws.resolve() / rel)]]


@linux_only
def test_dash_name_is_passed_as_absolute_path(ctx: ToolContext, ws: Path, launcher: RecordingLauncher) -> None:
    assert open_file(ctx, "-rf.txt").success
    (argv,) = launcher.calls
    assert argv == ["xdg-open", str(ws.resolve() / "-rf.txt")] and argv[1].startswith("/")


@pytest.mark.parametrize("rel, words", [
    ("run.exe", "危险"), ("setup.bat", "危险"), ("link.lnk", "危险"), ("script.PS1", "危险"),
    (".env", "敏感"), ("server.pem", "敏感"), ("my_password.txt", "敏感"),
    ("docs 文档", "文件夹"), ("missing.txt", "不存在"), ("../outside.txt", "工作区"),
])
def test_open_file_refusals_never_launch(ctx: ToolContext, launcher: RecordingLauncher, rel: str,
                                         words: str) -> None:
    result = open_file(ctx, rel)
    assert not result.success and words in result.error_message
    assert launcher.calls == []


def test_open_file_outside_absolute_refused(ctx: ToolContext, ws: Path, launcher: RecordingLauncher) -> None:
    assert not open_file(ctx, str(ws.parent / "outside.txt")).success
    assert launcher.calls == []


def test_launcher_failure_becomes_result(ws: Path) -> None:
    failing = RecordingLauncher(FileNotFoundError(2, "No such file or directory"))
    ctx = ToolContext(policy=AccessPolicy(ws), extra={"launcher": failing})
    result = open_file(ctx, "main.cpp")
    assert not result.success and "无法打开" in result.error_message and len(failing.calls) == 1


@linux_only
def test_open_directory(ctx: ToolContext, ws: Path, launcher: RecordingLauncher) -> None:
    assert open_directory(ctx, "docs 文档").success
    assert open_directory(ctx).success
    assert launcher.calls == [["xdg-open", str(ws.resolve() / "docs 文档")], ["xdg-open", str(ws.resolve())]]


def test_open_directory_refusals(ctx: ToolContext, ws: Path, launcher: RecordingLauncher) -> None:
    assert not open_directory(ctx, "main.cpp").success
    assert not open_directory(ctx, "..").success
    assert not open_directory(ctx, str(ws.parent)).success
    assert not open_directory(ctx, "nope").success
    assert launcher.calls == []


@linux_only
def test_reveal_opens_containing_folder(ctx: ToolContext, ws: Path, launcher: RecordingLauncher) -> None:
    result = reveal_in_explorer(ctx, "docs 文档/说明.md")
    assert result.success and "说明.md" in result.message
    assert launcher.calls == [["xdg-open", str(ws.resolve() / "docs 文档")]]


def test_reveal_refusals(ctx: ToolContext, launcher: RecordingLauncher) -> None:
    assert not reveal_in_explorer(ctx, "../outside.txt").success
    assert not reveal_in_explorer(ctx, "missing.txt").success
    assert not reveal_in_explorer(ctx, ".").success  # its folder is outside the workspace
    assert launcher.calls == []


def test_argv_shapes_are_fixed(tmp_path: Path) -> None:
    target = tmp_path / "a b" / "c.txt"
    argv = open_argv(target)
    assert argv[-1] == str(target) and len(argv) == 2
    reveal = reveal_argv(target)
    assert reveal[-1].endswith(str(target) if sys.platform in ("win32", "darwin") else str(target.parent))


def test_launch_env_has_no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LLM_API_KEY", "sk-test-should-not-leak")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-2")
    monkeypatch.setenv("DISPLAY", ":99")
    env = launch_env()
    assert "LLM_API_KEY" not in env and "OPENAI_API_KEY" not in env
    assert env["DISPLAY"] == ":99" and env["PATH"] == "/usr/local/bin:/usr/bin:/bin"
    assert "sk-test" not in " ".join(env.values())
