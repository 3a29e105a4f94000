"""The environment of a task's child process, built from an allowlist (issue 2 part 11).

Seed 000 "运行时硬隔离" asks to remove proxy variables from the child's
environment; issue 2 part 11 goes further: the environment is *built* from an
allowlist, never copied from the parent, so no ``LLM_API_KEY``, no other
credential and no proxy variable can reach generated code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

#: Variables copied from the parent when present (compared case-insensitively, for Windows).
ALLOWED_NAMES: frozenset[str] = frozenset({
    "PATH", "HOME", "USERPROFILE", "LANG", "LANGUAGE", "TMP", "TEMP", "TMPDIR",
    "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "SYSTEMDRIVE",
})

#: Always set in the child: UTF-8 text, no ``.pyc`` files written into the workspace.
FIXED_VALUES: Mapping[str, str] = {
    "PYTHONUTF8": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
}

# Names that are refused even when a caller passes them in ``extra``.
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|COOKIE|AUTH)", re.IGNORECASE)
_PROXY_NAME = re.compile(r"_PROXY$|^PROXY$", re.IGNORECASE)
_LOADER_NAME = re.compile(r"^(PYTHON(PATH|STARTUP|HOME|USERBASE|INSPECT|BREAKPOINT|EXECUTABLE|PYCACHEPREFIX|WARNINGS|"
                          r"SAFEPATH|PLATLIBDIR)|LD_.*|DYLD_.*)$", re.IGNORECASE)


def is_forbidden_name(name: str) -> bool:
    """Tell whether ``name`` may never appear in a child environment.

    Forbidden: anything that looks like a credential (``*KEY*``, ``*TOKEN*``,
    ``*SECRET*``, ``*PASSWORD*``…), proxy variables in any case (``http_proxy``,
    ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``…), and loader hooks
    (``PYTHONPATH``, ``PYTHONSTARTUP``, ``PYTHONHOME``, ``LD_PRELOAD``,
    ``LD_LIBRARY_PATH``, ``DYLD_*``).
    """
    return bool(_SECRET_NAME.search(name) or _PROXY_NAME.search(name) or _LOADER_NAME.match(name))


def _is_allowed_name(name: str) -> bool:
    upper = name.upper()
    return (upper in ALLOWED_NAMES or upper == "LC_ALL" or upper.startswith("LC_")) and not is_forbidden_name(name)


def build_child_env(extra: Mapping[str, str] | None = None, *,
                    environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """Build the environment of a task's child process from an allowlist.

    Args:
        extra: more variables to set (e.g. a private ``TMPDIR``); each name is
            checked with :func:`is_forbidden_name`.
        environ: the parent environment to pick from; defaults to ``os.environ``.

    Returns:
        A new dict: the allowed variables present in ``environ`` (``PATH``,
        ``HOME``/``USERPROFILE``, ``LANG``, ``LC_*``, ``TMP``/``TEMP``/``TMPDIR``,
        ``SYSTEMROOT``, ``WINDIR``, ``COMSPEC``, ``PATHEXT``, ``SYSTEMDRIVE``),
        then ``extra``, then ``PYTHONUTF8=1``, ``PYTHONDONTWRITEBYTECODE=1`` and
        ``PYTHONIOENCODING=utf-8``.

    Raises:
        ValueError: ``extra`` names a credential, proxy or loader variable, or a
            value contains a NUL character.
    """
    source = os.environ if environ is None else environ
    env = {name: value for name, value in source.items() if _is_allowed_name(name) and "\0" not in value}
    for name, value in (extra or {}).items():
        if is_forbidden_name(name) or not name or "=" in name or "\0" in name or "\0" in value:
            raise ValueError(f"refused child environment variable: {name!r}")
        env[name] = value
    env.update(FIXED_VALUES)
    return env
