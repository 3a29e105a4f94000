"""Tables behind the static check of generated Python (seed 000 "安全边界策略" §1, issue 2 part 8).

Deny by default: a module is importable only when listed in :data:`ALLOWED_MODULES`; for ``os`` and
``sys`` only the listed members may be used; for the other allowed modules a few members are forbidden
(:data:`MODULE_FORBIDDEN`). Some attribute names are forbidden on *any* object because the checker
cannot know the object's type (``.unlink()``, ``.gi_frame``, ``.os`` …). The runtime guard
(``executor/path_guard.py``) and the sandbox stop what a static check cannot see.

Decisions recorded here:

* Renaming and moving (``os.rename``, ``os.replace``, ``shutil.move``, ``Path.rename``,
  ``Path.replace``) are blocked as ``destructive``: they can take an original away. Copying into
  ``output/`` under the final name is the way.
* Writing (``open(..., "w")``, ``write_text``, copy destinations …) is allowed into ``output/`` and
  ``logs/`` only. A write whose target is spelled out with literals and lies elsewhere (``input/``, the
  workspace root, ``.git``) is ``write_outside_output``; a path naming a sensitive file or a protected folder
  (``.env``, ``.ssh/``, ``.git/config``) is ``sensitive_path`` (``safety/path_uses.py``). Computed targets
  are confined at run time.
* ``os.environ`` / ``os.getenv`` are warnings, not violations: the child environment is built from an
  allowlist, so no secret is reachable, but reading it is unusual for file code.
* ``__name__``, ``__file__`` and ``__doc__`` may be read (``if __name__ == "__main__":``,
  ``Path(__file__).parent``); ``.__name__`` / ``.__doc__`` / ``.__qualname__`` hold strings only.
  Every other dunder is blocked. In a class only ``__init__`` and ``__post_init__`` may be defined:
  other dunder methods run implicitly (printing, formatting, comparing, attribute lookup, garbage
  collection at shutdown), which hides when code runs; dataclasses generate ``__repr__``/``__eq__``.
* ``threading``, ``tempfile``, ``platform``, ``sqlite3`` (loads extensions), ``pickle`` are denied.
"""

from __future__ import annotations

import functools
import importlib
import types

ALLOWED_MODULES = frozenset({
    "__future__", "abc", "argparse", "array", "base64", "binascii", "bisect", "bz2", "calendar", "cmath",
    "codecs", "collections", "collections.abc", "colorsys", "configparser", "contextlib", "copy", "csv",
    "dataclasses", "datetime", "decimal", "difflib", "email", "email.header", "email.message",
    "email.parser", "email.policy", "email.utils", "enum", "errno", "filecmp", "fnmatch", "fractions",
    "functools", "glob", "gzip", "hashlib", "heapq", "hmac", "html", "html.entities", "html.parser", "io",
    "itertools", "json", "locale", "logging", "lzma", "math", "mimetypes", "numbers", "operator", "os",
    "os.path", "pathlib", "pprint", "random", "re", "secrets", "shutil", "stat", "statistics", "string",
    "struct", "sys", "tarfile", "textwrap", "time", "tomllib", "traceback", "typing", "unicodedata", "uuid",
    "warnings", "wave", "xml", "xml.dom", "xml.dom.minidom", "xml.etree", "xml.etree.ElementTree", "zipfile",
    "zlib", "zoneinfo",
})

# Kinds for modules that are not allowed, so metrics can count network / process / … apart.
_NETWORK_MODULES = frozenset({
    "socket", "_socket", "ssl", "select", "selectors", "http", "urllib", "urllib3", "ftplib", "smtplib",
    "poplib", "imaplib", "nntplib", "telnetlib", "socketserver", "xmlrpc", "requests", "httpx", "aiohttp",
    "websocket", "websockets", "webbrowser", "asyncio", "paramiko", "pycurl", "mailbox", "wsgiref",
})
_PROCESS_MODULES = frozenset({
    "subprocess", "_posixsubprocess", "pty", "multiprocessing", "_multiprocessing", "concurrent",
    "threading", "_thread", "signal", "platform", "pipes", "sched", "posix", "nt", "_winapi", "msvcrt",
    "winreg", "pwd", "grp", "resource", "fcntl", "termios", "tty", "sysconfig", "site", "tempfile",
    "sqlite3", "shelve", "dbm", "atexit", "faulthandler", "tracemalloc",
})
_NATIVE_MODULES = frozenset({"ctypes", "_ctypes", "cffi", "mmap", "_ctypes_test"})
_DYNAMIC_MODULES = frozenset({
    "importlib", "_imp", "imp", "zipimport", "pkgutil", "runpy", "code", "codeop", "pdb", "bdb", "timeit",
    "doctest", "pickle", "_pickle", "cPickle", "marshal", "copyreg", "dill", "cloudpickle", "ast",
    "unittest", "pydoc", "compileall", "py_compile", "symtable", "dis", "trace", "profile", "cProfile",
})
_BUILTINS_MODULES = frozenset({"builtins", "__builtin__", "__main__"})
_FRAME_MODULES = frozenset({"inspect", "gc", "types", "weakref", "linecache", "tokenize"})

