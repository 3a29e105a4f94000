"""Runtime guard installed in a task's child process before its code runs (issue 2 part 10).

Seed 000 P0 §2 "运行时硬隔离": file access outside the workspace, network
modules and dangerous calls are stopped at run time with ``PermissionError`` /
``ImportError``. This module does it with a PEP 578 audit hook
(``sys.addaudithook``), which sees every ``open``, directory listing, rename,
socket, process and ``ctypes`` operation and every first import of a module,
whatever name or alias the code reached it through.

What it allows (everything else in its event tables is denied):

- writing (``open`` with w/a/x/+, ``os.open`` with write flags, ``mkdir``) only
  under ``<ws>/output/`` and ``<ws>/logs/``, never a LocalAgent product file in
  ``logs/`` (``task_*``, ``security_metrics.json*``, ``localagent.log*``:
  :func:`guard_names.is_product_log_name`); changing or removing files (remove,
  rename, chmod, utime…) only under ``output/``; links and ``shutil.rmtree`` never;
- reading and listing inside the workspace, except *secret* paths: a sensitive file
  name, a credential folder or a protected folder (``.env``, ``id_rsa``, ``.ssh/``,
  ``.git/``, ``.localagent/``…) anywhere below the root, by the one policy's name rules
  (:mod:`localagent.executor.guard_names` over :mod:`localagent.workspace.pathnames`:
  NFKC, casefolded); a folder holding them may be listed, a credential or protected
  folder may not; secret names are not written either;
- reading the library folders the interpreter imports from (stdlib, site-packages), a
  few harmless data files (``/dev/null``, mime.types, zoneinfo) and the guard's own
  source files (tracebacks read them); ``/etc/passwd`` and ``~/.ssh`` are denied;
- no sockets, no new processes, no ``ctypes``, no sub-interpreters, no walking
  the garbage collector, and no import of :data:`FORBIDDEN_MODULES`.

``exec``/``eval``/``compile`` are not denied here: imports and the standard
library (``namedtuple``, ``dataclasses``) use them, the rule checker refuses them
in task code, and code they run is still under this hook.

Tamper resistance: an audit hook cannot be removed. The hook and every helper it
calls are copies bound to private globals dicts with snapshots of ``builtins``,
``os``, ``os.path`` and the name rules taken at install time
(:mod:`localagent.executor.guard_freeze`), so patching ``builtins.open``,
``os.lstat``, ``os.path.realpath`` or this module's attributes from task code changes
nothing. Task objects passed to audited calls are inspected with ``type()`` only, so
no task-defined method (``__class__``, ``__eq__``, ``__str__``) runs inside the hook.
The traceback entry of a denial refuses ``tb_frame`` (the hook's frame holds its
globals); reading ``tb_frame`` of the entry before it cuts the chain there, so
``traceback.print_exc()`` and ``logging.exception`` work and end at the task's line.
Limit, by nature of an in-process hook: Python code that runs *during* the hook
(a ``__del__`` or weakref callback run by a garbage collection the hook's own
allocations trigger, a signal handler) can walk ``f_back`` into the hook's frame.
The rule checker refuses those constructs (implicit dunders, ``gc``, frame access)
statically, and under bubblewrap the OS layer holds regardless. Each denial appends
one JSON line ``{"category", "event", "detail"}`` to an interceptions file opened
before the hook was installed. Containment is checked here with those frozen
functions rather than with ``localagent.workspace.policy`` (which uses ``pathlib``,
patchable from task code); the rule is the same: resolved paths compared component
by component.

Resolving a path is the hook's main cost (one ``lstat`` per component in
``os.path.realpath``). :func:`_fast_realpath` gives the same answer with fewer
calls: folders the task cannot change (everything but what lies inside ``output/``
and ``logs/``; see :func:`_is_stable_dir`) are proved symlink-free once and
remembered, and only the names below them are ``lstat``-ed on each event; a ``..``
or any symlink on the way sends the path to ``realpath`` itself.

A relative path with ``dir_fd=`` cannot escape: directories cannot be opened as
file descriptors, ``mkdir``/``remove``/``rename`` with ``dir_fd`` are refused, and
``chdir`` stays inside the workspace.
"""

from __future__ import annotations

