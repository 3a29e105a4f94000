"""Operation journal and undo (issue 3 §3): each entry type, refusals when changed, LIFO order."""

from __future__ import annotations

import json

from localagent.tools.undo_tools import CHANGED_REFUSAL
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
from localagent.workspace.journal import OperationJournal, new_entry
from tests.write_fixtures import ctx_fixture, trash_fixture, workspace_fixture  # noqa: F401 - fixtures


def _visible(root) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (None if p.is_dir() else p.read_bytes())
            for p in sorted(root.rglob("*")) if not p.relative_to(root).as_posix().startswith(".localagent")}


def test_nothing_to_undo(ctx):
    result = undo_last(ctx)
    assert not result.success and "没有" in result.error_message


def test_undo_write_restores_backup_and_keeps_current_version(ctx, workspace):
    (workspace / "a.txt").write_bytes(b"v1\r\n")
    assert write_file(ctx, "a.txt", "v2\n").success
    result = undo_last(ctx)
    assert result.success, result.error_message
    assert (workspace / "a.txt").read_bytes() == b"v1\r\n"
    backups = sorted(p.read_bytes() for p in (workspace / ".localagent" / "backups").iterdir())
    assert backups == [b"v1\r\n", b"v2\r\n"]  # the undone version was backed up too
    assert ctx.journal.last() is None


def test_undo_write_refused_when_changed_since(ctx, workspace):
    (workspace / "a.txt").write_text("v1")
    assert write_file(ctx, "a.txt", "v2").success
    (workspace / "a.txt").write_text("edited by hand")
    result = undo_last(ctx)
    assert not result.success and CHANGED_REFUSAL[0] in result.error_message
    assert (workspace / "a.txt").read_text() == "edited by hand"
    assert ctx.journal.last().type == "write_file"  # still undoable once the file is back


def test_undo_create_file_sends_it_to_trash(ctx, workspace, trash):
    assert create_file(ctx, "new.txt", "hello").success
    result = undo_last(ctx)
    assert result.success, result.error_message
    assert not (workspace / "new.txt").exists()
    assert (trash / "files" / "new.txt").read_text() == "hello"


def test_undo_create_file_refused_when_changed(ctx, workspace, trash):
    assert create_file(ctx, "new.txt", "hello").success
    (workspace / "new.txt").write_text("user work")
    result = undo_last(ctx)
    assert not result.success and CHANGED_REFUSAL[0] in result.error_message
    assert (workspace / "new.txt").read_text() == "user work"
    assert not (trash / "files").exists()


def test_undo_copy_sends_copy_to_trash_and_keeps_source(ctx, workspace, trash):
    (workspace / "a.txt").write_text("A")
    assert copy_file(ctx, "a.txt", "b.txt").success
    assert undo_last(ctx).success
    assert _visible(workspace) == {"a.txt": b"A"}
    assert (trash / "files" / "b.txt").read_text() == "A"


def test_undo_create_directory_only_when_empty(ctx, workspace):
    assert create_directory(ctx, "docs").success
    (workspace / "docs" / "x.md").write_text("x")
    result = undo_last(ctx)
    assert not result.success and "空" in result.error_message
    assert (workspace / "docs" / "x.md").exists()
    (workspace / "docs" / "x.md").unlink()
    assert undo_last(ctx).success
    assert not (workspace / "docs").exists()


