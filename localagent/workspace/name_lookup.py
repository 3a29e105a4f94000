"""Find an existing entry typed in another Unicode normalization form (issue 3 §4 file names).

macOS (HFS+, and files copied from it) stores ``é`` as ``e`` + U+0301 (NFD) while a keyboard
or an input method types U+00E9 (NFC). The two strings differ, so ``读取 é.txt`` would not find
the file. :func:`normalization_matches` looks, one path component at a time, for the on-disk
names whose NFC form equals the NFC form of what was typed. It only ever reads folders the
access policy lets be listed, and the caller still resolves every match through the policy
(the one gate). New names are never normalized: a file is created with the name as typed.
"""

from __future__ import annotations

import os
import unicodedata
from typing import TYPE_CHECKING

from localagent.errors import PathDenied
from localagent.workspace.pathnames import split_names

if TYPE_CHECKING:
    from localagent.workspace.policy import AccessPolicy

__all__ = ["MAX_MATCHES", "nfc", "normalization_matches"]

MAX_MATCHES = 20  # matches kept per component: more than this is a folder of look-alikes, not a typo


def nfc(text: str) -> str:
    """Return ``text`` in Unicode NFC (composed) form."""
    return unicodedata.normalize("NFC", text)


def normalization_matches(policy: AccessPolicy, path: str) -> list[str]:
    """Return the existing workspace paths equal to ``path`` up to Unicode normalization.

    Components that exist as typed are kept; for one that does not, the entries of its parent
    folder whose NFC form equals the component's NFC form are taken. Case is not folded
    (a case-insensitive file system already finds case twins).

    Args:
        policy: the workspace's access policy; every folder read is resolved and allowed by it.
        path: a workspace-relative or absolute path as typed (``/`` or ``\\`` separated).

    Returns:
        Workspace-relative, ``/``-separated paths that exist, in folder order (at most
        :data:`MAX_MATCHES`); ``[]`` when ``path`` is refused, names the root, exists as typed,
        or nothing matches. Several matches mean the user must say which.
    """
    try:
        relative = policy.to_relative_path(path)
    except (PathDenied, OSError, ValueError):
        return []
    parts = split_names(relative)
    if not parts or relative in (".", ""):
        return []
    found = [""]
    for part in parts:
        found = [hit for base in found for hit in _component_matches(policy, base, part)][:MAX_MATCHES]
        if not found:
            return []
    return [] if found == ["/".join(parts)] else found


def _component_matches(policy: AccessPolicy, base: str, part: str) -> list[str]:
    """Entries of the folder ``base`` named ``part`` as typed, else equal to it in NFC."""
    try:
        if not policy.can_read_directory(base or "."):
            return []
        folder = policy.resolve(base or ".")
        joined = f"{base}/{part}" if base else part
        if os.path.lexists(folder / part):
            return [joined]
        if unicodedata.is_normalized("NFC", part) and unicodedata.is_normalized("NFD", part):
            return []  # no other form to look for (ASCII, CJK…): no folder read
        want = nfc(part)
        with os.scandir(folder) as entries:
            names = sorted(e.name for e in entries if e.name != part and nfc(e.name) == want)
    except (PathDenied, OSError, ValueError):
        return []
    return [f"{base}/{name}" if base else name for name in names]
