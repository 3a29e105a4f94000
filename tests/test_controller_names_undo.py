"""WorkspaceController: names with 文件 or spaces, the undo plan, scan lists, folders by ordinal (seed 001 §10–§15).

Faults a newcomer trial found: "读取 文件.txt" read ".txt"; a name with spaces was not a request; undo of a
deletion asked for a yes and then blocked every older step; a scan listed no files; "读取第3个" on a folder
replaced the result list without saying so; a model error in analysis was an ordinary failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from localagent.agent.workspace_controller import ActionOutcome, WorkspaceController
from localagent.agent.workspace_requests import parse_request
from localagent.errors import ModelAPIError
from localagent.llm.client import LLMClient
from localagent.ui.workspace_render import render_action
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.fixtures import TEST_KEY, fake_llm  # noqa: F401
from tests.write_fixtures import trash_fixture  # noqa: F401 - the "trash" fixture

NAMES = ["文件.txt", "说明 文件.txt", "my file.md", "新建文件夹/说明.txt", "文件夹 docs/x.md"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"content of {name}\n", encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("guide\n", encoding="utf-8")
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "empty").mkdir()
    return root


@pytest.fixture
def ctl(ws: Path) -> WorkspaceController:
    controller = WorkspaceController(launcher=lambda argv: None)
    assert controller.open_workspace(ws).success
    return controller


def say(ctl: WorkspaceController, text: str) -> ActionOutcome:
    outcome = ctl.handle_message(text)
    assert outcome is not None, text
    return outcome


# --- names containing 文件 or spaces -----------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "path"), [
    ("读取 文件.txt", "文件.txt"),
    ("读取文件.txt", "文件.txt"),
    ("读取 说明 文件.txt", "说明 文件.txt"),
    ("read my file.md", "my file.md"),
    ("读取 新建文件夹/说明.txt", "新建文件夹/说明.txt"),
    ("读取 文件 a.txt", "a.txt"),
    ("读取文件a.txt", "a.txt"),
    ("读取 a.txt 文件", "a.txt"),
    ("read the file my file.md", "my file.md"),
    ("读取 “说明 文件.txt”", "说明 文件.txt"),
])
def test_an_existing_name_wins_when_read(ctl: WorkspaceController, sentence: str, path: str) -> None:
    outcome = say(ctl, sentence)
    assert outcome.status == "done", outcome.message
    assert outcome.plan.relative_target_path == path
    assert outcome.result.output_text == (f"content of {path}\n" if path != "a.txt" else "A\n")


@pytest.mark.parametrize(("sentence", "path"), [
    ("列出 文件夹 docs", "文件夹 docs"),  # a folder literally named "文件夹 docs" exists: the whole phrase wins
    ("列出 新建文件夹", "新建文件夹"),
    ("列出 docs", "docs"),
])
def test_an_existing_folder_name_wins_when_listed(ctl: WorkspaceController, sentence: str, path: str) -> None:
    outcome = say(ctl, sentence)
    assert outcome.status == "done" and outcome.plan.relative_target_path == path, outcome.message


def test_noun_before_a_name_is_dropped_when_the_whole_phrase_does_not_exist(ctl: WorkspaceController,
                                                                            ws: Path) -> None:
    (ws / "文件夹 docs" / "x.md").unlink()
    (ws / "文件夹 docs").rmdir()
    outcome = say(ctl, "列出 文件夹 docs")
    assert outcome.status == "done" and outcome.plan.relative_target_path == "docs"


def test_a_missing_glued_name_is_reported_whole(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "读取 文件夹.md")
    assert outcome.status == "failed" and "文件夹.md" in outcome.message


def test_spaced_names_that_do_not_exist_are_not_requests(ctl: WorkspaceController) -> None:
    assert ctl.handle_message("读取 不存在 的东西.txt") is None
    assert ctl.handle_message("打开 微信 聊天记录") is None


def test_spaced_name_write_plans_use_the_whole_name_only(ctl: WorkspaceController, ws: Path) -> None:
    outcome = say(ctl, "删除 说明 文件.txt")
    assert outcome.status == "pending" and outcome.plan.relative_target_path == "说明 文件.txt"
    assert ctl.handle_message("删除 说明 a.txt") is None  # never a part of what was typed for a write
    assert (ws / "a.txt").exists()


def test_parser_offers_readings_longest_first() -> None:
    request = parse_request("读取 说明 文件.txt")
    assert request is not None and request.bare
    assert request.alternatives[0] == "说明 文件.txt"
    assert parse_request("读取 文件.txt").path == "文件.txt"
    assert parse_request("新建 文件.txt").path == "文件.txt"
    assert parse_request("把 a.txt 重命名为 my notes.txt").target == "my notes.txt"
    assert parse_request("把 a.txt 复制到 my docs") is None  # an unquoted destination with spaces


# --- undo --------------------------------------------------------------------------------------------

def _yes(ctl: WorkspaceController, sentence: str) -> ActionOutcome:
    assert say(ctl, sentence).status == "pending", sentence
    return ctl.confirm_pending_plan()


def test_delete_plan_says_undo_cannot_restore_it(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "删除 a.txt")
    assert outcome.status == "pending"
    assert any("撤销" in w and "回收站" in w for w in outcome.plan.warnings)


def test_undo_after_delete_reaches_the_earlier_steps(ctl: WorkspaceController, ws: Path, trash: Path) -> None:
    assert _yes(ctl, "把 a.txt 复制到 docs").status == "done"
    assert _yes(ctl, "把 a.txt 重命名为 b.txt").status == "done"
    assert _yes(ctl, "删除 b.txt").status == "done"
    first = say(ctl, "撤销")
    assert first.status == "refused" and not ctl.has_pending_plan()  # said before any yes
    assert "请到回收站中还原 b.txt" in first.message and "重命名 a.txt → b.txt" in first.message
    second = say(ctl, "撤销")
    assert second.status == "refused" and "已不存在" in second.message and "修改过" not in second.message
    third = say(ctl, "撤销")
    assert third.status == "pending" and "docs/a.txt" in third.plan.description
    assert ctl.confirm_pending_plan().status == "done"
    assert not (ws / "docs" / "a.txt").exists()
    assert say(ctl, "撤销").status == "failed"  # nothing left


def test_blocked_undo_says_why_and_keeps_the_step(ctl: WorkspaceController, ws: Path) -> None:
    assert _yes(ctl, "把 a.txt 重命名为 b.txt").status == "done"
    (ws / "a.txt").write_text("someone else\n")
    for _ in range(2):
        outcome = say(ctl, "撤销")
        assert outcome.status == "refused" and "占用" in outcome.message and not ctl.has_pending_plan()
    (ws / "a.txt").unlink()
    plan = say(ctl, "撤销")
    assert plan.status == "pending" and plan.plan.relative_source_path == "b.txt"
    assert plan.plan.relative_target_path == "a.txt"  # shown in the direction undo goes
    assert ctl.confirm_pending_plan().status == "done" and (ws / "a.txt").read_text() == "A\n"


def test_undo_plan_runs_only_the_entry_it_showed(ctl: WorkspaceController, ws: Path, trash: Path) -> None:
    assert _yes(ctl, "新建 one.txt").status == "done"
    assert say(ctl, "撤销").status == "pending"
    from localagent.tools.write_tools import create_file

    assert create_file(ctl._ctx, "two.txt", "").success  # the journal moves on behind the plan
    assert ctl.confirm_pending_plan().status == "failed"
    assert (ws / "one.txt").exists() and (ws / "two.txt").exists()


# --- scan lists, folders by ordinal, plural ----------------------------------------------------------

def test_scan_lists_files_and_first_one_refers_to_them(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "扫描工作区")
    assert outcome.status == "done" and outcome.paths[0] == "a.txt" and len(outcome.paths) == 7
    lines = render_action(outcome, "zh")
    assert "1. a.txt" in lines
    opened = say(ctl, "打开第一个")
    assert opened.status == "pending" and opened.plan.relative_target_path == "a.txt"


def test_scan_lists_at_most_twenty(ws: Path) -> None:
    for n in range(30):
        (ws / f"f{n:02}.txt").write_text("x")
    controller = WorkspaceController()
    controller.open_workspace(ws)
    outcome = say(controller, "scan")
    assert len(outcome.paths) == 20 and "20" in outcome.message


def test_english_counts_use_the_singular_for_one(ws: Path) -> None:
    controller = WorkspaceController(lang="en")
    controller.open_workspace(ws)
    assert "Found 1 file" in say(controller, "search guide").message
    assert "1 files" not in say(controller, "search guide").message
    assert "1 entry" in say(controller, "list docs").message


def test_folder_by_ordinal_replaces_the_list_and_says_so(ctl: WorkspaceController) -> None:
    listed = say(ctl, "列出文件")
    index = [p.rstrip("/") for p in listed.paths].index("docs") + 1
    outcome = say(ctl, f"读取第{index}个")
    assert outcome.plan.type.value == "list_files" and outcome.paths == ["docs/guide.md"]
    assert "现在“第几个”指这个列表" in outcome.message
    assert say(ctl, "读取第一个").plan.relative_target_path == "docs/guide.md"


def test_empty_folder_by_ordinal_keeps_the_previous_list(ctl: WorkspaceController) -> None:
    listed = say(ctl, "列出文件")
    paths = [p.rstrip("/") for p in listed.paths]
    outcome = say(ctl, f"读取第{paths.index('empty') + 1}个")
    assert outcome.status == "done" and "仍指之前的结果列表" in outcome.message
    assert say(ctl, f"读取第{paths.index('a.txt') + 1}个").plan.relative_target_path == "a.txt"


# --- a model error is fatal (house style §5) -------------------------------------------------------

def test_model_error_in_analysis_propagates(ws: Path, fake_llm: FakeLLMServer) -> None:  # noqa: F811
    fake_llm.script(Reply.status(400, "bad request"))
    controller = WorkspaceController(client=LLMClient(fake_llm.url, TEST_KEY, max_retries=0, timeout=10))
    controller.open_workspace(ws)
    with pytest.raises(ModelAPIError) as raised:
        controller.handle_message("分析这个项目")
    assert raised.value.exit_code == 3