def test_undo_move_moves_back(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    (workspace / "docs").mkdir()
    assert move_file(ctx, "a.txt", "docs").success
    result = undo_last(ctx)
    assert result.success, result.error_message
    assert _visible(workspace) == {"a.txt": b"A", "docs": None}


def test_undo_move_refused_when_old_place_taken(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    assert move_file(ctx, "a.txt", "b.txt").success
    (workspace / "a.txt").write_text("new occupant")
    result = undo_last(ctx)
    assert not result.success and "占用" in result.error_message
    assert _visible(workspace) == {"a.txt": b"new occupant", "b.txt": b"A"}


def test_undo_move_refused_when_moved_file_changed(ctx, workspace):
    (workspace / "a.txt").write_text("A")
    assert move_file(ctx, "a.txt", "b.txt").success
    (workspace / "b.txt").write_text("changed")
    assert CHANGED_REFUSAL[0] in undo_last(ctx).error_message
    assert _visible(workspace) == {"b.txt": b"changed"}


def test_undo_rename_and_case_only_rename(ctx, workspace):
    (workspace / "old.md").write_text("M")
    assert rename_file(ctx, "old.md", "new.md").success
    assert rename_file(ctx, "new.md", "NEW.md").success
    assert undo_last(ctx).success
    assert _visible(workspace) == {"new.md": b"M"}
    assert undo_last(ctx).success
    assert _visible(workspace) == {"old.md": b"M"}


def test_undo_folder_rename(ctx, workspace):
    (workspace / "docs").mkdir()
    (workspace / "docs" / "x").write_text("x")
    assert rename_file(ctx, "docs", "doc").success
    assert undo_last(ctx).success
    assert _visible(workspace) == {"docs": None, "docs/x": b"x"}


def test_undo_delete_points_to_recycle_bin_then_moves_on(ctx, workspace, trash):
    (workspace / "a.txt").write_text("A")
    assert create_file(ctx, "b.txt", "B").success
    assert delete_to_trash(ctx, "a.txt").success
    result = undo_last(ctx)
    assert not result.success and "请到回收站中还原 a.txt" in result.error_message
    assert not (workspace / "a.txt").exists()
    assert ctx.journal.last().type == "create_file"  # the next undo handles the earlier operation
    assert undo_last(ctx).success
    assert not (workspace / "b.txt").exists()


def test_undo_is_last_in_first_out(ctx, workspace, trash):
    (workspace / "a.txt").write_text("1")
    assert create_directory(ctx, "d").success
    assert write_file(ctx, "a.txt", "2").success
    assert move_file(ctx, "a.txt", "d/a.txt").success
    assert write_file(ctx, "d/a.txt", "3").success
    for _ in range(4):
        result = undo_last(ctx)
        assert result.success, result.error_message
    assert _visible(workspace) == {"a.txt": b"1"}
    assert not undo_last(ctx).success


def test_journal_is_jsonl_without_contents(ctx, workspace):
    (workspace / "a.txt").write_text("PRIVATE-WORDS-1")
    assert write_file(ctx, "a.txt", "PRIVATE-WORDS-2").success
    assert create_file(ctx, "b.txt", "PRIVATE-WORDS-3").success
    text = (workspace / ".localagent" / "journal.jsonl").read_text(encoding="utf-8")
    assert "PRIVATE-WORDS" not in text
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["type"] for r in rows] == ["write_file", "create_file"]
    assert all(len(r["sha256"]) == 64 and r["size"] == 15 for r in rows)


def test_journal_survives_a_torn_last_line(workspace):
    journal = OperationJournal(workspace)
    (workspace / "x.txt").write_text("x")
    first = new_entry("create_file", target="x.txt", result=workspace / "x.txt")
    journal.record(first)
    with open(journal.path, "a", encoding="utf-8") as fh:
        fh.write('{"kind": "op", "id": "torn", "ty')  # a crash while appending
    second = new_entry("create_directory", target="d", is_directory=True)
    journal.record(second)
    assert [e.id for e in journal.entries()] == [first.id, second.id]
    journal.mark_undone(second.id)
    assert journal.last().id == first.id


def test_undo_refuses_a_crafted_backup_name(ctx, workspace, tmp_path):
    (workspace / "a.txt").write_text("A")
    (tmp_path / "stolen.bak").write_text("outside")
    entry = new_entry("write_file", target="a.txt", backup="../../../stolen.bak", result=workspace / "a.txt")
    ctx.journal.record(entry)
    result = undo_last(ctx)
    assert not result.success
    assert (workspace / "a.txt").read_text() == "A"


def test_undo_refuses_a_crafted_path_outside(ctx, workspace, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("O")
    entry = new_entry("create_file", target="../outside.txt", result=outside)
    ctx.journal.record(entry)
    assert not undo_last(ctx).success
    assert outside.read_text() == "O"
