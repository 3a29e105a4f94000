"""Backups taken before any change to an existing file (seed 001 §8.3 WriteFileTool, issue 3 §3).

Backups live in ``<workspace>/.localagent/backups/`` and are named after the seed:
``relative_path.replace("/", "__") + "." + yyyyMMdd-HHmmss + ".bak"``; a second
backup of the same file within one second gets ``-1``, ``-2``… before ``.bak``.
A backup is never overwritten (each is published with no-replace semantics).
When that name would pass the file systems' 255-byte limit (a deeply nested file),
the middle of the flattened path is cut and ``~`` plus 12 hex digits of the SHA-256
of the full relative path take its place, so names stay unique and short; the
journal stores the name actually used, so undo finds it either way.
Only this module and the journal write under ``.localagent/``; the access policy
refuses that folder to every tool.
"""

from __future__ import annotations

import hashlib
import os
import stat
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from localagent.errors import ToolFailed
from localagent.workspace.atomic import copy_no_replace

if TYPE_CHECKING:
    from localagent.workspace.policy import AccessPolicy

PRODUCT_DIR = ".localagent"
BACKUP_DIR = "backups"
_MAX_COLLISIONS = 1000
MAX_BACKUP_NAME_BYTES = 255
_HASH_DIGITS = 12
_REPARSE_POINT = 0x400  # Windows FILE_ATTRIBUTE_REPARSE_POINT: symlinks and junctions


def product_dir(root: Path | str, *parts: str) -> Path:
    """Return ``<root>/.localagent/<parts…>``, creating the folders if needed.

    Each folder on the way must be a real folder, not a symbolic link (a
    downloaded project could ship ``.localagent`` as a link pointing elsewhere).

    Args:
        root: the workspace root (absolute).
        *parts: sub-folder names below ``.localagent`` (e.g. ``"backups"``).

    Returns:
        The absolute folder path.

    Raises:
        ToolFailed: a folder on the way is a link or not a folder, or cannot be made.
    """
    current = Path(root)
    for name in (PRODUCT_DIR, *parts):
        current = current / name
        try:
            os.mkdir(current)
        except FileExistsError:
            pass
        except OSError as exc:
            raise ToolFailed(f"无法创建 {PRODUCT_DIR} 目录：{exc.strerror}",
                             f"Cannot create the {PRODUCT_DIR} folder: {exc.strerror}") from exc
        st = os.lstat(current)
        if not stat.S_ISDIR(st.st_mode) or getattr(st, "st_file_attributes", 0) & _REPARSE_POINT:
            raise ToolFailed(f"{current.name} 不是普通文件夹（可能是链接），拒绝写入",
                             f"{current.name} is not a plain folder (maybe a link); refusing to write there")
    return current


def backup_name(relative_path: str, when: datetime, collision: int = 0) -> str:
    """Return the seed's backup file name, shortened only when it would pass 255 bytes.

    Args:
        relative_path: workspace-relative path (``/`` or ``\\`` separated).
        when: the backup time (local time, second precision).
        collision: 0 for the first backup in that second, then 1, 2… (below 1000).

    Returns:
        e.g. ``"src__main.cpp.20240102-030405.bak"`` or ``"…030405-1.bak"``; for a path too
        long for one name, its start and end around ``~`` and 12 hex digits of the path's
        SHA-256 (``"a__b…~0123456789ab~…__x.txt.20240102-030405.bak"``). Never over
        :data:`MAX_BACKUP_NAME_BYTES` bytes of UTF-8; never a separator.
    """
    clean = relative_path.replace("\\", "/").strip("/")
    flat = clean.replace("/", "__")
    stamp = when.strftime("%Y%m%d-%H%M%S")
    tail = f".{stamp}-{collision}.bak" if collision else f".{stamp}.bak"
    if _utf8_len(flat) + _utf8_len(tail) <= MAX_BACKUP_NAME_BYTES:
        return flat + tail
    digest = hashlib.sha256(clean.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_DIGITS]
    marker = f"~{digest}~"
    room = MAX_BACKUP_NAME_BYTES - _utf8_len(tail) - len(marker)
    head = _cut_utf8(flat, room // 2)
    end = _cut_utf8(flat[::-1], room - _utf8_len(head))[::-1]
    return head + marker + end + tail


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _cut_utf8(text: str, limit: int) -> str:
    """The longest prefix of ``text`` (whole characters) that fits in ``limit`` bytes of UTF-8."""
    used = 0
    for index, ch in enumerate(text):
        used += _utf8_len(ch)
        if used > limit:
            return text[:index]
    return text


def backup_file(policy: AccessPolicy, path: Path | str, *, now: datetime | None = None) -> Path:
    """Copy an existing workspace file into the backup folder; never overwrite a backup.

    Args:
        policy: the workspace's access policy (gives the root and relative path).
        path: the absolute path of the file to back up (already resolved by the policy).
        now: backup time; defaults to the current local time.

    Returns:
        The absolute path of the new backup file (same bytes, mode and times as the original).

    Raises:
        ToolFailed: the backup could not be written or its size differs from the original.
    """
    source = Path(path)
    relative = policy.to_relative_path(source)
    folder = product_dir(policy.root, BACKUP_DIR)
    when = now or datetime.now()
    try:
        expected = os.stat(source).st_size
        for collision in range(_MAX_COLLISIONS):
            target = folder / backup_name(relative, when, collision)
            try:
                copy_no_replace(source, target, verify=True)
            except FileExistsError:
                continue
            if os.stat(target).st_size != expected:
                raise ToolFailed("备份文件大小与原文件不一致", "The backup's size differs from the original")
            return target
    except OSError as exc:
        raise ToolFailed(f"备份失败：{exc.strerror or exc}", f"Backup failed: {exc.strerror or exc}") from exc
    raise ToolFailed("备份文件名冲突过多", "Too many backups with the same name")


def backup_path(root: Path | str, name: str) -> Path:
    """Return the absolute path of the backup called ``name`` (a bare file name).

    Raises:
        ToolFailed: ``name`` is empty or contains a separator or ``..``.
    """
    if not name or "/" in name or "\\" in name or name in (".", "..") or ":" in name:
        raise ToolFailed("备份记录无效", "Invalid backup record")
    return Path(root) / PRODUCT_DIR / BACKUP_DIR / name
