"""Runtime guard installed in a task's child process before its code runs (issue 2 part 10).

Seed 000 P0 §2 "运行时硬隔离": file access outside the workspace, network
modules and dangerous calls are stopped at run time with ``PermissionError`` /
``ImportError``. This module does it with a PEP 578 audit hook
(``sys.addaudithook``), which sees every ``open``, directory listing, rename,
socket, process and ``ctypes`` operation and every first import of a module,
whatever name or alias the code reached it through.

What it allows (everything else in its event tables is denied):

- writing (``open`` with w/a/x/+, ``os.open`` with write flags, ``mkdir``) only
  under ``<ws>/output/`` and ``<ws>/logs/`` (not the run's own ``task_*.log`` nor
  ``security_metrics.json``); changing or removing files (remove, rename, chmod,
  utime…) only under ``output/``; links and ``shutil.rmtree`` never;
- reading and listing inside the workspace, plus the library folders the
  interpreter imports from (stdlib, site-packages) and a few harmless data files
  (``/dev/null``, mime.types, zoneinfo); ``/etc/passwd`` and ``~/.ssh`` are denied;
- no sockets, no new processes, no ``ctypes``, no sub-interpreters, no walking
  the garbage collector, and no import of :data:`FORBIDDEN_MODULES`.

``exec``/``eval``/``compile`` are not denied here: imports and the standard
library (``namedtuple``, ``dataclasses``) use them, the rule checker refuses them
in task code, and code they run is still under this hook.

Tamper resistance: an audit hook cannot be removed. The hook and every helper it
calls are copies of this module's functions bound to a private globals dict with
snapshots of ``builtins``, ``os`` and ``os.path`` taken at install time, so
patching ``builtins.open``, ``os.lstat``, ``os.path.realpath`` or this module's
attributes from task code changes nothing; and the traceback frames of the
hook's own denials cannot be fetched (``tb_frame``), so its globals stay out of
reach. Each denial appends one JSON line ``{"category", "event", "detail"}`` to
an interceptions file opened before the hook was installed. Containment is
checked here with those frozen functions rather than with
``localagent.workspace.policy`` (which uses ``pathlib``, patchable from task code);
the rule is the same: resolved paths compared component by component.

Resolving a path is the hook's main cost (one ``lstat`` per component in
``os.path.realpath``). :func:`_fast_realpath` gives the same answer with fewer
calls: folders the task cannot change (everything but what lies inside ``output/``
and ``logs/``; see :func:`_is_stable_dir`) are proved symlink-free once and
remembered, and only the names below them are ``lstat``-ed on each event; a ``..``
or any symlink on the way sends the path to ``realpath`` itself.

Known cost of that last wall: ``traceback.print_exc()`` or ``logging.exception``
on an exception *raised by the guard* cannot walk into the guard's frame and
fails (``print(error)`` works, and an uncaught error still prints its traceback).
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
_PROTECTED_LOG_NAMES = ("security_metrics.json",)


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
    """

    workspace: str
    output: str
    logs: str
    input: str
    read_roots: tuple[str, ...] = ()
    read_files: tuple[str, ...] = ()
    protected_paths: tuple[str, ...] = ()
    protected_fd: int = -1


def make_config(workspace: str | os.PathLike[str], *, protected_paths: Iterable[str | os.PathLike[str]] = (),
                protected_fd: int = -1) -> GuardConfig:
    """Build the guard's configuration for a workspace, in the current interpreter.

    Args:
        workspace: the workspace root; ``input/``, ``output/`` and ``logs/`` are its children.
        protected_paths: files the task may never open (the interceptions file).
        protected_fd: the already-open interceptions file descriptor, or ``-1``.

    Returns:
        A :class:`GuardConfig` whose read roots are this interpreter's library
        folders (``sysconfig`` stdlib and site-packages paths, zoneinfo). Other
        ``sys.path`` entries are left out on purpose: an editable install's ``.pth``
        can point at a source tree that holds ``.env``.
    """
    import sysconfig

    root = os.path.realpath(workspace)
    libraries = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    libraries.update(d for d in (sysconfig.get_config_var("TZPATH") or "").split(os.pathsep) if os.path.isdir(d))
    read_roots = tuple(sorted({os.path.realpath(p) for p in libraries} - {os.path.realpath(os.sep)}))
    return GuardConfig(
        workspace=root, output=os.path.join(root, "output"), logs=os.path.join(root, "logs"),
        input=os.path.join(root, "input"), read_roots=read_roots, read_files=_harmless_files(),
        protected_paths=tuple(os.path.realpath(p) for p in protected_paths), protected_fd=protected_fd)