import builtins
import errno
import os
import sys
import types
from collections.abc import Callable, Iterable
from json.encoder import encode_basestring_ascii as _json_str
from typing import NamedTuple

from localagent.executor import guard_freeze, guard_names

#: The categories an interception is recorded under (security metrics, issue 2 part 12).
CATEGORIES = ("path", "network", "process", "native", "import", "destructive")

#: Modules the task may not import (top-level name or dotted prefix). Also removed from
#: ``sys.modules`` at install so that a later import must pass the hook.
FORBIDDEN_MODULES: frozenset[str] = frozenset({
    "socket", "_socket", "ssl", "_ssl", "socketserver", "asyncio", "_asyncio", "select", "selectors",
    "subprocess", "_posixsubprocess", "multiprocessing", "_multiprocessing", "_posixshmem", "pty",
    "ctypes", "_ctypes", "cffi", "_cffi_backend", "urllib.request", "http.client", "http.server",
    "ftplib", "smtplib", "poplib", "imaplib", "nntplib", "telnetlib", "xmlrpc", "webbrowser",
    "requests", "urllib3", "httpx", "aiohttp", "websocket", "websockets", "paramiko", "pycurl",
    "sqlite3", "_sqlite3", "dbm", "_dbm", "_gdbm", "shelve", "readline", "tkinter", "_tkinter", "turtle",
    "signal", "_signal",  # a handler runs task code inside the hook (see guard_freeze)
    "idlelib", "_xxsubinterpreters", "_xxinterpchannels", "_interpreters", "_interpchannels", "_interpqueues",
    "ensurepip", "venv", "pip", "_winapi", "winreg", "msvcrt", "_overlapped",
})

_DENIED_EVENTS: dict[str, str] = {
    **dict.fromkeys(("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
                     "os.forkpty", "pty.spawn", "os.startfile", "os.kill", "os.killpg", "signal.pthread_kill",
                     "_winapi.CreateProcess", "os.popen"), "process"),
    **dict.fromkeys(("http.client.connect", "urllib.Request", "ftplib.connect", "smtplib.connect",
                     "poplib.connect", "imaplib.open", "nntplib.connect", "telnetlib.Telnet.open",
                     "webbrowser.open", "sqlite3.connect"), "network"),
    **dict.fromkeys(("gc.get_objects", "gc.get_referrers", "gc.get_referents", "sys._current_frames",
                     "cpython.PyInterpreterState_New", "os.add_dll_directory", "sys.setprofile",
                     "sys.settrace"), "native"),
    **dict.fromkeys(("os.link", "os.symlink", "shutil.rmtree"), "destructive"),
}
_DENIED_PREFIXES = (("socket.", "network"), ("ctypes.", "native"), ("winreg.", "native"))
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC


class GuardConfig(NamedTuple):
    """Resolved absolute paths the guard compares against (strings, as ``os.path.realpath`` gives them).

    Immutable. A named tuple rather than a frozen dataclass: ``dataclasses`` would add
    about 8 ms to every task's start (it imports ``inspect``), and this module is
    imported in each task's child.

    Attributes:
        workspace, output, logs, input: the workspace root and its three folders.
        read_roots: library folders that may be read and listed (stdlib, site-packages).
        read_files: single files that may be read (``/dev/null``, mime.types…).
        protected_paths: files never opened by the task (the interceptions file).
        protected_fd: the interceptions file descriptor (``-1`` if none).
        inner_libraries: the read roots that lie inside the workspace (a project's ``.venv``);
            their files are not judged by name (the standard library has ``secrets.py``).
    """

    workspace: str
    output: str
    logs: str
    input: str
    read_roots: tuple[str, ...] = ()
    read_files: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = ()
    protected_fd: int = -1
    inner_libraries: tuple[str, ...] = ()


