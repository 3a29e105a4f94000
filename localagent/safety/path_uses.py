"""Where generated code writes, and which protected names it spells out (seed 000 "安全边界策略" §1; issue 3 §1).

Two violation kinds of the static check, judged on paths the code writes with literals:

* ``write_outside_output`` — a write whose target lies outside ``output/`` and ``logs/``: ``open``/``io.open``/
  ``gzip.open``/``codecs.open``/``Path.open`` with a ``w``/``a``/``x``/``+`` mode (a mode that is not a
  literal counts as a write), ``write_text``, ``write_bytes``, ``touch``, ``mkdir``, ``os.open`` with any
  flag other than the read-only ones, ``os.mkdir``/``makedirs``/``utime``/``link``/``symlink``/``mkfifo``,
  the destination of ``shutil.copy``/``copy2``/``copyfile``/``copytree``/``copymode``/``copystat``,
  ``shutil.make_archive``/``unpack_archive``, ``extractall``/``extract`` (the working directory — the
  workspace root — when no folder is given), ``zipfile.ZipFile``/``tarfile.open`` in a write mode,
  ``logging.basicConfig(filename=…)`` and ``logging.FileHandler``. The same two folders the runtime guard
  lets a task write (``executor/path_guard.py``; a task may keep its own log under ``logs/``, which
  guards LocalAgent's own records there): ``input/`` (the originals), the workspace root and ``.git``
  are never a task's to write.
* ``sensitive_path`` — a path naming a sensitive file or a protected folder, read or written: the
  access policy decides (``AccessPolicy.is_sensitive_file``: ``.env``, keys, credential folders such
  as ``.ssh`` …; ``AccessPolicy.is_protected_path``: ``.git``, ``.localagent`` …); without a workspace
  the same name tables of ``workspace/pathnames.py`` are used.

A path is read from literals only: str/bytes literals, f-strings (placeholders unknown), ``Path(…)`` and
its relatives, ``os.path.join``, ``joinpath``, ``/``, ``.parent``, ``.with_name``/``with_suffix``,
``.resolve()``/``.absolute()``, and names assigned exactly once to such an expression. A target whose
first folder is not spelled out stays unknown and is left to the runtime guard (``executor/path_guard.py``);
absolute and ``..`` paths leaving the workspace are ``path_outside`` (``code_literals.py``), not judged here.
"""

from __future__ import annotations

import ast
import os
import re
from collections import Counter
from pathlib import Path
from typing import Callable

from localagent.safety.code_literals import call_name, path_literal_problem, str_value
from localagent.workspace import pathnames as names

UNKNOWN = "\x00"  # stands for a part of a path the code computes at run time
WRITABLE_FOLDERS = ("output", "logs")  # the only places a task writes (seed 000 P0 §2; executor/path_guard.py)
_SEPARATORS = re.compile(r"[\\/]+")
_PATH_TYPES = frozenset({"Path", "PurePath", "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath"})
_MAX_DEPTH = 12
_WRITE_MODE_CHARS = frozenset("wax+")
_READ_ONLY_FLAGS = frozenset({"os", "O_RDONLY", "O_CLOEXEC", "O_NOFOLLOW", "O_BINARY", "O_DIRECTORY", "O_NONBLOCK",
                              "O_NOCTTY", "O_NOATIME", "O_PATH", "O_NOINHERIT", "O_SEQUENTIAL", "O_RANDOM", "O_TEXT"})