def _harmless_files() -> tuple[str, ...]:
    import mimetypes

    files = [os.devnull, "/dev/urandom", "/dev/random", sys.executable, *mimetypes.knownfiles]
    return tuple(sorted({os.path.realpath(f) for f in files}))


# --- the decision, as pure functions (copied into a private namespace by _frozen_env) --------------------------

def _within(path: str, root: str) -> bool:
    if not root:
        return False
    path, root = _normcase(path), _normcase(root)
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path == root or path.startswith(prefix)


def _resolve(path: object) -> str:
    if isinstance(path, bytes):  # unbound methods: a str/bytes subclass cannot lie about its value
        path = bytes.decode(path, _FS_ENCODING, "surrogateescape")
    if not isinstance(path, str):
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


def _readable(c: GuardConfig, path: object) -> bool:
    if isinstance(path, int):
        return path != c.protected_fd
    return _readable_real(c, _resolve("." if path is None else path))


def _readable_real(c: GuardConfig, real: str) -> bool:
    if real in c.protected_paths:
        return False
    return _within(real, c.workspace) or _any_within(real, c.read_roots) or real in c.read_files


def _writable(c: GuardConfig, real: str) -> bool:
    if real == _DEVNULL_REAL:
        return True
    if _within(real, c.logs):
        name = _normcase(real.rsplit(os.sep, 1)[-1])
        return not (name in _PROTECTED_LOG_NAMES or (name.startswith("task_") and name.endswith(".log")))
    return _within(real, c.output)


