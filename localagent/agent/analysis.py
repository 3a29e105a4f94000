"""Project analysis and file summaries with the model (seed 001 §9 WorkspaceAgent, issue 3 §4).

The first version is semi-automatic, no tool loop: the program picks the few
relevant files, reads them through ``read_tools.read_file`` (so the access policy
applies: no sensitive, binary or outside file is ever read), and sends the file
tree summary, those files and the question to the model with the seed's
workspace system prompt. The answer must cite file paths; when it cites none,
the list of files read is appended. Without a model the result says analysis
needs ``LLM_API_KEY`` (read-only and write tools still work).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from localagent.i18n import counted, tr
from localagent.tools.types import WorkspaceFileInfo, WorkspaceToolResult

if TYPE_CHECKING:
    from localagent.llm.client import ChatClient
    from localagent.tools.types import ToolContext

MAX_TREE_LINES = 150
MAX_ANALYSIS_FILES = 5
MAX_ANALYSIS_FILE_BYTES = 8 * 1024
ANALYSIS_TEMPERATURE = 0.3
ANALYSIS_MAX_TOKENS = 1500

# Files that tell what a project is, best first (names compared case-folded).
_KEY_NAMES = (
    ("readme.md", "readme", "readme.txt", "readme.rst"),
    ("pyproject.toml", "package.json", "cmakelists.txt", "cargo.toml", "go.mod", "setup.py", "pom.xml",
     "build.gradle", "makefile", "requirements.txt"),
)
_ENTRY_STEMS = ("main", "app", "index", "__main__", "cli", "server")


def tree_summary(files: Sequence[WorkspaceFileInfo], *, max_lines: int = MAX_TREE_LINES) -> str:
    """Return the file tree summary sent to the model: shallow paths first, at most ``max_lines`` lines.

    Args:
        files: the indexed files (workspace-relative paths).
        max_lines: most lines (default 150); the last line counts what was left out.

    Returns:
        One relative path a line, shallowest first then by name, and
        ``…另有 N 个文件（共 M 个）`` when cut; ``""`` for no files.
    """
    ordered = sorted((f.relative_path for f in files), key=lambda p: (p.count("/"), p.casefold()))
    if len(ordered) <= max_lines:
        return "\n".join(ordered)
    shown = ordered[:max(0, max_lines - 1)]
    return "\n".join([*shown, f"…另有 {len(ordered) - len(shown)} 个文件（共 {len(ordered)} 个）"])


def pick_project_files(ctx: ToolContext, files: Sequence[WorkspaceFileInfo],
                       limit: int = MAX_ANALYSIS_FILES) -> list[str]:
    """Choose the few files that say what the project is (seed 001 §9: 读取少量相关文件).

    README first, then build manifests, then entry points (``main.*``, ``app.*``…),
    shallow before deep; sensitive and non-text files are never chosen.

    Args:
        ctx: tool context (its policy judges sensitive names). files: the indexed files.
        limit: at most this many (default 5).

    Returns:
        Workspace-relative paths, best first.
    """
    def rank(info: WorkspaceFileInfo) -> tuple[int, int, str]:
        name = info.file_name.casefold()
        tier = next((i for i, names in enumerate(_KEY_NAMES) if name in names), None)
        if tier is None:
            stem = name.rsplit(".", 1)[0]
            tier = len(_KEY_NAMES) if stem in _ENTRY_STEMS else len(_KEY_NAMES) + 1
        return tier, info.relative_path.count("/"), info.relative_path.casefold()

    usable = [f for f in files if f.is_text_file and not ctx.policy.is_sensitive_file(f.relative_path)]
    ranked = sorted(usable, key=rank)
    chosen = [f for f in ranked if rank(f)[0] <= len(_KEY_NAMES)]
    return [f.relative_path for f in chosen[:limit]] or [f.relative_path for f in ranked[:limit]]


def read_for_analysis(ctx: ToolContext, paths: Sequence[str], *, limit: int = MAX_ANALYSIS_FILES,
                      max_bytes: int = MAX_ANALYSIS_FILE_BYTES) -> tuple[list[tuple[str, str]], list[str]]:
    """Read up to ``limit`` files through the policy, each cut to ``max_bytes``.

    Args:
        ctx: tool context. paths: workspace-relative candidates, best first.
        limit: most files read (default 5). max_bytes: bytes per file (default 8 KB).

    Returns:
        ``(read, refused)``: ``(path, text)`` pairs that were read, and the
        user-facing reasons for those that were not (sensitive, binary, missing…).
    """
    from localagent.tools.read_tools import read_file

    read: list[tuple[str, str]] = []
    refused: list[str] = []
    for path in paths:
        if len(read) >= limit:
            break
        result = read_file(ctx, path, max_bytes=max_bytes)
        if result.success:
            read.append((result.target_path or path, result.output_text))
        else:
            refused.append(result.error_message or result.message)
    return read, refused


def cite_paths(answer: str, paths: Sequence[str], lang: str) -> str:
    """Return ``answer``, with the files read appended when it cites none of them (seed 001 §9)."""
    if not paths or any(p in answer or p.rsplit("/", 1)[-1] in answer for p in paths):
        return answer
    return answer.rstrip() + "\n\n" + tr(lang, "参考文件：", "Files read: ") + "、".join(paths)


def analyze(ctx: ToolContext, client: ChatClient | None, *, model: str, question: str, tree: str,
            paths: Sequence[str], infos: Sequence[WorkspaceFileInfo] = ()) -> WorkspaceToolResult:
    """Ask the model about the workspace with the tree summary and a few files (seed 001 §9).

    Args:
        ctx: tool context (policy for reading). client: the model client, or None.
        model: model name (``GENERATION_MODEL_NAME``). question: the user's sentence.
        tree: :func:`tree_summary` text. paths: files to read, best first (≤ 5 are read).
        infos: file infos to report as the result's ``files`` (matched by path).

    Returns:
        A result whose ``output_text`` is the answer (citing paths) and ``files``
        the files read; a failed result without a client ("分析需要配置模型（LLM_API_KEY）").

    Raises:
        ModelAPIError: the model failed after the client's retries (``ModelTimeout`` included);
            fatal, the CLI maps it to exit 3 with the client's one clear line (README exit codes).
        Aborted: the user cancelled while waiting for the model.
    """
    if client is None:
        message = tr(ctx.lang, "分析需要配置模型（LLM_API_KEY）。搜索、读取和文件操作不需要模型。",
                     "Analysis needs a model (set LLM_API_KEY). Search, read and file actions work without one.")
        return WorkspaceToolResult(success=False, message=message, error_message=message)
    from localagent.llm.prompts import build_workspace_analysis_messages

    read, refused = read_for_analysis(ctx, paths)
    messages = build_workspace_analysis_messages(question, tree, read)
    # A model error is fatal (house style §5): it ends the run, and only ui/cli.py maps it to exit 3.
    answer = client.chat(messages, model=model, temperature=ANALYSIS_TEMPERATURE, max_tokens=ANALYSIS_MAX_TOKENS)
    read_paths = [path for path, _ in read]
    answer = cite_paths(_strip_reasoning(answer).strip(), read_paths, ctx.lang)
    message = tr(ctx.lang, f"分析完成（读取了 {len(read)} 个文件）", f"Analysis done ({counted(len(read), 'file')} read)")
    if refused:
        message += tr(ctx.lang, f"；{len(refused)} 个文件未读取", f"; {counted(len(refused), 'file')} not read")
    by_path = {info.relative_path: info for info in infos}
    files = tuple(by_path[p] for p in read_paths if p in by_path)
    return WorkspaceToolResult(success=True, message=message, output_text=answer, files=files)


def _strip_reasoning(text: str) -> str:
    from localagent.llm.parsing import strip_reasoning

    return strip_reasoning(text)