# Callables whose arguments are paths (for the sensitive-name check).
PATH_CALLS = frozenset({
    "open", "listdir", "scandir", "walk", "stat", "lstat", "glob", "iglob", "copy", "copy2", "copyfile", "copytree",
    "copymode", "copystat", "ZipFile", "TarFile", "FileIO", "exists", "isfile", "isdir", "islink", "getsize",
    "getmtime", "getctime", "getatime", "realpath", "abspath", "cmp", "make_archive", "unpack_archive", "mkdir",
    "makedirs", "utime", "link", "symlink", "FileHandler", "basicConfig", "extractall", "extract", "parse",
    "samefile", "GzipFile", "BZ2File", "LZMAFile",
})
# Module functions that open a file: (target argument, mode argument, default mode).
_OPENERS = {
    "open": (0, 1, "r"), "io.open": (0, 1, "r"), "io.FileIO": (0, 1, "r"), "FileIO": (0, 1, "r"),
    "codecs.open": (0, 1, "r"), "gzip.open": (0, 1, "rb"), "gzip.GzipFile": (0, 1, "rb"),
    "bz2.open": (0, 1, "rb"), "bz2.BZ2File": (0, 1, "r"), "lzma.open": (0, 1, "rb"), "lzma.LZMAFile": (0, 1, "r"),
    "tarfile.open": (0, 1, "r"), "tarfile.TarFile": (0, 1, "r"), "wave.open": (0, 1, "rb"),
    "zipfile.ZipFile": (0, 1, "r"), "ZipFile": (0, 1, "r"),
}
_OPENER_KEYWORDS = ("file", "filename", "name", "path")
# Module functions writing at one argument: name -> (position, keyword, default target or None).
_TARGETS = {
    **{f"shutil.{n}": (1, "dst", None) for n in ("copy", "copy2", "copyfile", "copytree", "copymode", "copystat")},
    **{n: (1, "dst", None) for n in ("copy2", "copyfile", "copytree", "copymode", "copystat")},
    **{f"os.{n}": (1, "dst", None) for n in ("link", "symlink")}, "link": (1, "dst", None), "symlink": (1, "dst", None),
    **{f"os.{n}": (0, "path", None) for n in ("mkdir", "makedirs", "utime", "mkfifo", "mknod")},
    **{n: (0, "path", None) for n in ("mkdir", "makedirs", "utime", "mkfifo", "mknod")},
    "shutil.make_archive": (0, "base_name", None), "make_archive": (0, "base_name", None),
    "shutil.unpack_archive": (1, "extract_dir", "."), "unpack_archive": (1, "extract_dir", "."),
    "logging.basicConfig": (-1, "filename", None), "basicConfig": (-1, "filename", None),
    "logging.FileHandler": (0, "filename", None), "FileHandler": (0, "filename", None),
}
_RECEIVER_WRITES = frozenset({"write_text", "write_bytes", "touch", "mkdir", "symlink_to", "hardlink_to"})


def argument(node: ast.Call, position: int, *keywords: str) -> ast.AST | None:
    """Return the argument at ``position`` (``-1``: keyword only) or under one of ``keywords``; None if absent."""
    if 0 <= position < len(node.args) and not any(isinstance(a, ast.Starred) for a in node.args[:position + 1]):
        return node.args[position]
    return next((k.value for k in node.keywords if k.arg in keywords), None)


class PathReader:
    """Read the path an expression spells out, ``UNKNOWN`` standing for computed parts."""

    def __init__(self, tree: ast.AST) -> None:
        self._values = _single_assignments(tree)

    def text(self, node: ast.AST | None, depth: int = 0) -> str | None:
        """Return the path text of ``node`` (with ``UNKNOWN`` for computed parts), or None if nothing is known."""
        if node is None or depth > _MAX_DEPTH:
            return None
        value = str_value(node)
        if value is not None:
            return value
        if isinstance(node, ast.JoinedStr):
            return "".join(str_value(p) if str_value(p) is not None else UNKNOWN for p in node.values)
        if isinstance(node, ast.Name):
            return self.text(self._values.get(node.id), depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return self._join([node.left, node.right], depth)
        if isinstance(node, ast.Attribute) and node.attr == "parent":
            return _parent(self.text(node.value, depth + 1))
        if isinstance(node, ast.Call):
            return self._call_text(node, depth)
        return None

    def _call_text(self, node: ast.Call, depth: int) -> str | None:
        name = call_name(node.func)
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        if name in _PATH_TYPES:
            return self._join(node.args, depth) if node.args else "."
        if name == "join" and isinstance(receiver, (ast.Name, ast.Attribute)) and call_name(receiver) in (
                "path", "posixpath", "ntpath"):
            return self._join(node.args, depth)
        if name == "joinpath" and receiver is not None:
            return self._join([receiver, *node.args], depth)
        if name in ("resolve", "absolute") and receiver is not None:
            return self.text(receiver, depth + 1)
        if name in ("with_name", "with_suffix", "with_stem") and receiver is not None:
            head = _parent(self.text(receiver, depth + 1))
            return None if head is None else head + "/" + UNKNOWN
        return None

    def _join(self, parts: list[ast.AST], depth: int) -> str | None:
        texts = [self.text(p, depth + 1) for p in parts]
        if all(t is None for t in texts):
            return None
        joined = ""
        for text in (UNKNOWN if t is None else t for t in texts):
            joined = text if not joined or _is_absolute(text) else joined.rstrip("/\\") + "/" + text
        return joined


def _single_assignments(tree: ast.AST) -> dict[str, ast.AST]:
    """Names stored exactly once, by a plain ``name = value``: name -> value."""
    stores: Counter[str] = Counter()
    values: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] += 1
        elif isinstance(node, ast.arg):
            stores[node.arg] += 2
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            stores[node.name] += 2
        elif isinstance(node, ast.alias):
            stores[(node.asname or node.name).split(".")[0]] += 2
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            stores.update({n: 2 for n in node.names})
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    return {name: value for name, value in values.items() if stores[name] == 1}


