"""Read-only workspace tools (seed 001 §8.1, issue 3 §3): list, read, search files, search text.

Every tool takes a :class:`ToolContext`, sends every path through
``ctx.policy`` (the one gate) and returns a :class:`WorkspaceToolResult`;
refusals and failures are results (``success=False``), never exceptions. Risk:
ReadOnly. Each call writes one log line to ``localagent.tools`` (tool name,
success, counts, error summary — never file contents; seed 001 §14).
``search_text`` (in :mod:`localagent.tools.text_search`, importable from here)
runs ``rg`` (the PyPI ``ripgrep`` wheel) as a child with a fixed argument list
and a minimal environment.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from localagent.errors import LocalAgentError, PathDenied
from localagent.i18n import counted, tr
from localagent.tools.text_search import (  # noqa: F401  (search_text's module; re-exported for callers)
    MAX_MATCHES_PER_FILE,
    MAX_TEXT_FILES,
    MAX_TEXT_MATCHES,
    RG_TIMEOUT_S,
    SNIPPET_CHARS,
    _Hits,
    find_rg,
    rg_argv,
    search_text,
)
from localagent.tools.types import ToolContext, WorkspaceFileInfo, WorkspaceToolResult, WorkspaceToolRisk
from localagent.workspace.index import WorkspaceIndex
from localagent.workspace.scanner import is_skipped_dir_name, scan_workspace
from localagent.workspace.textio import DEFAULT_MAX_BYTES, read_text

RISK = WorkspaceToolRisk.READ_ONLY
MAX_LIST_ENTRIES = 200
MAX_SEARCH_RESULTS = 30

log = logging.getLogger("localagent.tools")


def log_result(tool: str, result: WorkspaceToolResult, **counts: object) -> WorkspaceToolResult:
    """Write the seed 001 §14 log line for a tool call and return ``result`` unchanged.

    Args:
        tool: the tool name. result: what it returned. counts: numbers to log
            (files, matches…); never contents.
    """
    extra = " ".join(f"{key}={value}" for key, value in counts.items())
    if result.success:
        log.info("tool=%s success=True %s", tool, extra)
    else:
        log.info("tool=%s success=False error=%s %s", tool, result.error_message[:200], extra)
    return result


def refusal(message: str, target_path: str = "") -> WorkspaceToolResult:
    """Return a failed result whose message and error message are ``message``."""
    return WorkspaceToolResult(success=False, message=message, error_message=message, target_path=target_path)


def resolve_or_refuse(ctx: ToolContext, path: str) -> tuple[Path | None, WorkspaceToolResult | None]:
    """Resolve ``path`` through the policy: ``(absolute path, None)`` or ``(None, refusal result)``."""
    try:
        return Path(ctx.policy.resolve(path)), None
    except PathDenied as exc:
        return None, refusal(exc.message(ctx.lang))
    except (OSError, ValueError) as exc:  # fail closed on anything the policy did not classify
        return None, refusal(tr(ctx.lang, f"路径无效：{exc}", f"Invalid path: {exc}"))


def file_info(ctx: ToolContext, path: Path, st: os.stat_result, *, is_dir: bool) -> WorkspaceFileInfo:
    """Build a :class:`WorkspaceFileInfo` for a path inside the workspace."""
    from datetime import datetime

    name = path.name
    dot = name.rfind(".")
    return WorkspaceFileInfo(
        relative_path=ctx.policy.to_relative_path(path),
        absolute_path=str(path),
        file_name=name,
        suffix=name[dot:].lower() if dot > 0 and not is_dir else "",
        size_bytes=0 if is_dir else st.st_size,
        last_modified=datetime.fromtimestamp(st.st_mtime),
        is_directory=is_dir,
        is_text_file=not is_dir and bool(ctx.policy.is_supported_text_file(path)),
        is_hidden=name.startswith("."),
    )


def _format_size(size: int) -> str:
    for unit in ("B", "KB", "MB"):
        if size < 1024 or unit == "MB":
            return f"{size} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size} B"


# --- list_files ---------------------------------------------------------------------------------


def list_files(ctx: ToolContext, path: str = ".", *, max_entries: int = MAX_LIST_ENTRIES) -> WorkspaceToolResult:
    """List one folder of the workspace, not recursively (seed 001 §8.1 ListFilesTool).

    Folders first, then files, each sorted by name (case-folded). Hidden
    folders and the scanner's skip list (``.git``, ``build``, ``node_modules``…)
    are left out and counted in the message; hidden files are listed and marked
    ``is_hidden``. A symlink is listed only if its target is inside the workspace.

    Args:
        ctx: tool context (policy, language).
        path: workspace-relative or absolute folder (default the root).
        max_entries: show at most this many entries (default 200); more sets ``truncated``.

    Returns:
        ``files`` holds the entries in display order; ``output_text`` one line each.
    """
    folder, denied = resolve_or_refuse(ctx, path)
    if denied is not None:
        return log_result("list_files", denied)
    decision = ctx.policy.can_read_directory(folder)
    if not decision:
        return log_result("list_files", refusal(decision.message(ctx.lang), path))
    try:
        entries, skipped = _visible_entries(ctx, folder)
    except OSError as exc:
        return log_result("list_files", refusal(tr(ctx.lang, f"无法列出目录：{exc.strerror}",
                                                   f"Cannot list the folder: {exc.strerror}"), path))
    shown = entries[:max(0, max_entries)]
    truncated = len(entries) > len(shown)
    rel = ctx.policy.to_relative_path(folder) or "."
    message = tr(ctx.lang, f"{rel} 共 {len(entries)} 项", f"{rel}: {counted(len(entries), 'entry', 'entries')}")
    if skipped:
        message += tr(ctx.lang, f"（已跳过 {skipped} 个隐藏或产物目录）", f" ({skipped} hidden or build folders skipped)")
    if truncated:
        message += tr(ctx.lang, f"，只显示前 {len(shown)} 项", f"; showing the first {len(shown)}")
    lines = [f"{f.file_name}/" if f.is_directory else f"{f.file_name}  ({_format_size(f.size_bytes)})" for f in shown]
    result = WorkspaceToolResult(success=True, message=message, output_text="\n".join(lines), target_path=rel,
                                 files=tuple(shown), truncated=truncated)
    return log_result("list_files", result, entries=len(shown), truncated=truncated)


def _visible_entries(ctx: ToolContext, folder: Path) -> tuple[list[WorkspaceFileInfo], int]:
    """Return the folder's listable entries (folders first) and how many folders were skipped."""
    infos: list[WorkspaceFileInfo] = []
    skipped = 0
    with os.scandir(folder) as iterator:
        for entry in iterator:
            try:
                is_dir = entry.is_dir()
                if is_dir and is_skipped_dir_name(entry.name):
                    skipped += 1
                    continue
                if entry.is_symlink() and not ctx.policy.is_inside_workspace(entry.path):
                    continue
                infos.append(file_info(ctx, Path(entry.path), entry.stat(), is_dir=is_dir))
            except OSError:
                continue
    infos.sort(key=lambda f: (not f.is_directory, f.file_name.casefold(), f.file_name))
    return infos, skipped


