"""Read-only workspace tools (seed 001 §8.1, issue 3 §3): list, read, search files, search text.

Every tool takes a :class:`ToolContext`, sends every path through
``ctx.policy`` (the one gate) and returns a :class:`WorkspaceToolResult`;
refusals and failures are results (``success=False``), never exceptions. Risk:
ReadOnly. Each call writes one log line to ``localagent.tools`` (tool name,
success, counts, error summary — never file contents; seed 001 §14).
``search_text`` runs ``rg`` (the PyPI ``ripgrep`` wheel) as a child with a
fixed argument list and a minimal environment.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from localagent.errors import LocalAgentError, PathDenied
from localagent.i18n import tr
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
    message = tr(ctx.lang, f"{rel} 共 {len(entries)} 项", f"{rel}: {len(entries)} entries")
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
        message = tr(ctx.lang, f"找到 {len(shown)} 个文件", f"Found {len(shown)} files")
        if truncated:
            message += tr(ctx.lang, f"（只显示前 {len(shown)} 个）", f" (showing the first {len(shown)})")
    output = "\n".join(f"{n}. {f.relative_path}" for n, f in enumerate(shown, 1))
    result = WorkspaceToolResult(success=True, message=message, output_text=output, files=tuple(shown),
                                 truncated=truncated)
    return log_result("search_files", result, results=len(shown))


# --- search_text --------------------------------------------------------------------------------

MAX_TEXT_MATCHES = 50
MAX_TEXT_FILES = 1000
MAX_MATCHES_PER_FILE = 10
SNIPPET_CHARS = 200
RG_TIMEOUT_S = 60.0


def find_rg() -> str | None:
    """Return the ``rg`` executable: the one next to ``sys.executable`` (the ``ripgrep`` wheel) first, then PATH."""
    import shutil
    import sys

    exe_dir = Path(sys.executable).parent
    for candidate in (exe_dir / "rg", exe_dir / "rg.exe", exe_dir / "Scripts" / "rg.exe", exe_dir / "bin" / "rg"):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("rg")


def _exclude_globs() -> list[str]:
    """Return rg ``--iglob`` excludes: the scanner's skip folders and the policy's sensitive-name tables.

    A pre-filter only (sensitive bytes never reach this process); every hit is
    still checked by the policy, which is the authority.
    """
    from localagent.workspace.scanner import SKIPPED_DIR_NAMES

    globs = [f"!{name}/" for name in sorted(SKIPPED_DIR_NAMES)]
    try:
        from localagent.workspace import pathnames as names
    except ImportError:
        return globs
    globs += [f"!{name}" for name in sorted(getattr(names, "SENSITIVE_NAMES", ()))]
    globs += [f"!*{suffix}" for suffix in sorted(getattr(names, "SENSITIVE_SUFFIXES", ()))]
    globs += [f"!*{word}*" for word in getattr(names, "SENSITIVE_KEYWORDS", ())]
    globs += [f"!{name}/" for name in sorted(getattr(names, "SENSITIVE_DIRS", ()))]
    return globs + ["!.env.*", "!id_rsa*", "!id_dsa*", "!id_ecdsa*", "!id_ed25519*"]


def rg_argv(rg: str, pattern: str, *, fixed_string: bool = True, max_file_bytes: int = DEFAULT_MAX_BYTES,
            max_per_file: int = MAX_MATCHES_PER_FILE, max_depth: int = 8) -> list[str]:
    """Return the fixed rg argument list for a search from the workspace root.

    ``-e PATTERN`` and ``--`` keep a pattern or path starting with ``-`` from
    being read as an option; hidden files, symlinks, binary files, files over
    ``max_file_bytes`` and ``.gitignore``d files are skipped like the scanner does.
    """
    argv = [rg, "--json", "--no-config", "--no-follow", "--no-require-git", "--no-ignore-parent",
            "--no-ignore-global", "--max-depth", str(max_depth), "--max-filesize", str(max_file_bytes),
            "--max-count", str(max_per_file)]
    if fixed_string:
        argv.append("--fixed-strings")
    for glob in _exclude_globs():
        argv += ["--iglob", glob]
    return argv + ["-e", pattern, "--", "."]


def _rg_env() -> dict[str, str]:
    """Return the child's environment: a fixed PATH (and SystemRoot on Windows); no user variables, no keys."""
    env = {"PATH": os.defpath}
    if os.name == "nt":
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", r"C:\Windows")
    return env


