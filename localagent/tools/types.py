"""Types shared by the workspace tools (seed 001 §5).

Plain frozen dataclasses: :class:`WorkspaceToolRisk`, :class:`WorkspaceActionType`,
:class:`WorkspaceFileInfo`, :class:`WorkspaceActionPlan`, :class:`WorkspaceToolResult`,
:class:`TextMatch` and the :class:`ToolContext` every tool receives. Errors are
results (``success=False``), never dialogs (seed 001 §10).
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
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


class WorkspaceFileInfo:
    """One file or folder of the workspace (seed 001 §5); read-only after creation.

    A plain class with ``__slots__`` rather than a dataclass so that a scan of
    100,000 files stays cheap (issue 3 benchmarks): :meth:`scanned` records only
    the names, and ``size_bytes``/``last_modified`` come from one ``lstat`` on
    first use (then cached); ``suffix``, ``is_text_file`` and ``is_hidden`` come
    from the name on first use. Values given to the constructor are kept as given.
    Two infos are equal when their paths, name and kind are equal.

    Attributes:
        relative_path: workspace-relative, ``/``-separated.
        absolute_path: absolute path as a string.
        file_name: last component; suffix: lower-case with the dot (``".md"``) or ``""``.
        size_bytes: size in bytes (0 for folders and for a file gone since the scan).
        last_modified: local time, or ``None`` when unknown (a file gone since the scan).
        modified_timestamp: ``last_modified`` as POSIX seconds (``None`` when unknown); cheap to sort by.
        is_directory, is_text_file (supported text type by name), is_hidden (dot name or Windows attribute).
    """

    __slots__ = ("_rel", "_abs", "_name", "_is_dir", "_suffix", "_size", "_mtime", "_time", "_text", "_hidden")

    def __init__(self, *, relative_path: str, absolute_path: str, file_name: str, suffix: str | None = None,
                 size_bytes: int = 0, last_modified: datetime | None = None, is_directory: bool = False,
                 is_text_file: bool | None = None, is_hidden: bool | None = None) -> None:
        self._rel, self._abs, self._name, self._is_dir = relative_path, absolute_path, file_name, is_directory
        self._size, self._time = size_bytes, last_modified
        self._mtime = None if last_modified is None else last_modified.timestamp()
        if suffix is not None:
            self._suffix = suffix
        if is_text_file is not None:
            self._text = is_text_file
        if is_hidden is not None:
            self._hidden = is_hidden

    @staticmethod
    def scanned(relative_path: str, absolute_path: str, file_name: str) -> WorkspaceFileInfo:
        """Return the info of a regular file just listed by a scan; its size and time are read on first use.

        Args:
            relative_path: workspace-relative, ``/``-separated. absolute_path: absolute path string.
            file_name: the last component.
        """
        info = _new_object(WorkspaceFileInfo)  # size and time slots stay empty until first use
        info._rel, info._abs, info._name, info._is_dir = relative_path, absolute_path, file_name, False
        return info

    relative_path = property(attrgetter("_rel"), doc="Workspace-relative, ``/``-separated path.")
    absolute_path = property(attrgetter("_abs"), doc="Absolute path string.")
    file_name = property(attrgetter("_name"), doc="Last component of the path.")
    is_directory = property(attrgetter("_is_dir"), doc="True for a folder.")

    @property
    def suffix(self) -> str:
        """Lower-case suffix with the dot (``".md"``), ``""`` for none and for folders."""
        try:
            return self._suffix
        except AttributeError:
            dot = self._name.rfind(".")
            self._suffix = self._name[dot:].lower() if dot > 0 and not self._is_dir else ""
            return self._suffix

    @property
    def is_text_file(self) -> bool:
        """Whether the name is a supported text type (the policy's name table, seed 001 §8.1)."""
        try:
            return self._text
        except AttributeError:
            from localagent.workspace.pathnames import is_text_name  # the table AccessPolicy uses

            self._text = not self._is_dir and is_text_name(self._name)
            return self._text

    @property
    def is_hidden(self) -> bool:
        """Whether the name starts with a dot (the scanner also passes the Windows hidden attribute)."""
        try:
            return self._hidden
        except AttributeError:
            self._hidden = self._name.startswith(".")
            return self._hidden

    @property
    def size_bytes(self) -> int:
        """Size in bytes; read with one ``lstat`` on first use for a scanned file."""
        try:
            return self._size
        except AttributeError:  # a scanned file, first use
            self._read_stat()
            return self._size

    @property
    def last_modified(self) -> datetime | None:
        """Local modification time; ``None`` when unknown."""
        try:
            return self._time
        except AttributeError:  # a scanned file, first use
            mtime = self.modified_timestamp
            self._time = None if mtime is None else datetime.fromtimestamp(mtime)
            return self._time

    @property
    def modified_timestamp(self) -> float | None:
        """Modification time in POSIX seconds, ``None`` when unknown (no ``datetime`` built)."""
        try:
            return self._mtime
        except AttributeError:  # a scanned file, first use
            self._read_stat()
            return self._mtime

    def _read_stat(self) -> None:
        try:
            st = os.lstat(self._abs)  # never follows a link swapped in since the scan
            self._size, self._mtime = st.st_size, st.st_mtime
        except (OSError, ValueError):
            self._size, self._mtime = 0, None

    def _key(self) -> tuple[str, str, str, bool]:
        return self._rel, self._abs, self._name, self._is_dir

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"WorkspaceFileInfo(relative_path={self._rel!r}, is_directory={self._is_dir!r})"


_new_object = object.__new__


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
