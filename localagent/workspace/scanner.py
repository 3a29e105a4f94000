"""Scan a workspace into a list of files (seed 001 §7, issue 3 §2).

Breadth-first with ``os.scandir`` and an explicit queue (no recursion), so the
shallow files are the ones kept when the file limit cuts the scan. Rules:

- depth limit 8 (``rg --max-depth`` semantics: a direct child of the root is at
  depth 1; nothing deeper than ``max_depth`` is listed), 5,000 files by default;
- hidden directories and the seed's skip list (``.git .vs .idea build
  cmake-build-debug cmake-build-release node_modules dist release
  release_packages logs``, compared case-folded) are never entered;
- ``.gitignore`` files, at the root and nested, are honoured (``pathspec``'s
  git semantics; a deeper file overrides a shallower one);
- symlinked directories are never followed; a symlinked file is listed only if
  the policy says its target is inside the workspace; system directories are
  never entered;
- progress is reported every ``progress_every`` files; a set ``cancel_event``
  stops the scan between entries.
"""

from __future__ import annotations

import gc
import os
import stat
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from localagent.tools.types import WorkspaceFileInfo
from localagent.workspace.policy import is_system_directory

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

    from localagent.workspace.policy import AccessPolicy

DEFAULT_MAX_DEPTH = 8
DEFAULT_MAX_FILES = 5000
DEFAULT_PROGRESS_EVERY = 500

SKIPPED_DIR_NAMES: frozenset[str] = frozenset(
    name.casefold()
    for name in (".git", ".vs", ".idea", "build", "cmake-build-debug", "cmake-build-release",
                 "node_modules", "dist", "release", "release_packages", "logs")
)

_HIDDEN_ATTRIBUTE = getattr(stat, "FILE_ATTRIBUTE_HIDDEN", 0x2)


@dataclass(frozen=True, kw_only=True)
class ScanResult:
    """What a scan found.

    Attributes:
        files: the files found (no folders), breadth-first, names sorted within a folder.
        truncated: the file limit stopped the scan before every file was seen.
        cancelled: ``cancel_event`` stopped the scan.
        skipped_dirs: folders not entered (skip list, hidden, ignored, symlinked,
            system, too deep, unreadable).
        elapsed_s: wall time of the scan in seconds.
    """

    files: tuple[WorkspaceFileInfo, ...]
    truncated: bool = False
    cancelled: bool = False
    skipped_dirs: int = 0
    elapsed_s: float = 0.0


@dataclass(frozen=True)
class _IgnoreRules:
    """The ``.gitignore`` specs in force for one folder, deepest last: ``(base_rel, spec)``."""

    chain: tuple[tuple[str, GitIgnoreSpec], ...] = ()

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        """Return whether git would ignore ``rel_path`` (workspace-relative, ``/``-separated)."""
        for base, spec in reversed(self.chain):
            sub = rel_path[len(base) + 1:] if base else rel_path
            result = spec.check_file(sub + "/" if is_dir else sub)
            if result.include is not None:
                return bool(result.include)
        return False


@dataclass
class _ScanState:
    policy: AccessPolicy
    max_depth: int
    max_files: int
    progress: Callable[[int], None] | None
    progress_every: int
    cancel_event: threading.Event | None
    files: list[WorkspaceFileInfo] = field(default_factory=list)
    queue: deque = field(default_factory=deque)
    skipped_dirs: int = 0
    truncated: bool = False
    cancelled: bool = False


def is_skipped_dir_name(name: str) -> bool:
    """Return whether a folder name is hidden or on the seed's skip list (seed 001 §7), case-insensitively."""
    return name.startswith(".") or name.casefold() in SKIPPED_DIR_NAMES


def scan_workspace(
    policy: AccessPolicy,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    max_files: int = DEFAULT_MAX_FILES,
    progress: Callable[[int], None] | None = None,
    cancel_event: threading.Event | None = None,
    progress_every: int = DEFAULT_PROGRESS_EVERY,
) -> ScanResult:
    """Scan the workspace of ``policy`` and return its files (seed 001 §7).

    Args:
        policy: the workspace :class:`AccessPolicy` (its ``root`` is scanned; it
            decides symlink targets and system folders).
        max_depth: deepest level listed; a direct child of the root is level 1 (default 8).
        max_files: stop after this many files and mark the result truncated (default 5,000).
        progress: called with the number of files found so far, every
            ``progress_every`` files and once at the end.
        cancel_event: when set, the scan stops early and the result is marked cancelled.
        progress_every: files between two progress calls.

    Returns:
        :class:`ScanResult`; unreadable folders are skipped and counted, never raised.
    """
    start = time.perf_counter()
    state = _ScanState(policy=policy, max_depth=max_depth, max_files=max_files, progress=progress,
                       progress_every=max(1, progress_every), cancel_event=cancel_event)
    state.queue.append((str(policy.root), "", 1, _IgnoreRules()))
    gc_was_enabled = gc.isenabled()
    gc.disable()  # 100,000 new objects would trigger needless cycle collections (~15% of the scan)
    try:
        while state.queue and not (state.truncated or state.cancelled):
            if cancel_event is not None and cancel_event.is_set():
                state.cancelled = True
                break
            _scan_directory(state, *state.queue.popleft())
    finally:
        if gc_was_enabled:
            gc.enable()
    if progress is not None:
        progress(len(state.files))
    return ScanResult(files=tuple(state.files), truncated=state.truncated, cancelled=state.cancelled,
                      skipped_dirs=state.skipped_dirs, elapsed_s=time.perf_counter() - start)