class _Hits:
    """Matches gathered from rg's JSON stream, with the limits that stop it."""

    def __init__(self, ctx: ToolContext, max_matches: int, max_files: int) -> None:
        self.ctx, self.max_matches, self.max_files = ctx, max_matches, max_files
        self.root = Path(ctx.policy.root)
        self.matches: list = []
        self.files: dict[str, None] = {}
        self.truncated = self.files_capped = self.timed_out = False

    def feed(self, stream) -> None:
        """Read JSON events until the stream ends or a limit is reached (then return early)."""
        import json

        for raw in stream:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if event.get("type") == "match" and not self._add(event.get("data") or {}):
                return

    def _add(self, data: dict) -> bool:
        from localagent.tools.types import TextMatch

        rel = self._relative(data.get("path") or {})
        if rel is None:
            return True
        if len(self.matches) >= self.max_matches:
            self.truncated = True
            return False
        if rel not in self.files:
            if len(self.files) >= self.max_files:
                self.truncated = self.files_capped = True
                return False
            self.files[rel] = None
        self.matches.append(TextMatch(path=rel, line=int(data.get("line_number") or 0), snippet=_snippet(data)))
        return True

    def _relative(self, path_obj: dict) -> str | None:
        """Return the hit's relative path, or ``None`` when the policy says sensitive or outside."""
        text = _json_text(path_obj, is_path=True)
        absolute = self.root / (text[2:] if text.startswith(("./", ".\\")) else text)
        policy = self.ctx.policy
        if not policy.is_inside_workspace(absolute) or policy.is_sensitive_file(absolute):
            return None
        return policy.to_relative_path(absolute)


def _json_text(obj: dict, *, is_path: bool = False) -> str:
    """Return rg's ``{"text": …}`` or base64 ``{"bytes": …}`` value as text."""
    if "text" in obj:
        return str(obj["text"])
    import base64

    raw = base64.b64decode(obj.get("bytes") or b"")
    if is_path:
        return os.fsdecode(raw)
    from localagent.workspace.textio import decode_bytes

    try:
        return decode_bytes(raw)[0]
    except LocalAgentError:
        return raw.decode("utf-8", errors="replace")


