"""Path literals and the regex backstop of the static check (seed 000 "安全边界策略" §1: 路径解析验证, 正则兜底).

Only string literals that look like paths outside the workspace are judged: absolute POSIX paths
(``/etc``), Windows drives (``C:\\``, ``D:/``), UNC shares (``\\\\server\\share``), ``~`` and
``~user``, environment variables (``%USERPROFILE%``, ``$HOME``) and ``..`` components. Relative paths
without ``..`` stay in the workspace (the task runs with the workspace as its working directory).

The backstop scans the source tokens other than comments and strings, so a comment or a docstring
that mentions ``subprocess`` does not block; it also flags obfuscated underscores in strings
(``"\\x5f\\x5f"``) and ``chr(95)``. The AST pass is the main check; this one catches what it misses.

Also here: small AST facts the checker needs (parents, docstrings, names bound only to string literals)
and the parser of ``str.format`` templates.
"""

from __future__ import annotations

import ast
import io
import re
import string
import tokenize
import unicodedata
from pathlib import Path, PurePath
from typing import Callable

from localagent.safety.code_rules import STR_METHODS

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:([\\/]|$)")
_WINDOWS_ENV = re.compile(r"(^|[\\/])%[A-Za-z_][A-Za-z0-9_]{2,}%([\\/]|$)")
_POSIX_ENV = re.compile(r"^(\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$env:[A-Za-z_]+)([\\/]|$)", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\\/]+")
_MAX_PATH_LITERAL = 4096  # characters; longer strings are text, not paths

_BACKSTOP_WORDS = re.compile(
    r"\b(__import__|__builtins__|__subclasses__|__globals__|__getattribute__|subprocess|ctypes|cffi|"
    r"importlib|socket|pty|marshal|pickle)\b")
_BACKSTOP_CALLS = re.compile(r"(?<!\. )(?<!\.)\b(eval|exec)\s*\(")
_BACKSTOP_CHR = re.compile(r"\bchr\s*\(\s*(95|0x5[fF]|0o137|0b1011111)\s*\)")
_ESCAPED_UNDERSCORE = re.compile(r"\\(x5[fF]|u005[fF]|U0000005[fF]|137|N\{LOW LINE\})")


def is_separator_only(text: str) -> bool:
    """Return True for literals made only of ``/`` and ``\\`` (a root when used as a path)."""
    stripped = text.strip()
    return bool(stripped) and not _SEPARATORS.sub("", stripped)


def workspace_judge(workspace: Path | None) -> Callable[[str], bool] | None:
    """Return a function telling whether a path literal resolves inside ``workspace``.

    Args:
        workspace: the workspace root, or ``None``.

    Returns:
        ``None`` when ``workspace`` is ``None``; otherwise a function ``str -> bool`` backed by
        ``localagent.workspace.policy.AccessPolicy(workspace).resolve`` (issue 3 §1). When the policy
        cannot be built (module missing, workspace refused) the function always answers ``False``
        (fail closed).
    """
    if workspace is None:
        return None
    try:
        from localagent.errors import LocalAgentError
        from localagent.workspace.policy import AccessPolicy
        policy = AccessPolicy(workspace)
    except Exception:  # noqa: BLE001 - no policy (missing, workspace refused), no judgement: refuse
        return lambda _text: False

    def inside(text: str) -> bool:
        try:
            policy.resolve(text)
        except (LocalAgentError, OSError, ValueError):
            return False
        return True

    return inside


def path_literal_problem(text: str, inside: Callable[[str], bool] | None, *, leading: bool = True) -> str:
    """Say why a string literal is a path outside the workspace, or return ``""``.

    Args:
        text: the literal's value (bytes literals decoded as Latin-1 by the caller).
        inside: from :func:`workspace_judge`; ``None`` (no workspace) refuses every absolute, ``~`` or
            ``..`` path.
        leading: ``False`` for a piece of an f-string after a placeholder: only ``..`` is judged there.

    Returns:
        ``""`` when the literal is not a path or stays inside the workspace, else a short Chinese
        reason such as ``"/etc/passwd（绝对路径）"``. ``~``, environment variables and Windows forms
        on a POSIX host are always refused; host-native absolute and ``..`` paths are asked of
        ``inside``.
    """
    value = text.strip()
    if not value or "\n" in value or "\x00" in value or len(value) > _MAX_PATH_LITERAL:
        return ""
    if is_separator_only(value):
        return ""
    has_parent = ".." in _SEPARATORS.split(value)
    if not leading:
        return f"{value}（上级目录 ..）" if has_parent else ""
    if value.startswith("~"):
        return f"{value}（用户主目录）"
    if _WINDOWS_ENV.search(value) or _POSIX_ENV.match(value):
        return f"{value}（环境变量路径）"
    windows_form = bool(_WINDOWS_DRIVE.match(value)) or value.startswith(("\\\\", "//"))
    native_abs = PurePath(value).is_absolute() or value.startswith(("/", "\\"))
    if not (windows_form or native_abs or has_parent):
        return ""
    label = "上级目录 .." if has_parent and not (windows_form or native_abs) else "绝对路径"
    if inside is None or (windows_form and not PurePath(value).is_absolute()):
        return f"{value}（{label}）"
    return "" if inside(value) else f"{value}（{label}，在工作区之外）"


