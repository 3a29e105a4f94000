"""Which workspace names a task may not touch at run time (issue 2 parts 10-11; seed 001 §6; issue 3 §1).

The names come from the one policy, :mod:`localagent.workspace.pathnames` (stdlib only, so the
sandboxed child imports it too): a *secret* path has a sensitive file name last
(``.env``, ``id_rsa``, ``*.pem``, names with ``token``/``secret``/``password``…) or a
credential folder (``.ssh``, ``.aws``…) or a protected folder (``.git``, ``.localagent``,
``.vscode``, ``.idea``) anywhere below the workspace root: exactly
``pathnames.sensitive_parts(parts) or pathnames.protected_parts(parts)``, the rule of
``AccessPolicy.is_sensitive_file``/``is_protected_path``, folded the same way (NFKC,
ignorables removed, casefold). A *product log* is a file LocalAgent writes in ``logs/``
(``task_*``, ``security_metrics.json*``, ``localagent.log*``, and their dot-prefixed
temporary copies); a task never writes one.

The runtime guard (:mod:`localagent.executor.path_guard`) calls these functions through
frozen copies (see its ``_frozen_env``); :mod:`localagent.executor.sandbox_masks` uses them
to hide secret files from the task under bubblewrap.
"""

from __future__ import annotations

from localagent.workspace import pathnames as _names

#: Bit flags of one name (see :func:`name_flags`).
SENSITIVE_FILE = 1
SENSITIVE_DIR = 2
PROTECTED_DIR = 4
_ANY_DIR = SENSITIVE_DIR | PROTECTED_DIR
_CACHE_LIMIT = 4096

#: Names LocalAgent writes in ``logs/`` start with one of these (after a leading dot, folded).
PRODUCT_LOG_PREFIXES = ("task_", "security_metrics.json", "localagent.log")

_flag_cache: dict[str, int] = {}


def name_flags(name: str) -> int:
    """Return the policy flags of one file or folder name (cached; the name rules are pure).

    Args:
        name: one path component, as found on disk.

    Returns:
        An ``int`` of :data:`SENSITIVE_FILE` (``pathnames.is_sensitive_name``),
        :data:`SENSITIVE_DIR` (``is_sensitive_dir_name``) and :data:`PROTECTED_DIR`
        (``is_protected_name``) bits; ``0`` for an ordinary name.
    """
    flags = _flag_cache.get(name)
    if flags is None:
        flags = ((SENSITIVE_FILE if _names.is_sensitive_name(name) else 0)
                 | (SENSITIVE_DIR if _names.is_sensitive_dir_name(name) else 0)
                 | (PROTECTED_DIR if _names.is_protected_name(name) else 0))
        if len(_flag_cache) >= _CACHE_LIMIT:
            _flag_cache.clear()
        _flag_cache[name] = flags
    return flags


def is_secret_parts(parts: list[str], *, listing: bool = False) -> bool:
    """Return whether names below the workspace root make a path off limits to a task.

    Args:
        parts: the path's components below the workspace root (no ``.``/``..``, not empty).
        listing: the path is listed as a folder: only credential and protected folders
            on the way count (a folder's own sensitive-looking name hides nothing).

    Returns:
        For a file, ``pathnames.sensitive_parts(parts) or pathnames.protected_parts(parts)``;
        for a listing, whether any name is a credential or protected folder.
    """
    for part in parts:
        if name_flags(part) & _ANY_DIR:
            return True
    return not listing and bool(parts) and bool(name_flags(parts[-1]) & SENSITIVE_FILE)


def is_product_log_name(name: str) -> bool:
    """Return whether a file name in ``logs/`` is one LocalAgent writes (task records, logs, metrics).

    Args:
        name: the last path component.

    Returns:
        True for ``task_*``, ``security_metrics.json*``, ``localagent.log*`` (any case, NFKC,
        with or without a leading dot: the temporary copies of atomic writes).
    """
    return _names.windows_base_name(name).lstrip(".").startswith(PRODUCT_LOG_PREFIXES)