def _snippet(data: dict) -> str:
    """Return the matched line, at most :data:`SNIPPET_CHARS` characters around the first match."""
    line = _json_text(data.get("lines") or {}).rstrip("\r\n")
    if len(line) <= SNIPPET_CHARS:
        return line.strip()
    submatches = data.get("submatches") or [{}]
    start_byte = int(submatches[0].get("start") or 0)
    start_char = len(line.encode("utf-8")[:start_byte].decode("utf-8", errors="ignore"))
    begin = max(0, min(start_char - SNIPPET_CHARS // 4, len(line) - SNIPPET_CHARS))
    piece = line[begin:begin + SNIPPET_CHARS].strip()
    return ("…" if begin else "") + piece + ("…" if begin + SNIPPET_CHARS < len(line) else "")


def _run_rg(argv: list[str], cwd: Path, hits: _Hits) -> tuple[int, str]:
    """Run rg, feed its stdout to ``hits``, kill it once a limit is reached; return ``(exit code, stderr head)``."""
    import subprocess
    import tempfile
    import threading

    flags = getattr(subprocess, "CREATE_NO_WINDOW", 0)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=_rg_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=err, creationflags=flags)

        def on_timeout() -> None:
            hits.timed_out = True
            proc.kill()

        timer = threading.Timer(RG_TIMEOUT_S, on_timeout)
        timer.start()
        try:
            hits.feed(proc.stdout)
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()
            code = proc.wait()
        err.seek(0)
        return code, err.read(2000).decode("utf-8", errors="replace")


def search_text(ctx: ToolContext, pattern: str, *, max_files: int = MAX_TEXT_FILES,
                max_file_bytes: int = DEFAULT_MAX_BYTES, max_matches: int = MAX_TEXT_MATCHES,
                fixed_string: bool = True) -> WorkspaceToolResult:
    """Search the contents of the workspace's text files with ripgrep (seed 001 §8.1 SearchTextTool).

    Binary files, files over ``max_file_bytes``, hidden and skipped folders,
    ``.gitignore``d files and sensitive files are skipped; every hit is checked
    by the policy again, so a sensitive file's line never appears. rg is killed
    as soon as a limit is reached.

    Args:
        ctx: tool context. pattern: text to find (a literal unless ``fixed_string`` is False).
        max_files: stop when matches come from more than this many files (default 1,000;
            rg has no cap on files searched, so files with matches are counted).
        max_file_bytes: skip files larger than this (default 128 KB).
        max_matches: at most this many matches (default 50), at most 10 per file.
        fixed_string: treat ``pattern`` as plain text (default) or as a regular expression.

    Returns:
        ``matches`` (path, 1-based line, snippet ≤ 200 characters) sorted by path
        and line, ``files`` the distinct files; "未找到…" as a successful empty result.
    """
    if not pattern:
        return log_result("search_text", refusal(tr(ctx.lang, "请给出要搜索的内容", "Give the text to search for")))
    rg = find_rg()
    if rg is None:
        return log_result("search_text", refusal(tr(ctx.lang, "未找到 ripgrep (rg)，请安装 ripgrep 包",
                                                    "ripgrep (rg) not found; install the ripgrep package")))
    hits = _Hits(ctx, max_matches, max_files)
    argv = rg_argv(rg, pattern, fixed_string=fixed_string, max_file_bytes=max_file_bytes)
    try:
        code, stderr = _run_rg(argv, Path(ctx.policy.root), hits)
    except OSError as exc:
        return log_result("search_text", refusal(tr(ctx.lang, f"无法运行 rg：{exc}", f"Cannot run rg: {exc}")))
    if code == 2 and not hits.matches and stderr.strip():
        first = stderr.strip().splitlines()[0][:200]
        return log_result("search_text", refusal(tr(ctx.lang, f"搜索失败：{first}", f"Search failed: {first}")))
    return log_result("search_text", _text_result(ctx, pattern, hits), matches=len(hits.matches),
                      files=len(hits.files), truncated=hits.truncated)


def _text_result(ctx: ToolContext, pattern: str, hits: _Hits) -> WorkspaceToolResult:
    matches = sorted(hits.matches, key=lambda m: (m.path, m.line))
    files = []
    for rel in sorted(hits.files):
        try:
            path = Path(ctx.policy.resolve(rel))
            files.append(file_info(ctx, path, path.stat(), is_dir=False))
        except (LocalAgentError, OSError):
            continue
    if not matches:
        message = tr(ctx.lang, f"未找到包含“{pattern}”的内容", f"No text matches \"{pattern}\"")
    else:
        message = tr(ctx.lang, f"找到 {len(matches)} 处匹配，涉及 {len(files)} 个文件",
                     f"Found {len(matches)} matches in {len(files)} files")
    if hits.files_capped:
        message += tr(ctx.lang, f"（已达到 {hits.max_files} 个文件上限）", f" (stopped at {hits.max_files} files)")
    elif hits.truncated:
        message += tr(ctx.lang, f"（只显示前 {hits.max_matches} 条）", f" (showing the first {hits.max_matches})")
    if hits.timed_out:
        message += tr(ctx.lang, "（搜索超时，结果不完整）", " (search timed out; results incomplete)")
    output = "\n".join(f"{m.path}:{m.line}: {m.snippet}" for m in matches)
    return WorkspaceToolResult(success=True, message=message, output_text=output, files=tuple(files),
                               matches=tuple(matches), truncated=hits.truncated or hits.timed_out)