def _scan_directory(state: _ScanState, dir_abs: str, dir_rel: str, depth: int, rules: _IgnoreRules) -> None:
    """List one folder: queue its subfolders, record its files."""
    rules = _with_gitignore(dir_abs, dir_rel, rules)
    try:
        with os.scandir(dir_abs) as iterator:
            entries = sorted(iterator, key=lambda e: e.name)
    except OSError:
        state.skipped_dirs += 1
        return
    for entry in entries:
        rel = f"{dir_rel}/{entry.name}" if dir_rel else entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                _queue_directory(state, entry, rel, depth, rules)
            elif entry.is_symlink():
                _add_symlinked_file(state, entry, rel, rules)
            elif entry.is_file(follow_symlinks=False) and not (rules.chain and rules.ignored(rel, False)):
                _add_file(state, entry, rel, entry.stat(follow_symlinks=False))
        except OSError:
            continue
        if state.truncated or state.cancelled:
            return


def _queue_directory(state: _ScanState, entry: os.DirEntry, rel: str, depth: int, rules: _IgnoreRules) -> None:
    """Queue a subfolder unless it is skipped, ignored, too deep or a system folder."""
    if (depth >= state.max_depth or is_skipped_dir_name(entry.name) or _has_hidden_attribute(entry)
            or (rules.chain and rules.ignored(rel, True)) or is_system_directory(entry.path)):
        state.skipped_dirs += 1
        return
    state.queue.append((entry.path, rel, depth + 1, rules))


def _add_symlinked_file(state: _ScanState, entry: os.DirEntry, rel: str, rules: _IgnoreRules) -> None:
    """Record a symlink only when it points to a regular file inside the workspace."""
    if entry.is_dir():  # a symlinked folder is never followed
        state.skipped_dirs += 1
        return
    if not entry.is_file() or (rules.chain and rules.ignored(rel, False)):
        return
    if state.policy.is_inside_workspace(entry.path):
        _add_file(state, entry, rel, entry.stat())


def _add_file(state: _ScanState, entry: os.DirEntry, rel: str, st: os.stat_result) -> None:
    """Append one file, or mark the scan truncated when the limit is reached."""
    if len(state.files) >= state.max_files:
        state.truncated = True
        return
    name = entry.name
    dot = name.rfind(".")
    state.files.append(WorkspaceFileInfo(
        relative_path=rel,
        absolute_path=entry.path,
        file_name=name,
        suffix=name[dot:].lower() if dot > 0 else "",
        size_bytes=st.st_size,
        last_modified=datetime.fromtimestamp(st.st_mtime),
        is_text_file=bool(state.policy.is_supported_text_file(name)),
        is_hidden=name.startswith(".") or _has_hidden_attribute(entry),
    ))
    count = len(state.files)
    if count % state.progress_every == 0:
        if state.progress is not None:
            state.progress(count)
        if state.cancel_event is not None and state.cancel_event.is_set():
            state.cancelled = True


def _has_hidden_attribute(entry: os.DirEntry) -> bool:
    """Return whether Windows marks the entry hidden (always False elsewhere)."""
    if os.name != "nt":
        return False
    try:
        return bool(entry.stat(follow_symlinks=False).st_file_attributes & _HIDDEN_ATTRIBUTE)
    except (OSError, AttributeError):
        return False


def _with_gitignore(dir_abs: str, dir_rel: str, rules: _IgnoreRules) -> _IgnoreRules:
    """Return ``rules`` extended with the folder's own ``.gitignore``, if it has one."""
    path = os.path.join(dir_abs, ".gitignore")
    try:
        if not os.path.isfile(path) or os.path.islink(path):
            return rules
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return rules
    from pathspec import GitIgnoreSpec  # lazy: most folders have no .gitignore

    return _IgnoreRules(rules.chain + ((dir_rel, GitIgnoreSpec.from_lines(lines)),))
