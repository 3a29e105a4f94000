"""Which file do you mean: a request's subject as an existing workspace path (seed 001 §11, §15).

Seed 001 §11 lets the user say "读取 main.cpp" or "打开第一个". :class:`SubjectLookup`
turns what was typed — an ordinal of the last result list
(:mod:`localagent.agent.result_context`), a path, or a bare file name looked up in
the index — into ``(relative path, is folder)``, or into the failed/refused
:class:`~localagent.agent.workspace_actions.ActionOutcome` the user sees. Several
files answering to one name become the result list, so "第几个" picks one.
Every path is judged by the workspace's ``AccessPolicy``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from localagent.agent.result_context import ContextMiss, ResultContext
from localagent.agent.workspace_actions import ActionOutcome, failure, make_plan, outcome
from localagent.agent.workspace_requests import WorkspaceRequest
from localagent.errors import PathDenied
from localagent.i18n import tr
from localagent.tools.types import ToolContext, WorkspaceFileInfo, WorkspaceToolResult
from localagent.workspace.name_lookup import nfc, normalization_matches


@dataclass(frozen=True)
class SubjectLookup:
    """Find a request's subject in the open workspace (seed 001 §11).

    Attributes:
        ctx: the open workspace's tool context (its policy judges every path).
        context: the last result list; ordinals resolve against it, and an ambiguous
            name replaces it with the candidates.
        lang: ``"zh"`` or ``"en"`` for messages.
        index: ``index()`` → the workspace index (scanning first when there is none), or None.
    """

    ctx: ToolContext
    context: ResultContext
    lang: str
    index: Callable[[], Any]

    def locate(self, request: WorkspaceRequest, kind: str) -> tuple[str, bool] | ActionOutcome:
        """Find the subject: an ordinal of the last list, a path, or a unique file name in the index.

        Args:
            request: the parsed request (its ``ordinal``, ``path`` and ``alternatives``).
            kind: the request kind, for the plan of a failed or refused outcome.

        Returns:
            ``(workspace-relative path, is folder)`` of an existing entry; otherwise a
            failed outcome (expired ordinal, not found, several files of that name —
            listed so "第几个" can pick) or a refused one (path denied by the policy).
        """
        if request.ordinal is not None:
            hit = self.context.resolve(request.ordinal)
            if isinstance(hit, ContextMiss):
                return outcome(make_plan(kind), "failed", None, hit.message(self.lang))
            path = hit.relative_path
        else:
            path = self.existing(request) or request.path or "."
        policy = self.ctx.policy
        try:
            absolute = policy.resolve(path)
            if not absolute.exists():
                twins = normalization_matches(policy, path)
                if len(twins) > 1:
                    return self._ask_which(kind, path, self._infos(twins))
                absolute = policy.resolve(twins[0]) if twins else absolute
            if absolute.exists():
                return policy.to_relative_path(absolute), absolute.is_dir()
        except PathDenied as error:
            message = error.message(self.lang)
            return outcome(make_plan(kind, relative_target_path=path), "refused", failure(message), message)
        return self._by_name_or_missing(kind, path)

    def existing(self, request: WorkspaceRequest) -> str | None:
        """Return the first reading of the path phrase that exists in the workspace, longest first (else None)."""
        for path in request.alternatives or (request.path,):
            if path and self._exists(path):
                return path
        return None

    def _by_name_or_missing(self, kind: str, path: str) -> tuple[str, bool] | ActionOutcome:
        found = self._by_name(path)
        if len(found) == 1:
            return found[0].relative_path, False
        if found:
            return self._ask_which(kind, path, found)
        message = tr(self.lang, f"找不到：{path}", f"Not found: {path}")
        return outcome(make_plan(kind, relative_target_path=path), "failed", failure(message), message)

    def _ask_which(self, kind: str, path: str, found: list[WorkspaceFileInfo]) -> ActionOutcome:
        """Several files answer to ``path``: list them; "第几个" picks one (seed 001 §15)."""
        self.context.remember(tuple(found))
        message = tr(self.lang, f"有 {len(found)} 个文件叫 {path}，请用“第几个”指定：",
                     f"{len(found)} files are named {path}; say which one (\"the first one\"…):")
        listed = WorkspaceToolResult(success=False, message=message, files=tuple(found))
        return outcome(make_plan(kind), "failed", listed, message)

    def _infos(self, relative_paths: list[str]) -> list[WorkspaceFileInfo]:
        """File infos of existing workspace paths (each resolved by the policy again)."""
        import os

        from localagent.tools.read_tools import file_info

        infos = []
        for rel in relative_paths:
            absolute = self.ctx.policy.resolve(rel)
            st = os.lstat(absolute)
            infos.append(file_info(self.ctx, absolute, st, is_dir=absolute.is_dir()))
        return infos

    def _exists(self, path: str) -> bool:
        """A bare word counts as a workspace path only if it names something there (seed 001 §12)."""
        try:
            if self.ctx.policy.resolve(path).exists() or normalization_matches(self.ctx.policy, path):
                return True
        except (PathDenied, OSError, ValueError):
            return False
        return bool(self._by_name(path))

    def _by_name(self, name: str) -> list[WorkspaceFileInfo]:
        """Indexed files whose name (or name without suffix) is exactly ``name``, case-folded, in NFC.

        NFC on both sides: ``\u00e9.txt`` as typed finds ``e\u0301.txt`` as macOS stores it.
        """
        if "/" in name or "\\" in name:
            return []
        key = nfc(name).casefold()
        index = self.index()
        files = index.all_files() if index is not None else ()
        exact = [f for f in files if nfc(f.file_name).casefold() == key]
        return exact or [f for f in files if nfc(f.file_name).casefold().rsplit(".", 1)[0] == key]
