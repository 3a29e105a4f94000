"""In-memory index of a scanned workspace (seed 001 §7 WorkspaceIndex).

Answers name searches (relevance, then most recent; ≤ 30 by default), suffix
searches and the most recently changed files. Names are compared case-folded,
so Chinese, upper- and lower-case names all work.
"""

from __future__ import annotations

import fnmatch
import heapq
import re
import threading
from collections.abc import Iterable

from localagent.tools.types import WorkspaceFileInfo

DEFAULT_MAX_RESULTS = 30

# ".cpp" or "*.cpp" (one suffix, no other wildcard) asks for a suffix search.
_SUFFIX_KEYWORD = re.compile(r"^\*?(\.[^./\\*?\[\]\s]+)$")
_WILDCARDS = frozenset("*?[")

# Relevance tiers, best first.
_EXACT, _STEM, _PREFIX, _SUBSTRING, _PATH, _FUZZY = range(6)


def _mtime_key(info: WorkspaceFileInfo) -> float:
    """Return a sort key: newer files first (larger timestamp → smaller key), unknown times last.

    Reads ``modified_timestamp``: a scanned file's ``lstat`` happens here, on first
    use, so only the files being ranked pay for it (issue 3 benchmarks).
    """
    mtime = info.modified_timestamp
    return -mtime if mtime is not None else float("inf")


def _recency_key(info: WorkspaceFileInfo) -> tuple[float, str]:
    """Return the sort key "newest first, then by relative path"."""
    return _mtime_key(info), info.relative_path


def _stem(name: str) -> str:
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name


def _is_subsequence(needle: str, haystack: str) -> bool:
    it = iter(haystack)
    return all(ch in it for ch in needle)


def _tier(keyword: str, info: WorkspaceFileInfo) -> int | None:
    """Return how well ``keyword`` (case-folded) matches a file, or ``None`` for no match."""
    name = info.file_name.casefold()
    if name == keyword:
        return _EXACT
    if _stem(name) == keyword:
        return _STEM
    if name.startswith(keyword):
        return _PREFIX
    if keyword in name:
        return _SUBSTRING
    if keyword in info.relative_path.casefold():
        return _PATH
    if len(keyword) >= 3 and _is_subsequence(keyword, name):
        return _FUZZY
    return None


def normalize_suffixes(suffixes: Iterable[str]) -> frozenset[str]:
    """Return suffixes lower-cased with a leading dot: ``["CPP", "*.h"] → {".cpp", ".h"}``."""
    result = set()
    for raw in suffixes:
        text = raw.strip().lstrip("*").casefold()
        if text:
            result.add(text if text.startswith(".") else "." + text)
    return frozenset(result)


class WorkspaceIndex:
    """The files of the last scan, searchable by name, suffix and recency.

    Thread-safe: a scan running in a worker may call :meth:`set_files` while
    the UI searches.
    """

    def __init__(self, files: Iterable[WorkspaceFileInfo] = ()) -> None:
        self._lock = threading.Lock()
        self._files: tuple[WorkspaceFileInfo, ...] = ()
        self.set_files(files)

    def clear(self) -> None:
        """Forget every file (a workspace was closed or changed)."""
        with self._lock:
            self._files = ()

    def set_files(self, files: Iterable[WorkspaceFileInfo]) -> None:
        """Replace the indexed files (folders are ignored).

        Args:
            files: the files of a scan (``ScanResult.files``).
        """
        kept = tuple(f for f in files if not f.is_directory)
        with self._lock:
            self._files = kept

    def all_files(self) -> tuple[WorkspaceFileInfo, ...]:
        """Return every indexed file, in scan order."""
        return self._files

    def __len__(self) -> int:
        return len(self._files)

    def find_by_name(self, keyword: str, max_results: int = DEFAULT_MAX_RESULTS) -> list[WorkspaceFileInfo]:
        """Find files by name (seed 001 §8.1 SearchFilesTool: relevance, then most recent).

        Relevance, best first: exact name, exact name without suffix, name prefix,
        name substring, path substring (``src/main``), then letters in order
        (``mcpp`` → ``main.cpp``, keywords of 3+ characters). All case-folded.
        A keyword ``".cpp"`` or ``"*.cpp"`` searches by suffix (a file named
        exactly ``.cpp`` first); other wildcards (``test_*.py``) match names.

        Args:
            keyword: what the user typed; surrounding spaces are ignored.
            max_results: at most this many files (default 30).

        Returns:
            Matching files, best first; empty for an empty keyword.
        """
        key = keyword.strip().casefold()
        if not key or max_results <= 0:
            return []
        files = self._files
        suffix = _SUFFIX_KEYWORD.match(key)
        if suffix:
            return self._find_suffix_keyword(key, suffix.group(1), files, max_results)
        if _WILDCARDS & set(key):
            hits = [f for f in files if fnmatch.fnmatchcase(f.file_name.casefold(), key)]
            return heapq.nsmallest(max_results, hits, key=_recency_key)
        tiers: dict[int, list[WorkspaceFileInfo]] = {}
        for info in files:
            tier = _tier(key, info)
            if tier is not None:
                tiers.setdefault(tier, []).append(info)
        found: list[WorkspaceFileInfo] = []
        for tier in sorted(tiers):  # times are read only for the tiers that reach the cut
            found += heapq.nsmallest(max_results - len(found), tiers[tier], key=_recency_key)
            if len(found) >= max_results:
                break
        return found

    def _find_suffix_keyword(self, key: str, suffix: str, files: tuple[WorkspaceFileInfo, ...],
                             max_results: int) -> list[WorkspaceFileInfo]:
        exact = [] if key.startswith("*") else [f for f in files if f.file_name.casefold() == key]
        by_suffix = [f for f in self.find_by_suffix([suffix], len(files)) if f not in exact]
        exact.sort(key=_recency_key)
        return (exact + by_suffix)[:max_results]

    def find_by_suffix(self, suffixes: Iterable[str], max_results: int = DEFAULT_MAX_RESULTS) -> list[WorkspaceFileInfo]:
        """Find files whose suffix is one of ``suffixes``, most recent first.

        Args:
            suffixes: ``".cpp"``, ``"cpp"`` or ``"*.cpp"``; case does not matter.
            max_results: at most this many files (default 30).

        Returns:
            Matching files, newest first, ties by relative path.
        """
        wanted = normalize_suffixes(suffixes)
        hits = [f for f in self._files if f.suffix.casefold() in wanted]
        return heapq.nsmallest(max(0, max_results), hits, key=_recency_key)

    def recent_files(self, max_results: int = DEFAULT_MAX_RESULTS) -> list[WorkspaceFileInfo]:
        """Return the most recently modified files, newest first.

        Args:
            max_results: at most this many files (default 30).
        """
        return heapq.nsmallest(max(0, max_results), self._files, key=_recency_key)