# --- read_file ----------------------------------------------------------------------------------


def read_file(ctx: ToolContext, path: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> WorkspaceToolResult:
    """Read a text file of the workspace (seed 001 §8.1 ReadFileTool).

    Refused (as results): paths outside the workspace, sensitive files
    (``.env``, keys…), dangerous suffixes, folders, and binary files (NUL bytes
    or no text encoding). The encoding is detected (BOM, UTF-8, then
    charset-normalizer: GBK, Big5…) and named in the message.

    Args:
        ctx: tool context. path: workspace-relative or absolute file path.
        max_bytes: read at most this many bytes (default 128 KB); longer files
            are cut (never inside a character) with a note and ``truncated``.

    Returns:
        The text in ``output_text``; ``target_path`` is the relative path.
    """
    target, denied = resolve_or_refuse(ctx, path)
    if denied is not None:
        return log_result("read_file", denied)
    rel = ctx.policy.to_relative_path(target)
    if target.is_dir():
        return log_result("read_file", refusal(tr(ctx.lang, f"{rel} 是文件夹，请用列出目录查看",
                                                  f"{rel} is a folder; list it instead"), rel))
    decision = ctx.policy.can_read_file(target)
    if not decision:
        return log_result("read_file", refusal(decision.message(ctx.lang), rel))
    try:
        text = read_text(ctx.policy, target, max_bytes=max_bytes)
    except LocalAgentError as exc:
        return log_result("read_file", refusal(exc.message(ctx.lang), rel))
    message = tr(ctx.lang, f"已读取 {rel}（{_format_size(text.size_bytes)}，编码 {text.encoding}）",
                 f"Read {rel} ({_format_size(text.size_bytes)}, encoding {text.encoding})")
    if text.truncated:
        limit = _format_size(max_bytes)
        message += tr(ctx.lang, f"；文件超过 {limit}，只显示前 {limit}", f"; the file is larger than {limit}, "
                      f"only the first {limit} is shown")
    result = WorkspaceToolResult(success=True, message=message, output_text=text.text, target_path=rel,
                                 truncated=text.truncated)
    return log_result("read_file", result, bytes=text.size_bytes, encoding=text.encoding, truncated=text.truncated)


# --- search_files -------------------------------------------------------------------------------


def ensure_index(ctx: ToolContext) -> WorkspaceIndex:
    """Return ``ctx.index``, scanning the workspace first (and storing the index) when there is none."""
    if ctx.index is None:
        scan = scan_workspace(ctx.policy)
        ctx.index = WorkspaceIndex(scan.files)
        log.info("scan files=%d truncated=%s elapsed_s=%.3f", len(scan.files), scan.truncated, scan.elapsed_s)
    return ctx.index


def search_files(ctx: ToolContext, keyword: str, *, max_results: int = MAX_SEARCH_RESULTS) -> WorkspaceToolResult:
    """Find files by name in the workspace index (seed 001 §8.1 SearchFilesTool).

    Relevance then most recent (see :meth:`WorkspaceIndex.find_by_name`);
    ``".cpp"``/``"*.cpp"`` search by suffix. Scans first if there is no index.

    Args:
        ctx: tool context. keyword: part of a file name.
        max_results: at most this many files (default 30).

    Returns:
        ``files`` in rank order (the list "打开第一个" refers to), relative paths
        numbered in ``output_text``; "未找到…" as a successful empty result.
    """
    if not keyword.strip():
        return log_result("search_files", refusal(tr(ctx.lang, "请给出要搜索的文件名", "Give a file name to search for")))
    index = ensure_index(ctx)
    found = index.find_by_name(keyword, max_results + 1)
    shown = found[:max(0, max_results)]
    truncated = len(found) > len(shown)
    if not shown:
        message = tr(ctx.lang, f"未找到与“{keyword.strip()}”匹配的文件", f"No file matches \"{keyword.strip()}\"")
    else:
        message = tr(ctx.lang, f"找到 {len(shown)} 个文件", f"Found {counted(len(shown), 'file')}")
        if truncated:
            message += tr(ctx.lang, f"（只显示前 {len(shown)} 个）", f" (showing the first {len(shown)})")
    output = "\n".join(f"{n}. {f.relative_path}" for n, f in enumerate(shown, 1))
    result = WorkspaceToolResult(success=True, message=message, output_text=output, files=tuple(shown),
                                 truncated=truncated)
    return log_result("search_files", result, results=len(shown))