def make_config(workspace: str | os.PathLike[str], *, protected_paths: Iterable[str | os.PathLike[str]] = (),
                protected_fd: int = -1, read_files: Iterable[str | os.PathLike[str]] = ()) -> GuardConfig:
    """Build the guard's configuration for a workspace, in the current interpreter.

    Args:
        workspace: the workspace root; ``input/``, ``output/`` and ``logs/`` are its children.
        protected_paths: files the task may never open (the interceptions file).
        protected_fd: the already-open interceptions file descriptor, or ``-1``.
        read_files: more single files the task may read (its own code file, for tracebacks).

    Returns:
        A :class:`GuardConfig` whose read roots are this interpreter's library
        folders (``sysconfig`` stdlib and site-packages paths, zoneinfo). Other
        ``sys.path`` entries are left out on purpose: an editable install's ``.pth``
        can point at a source tree that holds ``.env``. The guard's own source files
        are readable one by one, so that printing a traceback through a denial
        reads them without being recorded as another interception.
    """
    import sysconfig

    root = os.path.realpath(workspace)
    libraries = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    libraries.update(d for d in (sysconfig.get_config_var("TZPATH") or "").split(os.pathsep) if os.path.isdir(d))
    read_roots = tuple(sorted({os.path.realpath(p) for p in libraries} - {os.path.realpath(os.sep)}))
    return GuardConfig(
        workspace=root, output=os.path.join(root, "output"), logs=os.path.join(root, "logs"),
        input=os.path.join(root, "input"), read_roots=read_roots, read_files=_harmless_files(read_files),
        protected_paths=tuple(os.path.realpath(p) for p in protected_paths), protected_fd=protected_fd,
        inner_libraries=tuple(r for r in read_roots if _within(r, root) and r != root))


def _harmless_files(extra: Iterable[str | os.PathLike[str]]) -> tuple[str, ...]:
    import mimetypes

    from localagent.workspace import pathnames

    guard_sources = [__file__, guard_names.__file__, pathnames.__file__,
                     os.path.join(os.path.dirname(__file__), "guard_bootstrap.py")]
    files = [os.devnull, "/dev/urandom", "/dev/random", sys.executable, *mimetypes.knownfiles, *guard_sources, *extra]
    return tuple(sorted({os.path.realpath(f) for f in files}))


# --- the decision, as pure functions (copied into a private namespace by _frozen_env) --------------------------
# Task objects reach the hook (``open(obj)``, ``sys.audit(...)``): they are only tested with ``type()`` and
# ``issubclass`` and converted with unbound ``str``/``bytes``/``int`` methods. ``isinstance``, ``==``, ``str()``
# or an f-string would run the task's ``__class__``/``__eq__``/``__str__`` inside the hook, whose frame holds
# the guard's globals.

def _is(value: object, kind: type) -> bool:
    return issubclass(type(value), kind)


def _as_int(value: object) -> int:
    return int.__add__(0, value)  # an exact int, whatever int subclass the task passed


def _no_dir_fd(dir_fd: object) -> bool:
    return dir_fd is None or (_is(dir_fd, int) and _as_int(dir_fd) == -1)


def _within(path: str, root: str) -> bool:
    if not root:
        return False
    path, root = _normcase(path), _normcase(root)
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path == root or path.startswith(prefix)


def _resolve(path: object) -> str:
    if _is(path, bytes):  # unbound methods: a str/bytes subclass cannot lie about its value
        path = bytes.decode(path, _FS_ENCODING, "surrogateescape")
    if not _is(path, str):
        raise TypeError("path")
    return _fast_realpath(str.__add__("", path))


def _fast_realpath(path: str) -> str:
    """Return exactly ``os.path.realpath(path)``, with fewer system calls (POSIX; see :func:`_is_stable_dir`).

    A path with ``..`` or a symlink anywhere on it goes to ``realpath`` itself. Otherwise
    ``realpath`` would return the path as written (cleaned), and what is left to prove is
    that no component is a symlink: each one is ``lstat``-ed, except the leading folders
    already proved *stable* (a real folder the task cannot change, kept in ``_STABLE_DIRS``;
    only clean real paths are ever put there).
    """
    if _STABLE_DIRS is None:  # not frozen, or not POSIX: no shortcut
        return _realpath(path)
    if not path.startswith("/"):
        path = os.getcwd() + "/" + path  # getcwd() gives a resolved path, as realpath's abspath uses
    head, names = path, []
    for _step in range(4):  # the common case: a proved folder at most four names up
        head, _sep, name = head.rpartition("/")
        if name in ("", ".", ".."):
            break
        names.append(name)
        if head in _STABLE_DIRS:
            return _walk_names(head, reversed(names), path)
    parts = path.split("/")
    if ".." in parts:
        return _realpath(path)
    return _walk_names("", (name for name in parts if name and name != "."), path) or "/"


