"""The workspace conversation: one sentence → one action plan (seed 001 §10 WorkspaceController, issue 3 §4).

:meth:`WorkspaceController.handle_message` parses a direct request
(:mod:`localagent.agent.workspace_requests`) and returns an :class:`ActionOutcome`,
or ``None`` when the sentence is not a direct workspace request. Principles of
seed 001 §10: read-only actions (list, search, read, scan, analyze) and Low ones
(open a folder, reveal) run at once; a write or opening a file is never executed
here — it becomes the pending plan, run only by :meth:`confirm_pending_plan`;
Dangerous requests (permanent delete, commands, scripts) and batch deletes are
refused and never planned. Errors come back as results, never as exceptions,
except the fatal ones of house style §5: a model error in an analysis
(``ModelAPIError``, exit 3) and ``Aborted`` (exit 130) end the run and reach
``ui/cli.py`` through ``session.handle_sentence``, which maps them.
The last result list (:mod:`localagent.agent.result_context`) lets "打开第一个"
refer to the previous search; a workspace change or a write clears it.

This module is the thin seed 001 §10 interface: the workspace, the pending plan
and the read-only actions. Finding a request's subject ("which file do you mean",
seed 001 §11) lives in :mod:`localagent.agent.subject_lookup`; planning a write and
running a confirmed plan live in :mod:`localagent.agent.workspace_actions`, as
does :class:`ActionOutcome` (still importable from here).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any, Callable

from localagent.agent import analysis
from localagent.agent.result_context import DEFAULT_MAX_IDLE_TURNS, ResultContext
from localagent.agent.subject_lookup import SubjectLookup
from localagent.agent.workspace_actions import (
    PLANNERS,
    ActionOutcome,
    Pending,
    Planning,
    confirm_plan,
    failure,
    make_plan,
    outcome,
    refuse_unless,
    run_confirmed,
)
from localagent.agent.workspace_requests import WorkspaceRequest, parse_request
from localagent.errors import WorkspaceError
from localagent.i18n import counted, tr
from localagent.tools.types import (
    ToolContext,
    WorkspaceActionPlan,
    WorkspaceActionType,
    WorkspaceToolResult,
    WorkspaceToolRisk,
)

if TYPE_CHECKING:
    from localagent.config import Settings
    from localagent.llm.client import ChatClient

A = WorkspaceActionType
R = WorkspaceToolRisk
log = logging.getLogger("localagent.workspace")
STATUSES = ("done", "pending", "failed", "refused", "cancelled")
MAX_SCAN_LISTED = 20  # files a scan lists (and "第一个" can refer to)
WRITE_TYPES = frozenset({A.CREATE_FILE, A.CREATE_DIRECTORY, A.WRITE_FILE, A.COPY_FILE, A.MOVE_FILE,
                         A.RENAME_FILE, A.DELETE_TO_TRASH, A.UNDO})


class WorkspaceController:
    """Seed 001 §10's controller: workspace, pending plan, result context.

    Args:
        lang: ``"zh"`` or ``"en"`` for messages.
        client: model client for analysis, or None (analysis then says it needs a model).
        settings: for the scan limits and the analysis model name (defaults when None).
        launcher: ``launcher(argv)`` replacing the system opener (tests record calls).
        cancel_event: stops a scan in progress when set.
        context_turns: turns without use after which "第一个" expires (default 3).
    """

    def __init__(self, *, lang: str = "zh", client: ChatClient | None = None, settings: Settings | None = None,
                 launcher: Callable[[list[str]], None] | None = None, cancel_event: threading.Event | None = None,
                 context_turns: int = DEFAULT_MAX_IDLE_TURNS) -> None:
        self.lang = lang
        self._client = client
        self._settings = settings
        self._launcher = launcher
        self._cancel = cancel_event
        self._ctx: ToolContext | None = None
        self._pending: WorkspaceActionPlan | None = None
        self._pending_guard: tuple[str, str] | None = None  # (relative path, sha256) a write was planned on
        self._context = ResultContext(context_turns)

    @classmethod
    def for_session(cls, session: Any) -> WorkspaceController:
        """Build the controller of a session: its workspace root, model client, language and settings."""
        controller = cls(lang=session.lang, client=session.client, settings=session.settings,
                         cancel_event=getattr(session, "cancel_event", None))
        controller.open_workspace(session.layout.root)
        return controller

    # --- workspace -------------------------------------------------------------------------------

    def has_workspace(self) -> bool:
        """Return whether a workspace is open."""
        return self._ctx is not None

    def workspace_root(self) -> str:
        """Return the open workspace's absolute root, or ``""``."""
        return str(self._ctx.policy.root) if self._ctx is not None else ""

    def open_workspace(self, root: Any) -> WorkspaceToolResult:
        """Use ``root`` as the workspace (seed 001 §15 工作区选择).

        Returns:
            Success, or a failed result for a missing folder, a file, a system
            directory (``/etc``, ``C:/Windows``, Program Files, the home folder…).
            The previous workspace stays open on failure.
        """
        from localagent.workspace.policy import AccessPolicy

        try:
            policy = AccessPolicy(root)
        except WorkspaceError as error:
            return failure(error.message(self.lang))
        extra = {"launcher": self._launcher} if self._launcher is not None else {}
        self._ctx = ToolContext(policy=policy, lang=self.lang, extra=extra)
        self._reset()
        log.info("workspace opened root=%s", policy.root)  # seed 001 §14: the path, never contents
        return WorkspaceToolResult(success=True, target_path=".", message=tr(
            self.lang, f"已打开工作区：{policy.root}", f"Workspace opened: {policy.root}"))

    def close_workspace(self) -> None:
        """Close the workspace: forget the index, the pending plan and the result list."""
        self._ctx = None
        self._reset()

    def _reset(self) -> None:
        self._pending = None
        self._pending_guard = None
        self._context.clear()

    def scan_workspace(self) -> WorkspaceToolResult:
        """Scan the workspace into the index with the configured limits (seed 001 §7).

        Returns:
            Success with the file count (and notes when cut or cancelled), the first
            :data:`MAX_SCAN_LISTED` files in ``files`` (shallowest first: what "打开第一个"
            refers to after a scan) and the tree summary in ``output_text``; a failed
            result without a workspace.
        """
        if self._ctx is None:
            return failure(self._no_workspace_text())
        from localagent.workspace.index import WorkspaceIndex
        from localagent.workspace.scanner import scan_workspace

        settings = self._settings
        scan = scan_workspace(self._ctx.policy, max_depth=settings.scan_max_depth if settings else 8,
                              max_files=settings.scan_max_files if settings else 5000, cancel_event=self._cancel)
        self._ctx.index = WorkspaceIndex(scan.files)
        log.info("scan files=%d truncated=%s cancelled=%s", len(scan.files), scan.truncated, scan.cancelled)
        listed = tuple(scan.files[:MAX_SCAN_LISTED])
        message = tr(self.lang, f"扫描完成：{len(scan.files)} 个文件", f"Scan done: {counted(len(scan.files), 'file')}")
        if len(scan.files) > len(listed):
            message += tr(self.lang, f"（下面列出前 {len(listed)} 个）", f" (the first {len(listed)} are listed)")
        if scan.truncated:
            message += tr(self.lang, "（已达到文件数上限，只索引了前面的文件）", " (file limit reached; the rest is not indexed)")
        if scan.cancelled:
            message += tr(self.lang, "（扫描被取消）", " (the scan was cancelled)")
        return WorkspaceToolResult(success=True, message=message, output_text=analysis.tree_summary(scan.files),
                                   files=listed, truncated=scan.truncated)

    def _index(self) -> Any:
        if self._ctx is not None and self._ctx.index is None:
            self.scan_workspace()
        return self._ctx.index if self._ctx is not None else None

    # --- messages --------------------------------------------------------------------------------

    def handle_message(self, text: str) -> ActionOutcome | None:
        """Turn one direct workspace sentence into an outcome (seed 001 §10 handleMessage).

        Args:
            text: the user's sentence.

        Returns:
            ``None`` when it is not a direct workspace request (the caller goes on to the
            code-task pipeline); otherwise an :class:`ActionOutcome` — done (read-only and
            Low actions run at once), pending (a write or opening a file awaits
            :meth:`confirm_pending_plan`), failed or refused. Never raises for a bad path.

        Raises:
            ModelAPIError: an analysis's model call failed after the client's retries (fatal).
            Aborted: cancelled while waiting for the model.
        """
        request = parse_request(text)
        if request is None:
            return None
        self._context.tick()
        if request.kind == "open_workspace":
            return self._switch_workspace(request)
        if self._ctx is None:
            return outcome(make_plan(request.kind), "failed", None, self._no_workspace_text())
        if request.bare and self._existing(request) is None:
            return None
        self._pending = None
        self._pending_guard = None
        planner = PLANNERS.get(request.kind)
        if planner is not None:
            return self._plan_write(planner, request)
        return getattr(self, f"_do_{request.kind}")(request)

    def _plan_write(self, planner: Callable[[Planning, WorkspaceRequest], Any],
                    request: WorkspaceRequest) -> ActionOutcome:
        """A write becomes the pending plan, or a refusal (seed 001 §8.3; :mod:`workspace_actions`)."""
        planned = planner(Planning(self._ctx, self.lang, self._locate), request)
        return self._set_pending(planned.plan, planned.guard) if isinstance(planned, Pending) else planned

    def _switch_workspace(self, request: WorkspaceRequest) -> ActionOutcome:
        result = self.open_workspace(request.path)
        status = "done" if result.success else "refused"
        plan = make_plan("open_workspace", relative_target_path=request.path)
        return outcome(plan, status, result, result.message)

    def _no_workspace_text(self) -> str:
        return tr(self.lang, "还没有选择工作区，请先选择一个目录（--workspace 目录）。",
                  "No workspace is selected; choose a folder first (--workspace DIR).")

    # --- pending plan ----------------------------------------------------------------------------

    def has_pending_plan(self) -> bool:
        """Return whether a plan awaits confirmation."""
        return self._pending is not None

    def pending_plan(self) -> WorkspaceActionPlan | None:
        """Return the plan awaiting confirmation, or None."""
        return self._pending

    def confirm_pending_plan(self) -> ActionOutcome:
        """Run the pending plan after the user's yes (seed 001 §10 confirmPendingPlan).

        Returns:
            done or failed with the tool's result; failed when nothing is pending or the
            file changed since the plan was made (a write never clobbers newer content).
        """
        plan, guard = self._pending, self._pending_guard
        self._pending = None
        self._pending_guard = None
        if plan is None or self._ctx is None:
            return outcome(make_plan("show_workspace"), "failed", None,
                                 tr(self.lang, "没有待确认的操作。", "Nothing is awaiting confirmation."))
        ran = run_confirmed(self._ctx, plan, guard, self.lang)
        if ran.status == "done" and plan.type in WRITE_TYPES:
            self._after_write()
        return ran

    def cancel_pending_plan(self) -> ActionOutcome | None:
        """Drop the pending plan; nothing is changed. Returns the cancelled outcome, or None."""
        plan = self._pending
        self._pending = None
        self._pending_guard = None
        if plan is None:
            return None
        return outcome(plan, "cancelled", None, tr(self.lang, "已取消，未做任何修改。", "Cancelled; nothing was changed."))

    def undo(self) -> ActionOutcome:
        """Undo the last completed write now (restore backup, move back, …; seed issue 3 §3)."""
        plan = make_plan("undo")
        if self._ctx is None:
            return outcome(plan, "failed", None, self._no_workspace_text())
        from localagent.tools.undo_tools import undo_last

        self._pending = None
        result = undo_last(self._ctx)
        if result.success:
            self._after_write()
        return outcome(plan, "done" if result.success else "failed", result, result.message)

    def _after_write(self) -> None:
        """The tree changed: the index is rebuilt on next use and the result list expires."""
        if self._ctx is not None:
            self._ctx.index = None
        self._context.clear()

    # --- read-only and Low actions: run at once (seed 001 §10) --------------------------------------

    def _do_show_workspace(self, request: WorkspaceRequest) -> ActionOutcome:
        message = tr(self.lang, f"当前工作区：{self.workspace_root()}", f"Current workspace: {self.workspace_root()}")
        return self._finish(make_plan("show_workspace"), WorkspaceToolResult(success=True, message=message))

    def _do_scan(self, request: WorkspaceRequest) -> ActionOutcome:
        return self._finish(make_plan("scan"), self.scan_workspace(), remember=True)

    def _do_list(self, request: WorkspaceRequest) -> ActionOutcome:
        from localagent.tools.read_tools import list_files

        where = self._locate(request, "list")
        if isinstance(where, ActionOutcome):
            return where
        rel, _ = where
        return self._finish(make_plan("list", relative_target_path=rel), list_files(self._ctx, rel), remember=True)

    def _list_folder(self, rel: str) -> ActionOutcome:
        """"读取第3个" named a folder: list it; its entries become what "第几个" refers to (seed 001 §15).

        An empty folder leaves the previous result list in place, and the message says which
        list "第几个" now refers to.
        """
        from localagent.tools.read_tools import list_files

        plan = make_plan("list", relative_target_path=rel)
        result = list_files(self._ctx, rel)
        if not result.success:
            return self._finish(plan, result)
        shown = f"{rel}/" if rel not in ("", ".") else "."
        if result.files:
            self._context.remember(result.files)
            note = tr(self.lang, f"{shown} 是文件夹，下面是其中的内容；现在“第几个”指这个列表。",
                      f"{shown} is a folder; its entries are listed below, and \"the first one\"… now refers to them.")
        elif self._context.peek():
            note = tr(self.lang, f"{shown} 是空文件夹；“第几个”仍指之前的结果列表。",
                      f"{shown} is an empty folder; \"the first one\"… still refers to the previous results.")
        else:
            note = tr(self.lang, f"{shown} 是空文件夹。", f"{shown} is an empty folder.")
        return outcome(plan, "done", result, f"{note}\n{result.message}" if result.message else note)

    def _do_search_files(self, request: WorkspaceRequest) -> ActionOutcome:
        from localagent.tools.read_tools import search_files

        self._index()
        result = search_files(self._ctx, request.keyword)
        return self._finish(make_plan("search_files", search_keyword=request.keyword), result, remember=True)

    def _do_search_text(self, request: WorkspaceRequest) -> ActionOutcome:
        from localagent.tools.read_tools import search_text

        result = search_text(self._ctx, request.keyword)
        return self._finish(make_plan("search_text", search_keyword=request.keyword), result, remember=True)

    def _do_read(self, request: WorkspaceRequest) -> ActionOutcome:
        from localagent.tools.read_tools import read_file

        where = self._locate(request, "read")
        if isinstance(where, ActionOutcome):
            return where
        rel, is_dir = where
        if is_dir:
            return self._list_folder(rel)
        refused = refuse_unless(self.lang, self._ctx.policy.can_read_file(rel), make_plan("read", relative_target_path=rel))
        return refused or self._finish(make_plan("read", relative_target_path=rel), read_file(self._ctx, rel))

    def _do_open(self, request: WorkspaceRequest) -> ActionOutcome:
        from localagent.tools.open_tools import open_directory

        where = self._locate(request, "open")
        if isinstance(where, ActionOutcome):
            return where
        rel, is_dir = where
        if is_dir:
            plan = make_plan("open", type=A.OPEN_DIRECTORY, risk=R.LOW, relative_target_path=rel)
            return self._finish(plan, open_directory(self._ctx, rel))
        plan = confirm_plan(self.lang, "open", rel)
        policy = self._ctx.policy
        if policy.is_dangerous_suffix(rel) or policy.is_sensitive_file(rel):
            message = tr(self.lang, f"危险或敏感文件，拒绝打开：{rel}", f"Dangerous or sensitive file, not opened: {rel}")
            return outcome(plan, "refused", failure(message), message)
        return self._set_pending(plan)

    def _do_reveal(self, request: WorkspaceRequest) -> ActionOutcome:
        from localagent.tools.open_tools import reveal_in_explorer

        where = self._locate(request, "reveal")
        if isinstance(where, ActionOutcome):
            return where
        return self._finish(make_plan("reveal", relative_target_path=where[0]), reveal_in_explorer(self._ctx, where[0]))

    def _do_analyze(self, request: WorkspaceRequest) -> ActionOutcome:
        index = self._index()
        files = index.all_files() if index is not None else ()
        if request.scope == "project":
            paths = analysis.pick_project_files(self._ctx, files)
        elif request.scope == "results":
            listed = self._context.files()
            if not listed:
                return outcome(make_plan("analyze"), "failed", None, self._context.resolve(1).message(self.lang))
            paths = [f.relative_path for f in listed if not f.is_directory][:analysis.MAX_ANALYSIS_FILES]
        else:
            where = self._locate(request, "analyze")
            if isinstance(where, ActionOutcome):
                return where
            paths = [where[0]]
        model = self._settings.generation_model_name if self._settings else _default_model()
        result = analysis.analyze(self._ctx, self._client, model=model, question=request.question,
                                  tree=analysis.tree_summary(files), paths=paths,
                                  infos=(*files, *self._context.peek()))
        return self._finish(make_plan("analyze"), result)

    def _do_refuse(self, request: WorkspaceRequest) -> ActionOutcome:
        zh, en = request.refusal or ("这个请求被拒绝。", "This request is refused.")
        message = tr(self.lang, zh, en)
        plan = make_plan("refuse", type=A(request.refused_type), risk=R.DANGEROUS if request.dangerous else R.HIGH,
                     title=message)
        return outcome(plan, "refused", failure(message), message)

    # --- helpers ----------------------------------------------------------------------------------

    def _finish(self, plan: WorkspaceActionPlan, result: WorkspaceToolResult, *, remember: bool = False) -> ActionOutcome:
        if remember and result.success:
            self._context.remember(result.files)
        return outcome(plan, "done" if result.success else "failed", result, result.message)

    def _set_pending(self, plan: WorkspaceActionPlan, guard: tuple[str, str] | None = None) -> ActionOutcome:
        self._pending = plan
        self._pending_guard = guard
        return outcome(plan, "pending", None, plan.description.splitlines()[0] if plan.description else plan.title)

    def _lookup(self) -> SubjectLookup:
        return SubjectLookup(self._ctx, self._context, self.lang, self._index)

    def _locate(self, request: WorkspaceRequest, kind: str) -> tuple[str, bool] | ActionOutcome:
        """Find the subject: an ordinal of the last list, a path, or a unique file name (:mod:`subject_lookup`)."""
        return self._lookup().locate(request, kind)

    def _existing(self, request: WorkspaceRequest) -> str | None:
        """The first reading of the path phrase that exists in the workspace, longest first (else None)."""
        return self._lookup().existing(request)


def _default_model() -> str:
    from localagent.config import DEFAULT_GENERATION_MODEL

    return DEFAULT_GENERATION_MODEL
