"""Direct workspace sentences → requests, ordinals and the result context (seed 001 §11, §12, §15; issue 3 §4)."""

from __future__ import annotations

from datetime import datetime

import pytest

from localagent.agent.result_context import ContextMiss, ResultContext, parse_ordinal
from localagent.agent.workspace_requests import (
    BATCH_DELETE,
    PERMANENT_DELETE,
    RUN_COMMAND,
    WorkspaceRequest,
    apply_text_change,
    diff_summary,
    parse_request,
)
from localagent.tools.types import WorkspaceFileInfo

# (sentence, kind, expected fields) — every direct sentence of issue 3 §4 and seed 001 §11/§15, Chinese and English.
PARSE_TABLE = [
    ("扫描工作区", "scan", {}),
    ("重新扫描一下这个项目", "scan", {}),
    ("scan the workspace", "scan", {}),
    ("列出 docs", "list", {"path": "docs"}),
    ("列出 docs 下的文件", "list", {"path": "docs"}),
    ("列出文件", "list", {"path": "."}),
    ("list files", "list", {"path": "."}),
    ("list src", "list", {"path": "src"}),
    ("查看 docs 目录", "list", {"path": "docs"}),
    ("搜索 README", "search_files", {"keyword": "README"}),
    ("搜索这个项目里的 main", "search_files", {"keyword": "main"}),
    ("搜索 fileops", "search_files", {"keyword": "fileops"}),
    ("搜索 .cpp", "search_files", {"keyword": ".cpp"}),
    ("搜索 报告", "search_files", {"keyword": "报告"}),
    ("搜索 version.h", "search_files", {"keyword": "version.h"}),
    ("find main.cpp", "search_files", {"keyword": "main.cpp"}),
    ("search for README", "search_files", {"keyword": "README"}),
    ("找一下包含 FileOperationManager 的文件", "search_text", {"keyword": "FileOperationManager"}),
    ("哪些文件包含 TODO", "search_text", {"keyword": "TODO"}),
    ("搜索内容 include", "search_text", {"keyword": "include"}),
    ("grep TODO", "search_text", {"keyword": "TODO"}),
    ("which files contain TODO", "search_text", {"keyword": "TODO"}),
    ("find files containing class", "search_text", {"keyword": "class"}),
    ("读取 main.cpp", "read", {"path": "main.cpp"}),
    ("read README.md", "read", {"path": "README.md"}),
    ("读取第二个", "read", {"ordinal": 2}),
    ("读取第 3 个", "read", {"ordinal": 3}),
    ("读取 \"my notes.txt\"", "read", {"path": "my notes.txt"}),
    ("read the first one", "read", {"ordinal": 1}),
    ("打开 docs", "open", {"path": "docs", "bare": False}),
    ("打开这个项目里的 docs", "open", {"path": "docs"}),
    ("打开第一个", "open", {"ordinal": 1}),
    ("打开最后一个", "open", {"ordinal": -1}),
    ("open the second one", "open", {"ordinal": 2}),
    ("open the last one", "open", {"ordinal": -1}),
    ("打开 src/main.cpp", "open", {"path": "src/main.cpp"}),
    ("麻烦你帮我打开 docs 好吗？", "open", {"path": "docs"}),
    ("显示 a.txt 所在位置", "reveal", {"path": "a.txt"}),
    ("show a.txt in folder", "reveal", {"path": "a.txt"}),
    ("创建 test.txt", "create_file", {"path": "test.txt"}),
    ("create notes.md", "create_file", {"path": "notes.md"}),
    ("新建文件 hello.md 内容为 你好，世界。", "create_file", {"path": "hello.md", "content": "你好，世界。"}),
    ("新建文件夹 docs", "create_directory", {"path": "docs"}),
    ("mkdir build2", "create_directory", {"path": "build2"}),
    ("创建 reports/", "create_directory", {"path": "reports/"}),
    ("把 a.txt 复制到 docs", "copy", {"path": "a.txt", "target": "docs"}),
    ("把a.txt复制到docs文件夹", "copy", {"path": "a.txt", "target": "docs"}),
    ("copy a.txt to docs", "copy", {"path": "a.txt", "target": "docs"}),
    ("把第一个复制到 docs", "copy", {"ordinal": 1, "target": "docs"}),
    ("把 a.txt 移动到 docs/", "move", {"path": "a.txt", "target": "docs/"}),
    ("move a.txt to docs/", "move", {"path": "a.txt", "target": "docs/"}),
    ("把 old.md 重命名为 new.md", "rename", {"path": "old.md", "target": "new.md"}),
    ("rename old.md to new.md", "rename", {"path": "old.md", "target": "new.md"}),
    ("删除 tmp.log", "delete", {"path": "tmp.log"}),
    ("请帮我删除 tmp.log", "delete", {"path": "tmp.log"}),
    ("delete tmp.log", "delete", {"path": "tmp.log"}),
    ("把 tmp.log 移到回收站", "delete", {"path": "tmp.log"}),
    ("删除第二个", "delete", {"ordinal": 2}),
    ("修改 notes.txt 内容为 你好，世界。", "write", {"path": "notes.txt", "content": "你好，世界。"}),
    ("把 notes.txt 的内容改为 new text", "write", {"path": "notes.txt", "content": "new text"}),
    ("write hello to notes.txt", "write", {"path": "notes.txt", "content": "hello"}),
    ("在 a.txt 中把 X 替换为 Y", "replace", {"path": "a.txt", "old_text": "X", "content": "Y"}),
    ("in a.txt replace foo with bar", "replace", {"path": "a.txt", "old_text": "foo", "content": "bar"}),
    ("在 notes.txt 末尾追加 再见", "append", {"path": "notes.txt", "content": "再见"}),
    ("撤销", "undo", {}),
    ("撤销上一步", "undo", {}),
    ("undo", "undo", {}),
    ("分析这个项目", "analyze", {"scope": "project"}),
    ("分析一下这个项目的结构", "analyze", {"scope": "project"}),
    ("analyze the project", "analyze", {"scope": "project"}),
    ("总结这些文件的作用", "analyze", {"scope": "results"}),
    ("summarize these files", "analyze", {"scope": "results"}),
    ("总结 main.cpp", "analyze", {"scope": "file", "path": "main.cpp"}),
    ("当前工作区", "show_workspace", {}),
    ("永久删除 tmp.log", "refuse", {"refusal": PERMANENT_DELETE, "dangerous": True}),
    ("彻底删除 a.txt", "refuse", {"refusal": PERMANENT_DELETE, "dangerous": True}),
    ("permanently delete tmp.log", "refuse", {"refusal": PERMANENT_DELETE}),
    ("删除所有 .log", "refuse", {"refusal": BATCH_DELETE, "dangerous": False}),
    ("删除 *.log", "refuse", {"refusal": BATCH_DELETE}),
    ("删除 a.txt 和 b.txt", "refuse", {"refusal": BATCH_DELETE}),
    ("delete all logs", "refuse", {"refusal": BATCH_DELETE}),
    ("运行 build.bat", "refuse", {"refusal": RUN_COMMAND, "dangerous": True}),
    ("执行命令 ls", "refuse", {"refusal": RUN_COMMAND}),
    ("run the script deploy.sh", "refuse", {"refusal": RUN_COMMAND}),
]

