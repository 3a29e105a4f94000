"""Types shared by the workspace tools (seed 001 §5).

Plain frozen dataclasses: :class:`WorkspaceToolRisk`, :class:`WorkspaceActionType`,
:class:`WorkspaceFileInfo`, :class:`WorkspaceActionPlan`, :class:`WorkspaceToolResult`,
:class:`TextMatch` and the :class:`ToolContext` every tool receives. Errors are
results (``success=False``), never dialogs (seed 001 §10).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported for type hints only; keeps this module a leaf
    from localagent.workspace.index import WorkspaceIndex
    from localagent.workspace.journal import OperationJournal
    from localagent.workspace.policy import AccessPolicy


class WorkspaceToolRisk(enum.IntEnum):
    """Risk levels of seed 001 §5, ordered: ``ReadOnly < Low < Medium < High < Dangerous``.

    ReadOnly: list, search, read plain text. Low: open a folder, reveal a file.
    Medium: open a file, create a file or folder, copy a file. High: modify,
    move, rename, delete to the recycle bin. Dangerous: permanent delete, run a
    command or script, change a system folder — refused outright in this phase.
    """

    READ_ONLY = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    DANGEROUS = 4

    @property
    def label(self) -> str:
        """The seed's name: ``ReadOnly``, ``Low``, ``Medium``, ``High``, ``Dangerous``."""
        return {0: "ReadOnly", 1: "Low", 2: "Medium", 3: "High", 4: "Dangerous"}[int(self)]

    @property
    def label_zh(self) -> str:
        """Chinese name shown to the user."""
        return {0: "只读", 1: "低", 2: "中", 3: "高", 4: "危险"}[int(self)]


class WorkspaceActionType(str, enum.Enum):
    """Action types of seed 001 §5; the value is the JSON ``action.type``."""

    UNKNOWN = "unknown"
    LIST_FILES = "list_files"
    SEARCH_FILES = "search_files"
    SEARCH_TEXT = "search_text"
    READ_FILE = "read_file"
    OPEN_FILE = "open_file"
    OPEN_DIRECTORY = "open_directory"
    REVEAL_IN_EXPLORER = "reveal_in_explorer"
    CREATE_FILE = "create_file"
    CREATE_DIRECTORY = "create_directory"
    WRITE_FILE = "write_file"
    COPY_FILE = "copy_file"
    MOVE_FILE = "move_file"
    RENAME_FILE = "rename_file"
    DELETE_TO_TRASH = "delete_to_trash"
    SCAN = "scan"
    ANALYZE = "analyze"
    UNDO = "undo"


@dataclass(frozen=True, kw_only=True)
class WorkspaceFileInfo:
    """One file or folder of the workspace (seed 001 §5).

    Attributes:
        relative_path: workspace-relative, ``/``-separated.
        absolute_path: absolute path as a string.
        file_name: last component; suffix: lower-case with the dot (``".md"``) or ``""``.
        size_bytes: size in bytes (0 for folders); last_modified: local time.
    """

    relative_path: str
    absolute_path: str
    file_name: str
    suffix: str = ""
    size_bytes: int = 0
    last_modified: datetime | None = None
    is_directory: bool = False
    is_text_file: bool = False
    is_hidden: bool = False


@dataclass(frozen=True, kw_only=True)
class TextMatch:
    """One ``search_text`` hit: workspace-relative ``path``, 1-based ``line``, ``snippet``."""

    path: str
    line: int
    snippet: str

    def to_json(self) -> dict[str, Any]:
        """Return ``{"path", "line", "snippet"}`` (the JSON output shape of issue 3 §4)."""
        return {"path": self.path, "line": self.line, "snippet": self.snippet}


@dataclass(frozen=True, kw_only=True)
class WorkspaceActionPlan:
    """A planned action awaiting (or not needing) confirmation (seed 001 §5).

    Paths are workspace-relative. ``strong_confirmation`` marks move, folder
    delete and the like (seed 001 §8.3: 强确认).
    """

    id: str
    type: WorkspaceActionType = WorkspaceActionType.UNKNOWN
    risk: WorkspaceToolRisk = WorkspaceToolRisk.READ_ONLY
    title: str = ""
    description: str = ""
    relative_source_path: str = ""
    relative_target_path: str = ""
    content: str = ""
    search_keyword: str = ""
    warnings: tuple[str, ...] = ()
    requires_confirmation: bool = False
    strong_confirmation: bool = False
    allow_overwrite: bool = False  # always False in this phase: no tool overwrites


@dataclass(frozen=True, kw_only=True)
class WorkspaceToolResult:
    """What a tool returns (seed 001 §5). Failures are results with ``success=False``.

    Attributes:
        success: whether the action did what was asked.
        message: short user-facing status (Chinese or English).
        error_message: why it failed (user-facing), ``""`` on success.
        output_text: long text (file content, listings) for the result pane.
        target_path: workspace-relative path acted on, if any.
        files: listed or found files (the list "打开第一个" refers to).
        matches: ``search_text`` hits.
        truncated: output was cut at a limit (and ``message`` says so).
    """

    success: bool
    message: str = ""
    error_message: str = ""
    output_text: str = ""
    target_path: str = ""
    files: tuple[WorkspaceFileInfo, ...] = ()
    matches: tuple[TextMatch, ...] = ()
    truncated: bool = False


@dataclass(kw_only=True)
class ToolContext:
    """What every tool receives: the one path gate and shared state.

    Attributes:
        policy: the workspace's :class:`AccessPolicy` — every path goes through it.
        index: the scan index, or ``None`` before the first scan.
        journal: the operation journal used by writes and ``undo``.
        lang: ``"zh"`` or ``"en"`` for messages.
    """

    policy: "AccessPolicy"
    index: "WorkspaceIndex | None" = None
    journal: "OperationJournal | None" = None
    lang: str = "zh"
    extra: dict[str, Any] = field(default_factory=dict)
