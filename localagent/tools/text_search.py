"""``search_text``: search the workspace's text files with ripgrep (seed 001 §8.1 SearchTextTool, issue 3 §3).

``rg`` (the PyPI ``ripgrep`` wheel) runs as a child with a fixed argument list
and a minimal environment. What it may search is cut down before it runs
(hidden files and folders, the scanner's skip list, ``.gitignore``, binary files,
the sensitive-name tables as exclusion globs); what comes back is checked again,
hit by hit, by the workspace policy, which is the authority.

The 128 KB limit per file (seed 001 §8.1) is enforced here, on the files that
matched, with one ``stat`` per such file, rather than with rg's
``--max-filesize``, which makes rg ``stat`` every file it walks (about a quarter
of its time on a 100,000-file tree; issue 3 benchmarks). The price: rg reads a
larger file too, and its lines are dropped here (lines from a file that is
dropped are not even parsed); a line longer than :data:`MAX_EVENT_BYTES` is
skipped unread, so a huge file cannot fill the memory.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from localagent.errors import LocalAgentError
from localagent.i18n import counted, tr
from localagent.tools.types import TextMatch, ToolContext, WorkspaceFileInfo, WorkspaceToolResult
from localagent.workspace.textio import DEFAULT_MAX_BYTES

MAX_TEXT_MATCHES = 50
MAX_TEXT_FILES = 1000
MAX_MATCHES_PER_FILE = 10
SNIPPET_CHARS = 200
RG_TIMEOUT_S = 60.0
#: rg JSON lines longer than this (bytes) are skipped without being parsed (16 MB).
MAX_EVENT_BYTES = 16 * 1024 * 1024

_MATCH_HEAD = b'{"type":"match",'
_BEGIN_HEAD = b'{"type":"begin",'
_RG_HEAD = b'{"type":"'


def find_rg() -> str | None:
    """Return the ``rg`` executable: the one next to ``sys.executable`` (the ``ripgrep`` wheel) first, then PATH."""
    import shutil
    import sys

    exe_dir = Path(sys.executable).parent
    for candidate in (exe_dir / "rg", exe_dir / "rg.exe", exe_dir / "Scripts" / "rg.exe", exe_dir / "bin" / "rg"):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("rg")


@functools.lru_cache(maxsize=1)
def _exclude_globs() -> tuple[str, ...]:
    """Return rg ``--iglob`` excludes: the scanner's skip folders and the policy's sensitive-name tables.

    A pre-filter only (sensitive bytes never reach this process); every hit is
    still checked by the policy, which is the authority. The tables are
    constants, so the list is built once per process.
    """
    from localagent.workspace.scanner import SKIPPED_DIR_NAMES

    globs = [f"!{name}/" for name in sorted(SKIPPED_DIR_NAMES)]
    try:
        from localagent.workspace import pathnames as names
    except ImportError:
        return tuple(globs)
    globs += [f"!{name}" for name in sorted(getattr(names, "SENSITIVE_NAMES", ()))]
    globs += [f"!*{suffix}" for suffix in sorted(getattr(names, "SENSITIVE_SUFFIXES", ()))]
    globs += [f"!*{word}*" for word in getattr(names, "SENSITIVE_KEYWORDS", ())]
    globs += [f"!{name}/" for name in sorted(getattr(names, "SENSITIVE_DIRS", ()))]
    return tuple(globs + ["!.env.*", "!id_rsa*", "!id_dsa*", "!id_ecdsa*", "!id_ed25519*"])


def rg_argv(rg: str, pattern: str, *, fixed_string: bool = True, max_per_file: int = MAX_MATCHES_PER_FILE,
            max_depth: int = 8) -> list[str]:
    """Return the fixed rg argument list for a search from the workspace root.

    ``-e PATTERN`` and ``--`` keep a pattern or path starting with ``-`` from
    being read as an option; hidden files, symlinks, binary files and
    ``.gitignore``d files are skipped like the scanner does. The file size limit
    is applied to the hits (see the module docstring), not here.

    Args:
        rg: the rg executable. pattern: the text or regular expression.
        fixed_string: literal search. max_per_file: matches per file. max_depth: folder levels.

    Returns:
        The argument list, ending ``["-e", pattern, "--", "."]``.
    """
    argv = [rg, "--json", "--no-config", "--no-follow", "--no-require-git", "--no-ignore-parent",
            "--no-ignore-global", "--max-depth", str(max_depth), "--max-count", str(max_per_file)]
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


def _bounded_lines(stream: IO[bytes] | Iterable[bytes], limit: int = MAX_EVENT_BYTES) -> Iterator[bytes]:
    """Yield the lines of ``stream``; a line longer than ``limit`` bytes is read through and dropped."""
    readline = getattr(stream, "readline", None)
    if readline is None:  # an iterable of lines (tests)
        yield from (line for line in stream if len(line) <= limit)
        return
    while True:
        line = readline(limit + 1)
        if not line:
            return
        if len(line) <= limit:
            yield line
            continue
        while line and not line.endswith(b"\n"):  # the rest of an over-long line
            line = readline(1 << 20)


class _Hits:
    """Matches gathered from rg's JSON stream, with the limits that stop it.

    Args:
        ctx: tool context (its policy checks every hit).
        max_matches: stop after this many matches. max_files: stop when matches come from more files.
        max_file_bytes: drop the hits of files larger than this (bytes; default 128 KB).
    """

    def __init__(self, ctx: ToolContext, max_matches: int, max_files: int,
                 max_file_bytes: int = DEFAULT_MAX_BYTES) -> None:
        self.ctx, self.max_matches, self.max_files, self.max_file_bytes = ctx, max_matches, max_files, max_file_bytes
        self.root = Path(ctx.policy.root)
        self.matches: list[TextMatch] = []
        self.files: dict[str, None] = {}
        self.truncated = self.files_capped = self.timed_out = False
        self._size_ok: dict[str, bool] = {}
        self._skip_file = False

    def feed(self, stream: IO[bytes] | Iterable[bytes]) -> None:
        """Read JSON events until the stream ends or a limit is reached (then return early)."""
        for raw in _bounded_lines(stream):
            head = raw[:16]
            if head == _MATCH_HEAD:
                if self._skip_file:
                    continue  # a dropped file's lines are not even parsed
            elif head == _BEGIN_HEAD:
                self._skip_file = self._begin(raw)
                continue
            elif head.startswith(_RG_HEAD):
                continue  # end, context, summary
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if event.get("type") == "match" and not self._add(event.get("data") or {}):
                return

    def _begin(self, raw: bytes) -> bool:
        """Return whether the file a ``begin`` event opens is too large or gone (its lines are then skipped).

        Only the size is judged here; the policy judges every match line of the files that are kept.
        """
        try:
            text = _json_text(json.loads(raw)["data"]["path"], is_path=True)
        except (ValueError, KeyError, TypeError, AttributeError):
            return False  # each match is still checked on its own
        return not self._small_enough(self._absolute(text))

    def _add(self, data: dict) -> bool:
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

    def _absolute(self, text: str) -> str:
        return os.path.join(self.root, _strip_dot(text))

    def _relative(self, path_obj: dict) -> str | None:
        """Return the hit's relative path, or ``None`` when the policy refuses it or the file is too large.

        The policy gets the path as rg printed it (relative to the root, where rg runs: shorter to
        check than the absolute one). ``to_relative_path`` refuses (raises) whatever
        ``is_inside_workspace`` would refuse: outside, through a link to outside, refused forms.
        Any error refuses (fail closed).
        """
        text = _strip_dot(_json_text(path_obj, is_path=True))
        policy = self.ctx.policy
        try:
            rel = policy.to_relative_path(text)
        except Exception:  # PathDenied and anything the policy did not classify
            return None
        if rel == "." or policy.is_sensitive_file(text) or not self._small_enough(self._absolute(text)):
            return None
        return rel

    def _small_enough(self, absolute: str) -> bool:
        """Return whether the file is at most ``max_file_bytes`` (one ``stat`` per file; gone → False)."""
        known = self._size_ok.get(absolute)
        if known is None:
            try:
                known = os.stat(absolute).st_size <= self.max_file_bytes
            except (OSError, ValueError):
                known = False
            self._size_ok[absolute] = known
        return known


def _strip_dot(text: str) -> str:
    """Return rg's path without its leading ``./`` (rg runs in the root with the path ``.``)."""
    return text[2:] if text.startswith(("./", ".\\")) else text


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
            hits.feed(proc.stdout)  # type: ignore[arg-type]
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
            proc.stdout.close()  # type: ignore[union-attr]
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
    from localagent.tools.read_tools import log_result, refusal

    if not pattern:
        return log_result("search_text", refusal(tr(ctx.lang, "请给出要搜索的内容", "Give the text to search for")))
    rg = find_rg()
    if rg is None:
        return log_result("search_text", refusal(tr(ctx.lang, "未找到 ripgrep (rg)，请安装 ripgrep 包",
                                                    "ripgrep (rg) not found; install the ripgrep package")))
    hits = _Hits(ctx, max_matches, max_files, max_file_bytes)
    try:
        code, stderr = _run_rg(rg_argv(rg, pattern, fixed_string=fixed_string), Path(ctx.policy.root), hits)
    except OSError as exc:
        return log_result("search_text", refusal(tr(ctx.lang, f"无法运行 rg：{exc}", f"Cannot run rg: {exc}")))
    if code == 2 and not hits.matches and stderr.strip():
        first = stderr.strip().splitlines()[0][:200]
        return log_result("search_text", refusal(tr(ctx.lang, f"搜索失败：{first}", f"Search failed: {first}")))
    return log_result("search_text", _text_result(ctx, pattern, hits), matches=len(hits.matches),
                      files=len(hits.files), truncated=hits.truncated)