# Seed 001 §12 and issue 3 §4: not direct workspace requests → None (the code-task pipeline or chat).
NOT_REQUESTS = [
    "把这个文件夹里的图片复制一份",
    "帮我把这个文件夹里的图片复制一份吧",
    "搜索 Qt 最新版本",
    "搜索 最新版本",
    "search the web for python news",
    "打开文件夹",
    "打开目录",
    "open the folder",
    "你好",
    "今天天气怎么样",
    "the last one",
    "",
    "   ",
]


@pytest.mark.parametrize(("sentence", "kind", "fields"), PARSE_TABLE, ids=[row[0] for row in PARSE_TABLE])
def test_direct_sentence_parses_to_its_request(sentence: str, kind: str, fields: dict) -> None:
    request = parse_request(sentence)
    assert request is not None, sentence
    assert request.kind == kind
    for name, value in fields.items():
        assert getattr(request, name) == value, (sentence, name)


@pytest.mark.parametrize("sentence", NOT_REQUESTS)
def test_wide_keywords_do_not_swallow_requests(sentence: str) -> None:
    assert parse_request(sentence) is None


def test_table_is_large_and_covers_every_kind() -> None:
    assert len(PARSE_TABLE) >= 40
    kinds = {kind for _, kind, _ in PARSE_TABLE}
    assert {"scan", "list", "search_files", "search_text", "read", "open", "reveal", "create_file",
            "create_directory", "copy", "move", "rename", "delete", "write", "replace", "undo", "analyze",
            "refuse"} <= kinds