def backstop_scan(code: str) -> list[tuple[int, str]]:
    """Scan source tokens for forbidden words the AST pass should already have caught.

    Args:
        code: Python source text.

    Returns:
        ``(line, detail)`` pairs, lines 1-based. Comments and the text of string literals are not
        scanned for words; string literals are scanned for escaped underscores only. A source that
        cannot be tokenised gives what was found before the error.
    """
    hits: list[tuple[int, str]] = []
    lines: dict[int, list[str]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.STRING:
                if _ESCAPED_UNDERSCORE.search(tok.string):
                    hits.append((tok.start[0], "字符串里用转义写下划线"))
            elif tok.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                  tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER):
                text = unicodedata.normalize("NFKC", tok.string)
                lines.setdefault(tok.start[0], []).append(text)
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    for line, words in sorted(lines.items()):
        joined = " ".join(words)
        for pattern in (_BACKSTOP_WORDS, _BACKSTOP_CALLS, _BACKSTOP_CHR):
            match = pattern.search(joined)
            if match:
                hits.append((line, match.group(0).replace(" ", "")))
    return hits


def str_value(node: ast.AST) -> str | None:
    """Return the text of a ``str`` or ``bytes`` literal node (bytes decoded as Latin-1), else ``None``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Constant) and isinstance(node.value, bytes):
        return node.value.decode("latin-1")
    return None


def call_name(func: ast.AST) -> str:
    """Return ``f`` for ``f(...)`` and ``m`` for ``x.m(...)``; ``""`` for other callees."""
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else ""


class SourceFacts:
    """Facts gathered before the visit: who is whose parent, docstrings, literal-only names."""

    def __init__(self, tree: ast.AST) -> None:
        self.parent: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parent[id(child)] = node
        self.docstrings = {id(n.value) for n in ast.walk(tree)
                           if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
                           and isinstance(n.value.value, (str, bytes))}
        self.literal_names = self._literal_names(tree)

    def _literal_names(self, tree: ast.AST) -> set[str]:
        good: set[str] = set()
        bad: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                holder = self.parent.get(id(node))
                value = getattr(holder, "value", None)
                simple = isinstance(holder, (ast.Assign, ast.AnnAssign)) and str_value(value) is not None \
                    and node in getattr(holder, "targets", [getattr(holder, "target", None)])
                (good if simple else bad).add(node.id)
            elif isinstance(node, ast.arg):
                bad.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bad.add(node.name)
            elif isinstance(node, ast.alias):
                bad.add((node.asname or node.name).split(".")[0])
        return good - bad

    def is_call_func(self, node: ast.AST) -> bool:
        holder = self.parent.get(id(node))
        return isinstance(holder, ast.Call) and holder.func is node

    def is_attribute_root(self, node: ast.AST) -> bool:
        holder = self.parent.get(id(node))
        return isinstance(holder, ast.Attribute) and holder.value is node

    def is_text_argument(self, node: ast.AST) -> bool:
        """True for literals used as text, not as a path.

        That is: handed to a string method (``s.split("/")``, ``s.startswith(("~", ".."))``), receiving
        one (``"/".join``), or compared (``if ".." in name``).
        """
        holder = self.parent.get(id(node))
        if isinstance(holder, (ast.Tuple, ast.List)):
            node, holder = holder, self.parent.get(id(holder))
        if isinstance(holder, ast.Compare):
            return True
        if isinstance(holder, ast.Attribute) and holder.value is node:
            return holder.attr in STR_METHODS
        return (isinstance(holder, ast.Call) and isinstance(holder.func, ast.Attribute)
                and holder.func.attr in STR_METHODS and node in holder.args)


def format_fields(text: str, depth: int = 0) -> list[str]:
    """Return the field names of a ``str.format`` template (``"0.__class__"``), nested specs included.

    Parsed with the standard library's ``string.Formatter().parse``; a malformed template gives the
    fields found before the error.
    """
    fields: list[str] = []
    try:
        for _literal, field, spec, _conv in string.Formatter().parse(text):
            if field:
                fields.append(field)
            if spec and depth < 2:
                fields.extend(format_fields(spec, depth + 1))
    except (ValueError, IndexError):
        return fields
    return fields