def _check_open(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    path, mode, flags = args
    if isinstance(path, int):
        return ("path", f"fd {path}") if path == c.protected_fd else None
    write = (isinstance(flags, int) and flags & _WRITE_FLAGS) or (isinstance(mode, str) and mode.strip("rbt") != "")
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
    return None if _readable(c, args[0] if args else None) else ("path", str(args[0]))


def _check_chdir(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    path = args[0]
    if isinstance(path, int) or not _within(_resolve(path), c.workspace):
        return "path", str(path)
    return None


def _check_mkdir(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    path, dir_fd = args[0], args[2] if len(args) > 2 else None
    if dir_fd not in (None, -1) or isinstance(path, int) or not _writable(c, _resolve(path)):
        return "path", str(path)
    return None


def _in_output(c: GuardConfig, path: object, dir_fd: object = None, *, allow_fd: bool = False) -> bool:
    if dir_fd not in (None, -1):
        return False
    if isinstance(path, int):
        return allow_fd and path != c.protected_fd
    return _within(_resolve(path), c.output)


def _check_remove(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    dir_fd = args[1] if len(args) > 1 else None
    if _in_output(c, args[0], dir_fd) and _normcase(_resolve(args[0])) != _normcase(c.output):
        return None
    return "destructive", str(args[0])


def _check_rename(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    src, dst = args[0], args[1]
    fds = args[2:4] if len(args) >= 4 else (None, None)
    if _in_output(c, src, fds[0]) and _in_output(c, dst, fds[1]):
        return None
    return "destructive", f"{src} -> {dst}"


def _check_metadata(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    return None if _in_output(c, args[0]) else ("destructive", str(args[0]))


def _check_truncate(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    return None if _in_output(c, args[0], allow_fd=True) else ("destructive", str(args[0]))


def _check_frame(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    obj, name = args[0], args[1]
    if name == "tb_frame" and (getattr(obj, "tb_lineno", None), getattr(obj, "tb_lasti", None)) in _HOOK_RAISES:
        return "native", "tb_frame of a guard denial"
    return None


def _check_import(c: GuardConfig, args: tuple) -> tuple[str, str] | None:
    name = str.__add__("", args[0]) if isinstance(args[0], str) else ""
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
    if isinstance(value, str):
        return str.__add__("", value)
    if isinstance(value, bytes):
        return bytes.decode(value, _FS_ENCODING, "replace")
    if type(value) in (int, float, bool) or value is None:
        return str(value)
    return "<object>"  # never repr() task objects inside the hook


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


def _snapshot(module: types.ModuleType) -> types.SimpleNamespace:
    return types.SimpleNamespace(**vars(module))


def _rebind(namespace: dict, env: dict) -> None:
    """Copy every function defined in ``namespace`` into ``env``, with ``env`` as its globals."""
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
            copy = types.FunctionType(value.__code__, env, value.__name__, value.__defaults__, value.__closure__)
            copy.__kwdefaults__ = value.__kwdefaults__
            env[name] = copy


def _frozen_path_functions() -> dict:
    import genericpath
    import stat

    env = dict(vars(os.path))
    env.update(os=_snapshot(os), stat=_snapshot(stat), genericpath=_snapshot(genericpath), sys=_snapshot(sys),
               __builtins__=dict(vars(builtins)))
    _rebind(vars(genericpath), env)
    _rebind(vars(os.path), env)
    return env


def _frozen_env(config: GuardConfig) -> dict:
    namespace = globals()
    env = dict(namespace)
    paths = _frozen_path_functions()
    env.update(os=_snapshot(os), sys=_snapshot(sys), __builtins__=dict(vars(builtins)),
               _realpath=paths["realpath"], _isdir=paths["isdir"], _normcase=paths["normcase"],
               _DENIED_EVENTS=dict(_DENIED_EVENTS), _DEVNULL_REAL=paths["realpath"](os.devnull),
               _STABLE_DIRS=set() if os.sep == "/" and os.altsep is None else None,  # a fresh cache per hook
               _VOLATILE_DIRS=(str(config.output), str(config.logs)))
    _rebind(namespace, env)
    env["_HANDLERS"] = {event: env[handler.__name__] for event, handler in _HANDLERS.items()}
    hook_code = next(const for const in _make_hook.__code__.co_consts if isinstance(const, types.CodeType))
    env["_HOOK_RAISES"] = _raise_positions(hook_code)
    return env


def _raise_positions(code: types.CodeType) -> frozenset[tuple[int, int]]:
    """Return the ``(line, byte offset)`` pairs of the RAISE instructions in ``code`` (as a traceback shows them)."""
    import dis

    return frozenset((ins.positions.lineno, ins.offset) for ins in dis.get_instructions(code)
                     if ins.opname == "RAISE_VARARGS" and ins.positions is not None)


def _frozen_view(config: GuardConfig) -> tuple:
    """Copy ``config`` into an instance of a private named tuple: immutable, and of a class no task can name."""
    import collections

    names = list(GuardConfig._fields)
    view_class = collections.namedtuple("GuardView", names)  # a fresh class per install
    return view_class(*(getattr(config, name) for name in names))


def build_decider(config: GuardConfig) -> Callable[[str, tuple], tuple[str, str] | None]:
    """Return the frozen decision function for ``config`` (pure: it installs nothing).

    Args:
        config: the paths to enforce.

    Returns:
        ``decider(event, args) -> (category, detail) | None``, exactly what the
        installed hook consults; for tests and dry runs.
    """
    frozen_decide, view = _frozen_env(config)["decide"], _frozen_view(config)
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
    sys.addaudithook(_frozen_env(config)["_make_hook"](_frozen_view(config), record_fd))
