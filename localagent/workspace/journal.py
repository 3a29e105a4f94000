"""The operation journal behind ``undo`` (issue 3 §3: every completed write is recorded).

``<workspace>/.localagent/journal.jsonl`` holds one JSON object per line, appended and
``fsync``-ed, never rewritten: ``{"kind": "op", …}`` for a completed write and
``{"kind": "undo", "id": …}`` when it was undone (``"dismissed": true`` when it was only
marked handled because it can never be undone). An entry stores workspace-relative
paths, the backup's file name and the size/mtime/SHA-256 of the result so that undo
can refuse when the file was changed since ("文件在操作后又被修改过，无法安全撤销").
The journal never stores file contents (seed 001 §14). A torn last line (crash while
appending) is skipped when reading.

The undo logic itself lives in :mod:`localagent.tools.undo_tools` (it returns tool
results and uses the recycle bin); this module only stores and answers.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import uuid
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from pathlib import Path

from localagent.errors import ToolFailed
from localagent.workspace.atomic import sha256_of
from localagent.workspace.backups import PRODUCT_DIR, product_dir

JOURNAL_FILE = "journal.jsonl"
ENTRY_TYPES = ("create_file", "create_directory", "write_file", "copy_file", "move_file",
               "rename_file", "delete_to_trash")

_log = logging.getLogger("localagent.workspace")


@dataclass(frozen=True, kw_only=True)
class JournalEntry:
    """One completed write.

    Attributes:
        id: unique id (hex).
        time: ISO-8601 local time of the operation.
        type: one of :data:`ENTRY_TYPES`.
        source: workspace-relative path before the operation (move, rename, copy,
            delete), ``""`` otherwise.
        target: workspace-relative path of the result (``""`` for delete).
        backup: file name of the backup in ``.localagent/backups`` (write_file), or ``""``.
        size: size in bytes of the result file, ``None`` for folders and deletions.
        mtime_ns: modification time of the result in nanoseconds, ``None`` likewise.
        sha256: hex SHA-256 of the result file, ``""`` for folders and deletions.
        is_directory: the result (or the deleted item) is a folder.
    """

    id: str
    time: str
    type: str
    source: str = ""
    target: str = ""
    backup: str = ""
    size: int | None = None
    mtime_ns: int | None = None
    sha256: str = ""
    is_directory: bool = False

    def to_json(self) -> dict:
        """Return the JSON object stored in the journal (``kind`` = ``"op"``)."""
        return {"kind": "op", **asdict(self)}

    @classmethod
    def from_json(cls, data: dict) -> JournalEntry:
        """Build an entry from a stored object; unknown keys are ignored.

        Raises:
            ValueError: a required key is missing or the type is unknown.
        """
        known = {f.name for f in fields(cls)}
        entry = cls(**{k: v for k, v in data.items() if k in known})
        if entry.type not in ENTRY_TYPES or not entry.id:
            raise ValueError(f"bad journal entry type {entry.type!r}")
        return entry

    def result_unchanged(self, path: Path) -> bool:
        """Return whether ``path`` still is exactly what the operation left there.

        Files compare by size and SHA-256 (a copy back of identical bytes counts as
        unchanged); folders only need to still be folders. A link is never "unchanged".
        """
        try:
            st = os.lstat(path)
        except OSError:
            return False
        if self.is_directory:
            return stat.S_ISDIR(st.st_mode)
        if not stat.S_ISREG(st.st_mode) or st.st_size != self.size:
            return False
        try:
            return sha256_of(path) == self.sha256
        except OSError:
            return False


def new_entry(op_type: str, *, source: str = "", target: str = "", backup: str = "",
              result: Path | None = None, is_directory: bool = False) -> JournalEntry:
    """Make a journal entry with a fresh id and the result's fingerprint.

    Args:
        op_type: one of :data:`ENTRY_TYPES`.
        source: workspace-relative source path (``/``-separated) or ``""``.
        target: workspace-relative result path or ``""``.
        backup: backup file name or ``""``.
        result: absolute path of the result to fingerprint (size, mtime, SHA-256),
            or ``None`` (deletions).
        is_directory: for deletions (no result), whether a folder was deleted.

    Returns:
        The entry, not yet recorded.

    Raises:
        ValueError: ``op_type`` is unknown.
        OSError: the result cannot be read.
    """
    if op_type not in ENTRY_TYPES:
        raise ValueError(f"unknown journal entry type {op_type!r}")
    size = mtime_ns = None
    digest = ""
    is_dir = is_directory
    if result is not None:
        st = os.lstat(result)
        is_dir = stat.S_ISDIR(st.st_mode)
        if not is_dir:
            size, mtime_ns, digest = st.st_size, st.st_mtime_ns, sha256_of(result)
    return JournalEntry(id=uuid.uuid4().hex, time=datetime.now().isoformat(timespec="seconds"),
                        type=op_type, source=source, target=target, backup=backup, size=size,
                        mtime_ns=mtime_ns, sha256=digest, is_directory=is_dir)


class OperationJournal:
    """Append-only journal of completed writes in ``<root>/.localagent/journal.jsonl``.

    Args:
        root: the workspace root (absolute path).
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    @property
    def path(self) -> Path:
        """The journal file's absolute path (it may not exist yet)."""
        return self.root / PRODUCT_DIR / JOURNAL_FILE

    def record(self, entry: JournalEntry) -> None:
        """Append ``entry`` and ``fsync`` it.

        Raises:
            ToolFailed: the journal cannot be written (e.g. ``.localagent`` is a link).
        """
        self._append(entry.to_json())

    def mark_undone(self, entry_id: str, *, dismissed: bool = False) -> None:
        """Record that the entry ``entry_id`` was undone (so :meth:`last` skips it).

        Args:
            entry_id: the entry's id.
            dismissed: the entry was not reversed but handled because it never can be (a
                deletion to the recycle bin, a result that no longer exists); stored as
                ``"dismissed": true`` so the journal says what happened.

        Raises:
            ToolFailed: the journal cannot be written.
        """
        data = {"kind": "undo", "id": entry_id, "time": datetime.now().isoformat(timespec="seconds")}
        if dismissed:
            data["dismissed"] = True
        self._append(data)

    def entries(self) -> list[JournalEntry]:
        """Return every recorded operation, oldest first, including undone ones."""
        return [entry for entry, _ in self._read()]

    def last(self) -> JournalEntry | None:
        """Return the most recent operation not yet undone, or ``None``."""
        pending = [entry for entry, undone in self._read() if not undone]
        return pending[-1] if pending else None

    def _read(self) -> list[tuple[JournalEntry, bool]]:
        try:
            if not stat.S_ISREG(os.lstat(self.path).st_mode):
                return []
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            return []
        ops: list[JournalEntry] = []
        undone: set[str] = set()
        for number, line in enumerate(lines, 1):
            try:
                data = json.loads(line)
                if data.get("kind") == "undo":
                    undone.add(str(data["id"]))
                else:
                    ops.append(JournalEntry.from_json(data))
            except (ValueError, TypeError, KeyError, AttributeError):
                _log.warning("journal line %d skipped (unreadable)", number)
        return [(entry, entry.id in undone) for entry in ops]

    def _append(self, data: dict) -> None:
        product_dir(self.root)
        line = (json.dumps(data, ensure_ascii=False) + "\n").encode("utf-8")
        flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        try:
            fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            raise ToolFailed(f"无法写入操作记录：{exc.strerror}",
                             f"Cannot write the operation journal: {exc.strerror}") from exc
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ToolFailed("操作记录不是普通文件", "The operation journal is not a regular file")
            if os.fstat(fd).st_size > 0:
                os.lseek(fd, -1, os.SEEK_END)
                if os.read(fd, 1) != b"\n":  # a torn last line: start ours on a fresh line
                    line = b"\n" + line
            os.write(fd, line)
            os.fsync(fd)
        except OSError as exc:
            raise ToolFailed(f"无法写入操作记录：{exc.strerror}",
                             f"Cannot write the operation journal: {exc.strerror}") from exc
        finally:
            os.close(fd)