def _parent(text: str | None) -> str | None:
    if text is None:
        return None
    head = _SEPARATORS.split(text.rstrip("/\\"))
    return "/".join(head[:-1]) if len(head) > 1 else "."


def _is_absolute(text: str) -> bool:
    return text.startswith(("/", "\\")) or bool(re.match(r"^[A-Za-z]:", text))


def write_sites(node: ast.Call, module_of: Callable[[ast.AST], str | None]) -> list[tuple[ast.AST | str, str]]:
    """Return the write targets of one call: ``(target node, or "." for the working directory; what)``.

    Args:
        node: the call.
        module_of: the checker's lookup of the module a name holds (``"os"``, ``"shutil"`` …), or None.

    Returns:
        Zero or more targets; an empty list for calls that do not write (or not at a known place).
    """
    func = node.func
    name = call_name(func)
    if isinstance(func, ast.Attribute):
        owner = module_of(func.value)
        if owner is None:
            return _method_sites(node, func, name)
        key = f"{owner}.{name}"
    elif isinstance(func, ast.Name):
        key = name if name != "copy" else ("shutil.copy" if len(node.args) >= 2 else "")
    else:
        return []
    if key in _OPENERS:
        target_at, mode_at, default = _OPENERS[key]
        mode = argument(node, mode_at, "mode")
        target = argument(node, target_at, *_OPENER_KEYWORDS)
        return [(target, f"{name}(…, {_mode_text(mode)})")] if target is not None and _writes(mode, default) else []
    if key == "os.open":
        target, flags = argument(node, 0, "path"), argument(node, 1, "flags")
        return [(target, "os.open 写标志")] if target is not None and not _read_only_flags(flags) else []
    if key in _TARGETS:
        position, keyword, default = _TARGETS[key]
        target = argument(node, position, keyword)
        target = target if target is not None else default
        return [(target, name)] if target is not None else []
    return []


def _method_sites(node: ast.Call, func: ast.Attribute, name: str) -> list[tuple[ast.AST | str, str]]:
    if name in _RECEIVER_WRITES:
        return [(func.value, name)]
    if name == "open" and _writes(argument(node, 0, "mode"), "r"):
        return [(func.value, f"open({_mode_text(argument(node, 0, 'mode'))})")]
    if name == "extractall":
        target = argument(node, 0, "path")
        return [(target if target is not None else ".", name)]
    if name == "extract":
        target = argument(node, 1, "path")
        return [(target, name)] if target is not None else []
    return []


def _writes(mode: ast.AST | None, default: str) -> bool:
    text = default if mode is None else str_value(mode)
    return text is None or bool(_WRITE_MODE_CHARS & set(text))


def _mode_text(mode: ast.AST | None) -> str:
    text = str_value(mode) if mode is not None else None
    return repr(text) if text is not None else "模式非字面量"


def _read_only_flags(flags: ast.AST | None) -> bool:
    if flags is None:
        return True
    for part in ast.walk(flags):
        if isinstance(part, ast.Name) and part.id not in _READ_ONLY_FLAGS:
            return False
        if isinstance(part, ast.Attribute) and part.attr not in _READ_ONLY_FLAGS:
            return False
        if isinstance(part, ast.Constant) and part.value != 0:
            return False
        if isinstance(part, ast.Call):
            return False
    return True


def shown(text: str) -> str:
    """Return a path text for messages: computed parts as ``{…}``, at most 100 characters."""
    value = text.replace(UNKNOWN, "{…}")
    return value if len(value) <= 100 else value[:97] + "..."