# Attribute names that are module objects re-exported by other modules (``shutil.os``,
# ``json.decoder.re.sys``). Reaching them from anything is an ``alias_escape``.
MODULE_REEXPORT_ATTRS = (
    frozenset(m for group in (_NETWORK_MODULES, _PROCESS_MODULES, _NATIVE_MODULES, _DYNAMIC_MODULES,
                              _BUILTINS_MODULES, _FRAME_MODULES) for m in group if "." not in m)
    - {"code", "select", "site", "trace", "profile", "signal", "resource", "platform"}  # common attribute names
) | {"os", "sys", "_os", "_sys", "posixpath", "ntpath", "genericpath", "_io", "_signal", "_weakref"}

# os: only these members (deny by default).
OS_ALLOWED = frozenset({
    "path", "sep", "altsep", "extsep", "pathsep", "linesep", "curdir", "devnull", "name",
    "walk", "listdir", "scandir", "stat", "lstat", "fstat", "stat_result", "DirEntry", "PathLike",
    "fspath", "fsencode", "fsdecode", "makedirs", "mkdir", "getcwd", "getcwdb", "utime", "cpu_count",
    "urandom", "getpid", "get_terminal_size", "terminal_size", "strerror", "error", "access", "F_OK",
    "R_OK", "W_OK", "X_OK", "SEEK_SET", "SEEK_CUR", "SEEK_END", "open", "fdopen", "close", "read", "write",
    "lseek", "fsync", "isatty", "O_RDONLY", "O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_TRUNC",
    "O_APPEND", "O_BINARY", "times", "getenv", "environ", "supports_follow_symlinks",
})
# sys: only these members. sys.modules, sys.path, sys._getframe, sys.settrace … stay out.
SYS_ALLOWED = frozenset({
    "argv", "exit", "stdout", "stderr", "stdin", "platform", "version", "version_info", "maxsize",
    "maxunicode", "byteorder", "getfilesystemencoding", "getdefaultencoding", "float_info", "int_info",
    "exc_info", "exception", "getsizeof", "getrecursionlimit", "setrecursionlimit", "flags",
    "hexversion", "implementation",
})
# Other allowed modules: members that are forbidden, with their kind.
MODULE_FORBIDDEN: dict[str, dict[str, str]] = {
    "os.path": {"expanduser": "path_outside", "expandvars": "path_outside", "pardir": "path_outside"},
    "shutil": {"rmtree": "destructive", "move": "destructive", "chown": "destructive"},
    "pathlib": {},
    "string": {"Formatter": "format_escape"},
    "typing": {"get_type_hints": "dynamic_code", "ForwardRef": "dynamic_code",
               "evaluate_forward_ref": "dynamic_code"},
    "uuid": {"uuid1": "process", "getnode": "process"},
    "traceback": {"walk_stack": "frame_escape", "walk_tb": "frame_escape", "clear_frames": "frame_escape"},
    "logging": {"config": "network", "handlers": "network"},
    "operator": {},
    "xml": {"sax": "network"},  # xml.sax fetches URLs (saxutils.prepare_input_source)
    "xml.dom": {"pulldom": "network", "xmlbuilder": "network"},  # both reach xml.sax / urllib
    "email.utils": {"make_msgid": "network"},  # socket.getfqdn(): a DNS lookup
}

