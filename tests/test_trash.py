"""Delete to the recycle bin: seed 001 §15 删除到回收站, every line, in a temporary home."""

from __future__ import annotations

import pytest

from localagent.tools.trash_tools import (
    BATCH_DELETE_REFUSAL,
    PERMANENT_DELETE_REFUSAL,
    delete_permanently,
    is_batch_request,
    refuse_dangerous_action,
)
from localagent.tools.write_tools import delete_to_trash
from tests.write_fixtures import ctx_fixture, trash_fixture, workspace_fixture  # noqa: F401 - fixtures


def _in_trash(trash_dir, name: str) -> bool:
    return (trash_dir / "files" / name).exists() and (trash_dir / "info" / f"{name}.trashinfo").is_file()


def test_delete_normal_file_to_trash(ctx, workspace, trash):
    (workspace / "tmp.log").write_text("log line")
    result = delete_to_trash(ctx, "tmp.log")
    assert result.success, result.error_message
    assert result.target_path == "tmp.log"
    assert not (workspace / "tmp.log").exists()
    assert _in_trash(trash, "tmp.log")
    assert (trash / "files" / "tmp.log").read_text() == "log line"
    entry = ctx.journal.last()
    assert (entry.type, entry.source, entry.is_directory) == ("delete_to_trash", "tmp.log", False)


def test_delete_folder_needs_strong_confirmation(ctx, workspace, trash):
    (workspace / "old").mkdir()
    (workspace / "old" / "a.txt").write_text("a")
    refused = delete_to_trash(ctx, "old")
    assert not refused.success and "强确认" in refused.error_message
    assert (workspace / "old" / "a.txt").exists()
    result = delete_to_trash(ctx, "old", strong_confirmed=True)
    assert result.success, result.error_message
    assert not (workspace / "old").exists()
    assert _in_trash(trash, "old") and (trash / "files" / "old" / "a.txt").read_text() == "a"
    assert ctx.journal.last().is_directory


def test_delete_outside_workspace_refused(ctx, workspace, trash, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("v")
    for path in ("../victim.txt", str(victim), "sub/../../victim.txt", "..\\victim.txt"):
        assert not delete_to_trash(ctx, path).success, path
    assert victim.read_text() == "v"
    assert not (trash / "files").exists() or not any((trash / "files").iterdir())


def test_permanent_delete_refused(ctx, workspace, trash):
    (workspace / "a.txt").write_text("a")
    for result in (delete_to_trash(ctx, "a.txt", permanent=True), delete_permanently(ctx, "a.txt")):
        assert not result.success
        assert result.error_message == PERMANENT_DELETE_REFUSAL[0] == "不允许永久删除文件，只能删除到回收站。"
    assert (workspace / "a.txt").read_text() == "a"


@pytest.mark.parametrize("request_", [["a.log", "b.log"], ("a.log", "b.log"), "*.log", "a?.log", "a.log\nb.log"])
def test_batch_delete_refused(ctx, workspace, trash, request_):
    (workspace / "a.log").write_text("a")
    (workspace / "b.log").write_text("b")
    result = delete_to_trash(ctx, request_)
    assert not result.success
    assert result.error_message == BATCH_DELETE_REFUSAL[0] == "第一阶段不支持批量删除。"
    assert (workspace / "a.log").exists() and (workspace / "b.log").exists()


def test_batch_request_detection():
    assert is_batch_request(["a", "b"]) and is_batch_request([]) and is_batch_request("src/*.py")
    assert not is_batch_request("a.log") and not is_batch_request(["a.log"])


def test_single_item_list_is_one_delete(ctx, workspace, trash):
    (workspace / "a.log").write_text("a")
    assert delete_to_trash(ctx, ["a.log"]).success
    assert _in_trash(trash, "a.log")


def test_delete_root_protected_and_missing_refused(ctx, workspace, trash):
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text("ref")
    (workspace / ".localagent").mkdir()
    for path in (".", "", str(workspace), ".git", ".git/HEAD", ".GIT/HEAD", ".localagent", "missing.txt"):
        assert not delete_to_trash(ctx, path, strong_confirmed=True).success, path
    assert (workspace / ".git" / "HEAD").read_text() == "ref"
    assert workspace.is_dir()


def test_english_refusal(workspace, trash):
    from localagent.tools.types import ToolContext
    from localagent.workspace.policy import AccessPolicy

    en = ToolContext(policy=AccessPolicy(workspace), lang="en")
    assert delete_to_trash(en, "*.log").error_message == BATCH_DELETE_REFUSAL[1]
    assert delete_permanently(en, "x").error_message == PERMANENT_DELETE_REFUSAL[1]


def test_dangerous_action_refused(ctx):
    result = refuse_dangerous_action(ctx, "rm -rf")
    assert not result.success and "危险" in result.error_message
