"""Lexical path parsing for the access policy (seed 001 §6, issue 3 §1).

Holds what :class:`localagent.workspace.policy.AccessPolicy` does to a path *as text*, before
and beside asking the file system: the text check (:func:`check_text`), the split into an anchor
and names (:func:`is_absolute`, :func:`split_anchor`, :func:`last_name`), ``..`` applied lexically
(:func:`lex`), component-wise containment (:func:`is_within`), the records of one walk
(:class:`Prefix`, :class:`Walk`) and the refusal the gate raises (:func:`deny`). No decision is
made here; the policy is the one gate. Stdlib only: the sandboxed child imports it too.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePath, PureWindowsPath

from localagent.errors import PathDenied
from localagent.workspace import pathnames as names
from localagent.workspace.pathnames import show

__all__ = ["Prefix", "Walk", "check_text", "deny", "is_absolute", "is_within", "last_name", "lex",
           "split_anchor"]

_ON_WINDOWS = os.name == "nt"
_DRIVE_ROOT = re.compile(r"^[A-Za-z]:[\\/]")


@dataclass(frozen=True)
class Prefix:
    """One prefix of a path as walked: the anchor and the names up to one component."""

    anchor: str
    names: tuple[str, ...]

    def path(self) -> Path:
        """Return the prefix as a ``Path`` (lexical; nothing resolved)."""
        return Path(self.anchor, *self.names)


@dataclass(frozen=True)
class Walk:
    """What the gate learned about one path: lexical and resolved views (seed 001 §6)."""

    rel: tuple[str, ...] | None   # lexical names below the root as given; None if not lexically inside
    visited: tuple[Prefix, ...]   # every prefix walked through, '..' applied lexically
    real: Path                    # fully resolved
    real_rel: tuple[str, ...]     # resolved names below the root
    shown: str                    # the path for messages

    def views(self) -> tuple[tuple[str, ...], ...]:
        """Return the names below the root as given (``()`` if not lexically inside) and as resolved."""
        return (self.rel or (), self.real_rel)


def deny(zh: str, en: str, shown: str = "") -> PathDenied:
    """Build the gate's refusal, naming the path ``shown`` (already made printable) when given."""
    if shown:
        return PathDenied(f"{zh}：{shown}", f"{en}: {shown}")
    return PathDenied(zh, en)


def is_within(path: PurePath, root: PurePath) -> bool:
    """Return True if ``path`` is ``root`` or below it, comparing whole components.

    Never a string prefix test (``/ws`` does not contain ``/ws-evil``). Case-insensitive for
    Windows paths. Both should already be resolved and absolute; a relative one gives False.
    """
    if not (path.is_absolute() and root.is_absolute()):
        return False
    fold = _ON_WINDOWS or isinstance(path, PureWindowsPath) or isinstance(root, PureWindowsPath)
    outer, inner = root.parts, path.parts
    if len(inner) < len(outer):
        return False
    if fold:
        return all(a.casefold() == b.casefold() for a, b in zip(outer, inner[: len(outer)], strict=True))
    return inner[: len(outer)] == outer


def check_text(path: object) -> str:
    """Return ``path`` as text if its form is acceptable (issue 3 §1 refused forms).

    Raises:
        PathDenied: not text, or NUL/control characters, ``~``, UNC/device or drive-relative forms.
    """
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        raise deny("路径必须是文本", "the path must be text")
    problem = names.text_problem(path, on_windows=_ON_WINDOWS)
    if problem:
        raise deny(*problem, show(path))
    return path


def lex(text: str, root: Path) -> tuple[bool | None, str, str, list[str], list[Prefix]]:
    """Split ``text`` and apply ``..`` lexically; relative paths start at ``root``.

    Returns:
        ``(absolute, anchor, body, parts, visited)``: ``absolute`` is None when a relative path
        climbs above ``root`` at any point; ``parts`` are the names left; ``visited`` every prefix.
    """
    absolute = is_absolute(text)
    anchor, body = split_anchor(text) if absolute else (str(root), text)
    parts: list[str] = []
    visited: list[Prefix] = []
    for part in names.split_names(body):
        if part == ".":
            continue
        if part == "..":
            if not parts and not absolute:
                return None, anchor, body, parts, visited
            if parts:
                parts.pop()
            continue
        parts.append(part)
        visited.append(Prefix(anchor, tuple(parts)))
    return absolute, anchor, body, parts, visited


def is_absolute(text: str) -> bool:
    """Return True for ``/…`` or ``\\…`` (and ``C:\\…`` on Windows)."""
    return text.startswith(("/", "\\")) or (_ON_WINDOWS and bool(_DRIVE_ROOT.match(text)))


def split_anchor(text: str) -> tuple[str, str]:
    """Split an absolute ``text`` into its anchor (``os.sep`` or ``C:\\``) and the rest."""
    if _DRIVE_ROOT.match(text):
        return text[:2] + "\\", text[3:]
    return os.sep, text.lstrip("\\/")


def last_name(path: str | os.PathLike[str]) -> str:
    """Return the last name of ``path`` (``""`` for none); either separator counts."""
    parts = names.split_names(os.fspath(path))
    return parts[-1] if parts else ""
