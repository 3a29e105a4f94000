"""Static safety check of generated Python (seed 000 "安全边界策略（P0 级）" §1, issue 2 part 8).

AST analysis first, a regex backstop second, path literals resolved against the workspace. Deny by
default: imports come from an allowlist (``code_rules.ALLOWED_MODULES``). The check thinks in classes of
escape: any mention of a forbidden builtin (call, alias, list item, default argument, decorator), any
dunder attribute, frame attributes, attribute lookups in format templates, module objects passed
around, module re-exports (``shutil.os``), implicitly called dunder methods and metaclasses. Literal
paths: where they lie (``code_literals.py``), what they are used for and name (``path_uses.py``).

Violation kinds (messages in ``code_rules.MESSAGES``, metrics categories in
``security_metrics.KIND_CATEGORY``): ``network``, ``process``, ``dynamic_code``, ``native_code``,
``dunder_escape``, ``computed_attribute``, ``destructive``, ``path_outside``, ``sensitive_path``,
``write_outside_output``, ``import_not_allowed``, ``syntax_error``, ``implicit_dunder``,
``format_escape``, ``frame_escape``, ``alias_escape``, ``builtins_escape``, ``regex_backstop``,
``too_large``; warnings: ``environment``, ``interactive``.

What a static check cannot see (a path built at run time, ``Path.cwd().parent``) is stopped by the
runtime guard (``executor/path_guard.py``) and the sandbox. A violation stops the flow; the caller
records it as a security event and shows the messages (seed: 立即终止流程 · 记录安全事件 · 展示违规详情).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from localagent.safety import code_rules as rules
from localagent.safety import path_uses
from localagent.safety.code_literals import (
    SourceFacts,
    backstop_scan,
    call_name,
    format_fields,
    is_separator_only,
    path_literal_problem,
    str_value,
    workspace_judge,
)

MAX_CODE_BYTES = 200 * 1024  # seed-free limit: generated scripts are a few KB
MAX_VIOLATIONS = 200
_FORMAT_METHODS = frozenset({"format", "format_map"})
_FIELD_PART = re.compile(r"\.([^.\[]+)|\[([^\]]*)\]")


@dataclass(frozen=True)
class Violation:
    """One finding of the static check.

    Attributes:
        line: 1-based source line (1 when unknown).
        kind: a stable kind string (``network``, ``path_outside`` … see the module tables).
        message: Chinese explanation, e.g. ``"第 3 行：禁止联网：import socket（执行器不允许联网）"``.
        message_en: the English explanation.
        detail: the offending code or literal, shortened.
    """

    line: int
    kind: str
    message: str
    message_en: str
    detail: str


@dataclass(frozen=True)
class CheckReport:
    """The result of :func:`check_code`. ``passed`` is True only when there are no violations."""

    passed: bool
    violations: tuple[Violation, ...] = ()
    warnings: tuple[Violation, ...] = ()

    def to_json(self) -> dict:
        """Return ``{"passed", "violations": [{"line", "kind", "message", "detail"}], "warnings": [...]}``."""
        def row(item: Violation) -> dict:
            return {"line": item.line, "kind": item.kind, "message": item.message, "detail": item.detail}
        return {"passed": self.passed, "violations": [row(v) for v in self.violations],
                "warnings": [row(w) for w in self.warnings]}

    def messages(self, lang: str = "zh") -> list[str]:
        """Return one line per violation in ``lang`` (``"zh"`` or ``"en"``)."""
        return [v.message_en if lang == "en" else v.message for v in self.violations]


def check_code(code: str, workspace: Path | str | None = None) -> CheckReport:
    """Check generated Python before it may run (seed 000 P0 §1).

    Args:
        code: the Python source text.
        workspace: the workspace root; absolute and ``..`` path literals are resolved against it with
            ``AccessPolicy``. ``None`` refuses every absolute, ``~`` or ``..`` path literal.

    Returns:
        A :class:`CheckReport`; ``passed`` is False when any violation was found. Code over
        200 KB (UTF-8) gives ``too_large``; unparsable code gives ``syntax_error``. Never raises for
        bad code: every failure is a violation (fail closed).
    """
    if not isinstance(code, str):
        return _single(1, "syntax_error", f"不是文本：{type(code).__name__}")
    size = len(code.encode("utf-8", "surrogatepass"))
    if size > MAX_CODE_BYTES:
        return _single(1, "too_large", f"{size} 字节 > {MAX_CODE_BYTES} 字节")
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return _single(exc.lineno or 1, "syntax_error", str(exc.msg))
    except ValueError as exc:  # null bytes
        return _single(1, "syntax_error", str(exc))
    except (RecursionError, MemoryError):
        return _single(1, "too_large", "嵌套过深")
    root = Path(workspace) if workspace is not None else None
    checker = _Checker(tree, workspace_judge(root) if root is not None else None, path_uses.PathJudge(root))
    try:
        checker.visit(tree)
    except RecursionError:
        checker.add(1, "too_large", "嵌套过深")
    flagged = {v.line for v in checker.violations.values()}
    for line, detail in backstop_scan(code):
        if line not in flagged:
            checker.add(line, "regex_backstop", detail)
    violations = tuple(sorted(checker.violations.values(), key=lambda v: (v.line, v.kind)))[:MAX_VIOLATIONS]
    warnings = tuple(sorted(checker.warnings.values(), key=lambda v: (v.line, v.kind)))[:MAX_VIOLATIONS]
    return CheckReport(passed=not violations, violations=violations, warnings=warnings)


def _make(line: int, kind: str, detail: str) -> Violation:
    detail = detail if len(detail) <= 120 else detail[:117] + "..."
    zh, en = rules.message_for(kind, line, detail)
    return Violation(line=line, kind=kind, message=zh, message_en=en, detail=detail)


def _single(line: int, kind: str, detail: str) -> CheckReport:
    return CheckReport(passed=False, violations=(_make(line, kind, detail),))


def _shown(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - display only
        return type(node).__name__


class _Checker(ast.NodeVisitor):
    """Walk the tree once and collect violations and warnings (deduplicated by line, kind, detail)."""

    def __init__(self, tree: ast.AST, inside, judge: path_uses.PathJudge) -> None:
        self.inside = inside
        self.judge = judge
        self.facts = SourceFacts(tree)
        self.paths = path_uses.PathReader(tree)
        self.modules: dict[str, str] = {}  # local name -> allowed dotted module it holds
        self.violations: dict[tuple[int, str, str], Violation] = {}
        self.warnings: dict[tuple[int, str, str], Violation] = {}
        self._fstring_parts: set[int] = set()

    def add(self, where: ast.AST | int, kind: str, detail: str, *, warning: bool = False) -> None:
        """Record a violation (or a warning) at a node or line."""
        line = where if isinstance(where, int) else getattr(where, "lineno", 1) or 1
        bucket = self.warnings if warning else self.violations
        bucket.setdefault((line, kind, detail), _make(line, kind, detail))

    # --- imports --------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            kind = rules.module_kind(alias.name)
            if kind:
                self.add(node, kind, f"import {alias.name}")
                continue
            self._bind(node, alias.asname, alias.asname and alias.name)
            if not alias.asname:
                self.modules[alias.name.split(".")[0]] = alias.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.add(node, "import_not_allowed", f"相对导入 from {'.' * node.level}{module}")
            return
        kind = rules.module_kind(module)
        if kind:
            self.add(node, kind, f"from {module} import ...")
            return
        for alias in node.names:
            if alias.name == "*":
                self.add(node, "alias_escape", f"from {module} import *（星号导入）")
                continue
            if alias.name in rules.ATTRIBUTE_HELPERS and alias.asname not in (None, alias.name):
                self.add(node, "alias_escape", f"from {module} import {alias.name} as {alias.asname}")
            sub = self._member(node, module, alias.name, f"from {module} import {alias.name}")
            self._bind(node, alias.asname or alias.name, sub)

    def _bind(self, node: ast.AST, name: str | None, module: str | None) -> None:
        if not name:
            return
        if rules.is_dunder(name):
            self.add(node, "dunder_escape", f"导入为 {name}")
        if module:
            self.modules[name] = module
        else:
            self.modules.pop(name, None)

    def _member(self, node: ast.AST, module: str, attr: str, shown: str) -> str | None:
        """Judge ``module.attr``; return the dotted submodule it holds, if any."""
        listed = (module == "os" and attr in rules.OS_ALLOWED) or (module == "sys" and attr in rules.SYS_ALLOWED)
        kind = "" if listed else rules.attribute_kind(attr)
        member_kind, sub = rules.resolve_member(module, attr)
        kind = kind or member_kind
        if kind:
            self.add(node, kind, shown)
            return None
        if attr in rules.GENERIC_WARNING_ATTRS:
            self.add(node, rules.GENERIC_WARNING_ATTRS[attr], shown, warning=True)
        return sub

    def _module_of(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._module_of(node.value)
            if base:
                kind, sub = rules.resolve_member(base, node.attr)
                return None if kind else sub
        return None

    # --- names and attributes ---------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        name = node.id
        if name in rules.FORBIDDEN_BUILTINS:
            if isinstance(node.ctx, ast.Load):
                self.add(node, rules.FORBIDDEN_BUILTINS[name], name)
        elif rules.is_dunder(name) and name not in rules.ALLOWED_DUNDER_NAMES:
            self.add(node, "builtins_escape" if name == "__builtins__" else "dunder_escape", name)
        elif not isinstance(node.ctx, ast.Load):
            return
        elif name in rules.ATTRIBUTE_BUILTINS or name in rules.ATTRIBUTE_HELPERS or name == "type":
            if not self.facts.is_call_func(node):
                self.add(node, "alias_escape", f"{name} 被当作值使用")
        elif name in rules.WARNING_BUILTINS:
            self.add(node, rules.WARNING_BUILTINS[name], name, warning=True)
        elif name in self.modules and not self.facts.is_attribute_root(node):
            self.add(node, "alias_escape", f"模块对象 {name} 被当作值使用")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base = self._module_of(node.value)
        shown = _shown(node)
        if node.attr in rules.ATTRIBUTE_HELPERS and not self.facts.is_call_func(node):
            self.add(node, "alias_escape", f"{shown} 被当作值使用")
        if node.attr in _FORMAT_METHODS:
            self._format_template_source(node)
        if base:
            self._member(node, base, node.attr, shown)
        elif not (node.attr in rules.ALLOWED_SUPER_DUNDERS and isinstance(node.value, ast.Call)
                  and call_name(node.value.func) == "super"):
            self._attribute_name(node, node.attr, shown)
        self.generic_visit(node)

    def _attribute_name(self, node: ast.AST, attr: str, shown: str) -> None:
        kind = rules.attribute_kind(attr)
        if kind:
            self.add(node, kind, shown)
        elif attr in rules.GENERIC_WARNING_ATTRS:
            self.add(node, rules.GENERIC_WARNING_ATTRS[attr], shown, warning=True)
        elif attr == "replace" and not self.facts.is_call_func(node) and not (
                isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in ("str", "bytes")):
            self.add(node, "destructive", f"{shown}（Path.replace 可能覆盖文件）")

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        for attr in node.kwd_attrs:
            self._attribute_name(node, attr, f"case …({attr}=…)")
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if rules.is_dunder(name) and name not in rules.ALLOWED_DUNDER_NAMES:
                self.add(node, "dunder_escape", f"global {name}")

    visit_Nonlocal = visit_Global

    # --- definitions --------------------------------------------------------------------------

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if rules.is_dunder(node.name):
            in_class = isinstance(self.facts.parent.get(id(node)), ast.ClassDef)
            if not (in_class and node.name in rules.ALLOWED_DUNDER_METHODS):
                self.add(node, "implicit_dunder", f"def {node.name}")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if rules.is_dunder(node.name):
            self.add(node, "dunder_escape", f"class {node.name}")
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self.add(node, "implicit_dunder", f"class {node.name}(metaclass=…)")
        self.generic_visit(node)

    # --- calls ----------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        name = call_name(node.func)
        if isinstance(node.func, ast.Name) and name in rules.ATTRIBUTE_BUILTINS:
            self._attribute_call(node, name)
        elif isinstance(node.func, ast.Name) and name == "type" and len(node.args) == 3:
            self.add(node, "dynamic_code", "type(名字, 基类, 字典) 动态建类")
        elif name in rules.ATTRIBUTE_HELPERS:
            self._helper_call(node, name)
        elif name == "replace" and isinstance(node.func, ast.Attribute) and len(node.args) == 1 \
                and not node.keywords:
            self.add(node, "destructive", f"{_shown(node.func)}(…)（Path.replace 会移动/覆盖文件）")
        if name not in rules.STR_METHODS:
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                text = str_value(arg)
                if text is not None and is_separator_only(text):
                    self.add(arg, "path_outside", f"{text!r}（根目录）")
        for kind, detail in path_uses.call_findings(node, self.paths, self.judge, self._module_of, self.inside):
            self.add(node, kind, detail)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        holder = self.facts.parent.get(id(node))
        if isinstance(node.op, ast.Div) and not (isinstance(holder, ast.BinOp) and isinstance(holder.op, ast.Div)):
            text = self.paths.text(node)
            if text is not None and self.judge.is_sensitive(text, self.inside):
                self.add(node, "sensitive_path", path_uses.shown(text))
        self.generic_visit(node)

    def _attribute_call(self, node: ast.Call, name: str) -> None:
        attr = str_value(node.args[1]) if len(node.args) >= 2 else None
        if attr is None or node.keywords:
            self.add(node, "computed_attribute", f"{name}(…) 的属性名不是字面量")
            return
        base = self._module_of(node.args[0])
        shown = f"{name}({_shown(node.args[0])}, {attr!r})"
        if base:
            self._member(node, base, attr, shown)
        else:
            self._attribute_name(node, attr, shown)

    def _helper_call(self, node: ast.Call, name: str) -> None:
        texts = [str_value(a) for a in (node.args if name == "attrgetter" else node.args[:1])]
        if not texts or any(t is None for t in texts) or node.keywords and name == "attrgetter":
            self.add(node, "computed_attribute", f"{name}(…) 的属性名不是字面量")
            return
        for text in texts:
            for part in text.split("."):
                self._attribute_name(node, part, f"{name}({text!r})")

    def _format_template_source(self, func: ast.Attribute) -> None:
        """``x.format`` / ``x.format_map``: the template must be a literal (or a name bound only to one)."""
        holder = self.facts.parent.get(id(func))
        unbound = isinstance(func.value, ast.Name) and func.value.id == "str"
        if unbound:
            called = isinstance(holder, ast.Call) and holder.func is func and holder.args
            template = holder.args[0] if called else None
        else:
            template = func.value
        literal = template is not None and (
            str_value(template) is not None
            or (isinstance(template, ast.Name) and template.id in self.facts.literal_names))
        if not literal:
            self.add(func, "format_escape", f"{_shown(func)} 的模板不是字符串字面量")

    # --- literals --------------------------------------------------------------------------------

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        for index, part in enumerate(node.values):
            text = str_value(part)
            if text is not None:
                self._fstring_parts.add(id(part))
                problem = path_literal_problem(text, self.inside, leading=index == 0)
                if problem:
                    self.add(part, "path_outside", problem)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        text = str_value(node)
        if text is None or id(node) in self.facts.docstrings:
            return
        self._format_template(node, text)
        words = set(re.findall(r"__\w+?__", text)) & rules.DANGEROUS_DUNDER_WORDS
        if words:
            self.add(node, "regex_backstop", f"字符串含 {sorted(words)[0]}")
        if id(node) in self._fstring_parts or self.facts.is_text_argument(node):
            return
        problem = path_literal_problem(text, self.inside)
        if problem:
            self.add(node, "path_outside", problem)
        elif path_uses.looks_like_path(text) and self.judge.is_sensitive(text, self.inside):
            self.add(node, "sensitive_path", path_uses.shown(text))

    def _format_template(self, node: ast.AST, text: str) -> None:
        """Flag ``{0.__class__}``-style fields: attribute lookups a ``.format`` would perform."""
        if "{" not in text:
            return
        for field in format_fields(text):
            for attr, key in _FIELD_PART.findall(field):
                name = attr or key
                if rules.is_dunder(name) or (attr and rules.attribute_kind(attr)):
                    self.add(node, "format_escape", "{" + field + "}")
                    return
