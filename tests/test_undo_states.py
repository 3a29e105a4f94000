"""Undo for every journal entry type × result state (issue 3 §3): ready, changed, missing, old place taken.

A step that can never be undone (a deletion to the recycle bin, a result that no longer exists, a
lost backup) is marked handled with a clear message, so the next undo reaches the step before; a
step that something in the workspace blocks (changed result, old place taken, folder not empty)
says what blocks it, stays on the list and never lets an older step be skipped silently.
"""

from __future__ import annotations

import json

import pytest

from localagent.tools.undo_tools import BLOCKED, DISMISS, READY, check_undo, describe_entry
from localagent.tools.write_tools import (
    copy_file,
    create_directory,
    create_file,
    delete_to_trash,
    move_file,
    rename_file,
    undo_last,
    write_file,
)
from tests.write_fixtures import ctx_fixture, trash_fixture, workspace_fixture  # noqa: F401 - fixtures


def _make(kind, ctx, ws):
    """Run one write of ``kind`` after an earlier ``create_file keep.txt``; return the result's path."""
    assert create_file(ctx, "keep.txt", "K").success
    (ws / "a.txt").write_text("A")
    (ws / "docs").mkdir()
    done = {
        "create_file": lambda: create_file(ctx, "new.txt", "N"),
        "create_directory": lambda: create_directory(ctx, "made"),
        "write_file": lambda: write_file(ctx, "a.txt", "A2"),
        "copy_file": lambda: copy_file(ctx, "a.txt", "docs/a.txt"),
        "move_file": lambda: move_file(ctx, "a.txt", "docs/a.txt"),
        "rename_file": lambda: rename_file(ctx, "a.txt", "b.txt"),
    }[kind]()
    assert done.success, done.error_message
    return ctx.journal.last()


KINDS = ["create_file", "create_directory", "write_file", "copy_file", "move_file", "rename_file"]


@pytest.mark.parametrize("kind", KINDS)
def test_unchanged_result_is_ready_and_undone(kind, ctx, workspace, trash):
    entry = _make(kind, ctx, workspace)
    assert check_undo(ctx, entry).state == READY
    assert undo_last(ctx, entry_id=entry.id).success
    assert ctx.journal.last().target == "keep.txt"


@pytest.mark.parametrize("kind", KINDS)
def test_missing_result_is_dismissed_and_the_step_before_is_reached(kind, ctx, workspace, trash):
    entry = _make(kind, ctx, workspace)
    result_path = workspace / entry.target
    if result_path.is_dir():
        result_path.rmdir()
    else:
        result_path.unlink()
    check = check_undo(ctx, entry)
    assert check.state == DISMISS and "已不存在" in check.zh and "no longer exists" in check.en
    result = undo_last(ctx)
    assert not result.success and "已不存在" in result.message and "修改过" not in result.message
    assert "创建文件 keep.txt" in result.message  # names the step the next undo handles
    assert ctx.journal.last().target == "keep.txt"
    assert undo_last(ctx).success and not (workspace / "keep.txt").exists()


@pytest.mark.parametrize("kind", ["create_file", "write_file", "copy_file", "move_file", "rename_file"])
def test_changed_result_blocks_and_stays_on_the_list(kind, ctx, workspace, trash):
    entry = _make(kind, ctx, workspace)
    (workspace / entry.target).write_text("edited by hand")
    check = check_undo(ctx, entry)
    assert check.state == BLOCKED and "修改过" in check.zh and entry.target in check.zh
    assert "更早的操作" in check.zh  # says that older steps wait for this one
    result = undo_last(ctx)
    assert not result.success and (workspace / entry.target).read_text() == "edited by hand"
    assert ctx.journal.last().id == entry.id  # not skipped silently
    (workspace / entry.target).unlink()  # the user deals with it: now it no longer exists
    assert check_undo(ctx, entry).state == DISMISS


def test_folder_replaced_by_a_file_blocks(ctx, workspace):
    entry = _make("create_directory", ctx, workspace)
    (workspace / "made").rmdir()
    (workspace / "made").write_text("a file now")
    assert check_undo(ctx, entry).state == BLOCKED


def test_folder_no_longer_empty_blocks_until_emptied(ctx, workspace):
    entry = _make("create_directory", ctx, workspace)
    (workspace / "made" / "x.md").write_text("x")
    check = check_undo(ctx, entry)
    assert check.state == BLOCKED and "空" in check.zh
    (workspace / "made" / "x.md").unlink()
    assert check_undo(ctx, entry).state == READY


@pytest.mark.parametrize("kind", ["move_file", "rename_file"])
def test_old_place_taken_blocks_until_freed(kind, ctx, workspace):
    entry = _make(kind, ctx, workspace)
    (workspace / "a.txt").write_text("new occupant")
    check = check_undo(ctx, entry)
    assert check.state == BLOCKED and "占用" in check.zh and "a.txt" in check.zh
    assert not undo_last(ctx).success and ctx.journal.last().id == entry.id
    (workspace / "a.txt").unlink()
    assert undo_last(ctx).success and (workspace / "a.txt").read_text() == "A"


def test_lost_backup_is_dismissed(ctx, workspace):
    entry = _make("write_file", ctx, workspace)
    (workspace / ".localagent" / "backups" / entry.backup).unlink()
    check = check_undo(ctx, entry)
    assert check.state == DISMISS and entry.backup in check.zh
    assert not undo_last(ctx).success and ctx.journal.last().target == "keep.txt"
    assert (workspace / "a.txt").read_text() == "A2"


def test_deletion_is_dismissed_with_the_recycle_bin_hint(ctx, workspace, trash):
    assert create_file(ctx, "keep.txt", "K").success
    (workspace / "b.txt").write_text("B")
    assert delete_to_trash(ctx, "b.txt").success
    entry = ctx.journal.last()
    check = check_undo(ctx, entry)
    assert check.state == DISMISS and "请到回收站中还原 b.txt" in check.zh
    result = undo_last(ctx)
    assert not result.success and "回收站" in result.message and "创建文件 keep.txt" in result.message
    rows = [json.loads(line) for line in ctx.journal.path.read_text(encoding="utf-8").splitlines()]
    assert rows[-1] == {**rows[-1], "kind": "undo", "id": entry.id, "dismissed": True}


def test_a_stale_confirmation_undoes_nothing(ctx, workspace, trash):
    entry = _make("create_file", ctx, workspace)
    assert create_file(ctx, "later.txt", "L").success  # the journal moved on after the plan
    result = undo_last(ctx, entry_id=entry.id)
    assert not result.success and (workspace / "later.txt").exists() and (workspace / "new.txt").exists()


def test_describe_entry_names_type_and_paths(ctx, workspace):
    entry = _make("rename_file", ctx, workspace)
    assert describe_entry(entry, "zh") == "重命名 a.txt → b.txt"
    assert describe_entry(entry, "en") == "rename a.txt → b.txt"
