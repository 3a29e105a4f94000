"""The static check of generated Python as a table of snippets (seed 000 P0 §1, issue 2 part 8).

Allowed rows are realistic file-processing code (``tests/cases/rule_checker/allowed/*.py`` plus short
snippets). Blocked rows cover every escape class of part 8, each asserting the violation kind.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagent.safety.rule_checker import MAX_CODE_BYTES, CheckReport, check_code

CASES = Path(__file__).parent / "cases" / "rule_checker"
ALLOWED_FILES = sorted((CASES / "allowed").glob("*.py"))

ALLOWED_SNIPPETS = {
    "main_guard": 'if __name__ == "__main__":\n    print("ok")',
    "future_and_typing": "from __future__ import annotations\nfrom typing import Iterable\nx: Iterable[int] = []",
    "fstring_repr": 'name = "a b"\nprint(f"{name!r} {len(name):>5} {name.upper()}")',
    "os_path_join": 'import os\nprint(os.path.join("output", "a.txt"), os.sep, os.getcwd())',
    "str_replace_two_args": 'print("a b".replace(" ", "_"), b"x".replace(b"x", b"y"))',
    "separators_as_text": 'parts = "a/b".split("/")\nprint("/".join(parts), "a\\\\b".replace("\\\\", "/"))',
    "ellipsis_text": 'text = "long"\nprint(text[:2] + "...")',
    "strftime_percent": 'import datetime\nprint(datetime.date.today().strftime("%Y%m%d_%H%M%S"))',
    "list_remove": "items = [1, 2]\nitems.remove(1)",
    "re_compile": 'import re\nPATTERN = re.compile(r"^(\\d{4})-(\\d{2})")\nprint(PATTERN.match("2024-01"))',
    "dunder_name_attr": "class A:\n    pass\nprint(A.__name__, type(A()).__name__, A.__doc__)",
    "file_parent": "from pathlib import Path\nprint(Path(__file__).resolve().parent)",
    "base64_struct": 'import base64, struct\nprint(base64.b64encode(struct.pack("<I", 1)))',
    "collections_abc": "from collections.abc import Mapping\nprint(isinstance({}, Mapping))",
    "json_decoder_error": 'import json\ntry:\n    json.loads("x")\nexcept json.decoder.JSONDecodeError:\n    pass',
    "comments_mention_danger": "# never use subprocess, eval or /etc here\nx = 1  # socket? no\n",
    "docstring_mentions_danger": 'def f():\n    """Does not call os.system or open /etc/passwd."""\n    return 1',
    "relative_dot_path": 'from pathlib import Path\nprint(Path("./input/a.txt").exists())',
    "mime_like_strings": 'print("image/jpeg", "2024/01/31", "*.png", "**/*.jpg")',
    "percent_format": 'print("%s: %d files" % ("input", 3))',
    "getattr_literal": 'import sys\nprint(getattr(sys.stdout, "encoding", "utf-8"))',
    "operator_itemgetter": "import operator\nprint(sorted([(2, 1)], key=operator.itemgetter(1)))",
    "attrgetter_literal": 'import operator\nprint(operator.attrgetter("name")(type("x")) if False else 1)'
    .replace('type("x")', "int"),
    "datetime_replace_kwargs": "from datetime import datetime\nprint(datetime.now().replace(microsecond=0))",
    "format_literal": 'print("{} and {name}".format(1, name=2), "{:,}".format(10**6))',
    "os_walk_counts": 'import os\nn = sum(len(f) for _r, _d, f in os.walk("input"))\nprint(n)',
    "random_uuid4": "import random, uuid\nprint(random.choice([1, 2]), uuid.uuid4().hex)",
    "async_def_plain": "async def f():\n    return 1\nprint(f.__name__)",
}

BLOCKED = [
    # network
    ("import socket", "network"),
    ("import urllib.request", "network"),
    ("from http import client", "network"),
    ("import requests", "network"),
    ("import asyncio", "network"),
    ("import logging.handlers", "network"),
    ("import logging\nlogging.config.listen()", "network"),
    ("import xml.sax", "network"),
    ("import email.utils\nemail.utils.make_msgid()", "network"),
    # process
    ("import subprocess", "process"),
    ("import os\nos.system('ls')", "process"),
    ("import os\nos.popen('ls')", "process"),
    ("import os\nos.execv('/bin/sh', [])", "process"),
    ("import os\nos.spawnl(0, 'x')", "process"),
    ("import os\nos.fork()", "process"),
    ("import os\nos.kill(1, 9)", "process"),
    ("import pty", "process"),
    ("import multiprocessing", "process"),
    ("from os import system as s\ns('id')", "process"),
    ("import os as o\no.system('id')", "process"),
    ("help()", "process"),
    ("import uuid\nuuid.uuid1()", "process"),
    ("import tempfile", "process"),
    # dynamic code
    ("eval('1+1')", "dynamic_code"),
    ("exec('x = 1')", "dynamic_code"),
    ("compile('1', 'f', 'eval')", "dynamic_code"),
    ("__import__('os')", "dynamic_code"),
    ("import importlib", "dynamic_code"),
    ("import pickle", "dynamic_code"),
    ("breakpoint()", "dynamic_code"),
    ("C = type('C', (), {})", "dynamic_code"),
    ("import typing\ntyping.get_type_hints(int)", "dynamic_code"),
    ("e = eval\ne('1')", "dynamic_code"),
    ("fns = [eval]\nfns[0]('1')", "dynamic_code"),
    ("def f(x=eval):\n    return x('1')", "dynamic_code"),
    ("@eval\ndef f():\n    pass", "dynamic_code"),
    ("g = lambda: exec", "dynamic_code"),
    ("ｅｖａｌ('1')", "dynamic_code"),  # NFKC-normalised by the parser
    # native code
    ("import ctypes", "native_code"),
    ("import cffi", "native_code"),
    ("import os\nos.add_dll_directory('x')", "native_code"),
    ("import mmap", "native_code"),
    # dunder escapes
    ("x = ().__class__.__bases__[0].__subclasses__()", "dunder_escape"),
    ("def f():\n    pass\nprint(f.__globals__)", "dunder_escape"),
    ("class A:\n    pass\nprint(A().__dict__)", "dunder_escape"),
    ("print(__loader__)", "dunder_escape"),
    ("class A:\n    def __init__(self):\n        self.__init__.__func__", "dunder_escape"),
    ("x = getattr(1, '__class__')", "dunder_escape"),
    ("match 1:\n    case int(__class__=c):\n        pass", "dunder_escape"),
    ("def f():\n    pass\nf.__code__", "dunder_escape"),
    ("x = [].__reduce_ex__(2)", "dunder_escape"),
    # builtins escapes
    ("__builtins__['eval']('1')", "builtins_escape"),
    ("print(globals())", "builtins_escape"),
    ("print(locals())", "builtins_escape"),
    ("print(vars())", "builtins_escape"),
    ("import sys\nsys.modules['os']", "builtins_escape"),
    ("def f():\n    pass\nf.__builtins__", "builtins_escape"),
    # computed attributes
    ("name = 'sys'\nx = getattr(object, name)", "computed_attribute"),
    ("setattr(object(), 'a' + 'b', 1)", "computed_attribute"),
    ("delattr(object(), input())", "computed_attribute"),
    ("import operator\nname = 'x'\noperator.attrgetter(name)", "computed_attribute"),
    # destructive
    ("import os\nos.remove('input/a.txt')", "destructive"),
    ("import os\nos.unlink('input/a.txt')", "destructive"),
    ("import shutil\nshutil.rmtree('input')", "destructive"),
    ("import os\nos.rmdir('input')", "destructive"),
    ("from pathlib import Path\nPath('input/a.txt').unlink()", "destructive"),
    ("from pathlib import Path\nPath('input/a').rename('output/a')", "destructive"),
    ("from pathlib import Path\nPath('input/a').replace('output/a')", "destructive"),
    ("import os\nos.rename('input/a', 'output/a')", "destructive"),
    ("import shutil\nshutil.move('input/a', 'output/a')", "destructive"),
    ("import os\nos.chmod('input/a', 0o777)", "destructive"),
    ("from pathlib import Path\nPath('output/l').symlink_to('input')", "destructive"),
    ("import os\nos.truncate('input/a', 0)", "destructive"),
    ("from pathlib import Path\nkill = Path('input/a').unlink\nkill()", "destructive"),
    ("from shutil import rmtree", "destructive"),
    # paths outside the workspace
    ("open('/etc/passwd')", "path_outside"),
    ("from pathlib import Path\nPath('C:\\\\Users\\\\me')", "path_outside"),
    ("open('D:/data/x.txt')", "path_outside"),
    ("open('\\\\\\\\server\\\\share\\\\x')", "path_outside"),
    ("open('/home/user/.bashrc')", "path_outside"),
    ("open('/usr/lib/x')", "path_outside"),
    ("open('~/.ssh/id_rsa')", "path_outside"),
    ("open('~root/x')", "path_outside"),
    ("open('%USERPROFILE%\\\\Desktop\\\\a.txt')", "path_outside"),
    ("open('$HOME/a.txt')", "path_outside"),
    ("open('../secret.txt')", "path_outside"),
    ("open('input/../../x')", "path_outside"),
    ("name = 'a'\nopen(f'{name}/../../etc/passwd')", "path_outside"),
    ("open(f'/etc/{1}')", "path_outside"),
    ("from pathlib import Path\nPath('/') / 'etc'", "path_outside"),
    ("import os\nos.listdir('/')", "path_outside"),
    ("import os\nos.path.expanduser('x')", "path_outside"),
    ("from pathlib import Path\nPath.home()", "path_outside"),
    ("import os\nos.chdir('input')", "path_outside"),
    ("open(b'/etc/passwd')", "path_outside"),
    ("import zipfile\nzipfile.ZipFile('output/a.zip').extractall(path='/')", "path_outside"),
    ("import os\nos.path.join(os.pardir, 'x')", "path_outside"),
    # imports not on the allowlist
    ("import numpy", "import_not_allowed"),
    ("from . import sibling", "import_not_allowed"),
    ("import tkinter", "import_not_allowed"),
    ("import sys\nsys.path.append('x')", "import_not_allowed"),
    ("import sys\nprint(sys.executable)", "import_not_allowed"),
    # implicitly called dunder methods and metaclasses
    ("class A:\n    def __del__(self):\n        pass", "implicit_dunder"),
    ("class A:\n    def __getattr__(self, name):\n        return 1", "implicit_dunder"),
    ("class A:\n    def __repr__(self):\n        return 'a'", "implicit_dunder"),
    ("class A:\n    def __eq__(self, other):\n        return True", "implicit_dunder"),
    ("def __getattr__(name):\n    return 1", "implicit_dunder"),
    ("class M(object, metaclass=type):\n    pass", "implicit_dunder"),
    ("class A:\n    def __init_subclass__(cls):\n        pass", "implicit_dunder"),
    ("class A:\n    def __class_getitem__(cls, item):\n        pass", "implicit_dunder"),
    ("class A:\n    def __set_name__(self, owner, name):\n        pass", "implicit_dunder"),
    ("class A:\n    def __format__(self, spec):\n        return ''", "implicit_dunder"),
    # format templates
    ("'{0.__class__}'.format(1)", "format_escape"),
    ("def g():\n    yield\n'{0.gi_frame}'.format(g())", "format_escape"),
    ("'{x.__init__.__globals__}'.format_map({'x': 1})", "format_escape"),
    ("t = open('input/t.txt').read()\nprint(t.format(1))", "format_escape"),
    ("import string\nstring.Formatter().format('{0}', 1)", "format_escape"),
    ("from string import Formatter", "format_escape"),
    ("t = input()\nstr.format(t, 1)", "format_escape"),
    ("'{0:{1.__class__}}'.format(1, 2)", "format_escape"),
    ("t = input()\nf = t.format\nf(1)", "format_escape"),
    ("('{0.' + '__class__}').format(1)", "format_escape"),
    # frames, code objects, stacks
    ("def g():\n    yield 1\ng().gi_frame", "frame_escape"),
    ("def g():\n    yield 1\ng().gi_code", "frame_escape"),
    ("async def c():\n    pass\nc().cr_frame", "frame_escape"),
    ("async def a():\n    yield 1\na().ag_frame", "frame_escape"),
    ("import sys\nsys.exc_info()[2].tb_frame.f_back.f_globals", "frame_escape"),
    ("import sys\nsys._getframe()", "frame_escape"),
    ("import inspect", "frame_escape"),
    ("import gc", "frame_escape"),
    ("import traceback\ntraceback.walk_stack(None)", "frame_escape"),
    ("import sys\nsys.settrace(None)", "frame_escape"),
    # aliases, star imports, module objects, re-exports
    ("from os import *", "alias_escape"),
    ("import os as o\nm = o\nm.system('id')", "alias_escape"),
    ("import os\nmods = [os]", "alias_escape"),
    ("import shutil\nshutil.os.remove('x')", "alias_escape"),
    ("import pathlib\npathlib.os", "alias_escape"),
    ("import json\njson.decoder.re.sys", "alias_escape"),
    ("g = getattr\ng(1, 'real')", "alias_escape"),
    ("t = type\nt('C', (), {})", "alias_escape"),
    ("import random\nrandom._os", "alias_escape"),
    ("import uuid\nuuid.platform", "alias_escape"),
    ("import os\ndef f(m=os):\n    pass", "alias_escape"),
    ("import enum\nenum.sys.modules", "alias_escape"),
    ("from operator import attrgetter as ag\nag('x')", "alias_escape"),
    ("import operator\na = operator.attrgetter\na(input())", "alias_escape"),
    # backstops
    ("s = '\\x5f\\x5fimport\\x5f\\x5f'", "regex_backstop"),
    ("s = chr(95) * 2 + 'import' + chr(95) * 2", "regex_backstop"),
    ("s = '__subclasses__'", "regex_backstop"),
    ("s = '\\N{LOW LINE}'", "regex_backstop"),
    # malformed
    ("def f(:\n    pass", "syntax_error"),
    ("x = 1\x00", "syntax_error"),
]


def kinds(report: CheckReport) -> set[str]:
    return {v.kind for v in report.violations}


@pytest.mark.parametrize("path", ALLOWED_FILES, ids=lambda p: p.stem)
def test_realistic_scripts_pass(path: Path) -> None:
    report = check_code(path.read_text(encoding="utf-8"))
    assert report.passed, report.to_json()


@pytest.mark.parametrize("code", list(ALLOWED_SNIPPETS.values()), ids=list(ALLOWED_SNIPPETS))
def test_allowed_snippets_pass(code: str) -> None:
    report = check_code(code)
    assert report.passed, report.to_json()
    assert not report.warnings


@pytest.mark.parametrize(("code", "kind"), BLOCKED, ids=[f"{k}-{i}" for i, (_c, k) in enumerate(BLOCKED)])
def test_blocked_snippets(code: str, kind: str) -> None:
    report = check_code(code)
    assert not report.passed
    assert kind in kinds(report), report.to_json()


def test_table_size() -> None:
    assert len(ALLOWED_FILES) + len(ALLOWED_SNIPPETS) >= 25
    assert len(ALLOWED_FILES) + len(ALLOWED_SNIPPETS) + len(BLOCKED) >= 80
    assert {k for _c, k in BLOCKED} >= {
        "network", "process", "dynamic_code", "native_code", "dunder_escape", "computed_attribute",
        "destructive", "path_outside", "import_not_allowed", "syntax_error", "implicit_dunder",
        "format_escape", "frame_escape", "alias_escape", "builtins_escape", "regex_backstop"}


@pytest.mark.parametrize("kind", [None, "images", "documents", "audio", "video"])
def test_builtin_templates_pass(kind: str | None, tmp_path: Path) -> None:
    from localagent.agent.templates import TemplateChoice, render_template

    choice = TemplateChoice("copy_all") if kind is None else TemplateChoice("copy_kind", kind)
    (tmp_path / "input").mkdir()
    assert check_code(render_template(choice), tmp_path).passed
    assert check_code(render_template(choice)).passed


def test_violation_reports_line_kind_and_chinese_message() -> None:
    report = check_code("import json\n\nimport socket\n")
    assert [(v.line, v.kind) for v in report.violations] == [(3, "network")]
    violation = report.violations[0]
    assert violation.message.startswith("第 3 行：") and "联网" in violation.message
    assert violation.message_en.startswith("line 3:")
    assert report.to_json() == {"passed": False, "warnings": [], "violations": [
        {"line": 3, "kind": "network", "message": violation.message, "detail": "import socket"}]}


def test_every_violation_found_not_only_the_first() -> None:
    code = textwrap.dedent("""\
        import os
        os.system("id")
        eval("1")
        open("/etc/passwd")
    """)
    report = check_code(code)
    assert [(v.line, v.kind) for v in report.violations] == [
        (2, "process"), (3, "dynamic_code"), (4, "path_outside")]


def test_environment_and_input_are_warnings_only() -> None:
    report = check_code('import os\nhome = os.environ.get("LANG")\nname = input()\nos.getenv("X")')
    assert report.passed
    assert [(w.line, w.kind) for w in report.warnings] == [(2, "environment"), (3, "interactive"),
                                                          (4, "environment")]
    assert report.to_json()["warnings"][0]["kind"] == "environment"


def test_too_large() -> None:
    report = check_code("x = 1\n" * (MAX_CODE_BYTES // 6 + 10))
    assert [v.kind for v in report.violations] == ["too_large"]


def test_deep_nesting_fails_closed() -> None:
    report = check_code("x = " + "(" * 300 + "1" + ")" * 300)
    assert not report.passed
    assert kinds(report) <= {"too_large", "syntax_error"}


def test_syntax_error_line() -> None:
    report = check_code("x = 1\ny = (\n")
    assert report.violations[0].kind == "syntax_error"
    assert report.violations[0].line >= 2


class TestWorkspacePaths:
    """With a workspace, absolute and ``..`` literals are resolved with the access policy."""

    @pytest.fixture()
    def ws(self, tmp_path: Path) -> Path:
        root = tmp_path / "ws"
        for name in ("input", "output", "logs"):
            (root / name).mkdir(parents=True)
        (tmp_path / "outside").mkdir()
        return root

    def test_absolute_literal_inside_passes(self, ws: Path) -> None:
        code = f"open({str(ws / 'input' / 'a.txt')!r})\nopen('input/../output/b.txt', 'w')"
        assert check_code(code, ws).passed

    @pytest.mark.parametrize("literal", ["/etc/passwd", "../outside/x", "input/../../outside/x", "~/x",
                                         "C:\\Windows\\win.ini", "\\\\server\\share\\x", "$HOME/x"])
    def test_outside_literals_fail(self, ws: Path, literal: str) -> None:
        report = check_code(f"open({literal!r})", ws)
        assert kinds(report) == {"path_outside"}, report.to_json()

    def test_sibling_with_common_prefix_fails(self, ws: Path) -> None:
        sibling = ws.parent / "ws-evil"
        sibling.mkdir()
        assert not check_code(f"open({str(sibling / 'x')!r})", ws).passed

    def test_symlinked_dir_out_of_workspace_fails(self, ws: Path) -> None:
        (ws / "input" / "link").symlink_to(ws.parent / "outside")
        assert not check_code(f"open({str(ws / 'input' / 'link' / 'x')!r})", ws).passed


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=300))
def test_never_raises_on_any_text(code: str) -> None:
    report = check_code(code)
    assert isinstance(report, CheckReport)
    assert report.passed == (not report.violations)
