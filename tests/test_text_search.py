"""search_text's own rules (seed 001 §8.1 SearchTextTool; issue 3 §3): size limit on hits, JSON stream handling."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from localagent.tools import read_tools
from localagent.tools.text_search import _bounded_lines, _Hits, find_rg, search_text
from localagent.tools.types import ToolContext
from localagent.workspace.policy import AccessPolicy

needs_rg = pytest.mark.skipif(find_rg() is None, reason="rg (ripgrep wheel) not installed")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(ws: Path) -> ToolContext:
    return ToolContext(policy=AccessPolicy(ws))


def _match(rel: str, line: int = 1, text: str = "needle") -> bytes:
    data = {"path": {"text": rel}, "lines": {"text": text + "\n"}, "line_number": line,
            "submatches": [{"match": {"text": "needle"}, "start": 0, "end": 6}]}
    return json.dumps({"type": "match", "data": data}, separators=(",", ":")).encode() + b"\n"


def _begin(rel: str) -> bytes:
    return json.dumps({"type": "begin", "data": {"path": {"text": rel}}}, separators=(",", ":")).encode() + b"\n"


def test_read_tools_still_exports_search_text() -> None:
    assert read_tools.search_text is search_text and read_tools._Hits is _Hits


@needs_rg
def test_limit_is_inclusive_and_checked_on_hits(ctx: ToolContext, ws: Path) -> None:
    limit = 1000
    exact = b"needle\n" + b"a" * (limit - 7)
    (ws / "exact.txt").write_bytes(exact)
    (ws / "over.txt").write_bytes(exact + b"b")
    assert len(exact) == limit
    found = search_text(ctx, "needle", max_file_bytes=limit)
    assert [m.path for m in found.matches] == ["exact.txt"]
    assert [f.relative_path for f in found.files] == ["exact.txt"]


@needs_rg
def test_oversized_hits_do_not_count_towards_limits(ctx: ToolContext, ws: Path) -> None:
    for i in range(5):
        (ws / f"big{i}.txt").write_text("needle\n" * 10 + "x" * 200_000, encoding="utf-8")
    (ws / "small.txt").write_text("needle\n", encoding="utf-8")
    result = search_text(ctx, "needle", max_files=1, max_matches=3)
    assert [m.path for m in result.matches] == ["small.txt"] and not result.truncated


def test_dropped_file_lines_are_skipped_and_others_kept(ctx: ToolContext, ws: Path) -> None:
    (ws / "big.txt").write_bytes(b"x" * 200_000)
    (ws / "ok.txt").write_text("needle\n", encoding="utf-8")
    stream = [_begin("big.txt"), _match("big.txt"), b'{"type":"end","data":{}}\n',
              _begin(".env"), _match(".env"), _begin("ok.txt"), _match("ok.txt"), b"not json\n"]
    hits = _Hits(ctx, 50, 1000)
    hits.feed(stream)
    assert [(m.path, m.snippet) for m in hits.matches] == [("ok.txt", "needle")]


def test_match_without_begin_is_still_checked(ctx: ToolContext, ws: Path) -> None:
    (ws / "big.txt").write_bytes(b"x" * 200_000)
    (ws / "ok.txt").write_text("needle\n", encoding="utf-8")
    hits = _Hits(ctx, 50, 1000)
    hits.feed([_match("big.txt"), _match("gone.txt"), _match("../ws/ok.txt"), _match("ok.txt", 2)])
    assert [(m.path, m.line) for m in hits.matches] == [("ok.txt", 2)]  # ".." out and back in: refused


def test_over_long_lines_are_skipped_without_being_kept() -> None:
    stream = io.BufferedReader(io.BytesIO(b"short\n" + b"x" * 5000 + b"\nafter\n" + b"y" * 10), buffer_size=64)
    assert list(_bounded_lines(stream, limit=100)) == [b"short\n", b"after\n", b"y" * 10]
    exact = io.BufferedReader(io.BytesIO(b"z" * 99 + b"\n" + b"w" * 100 + b"\nend"))
    assert list(_bounded_lines(exact, limit=100)) == [b"z" * 99 + b"\n", b"end"]