_OS_KIND_PREFIXES = (
    ("exec", "process"), ("spawn", "process"), ("fork", "process"), ("kill", "process"),
    ("posix_spawn", "process"), ("wait", "process"), ("popen", "process"), ("system", "process"),
    ("startfile", "process"), ("putenv", "process"), ("unsetenv", "process"), ("set", "process"),
    ("nice", "process"), ("abort", "process"), ("pidfd", "process"), ("register_at_fork", "process"),
    ("remove", "destructive"), ("unlink", "destructive"), ("rmdir", "destructive"), ("rename", "destructive"),
    ("replace", "destructive"), ("chmod", "destructive"), ("lchmod", "destructive"), ("fchmod", "destructive"),
    ("chown", "destructive"), ("lchown", "destructive"), ("fchown", "destructive"), ("symlink", "destructive"),
    ("link", "destructive"), ("truncate", "destructive"), ("ftruncate", "destructive"),
    ("chflags", "destructive"), ("mkfifo", "destructive"), ("mknod", "destructive"),
    ("removexattr", "destructive"), ("add_dll_directory", "native_code"), ("memfd", "native_code"),
    ("chdir", "path_outside"), ("fchdir", "path_outside"), ("chroot", "path_outside"),
    ("pardir", "path_outside"),
)

# Attribute names forbidden on any object, by kind.
FRAME_ATTRS = frozenset({
    "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "cr_await", "cr_origin", "ag_frame",
    "ag_code", "ag_await", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace", "tb_frame",
    "tb_next", "co_code", "co_consts", "co_names", "func_globals", "func_code", "func_closure", "im_func",
    "im_self", "_getframe", "settrace", "setprofile", "addaudithook", "cell_contents",
})
GENERIC_FORBIDDEN_ATTRS: dict[str, str] = {
    "unlink": "destructive", "rmdir": "destructive", "rename": "destructive", "chmod": "destructive",
    "lchmod": "destructive", "symlink_to": "destructive", "hardlink_to": "destructive",
    "link_to": "destructive", "rmtree": "destructive", "removedirs": "destructive",
    "home": "path_outside", "expanduser": "path_outside", "expandvars": "path_outside",
    "system": "process", "popen": "process", "startfile": "process",
    "Formatter": "format_escape",
}
GENERIC_WARNING_ATTRS: dict[str, str] = {"environ": "environment", "getenv": "environment"}

# Builtins whose mere mention (call, alias, list item, default, decorator) is a violation.
FORBIDDEN_BUILTINS: dict[str, str] = {
    "eval": "dynamic_code", "exec": "dynamic_code", "compile": "dynamic_code", "__import__": "dynamic_code",
    "breakpoint": "dynamic_code", "help": "process", "globals": "builtins_escape",
    "locals": "builtins_escape", "vars": "builtins_escape",
}
# Builtins allowed only when called with a literal attribute name.
ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
# operator helpers that look attributes up by (dotted) name.
ATTRIBUTE_HELPERS = frozenset({"attrgetter", "methodcaller"})
WARNING_BUILTINS: dict[str, str] = {"input": "interactive"}

ALLOWED_DUNDER_NAMES = frozenset({"__name__", "__file__", "__doc__", "__all__", "__slots__", "__debug__"})
ALLOWED_DUNDER_ATTRS = frozenset({"__name__", "__doc__", "__qualname__"})
ALLOWED_SUPER_DUNDERS = frozenset({"__init__", "__post_init__"})
ALLOWED_DUNDER_METHODS = frozenset({"__init__", "__post_init__"})
# Dunder words no file-processing string needs; a string holding one is flagged as a backstop.
DANGEROUS_DUNDER_WORDS = frozenset({
    "__import__", "__builtins__", "__subclasses__", "__globals__", "__code__", "__class__", "__bases__",
    "__base__", "__mro__", "__dict__", "__getattribute__", "__reduce__", "__reduce_ex__", "__loader__",
    "__spec__", "__closure__", "__func__", "__self__", "__init_subclass__", "__build_class__",
})
# String methods whose literal arguments are separators or fragments, not paths.
STR_METHODS = frozenset({
    "split", "rsplit", "join", "replace", "strip", "lstrip", "rstrip", "startswith", "endswith", "count",
    "find", "rfind", "index", "rindex", "partition", "rpartition", "removeprefix", "removesuffix",
    "splitlines", "encode", "decode", "translate", "maketrans", "sub", "subn", "match", "search",
    "fullmatch", "findall", "finditer", "compile", "strftime", "strptime", "print", "write", "info",
    "warning", "error", "debug", "exception", "append", "get", "setdefault", "len", "str", "add",
})

