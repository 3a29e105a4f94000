"""Private copies of the runtime guard's functions (issue 2 part 10): what makes patching from task code useless.

:mod:`localagent.executor.path_guard` decides with copies of its own functions (and of
``os.path``'s, :mod:`guard_names`' and :mod:`~localagent.workspace.pathnames`') bound to
private globals dicts holding snapshots of ``builtins``, ``os``, ``sys``, ``stat`` and
``unicodedata`` taken at install time. Patching those modules, or the original modules'
attributes, from task code changes nothing the hook calls. Install-time only.
"""

from __future__ import annotations

import builtins
import os
import sys
import types

from localagent.executor import guard_names


def snapshot(module: types.ModuleType) -> types.SimpleNamespace:
    """Return a namespace holding ``module``'s attributes as they are now."""
    return types.SimpleNamespace(**vars(module))


def rebind(namespace: dict, env: dict) -> None:
    """Copy every function defined in ``namespace`` into ``env``, with ``env`` as its globals."""
    for name, value in list(namespace.items()):
        if isinstance(value, types.FunctionType) and value.__globals__ is namespace:
            copy = types.FunctionType(value.__code__, env, value.__name__, value.__defaults__, value.__closure__)
            copy.__kwdefaults__ = value.__kwdefaults__
            env[name] = copy


def frozen_path_functions() -> dict:
    """Return a globals dict of copies of ``os.path``/``genericpath`` functions bound to module snapshots."""
    import genericpath
    import stat

    env = dict(vars(os.path))
    env.update(os=snapshot(os), stat=snapshot(stat), genericpath=snapshot(genericpath), sys=snapshot(sys),
               __builtins__=dict(vars(builtins)))
    rebind(vars(genericpath), env)
    rebind(vars(os.path), env)
    return env


def frozen_name_rules() -> dict:
    """Frozen copies of :mod:`guard_names` and the :mod:`~localagent.workspace.pathnames` functions it calls."""
    import unicodedata

    from localagent.workspace import pathnames

    rules = dict(vars(pathnames))
    rules.update(unicodedata=snapshot(unicodedata), __builtins__=dict(vars(builtins)))
    rebind(vars(pathnames), rules)
    env = dict(vars(guard_names))
    env.update(_names=types.SimpleNamespace(**rules), _flag_cache={}, __builtins__=dict(vars(builtins)))
    rebind(vars(guard_names), env)
    return env


def raise_positions(code: types.CodeType) -> frozenset[tuple[int, int]]:
    """Return the ``(line, byte offset)`` pairs of the RAISE instructions in ``code`` (as a traceback shows them)."""
    import dis

    return frozenset((ins.positions.lineno, ins.offset) for ins in dis.get_instructions(code)
                     if ins.opname == "RAISE_VARARGS" and ins.positions is not None)


def frozen_view(config: tuple) -> tuple:
    """Copy ``config`` into an instance of a private named tuple: immutable, and of a class no task can name."""
    import collections

    names = list(type(config)._fields)
    view_class = collections.namedtuple("GuardView", names)  # a fresh class per install
    return view_class(*(getattr(config, name) for name in names))