@pytest.mark.parametrize("sentence", ["打开微信", "open spotify-ish-thing"])
def test_bare_words_are_marked_bare(sentence: str) -> None:
    request = parse_request(sentence)
    assert request is None or request.bare  # the controller accepts a bare word only if the workspace has it


def test_content_is_kept_as_typed() -> None:
    request = parse_request("修改 notes.txt 内容为 第一行，  有空格！")
    assert request == WorkspaceRequest(kind="write", path="notes.txt", content="第一行，  有空格！")


def test_oversized_sentence_is_not_a_request() -> None:
    assert parse_request("读取 a.txt " + "x" * 5000) is None


@pytest.mark.parametrize(("phrase", "expected"), [
    ("第一个", 1), ("第二个", 2), ("第三个", 3), ("第十个", 10), ("第十二个", 12), ("第二十个", 20), ("第 3 个", 3),
    ("第3个", 3), ("最后一个", -1), ("倒数第二个", -2), ("the first one", 1), ("the second one", 2),
    ("the last one", -1), ("3rd", 3), ("the 2nd file", 2), ("第零个", None), ("第一", 1), ("main.cpp", None),
    ("first", 1), ("#4", 4),
])
def test_parse_ordinal(phrase: str, expected: int | None) -> None:
    assert parse_ordinal(phrase) == expected


def _info(path: str) -> WorkspaceFileInfo:
    return WorkspaceFileInfo(relative_path=path, absolute_path="/ws/" + path, file_name=path.rsplit("/", 1)[-1],
                             last_modified=datetime(2024, 1, 1))


def test_context_resolves_ordinals_and_reports_out_of_range() -> None:
    context = ResultContext()
    context.tick()
    context.remember([_info("a.md"), _info("b.md"), _info("c.md")])
    assert context.resolve(1).relative_path == "a.md"
    assert context.resolve(2).relative_path == "b.md"
    assert context.resolve(-1).relative_path == "c.md"
    assert context.resolve(-3).relative_path == "a.md"
    miss = context.resolve(4)
    assert isinstance(miss, ContextMiss)
    assert "只有 3 项" in miss.message("zh") and "only 3" in miss.message("en")


def test_context_expires_after_idle_turns_and_use_refreshes_it() -> None:
    context = ResultContext(max_idle_turns=3)
    context.tick()
    context.remember([_info("a.md")])
    for _ in range(3):
        context.tick()
    assert context.resolve(1).relative_path == "a.md"  # used at turn 4: refreshed
    for _ in range(4):
        context.tick()
    miss = context.resolve(1)
    assert isinstance(miss, ContextMiss)
    assert "上下文已过期，请重新搜索" in miss.message("zh")


def test_context_clear_says_expired_but_fresh_context_says_search_first() -> None:
    fresh = ResultContext()
    assert "请先搜索" in fresh.resolve(1).message("zh")
    used = ResultContext()
    used.remember([_info("a.md")])
    used.clear()
    assert "已过期" in used.resolve(1).message("zh")


def test_apply_text_change_and_diff_summary() -> None:
    assert apply_text_change(WorkspaceRequest(kind="write", path="a", content="new"), "old\n") == "new"
    assert apply_text_change(WorkspaceRequest(kind="append", path="a", content="b"), "a\n") == "a\nb\n"
    assert apply_text_change(WorkspaceRequest(kind="append", path="a", content="b"), "a") == "a\nb"
    replace = WorkspaceRequest(kind="replace", path="a", old_text="X", content="Y")
    assert apply_text_change(replace, "aXbX") == "aYbY"
    assert apply_text_change(replace, "nothing") is None
    summary = diff_summary("a.txt", "one\ntwo\n", "one\nTWO\nthree\n")
    assert summary.splitlines()[0] == "a.txt: +2 -1"
    assert "-two" in summary and "+TWO" in summary and "+three" in summary