MESSAGES: dict[str, tuple[str, str]] = {
    "network": ("禁止联网：{detail}（执行器不允许联网）", "network access is forbidden: {detail} (no network in the executor)"),
    "process": ("禁止启动进程或改动进程环境：{detail}", "starting processes or changing the process is forbidden: {detail}"),
    "dynamic_code": ("禁止动态执行代码：{detail}", "dynamic code execution is forbidden: {detail}"),
    "native_code": ("禁止调用本地代码：{detail}", "native code is forbidden: {detail}"),
    "dunder_escape": ("禁止访问双下划线属性：{detail}（可绕过沙箱）", "dunder access is forbidden: {detail} (sandbox escape)"),
    "computed_attribute": ("禁止用计算出的名字访问属性：{detail}", "attribute access by computed name is forbidden: {detail}"),
    "destructive": ("禁止删除、移动、重命名或改权限：{detail}（原文件不能被改动，请复制到 output）",
                    "deleting, moving, renaming or chmod is forbidden: {detail} (copy into output instead)"),
    "path_outside": ("禁止访问工作区之外的路径：{detail}", "paths outside the workspace are forbidden: {detail}"),
    "sensitive_path": ("禁止访问敏感文件或受保护的文件夹：{detail}（密钥、凭据、.env、.git、.localagent 不归任务使用）",
                       "sensitive files and protected folders are off limits: {detail} (keys, credentials, .env, "
                       ".git, .localagent)"),
    "write_outside_output": ("只能写入 output/（或 logs/）：{detail}（input/ 里的原文件、工作区根目录和 .git 都不能写）",
                             "writes go only into output/ (or logs/): {detail} (originals in input/, the workspace "
                             "root and .git are never written)"),
    "import_not_allowed": ("不在允许列表中：{detail}（只允许处理文件所需的标准库）",
                           "not on the allowlist: {detail} (only the stdlib needed for file work)"),
    "syntax_error": ("代码有语法错误：{detail}", "syntax error: {detail}"),
    "implicit_dunder": ("禁止定义会被解释器隐式调用的方法或元类：{detail}",
                        "defining implicitly called methods or metaclasses is forbidden: {detail}"),
    "format_escape": ("禁止在格式模板中访问属性：{detail}", "attribute lookups in format templates are forbidden: {detail}"),
    "frame_escape": ("禁止访问帧、代码对象或调用栈：{detail}", "frame, code object or stack access is forbidden: {detail}"),
    "alias_escape": ("禁止通过别名、星号导入或模块对象间接使用：{detail}",
                     "indirect use through aliases, star imports or module objects is forbidden: {detail}"),
    "builtins_escape": ("禁止访问内置命名空间：{detail}", "access to the builtins namespace is forbidden: {detail}"),
    "regex_backstop": ("可疑写法（兜底规则）：{detail}", "suspicious construct (backstop rule): {detail}"),
    "too_large": ("代码过大或嵌套过深：{detail}", "code too large or too deeply nested: {detail}"),
    "environment": ("读取环境变量：{detail}（子进程环境已清理，仅提示）",
                    "reads environment variables: {detail} (the child env is scrubbed; warning only)"),
    "interactive": ("等待键盘输入：{detail}（任务无人值守运行，仅提示）",
                    "waits for keyboard input: {detail} (tasks run unattended; warning only)"),
}


def is_dunder(name: str) -> bool:
    """Return True for names like ``__x__`` (at least one character between the underscores)."""
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def module_kind(module: str) -> str:
    """Return the violation kind for importing ``module`` (a dotted name), or ``""`` when allowed.

    A dotted name is allowed when it is listed, or when its parent is allowed and it is not a forbidden
    member of the parent (``json.decoder`` yes, ``logging.handlers`` no).

    Args:
        module: a dotted module name such as ``"os.path"`` or ``"urllib.request"``.

    Returns:
        ``""`` when allowed; otherwise ``network``, ``process``, ``native_code``, ``dynamic_code``,
        ``builtins_escape``, ``frame_escape`` or ``import_not_allowed`` (seed 000 §1 categories).
    """
    if module in ALLOWED_MODULES:
        return ""
    parent, _, last = module.rpartition(".")
    if parent and not module_kind(parent) and last and not last.startswith("_"):
        return member_kind(parent, last)
    top = module.split(".")[0]
    for group, kind in ((_NETWORK_MODULES, "network"), (_PROCESS_MODULES, "process"),
                        (_NATIVE_MODULES, "native_code"), (_DYNAMIC_MODULES, "dynamic_code"),
                        (_BUILTINS_MODULES, "builtins_escape"), (_FRAME_MODULES, "frame_escape")):
        if top in group or module in group:
            return kind
    return "import_not_allowed"