def _walk_names(real: str, names: Iterable[str], path: str) -> str:
    """Append ``names`` to the real folder ``real``, ``lstat``-ing each one not proved before.

    Returns the real path, or ``realpath(path)`` as soon as a symlink is met.
    """
    for name in names:
        real = real + "/" + name
        if real in _STABLE_DIRS:
            continue
        try:
            kind = os.lstat(real).st_mode & 0o170000
        except OSError:  # missing or unreachable: realpath keeps the name as written (ValueError propagates)
            continue
        if kind == 0o120000:  # a symlink: let realpath follow it
            return _realpath(path)
        if kind == 0o040000 and _is_stable_dir(real):
            if len(_STABLE_DIRS) >= 20000:
                _STABLE_DIRS.clear()
            _STABLE_DIRS.add(real)
    return real


def _is_stable_dir(real: str) -> bool:
    """Return whether a real folder (no symlink on its path) keeps that path for the whole run.

    The task changes the file system only through audited calls. The guard lets it create
    entries only inside ``output/`` and ``logs/``, rename and remove them only inside
    ``output/``, never remove ``output/`` itself, and never make a link (``os.symlink`` and
    ``os.link`` are denied); a rename of ``output/`` into itself fails in the kernel, and
    under bwrap ``output/`` and ``logs/`` are mount points. So every real folder other than
    those strictly inside ``output/`` or ``logs/`` cannot be replaced by a symlink or
    moved by the task, in bwrap and in guard-only mode alike. Folders inside them are
    ``lstat``-ed on every event (a symlink renamed into ``output/`` is seen at once).
    Outside processes changing the workspace during a run are not in this guard's model,
    as they are not for any check-then-use path test.
    """
    for volatile in _VOLATILE_DIRS:
        if real.startswith(volatile + "/"):
            return False
    return True


def _any_within(path: str, roots: tuple[str, ...]) -> bool:
    for root in roots:
        if _within(path, root):
            return True
    return False


def _secret(c: GuardConfig, real: str, *, listing: bool = False) -> bool:
    """Return whether a resolved path is a secret below the workspace root (see :mod:`guard_names`)."""
    if not _within(real, c.workspace) or _normcase(real) == _normcase(c.workspace):
        return False
    if c.inner_libraries and _any_within(real, c.inner_libraries):
        return False
    return _is_secret_parts(real[len(c.workspace):].strip(os.sep).split(os.sep), listing=listing)


def _readable(c: GuardConfig, path: object, *, listing: bool = False) -> bool:
    if _is(path, int):
        return _as_int(path) != c.protected_fd
    return _readable_real(c, _resolve("." if path is None else path), listing=listing)


def _readable_real(c: GuardConfig, real: str, *, listing: bool = False) -> bool:
    if real in c.protected_paths:
        return False
    if real in c.read_files:
        return True
    if _within(real, c.workspace):
        return not _secret(c, real, listing=listing)
    return _any_within(real, c.read_roots)


def _writable(c: GuardConfig, real: str) -> bool:
    if real == _DEVNULL_REAL:
        return True
    if _within(real, c.logs):
        if _is_product_log_name(real.rsplit(os.sep, 1)[-1]):
            return False
    elif not _within(real, c.output):
        return False
    return not _secret(c, real)