class PathJudge:
    """Judge path texts against one workspace: writes outside ``output/``, sensitive or protected names.

    Args:
        workspace: the workspace root, or None (names only; a literal write target is still judged
            relative to the working directory, which is the workspace when a task runs).
    """

    def __init__(self, workspace: Path | None) -> None:
        self.root = Path(os.path.realpath(workspace)) if workspace is not None else None
        self.policy = None
        if workspace is not None:
            try:
                from localagent.workspace.policy import AccessPolicy
                self.policy = AccessPolicy(workspace)
            except Exception:  # noqa: BLE001 - no policy: the name tables still judge (fail closed below)
                self.policy = None

    def writes_outside_output(self, text: str) -> bool:
        """Return True when a write target spelled ``text`` lies outside ``output/`` and ``logs/``.

        False when unknown. ``"."`` (the working directory) and names at the root are outside;
        ``output/…`` and ``logs/…`` are inside, unless a link below leads elsewhere (resolved against
        the workspace).
        Absolute paths outside the workspace and ``..`` climbing out give False: ``path_outside``
        reports them.
        """
        parts = self._relative_parts(text)
        if parts is None:
            return False
        known: list[str] = []
        for part in parts:
            if UNKNOWN in part:
                break
            if part == "..":
                if not known:
                    return False
                known.pop()
            elif part not in ("", "."):
                known.append(part)
        else:
            if not known:
                return True  # the workspace root itself
        if not known:
            return False
        area = known[0].casefold() if os.name == "nt" else known[0]
        if area not in WRITABLE_FOLDERS:
            return True
        if self.root is None:
            return False
        try:
            return not _within(os.path.realpath(self.root.joinpath(*known)), os.path.realpath(self.root / area))
        except (OSError, ValueError):  # unresolvable: fail closed
            return True

    def _relative_parts(self, text: str) -> list[str] | None:
        if not _is_absolute(text):
            return _SEPARATORS.split(text)
        if self.root is None or os.name == "nt" or not text.startswith("/"):
            return None  # Windows forms and other hosts: path_outside and the runtime guard decide
        parts = _SEPARATORS.split(os.path.normpath(text))
        for root in (self.root, Path(os.path.abspath(self.root))):
            anchor = _SEPARATORS.split(str(root))
            if parts[:len(anchor)] == anchor:
                return parts[len(anchor):]
        return None

    def is_sensitive(self, text: str, inside: Callable[[str], bool] | None) -> bool:
        """Return True when ``text`` names a sensitive file or a protected folder (seed 001 §6; issue 3 §1).

        Paths that leave the workspace are not judged here (``path_outside`` is). Complete paths ask the
        access policy (names as given and after resolution); paths with computed parts are judged by the
        names that are spelled out: every folder name, and the last name when it is complete.
        """
        if not text.strip() or path_literal_problem(text.replace(UNKNOWN, "x"), inside):
            return False
        if UNKNOWN not in text and self.policy is not None:
            return self.policy.is_sensitive_file(text) or self.policy.is_protected_path(text)
        parts = [p for p in _SEPARATORS.split(text) if p not in ("", ".", "..")]
        folders, last = parts[:-1], parts[-1] if parts else ""
        if any(UNKNOWN not in p and (names.is_sensitive_dir_name(p) or names.is_protected_name(p)) for p in parts):
            return True
        known_folders = [p for p in folders if UNKNOWN not in p]
        return UNKNOWN not in last and names.sensitive_parts([*known_folders, last])


def _within(path: str, folder: str) -> bool:
    try:
        return os.path.isabs(path) and os.path.isabs(folder) and os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives on Windows: not within
        return False


def call_findings(node: ast.Call, reader: PathReader, judge: PathJudge, module_of: Callable[[ast.AST], str | None],
                  inside: Callable[[str], bool] | None) -> list[tuple[str, str]]:
    """Return ``(kind, detail)`` findings of one call: writes outside ``output/`` and sensitive path arguments.

    Args:
        node: the call. reader: the tree's :class:`PathReader`. judge: the workspace's :class:`PathJudge`.
        module_of: the checker's module lookup. inside: ``code_literals.workspace_judge`` result.

    Returns:
        ``("write_outside_output", "input/a.txt（open(…, 'w')）")`` and ``("sensitive_path", ".env")`` rows.
    """
    found: list[tuple[str, str]] = []
    for target, what in write_sites(node, module_of):
        text = target if isinstance(target, str) else reader.text(target)
        if text is not None and judge.writes_outside_output(text):
            found.append(("write_outside_output", f"{shown(text)}（{what}）"))
    name = call_name(node.func)
    if name in _PATH_TYPES or name == "joinpath" or (name == "join" and reader.text(node) is not None):
        candidates: list[ast.AST] = [node]
    elif name in PATH_CALLS:
        candidates = [*node.args, *(k.value for k in node.keywords)]
    else:
        candidates = []
    for candidate in candidates:
        text = reader.text(candidate)
        if text is not None and judge.is_sensitive(text, inside):
            found.append(("sensitive_path", shown(text)))
    return found


def looks_like_path(text: str) -> bool:
    """True for a literal that can only be a path: a separator, no whitespace, not a URL.

    A bare name (``".env"``, ``".git"``) is judged only where it is used as a path (:func:`call_findings`):
    as a plain string it is as likely a skip list (``SKIP = {".env", ".git"}``) written by careful code.
    """
    return bool(_SEPARATORS.search(text)) and not re.search(r"\s", text) and "://" not in text
