"""Read-only tools (seed 001 §8.1, §14, §15 搜索文件 / 搜索文本 / 读取文件; issue 3 §3)."""

from __future__ import annotations

import codecs
import json
import logging
from pathlib import Path

import pytest

from localagent.tools.read_tools import (
    _Hits,
    find_rg,
    list_files,
    read_file,
    rg_argv,
    search_files,
    search_text,
)
from localagent.tools.types import ToolContext, WorkspaceToolRisk
from localagent.workspace.policy import AccessPolicy

SECRET = "TOPSECRETVALUE_class_include"

needs_rg = pytest.mark.skipif(find_rg() is None, reason="rg (ripgrep wheel) not installed")


def _write(root: Path, rel: str, data: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "工作 区"
    _write(root, "main.cpp", '#include <iostream>\nclass Main {};\nint main() { return 0; }\n')
    _write(root, "src/widget.cpp", '#include "widget.h"\nclass Widget {};\n')
    _write(root, "src/widget.h", "#pragma once\nclass Widget;\n")
    _write(root, "README.md", "# 项目说明\n这是一个测试项目。\n")
    _write(root, "config.json", '{"name": "demo", "version": 1}\n')
    _write(root, "docs/用户手册.md", "用户手册：如何配置工作区。\n")
    _write(root, "image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRclass")
    _write(root, "tool.exe", b"MZ\x90\x00class")
    _write(root, "blob.txt", b"class\x00\x01\x02binary")
    _write(root, ".env", f"LLM_API_KEY={SECRET}\n")
    _write(root, "my_secret_notes.txt", f"{SECRET}\n")
    _write(root, "id_rsa", f"{SECRET}\n")
    _write(root, "api_key.json", f'{{"k": "{SECRET}"}}\n')
    _write(root, "build/gen.cpp", "class Generated {};\n")
    _write(root, ".git/HEAD", "class in git\n")
    _write(root, "node_modules/x/index.js", "class Dep {}\n")
    _write(root, "-dash.txt", "--option-like text\n")
    (tmp_path / "outside.txt").write_text("outside class\n", encoding="utf-8")
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(policy=AccessPolicy(ws))


# --- read_file ------------------------------------------------------------------------------------


@pytest.mark.parametrize("rel, expected", [
    ("main.cpp", "class Main {};"), ("README.md", "这是一个测试项目。"), ("config.json", '"version": 1'),
    ("docs/用户手册.md", "如何配置工作区"),
])
def test_read_text_files(ctx: ToolContext, rel: str, expected: str) -> None:
    result = read_file(ctx, rel)
    assert result.success and expected in result.output_text
    assert result.target_path == rel and not result.truncated
    assert "utf-8" in result.message


@pytest.mark.parametrize("rel", ["image.png", "tool.exe", "blob.txt", ".env", "my_secret_notes.txt", "id_rsa",
                                 "api_key.json", "../outside.txt", "nothere.txt", "src"])
def test_read_refusals_are_results_without_content(ctx: ToolContext, ws: Path, rel: str) -> None:
    result = read_file(ctx, rel)
    assert not result.success and result.error_message and result.output_text == ""
    assert SECRET not in result.message + result.error_message


def test_read_env_refused_with_sensitive_wording(ctx: ToolContext) -> None:
    result = read_file(ctx, ".env")
    assert "敏感" in result.error_message
    en = read_file(ToolContext(policy=ctx.policy, lang="en"), ".env")
    assert "sensitive" in en.error_message.lower()


def test_read_outside_absolute_path_refused(ctx: ToolContext, ws: Path) -> None:
    result = read_file(ctx, str(ws.parent / "outside.txt"))
    assert not result.success and "outside class" not in result.output_text


def test_read_binary_txt_refused_with_binary_message(ctx: ToolContext) -> None:
    assert read_file(ctx, "blob.txt").error_message == "二进制文件不能读取"


@pytest.mark.parametrize("data, encoding_prefix", [
    ("中文注释：工作区代理\n".encode("gbk"), "gb"),
    (codecs.BOM_UTF16_LE + "UTF-16 文本\n".encode("utf-16-le"), "utf-16"),
    (codecs.BOM_UTF16_BE + "UTF-16 文本\n".encode("utf-16-be"), "utf-16"),
    (codecs.BOM_UTF8 + "带 BOM 的文本\n".encode(), "utf-8-sig"),
    ("繁體中文測試文件內容\n".encode("big5"), "big5"),
    ("こんにちは、世界。日本語のテキストです。\n".encode("shift_jis"), "cp932"),
])
def test_encodings_detected(ctx: ToolContext, ws: Path, data: bytes, encoding_prefix: str) -> None:
    _write(ws, "enc.txt", data)
    result = read_file(ctx, "enc.txt")
    assert result.success, result.error_message
    assert "\ufeff" not in result.output_text and "\ufffd" not in result.output_text
    text = result.output_text
    assert text in ("中文注释：工作区代理\n", "UTF-16 文本\n", "带 BOM 的文本\n", "繁體中文測試文件內容\n",
                    "こんにちは、世界。日本語のテキストです。\n")
    assert encoding_prefix in result.message


def test_big_file_cut_at_128_kb_with_note(ctx: ToolContext, ws: Path) -> None:
    _write(ws, "big.txt", "abcdefghij\n" * 20_000)  # 220 KB
    result = read_file(ctx, "big.txt")
    assert result.success and result.truncated
    assert len(result.output_text.encode()) == 128 * 1024
    assert "128" in result.message and "只显示前" in result.message


@pytest.mark.parametrize("encoding", ["utf-8", "gbk"])
def test_cut_never_splits_a_character(ctx: ToolContext, ws: Path, encoding: str) -> None:
    _write(ws, "wide.txt", ("中文" * 70_000).encode(encoding))  # 280 KB / 420 KB, cut inside a character
    result = read_file(ctx, "wide.txt", max_bytes=128 * 1024 + 1)
    assert result.success and result.truncated
    assert set(result.output_text) == {"中", "文"}
    assert len(result.output_text.encode(encoding)) <= 128 * 1024 + 1


# --- list_files -----------------------------------------------------------------------------------


def test_list_files_folders_first_skips_build_and_git(ctx: ToolContext) -> None:
    result = list_files(ctx)
    names = [f.file_name for f in result.files]
    assert result.success
    assert names[:2] == ["docs", "src"] and all(f.is_directory for f in result.files[:2])
    assert not {"build", ".git", "node_modules"} & set(names)
    assert "main.cpp" in names and ".env" in names
    assert next(f for f in result.files if f.file_name == ".env").is_hidden
    assert "docs/" in result.output_text and "已跳过 3" in result.message


def test_list_files_at_most_200_entries(ctx: ToolContext, ws: Path) -> None:
    for i in range(250):
        _write(ws, f"many/f{i:03}.txt", "x")
    result = list_files(ctx, "many")
    assert len(result.files) == 200 and result.truncated and "200" in result.message
    assert result.files[0].relative_path == "many/f000.txt"


def test_list_files_refusals(ctx: ToolContext) -> None:
    assert not list_files(ctx, "..").success
    assert not list_files(ctx, "main.cpp").success
    assert not list_files(ctx, "missing").success


# --- search_files ---------------------------------------------------------------------------------


def test_search_files_scans_when_no_index(ctx: ToolContext) -> None:
    assert ctx.index is None
    result = search_files(ctx, "main")
    assert result.success and [f.relative_path for f in result.files] == ["main.cpp"]
    assert ctx.index is not None and "1. main.cpp" in result.output_text


@pytest.mark.parametrize("keyword, expected", [
    (".cpp", {"main.cpp", "src/widget.cpp"}), ("README", {"README.md"}), ("用户手册", {"docs/用户手册.md"}),
    ("widget", {"src/widget.cpp", "src/widget.h"}),
])
def test_search_files_keywords(ctx: ToolContext, keyword: str, expected: set[str]) -> None:
    result = search_files(ctx, keyword)
    assert result.success and {f.relative_path for f in result.files} == expected


def test_search_files_missing_and_limit(ctx: ToolContext, ws: Path) -> None:
    missing = search_files(ctx, "no_such_file_xyz")
    assert missing.success and missing.files == () and "未找到" in missing.message
    for i in range(40):
        _write(ws, f"gen/item_{i}.txt", "x")
    ctx.index = None
    result = search_files(ctx, "item_")
    assert len(result.files) == 30 and result.truncated
    assert all(not f.relative_path.startswith("/") for f in result.files)


# --- search_text ----------------------------------------------------------------------------------


@needs_rg
def test_search_text_class_and_include(ctx: ToolContext) -> None:
    result = search_text(ctx, "class")
    paths = {m.path for m in result.matches}
    assert result.success and {"main.cpp", "src/widget.cpp", "src/widget.h"} <= paths
    assert not {p for p in paths if p.startswith(("build/", ".git/", "node_modules/"))}
    first = next(m for m in result.matches if m.path == "main.cpp")
    assert first.line == 2 and first.snippet == "class Main {};"
    assert {f.relative_path for f in result.files} == paths
    include = search_text(ctx, "#include")
    assert [(m.path, m.line) for m in include.matches] == [("main.cpp", 1), ("src/widget.cpp", 1)]


@needs_rg
def test_search_text_chinese_and_missing(ctx: ToolContext) -> None:
    result = search_text(ctx, "工作区")
    assert [m.path for m in result.matches] == ["docs/用户手册.md"]
    missing = search_text(ctx, "no-such-keyword-xyz")
    assert missing.success and missing.matches == () and "未找到" in missing.message


@needs_rg
def test_search_text_skips_huge_binary_and_sensitive(ctx: ToolContext, ws: Path) -> None:
    _write(ws, "huge.txt", "filler line\n" * 20_000 + "needle_in_huge\n")
    _write(ws, "bin.dat", b"\x00\x01needle_in_binary")
    assert search_text(ctx, "needle_in_huge").matches == ()
    assert search_text(ctx, "needle_in_binary").matches == ()
    result = search_text(ctx, SECRET)
    assert result.success and result.matches == () and result.files == () and result.output_text == ""


@needs_rg
def test_sensitive_hits_dropped_even_when_rg_reports_them(ctx: ToolContext) -> None:
    events = [json.dumps({"type": "match", "data": {"path": {"text": f"./{rel}"}, "lines": {"text": SECRET},
                                                    "line_number": 1, "submatches": []}})
              for rel in (".env", "id_rsa", "my_secret_notes.txt", "../outside.txt", "main.cpp")]
    hits = _Hits(ctx, 50, 1000)
    hits.feed(line.encode() for line in events)
    assert [m.path for m in hits.matches] == ["main.cpp"]


@needs_rg
def test_search_text_at_most_50_matches(ctx: ToolContext, ws: Path) -> None:
    for i in range(30):
        _write(ws, f"many/f{i:02}.txt", "hit_token\n" * 5)
    result = search_text(ctx, "hit_token")
    assert len(result.matches) == 50 and result.truncated and "50" in result.message
    assert len(search_text(ctx, "hit_token", max_matches=7).matches) == 7
    capped = search_text(ctx, "hit_token", max_files=3)
    assert len(capped.files) == 3 and capped.truncated and "3 个文件上限" in capped.message


@needs_rg
def test_search_text_pattern_starting_with_dash_and_regex(ctx: ToolContext) -> None:
    result = search_text(ctx, "--option-like")
    assert [m.path for m in result.matches] == ["-dash.txt"]
    regex = search_text(ctx, r"class \w+ \{\};", fixed_string=False)
    assert {m.path for m in regex.matches} == {"main.cpp", "src/widget.cpp"}
    literal = search_text(ctx, r"class \w+", fixed_string=True)
    assert literal.matches == ()
    bad = search_text(ctx, "(unclosed", fixed_string=False)
    assert not bad.success and "搜索失败" in bad.error_message


@needs_rg
def test_search_text_long_line_snippet_trimmed(ctx: ToolContext, ws: Path) -> None:
    _write(ws, "long.js", "x" * 1000 + " findme " + "y" * 1000 + "\n")
    match = search_text(ctx, "findme").matches[0]
    assert "findme" in match.snippet and len(match.snippet) <= 202


def test_rg_argv_fixed_shape() -> None:
    argv = rg_argv("/usr/bin/rg", "-e")
    assert argv[-4:] == ["-e", "-e", "--", "."]
    assert "--fixed-strings" in argv and "--no-follow" in argv and "--hidden" not in argv
    assert "--max-filesize" not in argv  # the 128 KB limit is applied to the hits (text_search docstring)
    assert "!.env" in argv and "!node_modules/" in argv


@needs_rg
def test_logs_name_tool_and_never_contents(ctx: ToolContext, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="localagent.tools")
    read_file(ctx, ".env")
    search_text(ctx, SECRET)
    read_file(ctx, "main.cpp")
    text = caplog.text
    assert "tool=read_file success=False" in text and "tool=search_text success=True" in text
    assert "tool=read_file success=True" in text
    assert SECRET not in text and "class Main" not in text


def test_risk_is_read_only() -> None:
    from localagent.tools import read_tools

    assert read_tools.RISK is WorkspaceToolRisk.READ_ONLY