def _matched_files(ctx: ToolContext, rels: Iterable[str]) -> list[WorkspaceFileInfo]:
    """Return the infos of the files with matches (each resolved by the policy again, then ``stat``-ed)."""
    from datetime import datetime

    files = []
    for rel in sorted(rels):
        try:
            path = ctx.policy.resolve(rel)
            st = path.stat()
        except (LocalAgentError, OSError, ValueError):
            continue
        files.append(WorkspaceFileInfo(relative_path=rel, absolute_path=str(path), file_name=path.name,
                                       size_bytes=st.st_size, last_modified=datetime.fromtimestamp(st.st_mtime)))
    return files


def _text_result(ctx: ToolContext, pattern: str, hits: _Hits) -> WorkspaceToolResult:
    matches = sorted(hits.matches, key=lambda m: (m.path, m.line))
    files = _matched_files(ctx, hits.files)
    if not matches:
        message = tr(ctx.lang, f"未找到包含“{pattern}”的内容", f"No text matches \"{pattern}\"")
    else:
        message = tr(ctx.lang, f"找到 {len(matches)} 处匹配，涉及 {len(files)} 个文件",
                     f"Found {counted(len(matches), 'match', 'matches')} in {counted(len(files), 'file')}")
    if hits.files_capped:
        message += tr(ctx.lang, f"（已达到 {hits.max_files} 个文件上限）", f" (stopped at {counted(hits.max_files, 'file')})")
    elif hits.truncated:
        message += tr(ctx.lang, f"（只显示前 {hits.max_matches} 条）", f" (showing the first {hits.max_matches})")
    if hits.timed_out:
        message += tr(ctx.lang, "（搜索超时，结果不完整）", " (search timed out; results incomplete)")
    output = "\n".join(f"{m.path}:{m.line}: {m.snippet}" for m in matches)
    return WorkspaceToolResult(success=True, message=message, output_text=output, files=tuple(files),
                               matches=tuple(matches), truncated=hits.truncated or hits.timed_out)