def _check_open(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    path, mode, flags = args
    if _is(path, int):
        return ("path", f"fd {_as_int(path)}") if _as_int(path) == c.protected_fd else None
    write = (_is(flags, int) and _as_int(flags) & _WRITE_FLAGS) or (_is(mode, str) and str.strip(mode, "rbt") != "")
    real = _resolve(path)
    if real in c.protected_paths:
        return "path", real
    if write:
        return None if _writable(c, real) else ("path", real)
    if not _readable_real(c, real):  # already resolved: resolving twice doubled the cost per open
        return "path", real
    if mode is None and _isdir(real):  # a directory fd would let dir_fd= calls escape the path checks
        return "path", f"directory fd {real}"
    return None


def _check_listing(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    return None if _readable(c, args[0] if args else None, listing=True) else ("path", _word(args[0]))


def _check_chdir(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    path = args[0]
    if _is(path, int) or not _within(_resolve(path), c.workspace):
        return "path", _word(path)
    return None


def _check_mkdir(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    path, dir_fd = args[0], args[2] if len(args) > 2 else None
    if not _no_dir_fd(dir_fd) or _is(path, int) or not _writable(c, _resolve(path)):
        return "path", _word(path)
    return None


def _in_output(c: GuardConfig, path: object, dir_fd: object = None, *, allow_fd: bool = False) -> bool:
    if not _no_dir_fd(dir_fd):
        return False
    if _is(path, int):
        return allow_fd and _as_int(path) != c.protected_fd
    real = _resolve(path)
    return _within(real, c.output) and not _secret(c, real)


def _check_remove(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    dir_fd = args[1] if len(args) > 1 else None
    if _in_output(c, args[0], dir_fd) and _normcase(_resolve(args[0])) != _normcase(c.output):
        return None
    return "destructive", _word(args[0])


def _check_rename(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    src, dst = args[0], args[1]
    fds = args[2:4] if len(args) >= 4 else (None, None)
    if _in_output(c, src, fds[0]) and _in_output(c, dst, fds[1]):
        return None
    return "destructive", _word(src) + " -> " + _word(dst)


def _check_metadata(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    return None if _in_output(c, args[0]) else ("destructive", _word(args[0]))


def _check_truncate(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    return None if _in_output(c, args[0], allow_fd=True) else ("destructive", _word(args[0]))


def _is_hook_raise(tb: types.TracebackType) -> bool:
    return (tb.tb_lineno, tb.tb_lasti) in _HOOK_RAISES


def _check_frame(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    """Keep the hook's frame (its globals are the guard's) out of reach, and tracebacks printable.

    ``tb_frame`` of the traceback entry of a denial is refused. When the task reads ``tb_frame``
    of the entry just before it (``traceback.print_exc()`` and ``logging.exception`` walk the
    entries in order), that entry is cut there, so the walk ends at the task's own line.
    """
    tb, name = args[0], args[1]
    if type(tb) is not _TracebackType or type(name) is not str or name != "tb_frame":
        return None
    if _is_hook_raise(tb):
        return "native", "tb_frame of a guard denial"
    following = tb.tb_next
    if following is not None and _is_hook_raise(following):
        tb.tb_next = None
    return None


def _check_import(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    name = str.__add__("", args[0]) if _is(args[0], str) else ""
    parts = name.split(".")
    for end in range(1, len(parts) + 1):
        if ".".join(parts[:end]) in FORBIDDEN_MODULES or parts[0].startswith("_test"):
            return "import", name
    return None


_HANDLERS: dict[str, Callable[[GuardConfig, tuple], tuple[str, str] | None]] = {
    "open": _check_open, "os.listdir": _check_listing, "os.scandir": _check_listing,
    "os.listxattr": _check_listing, "os.getxattr": _check_listing, "os.chdir": _check_chdir,
    "os.mkdir": _check_mkdir, "os.remove": _check_remove, "os.rmdir": _check_remove,
    "os.rename": _check_rename, "os.chmod": _check_metadata, "os.chown": _check_metadata,
    "os.utime": _check_metadata, "os.setxattr": _check_metadata, "os.removexattr": _check_metadata,
    "os.chflags": _check_metadata, "os.lchflags": _check_metadata, "os.truncate": _check_truncate,
    "object.__getattr__": _check_frame, "import": _check_import,
}


def decide(c: GuardConfig, event: str, args: tuple) -> tuple[str, str] | None:
    """Return ``(category, detail)`` when ``event`` must be denied, else ``None``; errors deny (fail closed)."""
    try:
        handler = _HANDLERS.get(event)
        if handler is not None:
            return handler(c, args)
        category = _DENIED_EVENTS.get(event)
        if category is None:
            for prefix, prefix_category in _DENIED_PREFIXES:
                if event.startswith(prefix):
                    category = prefix_category
        return None if category is None else (category, _short(args))
    except Exception:  # an unreadable argument is a denial, never a pass
        return "path", f"unchecked {event}"


def _word(value: object) -> str:
    kind = type(value)
    if issubclass(kind, str):
        return str.__add__("", value)
    if issubclass(kind, bytes):
        return bytes.decode(value, _FS_ENCODING, "replace")
    if kind is int or kind is float or kind is bool or value is None:
        return str(value)
    return "<object>"  # never str() or repr() task objects inside the hook


def _short(args: tuple) -> str:
    return " ".join(_word(a) for a in args[:4])[:300]


def _record(fd: int, category: str, event: str, detail: str) -> None:
    line = '{"category": %s, "event": %s, "detail": %s}\n' % (
        _json_str(category), _json_str(event), _json_str(detail[:300]))
    os.write(fd, line.encode("ascii"))


def _make_hook(c: GuardConfig, fd: int) -> Callable[[str, tuple], None]:
    def hook(event: str, args: tuple) -> None:
        verdict = decide(c, event, args)
        if verdict is None:
            return
        try:
            _record(fd, verdict[0], event, verdict[1])
        except BaseException:  # recording is best effort; the denial is not
            pass
        message = f"LocalAgent 安全守卫已拒绝 / LocalAgent guard denied: {event} {verdict[1][:200]}"
        if verdict[0] == "import":
            raise ImportError(message)
        raise PermissionError(errno.EACCES, message)
    return hook


# Defaults for the unfrozen module (tests); each frozen copy gets its own snapshots.
_STABLE_DIRS: set[str] | None = None  # the frozen copy's cache of proved folders; None: no shortcut
_VOLATILE_DIRS: tuple[str, ...] = ()
_DEVNULL_REAL = os.path.realpath(os.devnull)
_realpath = os.path.realpath
_isdir = os.path.isdir
_normcase = os.path.normcase
_FS_ENCODING = sys.getfilesystemencoding()
_HOOK_RAISES: frozenset[tuple[int, int]] = frozenset()
_TracebackType = types.TracebackType
_is_secret_parts = guard_names.is_secret_parts
_is_product_log_name = guard_names.is_product_log_name


def _frozen_env(config: GuardConfig) -> dict:
    namespace = globals()
    env = dict(namespace)
    paths, names = guard_freeze.frozen_path_functions(), guard_freeze.frozen_name_rules()
    env.update(os=guard_freeze.snapshot(os), sys=guard_freeze.snapshot(sys), __builtins__=dict(vars(builtins)),
               _is_secret_parts=names["is_secret_parts"], _is_product_log_name=names["is_product_log_name"],
               _realpath=paths["realpath"], _isdir=paths["isdir"], _normcase=paths["normcase"],
               _DENIED_EVENTS=dict(_DENIED_EVENTS), _DEVNULL_REAL=paths["realpath"](os.devnull),
               _STABLE_DIRS=set() if os.sep == "/" and os.altsep is None else None,  # a fresh cache per hook
               _VOLATILE_DIRS=(str(config.output), str(config.logs)))
    guard_freeze.rebind(namespace, env)
    env["_HANDLERS"] = {event: env[handler.__name__] for event, handler in _HANDLERS.items()}
    hook_code = next(const for const in _make_hook.__code__.co_consts if isinstance(const, types.CodeType))
    env["_HOOK_RAISES"] = guard_freeze.raise_positions(hook_code)
    return env


def build_decider(config: GuardConfig) -> Callable[[str, tuple], tuple[str, str] | None]:
    """Return the frozen decision function for ``config`` (pure: it installs nothing).

    Args:
        config: the paths to enforce.

    Returns:
        ``decider(event, args) -> (category, detail) | None``, exactly what the
        installed hook consults; for tests and dry runs.
    """
    frozen_decide, view = _frozen_env(config)["decide"], guard_freeze.frozen_view(config)
    return lambda event, args: frozen_decide(view, event, args)


def install(config: GuardConfig, record_fd: int) -> None:
    """Install the guard in this interpreter for good (call it in the child only, just before the task runs).

    Args:
        config: from :func:`make_config`.
        record_fd: an open, writable file descriptor for the interceptions JSON lines.

    Side effects:
        Removes :data:`FORBIDDEN_MODULES` from ``sys.modules`` and adds the audit
        hook; from then on every denied operation raises ``PermissionError``
        (imports: ``ImportError``) and is recorded.
    """
    for name in list(sys.modules):
        if _check_import(config, (name,)) is not None:
            del sys.modules[name]
    sys.addaudithook(_frozen_env(config)["_make_hook"](guard_freeze.frozen_view(config), record_fd))
