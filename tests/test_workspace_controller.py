"""WorkspaceController: one sentence → one plan, confirmation, context, analysis (seed 001 §9–§11, §15; issue 3 §4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localagent.agent.workspace_controller import ActionOutcome, WorkspaceController
from localagent.config import Settings
from localagent.llm.client import LLMClient
from tests.fake_llm import FakeLLMServer, Reply
from tests.fake_llm.fixtures import TEST_KEY, fake_llm  # noqa: F401
from tests.helpers import tree_digest
from tests.write_fixtures import trash_fixture  # noqa: F401 - the "trash" fixture

SECRET = "SUPER_SECRET_VALUE_42"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "src" / "fileops").mkdir(parents=True)
    (root / "README.md").write_text("# Demo project\nA desktop pet.\n", encoding="utf-8")
    (root / "docs" / "guide.md").write_text("guide\n", encoding="utf-8")
    (root / "src" / "main.cpp").write_text("#include \"fileops.h\"\nint main() { return 0; }\n", encoding="utf-8")
    (root / "src" / "fileops" / "fileops.h").write_text("class FileOperationManager;\n", encoding="utf-8")
    (root / "src" / "fileops" / "fileops.cpp").write_text("// FileOperationManager impl\nint x;\n", encoding="utf-8")
    (root / ".env").write_text(f"LLM_API_KEY={SECRET}\n# FileOperationManager\n", encoding="utf-8")
    (root / "secrets.json").write_text(json.dumps({"FileOperationManager": SECRET}), encoding="utf-8")
    (root / "notes.txt").write_text("hello world\n", encoding="utf-8")
    (root / "tmp.log").write_text("log line\n", encoding="utf-8")
    return root


class Recorder:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str]) -> None:
        self.calls.append(list(argv))


@pytest.fixture
def launcher() -> Recorder:
    return Recorder()


@pytest.fixture
def ctl(ws: Path, launcher: Recorder) -> WorkspaceController:
    controller = WorkspaceController(launcher=launcher)
    assert controller.open_workspace(ws).success
    return controller


def say(ctl: WorkspaceController, text: str) -> ActionOutcome:
    outcome = ctl.handle_message(text)
    assert outcome is not None, text
    return outcome


def model_client(server: FakeLLMServer) -> LLMClient:
    return LLMClient(server.url, TEST_KEY, max_retries=0, timeout=10)


# --- seed 001 §15 对话上下文 -------------------------------------------------------------------------


def test_search_readme_then_open_first_needs_confirmation(ctl: WorkspaceController, ws: Path,
                                                          launcher: Recorder) -> None:
    found = say(ctl, "搜索 README")
    assert found.status == "done" and found.paths == ["README.md"]
    opened = say(ctl, "打开第一个")
    assert opened.status == "pending" and opened.plan.type.value == "open_file"
    assert opened.plan.risk.label == "Medium" and opened.plan.requires_confirmation
    assert ctl.has_pending_plan() and ctl.pending_plan().relative_target_path == "README.md"
    assert launcher.calls == []  # nothing happens before the yes
    done = ctl.confirm_pending_plan()
    assert done.status == "done"
    assert launcher.calls and launcher.calls[-1][-1] == str((ws / "README.md").resolve())
    assert not ctl.has_pending_plan()


def test_search_fileops_then_read_second(ctl: WorkspaceController, ws: Path) -> None:
    found = say(ctl, "搜索 fileops")
    assert len(found.result.files) >= 2
    second = found.result.files[1].relative_path
    read = say(ctl, "读取第二个")
    assert read.status == "done" and read.paths == [second]
    assert read.result.output_text == (ws / second).read_text(encoding="utf-8")


def test_text_search_then_summarize_sends_paths_not_secrets(ws: Path, fake_llm: FakeLLMServer) -> None:  # noqa: F811
    fake_llm.script(Reply.text("这些文件实现了文件操作管理器。"))
    ctl = WorkspaceController(client=model_client(fake_llm), settings=Settings(generation_model_name="gen-x"))
    ctl.open_workspace(ws)
    found = say(ctl, "找一下包含 FileOperationManager 的文件")
    assert found.status == "done"
    assert set(found.paths) == {"src/fileops/fileops.h", "src/fileops/fileops.cpp"}  # sensitive files skipped
    assert all(m.path in found.paths and m.line >= 1 for m in found.result.matches)
    summary = say(ctl, "总结这些文件的作用")
    assert summary.status == "done", summary.message
    request = fake_llm.requests[-1]
    prompt = json.dumps(request.messages, ensure_ascii=False)
    assert "src/fileops/fileops.h" in prompt and "src/fileops/fileops.cpp" in prompt
    assert "class FileOperationManager;" in prompt  # the files' content was sent
    assert SECRET not in prompt
    assert request.messages[0]["role"] == "system" and "工作区" in request.messages[0]["content"]
    assert request.body["model"] == "gen-x" and request.body["temperature"] == 0.3
    assert request.body["max_tokens"] == 1500
    # the answer cited no path, so the files read are appended
    assert "src/fileops/fileops.h" in summary.result.output_text


def test_analyze_project_reads_readme_and_keeps_a_cited_answer(ws: Path, fake_llm: FakeLLMServer) -> None:  # noqa: F811
    fake_llm.script(Reply.text("入口在 src/main.cpp，说明见 README.md。"))
    ctl = WorkspaceController(client=model_client(fake_llm))
    ctl.open_workspace(ws)
    outcome = say(ctl, "分析这个项目")
    assert outcome.status == "done" and outcome.plan.type.value == "analyze"
    prompt = json.dumps(fake_llm.requests[-1].messages, ensure_ascii=False)
    assert "A desktop pet." in prompt and "src/main.cpp" in prompt and "docs/guide.md" in prompt
    assert SECRET not in prompt
    assert outcome.result.output_text == "入口在 src/main.cpp，说明见 README.md。"
    assert "README.md" in outcome.paths


def test_analysis_without_model_says_so_and_tools_still_work(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "分析这个项目")
    assert outcome.status == "failed" and "LLM_API_KEY" in outcome.message
    assert say(ctl, "搜索 README").status == "done"
    assert say(ctl, "创建 new.txt").status == "pending"


def test_model_error_ends_the_run(ws: Path, fake_llm: FakeLLMServer) -> None:  # noqa: F811
    from localagent.errors import ModelAPIError

    fake_llm.script(Reply.status(400, "bad request"))
    ctl = WorkspaceController(client=model_client(fake_llm))
    ctl.open_workspace(ws)
    with pytest.raises(ModelAPIError):  # fatal (house style §5): the CLI maps it to exit 3
        ctl.handle_message("analyze the project")


def test_summarize_without_results_asks_to_search(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "总结这些文件的作用")
    assert outcome.status == "failed" and "搜索" in outcome.message


def test_context_expires_after_three_other_turns(ctl: WorkspaceController) -> None:
    say(ctl, "搜索 README")
    for _ in range(3):
        assert say(ctl, "读取 notes.txt").status == "done"
    outcome = say(ctl, "打开第一个")
    assert outcome.status == "failed" and "上下文已过期，请重新搜索" in outcome.message
    assert not ctl.has_pending_plan()


def test_context_still_valid_after_two_turns(ctl: WorkspaceController) -> None:
    say(ctl, "搜索 README")
    say(ctl, "读取 notes.txt")
    say(ctl, "读取 notes.txt")
    assert say(ctl, "打开第一个").status == "pending"


def test_workspace_change_clears_context(ctl: WorkspaceController, tmp_path: Path) -> None:
    say(ctl, "搜索 README")
    other = tmp_path / "other"
    other.mkdir()
    assert ctl.open_workspace(other).success
    outcome = say(ctl, "读取第一个")
    assert outcome.status == "failed" and "上下文已过期" in outcome.message


def test_ordinal_beyond_the_list(ctl: WorkspaceController) -> None:
    say(ctl, "搜索 README")
    outcome = say(ctl, "读取第九个")
    assert outcome.status == "failed" and "没有第 9 个" in outcome.message


def test_list_then_open_folder_by_ordinal_runs_at_once(ctl: WorkspaceController, launcher: Recorder) -> None:
    listed = say(ctl, "列出文件")
    assert listed.status == "done" and listed.paths[:2] == ["docs", "src"]
    opened = say(ctl, "打开第一个")
    assert opened.status == "done" and opened.plan.type.value == "open_directory"
    assert opened.plan.risk.label == "Low" and len(launcher.calls) == 1


def test_ambiguous_name_lists_candidates_for_an_ordinal(ctl: WorkspaceController, ws: Path) -> None:
    (ws / "docs" / "main.cpp").write_text("// docs copy\n", encoding="utf-8")
    outcome = say(ctl, "读取 main.cpp")
    assert outcome.status == "failed" and len(outcome.result.files) == 2
    chosen = outcome.result.files[1].relative_path
    assert say(ctl, "读取第二个").paths == [chosen]


# --- traps and refusals --------------------------------------------------------------------------


@pytest.mark.parametrize("sentence", ["打开微信", "搜索 Qt 最新版本", "打开文件夹", "把这个文件夹里的图片复制一份", "你好"])
def test_not_workspace_requests_return_none(ctl: WorkspaceController, sentence: str) -> None:
    assert ctl.handle_message(sentence) is None


@pytest.mark.parametrize(("sentence", "risk"), [
    ("永久删除 tmp.log", "Dangerous"), ("彻底删除 tmp.log", "Dangerous"), ("删除所有 .log", "High"),
    ("删除 *.log", "High"), ("删除 tmp.log 和 notes.txt", "High"), ("运行 build.bat", "Dangerous"),
])
def test_dangerous_requests_are_refused_and_never_planned(ctl: WorkspaceController, ws: Path, sentence: str,
                                                          risk: str) -> None:
    before = tree_digest(ws)
    outcome = say(ctl, sentence)
    assert outcome.status == "refused" and outcome.plan.risk.label == risk
    assert not ctl.has_pending_plan()
    assert tree_digest(ws) == before


def test_permanent_delete_uses_the_seed_wording(ctl: WorkspaceController) -> None:
    assert say(ctl, "永久删除 tmp.log").message == "不允许永久删除文件，只能删除到回收站。"
    assert say(ctl, "删除所有 .log").message == "第一阶段不支持批量删除。"


@pytest.mark.parametrize("sentence", ["读取 .env", "删除 .env", "读取 ../outside.txt", "创建 run.bat",
                                      "修改 secrets.json 内容为 x", "打开 secrets.json"])
def test_policy_refusals_are_results(ctl: WorkspaceController, ws: Path, sentence: str) -> None:
    (ws.parent / "outside.txt").write_text("outside\n", encoding="utf-8")
    outcome = say(ctl, sentence)
    assert outcome.status == "refused", outcome.message
    assert outcome.message and not ctl.has_pending_plan()


def test_no_workspace_asks_to_choose_one() -> None:
    outcome = WorkspaceController().handle_message("搜索 README")
    assert outcome is not None and outcome.status == "failed" and "工作区" in outcome.message


@pytest.mark.parametrize("root", ["/etc", "C:/Windows", "C:/Program Files", "/definitely/missing/dir"])
def test_open_workspace_refusals(root: str) -> None:
    controller = WorkspaceController()
    result = controller.open_workspace(root)
    assert not result.success and result.message
    assert not controller.has_workspace()


def test_open_workspace_refuses_home_and_a_file(tmp_path: Path) -> None:
    file = tmp_path / "a.txt"
    file.write_text("x", encoding="utf-8")
    for root in (Path.home(), file):
        assert not WorkspaceController().open_workspace(root).success


@pytest.mark.parametrize("name", ["中文 项目", "with space"])
def test_chinese_and_spaced_workspace(tmp_path: Path, name: str) -> None:
    root = tmp_path / name
    root.mkdir()
    (root / "说明.md").write_text("内容\n", encoding="utf-8")
    controller = WorkspaceController()
    assert controller.open_workspace(root).success and controller.workspace_root() == str(root.resolve())
    assert say(controller, "搜索 说明").paths == ["说明.md"]
    assert say(controller, "读取第一个").result.output_text == "内容\n"
    controller.close_workspace()
    assert not controller.has_workspace()


# --- write flows: plan, confirm, cancel, undo (seed 001 §8.3, §10) -----------------------------------


def test_create_file_needs_confirmation(ctl: WorkspaceController, ws: Path) -> None:
    outcome = say(ctl, "创建 test.txt")
    assert outcome.status == "pending" and outcome.plan.risk.label == "Medium"
    assert not (ws / "test.txt").exists()
    assert ctl.confirm_pending_plan().status == "done"
    assert (ws / "test.txt").is_file()
    assert say(ctl, "创建 test.txt").status == "refused"  # exists: never overwritten


def test_create_directory_copy_rename(ctl: WorkspaceController, ws: Path) -> None:
    assert say(ctl, "新建文件夹 out").status == "pending"
    assert not (ws / "out").exists()
    ctl.confirm_pending_plan()
    copy = say(ctl, "把 notes.txt 复制到 out")
    assert copy.paths == ["notes.txt", "out/notes.txt"] and not (ws / "out" / "notes.txt").exists()
    assert ctl.confirm_pending_plan().status == "done"
    assert (ws / "out" / "notes.txt").read_text(encoding="utf-8") == "hello world\n"
    rename = say(ctl, "把 out/notes.txt 重命名为 renamed.txt")
    assert rename.plan.risk.label == "High" and rename.paths == ["out/notes.txt", "out/renamed.txt"]
    assert ctl.confirm_pending_plan().status == "done"
    assert (ws / "out" / "renamed.txt").exists() and not (ws / "out" / "notes.txt").exists()


def test_move_needs_strong_confirmation(ctl: WorkspaceController, ws: Path) -> None:
    outcome = say(ctl, "把 notes.txt 移动到 docs/")
    assert outcome.status == "pending" and outcome.plan.strong_confirmation
    assert outcome.paths == ["notes.txt", "docs/notes.txt"] and (ws / "notes.txt").exists()
    assert ctl.confirm_pending_plan().status == "done"
    assert (ws / "docs" / "notes.txt").exists() and not (ws / "notes.txt").exists()


def test_delete_goes_to_the_trash_after_yes(trash: Path, ctl: WorkspaceController, ws: Path) -> None:
    outcome = say(ctl, "删除 tmp.log")
    assert outcome.status == "pending" and outcome.plan.type.value == "delete_to_trash"
    assert not outcome.plan.strong_confirmation and (ws / "tmp.log").exists()
    assert ctl.confirm_pending_plan().status == "done"
    assert not (ws / "tmp.log").exists()
    assert (trash / "files" / "tmp.log").read_text(encoding="utf-8") == "log line\n"


def test_folder_delete_needs_strong_confirmation(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "删除 docs")
    assert outcome.plan.strong_confirmation and outcome.plan.warnings


def test_cancel_leaves_the_tree_unchanged(ctl: WorkspaceController, ws: Path) -> None:
    before = tree_digest(ws)
    for sentence in ("创建 a.txt", "把 notes.txt 复制到 docs", "把 notes.txt 移动到 docs", "删除 tmp.log",
                     "把 notes.txt 重命名为 n.txt", "修改 notes.txt 内容为 changed"):
        assert say(ctl, sentence).status == "pending", sentence
        cancelled = ctl.cancel_pending_plan()
        assert cancelled is not None and cancelled.status == "cancelled"
        assert not ctl.has_pending_plan()
    assert tree_digest(ws) == before
    assert ctl.confirm_pending_plan().status == "failed"  # nothing pending any more


def test_new_request_replaces_a_pending_plan(ctl: WorkspaceController, ws: Path) -> None:
    say(ctl, "删除 tmp.log")
    say(ctl, "搜索 README")
    assert not ctl.has_pending_plan()
    assert ctl.confirm_pending_plan().status == "failed" and (ws / "tmp.log").exists()


def test_write_shows_a_diff_backs_up_and_undo_restores(ctl: WorkspaceController, ws: Path) -> None:
    outcome = say(ctl, "在 notes.txt 中把 world 替换为 LocalAgent")
    assert outcome.status == "pending" and outcome.plan.type.value == "write_file"
    assert "-hello world" in outcome.plan.description and "+hello LocalAgent" in outcome.plan.description
    assert (ws / "notes.txt").read_text(encoding="utf-8") == "hello world\n"
    assert ctl.confirm_pending_plan().status == "done"
    assert (ws / "notes.txt").read_text(encoding="utf-8") == "hello LocalAgent\n"
    assert list((ws / ".localagent" / "backups").glob("notes.txt.*.bak"))
    undo = say(ctl, "撤销")
    assert undo.status == "pending" and (ws / "notes.txt").read_text(encoding="utf-8") == "hello LocalAgent\n"
    assert ctl.confirm_pending_plan().status == "done"
    assert (ws / "notes.txt").read_text(encoding="utf-8") == "hello world\n"


def test_undo_api_reverses_a_create(trash: Path, ctl: WorkspaceController, ws: Path) -> None:
    say(ctl, "创建 made.txt")
    ctl.confirm_pending_plan()
    assert (ws / "made.txt").exists()
    assert ctl.undo().status == "done"
    assert not (ws / "made.txt").exists() and (trash / "files" / "made.txt").exists()
    assert ctl.undo().status == "failed"  # nothing left to undo


def test_write_refused_when_file_changed_after_the_plan(ctl: WorkspaceController, ws: Path) -> None:
    say(ctl, "修改 notes.txt 内容为 planned")
    (ws / "notes.txt").write_text("edited meanwhile\n", encoding="utf-8")
    outcome = ctl.confirm_pending_plan()
    assert outcome.status == "failed"
    assert (ws / "notes.txt").read_text(encoding="utf-8") == "edited meanwhile\n"


def test_replace_of_missing_text_is_a_failure(ctl: WorkspaceController) -> None:
    outcome = say(ctl, "在 notes.txt 中把 nothing-here 替换为 x")
    assert outcome.status == "failed" and "nothing-here" in outcome.message and not ctl.has_pending_plan()


def test_write_after_search_clears_context(ctl: WorkspaceController) -> None:
    say(ctl, "搜索 README")
    say(ctl, "创建 z.txt")
    ctl.confirm_pending_plan()
    assert "上下文已过期" in say(ctl, "打开第一个").message


def test_action_json_shape(ctl: WorkspaceController) -> None:
    doc = say(ctl, "搜索 include").to_json()  # a name search: no file called include
    assert set(doc) == {"type", "risk", "status", "paths", "matches", "message"}
    doc = say(ctl, "哪些文件包含 include").to_json()
    assert doc["type"] == "search_text" and doc["risk"] == "ReadOnly" and doc["status"] == "done"
    assert doc["matches"] == [{"path": "src/main.cpp", "line": 1, "snippet": "#include \"fileops.h\""}]
    assert doc["paths"] == ["src/main.cpp"]