@functools.lru_cache(maxsize=256)
def load_allowed(module: str) -> types.ModuleType | None:
    """Import an allowed stdlib module to look at its members; ``None`` when not allowed or missing."""
    if module_kind(module):
        return None
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def resolve_member(module: str, attr: str) -> tuple[str, str | None]:
    """Judge ``module.attr`` and say whether it is itself a module.

    Args:
        module: an allowed dotted module name.
        attr: the member name.

    Returns:
        ``(kind, submodule)``: ``kind`` is ``""`` when allowed; ``submodule`` is the dotted name of the
        module ``module.attr`` holds (``"os.path"``, ``"json.decoder"``) or ``None``. A member that is a
        module outside the allowlist (``uuid.platform``, ``shutil.os``) gives ``alias_escape``.
    """
    kind = member_kind(module, attr)
    if kind:
        return kind, None
    dotted = f"{module}.{attr}"
    if dotted in ALLOWED_MODULES:
        return "", dotted
    value = getattr(load_allowed(module), attr, None)
    if value is None and not module_kind(dotted):
        value = load_allowed(dotted)
    if isinstance(value, types.ModuleType):
        name = value.__name__
        if name.startswith(module + ".") and not module_kind(name):
            return "", name
        return ("", name) if name in ALLOWED_MODULES else ("alias_escape", None)
    return "", None


def member_kind(module: str, attr: str) -> str:
    """Return the violation kind for using ``module.attr``, or ``""`` when allowed.

    Args:
        module: an allowed dotted module name (``"os"``, ``"shutil"``, ``"os.path"``).
        attr: the member name.

    Returns:
        A kind string, ``""`` when the member may be used. Private members (``_x``) of any module
        are refused (``random._os``, ``os._exit``). For ``os``/``sys`` anything not listed is refused.
    """
    if is_dunder(attr):
        return ""  # judged by the dunder rule
    if attr.startswith("_"):
        return "alias_escape"
    if module == "os":
        if attr in OS_ALLOWED:
            return ""
        for prefix, kind in _OS_KIND_PREFIXES:
            if attr.startswith(prefix):
                return kind
        return "import_not_allowed"
    if module == "sys":
        if attr in SYS_ALLOWED:
            return ""
        if attr in FRAME_ATTRS:
            return "frame_escape"
        return "builtins_escape" if attr in {"modules", "builtin_module_names"} else "import_not_allowed"
    return MODULE_FORBIDDEN.get(module, {}).get(attr, "")


def attribute_kind(attr: str) -> str:
    """Return the violation kind for the attribute name ``attr`` on an object of unknown type.

    Args:
        attr: the attribute name as written (already NFKC-normalised by the parser).

    Returns:
        ``""`` when harmless, else ``dunder_escape``, ``builtins_escape``, ``frame_escape``,
        ``alias_escape`` (a module re-exported by another module), ``destructive``, ``process``,
        ``path_outside`` or ``format_escape``.
    """
    if is_dunder(attr):
        if attr in ALLOWED_DUNDER_ATTRS:
            return ""
        return "builtins_escape" if attr == "__builtins__" else "dunder_escape"
    if attr in FRAME_ATTRS:
        return "frame_escape"
    if attr in MODULE_REEXPORT_ATTRS:
        return "alias_escape"
    return GENERIC_FORBIDDEN_ATTRS.get(attr, "")


def message_for(kind: str, line: int, detail: str) -> tuple[str, str]:
    """Return the Chinese and English explanation of a violation on ``line`` (1-based)."""
    zh, en = MESSAGES.get(kind, ("{detail}", "{detail}"))
    return (f"第 {line} 行：" + zh.format(detail=detail), f"line {line}: " + en.format(detail=detail))
